/* backend_cpu.c - a rank's slab stepped on its cores (see backend.h): the
 * slab and its halos in two host buffers that the steps ping-pong
 * between, stepped by a cpu_stepper (engine/cpu/stepper.h), skipping the
 * tiles whose neighbourhood did not change (engine/cpu/skip.h). */
#include "backend.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pool.h"
#include "comm.h"
#include "engine/cpu/stepper.h"
#include "engine/cpu/skip.h"

typedef struct cpu_backend {
	slab_backend base;
	uint64_t n, depth, ny, nz, words, plane_words;
	uint64_t *cur, *next;    /* n + 2 * depth planes each */
	cpu_stepper *stepper;
	cpu_skip *skip;          /* NULL: every cell every step */
	slab_backend_ops ops;    /* with the skipping ops when skip is set */
} cpu_backend;

static uint64_t *cpu_plane(slab_backend *b, int64_t x)
{
	cpu_backend *c = (cpu_backend *)b;
	return c->cur + (uint64_t)(x + (int64_t)c->depth) * c->plane_words;
}

/* Planes [xa, xb) from the current generation into the next. */
static cpu_slab slab_of(const cpu_backend *c, int64_t xa, int64_t xb)
{
	uint64_t at = (uint64_t)(xa + (int64_t)c->depth) * c->plane_words;
	uint64_t n = (uint64_t)(xb - xa);
	return (cpu_slab){n, c->ny, c->nz, c->words, c->cur + at, c->next + at,
			  c->cur + at - c->plane_words, c->cur + at + n * c->plane_words};
}

static bool cpu_skips_next(slab_backend *b)
{
	return cpu_skip_by_tiles(((cpu_backend *)b)->skip);
}

static int cpu_step(slab_backend *b, int64_t xa, int64_t xb,
		    engine_stats *stats, l3d_err *err)
{
	cpu_backend *c = (cpu_backend *)b;
	cpu_slab s = slab_of(c, xa, xb);
	if (c->skip && xa == 0 && xb == (int64_t)c->n && cpu_skip_by_tiles(c->skip))
		return cpu_skip_step(c->skip, c->stepper, &s, stats, err);
	cpu_stepper_step(c->stepper, &s, stats);
	return L3D_OK;
}

static void swap_buffers(cpu_backend *c)
{
	uint64_t *t = c->cur;
	c->cur = c->next;
	c->next = t;
}

static void cpu_swap(slab_backend *b)
{
	cpu_backend *c = (cpu_backend *)b;
	if (c->skip) {
		cpu_slab s = slab_of(c, 0, (int64_t)c->n);
		cpu_skip_done(c->skip, &s);
	}
	swap_buffers(c);
}

static bool cpu_quiet(slab_backend *b)
{
	return cpu_skip_quiet(((cpu_backend *)b)->skip);
}

/* Both buffers hold the two generations that alternate from now on. */
static void cpu_leap(slab_backend *b, uint64_t steps, engine_stats *stats)
{
	cpu_backend *c = (cpu_backend *)b;
	cpu_skip_leap(c->skip, steps, stats);
	if (steps % 2)
		swap_buffers(c);
}

static void cpu_tiles(slab_backend *b, double *stepped, double *total)
{
	cpu_skip_tiles(((cpu_backend *)b)->skip, stepped, total);
}

static int cpu_hash_on(slab_backend *b, uint64_t x0, l3d_err *err)
{
	return cpu_skip_hash(((cpu_backend *)b)->skip, x0, err);
}

static uint64_t cpu_hash(slab_backend *b)
{
	return cpu_skip_hash_now(((cpu_backend *)b)->skip);
}

static void cpu_leapt(slab_backend *b, uint64_t steps)
{
	cpu_skip_leapt(((cpu_backend *)b)->skip, steps);
}

static int cpu_to_host(slab_backend *b, int64_t x, uint64_t count,
		       uint64_t *dst, l3d_err *err)
{
	cpu_backend *c = (cpu_backend *)b;
	memcpy(dst, cpu_plane(b, x), count * c->plane_words * 8);
	return L3D_OK;
}

static int cpu_from_host(slab_backend *b, int64_t x, uint64_t count,
			 const uint64_t *src, l3d_err *err)
{
	cpu_backend *c = (cpu_backend *)b;
	memcpy(cpu_plane(b, x), src, count * c->plane_words * 8);
	return L3D_OK;
}

static void cpu_destroy(slab_backend *b)
{
	cpu_backend *c = (cpu_backend *)b;
	cpu_skip_destroy(c->skip);
	cpu_stepper_destroy(c->stepper);
	free(c->cur);
	free(c->next);
	free(c);
}

static uint64_t *alloc_planes(uint64_t planes, uint64_t plane_words)
{
	size_t bytes = (size_t)(planes * plane_words * 8);
	bytes = (bytes + 63) & ~(size_t)63;
	uint64_t *p = aligned_alloc(64, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

static void *cpu_host_alloc(slab_backend *b, size_t bytes)
{
	(void)b;
	return alloc_planes(1, (bytes + 7) / 8);
}

static void cpu_host_free(slab_backend *b, void *p)
{
	(void)b;
	free(p);
}

static const slab_backend_ops cpu_backend_ops = {
	.plane = cpu_plane,
	.step = cpu_step,
	.swap = cpu_swap,
	.to_host = cpu_to_host,
	.from_host = cpu_from_host,
	.destroy = cpu_destroy,
	.host_alloc = cpu_host_alloc,
	.host_free = cpu_host_free,
};

/* Skipping, unless LIFE3D_SKIP=0: the ops that tell the engine of it. */
static int start_skipping(cpu_backend *c, const grid *slab, const engine_opts *opts,
			  l3d_err *err)
{
	c->ops = cpu_backend_ops;
	c->base.ops = &c->ops;
	if (engine_knobs_of(opts)->dense)
		return L3D_OK;
	int rc = cpu_skip_create(c->stepper, slab, false, &c->skip, err);
	if (rc)
		return rc;
	c->ops.skips_next = cpu_skips_next;
	c->ops.quiet = cpu_quiet;
	c->ops.leap = cpu_leap;
	c->ops.tiles = cpu_tiles;
	c->ops.hash_on = cpu_hash_on;
	c->ops.hash = cpu_hash;
	c->ops.leapt = cpu_leapt;
	return L3D_OK;
}

/* Threads per rank: the cores this rank may use, but no more than its
 * share of the node when the launcher did not bind ranks to cores. */
static int rank_threads(const engine_opts *opts)
{
	if (opts && opts->threads > 0)
		return opts->threads;
	long cores = sysconf(_SC_NPROCESSORS_ONLN), mine = cpu_count();
	long share = cores / comm_local_size();
	long t = mine < share ? mine : share;
	return t > 0 ? (int)t : 1;
}

int backend_cpu_create(const grid *slab, uint64_t depth, const rule *r,
			      const engine_opts *opts, slab_backend **out,
			      l3d_err *err)
{
	cpu_backend *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	*c = (cpu_backend){
		.base = {&cpu_backend_ops, "cpu", true, false},
		.n = slab->nx, .depth = depth, .ny = slab->ny, .nz = slab->nz,
		.words = slab->words, .plane_words = slab->ny * slab->words,
	};
	engine_opts mine = opts ? *opts : (engine_opts){0};
	mine.threads = rank_threads(opts);
	int rc = cpu_stepper_create(slab->ny, slab->nz, r, &mine, &c->stepper, err);
	if (!rc) {
		c->base.name = cpu_stepper_describe(c->stepper);
		c->cur = alloc_planes(c->n + 2 * depth, c->plane_words);
		c->next = alloc_planes(c->n + 2 * depth, c->plane_words);
		if (!c->cur || !c->next)
			rc = l3d_fail(err, L3D_ERR_RUNTIME,
				      "out of memory for a slab of %llu planes",
				      (unsigned long long)slab->nx);
	}
	if (!rc)
		rc = start_skipping(c, slab, opts, err);
	if (rc) {
		cpu_destroy(&c->base);
		return rc;
	}
	memcpy(cpu_plane(&c->base, 0), slab->bits, grid_bytes(slab));
	*out = &c->base;
	return L3D_OK;
}
