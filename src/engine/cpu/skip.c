/* skip.c - see skip.h. */
#include "skip.h"

#include <stdlib.h>
#include <string.h>

#include "base/mix.h"

/* A tile's planes and rows (rounded up to the stepper's row unit).  On a
 * 512^3 soup past generation 64, 4 x 4 stepped 40% fewer cells a step
 * than 4 x 8 and took 22% less time; 2 x 4 saved a little more stepping
 * and spent it listing more tiles (src/engine/cpu/NOTES.md, "The CPU's
 * late steps on sixteen threads"). */
#define TILE_X 4
#define TILE_Y 4
#define ACTIVE_MAX 0.4
/* Dense steps before looking again: doubled each time the look finds the
 * universe still busy, back to the first when skipping pays. */
#define PROBE_FIRST 16
#define PROBE_MOST 4096

struct cpu_skip {
	uint64_t nx, ny, words, tx, ty, ntx, nty, ntiles;
	bool torus;
	/* Tiles that differ from two generations back; then, on a slab with
	 * halos, rows of halo tiles (ntiles + side * nty + iy) that do. */
	uint32_t *changed;
	uint64_t nchanged;
	uint32_t *mark;            /* per tile: the step that listed it */
	uint32_t epoch;
	engine_stats *slot[2];     /* per tile, by the parity of the generation */
	uint32_t *list;
	cpu_tile_result *res;
	uint64_t *kept[2];         /* slab: the low and high halos, by parity */
	uint64_t produced;         /* generations made since creation */
	int seeded;                /* every-tile steps in a row, up to 2 */
	bool tiled;                /* this generation went by tiles */
	uint64_t dense_left;       /* dense steps before looking again */
	uint64_t probe_every;
	double stepped, total;     /* tiles */
	/* The universe's hash (cpu_skip_hash), by the parity of the
	 * generation: each tile's, and their XOR; known[p]: hash[p] is that
	 * of the last generation of parity p.  NULL th: not hashing. */
	uint64_t *th[2];
	uint64_t hash[2];
	bool known[2];
	uint64_t x0;               /* the slab's first plane in the universe */
	bool all;                  /* the last generation by tiles: every tile */
	uint64_t listed;           /* and how many were listed */
	bool fresh;                /* hashing has just begun */
};

/* A dense step of a universe of at most this many words hashes it whole,
 * so that small busy universes (a glider in a small box) leap too. */
#define DENSE_HASH_WORDS ((uint64_t)1 << 14)

static void shape_tiles(cpu_skip *k, const cpu_stepper *st, const grid *g)
{
	uint64_t unit = cpu_stepper_row_unit(st), most = cpu_stepper_max_rows(st);
	k->nx = g->nx;
	k->ny = g->ny;
	k->words = g->words;
	k->tx = TILE_X < g->nx ? TILE_X : g->nx;
	k->ty = (TILE_Y + unit - 1) / unit * unit;
	if (k->ty > most)
		k->ty = most;
	k->ntx = (g->nx + k->tx - 1) / k->tx;
	k->nty = (g->ny + k->ty - 1) / k->ty;
	k->ntiles = k->ntx * k->nty;
}

int cpu_skip_create(const cpu_stepper *st, const grid *g, bool torus,
		    cpu_skip **out, l3d_err *err)
{
	*out = NULL;
	cpu_skip *k = calloc(1, sizeof *k);
	if (!k)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	shape_tiles(k, st, g);
	k->torus = torus;
	k->probe_every = PROBE_FIRST;
	uint64_t halo_rows = torus ? 0 : 2 * k->nty;
	size_t plane = (size_t)(g->ny * g->words);
	bool kept = torus || ((k->kept[0] = calloc(2 * plane, 8)) &&
			      (k->kept[1] = calloc(2 * plane, 8)));
	if (k->ntiles + halo_rows <= UINT32_MAX && kept) {
		k->changed = calloc(k->ntiles + halo_rows, sizeof *k->changed);
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
	free(k->kept[0]);
	free(k->kept[1]);
	free(k->th[0]);
	free(k->th[1]);
	free(k);
}

void cpu_skip_restart(cpu_skip *k)
{
	uint64_t halo_rows = k->torus ? 0 : 2 * k->nty;
	memset(k->changed, 0, (size_t)(k->ntiles + halo_rows) * sizeof *k->changed);
	memset(k->mark, 0, (size_t)k->ntiles * sizeof *k->mark);
	for (int p = 0; p < 2; p++)
		memset(k->slot[p], 0, (size_t)k->ntiles * sizeof(engine_stats));
	memset(k->list, 0, (size_t)k->ntiles * sizeof *k->list);
	memset(k->res, 0, (size_t)k->ntiles * sizeof *k->res);
	k->nchanged = 0;
	k->epoch = 0;
	k->produced = 0;
	k->seeded = 0;
	k->tiled = false;
	k->dense_left = 0;
	k->probe_every = PROBE_FIRST;
	k->known[0] = k->known[1] = false;
}

void cpu_skip_tiles(const cpu_skip *k, double *stepped, double *total)
{
	*stepped = k->stepped;
	*total = k->total;
}

/* ---- the universe's hash ----
 * Every word of the universe but the empty ones (most, in a settled soup)
 * is mixed with its place (base/mix.h's mixer of the word XOR its index
 * times an odd constant) and the results XORed: a tile's hash is the XOR
 * over its words, the universe's the XOR over its tiles, so a stepped
 * tile's change updates it in a few operations a word.  A tile stepped
 * but unchanged holds what it held two generations back, and keeps its
 * hash of that parity. */

static uint64_t tile_hash(const cpu_skip *k, const uint64_t *bits, uint64_t t)
{
	uint64_t x0 = t / k->nty * k->tx, y0 = t % k->nty * k->ty;
	uint64_t x1 = x0 + k->tx < k->nx ? x0 + k->tx : k->nx;
	uint64_t y1 = y0 + k->ty < k->ny ? y0 + k->ty : k->ny;
	uint64_t h = 0, n = (y1 - y0) * k->words;
	for (uint64_t x = x0; x < x1; x++) {
		uint64_t at = (x * k->ny + y0) * k->words;
		const uint64_t *w = bits + at;
		uint64_t place = at + k->x0 * k->ny * k->words;
		for (uint64_t i = 0; i < n; i++)
			if (w[i])
				h ^= l3d_mix64(w[i] ^ (place + i) * 0x9e3779b97f4a7c15ULL);
	}
	return h;
}

/* Every tile of bits (a whole generation of parity par) hashed anew. */
static void rehash(cpu_skip *k, const uint64_t *bits, int par)
{
	uint64_t h = 0;
	for (uint64_t t = 0; t < k->ntiles; t++)
		h ^= k->th[par][t] = tile_hash(k, bits, t);
	k->hash[par] = h;
	k->known[par] = true;
}

/* The listed tiles just stepped into bits (parity par): those that
 * changed are hashed anew. */
static void update_hash(cpu_skip *k, const uint64_t *bits, uint64_t n, int par)
{
	for (uint64_t i = 0; i < n; i++) {
		uint32_t t = k->list[i];
		if (!k->res[t].changed)
			continue;
		uint64_t h = tile_hash(k, bits, t);
		k->hash[par] ^= k->th[par][t] ^ h;
		k->th[par][t] = h;
	}
}

int cpu_skip_hash(cpu_skip *k, uint64_t x0, l3d_err *err)
{
	if (k->th[0])
		return L3D_OK;
	k->x0 = x0;
	k->th[0] = calloc(k->ntiles, sizeof *k->th[0]);
	k->th[1] = calloc(k->ntiles, sizeof *k->th[1]);
	if (!k->th[0] || !k->th[1]) {
		free(k->th[0]);
		free(k->th[1]);
		k->th[0] = k->th[1] = NULL;
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the tiles' hashes");
	}
	k->known[0] = k->known[1] = false;
	k->fresh = true;
	return L3D_OK;
}

uint64_t cpu_skip_hash_now(const cpu_skip *k)
{
	int par = (int)(k->produced & 1);
	return k->th[0] && k->known[par] ? k->hash[par] | 1 : 0;
}

/* After the generation s made (parity par), by tiles (k->tiled; every
 * tile when k->all, k->listed of them) or densely.  The first generation
 * after hashing began hashes both buffers in full. */
static void hash_step(cpu_skip *k, const cpu_slab *s, int par)
{
	if (!k->th[0])
		return;
	bool small = k->nx * k->ny * k->words <= DENSE_HASH_WORDS;
	if (k->fresh) {
		rehash(k, s->src, par ^ 1);
		rehash(k, s->dst, par);
		k->fresh = false;
	} else if (k->tiled ? k->all : small)
		rehash(k, s->dst, par);
	else if (!k->tiled)
		k->known[par] = false;
	else if (k->known[par])
		update_hash(k, s->dst, k->listed, par);
}

/* List tile column ix (-1 and ntx: the halos), row iy, and the eight
 * around it, each once: x wraps on the torus alone, y always. */
static uint64_t list_around(cpu_skip *k, int64_t ix, uint64_t iy, uint64_t n)
{
	for (int64_t dx = -1; dx <= 1; dx++) {
		int64_t x = ix + dx, ntx = (int64_t)k->ntx;
		if (k->torus)
			x = (x + ntx) % ntx;
		if (x < 0 || x >= ntx)
			continue;
		for (int dy = -1; dy <= 1; dy++) {
			uint64_t y = (iy + k->nty + (uint64_t)(int64_t)dy) % k->nty;
			uint64_t t = (uint64_t)x * k->nty + y;
			if (k->mark[t] != k->epoch) {
				k->mark[t] = k->epoch;
				k->list[n++] = (uint32_t)t;
			}
		}
	}
	return n;
}

/* The tiles to step: all, or each changed tile (or row of halo) and its
 * neighbours. */
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
		uint64_t c = k->changed[i];
		if (c < k->ntiles) {
			n = list_around(k, (int64_t)(c / k->nty), c % k->nty, n);
		} else {
			uint64_t side = (c - k->ntiles) / k->nty;
			n = list_around(k, side ? (int64_t)k->ntx : -1, (c - k->ntiles) % k->nty, n);
		}
	}
	return n;
}

/* Rows of halo tiles that differ from the same halo two generations back
 * join the changed tiles. */
static void note_halos(cpu_skip *k, const cpu_slab *s)
{
	uint64_t plane = k->ny * k->words;
	const uint64_t *now[2] = {s->halo_lo, s->halo_hi};
	for (uint64_t side = 0; side < 2; side++) {
		const uint64_t *was = k->kept[k->produced & 1] + side * plane;
		for (uint64_t iy = 0; iy < k->nty; iy++) {
			uint64_t at = iy * k->ty * k->words, rows = k->ty;
			if (iy * k->ty + rows > k->ny)
				rows = k->ny - iy * k->ty;
			if (memcmp(now[side] + at, was + at, rows * k->words * 8) != 0)
				k->changed[k->nchanged++] = (uint32_t)(k->ntiles + side * k->nty + iy);
		}
	}
}

static void add_slots(const cpu_skip *k, int par, engine_stats *stats)
{
	for (uint64_t t = 0; t < k->ntiles; t++) {
		stats->population += k->slot[par][t].population;
		stats->births += k->slot[par][t].births;
		stats->deaths += k->slot[par][t].deaths;
	}
}

/* Step the listed tiles into generation parity `par` and record them. */
static int step_listed(cpu_skip *k, cpu_stepper *st, const cpu_slab *s, uint64_t n,
		       int par, l3d_err *err)
{
	int rc = n ? cpu_stepper_step_tiles(st, s, k->tx, k->ty, k->list, n, k->res, err)
		   : L3D_OK;
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
	return L3D_OK;
}

bool cpu_skip_by_tiles(const cpu_skip *k)
{
	return k->dense_left == 0;
}

/* Whether n listed tiles are too many to pay; a busy slab is then stepped
 * densely for a stretch that doubles while it stays busy. */
static bool too_busy(cpu_skip *k, uint64_t n)
{
	if ((double)n <= ACTIVE_MAX * (double)k->ntiles) {
		k->probe_every = PROBE_FIRST;
		return false;
	}
	k->dense_left = k->probe_every;
	if (k->probe_every < PROBE_MOST)
		k->probe_every *= 2;
	return true;
}

int cpu_skip_step(cpu_skip *k, cpu_stepper *st, const cpu_slab *s,
		  engine_stats *stats, l3d_err *err)
{
	bool all = k->seeded < 2;
	uint64_t n = 0;
	if (k->dense_left == 0) {
		if (!all && !k->torus)
			note_halos(k, s);
		n = make_list(k, all);
		k->tiled = all || !too_busy(k, n);
	}
	if (!k->tiled) {
		cpu_stepper_step(st, s, stats);
		return L3D_OK;
	}
	int par = (int)((k->produced + 1) & 1);
	int rc = step_listed(k, st, s, n, par, err);
	if (rc)
		return rc;
	k->all = all;
	k->listed = n;
	if (k->seeded < 2)
		k->seeded++;
	if (stats)
		add_slots(k, par, stats);
	return L3D_OK;
}

void cpu_skip_done(cpu_skip *k, const cpu_slab *s)
{
	hash_step(k, s, (int)((k->produced + 1) & 1));
	if (!k->tiled) {
		k->seeded = 0;
		k->stepped += (double)k->ntiles;
		if (k->dense_left)
			k->dense_left--;
	}
	if (!k->torus) {
		uint64_t plane = k->ny * k->words;
		memcpy(k->kept[k->produced & 1], s->halo_lo, plane * 8);
		memcpy(k->kept[k->produced & 1] + plane, s->halo_hi, plane * 8);
	}
	k->tiled = false;
	k->total += (double)k->ntiles;
	k->produced++;
}

bool cpu_skip_quiet(const cpu_skip *k)
{
	return k->seeded >= 2 && k->nchanged == 0;
}

void cpu_skip_leap(cpu_skip *k, uint64_t steps, engine_stats *stats)
{
	k->produced += steps;
	k->total += (double)k->ntiles * (double)steps;
	if (stats)
		add_slots(k, (int)(k->produced & 1), stats);
}

void cpu_skip_leapt(cpu_skip *k, uint64_t steps)
{
	k->total += (double)k->ntiles * (double)steps;
}

static void swap(grid *a, grid *b)
{
	uint64_t *t = a->bits;
	a->bits = b->bits;
	b->bits = t;
}

int cpu_skip_run(cpu_skip *k, cpu_stepper *st, grid *cur, grid *next,
		 uint64_t steps, engine_stats *stats, uint64_t *hashes, l3d_err *err)
{
	if (hashes)
		memset(hashes, 0, (size_t)steps * sizeof *hashes);
	if (stats && steps)
		*stats = (engine_stats){0, 0, 0};
	for (uint64_t i = 0; i < steps; i++) {
		if (cpu_skip_quiet(k)) {
			/* Settled: the two buffers hold the two generations that
			 * alternate from now on. */
			if ((steps - i) % 2)
				swap(cur, next);
			cpu_skip_leap(k, steps - i, stats);
			return L3D_OK;
		}
		cpu_slab s = cpu_slab_torus(cur, next);
		int rc = cpu_skip_step(k, st, &s, i + 1 == steps ? stats : NULL, err);
		if (rc)
			return rc;
		cpu_skip_done(k, &s);
		swap(cur, next);
		if (hashes)
			hashes[i] = cpu_skip_hash_now(k);
	}
	return L3D_OK;
}
