/* skip.h - activity skipping for the CPU engine: step only the tiles whose
 * neighbourhood changed, bit-identical to stepping every cell.
 *
 * The engine keeps two buffers and steps from one into the other, so the
 * buffer a step writes into already holds the generation before the one it
 * reads.  A tile (TILE_X planes by a few rows by all of z) whose whole
 * neighbourhood is the same at generation t as at t-2 would compute, at
 * t+1, exactly the t-1 that its buffer already holds: it needs no work.
 * Each stepped tile says whether it changed from what it overwrote, and a
 * tile is stepped when it or any of its eight neighbours in x and y did.
 * Still and period-2 regions thus cost nothing.  Each tile keeps its
 * population, births and deaths for each parity of generation, so every
 * log line stays exact; a skipped tile's counts are those of two steps
 * before, which its cells repeat.
 *
 * Adaptive: two steps of every tile start the bookkeeping; when more than
 * ACTIVE_MAX of the tiles are to be stepped, the engine steps densely for
 * PROBE_EVERY steps and then looks again.  When no tile is to be stepped
 * the universe repeats with period 2 (or 1) from there on, and any number
 * of further steps costs nothing. */
#ifndef LIFE3D_ENGINE_CPU_SKIP_H
#define LIFE3D_ENGINE_CPU_SKIP_H

#include "cpu.h"

typedef struct cpu_skip cpu_skip;

/* Bookkeeping for an nx * ny * nz universe stepped by st. */
int cpu_skip_create(const cpu_stepper *st, const grid *g, cpu_skip **out,
		    l3d_err *err);

/* Advance `steps` generations: *cur holds the universe and *next the other
 * buffer (the generation before *cur when the engine has stepped before;
 * anything otherwise); they are swapped as the generations go.  With
 * stats, the population, births and deaths of the last generation. */
int cpu_skip_run(cpu_skip *k, cpu_stepper *st, grid *cur, grid *next,
		 uint64_t steps, engine_stats *stats, l3d_err *err);

/* Tiles stepped over tiles there were, over all steps so far (0..1). */
double cpu_skip_stepped(const cpu_skip *k);

void cpu_skip_destroy(cpu_skip *k);

#endif
