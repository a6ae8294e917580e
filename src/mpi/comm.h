/* dist.h - the distributed mode: P processes (ranks) share one universe.
 *
 * `mpirun -np P life3d ...` starts P copies of the same command line.  The
 * universe is cut along x into P slabs of consecutive planes, one per rank
 * (sizes differ by at most one plane); each rank steps its slab and trades
 * boundary planes with its x-neighbours.  Files are read and written by
 * every rank at once (MPI-IO) where the format allows it, so no rank ever
 * holds the whole universe; rank 0 alone prints, logs and writes PNGs.
 *
 * Without MPI built in, or when life3d is started without an MPI launcher,
 * the same functions describe one process (rank 0 of 1) and the universe
 * functions do what a single process does, so callers need no #ifdef.
 *
 * What keeps a distributed run from hanging: every rank makes the same
 * collective calls in the same order.  Anything that can fail on one rank
 * alone (a file, memory, a write) is followed by dist_agree() before the
 * next collective call; every function below that takes an l3d_err returns
 * the same status and message on every rank. */
#ifndef LIFE3D_DIST_H
#define LIFE3D_DIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"
#include "format/format.h"
#include "run/snapshot.h"
#include "base/status.h"

/* ---- processes ---- */

/* Join the MPI job when started by a launcher (mpirun, srun); otherwise
 * nothing.  Call first thing in main(); MPI failures abort the job. */
void dist_init(int *argc, char ***argv);
void dist_finalize(void);
int dist_rank(void);
int dist_size(void);
/* Started by an MPI launcher, even with one rank. */
bool dist_launched(void);
/* This rank's index among the ranks of its node, and their number: the
 * GPU a rank drives and the threads it takes follow from them. */
int dist_local_rank(void);
int dist_local_size(void);
/* The MPI library moves GPU memory itself (CUDA-aware). */
bool dist_cuda_aware(void);

/* Whether to refuse binary data for a terminal on stdout (outfile_check's
 * `binary`).  Under a launcher stdout is the launcher's pseudo-terminal
 * even when the job's output goes to a file, so it tells nothing there. */
bool dist_tty_guard(bool binary);

/* ---- agreement ---- */

/* Every rank passes its own status; all get the status and message of
 * the lowest rank that failed (prefixed "rank N: " unless N is 0), or
 * L3D_OK when none did. */
int dist_agree(int rc, l3d_err *err);
bool dist_any(bool v);
double dist_max(double v);
uint64_t dist_sum(uint64_t v);

/* ---- slabs ---- */

/* Planes [*x0, *x0 + *n) of an nx-plane universe belong to `rank` of
 * `size`: nx / size each, the first nx % size ranks one more. */
void dist_slab_of(uint64_t nx, int size, int rank, uint64_t *x0, uint64_t *n);
/* This rank's slab; L3D_ERR_USAGE when there are more ranks than planes
 * (`what` names the universe for the message). */
int dist_split(uint64_t nx, const char *what, uint64_t *x0, uint64_t *n,
	       l3d_err *err);

/* ---- the universe across the ranks ----
 * `slab` is this rank's planes [x0, x0 + slab->nx) of a universe of nx
 * planes (in one process: all of them, x0 = 0). */

/* grid_random's universe of size[0] x size[1] x size[2], each rank making
 * only its own planes. */
int dist_random(grid *slab, uint64_t *x0, uint64_t *nx, const uint64_t size[3],
		double density, uint64_t seed, l3d_err *err);

/* Read a universe.  Rank 0 passes the open input `f` (the others NULL);
 * `path` is the file name every rank can open, NULL for stdin.  HPCGame
 * and .l3d files are read by all ranks in parallel; stdin and RLE3 are
 * read by rank 0 and scattered, so they must fit in its memory. */
int dist_read(FILE *f, const char *path, const char *name, grid *slab,
	      uint64_t *x0, uint64_t *nx, universe_meta *meta, fmt_id *format,
	      l3d_err *err);

/* An engine for the whole universe from every rank's slab: in one process
 * engine_create(), across ranks the slab engine (whose views and read-back
 * land on rank 0 only). */
int dist_engine_create(const engine_opts *opts, const grid *slab, uint64_t x0,
		       uint64_t nx, const rule *r, engine **out, l3d_err *err);

/* Write a distributed engine's universe (dist_size() > 1; one process
 * writes its grid itself) to `path` atomically, as generation `gen` in
 * format f; *population (if not NULL) gets its population.  HPCGame and
 * .l3d go from every rank at once; the other formats are gathered on
 * rank 0, with L3D_ERR_USAGE when the universe does not fit there. */
int dist_write(engine *e, const char *path, bool force, fmt_id f,
	       const rule *r, uint64_t gen, uint64_t *population, l3d_err *err);

/* snapshot_write() with the image assembled on rank 0, which writes it. */
int dist_snapshot(engine *e, const snapshot_opts *o, uint64_t generation,
		  char *path, size_t path_size, l3d_err *err);

#endif
