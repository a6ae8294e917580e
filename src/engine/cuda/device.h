/* device.h - the GPUs this process can use: probing, choosing one, its
 * free memory, and creating its context ahead of time.
 *
 * Shared by the single-GPU engine (cuda.c) and the GPU slab backend of the
 * distributed mode (mpi/backend_cuda.c), so neither depends on the other.
 * Everything here also exists in a build without CUDA, where there is no
 * device and nothing to warm up. */
#ifndef LIFE3D_ENGINE_CUDA_DEVICE_H
#define LIFE3D_ENGINE_CUDA_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/status.h"
#include "engine/engine.h"

/* Number of usable CUDA devices (0 when CUDA is not built in, there is no
 * driver or no device), and a description of each for --version. */
int cuda_device_count(void);
int cuda_describe_devices(char *buf, size_t size);

/* The device to use: opts->device (default 0) plus `offset`, modulo the
 * devices visible.  L3D_ERR_UNAVAILABLE when there is none (with the
 * reason), L3D_ERR_USAGE when opts->device is not one of them. */
int cuda_pick_device(const engine_opts *opts, int offset, int *device, l3d_err *err);

/* Make `entry` the whole of CUDA_VISIBLE_DEVICES, so that the driver sets
 * up one GPU, and take it as device `device` from then on (it is the
 * driver's device 0 now).  Only before the process's first CUDA call and
 * while it has one thread (engine/visible.h says which entry); false and
 * nothing done after that, and without CUDA. */
bool cuda_narrow(const char *entry, int device);

/* Fail before allocating when `need` bytes (and some room for the runtime)
 * do not fit in the current device's free memory.  `what` says what needs
 * them ("a 8x8x8 universe"), `name` the device.  CUDA builds only. */
int cuda_memory_check(double need, const char *what, const char *name, l3d_err *err);

/* Create the context of `device` on a thread of its own (it takes a few
 * hundred milliseconds), so it overlaps other work; cuda_warming() while
 * that is under way; cuda_settle() waits for it.  cuda_leave() abandons a
 * start-up still under way (cuda_left_behind() then says so, and the
 * process must end with _exit), or waits for a finished one. */
void cuda_warm_up(int device);
bool cuda_warming(void);
void cuda_settle(void);
void cuda_leave(void);
bool cuda_left_behind(void);

#endif
