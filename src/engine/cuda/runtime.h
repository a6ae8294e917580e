/* cuda_host.h - host-side helpers shared by the CUDA engines
 * (engine_cuda.c for one GPU, slab_cuda.c for a rank's slab). */
#ifndef LIFE3D_CUDA_HOST_H
#define LIFE3D_CUDA_HOST_H

#include <cuda_runtime_api.h>

#include "engine/engine.h"
#include "base/status.h"

/* "engine 'cuda': WHAT: the runtime's reason", exit status 1. */
int cuda_fail(l3d_err *err, cudaError_t e, const char *what);

/* Return cuda_fail(err, ...) from the calling function when call fails. */
#define CUDA_TRY(call, what)                                          \
	do {                                                          \
		cudaError_t e_ = (call);                              \
		if (e_ != cudaSuccess)                                \
			return cuda_fail(err, e_, what);              \
	} while (0)

/* The device to use: opts->device (default 0) plus `offset`, modulo the
 * devices visible.  L3D_ERR_UNAVAILABLE when there is none (with the
 * reason), L3D_ERR_USAGE when opts->device is not one of them. */
int cuda_pick_device(const engine_opts *opts, int offset, int *device, l3d_err *err);

/* Fail before allocating when `need` bytes (and some room for the runtime)
 * do not fit in the current device's free memory.  `what` says what needs
 * them ("a 8x8x8 universe"), `name` the device. */
int cuda_memory_check(double need, const char *what, const char *name, l3d_err *err);

#endif
