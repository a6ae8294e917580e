/* cuda.h - the single-GPU engine: the universe in device memory, stepped
 * by the kernels in kernels/ (see cuda.c for how). */
#ifndef LIFE3D_ENGINE_CUDA_H
#define LIFE3D_ENGINE_CUDA_H

#include "engine/engine.h"

/* On the device opts->device (default 0).  L3D_ERR_UNAVAILABLE when no
 * GPU can take the universe (none, too little memory, not built in), with
 * the reason; `ready` as for engine_create_streamed (choose.h). */
int engine_cuda_create(const engine_opts *opts, const grid *initial,
		       row_progress *ready, const rule *r, engine **out,
		       l3d_err *err);
/* The host memory the engine takes beside the device's for a universe of
 * `universe_bytes` (grid_bytes): its pinned staging, for a run to count
 * before its first step.  Built with or without CUDA. */
uint64_t engine_cuda_host_bytes(uint64_t universe_bytes);

#endif
