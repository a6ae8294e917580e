/* snapshot.h - PNG pictures of the universe, taken from the engine.
 *
 * Three kinds, all 8-bit RGB:
 *   projection  live cells counted along an axis, each count a colour of
 *               colormap.h's map against a fixed reference (`max`, by
 *               default the largest count of the first picture), so
 *               frames compare; 0 is black;
 *   slice       one plane, live cells the map's top colour (yellow) on
 *               black;
 *   render      the 3D view of render.h.
 * The image plane of a projection or slice along axis a spans the other
 * two axes in order (grid.h): along z, x runs right and y down; along y,
 * x right and z down; along x, y right and z down; (0, 0) is the top-left
 * pixel.  Each cell is scale x scale pixels (a render: scale pixels along
 * a cell's edge).  Files are named PREFIX + zero-padded generation +
 * ".png" and carry text chunks saying what they show. */
#ifndef LIFE3D_RUN_SNAPSHOT_H
#define LIFE3D_RUN_SNAPSHOT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"

typedef enum snapshot_kind { SNAP_PROJECTION, SNAP_SLICE, SNAP_RENDER } snapshot_kind;

typedef struct snapshot_opts {
	const char *prefix;
	snapshot_kind kind;
	int axis;               /* 0 = x, 1 = y, 2 = z */
	uint64_t index;         /* plane for a slice */
	uint64_t scale;         /* pixels per cell; 0: snapshot_fit chooses */
	uint64_t max;           /* projection: the count drawn at the map's
	                           top; 0 = auto: the largest count of the
	                           first picture, which snapshot_start and
	                           snapshot_write_view then put here */
	bool log;               /* projection: counts on a log scale */
	double azimuth, elevation;   /* render: degrees (render.h) */
	int threads;            /* threads drawing and compressing a
	                           picture, 0 = every core */
	unsigned digits;        /* zero padding of the generation */
	bool force;
	bool every_band;        /* compress every band of rows, none kept from
	                           the picture before (LIFE3D_SKIP=0) */
	/* A resumed run: a picture of this series after generation
	 * resumed_at (snapshot_of_series) is the stopped run's own, drawn
	 * before a crash, and is replaced. */
	bool resumed;
	uint64_t resumed_at;
	char rule[128];         /* for the text chunks */
	/* nonzero: a stop was asked for (a signal): the picture being
	 * encoded is abandoned between bands of rows */
	const volatile sig_atomic_t *stop;
} snapshot_opts;

/* The file name of generation g's snapshot (PREFIX, g in at least
 * o->digits digits, ".png") into buf; its length, as snprintf gives it. */
int snapshot_name(const snapshot_opts *o, uint64_t g, char *buf, size_t size);

/* Is the file at path generation g's picture of this series: a PNG whose
 * text says life3d drew it, of o's kind and rule, at generation g? */
bool snapshot_of_series(const snapshot_opts *o, const char *path, uint64_t g);

/* The reference (Maximum) of generation g's projection of this series
 * under a name of any width, when it is there; else 0: what a resumed
 * run's --snapshot-max auto keeps from the stopped run. */
uint64_t snapshot_series_max(const snapshot_opts *o, uint64_t g);

/* May generation g's picture replace what is at its name: with force, or
 * a resumed run's picture of this series from before a crash. */
bool snapshot_may_replace(const snapshot_opts *o, const char *path, uint64_t g);

/* Before the first step: choose o->scale if it is 0 (the smallest whose
 * picture is at least `size` pixels on its long side, or the largest that
 * a PNG holds when that one does not fit),
 * refuse (L3D_ERR_USAGE, with the limit) a picture larger than PNG allows,
 * and leave in *bytes the memory a snapshot takes on top of the engine. */
int snapshot_fit(snapshot_opts *o, const uint64_t n[3], uint64_t size,
		 uint64_t *bytes, l3d_err *err);
/* The threads snapshots may run at once, every one of them allocating:
 * two pictures in flight, each developed on a thread of its own with
 * helpers that draw and compress its bands. */
int snapshot_threads(const snapshot_opts *o);

/* Take a snapshot and write it, overlapped with the run: the view is
 * taken from the engine now (for a render, the picture when the engine
 * draws it itself, as a GPU does, else a copy of the universe, drawn on
 * the host's threads), and drawn, encoded and written on threads of its
 * own (snapshot_opts.threads) while the next steps run; the file name is
 * left in `path`.  Two pictures may be in flight: this waits for the one
 * before the last to be written and for the last to have come from the
 * engine (for the whole of the last when either is drawn from a copy of
 * the universe).  A failure is reported by a later snapshot_start() or by
 * snapshot_wait(), which waits for every picture and which every run
 * calls before it ends; a picture abandoned for a stop is
 * L3D_ERR_INTERRUPTED. */
int snapshot_start(engine *e, snapshot_opts *o, uint64_t generation,
		   char *path, size_t path_size, l3d_err *err);
/* Before the first step: ready the engine for the snapshots o asks for
 * (engine_render_prepare), so that the first costs the run no more than
 * the next. */
int snapshot_prepare(engine *e, const snapshot_opts *o, l3d_err *err);
int snapshot_wait(l3d_err *err);

/* What snapshots cost since the program started: pictures written, and of
 * them those of a universe that repeats, put whole from an earlier picture
 * of the same universe (engine_repeats(): nothing taken or drawn); bands
 * of pictures written, and of them those put again as an earlier picture
 * of the same size had them (bandmemo.h: their rows the same bytes, or the
 * picture repeated) instead of compressed. */
typedef struct snapshot_counts {
	uint64_t pictures, repeated;
	uint64_t bands, kept;
} snapshot_counts;
void snapshot_tally(snapshot_counts *c);

/* Write one snapshot at once from what a distributed run assembled on
 * rank 0: for a projection or slice the view (uint32_t counts or uint8_t
 * cells, w x h as grid_view_dims), for a render the whole universe `g`
 * (view unused).  The file name is left in `path`. */
int snapshot_write_view(snapshot_opts *o, uint64_t generation,
			const grid *g, const void *view, char *path,
			size_t path_size, l3d_err *err);

#endif
