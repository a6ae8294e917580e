/* comm.h - the processes (ranks) of a distributed run, and how they agree.
 *
 * `mpirun -np P life3d ...` starts P copies of the same command line.  The
 * universe is cut along x into P slabs of consecutive planes, one per rank
 * (sizes differ by at most one plane); each rank steps its slab and trades
 * boundary planes with its x-neighbours (slab_engine.h).  Files are read
 * and written by every rank at once (MPI-IO, slab_io.h) where the format
 * allows it, so no rank ever holds the whole universe; rank 0 alone
 * prints, logs and writes PNGs.
 *
 * Without MPI built in, or when life3d is started without an MPI launcher,
 * the same functions describe one process (rank 0 of 1), so callers need
 * no #ifdef.
 *
 * What keeps a distributed run from hanging: every rank makes the same
 * collective calls in the same order.  Anything that can fail on one rank
 * alone (a file, memory, a write) is followed by comm_agree() before the
 * next collective call; every function below that takes an l3d_err returns
 * the same status and message on every rank. */
#ifndef LIFE3D_MPI_COMM_H
#define LIFE3D_MPI_COMM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h"

/* ---- processes ---- */

/* Join the MPI job when started by a launcher (mpirun, srun), as the
 * variables it sets say (looked up with get: getenv); otherwise nothing.
 * Call first thing in main(); MPI failures abort the job. */
void comm_init(int *argc, char ***argv, char *(*get)(const char *name));
void comm_finalize(void);
int comm_rank(void);
int comm_size(void);
/* This rank's index among the ranks of its node, and their number: the
 * GPU a rank drives and the threads it takes follow from them. */
int comm_local_rank(void);
int comm_local_size(void);
/* The MPI library moves GPU memory itself (CUDA-aware). */
bool comm_cuda_aware(void);

/* Whether to refuse binary data for a terminal on stdout (outfile_check's
 * `binary`).  Under a launcher stdout is the launcher's pseudo-terminal
 * even when the job's output goes to a file, so it tells nothing there. */
bool comm_tty_guard(bool binary);

/* ---- agreement ---- */

/* Every rank passes its own status; all get the status and message of
 * the lowest rank that failed (the message one process would give, with
 * no rank in it), or L3D_OK when none did. */
int comm_agree(int rc, l3d_err *err);
bool comm_any(bool v);
double comm_max(double v);
uint64_t comm_sum(uint64_t v);
/* Rank 0's v, on every rank. */
uint64_t comm_bcast(uint64_t v);

/* Every rank's `len` bytes at `mine` to rank 0, where (*out)[r] (of
 * (*lens)[r] bytes, malloc'ed, like both arrays) holds rank r's, rank 0's
 * own included; elsewhere *out and *lens are NULL.  Collective.  On rank
 * 0, L3D_ERR_RUNTIME when there is no room (every rank's bytes are still
 * received, and what could be kept is in *out). */
int comm_gather_bytes(const void *mine, size_t len, void ***out, size_t **lens,
		      l3d_err *err);

/* ---- slabs ---- */

/* Planes [*x0, *x0 + *n) of an nx-plane universe belong to `rank` of
 * `size`: nx / size each, the first nx % size ranks one more. */
void comm_slab_of(uint64_t nx, int size, int rank, uint64_t *x0, uint64_t *n);
/* This rank's slab; L3D_ERR_USAGE when there are more ranks than planes
 * (`what` names the universe for the message). */
int comm_split(uint64_t nx, const char *what, uint64_t *x0, uint64_t *n,
	       l3d_err *err);

/* ---- for the MPI parts of mpi/ (slab_engine.c, slab_io.c) ---- */
#ifdef HAVE_MPI
#include <mpi.h>
#include <stddef.h>

#include "base/grid.h"

/* The job's communicator (a duplicate of MPI_COMM_WORLD, so life3d's
 * messages never meet another library's). */
extern MPI_Comm comm_world;

/* L3D_ERR_* `code` with "<what>: <MPI's explanation of mpirc>". */
int comm_mpi_fail(int mpirc, int code, const char *what, l3d_err *err);

/* Blocking point-to-point of buffers of any size (MPI counts are int:
 * large buffers go in pieces). */
void comm_send(const void *buf, size_t bytes, int to, int tag);
void comm_recv(void *buf, size_t bytes, int from, int tag);

/* Rank 0's whole universe to every rank's slab, and back.  `whole` is
 * used on rank 0 only. */
void comm_scatter_slabs(const grid *whole, grid *slab);
void comm_gather_slabs(const grid *slab, grid *whole);
#endif /* HAVE_MPI */

#endif
