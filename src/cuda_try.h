/* cuda_try.h - CUDA runtime errors as life3d errors, for the host code of
 * the CUDA engines (engine_cuda.c, slab_cuda.c). */
#ifndef LIFE3D_CUDA_TRY_H
#define LIFE3D_CUDA_TRY_H

#include <cuda_runtime_api.h>

#include "status.h"

/* "engine 'cuda': WHAT: the runtime's reason", exit status 1. */
int cuda_fail(l3d_err *err, cudaError_t e, const char *what);

/* Return cuda_fail(err, ...) from the calling function when call fails. */
#define CUDA_TRY(call, what)                                          \
	do {                                                          \
		cudaError_t e_ = (call);                              \
		if (e_ != cudaSuccess)                                \
			return cuda_fail(err, e_, what);              \
	} while (0)

#endif
