/* leap.h - leaps over a universe that repeats: once the universe of
 * generation t + p is found to be the one of generation t, every later
 * generation T is the one of t + ((T - t) mod p), and steps cost nothing.
 *
 * engine.c steps an engine through here when the engine keeps a hash of
 * its universe (engine_ops.step_hashed) and LIFE3D_LEAP=0 is not set.
 * The hashes of recent generations go into a table; when a hash comes
 * back after p generations (1 <= p <= LEAP_MOST), and the hashes of the
 * next few generations (p of them, at least 8, at most LEAP_CHUNK) do
 * too, the universe is set aside (ops.mark) and p more generations are stepped, one at a time with
 * their counts kept; only when the universe is then the one set aside,
 * cell for cell (ops.same_as_mark), does the run leap.  A hash alone never
 * makes a leap: a collision costs p steps and nothing else.  A leap is
 * lazy: the steps asked for are counted, each call's counts are the kept
 * ones of its phase, and the engine steps at most p - 1 generations to
 * the right phase before anything reads the universe (leap_sync).
 *
 * A universe skipping knows to repeat with period 2 (engine_repeats) is
 * left to skipping's own leap; one of more than 2^20 cells is hashed only
 * from the 4096th generation after it came into the engine (most soups
 * settle to period 2 before). */
#ifndef LIFE3D_ENGINE_LEAP_H
#define LIFE3D_ENGINE_LEAP_H

#include "engine_ops.h"

typedef struct leap leap;

/* The longest period found. */
#define LEAP_MOST ((uint64_t)1 << 16)
/* The most steps one call of engine_ops.step_hashed is asked for. */
#define LEAP_CHUNK 1024

/* engine_step for an engine whose ops have step_hashed. */
int leap_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err);

/* Before the universe is read, viewed or replaced: the engine steps to
 * the generation asked for.  Nothing to do when it is there already. */
int leap_sync(engine *e, l3d_err *err);

/* The universe was replaced (engine_load): what was learnt goes. */
void leap_forget(engine *e);

/* Whether a period was found: the universe after *after steps (since the
 * engine was made or last loaded) was the one of *period steps before. */
bool leap_found(const engine *e, uint64_t *after, uint64_t *period);

void leap_destroy(engine *e);

#endif
