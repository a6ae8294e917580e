/* census.c - soups stepped, settled, split and named (census.h). */
#include "census.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mix.h"
#include "base/pool.h"
#include "engine/choose.h"
#include "engine/cuda/batch.h"
#include "engine/cuda/device.h"
#include "engine/engine.h"
#include "object.h"
#include "soup.h"

uint32_t census_space(uint32_t side)
{
	return side + 48;
}

typedef struct shared {
	const census_cfg *c;
	atomic_uint_fast64_t next;     /* soups claimed, counted from c->first */
	atomic_bool failed;
	pthread_mutex_t lock;          /* over seen */
	haul seen;                     /* every code met so far, for c->found */
} shared;

/* The universe's hash at each chunk's end since the soup began or lost a
 * ship, by hash (an open table of cap slots, key 0 empty). */
typedef struct history {
	uint64_t *key, *val;
	size_t n, cap;
} history;

typedef struct worker {
	shared *s;
	engine *e;                     /* the soup's */
	engine *alone;                 /* one object alone, or the phases */
	engine_knobs knobs;            /* both engines': the run's, no leaps */
	grid box, abox, soup;          /* the space, the object's, the soup */
	census_group group;
	cellset cells;                 /* scratch: a phase's cells */
	cellset all;                   /* every phase's cells */
	cellset *phase, *obj;          /* phase[t], an object's obj[t] */
	size_t phases;                 /* allocated of each */
	uint32_t *label;
	size_t labels;
	history own;                   /* the soup's history, stepping alone */
	history *hist;                 /* the one judge uses */
	haul haul;
	int rc;
	l3d_err err;
	pthread_t thread;
	bool started;
} worker;

uint64_t census_hash(const grid *g)
{
	uint64_t h = 0, n = g->nx * g->ny * g->words;
	for (uint64_t i = 0; i < n; i++)
		if (g->bits[i])
			h ^= l3d_mix64(g->bits[i] ^ l3d_mix64(i + 1));
	return h;
}

/* ---- cells in and out of grids ---- */

static int cells_of(const grid *g, cellset *out, l3d_err *err)
{
	cellset_clear(out);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			for (uint64_t w = 0; w < g->words; w++)
				for (uint64_t b = row[w]; b; b &= b - 1) {
					int z = (int)(w * 64) + __builtin_ctzll(b);
					int rc = cellset_push(out, (int32_t)x, (int32_t)y, z, err);
					if (rc)
						return rc;
				}
		}
	return L3D_OK;   /* in (x, y, z) order already */
}

/* g empty but for s's cells moved by d (they must fit). */
static void place(grid *g, const cellset *s, const int d[3])
{
	memset(g->bits, 0, grid_bytes(g));
	for (size_t i = 0; i < s->n; i++)
		grid_set(g, (uint64_t)(s->c[i].x + d[0]), (uint64_t)(s->c[i].y + d[1]),
			 (uint64_t)(s->c[i].z + d[2]), 1);
}

static bool near_edge(const cellset *s, int space)
{
	for (size_t i = 0; i < s->n; i++) {
		const census_cell *c = &s->c[i];
		if (c->x < CENSUS_EDGE || c->y < CENSUS_EDGE || c->z < CENSUS_EDGE ||
		    c->x >= space - CENSUS_EDGE || c->y >= space - CENSUS_EDGE ||
		    c->z >= space - CENSUS_EDGE)
			return true;
	}
	return false;
}

/* The move that puts s's box at the centre of a space of `space`. */
static void centre(const cellset *s, int space, int d[3])
{
	int lo[3] = {s->c[0].x, s->c[0].y, s->c[0].z}, hi[3];
	memcpy(hi, lo, sizeof hi);
	for (size_t i = 0; i < s->n; i++) {
		const int v[3] = {s->c[i].x, s->c[i].y, s->c[i].z};
		for (int a = 0; a < 3; a++) {
			lo[a] = v[a] < lo[a] ? v[a] : lo[a];
			hi[a] = v[a] > hi[a] ? v[a] : hi[a];
		}
	}
	for (int a = 0; a < 3; a++)
		d[a] = (space - (hi[a] - lo[a] + 1)) / 2 - lo[a];
}

static int room_for_phases(worker *w, size_t n, l3d_err *err)
{
	if (n <= w->phases)
		return L3D_OK;
	cellset *p = realloc(w->phase, n * sizeof *p), *o = p ? realloc(w->obj, n * sizeof *o) : NULL;
	if (p)
		w->phase = p;
	if (!p || !o)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a census object's phases");
	w->obj = o;
	for (size_t i = w->phases; i < n; i++) {
		cellset_init(&w->phase[i]);
		cellset_init(&w->obj[i]);
	}
	w->phases = n;
	return L3D_OK;
}

/* ---- the haul ---- */

/* A code new to the worker: c->found hears of it if it is new to the
 * census. */
static int first_seen(worker *w, const census_name *n, const haul_entry *e, l3d_err *err)
{
	const census_cfg *c = w->s->c;
	if (!c->found)
		return L3D_OK;
	pthread_mutex_lock(&w->s->lock);
	size_t before = w->s->seen.n;
	int rc = haul_add(&w->s->seen, e, err);
	if (rc == L3D_OK && w->s->seen.n > before)
		rc = c->found(c->found_ctx, n, e->sample[0], err);
	pthread_mutex_unlock(&w->s->lock);
	return rc;
}

static int count(worker *w, const census_name *n, uint64_t soup, l3d_err *err)
{
	haul_entry e = {.code = n->code, .kind = n->kind, .period = n->period,
			.population = n->population, .count = 1, .samples = 1,
			.sample = {soup}};
	memcpy(e.d, n->d, sizeof e.d);
	size_t before = w->haul.n;
	int rc = haul_add(&w->haul, &e, err);
	return rc == L3D_OK && w->haul.n > before ? first_seen(w, n, &e, err) : rc;
}

static int unsettled(worker *w, uint64_t soup, l3d_err *err)
{
	haul_entry e = {.code = "zz_UNSETTLED", .kind = 'z', .count = 1, .samples = 1,
			.sample = {soup}};
	return haul_add(&w->haul, &e, err);
}

static int name_and_count(worker *w, const cellset *phases, int period, const int d[3],
			  uint64_t soup, l3d_err *err)
{
	census_name n;
	int rc = census_code(phases, period, d, &w->group, &n, err);
	if (rc == L3D_OK)
		rc = count(w, &n, soup, err);
	census_name_free(&n);
	return rc;
}

/* ---- a settled soup's objects ---- */

/* The label of cell c of w->all. */
static uint32_t label_of(const worker *w, const census_cell *c)
{
	size_t lo = 0, hi = w->all.n;
	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const census_cell *m = &w->all.c[mid];
		bool before = m->x != c->x ? m->x < c->x : m->y != c->y ? m->y < c->y : m->z <= c->z;
		if (before)
			lo = mid;
		else
			hi = mid;
	}
	return w->label[lo];
}

static bool same_cells(const cellset *a, const cellset *b)
{
	return a->n == b->n && !memcmp(a->c, b->c, a->n * sizeof *a->c);
}

/* Object k's phases into w->obj[0..period) and its own period (a divisor
 * of period: it evolves alone, so its first return is its period). */
static int object_phases(worker *w, uint32_t k, int period, int *own, l3d_err *err)
{
	for (int t = 0; t < period; t++) {
		cellset_clear(&w->obj[t]);
		for (size_t i = 0; i < w->phase[t].n; i++) {
			const census_cell *c = &w->phase[t].c[i];
			if (label_of(w, c) != k)
				continue;
			int rc = cellset_push(&w->obj[t], c->x, c->y, c->z, err);
			if (rc)
				return rc;
		}
	}
	*own = period;
	for (int p = 1; p < period; p++)
		if (period % p == 0 && same_cells(&w->obj[p], &w->obj[0])) {
			*own = p;
			break;
		}
	return L3D_OK;
}

/* The P phases of the universe in w->box, from the engine that steps
 * objects alone, into w->phase and their union into w->all; *back when
 * the universe P generations on is the one of w->box again. */
static int read_phases(worker *w, int period, bool *back, l3d_err *err)
{
	int rc = room_for_phases(w, (size_t)period + 1, err);
	if (rc == L3D_OK)
		rc = engine_load(w->alone, &w->box, err);
	cellset_clear(&w->all);
	for (int t = 0; rc == L3D_OK && t <= period; t++) {
		if (t > 0)
			rc = engine_step(w->alone, 1, NULL, err);
		if (rc == L3D_OK)
			rc = engine_read(w->alone, &w->abox, err);
		if (rc == L3D_OK)
			rc = cells_of(&w->abox, &w->phase[t], err);
		for (size_t i = 0; rc == L3D_OK && t < period && i < w->phase[t].n; i++) {
			const census_cell *c = &w->phase[t].c[i];
			rc = cellset_push(&w->all, c->x, c->y, c->z, err);
		}
	}
	*back = rc == L3D_OK && same_cells(&w->phase[period], &w->phase[0]);
	if (rc == L3D_OK)
		cellset_sort(&w->all);
	return rc;
}

static int label_room(worker *w, size_t n, l3d_err *err)
{
	if (n <= w->labels)
		return L3D_OK;
	uint32_t *l = realloc(w->label, n * sizeof *l);
	if (!l)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a census's objects");
	w->label = l;
	w->labels = n;
	return L3D_OK;
}

/* When the universe in w->box repeats after `period` generations (*is),
 * its objects counted. */
static int settled(worker *w, int period, uint64_t soup, bool *is, l3d_err *err)
{
	size_t objects = 0;
	int rc = read_phases(w, period, is, err);
	if (rc || !*is)
		return rc;
	if (rc == L3D_OK)
		rc = label_room(w, w->all.n, err);
	if (rc == L3D_OK)
		rc = cellset_components(&w->all, w->s->c->rule.hood, w->label, &objects, err);
	static const int still[3] = {0, 0, 0};
	for (uint32_t k = 0; rc == L3D_OK && k < objects; k++) {
		int own;
		rc = object_phases(w, k, period, &own, err);
		if (rc == L3D_OK)
			rc = name_and_count(w, w->obj, own, still, soup, err);
	}
	return rc;
}

/* ---- ships that leave ---- */

/* Whether the object in w->obj[0] (cells of the space) is a spaceship:
 * stepped alone at the centre of a space of its own, it comes back
 * translated within CENSUS_SHIP_PERIOD generations.  Its phases are then
 * w->obj[0 .. *period), moved to that centre, and *d its displacement. */
static int ship(worker *w, int *period, int d[3], l3d_err *err)
{
	int space = (int)w->abox.nx, at[3];
	*period = 0;
	centre(&w->obj[0], space, at);
	int rc = cellset_translate(&w->obj[0], at, err);
	if (rc)
		return rc;
	place(&w->abox, &w->obj[0], (const int[3]){0, 0, 0});
	rc = engine_load(w->alone, &w->abox, err);
	for (int t = 1; rc == L3D_OK && t <= CENSUS_SHIP_PERIOD; t++) {
		rc = room_for_phases(w, (size_t)t + 1, err);
		if (rc == L3D_OK)
			rc = engine_step(w->alone, 1, NULL, err);
		if (rc == L3D_OK)
			rc = engine_read(w->alone, &w->abox, err);
		if (rc == L3D_OK)
			rc = cells_of(&w->abox, &w->obj[t], err);
		if (rc || w->obj[t].n == 0 || near_edge(&w->obj[t], space))
			return rc;
		if (cellset_same_shape(&w->obj[0], &w->obj[t], d)) {
			if (d[0] || d[1] || d[2])
				*period = t;
			return L3D_OK;
		}
	}
	return rc;
}

/* Objects near the space's side: ships are counted and taken out of
 * w->box; *stuck when something else is there. */
static int escapes(worker *w, uint64_t soup, bool *stuck, l3d_err *err)
{
	size_t objects = 0;
	int space = (int)w->box.nx;
	int rc = label_room(w, w->cells.n, err);
	if (rc == L3D_OK)
		rc = cellset_components(&w->cells, w->s->c->rule.hood, w->label, &objects, err);
	if (rc == L3D_OK)
		rc = room_for_phases(w, 1, err);
	*stuck = false;
	for (uint32_t k = 0; rc == L3D_OK && k < objects; k++) {
		cellset_clear(&w->obj[0]);
		for (size_t i = 0; rc == L3D_OK && i < w->cells.n; i++)
			if (w->label[i] == k)
				rc = cellset_push(&w->obj[0], w->cells.c[i].x, w->cells.c[i].y,
						  w->cells.c[i].z, err);
		if (rc || !near_edge(&w->obj[0], space))
			continue;
		for (size_t i = 0; i < w->obj[0].n; i++)
			grid_set(&w->box, (uint64_t)w->obj[0].c[i].x, (uint64_t)w->obj[0].c[i].y,
				 (uint64_t)w->obj[0].c[i].z, 0);
		int period, d[3];
		rc = ship(w, &period, d, err);
		if (rc == L3D_OK && period)
			rc = name_and_count(w, w->obj, period, d, soup, err);
		*stuck = *stuck || !period;
	}
	return rc;
}

/* ---- one soup ---- */

/* Soup `soup` into w->box, at the centre of its space. */
static int make_soup(worker *w, uint64_t soup, l3d_err *err)
{
	const census_cfg *c = w->s->c;
	int at[3], rc;
	if (c->universes) {
		rc = cells_of(&c->universes[soup], &w->cells, err);
		if (rc == L3D_OK && w->cells.n)
			centre(&w->cells, (int)w->box.nx, at);
	} else {
		grid_random(&w->soup, c->density, soup_seed(c->root, soup));
		rc = cells_of(&w->soup, &w->cells, err);
		at[0] = at[1] = at[2] = (int)(w->box.nx - c->side) / 2;
	}
	if (rc == L3D_OK)
		place(&w->box, &w->cells, at);
	return rc;
}

static int load_soup(worker *w, uint64_t soup, l3d_err *err)
{
	int rc = make_soup(w, soup, err);
	return rc ? rc : engine_load(w->e, &w->box, err);
}

static void history_clear(history *h)
{
	if (h->key)
		memset(h->key, 0, h->cap * sizeof *h->key);
	h->n = 0;
}

static void history_free(history *h)
{
	free(h->key);
	free(h->val);
	memset(h, 0, sizeof *h);
}

static int history_grow(history *h, l3d_err *err)
{
	size_t cap = h->cap ? 2 * h->cap : 1024;
	uint64_t *k = calloc(cap, sizeof *k), *v = k ? calloc(cap, sizeof *v) : NULL;
	if (!v) {
		free(k);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a soup's history");
	}
	for (size_t i = 0; i < h->cap; i++)
		for (size_t j = h->key[i] & (cap - 1); h->key[i]; j = (j + 1) & (cap - 1))
			if (!k[j]) {
				k[j] = h->key[i];
				v[j] = h->val[i];
				break;
			}
	free(h->key);
	free(h->val);
	h->key = k;
	h->val = v;
	h->cap = cap;
	return L3D_OK;
}

/* The chunk that had hash x (0: none), and x recorded for chunk c. */
static int history_swap(history *h, uint64_t x, uint64_t c, uint64_t *was, l3d_err *err)
{
	if (2 * (h->n + 1) > h->cap) {
		int rc = history_grow(h, err);
		if (rc)
			return rc;
	}
	x |= x == 0;   /* 0 marks an empty slot */
	size_t j = x & (h->cap - 1);
	while (h->key[j] && h->key[j] != x)
		j = (j + 1) & (h->cap - 1);
	*was = h->key[j] ? h->val[j] : 0;
	h->n += !h->key[j];
	h->key[j] = x;
	h->val[j] = c;
	return L3D_OK;
}

/* What the census judges a chunk's end by (the GPU's batch computes the
 * same: engine/cuda/batch.h). */
typedef struct chunk_end {
	uint64_t population, hash;
	bool edge;
} chunk_end;

/* Puts the soup's universe into w->box, for a judge that needs it. */
typedef int (*fetch_fn)(void *ctx, grid *box, l3d_err *err);

/* After a chunk that brought the soup to generation gen, ending as e:
 * whether the soup's fate is known (*over), counted if so; or w->box
 * changed (*reload: ships taken away).  The universe is fetched (when
 * fetch is not NULL) only when it must be looked at.  The same chunk ends
 * always get the same judgement, whichever engine stepped the soup. */
static int judge(worker *w, uint64_t soup, uint64_t gen, const chunk_end *e, fetch_fn fetch,
		 void *ctx, bool *over, bool *reload, l3d_err *err)
{
	const census_cfg *c = w->s->c;
	bool stuck = false, is = false;
	uint64_t chunk = gen / CENSUS_CHUNK, was = 0;
	*over = e->population == 0;
	*reload = false;
	if (*over)
		return L3D_OK;
	int rc = L3D_OK;
	if (e->edge) {
		rc = fetch ? fetch(ctx, &w->box, err) : L3D_OK;
		if (rc == L3D_OK)
			rc = cells_of(&w->box, &w->cells, err);
		if (rc == L3D_OK)
			rc = escapes(w, soup, &stuck, err);
		*over = stuck;
		*reload = !stuck;
		history_clear(w->hist);
		return rc == L3D_OK && stuck ? unsettled(w, soup, err) : rc;
	}
	rc = history_swap(w->hist, e->hash, chunk, &was, err);
	if (rc == L3D_OK && was && (chunk - was) * CENSUS_CHUNK <= CENSUS_MOST_PERIOD) {
		rc = fetch ? fetch(ctx, &w->box, err) : L3D_OK;
		if (rc == L3D_OK)
			rc = settled(w, (int)((chunk - was) * CENSUS_CHUNK), soup, &is, err);
	}
	*over = is;
	if (rc == L3D_OK && !*over && gen >= c->max_gens) {
		*over = true;
		rc = unsettled(w, soup, err);
	}
	return rc;
}

/* Whether a live cell of g is within CENSUS_EDGE of a face: near_edge of
 * its cells, from its words. */
static bool box_near_edge(const grid *g)
{
	const uint64_t e = CENSUS_EDGE;
	uint64_t zmask[4] = {0, 0, 0, 0};   /* a space has at most 176 cells a row */
	for (uint64_t z = 0; z < g->nz && g->words <= 4; z++)
		if (z < e || z >= g->nz - e)
			zmask[z / 64] |= (uint64_t)1 << (z % 64);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			bool side = x < e || x >= g->nx - e || y < e || y >= g->ny - e;
			const uint64_t *row = grid_row(g, x, y);
			for (uint64_t w = 0; w < g->words; w++)
				if (row[w] & (side ? ~(uint64_t)0 : zmask[w]))
					return true;
		}
	return false;
}

static int one_soup(worker *w, uint64_t soup, l3d_err *err)
{
	int rc = load_soup(w, soup, err);
	bool over = false, reload;
	w->hist = &w->own;
	history_clear(w->hist);
	for (uint64_t gen = CENSUS_CHUNK; rc == L3D_OK && !over; gen += CENSUS_CHUNK) {
		engine_stats st;
		chunk_end e = {0, 0, false};
		rc = engine_step(w->e, CENSUS_CHUNK, &st, err);
		if (rc == L3D_OK && st.population)
			rc = engine_read(w->e, &w->box, err);
		if (rc == L3D_OK && st.population)
			e = (chunk_end){st.population, census_hash(&w->box), box_near_edge(&w->box)};
		if (rc == L3D_OK)
			rc = judge(w, soup, gen, &e, NULL, NULL, &over, &reload, err);
		if (rc == L3D_OK && reload)
			rc = engine_load(w->e, &w->box, err);
	}
	return rc;
}

/* ---- workers ---- */

static int worker_start(worker *w, l3d_err *err)
{
	const census_cfg *c = w->s->c;
	uint32_t space = census_space(c->side);
	census_group_of(c->rule.hood, &w->group);
	int rc = grid_alloc(&w->box, space, space, space, err);
	if (rc == L3D_OK)
		rc = grid_alloc(&w->abox, space, space, space, err);
	if (rc == L3D_OK)
		rc = grid_alloc(&w->soup, c->side, c->side, c->side, err);
	/* The census finds periods itself (judge): the engines only step,
	 * and leaps would hash for nothing. */
	if (c->knobs)
		w->knobs = *c->knobs;
	w->knobs.no_leap = true;
	engine_opts o = {.kind = "cpu", .threads = 1, .device = -1, .rule = &c->rule,
			 .knobs = &w->knobs};
	if (rc == L3D_OK)
		rc = engine_create(&o, &w->box, &c->rule, &w->e, err);
	if (rc == L3D_OK)
		rc = engine_create(&o, &w->box, &c->rule, &w->alone, err);
	return rc;
}

static void *worker_run(void *arg)
{
	worker *w = arg;
	shared *s = w->s;
	const census_cfg *c = s->c;
	w->rc = worker_start(w, &w->err);
	while (w->rc == L3D_OK && !atomic_load(&s->failed) && !(c->stop && *c->stop) &&
	       !(c->deadline > 0 && l3d_seconds() >= c->deadline)) {
		uint64_t i = atomic_fetch_add(&s->next, 1);
		if (i >= c->soups)
			break;
		w->rc = one_soup(w, c->first + i, &w->err);
		w->haul.soups += w->rc == L3D_OK;
		if (c->done && w->rc == L3D_OK)
			atomic_fetch_add(c->done, 1);
	}
	if (w->rc)
		atomic_store(&s->failed, true);
	return NULL;
}

static void worker_free(worker *w)
{
	if (w->e)
		engine_destroy(w->e);
	if (w->alone)
		engine_destroy(w->alone);
	grid_free(&w->box);
	grid_free(&w->abox);
	grid_free(&w->soup);
	cellset_free(&w->cells);
	cellset_free(&w->all);
	for (size_t i = 0; i < w->phases; i++) {
		cellset_free(&w->phase[i]);
		cellset_free(&w->obj[i]);
	}
	free(w->phase);
	free(w->obj);
	free(w->label);
	history_free(&w->own);
	haul_free(&w->haul);
}

static int workers_wanted(const census_cfg *c)
{
	long n = c->threads > 0 ? c->threads : cpu_count();
	n = n < 1 ? 1 : n > 1024 ? 1024 : n;
	return (uint64_t)n > c->soups ? (int)(c->soups ? c->soups : 1) : (int)n;
}

/* The CPU's workers: one a thread (the caller's the first), each
 * claiming soups until none is left; each keeps its own status (w->rc). */
static int cpu_crew(worker *w, int n)
{
	for (int i = 1; i < n; i++)
		w[i].started = pthread_create(&w[i].thread, NULL, worker_run, &w[i]) == 0;
	worker_run(&w[0]);
	for (int i = 1; i < n; i++)
		if (w[i].started)
			pthread_join(w[i].thread, NULL);
	return L3D_OK;
}

/* ---- the GPU: a batch of soups a launch ---- */

/* One soup in a slot of the batch. */
typedef struct slot {
	uint64_t soup, gen;
	bool busy;
	history hist;
} slot;

typedef struct slot_fetch {
	cuda_batch *b;
	uint32_t s;
} slot_fetch;

static int fetch_slot(void *ctx, grid *box, l3d_err *err)
{
	const slot_fetch *f = ctx;
	return cuda_batch_get(f->b, f->s, box, err);
}

/* The next soup into slot s (an empty space when none is left). */
static int refill(worker *w, cuda_batch *b, slot *sl, uint32_t s, l3d_err *err)
{
	const census_cfg *c = w->s->c;
	uint64_t i = c->soups;
	if (!atomic_load(&w->s->failed) && !(c->stop && *c->stop) &&
	    !(c->deadline > 0 && l3d_seconds() >= c->deadline))
		i = atomic_fetch_add(&w->s->next, 1);
	sl->busy = i < c->soups;
	sl->soup = c->first + i;
	sl->gen = 0;
	history_clear(&sl->hist);
	int rc = L3D_OK;
	if (sl->busy)
		rc = make_soup(w, sl->soup, err);
	else
		memset(w->box.bits, 0, grid_bytes(&w->box));
	return rc ? rc : cuda_batch_put(b, s, &w->box, err);
}

/* Each busy slot of sl[0 .. n) (the batch's first .. first + n) judged
 * after a chunk, and refilled once its soup is over; *busy: the slots
 * still busy. */
static int judge_slots(worker *w, cuda_batch *b, slot *sl, const cuda_batch_end *ends,
		       uint32_t first, uint32_t n, uint32_t *busy, l3d_err *err)
{
	int rc = L3D_OK;
	*busy = 0;
	for (uint32_t s = 0; rc == L3D_OK && s < n; s++) {
		if (!sl[s].busy)
			continue;
		bool over, reload;
		slot_fetch f = {b, first + s};
		chunk_end e = {ends[s].population, ends[s].hash, ends[s].edge};
		sl[s].gen += CENSUS_CHUNK;
		w->hist = &sl[s].hist;
		rc = judge(w, sl[s].soup, sl[s].gen, &e, fetch_slot, &f, &over, &reload, err);
		if (rc == L3D_OK && reload)
			rc = cuda_batch_put(b, first + s, &w->box, err);
		if (rc == L3D_OK && over) {
			w->haul.soups++;
			if (w->s->c->done)
				atomic_fetch_add(w->s->c->done, 1);
			rc = refill(w, b, &sl[s], first + s, err);
		}
		*busy += sl[s].busy;
	}
	return rc;
}

#define GPU_SLOTS 4096

/* The judges of a batch: worker t judges and refills the slots
 * [t * n / workers, (t + 1) * n / workers) after each chunk, on a thread
 * of its own (a pool's; worker 0 on the caller's).  A soup's judgement is
 * its own, so the haul does not depend on which worker took which soup. */
typedef struct judges {
	worker *w;
	int workers;
	cuda_batch *b;
	slot *sl;
	const cuda_batch_end *ends;
	uint32_t n;
	uint32_t busy[1024];
	int rc[1024];
	pthread_mutex_t lock;
	pthread_cond_t all_done;
	int done;
} judges;

static void judge_part(void *arg, int t)
{
	judges *j = arg;
	uint32_t from = (uint32_t)((uint64_t)t * j->n / (uint32_t)j->workers);
	uint32_t to = (uint32_t)((uint64_t)(t + 1) * j->n / (uint32_t)j->workers);
	j->rc[t] = judge_slots(&j->w[t], j->b, j->sl + from, j->ends + from, from, to - from,
			       &j->busy[t], &j->w[t].err);
	pthread_mutex_lock(&j->lock);
	if (++j->done == j->workers)
		pthread_cond_signal(&j->all_done);
	pthread_mutex_unlock(&j->lock);
}

/* One chunk's judging by every worker; the first failure in *err. */
static int judge_all(judges *j, cpu_pool *pool, uint32_t *busy, l3d_err *err)
{
	j->done = 0;
	if (pool)
		cpu_pool_wake(pool, judge_part, j);
	judge_part(j, 0);
	pthread_mutex_lock(&j->lock);
	while (j->done < j->workers)
		pthread_cond_wait(&j->all_done, &j->lock);
	pthread_mutex_unlock(&j->lock);
	int rc = L3D_OK;
	*busy = 0;
	for (int t = 0; t < j->workers; t++) {
		*busy += j->busy[t];
		if (rc == L3D_OK && j->rc[t]) {
			rc = j->rc[t];
			*err = j->w[t].err;
		}
	}
	return rc;
}

static int gpu_census(worker *w, int workers, l3d_err *err)
{
	const census_cfg *c = w->s->c;
	uint32_t n = c->soups < GPU_SLOTS ? (uint32_t)c->soups : GPU_SLOTS, busy = 1;
	cuda_batch *b = NULL;
	cpu_pool *pool = NULL;
	slot *sl = calloc(n, sizeof *sl);
	cuda_batch_end *ends = calloc(n, sizeof *ends);
	judges j = {.w = w, .workers = workers, .sl = sl, .ends = ends, .n = n};
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.all_done, NULL);
	int rc = sl && ends ? L3D_OK
			    : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the census");
	for (int t = 0; rc == L3D_OK && t < workers; t++)
		rc = worker_start(&w[t], err);
	if (rc == L3D_OK && workers > 1)
		rc = cpu_pool_create(workers, &pool, err);
	if (rc == L3D_OK)
		rc = cuda_batch_create(c->device, n, &c->rule, CENSUS_EDGE, &b, err);
	j.b = b;
	for (uint32_t s = 0; rc == L3D_OK && s < n; s++)
		rc = refill(&w[0], b, &sl[s], s, err);
	while (rc == L3D_OK && busy) {
		rc = cuda_batch_step(b, CENSUS_CHUNK, ends, err);
		if (rc == L3D_OK)
			rc = judge_all(&j, pool, &busy, err);
	}
	if (pool)
		cpu_pool_destroy(pool);
	for (uint32_t s = 0; sl && s < n; s++)
		history_free(&sl[s].hist);
	cuda_batch_destroy(b);
	pthread_mutex_destroy(&j.lock);
	pthread_cond_destroy(&j.all_done);
	free(sl);
	free(ends);
	return rc;
}

bool census_on_gpu(const census_cfg *c)
{
	return c->engine && cuda_batch_takes(&c->rule, census_space(c->side)) && !c->universes &&
	       (!strcmp(c->engine, "cuda") || (!strcmp(c->engine, "auto") && cuda_device_count() > 0));
}

int census_run(const census_cfg *c, haul *out, l3d_err *err)
{
	if (c->engine && !strcmp(c->engine, "cuda") && !census_on_gpu(c))
		return l3d_fail(err, L3D_ERR_UNAVAILABLE,
				"census: the GPU takes Moore rules without B0 on soups of 16^3 "
				"(a space of 64^3), and no --soups files; use --engine cpu");
	bool gpu = c->engine && census_on_gpu(c);
	shared s = {.c = c};
	atomic_init(&s.next, 0);
	atomic_init(&s.failed, false);
	pthread_mutex_init(&s.lock, NULL);
	int n = workers_wanted(c), rc = L3D_OK;
	worker *w = calloc((size_t)n, sizeof *w);
	if (!w) {
		pthread_mutex_destroy(&s.lock);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the census's workers");
	}
	for (int i = 0; i < n; i++) {
		w[i].s = &s;
		haul_init(&w[i].haul);
	}
	rc = gpu ? gpu_census(w, n, err) : cpu_crew(w, n);
	/* Workers that could not start left their soups to the others. */
	for (int i = 0; i < n; i++) {
		if (rc == L3D_OK && w[i].rc) {
			rc = w[i].rc;
			*err = w[i].err;
		}
		if (rc == L3D_OK)
			rc = haul_merge(out, &w[i].haul, err);
		worker_free(&w[i]);
	}
	free(w);
	haul_free(&s.seen);
	pthread_mutex_destroy(&s.lock);
	/* Every soup claimed is done: they are the first ones. */
	if (rc == L3D_OK && !c->universes && out->soups)
		rc = haul_add_range(out, c->first, c->first + out->soups, err);
	return rc;
}
