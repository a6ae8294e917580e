/* universe.h - the universe's way into and out of a run: made at random or
 * read from a file, handed to an engine, written back, pictured.  The same
 * calls serve one process and a distributed run (mpi/): in one process
 * the input's cells stream into the engine while they are read; across
 * ranks each rank reads, steps and writes its own planes, and rank 0 alone
 * writes what only one process can write (PNGs, formats without a fixed
 * layout).  Every function returns the same status on every rank. */
#ifndef LIFE3D_RUN_UNIVERSE_H
#define LIFE3D_RUN_UNIVERSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/outfile.h"
#include "engine/engine.h"
#include "format/format.h"
#include "snapshot.h"

/* Where a run's universe comes from, until an engine holds it. */
typedef struct universe_source {
	grid start;              /* this rank's planes [x0, x0 + start.nx) */
	uint64_t x0, nx;         /* the first of them; planes in the universe */
	fmt_id format;           /* the input's (native for --random) */
	universe_meta meta;      /* what the input says besides its cells */
	const char *name;        /* "--random", "(stdin)" or the path */
	/* one process: the input, whose cells may still be coming */
	reader in;
	FILE *file;
	format_stream *reading;
} universe_source;

/* Start what an engine needs before it sees the universe (a GPU context),
 * so it overlaps reading the input; nothing across ranks. */
void universe_warm_up(const engine_opts *eo);

/* grid_random's universe of size[0] x size[1] x size[2] in the shape
 * given (grid_keep_shape), each rank making only its own planes. */
int universe_random(universe_source *u, const uint64_t size[3], double density,
		    uint64_t seed, grid_shape shape, l3d_err *err);

/* Open the input (`input` NULL or "-": stdin) and read its header.  In one
 * process the cells go on being read in the background; across ranks
 * each rank has its planes on return.  `place` says where a 2D pattern
 * goes (format/io.h; NULL: the middle XY plane, once). */
int universe_open(universe_source *u, const char *input, const plane_place *place,
		  l3d_err *err);

/* The engine for the universe (engine/choose.h in one process, the slab
 * engine across ranks); *population gets the input's population and
 * *t_read, if the input was still being read, when its last row came (0
 * otherwise).  `rc` and `why` are the status of everything the run decided
 * meanwhile: failures are reported in the order a run that read everything
 * first would meet them, the input's, then `rc`'s, then the engine's.
 * Frees u->start and closes the input either way. */
int universe_engine(universe_source *u, const engine_opts *eo, const rule *r,
		    int rc, const l3d_err *why, engine **out, uint64_t *population,
		    double *t_read, l3d_err *err);

/* Golly's even-size rule for BusyBoxes (3D.lua's SetGridSize before a
 * step): in one process, once the input is read, each odd side grows by
 * one and every cell moves one cell up along it, as Golly's re-centring
 * on N/2 moves them.  *grown says whether anything changed.  Across ranks
 * nothing is done. */
int universe_grow_even(universe_source *u, bool *grown, l3d_err *err);

/* What is left of a source that never reached universe_engine(). */
void universe_close(universe_source *u);

/* The run is over but for writing the universe out (engine_let_go): a
 * single process's engine may take it into host memory and give its
 * device back meanwhile.  Across ranks nothing is done. */
int universe_let_go(engine *e, l3d_err *err);

/* Write the engine's universe as d says (format.h); *population, if not
 * NULL, gets its population. */
int universe_write(engine *e, const universe_dest *d, uint64_t *population, l3d_err *err);

/* A snapshot of the engine's universe; the file name is left in `path`.
 * In one process it is encoded and written while the next steps run
 * (snapshot_start); across ranks every rank takes part in the view and
 * rank 0 writes it. */
int universe_snapshot(engine *e, snapshot_opts *o, uint64_t generation,
		      char *path, size_t path_size, l3d_err *err);

#endif
