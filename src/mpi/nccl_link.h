/* nccl_link.h - halo planes moved from GPU to GPU through NCCL.
 *
 * NCCL is loaded when a run asks for it (dlopen of libnccl.so.2), not
 * linked: a life3d built with it still runs where NCCL is missing, and
 * stages its halos through the host instead.  A link is one NCCL
 * communicator over every rank of the run, set up through MPI (comm.h).
 * Opening it is collective, and either every rank gets a link or none
 * does, all with the same reason: NCCL not built in or not installed, a
 * GPU shared by two ranks (NCCL refuses that), or any other refusal.
 * Exchanges are queued on a CUDA stream and never make the host wait.
 *
 * Used by the GPU backend only (backend_cuda.c); compiled with the CUDA
 * headers. */
#ifndef LIFE3D_MPI_NCCL_LINK_H
#define LIFE3D_MPI_NCCL_LINK_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "base/status.h"

typedef struct nccl_link nccl_link;

/* Collective.  A link for this rank, whose GPU is the current device.
 * L3D_ERR_UNAVAILABLE and the reason, on every rank, when any rank
 * cannot have one. */
int nccl_link_open(nccl_link **out, l3d_err *err);

/* Queued on `stream`: `words` 64-bit words from lo_out to rank `left`
 * and from hi_out to rank `right`; into lo_in from `left` and hi_in from
 * `right` (each neighbour's hi_out and lo_out).  Device pointers.  Every
 * rank must queue its exchanges in the same order. */
int nccl_link_exchange(nccl_link *l, const void *lo_out, const void *hi_out,
		       void *lo_in, void *hi_in, size_t words, int left, int right,
		       cudaStream_t stream, l3d_err *err);

/* An error NCCL met while its queued work ran, if any. */
int nccl_link_check(nccl_link *l, l3d_err *err);

/* "NCCL 2.28.9": the library the link runs on. */
const char *nccl_link_name(const nccl_link *l);

void nccl_link_close(nccl_link *l);

#endif
