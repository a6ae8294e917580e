/* snapshot.h - PNG pictures of the universe, taken from the engine.
 *
 * A projection counts live cells along an axis and shows the count as an
 * 8-bit grey level (255 = the whole line alive): the first picture a person
 * wants of a 3D universe.  A slice shows one plane, live cells white.  The
 * image plane of each axis is described in grid.h (axis z: x across, y
 * down).  Files are named PREFIX + zero-padded generation + ".png". */
#ifndef LIFE3D_RUN_SNAPSHOT_H
#define LIFE3D_RUN_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"

typedef enum snapshot_kind { SNAP_PROJECTION, SNAP_SLICE } snapshot_kind;

typedef struct snapshot_opts {
	const char *prefix;
	snapshot_kind kind;
	int axis;               /* 0 = x, 1 = y, 2 = z */
	uint64_t index;         /* plane for a slice */
	unsigned scale;         /* each cell becomes scale x scale pixels */
	unsigned digits;        /* zero padding of the generation */
	bool force;
} snapshot_opts;

/* Take a snapshot and write it, overlapped with the run: the view is
 * taken from the engine now, and scaled, encoded and written on a thread
 * of its own while the next steps run; the file name is left in `path`.  A failure is reported by the next snapshot_start() or
 * by snapshot_wait(), which every run calls before it ends. */
int snapshot_start(engine *e, const snapshot_opts *o, uint64_t generation,
		   char *path, size_t path_size, l3d_err *err);
int snapshot_wait(l3d_err *err);

/* Write one snapshot from a view already taken (a distributed run's,
 * assembled on rank 0): uint32_t counts w x h for a projection, uint8_t
 * cells for a slice (o->kind), at once.  The file name is left in `path`. */
int snapshot_write_view(const snapshot_opts *o, uint64_t generation,
			const void *view, uint64_t w, uint64_t h, char *path,
			size_t path_size, l3d_err *err);

#endif
