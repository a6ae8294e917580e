/* skip.c - see skip.h. */
#include "skip.h"

#include <stdlib.h>
#include <string.h>

#define TILE_X 4
#define TILE_Y 8
#define ACTIVE_MAX 0.4
/* Dense steps before looking again: doubled each time the look finds the
 * universe still busy, back to the first when skipping pays. */
#define PROBE_FIRST 64
#define PROBE_MOST 4096

struct cpu_skip {
	uint64_t nx, ny, tx, ty, ntx, nty, ntiles;
	uint32_t *changed;         /* tiles that differ from two generations back */
	uint64_t nchanged;
	uint32_t *mark;            /* per tile: the step that listed it */
	uint32_t epoch;
	engine_stats *slot[2];     /* per tile, by the parity of the generation */
	uint32_t *list;
	cpu_tile_result *res;
	uint64_t produced;         /* generations made since creation */
	int seeded;                /* every-tile steps in a row, up to 2 */
	uint64_t dense_left;       /* dense steps before looking again */
	uint64_t probe_every;
	double stepped, total;     /* tiles */
};

int cpu_skip_create(const cpu_stepper *st, const grid *g, cpu_skip **out,
		    l3d_err *err)
{
	*out = NULL;
	cpu_skip *k = calloc(1, sizeof *k);
	if (!k)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	uint64_t unit = cpu_stepper_row_unit(st), most = cpu_stepper_max_rows(st);
	k->nx = g->nx;
	k->ny = g->ny;
	k->tx = TILE_X < g->nx ? TILE_X : g->nx;
	k->ty = (TILE_Y + unit - 1) / unit * unit;
	if (k->ty > most)
		k->ty = most;
	k->ntx = (g->nx + k->tx - 1) / k->tx;
	k->nty = (g->ny + k->ty - 1) / k->ty;
	k->ntiles = k->ntx * k->nty;
	k->probe_every = PROBE_FIRST;
	if (k->ntiles <= UINT32_MAX) {
		k->changed = calloc(k->ntiles, sizeof *k->changed);
		k->mark = calloc(k->ntiles, sizeof *k->mark);
		k->slot[0] = calloc(k->ntiles, sizeof(engine_stats));
		k->slot[1] = calloc(k->ntiles, sizeof(engine_stats));
		k->list = calloc(k->ntiles, sizeof *k->list);
		k->res = calloc(k->ntiles, sizeof *k->res);
	}
	if (!k->changed || !k->mark || !k->slot[0] || !k->slot[1] || !k->list || !k->res) {
		cpu_skip_destroy(k);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the tiles");
	}
	*out = k;
	return L3D_OK;
}

void cpu_skip_destroy(cpu_skip *k)
{
	if (!k)
		return;
	free(k->changed);
	free(k->mark);
	free(k->slot[0]);
	free(k->slot[1]);
	free(k->list);
	free(k->res);
	free(k);
}

double cpu_skip_stepped(const cpu_skip *k)
{
	return k->total > 0 ? k->stepped / k->total : 1;
}

/* The tiles to step: all, or each changed tile and its eight neighbours
 * on the torus of tiles, each once. */
static uint64_t make_list(cpu_skip *k, bool all)
{
	uint64_t n = 0;
	if (all) {
		for (uint64_t t = 0; t < k->ntiles; t++)
			k->list[n++] = (uint32_t)t;
		return n;
	}
	if (++k->epoch == 0) {          /* wrapped: forget every old mark */
		memset(k->mark, 0, k->ntiles * sizeof *k->mark);
		k->epoch = 1;
	}
	for (uint64_t i = 0; i < k->nchanged; i++) {
		uint64_t ix = k->changed[i] / k->nty, iy = k->changed[i] % k->nty;
		for (int dx = -1; dx <= 1; dx++) {
			uint64_t x = (ix + k->ntx + (uint64_t)(int64_t)dx) % k->ntx;
			for (int dy = -1; dy <= 1; dy++) {
				uint64_t y = (iy + k->nty + (uint64_t)(int64_t)dy) % k->nty;
				uint64_t t = x * k->nty + y;
				if (k->mark[t] != k->epoch) {
					k->mark[t] = k->epoch;
					k->list[n++] = (uint32_t)t;
				}
			}
		}
	}
	return n;
}

static void sum_slots(const cpu_skip *k, int par, engine_stats *stats)
{
	*stats = (engine_stats){0, 0, 0};
	for (uint64_t t = 0; t < k->ntiles; t++) {
		stats->population += k->slot[par][t].population;
		stats->births += k->slot[par][t].births;
		stats->deaths += k->slot[par][t].deaths;
	}
}

static void swap(grid *a, grid *b)
{
	uint64_t *t = a->bits;
	a->bits = b->bits;
	b->bits = t;
}

/* Step the listed tiles into generation parity `par` and record them. */
static int step_listed(cpu_skip *k, cpu_stepper *st, const cpu_slab *s, uint64_t n,
		       int par, l3d_err *err)
{
	int rc = cpu_stepper_step_tiles(st, s, k->tx, k->ty, k->list, n, k->res, err);
	if (rc)
		return rc;
	k->nchanged = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t t = k->list[i];
		k->slot[par][t] = k->res[t].st;
		if (k->res[t].changed)
			k->changed[k->nchanged++] = t;
	}
	k->stepped += (double)n;
	k->total += (double)k->ntiles;
	return L3D_OK;
}

/* One generation; returns 1 when the universe was found to repeat with
 * period 2 from here on (nothing stepped), else 0, or an error. */
static int step_one(cpu_skip *k, cpu_stepper *st, grid *cur, grid *next,
		    engine_stats *stats, l3d_err *err)
{
	cpu_slab s = cpu_slab_torus(cur, next);
	int par = (int)((k->produced + 1) & 1);
	uint64_t n = 0;
	bool dense = k->dense_left > 0;
	if (!dense && k->seeded >= 2) {
		n = make_list(k, false);
		if (n == 0)
			return 1;
		dense = (double)n > ACTIVE_MAX * (double)k->ntiles;
		if (dense) {
			k->dense_left = k->probe_every;
			if (k->probe_every < PROBE_MOST)
				k->probe_every *= 2;
		} else {
			k->probe_every = PROBE_FIRST;
		}
	}
	if (dense) {
		if (stats)
			*stats = (engine_stats){0, 0, 0};
		cpu_stepper_step(st, &s, stats);
		k->dense_left--;
		k->seeded = 0;
		k->stepped += (double)k->ntiles;
		k->total += (double)k->ntiles;
	} else {
		if (k->seeded < 2)
			n = make_list(k, true);
		int rc = step_listed(k, st, &s, n, par, err);
		if (rc)
			return rc;
		if (k->seeded < 2)
			k->seeded++;
		if (stats)
			sum_slots(k, par, stats);
	}
	swap(cur, next);
	k->produced++;
	return 0;
}

int cpu_skip_run(cpu_skip *k, cpu_stepper *st, grid *cur, grid *next,
		 uint64_t steps, engine_stats *stats, l3d_err *err)
{
	for (uint64_t i = 0; i < steps; i++) {
		bool last = i + 1 == steps;
		int rc = step_one(k, st, cur, next, last ? stats : NULL, err);
		if (rc < 0 || rc > 1)
			return rc;
		if (rc == 1) {
			/* Settled: the two buffers hold the two generations that
			 * alternate from now on. */
			uint64_t left = steps - i;
			if (left % 2)
				swap(cur, next);
			k->produced += left;
			k->total += (double)k->ntiles * (double)left;
			if (stats)
				sum_slots(k, (int)(k->produced & 1), stats);
			return L3D_OK;
		}
	}
	return L3D_OK;
}
