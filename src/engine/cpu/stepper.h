/* stepper.h - the CPU engine's stepping core (cpu_stepper): the thread
 * pool, the SIMD kernel chosen for this CPU and each thread's scratch.
 * The CPU engine (cpu.h), its activity skipping (skip.h) and the
 * distributed mode's CPU backend (mpi/backend_cpu.c) step through it.
 * Slabs are described in slab.h. */
#ifndef LIFE3D_ENGINE_CPU_STEPPER_H
#define LIFE3D_ENGINE_CPU_STEPPER_H

#include "engine/engine.h"
#include "slab.h"

/* A reusable stepper for slabs of ny * nz planes: the thread pool, the
 * SIMD kernel chosen for this CPU and each thread's scratch (three planes
 * of partial sums for a tile of rows).  Create it once and step many
 * times: creating starts threads.
 *
 * From opts (NULL: every default): threads, 0 = all cores this process may
 * use; simd, "auto" or NULL (then knobs->simd if set, else the best path
 * this CPU has), "avx512", "avx2" or "portable".  An unknown name is
 * L3D_ERR_USAGE; a path this CPU or build lacks is L3D_ERR_UNAVAILABLE.
 *
 * Three knobs override choices made for speed (the tests use them to
 * reach code that small universes would not): cpu_tile = rows per tile
 * (rounded up to whole cache lines), cpu_stream to write results around
 * the caches always or never (by default: when universe and result exceed
 * 16 MiB together), rule_table to keep a rule of groups as a table
 * instead of compiling it (rulejit.h). */
typedef struct cpu_stepper cpu_stepper;

int cpu_stepper_create(uint64_t ny, uint64_t nz, const rule *r, const engine_opts *opts,
		       cpu_stepper **out, l3d_err *err);
/* Advance a slab one generation (s->ny, s->nz as created).  When stats is
 * non-NULL, add the population, births and deaths of dst to it; they are
 * counted in the same pass. */
void cpu_stepper_step(cpu_stepper *st, const cpu_slab *s, engine_stats *stats);
/* Tiles of a slab: tx planes by ty rows by all of z, numbered
 * ix * ceil(ny / ty) + iy.  Advance the n tiles listed (each once), and
 * fill results[tile] for each: its population, births and deaths, and
 * whether its new cells differ from what dst held there (the generation
 * before src, when the caller keeps one).  ty must be a multiple of
 * cpu_stepper_row_unit() and at most cpu_stepper_max_rows().  Fails only
 * when memory runs out (L3D_ERR_RUNTIME), before any tile is stepped. */
typedef struct cpu_tile_result {
	engine_stats st;
	uint32_t changed;
} cpu_tile_result;

int cpu_stepper_step_tiles(cpu_stepper *st, const cpu_slab *s, uint64_t tx,
			   uint64_t ty, const uint32_t *tiles, uint64_t n,
			   cpu_tile_result *results, l3d_err *err);
uint64_t cpu_stepper_row_unit(const cpu_stepper *st);
uint64_t cpu_stepper_max_rows(const cpu_stepper *st);

/* e.g. "cpu/avx512 x2 threads" */
const char *cpu_stepper_describe(const cpu_stepper *st);
void cpu_stepper_destroy(cpu_stepper *st);

/* Advance a slab one generation with a stepper made for this call alone
 * (threads: 0 = all cores; SIMD path: the best; no knobs).  When stats is
 * non-NULL, add the population, births and deaths of dst to it.  Returns L3D_OK, or
 * L3D_ERR_RUNTIME when memory or threads run out (dst is then
 * unchanged).  Callers that step repeatedly should hold a cpu_stepper. */
int cpu_step_slab(const cpu_slab *s, const rule *r, int threads,
		  engine_stats *stats);

/* Dense cell updates a second that a CPU stepper made with opts can be
 * counted on for (a measured rate per thread of its SIMD path, times its
 * threads); 0 when opts names a path it cannot take. */
double cpu_stepper_rate(const engine_opts *opts);

/* CPU SIMD paths this binary has and this CPU supports, e.g.
 * "avx512 avx2 portable", for --version. */
const char *cpu_stepper_paths(void);

#endif
