/* dist_mpi.h - what the MPI parts of life3d share (built with MPI only).
 *
 * dist.c holds the communicator and the message helpers, engine_mpi.c the
 * slab engine, format_slab.c the parallel file I/O.  Callers outside them
 * use dist.h. */
#ifndef LIFE3D_DIST_MPI_H
#define LIFE3D_DIST_MPI_H

#include <mpi.h>

#include "comm.h"

/* The job's communicator (a duplicate of MPI_COMM_WORLD, so life3d's
 * messages never meet another library's). */
extern MPI_Comm dist_comm;

/* L3D_ERR_* `code` with "<what>: <MPI's explanation of mpirc>". */
int dist_mpi_fail(int mpirc, int code, const char *what, l3d_err *err);

/* Blocking point-to-point of buffers of any size (MPI counts are int:
 * large buffers go in pieces). */
void dist_send(const void *buf, size_t bytes, int to, int tag);
void dist_recv(void *buf, size_t bytes, int from, int tag);

/* Rank 0's whole universe to every rank's slab, and back.  `whole` is
 * used on rank 0 only. */
void dist_scatter_slabs(const grid *whole, grid *slab);
void dist_gather_slabs(const grid *slab, grid *whole);

/* ---- the slab engine (engine_mpi.c) ---- */

int engine_mpi_create(const engine_opts *opts, const grid *slab, uint64_t x0,
		      uint64_t nx, const rule *r, engine **out, l3d_err *err);
/* This rank's planes as a host grid (a view, valid until the next engine
 * call; nothing to free) and the index of its first plane. */
int engine_mpi_slab(engine *e, grid *view, uint64_t *x0, l3d_err *err);
int engine_mpi_snapshot(engine *e, const snapshot_opts *o, uint64_t generation,
			char *path, size_t path_size, l3d_err *err);

/* ---- parallel file I/O (format_slab.c) ---- */

int slab_read(FILE *f, const char *path, const char *name, grid *slab,
	      uint64_t *x0, uint64_t *nx, universe_meta *meta, fmt_id *format,
	      l3d_err *err);
int slab_write(engine *e, const char *path, bool force, fmt_id f,
	       const rule *r, uint64_t gen, uint64_t *population, l3d_err *err);

#endif
