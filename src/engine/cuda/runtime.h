/* runtime.h - calling the CUDA runtime from host code: failures become
 * l3d_err values.  For the files compiled against the CUDA headers (cuda.c,
 * device.c, mpi/backend_cuda.c). */
#ifndef LIFE3D_ENGINE_CUDA_RUNTIME_H
#define LIFE3D_ENGINE_CUDA_RUNTIME_H

#include <cuda_runtime_api.h>

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

#endif
