/* engine_cpu.h - the CPU stepping core, shared by the CPU engine and by
 * engines that compose it (the MPI slab engine).
 *
 * A slab is nx consecutive x-planes of a universe of ny * nz cells per
 * plane, in grid layout (plane = ny * words words).  The planes just
 * outside the slab come in separately, so they may live anywhere: in the
 * same buffer (a whole torus: lo = last plane, hi = first plane) or in halo
 * buffers filled by another rank. */
#ifndef LIFE3D_ENGINE_CPU_H
#define LIFE3D_ENGINE_CPU_H

#include "engine.h"

typedef struct cpu_slab {
	uint64_t nx, ny, nz, words;
	const uint64_t *src;       /* nx planes, generation g */
	uint64_t *dst;             /* nx planes, generation g + 1 */
	const uint64_t *halo_lo;   /* plane x = -1 (generation g) */
	const uint64_t *halo_hi;   /* plane x = nx (generation g) */
} cpu_slab;

/* Advance a slab one generation.  When stats is non-NULL, add the
 * population, births and deaths of dst to it. */
void cpu_step_slab(const cpu_slab *s, const rule *r, int threads,
		   engine_stats *stats);

#endif
