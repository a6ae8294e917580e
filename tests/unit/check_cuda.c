/* check_cuda.c - the CUDA engine against the byte-per-cell reference.
 *
 * Without a usable GPU only the "unavailable" behaviour is checked and the
 * program exits 77 (skip).  With one, random universes of many shapes (edges
 * of 1 and 2, z lengths that are not multiples of 32 or 64, rows too long
 * for the fused kernel), several rules, step counts that leave remainders
 * after fused launches, every launch mode and forced small tiles must give
 * the reference's cells, counts and views bit for bit, and 3D renders
 * render_rows()'s bytes.  The tiles of a rank's slab, their halos
 * changed between steps, must step as l3dk_step_open does.  The cache of
 * captured graphs must capture a run once, replay it, and evict the run
 * least recently used.  A universe handed
 * over while it is still being filled in, and read back a run of rows at a
 * time, must arrive and come back whole. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "engine/busyboxes.h"
#include "engine/choose.h"
#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>

#include "engine/cuda/graphs.h"
#include "kernels/kernels.h"
#endif
#include "engine/cuda/device.h"
#include "reference.h"

typedef struct box {
	uint64_t nx, ny, nz;
} box;

/* Shapes chosen to hit every path: exact rows (nz % 64 == 0) with 2 and 4
 * words a lane, padded rows, one-lane rows, full-warp rows, the generic
 * kernel (more than 32 lanes a row), and edges where a cell is its own
 * neighbour. */
static const box shapes[] = {
	{1, 1, 1},   {1, 2, 3},   {2, 2, 2},    {3, 1, 2},    {5, 7, 1},
	{2, 1, 64},  {4, 4, 33},  {3, 5, 64},   {6, 3, 65},   {7, 9, 100},
	{2, 3, 128}, {9, 4, 130}, {3, 3, 192},  {5, 6, 255},  {17, 19, 31},
	{33, 10, 96}, {8, 70, 64}, {11, 37, 320}, {3, 4, 4096}, {2, 3, 4160},
	{3, 2, 5000},
};

static const char *const rules[] = {"B6/S567", "B5/S45", "B0,3/S0..26", "B26/S26",
				    "B4,5/S5", "B/S"};

/* Golly's other neighbourhoods (rule.h), several rules each. */
static const char *const hood_rules[] = {"3D0..6/1,3F", "3D2,3/2F", "3D4..8/3C", "3D/1C",
					 "3D3..5/4E", "3D1,5,9/2,12E", "3D3/3H", "3D2..4/2,3H",
					 "B1/S0..12H", "B0,2/S3,5E"};

static const char *const launch_modes[] = {"pdl", "graph", "plain"};

static void parse_rule(const char *text, rule *r)
{
	l3d_err err;
	ck_assert_msg(rule_parse(text, r, &err) == L3D_OK, "%s", err.msg);
}

static void make_random(grid *g, box b, double density, uint64_t seed)
{
	l3d_err err;
	ck_assert_msg(grid_alloc(g, b.nx, b.ny, b.nz, &err) == L3D_OK, "%s", err.msg);
	grid_random(g, density, seed);
}

/* The knobs (engine/knobs.h) make_cuda's engines are made with: cases set
 * a field, and set it back. */
static engine_knobs knobs;

static engine *make_cuda(const grid *g, const rule *r)
{
	engine_opts opts = {.kind = "cuda", .device = -1, .knobs = &knobs};
	engine *e = NULL;
	l3d_err err;
	int rc = engine_create(&opts, g, r, &e, &err);
	ck_assert_msg(rc == L3D_OK, "%s", err.msg);
	ck_assert_ptr_nonnull(e);
	return e;
}

static void check_views(engine *e, const grid *g, const char *what)
{
	l3d_err err;
	for (int axis = 0; axis < 3; axis++) {
		uint64_t w, h, extent[3] = {g->nx, g->ny, g->nz};
		grid_view_dims(g, axis, &w, &h);
		uint32_t *want = malloc(w * h * sizeof *want), *got = malloc(w * h * sizeof *got);
		uint8_t *cw = malloc(w * h), *cg = malloc(w * h);
		ck_assert(want && got && cw && cg);
		grid_project(g, axis, want);
		ck_assert_msg(engine_project(e, axis, got, &err) == L3D_OK, "%s", err.msg);
		ck_assert_msg(!memcmp(want, got, w * h * sizeof *got), "%s: projection %d", what,
			      axis);
		uint64_t picks[3] = {0, extent[axis] / 2, extent[axis] - 1};
		for (int i = 0; i < 3; i++) {
			grid_slice(g, axis, picks[i], cw);
			ck_assert_msg(engine_slice(e, axis, picks[i], cg, &err) == L3D_OK, "%s",
				      err.msg);
			ck_assert_msg(!memcmp(cw, cg, w * h), "%s: slice %d@%llu", what, axis,
				      (unsigned long long)picks[i]);
		}
		free(want), free(got), free(cw), free(cg);
	}
}

/* A 3D render (render.h) drawn by the engine against render_rows() on g;
 * with step, the engine steps once between the start and the wait: the
 * picture is still of the universe as it was when it was started. */
static void check_render(engine *e, const grid *g, double az, double el, uint64_t scale,
			 bool step, const char *what)
{
	l3d_err err;
	render_view v;
	render_setup(&v, g->nx, g->ny, g->nz, az, el, scale);
	size_t bytes = 3 * (size_t)v.width * v.height;
	uint8_t *want = malloc(bytes), *got = malloc(bytes);
	ck_assert(want && got);
	memset(got, 0x5a, bytes);
	render_rows(&v, g, 0, v.height, want);
	ck_assert_msg(engine_render_start(e, &v, got, &err) == L3D_OK, "%s", err.msg);
	if (step)
		ck_assert_msg(engine_step(e, 1, NULL, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_view_wait(e, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(!memcmp(want, got, bytes), "%s: render %g,%g x%llu%s", what, az, el,
		      (unsigned long long)scale, step ? " before a step" : "");
	free(want), free(got);
}

/* Renders from several sides and at several scales: one seen straight
 * down, one straight along x (rays inside a plane of cells), one from
 * below.  The last steps the engine on. */
static void check_renders(engine *e, const grid *g, const char *what)
{
	static const struct { double az, el; uint64_t scale; } views[] = {
		{30, 25, 1}, {120, 10, 3}, {-90, 90, 2}, {0, 0, 1}, {200, -40, 2}, {45, 60, 5},
	};
	ck_assert(engine_renders(e));
	for (size_t k = 0; k < sizeof views / sizeof *views; k++)
		check_render(e, g, views[k].az, views[k].el, views[k].scale, false, what);
	check_render(e, g, 30, 25, 2, true, what);
}

/* Step a random universe in calls of `per_call` generations, comparing the
 * counts after every call and the cells and views at the end. */
static void compare_run(box b, const char *rule_text, uint64_t calls, uint64_t per_call,
			uint64_t seed, int views)
{
	char what[160];
	snprintf(what, sizeof what, "%llux%llux%llu %s %llux%llu seed %llu",
		 (unsigned long long)b.nx, (unsigned long long)b.ny, (unsigned long long)b.nz,
		 rule_text, (unsigned long long)calls, (unsigned long long)per_call,
		 (unsigned long long)seed);
	rule r;
	grid g, got;
	ref_universe ref;
	l3d_err err;
	parse_rule(rule_text, &r);
	make_random(&g, b, 0.15 + 0.1 * (double)(seed % 4), seed);
	ck_assert(ref_from_grid(&ref, &g) == 0);
	engine *e = make_cuda(&g, &r);
	for (uint64_t c = 0; c < calls; c++) {
		engine_stats st = {0, 0, 0};
		uint64_t pop = 0, born = 0, died = 0;
		ck_assert_msg(engine_step(e, per_call, &st, &err) == L3D_OK, "%s", err.msg);
		for (uint64_t s = 0; s < per_call; s++)
			ref_step(&ref, &r, &pop, &born, &died);
		ck_assert_msg(st.population == pop && st.births == born && st.deaths == died,
			      "%s call %llu: counts %llu/%llu/%llu, reference %llu/%llu/%llu", what,
			      (unsigned long long)c, (unsigned long long)st.population,
			      (unsigned long long)st.births, (unsigned long long)st.deaths,
			      (unsigned long long)pop, (unsigned long long)born,
			      (unsigned long long)died);
	}
	ck_assert_msg(grid_alloc(&got, b.nx, b.ny, b.nz, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_read(e, &got, &err) == L3D_OK, "%s", err.msg);
	ck_assert(ref_to_grid(&ref, &g) == 0);
	ck_assert_msg(grid_equal(&g, &got), "%s: cells differ from the reference", what);
	if (views) {
		check_views(e, &g, what);
		check_renders(e, &g, what);
	}
	engine_destroy(e);
	ref_free(&ref);
	grid_free(&g);
	grid_free(&got);
}

START_TEST(every_shape_default_rule)
{
	box b = shapes[_i];
	compare_run(b, "B6/S567", 3, 1, 1 + _i, 1);
	compare_run(b, "B6/S567", 2, 3, 100 + _i, 0);
	compare_run(b, "B6/S567", 1, 5, 200 + _i, 0);
}
END_TEST

START_TEST(every_shape_other_rules)
{
	box b = shapes[_i];
	for (size_t k = 0; k < sizeof rules / sizeof *rules; k++)
		compare_run(b, rules[k], 2, 2 + k % 2, 300 + 7 * _i + k, 0);
}
END_TEST

START_TEST(every_shape_every_neighbourhood)
{
	box b = shapes[_i];
	size_t n = sizeof hood_rules / sizeof *hood_rules;
	for (size_t k = 0; k < 4; k++)
		compare_run(b, hood_rules[(_i + 3 * k) % n], 2, 2 + k % 2, 700 + 7 * _i + k, 0);
}
END_TEST

/* The rules again with the rule as kernel parameters (LIFE3D_CUDA_TUNE
 * params=1), the kernels a device without the compiler would run. */
START_TEST(rules_as_parameters)
{
	box b = shapes[_i];
	size_t n = sizeof hood_rules / sizeof *hood_rules;
	knobs.cuda_tune = "params=1";
	compare_run(b, rules[1 + _i % 5], 2, 2, 800 + _i, 0);
	compare_run(b, hood_rules[_i % n], 2, 3, 900 + _i, 0);
	knobs.cuda_tune = NULL;
}
END_TEST

#ifdef HAVE_CUDA
/* The engine says how it applies its rule: compiled in on Hopper and
 * later for every rule but B6/S567 (whose kernel is its own), in every
 * neighbourhood; as parameters when asked.  (A box this size takes the
 * fused kernel: the generic Moore kernel of tiny boxes has no compiled
 * copy.) */
START_TEST(rule_compiled_in)
{
	static const struct { const char *rule, *tune; bool compiled; } runs[] = {
		{"B6/S567", NULL, false},    {"B5/S45", NULL, true},
		{"B0,3/S0..26", NULL, true}, {"3D3/3H", NULL, true},
		{"3D4..8/3C", NULL, true},   {"B5/S45", "params=1", false},
		{"3D2,3/2F", "params=1", false},
	};
	int dev = 0, major = 0;
	ck_assert(cudaGetDevice(&dev) == cudaSuccess);
	ck_assert(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) ==
		  cudaSuccess);
	for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
		rule r;
		grid g;
		parse_rule(runs[k].rule, &r);
		make_random(&g, (box){16, 128, 128}, 0.2, 77 + k);
		if (runs[k].tune)
			knobs.cuda_tune = runs[k].tune;
		engine *e = make_cuda(&g, &r);
		knobs.cuda_tune = NULL;
		const char *d = engine_describe(e);
		bool said = strstr(d, ", rule compiled in") != NULL;
		ck_assert_msg(said == (runs[k].compiled && major >= 9), "%s%s%s: %s",
			      runs[k].rule, runs[k].tune ? " " : "",
			      runs[k].tune ? runs[k].tune : "", d);
		ck_assert_msg(!strstr(d, "rule as parameters"), "%s: %s", runs[k].rule, d);
		engine_destroy(e);
		grid_free(&g);
	}
}
END_TEST
#endif

START_TEST(launch_modes_agree)
{
	static const box mixed[] = {{6, 7, 40}, {12, 9, 256}, {5, 40, 64}};
	knobs.launch = launch_modes[_i];
	for (size_t k = 0; k < sizeof mixed / sizeof *mixed; k++) {
		compare_run(mixed[k], "B6/S567", 4, 3, 400 + k, k == 0);
		compare_run(mixed[k], "B5/S45", 2, 4, 500 + k, 0);
	}
	/* More than one bulk graph of launches, then a remainder. */
	compare_run(mixed[0], "B6/S567", 2, 301, 600, 0);
	knobs.launch = NULL;
}
END_TEST

/* Steps without counts may still run when engine_step returns (each call
 * waits for the one before): whatever comes next sees them all, in every
 * launch mode: the cells, a view, a render, a call with counts. */
START_TEST(steps_left_running)
{
	rule r = rule_default;
	grid g, got;
	ref_universe ref;
	l3d_err err;
	knobs.launch = launch_modes[_i];
	make_random(&g, (box){40, 33, 130}, 0.25, 700 + _i);
	ck_assert(ref_from_grid(&ref, &g) == 0);
	engine *e = make_cuda(&g, &r);
	uint64_t calls[] = {1, 7, 64, 130, 3}, pop = 0, born = 0, died = 0;
	for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
		ck_assert_msg(engine_step(e, calls[k], NULL, &err) == L3D_OK, "%s", err.msg);
		for (uint64_t s = 0; s < calls[k]; s++)
			ref_step(&ref, &r, &pop, &born, &died);
	}
	ck_assert(ref_to_grid(&ref, &g) == 0);
	check_views(e, &g, "steps left running");
	check_render(e, &g, 30, 25, 1, false, "steps left running");
	ck_assert_msg(grid_alloc(&got, g.nx, g.ny, g.nz, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_read(e, &got, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(grid_equal(&g, &got), "cells differ after steps left running");
	ck_assert_msg(engine_step(e, 5, NULL, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_finish(e, &err) == L3D_OK, "%s", err.msg);
	engine_stats st = {0, 0, 0};
	ck_assert_msg(engine_step(e, 2, &st, &err) == L3D_OK, "%s", err.msg);
	for (uint64_t s = 0; s < 7; s++)
		ref_step(&ref, &r, &pop, &born, &died);
	ck_assert_uint_eq(st.population, pop);
	ck_assert_uint_eq(st.births, born);
	ck_assert_uint_eq(st.deaths, died);
	engine_destroy(e);
	knobs.launch = NULL;
	ref_free(&ref);
	grid_free(&g);
	grid_free(&got);
}
END_TEST

/* n steps of the CPU engine c and of e, with the same counts after them. */
static void step_both(engine *c, engine *e, uint64_t n, const char *what)
{
	engine_stats a = {0, 0, 0}, b = {0, 0, 0};
	l3d_err err;
	ck_assert_msg(engine_step(c, n, &a, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_step(e, n, &b, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(a.population == b.population && a.births == b.births &&
		      a.deaths == b.deaths, "%s: counts %llu/%llu/%llu, cpu %llu/%llu/%llu", what,
		      (unsigned long long)b.population, (unsigned long long)b.births,
		      (unsigned long long)b.deaths, (unsigned long long)a.population,
		      (unsigned long long)a.births, (unsigned long long)a.deaths);
}

/* The cells of engines c and e are the same. */
static void same_cells(engine *c, engine *e, const char *what)
{
	grid want, got;
	l3d_err err;
	ck_assert_msg(grid_alloc(&want, c->nx, c->ny, c->nz, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(grid_alloc(&got, c->nx, c->ny, c->nz, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_read(c, &want, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_read(e, &got, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(grid_equal(&want, &got), "%s: cells differ", what);
	grid_free(&want);
	grid_free(&got);
}

/* One engine, many universes (engine_load): 1000 soups of 16^3, two
 * rules, some sparse enough to settle (so the engine has found a repeat
 * when the next is loaded), each loaded into one CUDA engine and one CPU
 * engine and stepped in calls of 1, 2, 37 and 200 steps (dense, then by
 * tiles): the same counts after every call, the same cells at the end;
 * -v's share of tiles stepped is over them all. */
static double share_stepped(const engine *e);

START_TEST(one_engine_many_universes)
{
	static const char *const rules[] = {"B6/S567", "3D4..8/3C"};
	static const uint64_t calls[] = {1, 2, 37, 200};
	rule r;
	parse_rule(rules[_i], &r);
	grid g;
	l3d_err err;
	make_random(&g, (box){16, 16, 16}, 0.25, 3000 + _i);
	engine_opts cpu = {.kind = "cpu", .threads = 2, .device = -1};
	engine *c = NULL, *e = make_cuda(&g, &r);
	ck_assert_msg(engine_create(&cpu, &g, &r, &c, &err) == L3D_OK, "%s", err.msg);
	for (int u = 0; u < 500; u++) {
		double density = u % 4 == 0 ? 0.03 : 0.25;
		grid_random(&g, density, 4000 + 1000 * (uint64_t)_i + (uint64_t)u);
		ck_assert_msg(engine_load(e, &g, &err) == L3D_OK, "%s", err.msg);
		ck_assert_msg(engine_load(c, &g, &err) == L3D_OK, "%s", err.msg);
		for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
			char what[64];
			snprintf(what, sizeof what, "%s soup %d call %zu", rules[_i], u, k);
			step_both(c, e, calls[k], what);
		}
		same_cells(c, e, rules[_i]);
	}
	/* -v's share is over every universe's steps */
	double share = share_stepped(e);
	ck_assert_msg(share > 0 && share <= 100, "%s: %g%% of tiles stepped", rules[_i], share);
	engine_destroy(c);
	engine_destroy(e);
	grid_free(&g);
}
END_TEST

/* A universe that comes to repeat with period 2 is found out by the
 * engine's probes and then stepped any number of times at once: a
 * trillion steps, odd and even, the same cells and counts as the CPU
 * engine's; and a universe that keeps changing, probed mid-call, still
 * steps exactly (the reference, every call's counts). */
START_TEST(settled_universe_leaps)
{
	rule r = rule_default;
	grid g;
	l3d_err err;
	make_random(&g, (box){48, 48, 48}, 0.25, 2);
	engine_opts cpu = {.kind = "cpu", .device = -1};
	engine *c = NULL, *e = NULL;
	ck_assert_msg(engine_create(&cpu, &g, &r, &c, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_step(c, 500, NULL, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_read(c, &g, &err) == L3D_OK, "%s", err.msg);
	e = make_cuda(&g, &r);
	static const uint64_t calls[] = {1000000000000ull, 999999999, 1, 64, 2};
	for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
		char what[32];
		snprintf(what, sizeof what, "call %zu", k);
		step_both(c, e, calls[k], what);
	}
	same_cells(c, e, "after a trillion steps");
	engine_destroy(c);
	engine_destroy(e);
	grid_free(&g);
	/* Probes in the middle of calls, on universes that never settle. */
	compare_run((box){20, 18, 70}, "B5..7/S4..9", 4, 150, 901, 0);
	compare_run((box){9, 40, 64}, "B6/S567", 3, 333, 902, 0);
}
END_TEST

/* Small forced tiles: many blocks in x and y, so the halo rows and planes
 * between blocks and the torus seams inside a block are all exercised. */
START_TEST(small_tiles)
{
	static const char *const tunes[] = {
		"fuse=1,warps=1,chunk=3", "fuse=2,warps=2,chunk=3", "fuse=3,warps=2,chunk=2",
		"fuse=2,words=2,warps=3,chunk=5", "fuse=3,words=4,warps=4,chunk=7",
		"generic=1",
	};
	static const box tiled[] = {{20, 70, 64}, {9, 11, 1000}, {7, 13, 100}, {10, 9, 384}};
	knobs.cuda_tune = tunes[_i];
	for (size_t k = 0; k < sizeof tiled / sizeof *tiled; k++) {
		compare_run(tiled[k], "B6/S567", 3, 4, 700 + k, k == 1);
		compare_run(tiled[k], "B4,5/S5", 1, 5, 800 + k, 0);
	}
	knobs.cuda_tune = NULL;
}
END_TEST

/* Steps by tiles (activity skipping) on every shape, held on however
 * busy the universe: every rule kind and neighbourhood, calls of one step
 * (a graph each) and of several, tiles of several extents in z, counts
 * after every call. */
START_TEST(tiles_every_shape)
{
	box b = shapes[_i];
	size_t nr = sizeof rules / sizeof *rules, nh = sizeof hood_rules / sizeof *hood_rules;
	/* tiles of every extent in z, the default (4 words) most often */
	static const char *const tunes[] = {"tiles=1", "tiles=1,tilez=8", "tiles=1",
					    "tiles=1,tilez=2", "tiles=1,tilez=32"};
	knobs.cuda_tune = tunes[_i % 5];
	compare_run(b, "B6/S567", 12, 1, 1000 + _i, _i % 5 == 0);
	compare_run(b, rules[_i % nr], 4, 9, 1100 + _i, 0);
	compare_run(b, hood_rules[_i % nh], 3, 13, 1200 + _i, 0);
	compare_run(b, hood_rules[(_i + 5) % nh], 2, 50, 1300 + _i, 0);
	knobs.cuda_tune = NULL;
}
END_TEST

#ifdef HAVE_CUDA
/* ---- the tiles of an open box (a rank's slab) against dense steps ----
 * kernels.h's open tiles, driven as mpi/backend_cuda.c drives them, and
 * l3dk_step_open, each on its own pair of buffers of n planes and two
 * halos.  Before every step both get the same halo planes: the same as
 * two generations back, that with a few cells flipped, new random ones,
 * or empty, so that a change anywhere in a halo (tile corners, the last
 * word of a row) must wake the tiles beside it.  The cells of every
 * generation and its counts must agree. */
static void cu_ok(cudaError_t e, const char *what)
{
	ck_assert_msg(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Halo h for a step from the one two steps back (both a 1-plane grid). */
static void next_halo(grid *h, const grid *two_back, int kind, uint64_t *rng)
{
	size_t bytes = grid_bytes(h);
	if (kind == 2) {
		grid_random(h, 0.3, next_random(rng));
		return;
	}
	memcpy(h->bits, two_back->bits, bytes);
	if (kind == 3)
		memset(h->bits, 0, bytes);
	for (int k = kind == 1 ? 1 + (int)(next_random(rng) % 3) : 0; k > 0; k--) {
		uint64_t y = next_random(rng) % h->ny, z = next_random(rng) % h->nz;
		grid_row(h, 0, y)[z / 64] ^= (uint64_t)1 << (z % 64);
	}
}

typedef struct open_path {
	char *buf[2];            /* n + 2 planes each: halo, n own planes, halo */
	l3dk_counts *counts;
} open_path;

static void open_path_make(open_path *o, size_t bytes, const grid *own, size_t plane)
{
	for (int i = 0; i < 2; i++) {
		cu_ok(cudaMalloc((void **)&o->buf[i], bytes), "cudaMalloc");
		cu_ok(cudaMemset(o->buf[i], 0, bytes), "cudaMemset");
	}
	cu_ok(cudaMemcpy(o->buf[0] + plane, own->bits, grid_bytes(own), cudaMemcpyHostToDevice),
	      "upload");
	cu_ok(cudaMalloc((void **)&o->counts, sizeof *o->counts), "cudaMalloc");
}

static void open_path_free(open_path *o)
{
	cudaFree(o->buf[0]);
	cudaFree(o->buf[1]);
	cudaFree(o->counts);
}

static void set_halos(open_path *o, int cur, const grid *lo, const grid *hi, size_t plane,
		      uint64_t n)
{
	cu_ok(cudaMemcpy(o->buf[cur], lo->bits, plane, cudaMemcpyHostToDevice), "halo");
	cu_ok(cudaMemcpy(o->buf[cur] + (n + 1) * plane, hi->bits, plane, cudaMemcpyHostToDevice),
	      "halo");
}

static l3dk_counts read_counts_of(open_path *o)
{
	l3dk_counts c;
	cu_ok(cudaMemcpy(&c, o->counts, sizeof c, cudaMemcpyDeviceToHost), "counts");
	cu_ok(cudaMemset(o->counts, 0, sizeof *o->counts), "counts");
	return c;
}

/* One step of the tile path from buffer cur: dense for the first two,
 * then two of every tile, then by the lists (ring r). */
static void tile_path_step(const l3dk_plan *p, const l3dk_tiles *t, open_path *o, int cur,
			   int step, int *r, size_t plane, uint64_t n)
{
	char *src = o->buf[cur] + plane, *dst = o->buf[cur ^ 1] + plane;
	if (step < 2) {
		cu_ok(l3dk_step_open(p, src, dst, n, NULL, 0, 0), "dense step");
		return;
	}
	if (step == 2)
		cu_ok(l3dk_tiles_reset(t, 0), "reset");
	int all = step < 4;
	if (all)
		cu_ok(l3dk_tiles_all(t, *r, 0, 0), "list every tile");
	cu_ok(l3dk_tiles_halos(p, t, *r, src, cur, !all, 0, 0), "halos");
	cu_ok(l3dk_tiles_step(p, t, *r, src, dst, cur ^ 1, all, 0, 0), "tile step");
	cu_ok(l3dk_tiles_counts(t, cur ^ 1, o->counts, 0, 0), "tile counts");
	*r = *r == 2 ? 0 : *r + 1;
}

static const struct { box b; int tilez; } open_shapes[] = {
	{{13, 9, 70}, 0}, {{8, 5, 33}, 0}, {{1, 4, 65}, 0}, {{17, 40, 200}, 2},
	{{9, 3, 4096}, 0}, {{20, 11, 64}, 32}, {{3, 17, 31}, 8},
};

START_TEST(open_tiles)
{
	const size_t ns = sizeof open_shapes / sizeof *open_shapes;
	static const char *const open_rules[] = {"B6/S567", "3D2..4/2,3H", "B5/S45",
						 "3D3..5/4E", "3D4..8/3C", "3D0..6/1,3F"};
	box b = open_shapes[_i % ns].b;
	const char *rule_text = open_rules[_i % (sizeof open_rules / sizeof *open_rules)];
	rule ru;
	parse_rule(rule_text, &ru);
	l3d_err err;
	grid own, halo[2][3];    /* halos low and high of the last three steps */
	make_random(&own, b, 0.2, 40 + _i);
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < 3; k++)
			make_random(&halo[side][k], (box){1, b.ny, b.nz}, 0.3, 50 + 7 * _i + 3 * side + k);
	cu_ok(cudaSetDevice(0), "cudaSetDevice");
	l3dk_plan p;
	cu_ok(l3dk_plan_make(&p, b.nx + 2, b.ny, b.nz, ru.birth, ru.survive, (rule_hood)ru.hood, NULL),
	      "plan");
	l3dk_tiles t;
	size_t tile_bytes, plane = grid_bytes(&halo[0][0]), bytes = (b.nx + 2) * plane;
	cu_ok(l3dk_tiles_make(&p, b.nx, 1, open_shapes[_i % ns].tilez, &t, &tile_bytes), "tiles");
	void *mem;
	cu_ok(cudaMalloc(&mem, tile_bytes), "cudaMalloc");
	cu_ok(cudaMemset(mem, 0, tile_bytes), "cudaMemset");
	l3dk_tiles_place(&t, mem);
	open_path dense, tiled;
	open_path_make(&dense, bytes, &own, plane);
	open_path_make(&tiled, bytes, &own, plane);
	char *want = malloc(grid_bytes(&own)), *got = malloc(grid_bytes(&own));
	ck_assert(want && got);
	uint64_t rng = 0x9e3779b97f4a7c15ull + _i;
	int cur = 0, r = 0;
	for (int step = 0; step < 40; step++) {
		for (int side = 0; side < 2; side++) {
			grid *h = halo[side];
			grid tmp = h[0];    /* the oldest becomes the newest */
			h[0] = h[1], h[1] = h[2], h[2] = tmp;
			next_halo(&h[2], &h[0], (int)((step * 7 + side * 3 + _i) % 4), &rng);
		}
		set_halos(&dense, cur, &halo[0][2], &halo[1][2], plane, b.nx);
		set_halos(&tiled, cur, &halo[0][2], &halo[1][2], plane, b.nx);
		cu_ok(l3dk_step_open(&p, dense.buf[cur] + plane, dense.buf[cur ^ 1] + plane, b.nx,
				     dense.counts, 0, 0),
		      "dense step");
		tile_path_step(&p, &t, &tiled, cur, step, &r, plane, b.nx);
		cu_ok(cudaDeviceSynchronize(), "stepping");
		cu_ok(cudaMemcpy(want, dense.buf[cur ^ 1] + plane, grid_bytes(&own),
				 cudaMemcpyDeviceToHost), "read");
		cu_ok(cudaMemcpy(got, tiled.buf[cur ^ 1] + plane, grid_bytes(&own),
				 cudaMemcpyDeviceToHost), "read");
		ck_assert_msg(!memcmp(want, got, grid_bytes(&own)), "%llux%llux%llu %s: step %d differs",
			      (unsigned long long)b.nx, (unsigned long long)b.ny,
			      (unsigned long long)b.nz, rule_text, step);
		l3dk_counts cw = read_counts_of(&dense), cg = read_counts_of(&tiled);
		ck_assert_msg(step < 2 || (cw.population == cg.population && cw.births == cg.births &&
					   cw.deaths == cg.deaths),
			      "%s: step %d counts %llu/%llu/%llu, dense %llu/%llu/%llu", rule_text, step,
			      cg.population, cg.births, cg.deaths, cw.population, cw.births, cw.deaths);
		cur ^= 1;
	}
	(void)err;
	free(want), free(got);
	open_path_free(&dense);
	open_path_free(&tiled);
	cudaFree(mem);
	grid_free(&own);
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < 3; k++)
			grid_free(&halo[side][k]);
}
END_TEST
#endif

/* The share of tiles an engine says it stepped ("..., N% of tiles
 * stepped"), or -1. */
static double share_stepped(const engine *e)
{
	double share;
	for (const char *d = strstr(engine_describe(e), ", "); d; d = strstr(d + 2, ", "))
		if (sscanf(d, ", %lf%% of tiles stepped", &share) == 1)
			return share;
	return -1;
}

/* Runs left to choose for themselves, the counts of every call and the
 * cells those of the CPU engine stepping every cell: a settled soup with
 * a patch of fresh cells in it (stepped by tiles, which must then skip
 * most of the work; the universe is 480 tiles, so that the tiles the
 * patch wakes are well under 8% of them) and a fresh soup of a chaotic rule
 * (dense steps; the share reported is all of them). */
START_TEST(tiles_settling_soup)
{
	static const struct {
		const char *rule;
		double density;
		uint64_t settle, steps;
		int busy;
	} runs[] = {
		{"B6/S567", 0.25, 500, 300, 0}, {"3D3/3H", 0.1, 200, 300, 0},
		{"B5..7/S4..9", 0.25, 0, 150, 1},
	};
	for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
		rule r;
		grid g;
		l3d_err err;
		parse_rule(runs[k].rule, &r);
		make_random(&g, (box){128, 120, 256}, runs[k].density, 31 + k);
		engine_knobs dense = {.dense = true};
		engine_opts cpu = {.kind = "cpu", .device = -1, .knobs = &dense};
		engine *c = NULL;
		ck_assert_msg(engine_create(&cpu, &g, &r, &c, &err) == L3D_OK, "%s", err.msg);
		ck_assert_msg(engine_step(c, runs[k].settle, NULL, &err) == L3D_OK, "%s", err.msg);
		ck_assert_msg(engine_read(c, &g, &err) == L3D_OK, "%s", err.msg);
		engine_destroy(c);
		for (uint64_t x = 30; x < 36; x++)      /* a patch astride tiles */
			for (uint64_t y = 5; y < 12; y++)
				for (uint64_t z = 120; z < 140; z++)
					grid_set(&g, x, y, z, (x * 7 + y * 3 + z) % 3 == 0);
		ck_assert_msg(engine_create(&cpu, &g, &r, &c, &err) == L3D_OK, "%s", err.msg);
		engine *e = make_cuda(&g, &r);
		for (uint64_t s = 0; s < runs[k].steps; s++) {
			char what[64];
			snprintf(what, sizeof what, "%s call %llu", runs[k].rule, (unsigned long long)s);
			step_both(c, e, 1 + s % 3, what);
		}
		same_cells(c, e, runs[k].rule);
		double share = share_stepped(e);
		ck_assert_msg(runs[k].busy ? share > 95 : share >= 0 && share < 30, "%s: %s",
			      runs[k].rule, engine_describe(e));
		engine_destroy(c);
		engine_destroy(e);
		grid_free(&g);
	}
}
END_TEST

START_TEST(larger_universe)
{
	compare_run((box){96, 80, 192}, "B6/S567", 2, 2, 900, 1);
}
END_TEST

/* Sparse universes, drawn on the device from their live cells instead of
 * ray by ray (render.cu): the same bytes as render_rows(), in every shape,
 * at densities from empty to the point where the walks take over. */
START_TEST(sparse_renders)
{
	static const double densities[] = {0, 0.0005, 0.004, 0.02, 0.08};
	rule r = rule_default;
	box b = shapes[_i];
	for (size_t d = 0; d < sizeof densities / sizeof *densities; d++) {
		char what[96];
		snprintf(what, sizeof what, "%llux%llux%llu density %g",
			 (unsigned long long)b.nx, (unsigned long long)b.ny,
			 (unsigned long long)b.nz, densities[d]);
		grid g;
		make_random(&g, b, densities[d], 40 + d + 10 * _i);
		engine *e = make_cuda(&g, &r);
		check_renders(e, &g, what);
		engine_destroy(e);
		grid_free(&g);
	}
}
END_TEST

/* The same view drawn again and again as a soup thins out, the first
 * time after engine_render_prepare: the scratch
 * keeps the view's per-pixel data between pictures, and the keys a
 * picture drawn cell by cell used must be pending again for the next,
 * also after pictures walked ray by ray and after one of another view.
 * Both ways must have been taken, or the test proves nothing. */
START_TEST(renders_follow_the_universe)
{
	rule r = rule_default;
	grid g;
	make_random(&g, (box){60, 71, 90}, 0.3, 90);
	engine *e = make_cuda(&g, &r);
	render_view v;
	render_setup(&v, g.nx, g.ny, g.nz, 30, 25, 2);
	uint64_t most = render_max_live(&v), two = 2 * (uint64_t)v.width * v.height;
	most = most < two ? most : two;
	bool walked = false, by_cells = false;
	l3d_err err;
	ck_assert_msg(engine_render_prepare(e, &v, &err) == L3D_OK, "%s", err.msg);
	for (int round = 0; round < 14; round++) {
		char what[64];
		snprintf(what, sizeof what, "round %d", round);
		ck_assert_msg(engine_read(e, &g, &err) == L3D_OK, "%s", err.msg);
		uint64_t live = grid_population(&g);
		walked |= live > most;
		by_cells |= live <= most;
		check_render(e, &g, 30, 25, 2, false, what);
		check_render(e, &g, 30, 25, 2, false, what);
		if (round % 3 == 2)
			check_render(e, &g, 120, 10, 1, false, what);
		ck_assert_msg(engine_step(e, round < 4 ? 1 : 8, NULL, &err) == L3D_OK, "%s",
			      err.msg);
	}
	ck_assert_msg(walked && by_cells, "walked %d, cell by cell %d", walked, by_cells);
	engine_destroy(e);
	grid_free(&g);
}
END_TEST

/* A larger sparse universe, its cells far apart along long walks. */
START_TEST(sparse_render_larger)
{
	rule r = rule_default;
	grid g;
	make_random(&g, (box){150, 131, 200}, 0.0003, 77);
	engine *e = make_cuda(&g, &r);
	check_renders(e, &g, "150x131x200 density 0.0003");
	engine_destroy(e);
	grid_free(&g);
}
END_TEST

START_TEST(zero_steps_count_population)
{
	rule r = rule_default;
	grid g;
	l3d_err err;
	make_random(&g, (box){5, 6, 70}, 0.3, 5);
	engine *e = make_cuda(&g, &r);
	engine_stats st = {1, 1, 1};
	ck_assert_msg(engine_step(e, 0, &st, &err) == L3D_OK, "%s", err.msg);
	ck_assert_uint_eq(st.population, grid_population(&g));
	ck_assert_uint_eq(st.births, 0);
	ck_assert_uint_eq(st.deaths, 0);
	ck_assert_msg(!strncmp(engine_describe(e), "cuda/", 5), "%s", engine_describe(e));
	engine_destroy(e);
	grid_free(&g);
}
END_TEST

/* After engine_let_go the universe reads back from host memory: the
 * CPU engine's cells, whole and a run of rows at a time; the description
 * is what it was, a step is refused, and letting go twice is harmless.
 * The device's context is reset: the suite runs this last. */
START_TEST(let_go_keeps_the_universe)
{
	rule r = rule_default;
	grid g;
	l3d_err err;
	make_random(&g, (box){67, 45, 200}, 0.25, 31);
	engine *e = make_cuda(&g, &r);
	engine_opts co = {.kind = "cpu", .threads = 2, .device = -1};
	engine *c = NULL;
	ck_assert_msg(engine_create(&co, &g, &r, &c, &err) == L3D_OK, "%s", err.msg);
	step_both(c, e, 37, "before letting go");
	char desc[320];
	snprintf(desc, sizeof desc, "%s", engine_describe(e));
	ck_assert_ptr_null(engine_host_grid(e));
	ck_assert_msg(engine_let_go(e, &err) == L3D_OK, "%s", err.msg);
	ck_assert_ptr_nonnull(engine_host_grid(e));
	same_cells(c, e, "let go");
	uint64_t rows[2 * 4];
	ck_assert_msg(engine_read_rows(e, 1000, 2, rows, &err) == L3D_OK, "%s", err.msg);
	ck_assert(memcmp(rows, engine_host_grid(c)->bits + 1000 * 4, sizeof rows) == 0);
	ck_assert_str_eq(engine_describe(e), desc);
	ck_assert_int_eq(engine_step(e, 1, NULL, &err), L3D_ERR_RUNTIME);
	ck_assert_msg(strstr(err.msg, "let go"), "%s", err.msg);
	ck_assert_msg(engine_let_go(e, &err) == L3D_OK, "%s", err.msg);
	engine_destroy(e);
	engine_destroy(c);
	grid_free(&g);
}
END_TEST

START_TEST(bad_device_and_too_large)
{
	rule r = rule_default;
	grid g;
	l3d_err err;
	engine *e = NULL;
	make_random(&g, (box){4, 4, 4}, 0.3, 6);
	engine_opts opts = {.kind = "cuda", .device = 4096};
	ck_assert_int_eq(engine_create(&opts, &g, &r, &e, &err), L3D_ERR_USAGE);
	ck_assert_ptr_null(e);
	ck_assert_msg(strstr(err.msg, "no device 4096"), "%s", err.msg);
	grid_free(&g);

	/* 16384^3 cells need 1 TiB on the device: refused before anything
	 * reads the (absent) cells. */
	grid huge = {.nx = 16384, .ny = 16384, .nz = 16384, .words = 256, .bits = NULL};
	opts.device = -1;
	ck_assert_int_eq(engine_create(&opts, &huge, &r, &e, &err), L3D_ERR_UNAVAILABLE);
	ck_assert_msg(strstr(err.msg, "needs") && strstr(err.msg, "GiB free"), "%s", err.msg);
}
END_TEST

START_TEST(describe_devices)
{
	char buf[1024];
	int n = cuda_describe_devices(buf, sizeof buf);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(!strncmp(buf, "0: ", 3) && strstr(buf, "(cc "), "%s", buf);
}
END_TEST

/* A filler that announces rows in uneven steps, then fails or finishes. */
typedef struct filler {
	row_progress *p;
	uint64_t upto, step;
	bool fail;
} filler;

static void *fill(void *arg)
{
	filler *f = arg;
	for (uint64_t n = 0; n < f->upto;) {
		n = n + f->step < f->upto ? n + f->step : f->upto;
		row_progress_publish(f->p, n);
	}
	if (f->fail)
		row_progress_fail(f->p);
	return NULL;
}

/* Over 16 MiB of universe: the upload and the read-back each take both
 * staging buffers several times.  Rows come in steps of 1237 (a batch is
 * 4 MiB, 16384 rows here), and are read back in runs that cross the
 * staging buffers' bounds. */
START_TEST(streamed_upload_and_rows)
{
	rule r = rule_default;
	grid g, got;
	l3d_err err;
	make_random(&g, (box){40, 1000, 4100}, 0.3, 11);
	uint64_t rows = g.nx * g.ny;
	row_progress p;
	row_progress_init(&p, rows);
	filler f = {&p, rows, 1237, false};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, fill, &f), 0);
	engine_opts opts = {.kind = "cuda", .device = -1};
	engine *e = NULL;
	int rc = engine_create_streamed(&opts, &g, &p, &r, &e, &err);
	pthread_join(th, NULL);
	row_progress_destroy(&p);
	ck_assert_msg(rc == L3D_OK, "%s", err.msg);
	ck_assert_msg(grid_alloc(&got, g.nx, g.ny, g.nz, &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(engine_read(e, &got, &err) == L3D_OK, "%s", err.msg);
	ck_assert(grid_equal(&g, &got));
	static const uint64_t runs[] = {1, 7, 3000, 20000, 40000};
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		memset(got.bits, 0xff, grid_bytes(&got));
		for (uint64_t first = 0; first < rows; first += runs[i]) {
			uint64_t n = rows - first < runs[i] ? rows - first : runs[i];
			ck_assert_msg(engine_read_rows(e, first, n, got.bits + first * got.words,
						       &err) == L3D_OK, "%s", err.msg);
		}
		ck_assert_msg(grid_equal(&g, &got), "read back in runs of %llu rows",
			      (unsigned long long)runs[i]);
	}
	engine_destroy(e);

	/* A filler that fails half way: no engine, and nothing left behind. */
	row_progress_init(&p, rows);
	f = (filler){&p, rows / 2, 999, true};
	ck_assert_int_eq(pthread_create(&th, NULL, fill, &f), 0);
	e = NULL;
	rc = engine_create_streamed(&opts, &g, &p, &r, &e, &err);
	pthread_join(th, NULL);
	row_progress_destroy(&p);
	ck_assert_int_eq(rc, L3D_ERR_RUNTIME);
	ck_assert_ptr_null(e);
	ck_assert_msg(strstr(err.msg, "engine 'cuda': the universe's rows stopped coming"),
		      "%s", err.msg);
	grid_free(&got);
	grid_free(&g);
}
END_TEST

/* Without a GPU: the engine must refuse cleanly and `auto` must fall back. */
static int check_unavailable(void)
{
	rule r = rule_default;
	grid g;
	l3d_err err;
	engine *e = NULL;
	char buf[512];
	int bad = 0;
	if (grid_alloc(&g, 3, 3, 3, &err))
		return 1;
	engine_opts opts = {.kind = "cuda", .device = -1};
	int rc = engine_create(&opts, &g, &r, &e, &err);
	if (rc != L3D_ERR_UNAVAILABLE || e || strncmp(err.msg, "engine 'cuda'", 13)) {
		fprintf(stderr, "--engine cuda without a GPU: rc %d, '%s'\n", rc, err.msg);
		bad = 1;
	}
	cuda_describe_devices(buf, sizeof buf);
	if (strncmp(buf, "none (", 6)) {
		fprintf(stderr, "device list without a GPU: '%s'\n", buf);
		bad = 1;
	}
	opts.kind = "auto";
	rc = engine_create(&opts, &g, &r, &e, &err);
	if (rc != L3D_OK || !strncmp(engine_describe(e), "cuda", 4)) {
		fprintf(stderr, "--engine auto without a GPU: rc %d\n", rc);
		bad = 1;
	}
	engine_destroy(e);
	grid_free(&g);
	return bad;
}

static TCase *test_case(Suite *s, const char *name)
{
	TCase *t = tcase_create(name);
	tcase_set_timeout(t, 900);
	suite_add_tcase(s, t);
	return t;
}

#ifdef HAVE_CUDA
/* A graph cache's runs: each writes one byte of a device buffer (where
 * key[0] says, the value key[1] says) and counts its captures. */
typedef struct graph_probe {
	unsigned char *d;
	int captures;
} graph_probe;

static cudaError_t probe_issue(void *ctx, const uint64_t key[GRAPH_KEY], cudaStream_t s)
{
	graph_probe *p = ctx;
	p->captures++;
	return cudaMemsetAsync(p->d + key[0], (int)key[1], 1, s);
}

static void probe_launch(graph_cache *g, graph_probe *p, uint64_t at, uint64_t value,
			 cudaStream_t s)
{
	const uint64_t key[GRAPH_KEY] = {at, value, 0, 0};
	ck_assert_int_eq(graph_cache_launch(g, key, probe_issue, p, s), cudaSuccess);
}

/* Captured once a key and replayed; the least recently used run evicted,
 * never one used since; every replay does its run's work. */
START_TEST(graph_cache_keys_and_eviction)
{
	enum { N = GRAPH_SLOTS + 4 };
	graph_cache g = {0};
	graph_probe p = {NULL, 0};
	cudaStream_t s;
	unsigned char host[N];
	ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
	ck_assert_int_eq(cudaMalloc((void **)&p.d, N), cudaSuccess);
	ck_assert_int_eq(cudaMemsetAsync(p.d, 0, N, s), cudaSuccess);
	for (uint64_t i = 0; i < GRAPH_SLOTS; i++)
		probe_launch(&g, &p, i, i + 1, s);
	ck_assert_int_eq(p.captures, GRAPH_SLOTS);
	probe_launch(&g, &p, 0, 1, s);             /* a hit: 0 is now the newest */
	ck_assert_int_eq(p.captures, GRAPH_SLOTS);
	probe_launch(&g, &p, GRAPH_SLOTS, 99, s);  /* a miss: evicts 1, the oldest */
	ck_assert_int_eq(p.captures, GRAPH_SLOTS + 1);
	for (uint64_t i = 2; i < GRAPH_SLOTS; i++) /* every other run still kept */
		probe_launch(&g, &p, i, i + 1, s);
	probe_launch(&g, &p, 0, 1, s);
	ck_assert_int_eq(p.captures, GRAPH_SLOTS + 1);
	/* Replays do their runs' work. */
	ck_assert_int_eq(cudaMemsetAsync(p.d, 0, N, s), cudaSuccess);
	for (uint64_t i = 0; i <= GRAPH_SLOTS; i++)
		if (i != 1)
			probe_launch(&g, &p, i, i == GRAPH_SLOTS ? 99 : i + 1, s);
	ck_assert_int_eq(p.captures, GRAPH_SLOTS + 1);
	ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
	ck_assert_int_eq(cudaMemcpy(host, p.d, N, cudaMemcpyDeviceToHost), cudaSuccess);
	for (int i = 0; i < N; i++)
		ck_assert_int_eq(host[i], i == 1 || i > GRAPH_SLOTS ? 0 : i == GRAPH_SLOTS ? 99 : i + 1);
	probe_launch(&g, &p, 1, 2, s);             /* the evicted run, captured again */
	ck_assert_int_eq(p.captures, GRAPH_SLOTS + 2);
	graph_cache_clear(&g);
	for (int i = 0; i < GRAPH_SLOTS; i++)
		ck_assert_ptr_null(g.slot[i].exec);
	probe_launch(&g, &p, 0, 7, s);             /* usable again, captured anew */
	ck_assert_int_eq(p.captures, GRAPH_SLOTS + 3);
	ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
	graph_cache_clear(&g);
	cudaFree(p.d);
	cudaStreamDestroy(s);
}
END_TEST
#endif

/* BusyBoxes (both forms) on the GPU against the CPU's busyboxes_step,
 * generation by generation from every phase: even shapes with rows of
 * one word, several, and a padded last one; the counts, and a universe
 * loaded anew. */
static const box bb_shapes[] = {
	{2, 2, 2}, {4, 6, 8}, {6, 4, 66}, {10, 12, 130}, {8, 8, 64}, {16, 18, 200}, {2, 4, 4096},
};

START_TEST(busyboxes_agree)
{
	box b = bb_shapes[_i % (sizeof bb_shapes / sizeof *bb_shapes)];
	for (int form = 0; form < 2; form++) {
		rule r;
		parse_rule(form ? "BusyBoxesW" : "BusyBoxes", &r);
		grid g, want, got;
		l3d_err err;
		make_random(&g, b, 0.05 + 0.1 * (_i % 3), 900 + (uint64_t)_i);
		g.generation = (uint64_t)_i % 6;
		ck_assert_int_eq(grid_alloc(&want, b.nx, b.ny, b.nz, &err), L3D_OK);
		ck_assert_int_eq(grid_alloc(&got, b.nx, b.ny, b.nz, &err), L3D_OK);
		engine *e = make_cuda(&g, &r);
		ck_assert_msg(strstr(engine_describe(e), "busyboxes") != NULL, "%s",
			      engine_describe(e));
		engine_stats st;
		ck_assert_int_eq(engine_step(e, 0, &st, &err), L3D_OK);
		ck_assert_uint_eq(st.population, grid_population(&g));
		for (int gen = 0; gen < 14; gen++) {
			uint64_t moved = busyboxes_step(&g, g.generation, form == 0, &want);
			want.generation = g.generation + 1;
			ck_assert_msg(engine_step(e, 1, &st, &err) == L3D_OK, "%s", err.msg);
			ck_assert_int_eq(engine_read(e, &got, &err), L3D_OK);
			ck_assert_msg(grid_equal(&got, &want), "%llux%llux%llu %s generation %llu",
				      (unsigned long long)b.nx, (unsigned long long)b.ny,
				      (unsigned long long)b.nz, form ? "BBW" : "BB",
				      (unsigned long long)g.generation);
			ck_assert_uint_eq(st.population, grid_population(&want));
			ck_assert_uint_eq(st.births, moved);
			grid t = g;
			g = want;
			want = t;
		}
		/* loaded anew at generation 3: steps as the CPU's from phase 3 */
		g.generation = 3;
		ck_assert_int_eq(engine_load(e, &g, &err), L3D_OK);
		busyboxes_step(&g, 3, form == 0, &want);
		ck_assert_int_eq(engine_step(e, 1, &st, &err), L3D_OK);
		ck_assert_int_eq(engine_read(e, &got, &err), L3D_OK);
		ck_assert(grid_equal(&got, &want));
		engine_destroy(e);
		grid_free(&g);
		grid_free(&want);
		grid_free(&got);
	}
}
END_TEST

/* Cases by name, so CK_RUN_CASE can pick one (e.g. under a sanitizer). */
static Suite *cuda_suite(void)
{
	Suite *s = suite_create("cuda");
	size_t n = sizeof shapes / sizeof *shapes;
	tcase_add_loop_test(test_case(s, "shapes"), every_shape_default_rule, 0, n);
	tcase_add_loop_test(test_case(s, "rules"), every_shape_other_rules, 0, n);
	tcase_add_loop_test(test_case(s, "neighbourhoods"), every_shape_every_neighbourhood, 0, n);
	tcase_add_loop_test(test_case(s, "rules as parameters"), rules_as_parameters, 0, n);
	tcase_add_loop_test(test_case(s, "modes"), launch_modes_agree, 0, 3);
	tcase_add_loop_test(test_case(s, "running"), steps_left_running, 0, 3);
	tcase_add_loop_test(test_case(s, "tiles"), small_tiles, 0, 6);
	tcase_add_loop_test(test_case(s, "sparse renders"), sparse_renders, 0, n);
	tcase_add_loop_test(test_case(s, "skipping"), tiles_every_shape, 0, n);
	tcase_add_loop_test(test_case(s, "busyboxes"), busyboxes_agree, 0, 14);
#ifdef HAVE_CUDA
	tcase_add_loop_test(test_case(s, "open tiles"), open_tiles, 0, 14);
	tcase_add_test(test_case(s, "graph cache"), graph_cache_keys_and_eviction);
#endif
	TCase *t = test_case(s, "misc");
	tcase_add_test(t, larger_universe);
	tcase_add_test(t, sparse_render_larger);
	tcase_add_test(t, renders_follow_the_universe);
	tcase_add_test(t, settled_universe_leaps);
	tcase_add_loop_test(t, one_engine_many_universes, 0, 2);
	tcase_add_test(t, tiles_settling_soup);
	tcase_add_test(t, zero_steps_count_population);
	tcase_add_test(t, bad_device_and_too_large);
	tcase_add_test(t, describe_devices);
#ifdef HAVE_CUDA
	tcase_add_test(t, rule_compiled_in);
#endif
	tcase_add_test(t, streamed_upload_and_rows);
	tcase_add_test(test_case(s, "let go"), let_go_keeps_the_universe);
	return s;
}

int main(void)
{
	if (cuda_device_count() == 0)
		return check_unavailable() ? 1 : 77;
	/* CUDA state does not survive fork(): run the tests in this process. */
	return run_suite(cuda_suite(), false) ? 1 : 0;
}
