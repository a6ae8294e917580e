/* choose.h - which engine runs a universe in one process: --engine auto,
 * cpu or cuda, and the CPU-while-the-GPU-starts policy of auto.
 *
 * The engines themselves (cpu/, cuda/) know nothing of each other or of
 * this choice; callers that only step an engine need engine.h alone. */
#ifndef LIFE3D_ENGINE_CHOOSE_H
#define LIFE3D_ENGINE_CHOOSE_H

#include <stdbool.h>

#include "engine.h"

/* An engine for `initial` as opts asks.  auto: the CPU when it should
 * finish opts->work before a GPU could start (judged from the work alone,
 * or, where skipping may decide it, from a sample of the universe:
 * estimate.h); else the GPU when there is one that can take the universe,
 * else the CPU; a small universe may start
 * on the CPU while the GPU is set up (engine_warm_up) and move to it later.
 * L3D_ERR_USAGE for an unknown kind or device, L3D_ERR_UNAVAILABLE when
 * the engine asked for cannot run here (with the reason). */
int engine_create(const engine_opts *opts, const grid *initial, const rule *r,
		  engine **out, l3d_err *err);
/* engine_create for a universe still being filled in (a file being read):
 * `initial` has its final sizes and generation, and its first k rows hold
 * their cells once `ready` has announced k (ready NULL: all of them do).
 * The engine is set up at once and takes the rows as they come (the CUDA
 * engine copies them to the device while later rows are still read); it
 * returns once it has them all.  If the filler fails first, it returns
 * L3D_ERR_RUNTIME and no engine: the filler's error is the one to report. */
int engine_create_streamed(const engine_opts *opts, const grid *initial,
			   row_progress *ready, const rule *r, engine **out,
			   l3d_err *err);

/* Host memory the CPU engine takes to step an nx x ny x nz universe (its
 * two buffers and, unless skipping is off, its tiles, which are also left
 * in *tiles when it is not NULL), for a run to count before its first
 * step; and whether opts surely steps on the CPU (--engine cpu, or auto
 * with no GPU driver here).  A GPU engine's universe is in the GPU's
 * memory, which it checks itself. */
uint64_t engine_cpu_bytes(const engine_opts *opts, uint64_t nx, uint64_t ny, uint64_t nz,
			  uint64_t *tiles);
bool engine_surely_cpu(const engine_opts *opts);
/* The host memory the run's engine takes: the CPU engine's figure (*cpu
 * true) when opts surely steps on the CPU, else a GPU engine's host side
 * (its pinned staging; *tiles 0).  An auto run that falls back to the CPU
 * is checked again as that engine is made (choose.c). */
uint64_t engine_host_bytes(const engine_opts *opts, uint64_t nx, uint64_t ny, uint64_t nz,
			   uint64_t *tiles, bool *cpu);

/* Start, in the background, the set-up an engine needs before it sees a
 * universe (a GPU context takes a few hundred milliseconds), so it overlaps
 * reading the input; not for an auto run the CPU will take, or may take
 * (opts->work; a sample decides then, in engine_create).  First, unless
 * the engine is the CPU's, it narrows the GPUs the driver will set up to
 * the one the run may use, where engine/visible.h is sure of it: so a
 * single process calls it once, before its first CUDA call and before it
 * starts a thread (it may change the environment).
 * engine_settle() waits for it; engine_create() does so itself.  Both
 * are cheap no-ops where nothing needs warming. */
void engine_warm_up(const engine_opts *opts);
void engine_settle(void);
/* At the end of a run that stepped on the CPU while the GPU was starting,
 * a start-up still under way is left behind rather than waited for; other
 * runs wait for it (engine_settle).  engine_left_behind() then says so, and
 * the process must end with _exit(): exit() would tear down a runtime that
 * a thread is still setting up. */
void engine_leave(void);
/* What an auto run's sample said, and the choice it made ("" when no
 * sample was stepped), for -v. */
const char *engine_auto_reason(void);
/* What engine_warm_up set CUDA_VISIBLE_DEVICES to ("" when it left it
 * alone), for -v. */
const char *engine_gpu_named(void);
bool engine_left_behind(void);

/* For --version: the engines this binary has ("cpu (simd: avx512 avx2
 * portable), cuda", or "...; cuda not built in") into engines, and the
 * GPUs the driver shows into gpus, each cut to its size. */
void engine_describe_builds(char *engines, size_t size, char *gpus, size_t gpus_size);

#endif
