/* bench_engine.c - cell updates per second of an engine for one box.
 *
 *   bench_engine [--engine cpu|cuda] [--simd PATH] [--threads N] [--rule RULE]
 *                [--steps N] [--reps N] [--density D] [--ref]
 *                [--universes N] M|XxYxZ
 *
 * Fills the box at random, warms the engine up with one call, then times
 * --reps calls of --steps steps each and reports the median, twice: with
 * the log off (one call for all the steps) and with a log line every
 * step (one call per step, each asking for population, births and
 * deaths).  The peak resident memory is taken before --ref, which then
 * times the tests' reference stepper (one step) on the same universe for
 * the speed-up.  Prints one line of key=value pairs for scripts/bench.
 *
 * With --universes N, a census's shape instead: N different soups of the
 * box (seeds 1..N), each loaded into one engine (engine_load) and stepped
 * --steps steps (default 100) with the counts of the last, timed --reps
 * times; against the same with a new engine for each soup.  Prints
 * universes=N per_universe_us=MEDIAN fresh_us=MEDIAN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/clock.h"
#include "engine/choose.h"
#include "reference.h"

#define SEED 1

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct bench_opts {
	const char *simd, *rule, *engine;
	int threads, reps, ref;
	uint64_t universes;
	uint64_t nx, ny, nz, steps;
	double density;
} bench_opts;

static int usage(void)
{
	fprintf(stderr, "usage: bench_engine [--engine cpu|cuda] [--simd PATH] [--threads N] [--rule RULE] "
			"[--steps N] [--reps N] [--density D] [--ref] [--universes N] M|XxYxZ\n");
	return 64;
}

/* M for a cube, or XxYxZ */
static void parse_box(const char *text, bench_opts *o)
{
	char *end;
	o->nx = o->ny = o->nz = strtoull(text, &end, 10);
	if (*end == 'x') {
		o->ny = strtoull(end + 1, &end, 10);
		o->nz = *end == 'x' ? strtoull(end + 1, &end, 10) : 0;
	}
	if (*end)
		o->nx = 0;
}

static int parse_args(int argc, char **argv, bench_opts *o)
{
	*o = (bench_opts){NULL, "B6/S567", "cpu", 0, 5, 0, 0, 0, 0, 0, 0, 0.25};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--ref"))
			o->ref = 1;
		else if (v && !strcmp(a, "--simd"))
			o->simd = argv[++i];
		else if (v && !strcmp(a, "--engine"))
			o->engine = argv[++i];
		else if (v && !strcmp(a, "--rule"))
			o->rule = argv[++i];
		else if (v && !strcmp(a, "--threads"))
			o->threads = atoi(argv[++i]);
		else if (v && !strcmp(a, "--steps"))
			o->steps = strtoull(argv[++i], NULL, 10);
		else if (v && !strcmp(a, "--reps"))
			o->reps = atoi(argv[++i]);
		else if (v && !strcmp(a, "--universes"))
			o->universes = strtoull(argv[++i], NULL, 10);
		else if (v && !strcmp(a, "--density"))
			o->density = atof(argv[++i]);
		else if (a[0] != '-' && !o->nx)
			parse_box(a, o);
		else
			return usage();
	}
	if (!o->nx || !o->ny || !o->nz || o->reps < 1)
		return usage();
	if (!o->steps && o->universes)
		o->steps = 100;
	if (!o->steps) /* about 2^31 cell updates per timed call */
		o->steps = ((uint64_t)1 << 31) / (o->nx * o->ny * o->nz) + 1;
	return 0;
}

/* `steps` steps in one call, or with `log` one call per step asking for
 * the counts, as a log line every step does. */
static double timed_call(engine *e, uint64_t steps, int log)
{
	engine_stats st;
	double t = l3d_seconds();
	if (log)
		for (uint64_t i = 0; i < steps; i++)
			engine_step(e, 1, &st, NULL);
	else
		engine_step(e, steps, NULL, NULL);
	return l3d_seconds() - t;
}

/* Median and best cell updates per second over o->reps calls. */
static void measure(engine *e, const bench_opts *o, int log, double *median,
		    double *best)
{
	double *t = calloc((size_t)o->reps, sizeof *t);
	timed_call(e, o->steps, log);
	for (int i = 0; i < o->reps; i++)
		t[i] = timed_call(e, o->steps, log);
	qsort(t, (size_t)o->reps, sizeof *t, cmp_double);
	double med = o->reps % 2 ? t[o->reps / 2] : 0.5 * (t[o->reps / 2 - 1] + t[o->reps / 2]);
	double updates = (double)(o->nx * o->ny * o->nz) * (double)o->steps;
	*median = updates / med;
	*best = updates / t[0];
	free(t);
}

static double reference_cups(const bench_opts *o, const rule *r)
{
	grid g;
	ref_universe u;
	if (grid_alloc(&g, o->nx, o->ny, o->nz, NULL))
		return 0;
	grid_random(&g, o->density, SEED);
	int bad = ref_from_grid(&u, &g);
	grid_free(&g);
	if (bad)
		return 0;
	uint64_t pop, born, died;
	double t = l3d_seconds();
	ref_step(&u, r, &pop, &born, &died);
	t = l3d_seconds() - t;
	ref_free(&u);
	return (double)(o->nx * o->ny * o->nz) / t;
}

/* An engine for g as life3d makes it, with the environment's knobs
 * (LIFE3D_SKIP and the others: life3d(1)). */
static int create_from(const bench_opts *o, const rule *r, const grid *g, engine **e)
{
	l3d_err err = {0, ""};
	static engine_knobs knobs;
	static int knobs_rc = -1;     /* read once: not part of what is timed */
	if (knobs_rc < 0)
		knobs_rc = engine_knobs_read(&knobs, getenv, &err);
	int rc = knobs_rc;
	engine_opts eo = {.kind = o->engine, .threads = o->threads, .device = -1,
			  .simd = o->simd, .knobs = &knobs};
	rc = rc ? rc : engine_create(&eo, g, r, e, &err);
	if (rc)
		fprintf(stderr, "bench_engine: %s\n", err.msg);
	return rc;
}

/* ... for the box filled at random (SEED). */
static int create(const bench_opts *o, const rule *r, engine **e)
{
	grid g;
	l3d_err err = {0, ""};
	int rc = grid_alloc(&g, o->nx, o->ny, o->nz, &err);
	if (rc) {
		fprintf(stderr, "bench_engine: %s\n", err.msg);
		return rc;
	}
	grid_random(&g, o->density, SEED);
	rc = create_from(o, r, &g, e);
	grid_free(&g);
	return rc;
}

/* The median of t[0..n), sorted in place. */
static double median_of(double *t, int n)
{
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Seconds for o->universes soups through e (loaded in turn; e NULL: a new
 * engine for each). */
static double universes_call(engine *e, const bench_opts *o, const rule *r, grid *g)
{
	double t = l3d_seconds();
	for (uint64_t i = 0; i < o->universes; i++) {
		grid_random(g, o->density, SEED + i);
		engine *one = e;
		engine_stats st;
		l3d_err err = {0, ""};
		int rc = one ? engine_load(one, g, &err) : create_from(o, r, g, &one);
		if (!rc)
			rc = engine_step(one, o->steps, &st, &err);
		if (rc)
			fprintf(stderr, "bench_engine: %s\n", err.msg);
		if (!e && one)
			engine_destroy(one);
	}
	return l3d_seconds() - t;
}

static int measure_universes(const bench_opts *o, const rule *r)
{
	grid g;
	engine *e;
	if (grid_alloc(&g, o->nx, o->ny, o->nz, NULL) || create(o, r, &e))
		return 1;
	double *kept = calloc((size_t)o->reps, sizeof *kept);
	double *fresh = calloc((size_t)o->reps, sizeof *fresh);
	universes_call(e, o, r, &g);
	for (int i = 0; i < o->reps; i++) {
		kept[i] = universes_call(e, o, r, &g);
		fresh[i] = universes_call(NULL, o, r, &g);
	}
	double n = (double)o->universes;
	printf("box=%llux%llux%llu engine=\"%s\" steps=%llu reps=%d universes=%llu "
	       "per_universe_us=%.4g fresh_us=%.4g\n",
	       (unsigned long long)o->nx, (unsigned long long)o->ny, (unsigned long long)o->nz,
	       engine_describe(e), (unsigned long long)o->steps, o->reps,
	       (unsigned long long)o->universes, 1e6 * median_of(kept, o->reps) / n,
	       1e6 * median_of(fresh, o->reps) / n);
	engine_destroy(e);
	grid_free(&g);
	free(kept);
	free(fresh);
	return 0;
}

int main(int argc, char **argv)
{
	bench_opts o;
	if (parse_args(argc, argv, &o))
		return 64;
	l3d_err err = {0, ""};
	rule r;
	if (rule_parse(o.rule, &r, &err)) {
		fprintf(stderr, "bench_engine: %s\n", err.msg);
		return 64;
	}
	if (o.universes)
		return measure_universes(&o, &r);
	engine *e;
	int rc = create(&o, &r, &e);
	if (rc)
		return rc;
	double cups, best, cups_log, best_log;
	measure(e, &o, 0, &cups, &best);
	measure(e, &o, 1, &cups_log, &best_log);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("box=%llux%llux%llu engine=\"%s\" steps=%llu reps=%d cups=%.4g best_cups=%.4g "
	       "cups_log=%.4g best_cups_log=%.4g max_rss_kib=%ld",
	       (unsigned long long)o.nx, (unsigned long long)o.ny, (unsigned long long)o.nz,
	       engine_describe(e), (unsigned long long)o.steps, o.reps, cups, best,
	       cups_log, best_log, ru.ru_maxrss);
	engine_destroy(e);
	if (o.ref) {
		double ref = reference_cups(&o, &r);
		printf(" ref_cups=%.4g speedup=%.4g", ref, ref > 0 ? cups / ref : 0);
	}
	printf("\n");
	return 0;
}
