/* census.h - a census of soups: each soup (soup.h) is stepped in a space
 * of its own until it settles, its ash is split into objects and each
 * object named (object.h) and counted in a haul (haul.h).
 *
 * A soup grows in a cube of census_space(side) cells, the soup at its
 * centre, stepped CENSUS_CHUNK generations at a time on one engine a
 * worker thread (engine.h's engine_load: the engine is made once).
 *   - Settled: after a chunk, the universe is the one of an earlier
 *     chunk's end, P generations before (P at most CENSUS_MOST_PERIOD): found
 *     by census_hash, then checked cell for cell, P generations stepped
 *     on.  So a soup's fate hangs on its universes at the chunks' ends
 *     alone, never on how an engine stepped them.  The cells alive in any of the P phases are split into objects: two
 *     cells are in one object when their offset is in the neighbourhood
 *     or in the neighbourhood applied twice.  Objects so far apart cannot
 *     touch each other's births in any phase, so each evolves alone,
 *     exactly, and each is named from its own phases.
 *   - Ships: whatever comes within CENSUS_EDGE cells of the space's side
 *     is split into objects the same way (one phase); an object there that
 *     is a spaceship (stepped alone it comes back translated, within
 *     CENSUS_SHIP_PERIOD generations) is counted and taken away, before
 *     it can wrap round the space.  So results never depend on the space
 *     but through these bounds.
 *   - Unsettled (the haul's zz_UNSETTLED): a soup still changing after
 *     max_gens generations, one whose other cells reach that edge, or one
 *     of a longer period.
 * A soup that dies out adds nothing but its count of soups done.
 *
 * The haul depends on the rule, side, density, root, the soups' range and
 * max_gens alone: not on the thread count, nor on which thread did what. */
#ifndef LIFE3D_CENSUS_CENSUS_H
#define LIFE3D_CENSUS_CENSUS_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/grid.h"
#include "base/rule.h"
#include "engine/knobs.h"
#include "haul.h"
#include "object.h"

#define CENSUS_CHUNK 8
#define CENSUS_EDGE 10
#define CENSUS_SHIP_PERIOD 256
#define CENSUS_MOST_PERIOD 4096

typedef struct census_cfg {
	rule rule;
	uint32_t side;            /* a soup is side^3 cells */
	double density;
	const char *root;
	uint64_t first, soups;    /* soups first .. first + soups - 1 */
	uint64_t max_gens;
	int threads;              /* worker threads; 0 = all cores */
	const engine_knobs *knobs;
	/* When set (a signal), each worker ends the soup it is on and takes
	 * no other: the haul holds soups first .. first + out->soups - 1. */
	volatile sig_atomic_t *stop;
	/* When not NULL: counts the soups done as they are, for a progress
	 * line another thread draws. */
	atomic_uint_fast64_t *done;
	/* When above 0: no soup is begun once l3d_seconds() has passed it
	 * (the soups done are a range from first, as after a stop). */
	double deadline;
	/* When not NULL: soup i is the live cells of universes[i], their box
	 * (at most side on each axis) moved to the centre of the space, in
	 * place of soup i of root. */
	const grid *universes;
	/* When not NULL: called once for each object new to the census (not
	 * for zz_ classes), with the soup it was first seen in, on the worker
	 * that found it, one call at a time; an error it returns ends the
	 * census.  Which soup comes first may depend on the threads. */
	int (*found)(void *ctx, const census_name *n, uint64_t soup, l3d_err *err);
	void *found_ctx;
	const char *engine;       /* "cpu", "cuda" or "auto" (NULL: cpu) */
	int device;               /* the GPU's index; -1 = the first */
} census_cfg;

/* Whether c's soups go to the GPU (engine/cuda/batch.h): --engine cuda or
 * auto with a GPU here, for a Moore rule without B0 in a space of 64^3
 * (soups of 16^3), not from files.  The haul is the same either way. */
bool census_on_gpu(const census_cfg *c);

/* The hash by which the census finds a universe repeating: the XOR, over
 * the words of g's rows that hold a live cell, of mix64(word ^ mix64(i +
 * 1)), i the word's place in g->bits (base/mix.h).  Any engine that steps
 * soups computes it so, to find the same repeats. */
uint64_t census_hash(const grid *g);

/* The side of the cube a soup of `side` grows in: side + 48, the soup
 * 24 cells from every face. */
uint32_t census_space(uint32_t side);

/* The census c asks for into out (haul_init'ed).  out->soups is
 * c->soups unless c->stop was set. */
int census_run(const census_cfg *c, haul *out, l3d_err *err);

#endif
