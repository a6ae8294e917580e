/* leap.c - see leap.h. */
#include "leap.h"

#include <stdlib.h>
#include <string.h>

/* The table of recent hashes: 2^16 slots (1 MiB), each the last
 * generation that hashed to it, one entry a generation: after p more
 * entries a slot is still there with odds of about exp(-p / 2^16) (94%
 * for p = 4096, 37% for p = LEAP_MOST).  Larger tables cost their first
 * touch of every page, which a short run notices. */
#define SLOTS_LOG 16
#define CHUNK LEAP_CHUNK
/* A universe of more than SMALL_WORDS words is hashed from the WAIT-th
 * generation after it came into the engine: most soups settle to period
 * 2 first, which skipping leaps on its own, and would pay for the hashes
 * and the table (a few ms) for nothing. */
#define SMALL_WORDS ((uint64_t)1 << 14)
#define WAIT ((uint64_t)4096)

typedef enum leap_state { SEARCHING, CONFIRMING, LEAPING, OFF } leap_state;

struct leap {
	leap_state state;
	uint64_t *key, *at;        /* per slot: a hash, the generation it was
	                              seen at (0: none) */
	uint64_t gen;              /* generations stepped, as the caller counts
	                              them, since the engine was made */
	uint64_t base;             /* gen when the universe was last replaced:
	                              older entries are void */
	uint64_t wait;             /* generations from base before hashing */
	uint64_t hashes[CHUNK];
	uint64_t cand, since, seen;   /* a candidate period, the generation it
	                              was met at, and the generations since
	                              whose hashes came back after it */
	/* CONFIRMING and LEAPING */
	uint64_t period, start;    /* the universe of generation start (set
	                              aside) comes back after period steps */
	uint64_t done;             /* generations stepped since start */
	engine_stats *phase;       /* phase[j]: the counts of start + j + 1 */
	uint64_t phase_room;
	uint64_t held;             /* LEAPING: the engine holds a generation of
	                              the phase of held */
	bool found;
};

static leap *leap_of(engine *e)
{
	if (e->leap || e->leap_tried)
		return e->leap;
	e->leap_tried = true;
	leap *l = calloc(1, sizeof *l);
	if (!l)                             /* no room: steps as ever */
		return NULL;
	uint64_t words = e->nx * e->ny * ((e->nz + 63) / 64);
	l->wait = words > SMALL_WORDS ? WAIT : 0;
	e->leap = l;
	return l;
}

/* The table, made when hashing begins; without the room for it, no
 * leaps. */
static bool table_ready(leap *l)
{
	if (!l->key) {
		l->key = calloc((size_t)1 << SLOTS_LOG, sizeof *l->key);
		l->at = calloc((size_t)1 << SLOTS_LOG, sizeof *l->at);
	}
	if (l->key && l->at)
		return true;
	free(l->key);
	free(l->at);
	l->key = l->at = NULL;
	l->state = OFF;
	return false;
}

void leap_destroy(engine *e)
{
	leap *l = e->leap;
	if (!l)
		return;
	free(l->key);
	free(l->at);
	free(l->phase);
	free(l);
	e->leap = NULL;
}

void leap_forget(engine *e)
{
	leap *l = e->leap;
	if (!l)
		return;
	l->base = l->gen;
	l->found = false;
	l->cand = 0;
	if (l->state != OFF)
		l->state = SEARCHING;
}

bool leap_found(const engine *e, uint64_t *after, uint64_t *period)
{
	const leap *l = e->leap;
	if (!l || !l->found)
		return false;
	*after = l->start + l->period - l->base;
	*period = l->period;
	return true;
}

/* The counts of generation g of a cycle found. */
static engine_stats phase_of(const leap *l, uint64_t g)
{
	return l->phase[(g - l->start - 1) % l->period];
}

/* Set the universe aside to see whether it comes back after p steps.
 * An engine without the memory for it goes on without leaps. */
static int begin_confirm(engine *e, leap *l, uint64_t p, l3d_err *err)
{
	if (p > l->phase_room) {
		engine_stats *ph = realloc(l->phase, (size_t)p * sizeof *ph);
		if (!ph) {
			l->state = OFF;
			return L3D_OK;
		}
		l->phase = ph;
		l->phase_room = p;
	}
	int rc = e->ops->mark(e, err);
	if (rc == L3D_ERR_RUNTIME) {
		l->state = OFF;
		return L3D_OK;
	}
	if (rc)
		return rc;
	l->state = CONFIRMING;
	l->period = p;
	l->start = l->gen;
	l->done = 0;
	return L3D_OK;
}

/* A hash that comes back after p generations is a candidate; it is
 * confirmed only once the hashes of persist(p) more generations have come
 * back after p too (a slot overwritten meanwhile tells nothing; a hash
 * back after another period, or too long a wait, breaks it off), so that
 * a universe of period 2, which skipping finds exactly on its own, is
 * never copied aside, and a stray match costs nothing. */
static uint64_t persist(uint64_t p)
{
	return p < 8 ? 8 : p > LEAP_CHUNK ? LEAP_CHUNK : p;
}

/* One generation's hash h, as the generation g came back after p (0:
 * not known to have); a period whose candidate persisted, or 0. */
static uint64_t weigh(leap *l, uint64_t g, uint64_t p)
{
	if (l->cand && ((p && p != l->cand) || g - l->since > 4 * persist(l->cand) + 64))
		l->cand = 0;                    /* broken off */
	if (l->cand && p == l->cand && ++l->seen >= persist(l->cand)) {
		l->cand = 0;
		return p;
	}
	if (!l->cand && p) {
		l->cand = p;
		l->since = g;
		l->seen = 0;
	}
	return 0;
}

/* Note the hashes of generations gen+1 .. gen+n; a period whose candidate
 * persisted, or 0. */
static uint64_t note_hashes(leap *l, uint64_t n)
{
	uint64_t ready = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t h = l->hashes[i], g = l->gen + i + 1;
		if (!h)
			continue;
		size_t slot = (size_t)((h * 0x9e3779b97f4a7c15ULL) >> (64 - SLOTS_LOG));
		uint64_t was = l->at[slot];
		uint64_t p = was > l->base && l->key[slot] == h && g - was <= LEAP_MOST ? g - was : 0;
		l->key[slot] = h;
		l->at[slot] = g;
		uint64_t r = weigh(l, g, p);
		ready = r ? r : ready;
	}
	return ready;
}

/* Search: the engine steps in hashed chunks until a hash comes back. */
static int search(engine *e, leap *l, uint64_t *left, engine_stats *stats,
		  l3d_err *err)
{
	while (*left && l->state == SEARCHING) {
		if (e->ops->repeats && e->ops->repeats(e)) {      /* skipping's own leap */
			l->gen += *left;
			uint64_t n = *left;
			*left = 0;
			return e->ops->step(e, n, stats, err);
		}
		uint64_t waited = l->gen - l->base;
		if (waited < l->wait) {
			uint64_t n = l->wait - waited < *left ? l->wait - waited : *left;
			l->gen += n;
			*left -= n;
			int rc = e->ops->step(e, n, *left ? NULL : stats, err);
			if (rc)
				return rc;
			continue;
		}
		if (!table_ready(l))
			return L3D_OK;
		uint64_t n = *left < CHUNK ? *left : CHUNK;
		int rc = e->ops->step_hashed(e, n, n == *left ? stats : NULL, l->hashes, err);
		if (rc == L3D_ERR_UNAVAILABLE) {    /* no hash kept: no leaps */
			l->state = OFF;
			return L3D_OK;
		}
		if (rc)
			return rc;
		uint64_t p = note_hashes(l, n);
		l->gen += n;
		*left -= n;
		if (p) {
			rc = begin_confirm(e, l, p, err);
			if (rc)
				return rc;
		}
	}
	return L3D_OK;
}

/* Confirm: step the candidate period one generation at a time, keeping
 * each one's counts, then compare with the universe set aside. */
static int confirm(engine *e, leap *l, uint64_t *left, engine_stats *stats,
		   l3d_err *err)
{
	while (*left && l->done < l->period) {
		int rc = e->ops->step(e, 1, &l->phase[l->done], err);
		if (rc)
			return rc;
		l->done++;
		l->gen++;
		--*left;
		if (!*left && stats)
			*stats = l->phase[l->done - 1];
	}
	if (l->done < l->period)
		return L3D_OK;
	if (e->ops->same_as_mark(e)) {
		l->state = LEAPING;
		l->held = l->gen;
		l->found = true;
	} else {
		l->state = SEARCHING;
	}
	return L3D_OK;
}

int leap_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	leap *l = leap_of(e);
	if (!l || l->state == OFF)
		return e->ops->step(e, steps, stats, err);
	uint64_t left = steps;
	while (left) {
		int rc = L3D_OK;
		if (l->state == SEARCHING)
			rc = search(e, l, &left, stats, err);
		else if (l->state == CONFIRMING)
			rc = confirm(e, l, &left, stats, err);
		else if (l->state == LEAPING) {
			l->gen += left;
			if (e->ops->leapt_over)
				e->ops->leapt_over(e, left);
			left = 0;
			if (stats)
				*stats = phase_of(l, l->gen);
		} else {
			rc = e->ops->step(e, left, stats, err);
			l->gen += left;
			left = 0;
		}
		if (rc)
			return rc;
	}
	return L3D_OK;
}

int leap_sync(engine *e, l3d_err *err)
{
	leap *l = e->leap;
	if (!l || l->state != LEAPING || l->gen == l->held)
		return L3D_OK;
	uint64_t d = (l->gen - l->held) % l->period;
	int rc = d ? e->ops->step(e, d, NULL, err) : L3D_OK;
	if (!rc)
		l->held = l->gen;
	return rc;
}
