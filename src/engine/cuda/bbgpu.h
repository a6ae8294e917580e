/* bbgpu.h - the GPU's engine of Golly's BusyBoxes rules: the universe in
 * device memory, a generation a launch of kernels/busyboxes.cu, with the
 * table and the phases of engine/busyboxes.h (whose CPU engine it agrees
 * with bit for bit). */
#ifndef LIFE3D_ENGINE_CUDA_BBGPU_H
#define LIFE3D_ENGINE_CUDA_BBGPU_H

#include "engine/engine.h"

/* As engine_busyboxes_create, on the device opts->device (default 0).
 * L3D_ERR_UNAVAILABLE when no GPU can take the universe (none, too
 * little memory, not built in), decided before any row of `ready` is
 * waited for. */
int engine_bbgpu_create(const engine_opts *opts, const grid *initial,
			row_progress *ready, const rule *r, engine **out, l3d_err *err);

#endif
