/* comm_mpi.h - the communicator and message helpers that the MPI parts of
 * life3d share (slab_engine.c, slab_io.c; built with MPI only).  Callers
 * outside mpi/ use comm.h. */
#ifndef LIFE3D_MPI_COMM_MPI_H
#define LIFE3D_MPI_COMM_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "base/grid.h"
#include "comm.h"

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

#endif
