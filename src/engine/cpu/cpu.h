/* engine_cpu.h - the CPU stepping core, shared by the CPU engine and by
 * engines that compose it (the MPI slab engine).
 *
 * A slab is nx consecutive x-planes of a universe of ny * nz cells per
 * plane, in grid layout (plane = ny * words words).  The planes just
 * outside the slab come in separately, so they may live anywhere: in the
 * same buffer (a whole torus: lo = last plane, hi = first plane) or in halo
 * buffers filled by another rank.  The universe wraps in y and z within
 * the slab; only x is cut.  Padding bits above nz are zero in every input
 * plane and stay zero in dst. */
#ifndef LIFE3D_ENGINE_CPU_H
#define LIFE3D_ENGINE_CPU_H

#include "engine/engine.h"

typedef struct cpu_slab {
	uint64_t nx, ny, nz, words;
	const uint64_t *src;       /* nx planes, generation g */
	uint64_t *dst;             /* nx planes, generation g + 1 */
	const uint64_t *halo_lo;   /* plane x = -1 (generation g) */
	const uint64_t *halo_hi;   /* plane x = nx (generation g) */
} cpu_slab;

/* A reusable stepper for slabs of ny * nz planes: the thread pool, the
 * SIMD kernel chosen for this CPU and each thread's scratch (three planes
 * of partial sums for a tile of rows).  Create it once and step many
 * times: creating starts threads.
 *
 * threads: 0 = all cores this process may use.  simd: "auto" or NULL
 * (then $LIFE3D_SIMD if set, else the best path this CPU has), "avx512",
 * "avx2" or "portable".  An unknown name is L3D_ERR_USAGE; a path this
 * CPU or build lacks is L3D_ERR_UNAVAILABLE.
 *
 * Two variables, read here, override choices made for speed (the tests
 * use them to reach code that small universes would not): LIFE3D_CPU_TILE
 * = rows per tile (rounded up to whole cache lines), LIFE3D_CPU_STREAM = 1
 * or 0 to write results around the caches always or never (by default:
 * when universe and result exceed 16 MiB together). */
typedef struct cpu_stepper cpu_stepper;

int cpu_stepper_create(uint64_t ny, uint64_t nz, const rule *r, int threads,
		       const char *simd, cpu_stepper **out, l3d_err *err);
/* Advance a slab one generation (s->ny, s->nz as created).  When stats is
 * non-NULL, add the population, births and deaths of dst to it; they are
 * counted in the same pass. */
void cpu_stepper_step(cpu_stepper *st, const cpu_slab *s, engine_stats *stats);
/* e.g. "cpu/avx512 x2 threads" */
const char *cpu_stepper_describe(const cpu_stepper *st);
void cpu_stepper_destroy(cpu_stepper *st);

/* Advance a slab one generation with a stepper made for this call alone
 * (threads: 0 = all cores; SIMD path: auto).  When stats is non-NULL, add
 * the population, births and deaths of dst to it.  Returns L3D_OK, or
 * L3D_ERR_RUNTIME when memory or threads run out (dst is then
 * unchanged).  Callers that step repeatedly should hold a cpu_stepper. */
int cpu_step_slab(const cpu_slab *s, const rule *r, int threads,
		  engine_stats *stats);

#endif
