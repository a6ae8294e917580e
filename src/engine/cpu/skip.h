/* skip.h - activity skipping for the CPU engine and the distributed mode's
 * CPU backend: step only the tiles whose neighbourhood changed,
 * bit-identical to stepping every cell.
 *
 * The stepper keeps two buffers and steps from one into the other, so the
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
 * Two shapes of slab: the whole torus (its halos are its own end planes,
 * whose changes the tiles already see), or a distributed rank's slab,
 * whose halo planes come from elsewhere: each generation's halos are kept
 * for two generations, and a row of tiles of a halo that differs from
 * the same halo two generations back counts as a changed tile beside the
 * slab's end tiles.
 *
 * Adaptive: two steps of every tile start the bookkeeping; when more than
 * ACTIVE_MAX of the tiles are to be stepped, the slab is stepped densely
 * for a stretch of steps (PROBE_FIRST, doubled while it stays busy) and
 * then looked at again.  When nothing changed in the last generation
 * (cpu_skip_quiet) the slab repeats what it held two generations back: on the torus, and on a distributed universe where
 * every rank is quiet, any number of further steps costs nothing
 * (cpu_skip_leap). */
#ifndef LIFE3D_ENGINE_CPU_SKIP_H
#define LIFE3D_ENGINE_CPU_SKIP_H

#include "stepper.h"

typedef struct cpu_skip cpu_skip;

/* Bookkeeping for slabs of g's size (nx planes of ny * nz) stepped by st:
 * the whole torus, or (torus false) a slab with halos of its own. */
int cpu_skip_create(const cpu_stepper *st, const grid *g, bool torus,
		    cpu_skip **out, l3d_err *err);

/* ---- a generation at a time (distributed slabs) ----
 * For each generation: cpu_skip_step, or a dense step in any pieces by
 * the caller when cpu_skip_by_tiles says no; then cpu_skip_done. */

/* Whether the next generation is to go through cpu_skip_step (else the
 * caller may step it densely itself). */
bool cpu_skip_by_tiles(const cpu_skip *k);

/* One generation of s (src: generation t with its halos; dst: t-1 when
 * the slab was stepped before, anything otherwise): the tiles whose
 * neighbourhood changed, or every cell when most did.  Adds the counts of
 * the new generation to stats (if not NULL).  Fails only when memory runs
 * out, before any tile is stepped. */
int cpu_skip_step(cpu_skip *k, cpu_stepper *st, const cpu_slab *s,
		  engine_stats *stats, l3d_err *err);

/* After every generation, however stepped; s as it was stepped (the
 * halos of a distributed slab are kept from it). */
void cpu_skip_done(cpu_skip *k, const cpu_slab *s);

/* The last generation, stepped by tiles, equals the one two before. */
bool cpu_skip_quiet(const cpu_skip *k);

/* A slab that repeats with period 2 (quiet, and on a distributed universe
 * every rank quiet) advances `steps` generations at once: the caller
 * swaps its buffers when steps is odd.  Adds the counts of the last
 * generation to stats (if not NULL). */
void cpu_skip_leap(cpu_skip *k, uint64_t steps, engine_stats *stats);

/* ---- the whole torus ---- */

/* Advance `steps` generations: *cur holds the universe and *next the other
 * buffer (the generation before *cur when the engine has stepped before;
 * anything otherwise); they are swapped as the generations go.  With
 * stats, the population, births and deaths of the last generation; with
 * hashes (room for `steps`), the universe's hash after each generation
 * (cpu_skip_hash_now). */
int cpu_skip_run(cpu_skip *k, cpu_stepper *st, grid *cur, grid *next,
		 uint64_t steps, engine_stats *stats, uint64_t *hashes, l3d_err *err);


/* The whole torus: start again as cpu_skip_create leaves a new one, for
 * another universe in the same buffers (its first two steps go over
 * every tile); the tiles' tally (cpu_skip_tiles) goes on. */
void cpu_skip_restart(cpu_skip *k);

/* Keep a hash of the slab's own planes from now on (for leaps,
 * engine/leap.h), updated for the tiles that change and costing nothing
 * where nothing does; x0: the slab's first plane in the universe (0 for
 * the whole torus).  Each word is hashed with its place in the universe
 * and the results XORed, so the XOR of the hashes of every rank's slab is
 * the hash of the whole universe, however it is cut.  It is known after a
 * generation stepped by tiles once two steps of every tile have hashed
 * both parities, and after a dense step of a small slab (hashed whole);
 * not during dense stretches of larger ones.  Fails only when memory runs
 * out. */
int cpu_skip_hash(cpu_skip *k, uint64_t x0, l3d_err *err);

/* The hash of the planes just made (after cpu_skip_done): a 64-bit value
 * of low bit 1 (equal slabs have equal hashes), or 0 when not known. */
uint64_t cpu_skip_hash_now(const cpu_skip *k);

/* `steps` generations leapt over by engine/leap.c: none of their tiles
 * was stepped. */
void cpu_skip_leapt(cpu_skip *k, uint64_t steps);

/* Tiles stepped and tiles there were, over all steps so far. */
void cpu_skip_tiles(const cpu_skip *k, double *stepped, double *total);

void cpu_skip_destroy(cpu_skip *k);

#endif
