/* cpu.c - the CPU engine: the universe and one more buffer in host
 * memory, stepped by a cpu_stepper (stepper.c), with activity skipping
 * (skip.c) unless LIFE3D_SKIP=0 (knobs.h). */
#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skip.h"
#include "stepper.h"

/* ---- the engine ---- */

static const engine_ops cpu_ops;

typedef struct cpu_engine {
	engine base;
	grid cur, next;            /* next is allocated at the first step */
	cpu_stepper *st;
	cpu_skip *skip;            /* NULL: every cell every step */
	bool dense;                /* LIFE3D_SKIP=0: never skip */
	bool no_leap;              /* LIFE3D_LEAP=0: keep no hash */
	uint64_t hash_mask;        /* the bits of the hash kept
	                              (LIFE3D_LEAP_HASH_BITS) */
	grid marked;               /* the universe set aside (cpu_mark) */
	char desc[192];
} cpu_engine;

/* The second buffer and skipping's tiles, at the first step. */
static int first_step(cpu_engine *c, l3d_err *err)
{
	if (c->next.bits)
		return L3D_OK;
	int rc = grid_alloc(&c->next, c->cur.nx, c->cur.ny, c->cur.nz, err);
	if (!rc && !c->dense)
		rc = cpu_skip_create(c->st, &c->cur, true, &c->skip, err);
	return rc;
}

static int cpu_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	cpu_engine *c = (cpu_engine *)e;
	int rc = steps ? first_step(c, err) : L3D_OK;
	if (rc)
		return rc;
	if (c->skip)
		return cpu_skip_run(c->skip, c->st, &c->cur, &c->next, steps, stats, NULL, err);
	for (uint64_t i = 0; i < steps; i++) {
		cpu_slab s = cpu_slab_torus(&c->cur, &c->next);
		bool last = i + 1 == steps;
		if (last && stats)
			*stats = (engine_stats){0, 0, 0};
		cpu_stepper_step(c->st, &s, last ? stats : NULL);
		uint64_t *t = c->cur.bits;
		c->cur.bits = c->next.bits;
		c->next.bits = t;
	}
	return L3D_OK;
}

/* ---- leaps (engine/leap.h): the hash is skipping's ---- */

static int cpu_step_hashed(engine *e, uint64_t steps, engine_stats *stats,
			   uint64_t *hashes, l3d_err *err)
{
	cpu_engine *c = (cpu_engine *)e;
	if (c->dense || c->no_leap)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "engine 'cpu' keeps no hash");
	int rc = steps ? first_step(c, err) : L3D_OK;
	if (!rc)
		rc = cpu_skip_hash(c->skip, 0, err);
	if (!rc)
		rc = cpu_skip_run(c->skip, c->st, &c->cur, &c->next, steps, stats, hashes, err);
	for (uint64_t i = 0; !rc && i < steps; i++)
		if (hashes[i])
			hashes[i] = (hashes[i] & c->hash_mask) | 1;
	return rc;
}

static int cpu_mark(engine *e, l3d_err *err)
{
	cpu_engine *c = (cpu_engine *)e;
	int rc = c->marked.bits ? L3D_OK
				: grid_alloc(&c->marked, c->cur.nx, c->cur.ny, c->cur.nz, err);
	if (!rc)
		memcpy(c->marked.bits, c->cur.bits, grid_bytes(&c->cur));
	return rc;
}

static bool cpu_same_as_mark(engine *e)
{
	cpu_engine *c = (cpu_engine *)e;
	return memcmp(c->marked.bits, c->cur.bits, grid_bytes(&c->cur)) == 0;
}

static void cpu_leapt_over(engine *e, uint64_t steps)
{
	cpu_engine *c = (cpu_engine *)e;
	if (c->skip)
		cpu_skip_leapt(c->skip, steps);
}

static int cpu_read(engine *e, grid *out, l3d_err *err)
{
	cpu_engine *c = (cpu_engine *)e;
	memcpy(out->bits, c->cur.bits, grid_bytes(&c->cur));
	return L3D_OK;
}

static int cpu_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	grid_project(&((cpu_engine *)e)->cur, axis, counts);
	return L3D_OK;
}

static int cpu_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
		     l3d_err *err)
{
	grid_slice(&((cpu_engine *)e)->cur, axis, index, cells);
	return L3D_OK;
}

static grid *cpu_host_grid(engine *e)
{
	return &((cpu_engine *)e)->cur;
}

static const char *cpu_describe(const engine *e)
{
	cpu_engine *c = (cpu_engine *)e;
	if (!c->skip)
		return cpu_stepper_describe(c->st);
	double stepped, total;
	cpu_skip_tiles(c->skip, &stepped, &total);
	snprintf(c->desc, sizeof c->desc, "%s, %.3g%% of tiles stepped",
		 cpu_stepper_describe(c->st), total > 0 ? 100 * stepped / total : 100);
	return c->desc;
}

void engine_cpu_tiles(const engine *e, double *stepped, double *total)
{
	const cpu_engine *c = (const cpu_engine *)e;
	*stepped = *total = 0;
	if (e->ops == &cpu_ops && c->skip)
		cpu_skip_tiles(c->skip, stepped, total);
}

static void cpu_destroy(engine *e)
{
	cpu_engine *c = (cpu_engine *)e;
	cpu_skip_destroy(c->skip);
	cpu_stepper_destroy(c->st);
	grid_free(&c->cur);
	grid_free(&c->next);
	grid_free(&c->marked);
	free(c);
}

/* Skipping found the last generation the same as the one two before. */
static bool cpu_repeats(const engine *e)
{
	const cpu_engine *c = (const cpu_engine *)e;
	return c->skip && cpu_skip_quiet(c->skip);
}

/* The universe u in place of cur; skipping's tiles start again, as a new
 * engine's do (two steps of every tile first); -v's share goes on over
 * every universe. */
static int cpu_load(engine *e, const grid *u, l3d_err *err)
{
	(void)err;
	cpu_engine *c = (cpu_engine *)e;
	memcpy(c->cur.bits, u->bits, grid_bytes(&c->cur));
	c->cur.generation = u->generation;
	if (c->skip)
		cpu_skip_restart(c->skip);
	return L3D_OK;
}

static const engine_ops cpu_ops = {
	.name = "cpu",
	.step = cpu_step,
	.read = cpu_read,
	.project = cpu_project,
	.slice = cpu_slice,
	.host_grid = cpu_host_grid,
	.destroy = cpu_destroy,
	.describe = cpu_describe,
	.repeats = cpu_repeats,
	.load = cpu_load,
	.step_hashed = cpu_step_hashed,
	.mark = cpu_mark,
	.same_as_mark = cpu_same_as_mark,
	.leapt_over = cpu_leapt_over,
};

/* Rows of the universe being read, copied in as they come. */
typedef struct copy_in {
	const grid *from;
	grid *to;
} copy_in;

static int copy_rows(void *ctx, uint64_t first, uint64_t n, l3d_err *err)
{
	copy_in *c = ctx;
	uint64_t words = c->to->words;
	memcpy(c->to->bits + first * words, c->from->bits + first * words,
	       (size_t)(n * words * 8));
	return L3D_OK;
}

int engine_cpu_create(const engine_opts *opts, const grid *initial,
		      row_progress *ready, const rule *r, engine **out,
		      l3d_err *err)
{
	*out = NULL;
	cpu_engine *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	const engine_knobs *k = engine_knobs_of(opts);
	c->dense = k->dense;
	c->no_leap = k->no_leap;
	c->hash_mask = engine_leap_hash_mask(k);
	int rc = cpu_stepper_create(initial->ny, initial->nz, r, opts, &c->st, err);
	if (!rc)
		rc = grid_alloc(&c->cur, initial->nx, initial->ny, initial->nz, err);
	/* The thread pool and the buffer are set up while the rows are read;
	 * each run of rows is copied while it is still in the cache. */
	copy_in job = {initial, &c->cur};
	if (!rc)
		rc = row_progress_follow(ready, initial->nx * initial->ny, 1,
					 copy_rows, &job, "engine 'cpu'", err);
	if (rc) {
		cpu_destroy(&c->base);
		return rc;
	}
	c->cur.generation = initial->generation;
	c->base.ops = &cpu_ops;
	c->base.nx = initial->nx;
	c->base.ny = initial->ny;
	c->base.nz = initial->nz;
	c->base.rule = *r;
	*out = &c->base;
	return L3D_OK;
}
