/* cpu.h - the CPU engine: the universe in host memory, stepped by a
 * cpu_stepper (stepper.h) with activity skipping (skip.h). */
#ifndef LIFE3D_ENGINE_CPU_H
#define LIFE3D_ENGINE_CPU_H

#include "engine/engine.h"

/* The CPU engine: the universe and one buffer of the same size in host
 * memory, stepped by every thread of a cpu_stepper.  opts as for
 * cpu_stepper_create, and knobs->dense; `ready` as for
 * engine_create_streamed (choose.h). */
int engine_cpu_create(const engine_opts *opts, const grid *initial,
		      row_progress *ready, const rule *r, engine **out,
		      l3d_err *err);

/* Tiles that the CPU engine e stepped, and tiles there were, over its
 * steps so far (activity skipping); both 0 when it steps every cell, or
 * when e is another engine. */
void engine_cpu_tiles(const engine *e, double *stepped, double *total);

#endif
