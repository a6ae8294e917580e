/* slab.h - what a CPU kernel steps: consecutive x-planes of a universe.
 *
 * A slab is nx consecutive x-planes of a universe of ny * nz cells per
 * plane, in grid layout (plane = ny * words words).  The planes just
 * outside the slab come in separately, so they may live anywhere: in the
 * same buffer (a whole torus: lo = last plane, hi = first plane) or in halo
 * buffers filled by another rank.  The universe wraps in y and z within
 * the slab; only x is cut.  Padding bits above nz are zero in every input
 * plane and stay zero in dst. */
#ifndef LIFE3D_ENGINE_CPU_SLAB_H
#define LIFE3D_ENGINE_CPU_SLAB_H

#include <stdint.h>

#include "engine/engine.h"     /* engine_stats, which the kernels count into */

typedef struct cpu_slab {
	uint64_t nx, ny, nz, words;
	const uint64_t *src;       /* nx planes, generation g */
	uint64_t *dst;             /* nx planes, generation g + 1 */
	const uint64_t *halo_lo;   /* plane x = -1 (generation g) */
	const uint64_t *halo_hi;   /* plane x = nx (generation g) */
} cpu_slab;

/* The whole torus of `cur` as one slab stepped into `next` (same size):
 * its halos are its own last and first planes. */
static inline cpu_slab cpu_slab_torus(const grid *cur, grid *next)
{
	uint64_t plane = cur->ny * cur->words;
	cpu_slab s = {cur->nx, cur->ny, cur->nz, cur->words, cur->bits, next->bits,
		      cur->bits + (cur->nx - 1) * plane, cur->bits};
	return s;
}

#endif
