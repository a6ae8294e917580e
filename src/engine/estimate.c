/* estimate.c - see estimate.h. */
#include "estimate.h"

#include <math.h>
#include <stdio.h>

#include "base/clock.h"
#include "cpu/cpu.h"
#include "cpu/stepper.h"

#define SAMPLE_EDGE 64
#define SAMPLE_STEPS 1024
/* Steps of the sample between looks at its tiles, and its last steps,
 * whose share stands for the steps after them. */
#define SAMPLE_CHUNK 32
#define SAMPLE_TAIL 256
/* What a step costs when it steps a share f of the tiles: about
 * TILE_COST times f of a step of every tile (a tile among skipped ones
 * costs more than its share: its neighbours' planes and rows,
 * bookkeeping, threads woken for little work), never more than a dense
 * step.  Within the sample's steps, never less than LATE_FLOOR either: a
 * large soup settles later than a small sample of it.  Beyond them that
 * floor fades as (SAMPLE_STEPS / t)^3, since the large soup's last active
 * corners settle too (a 512^3 soup of density 0.25 repeats with period 2
 * by generation 4096).  Fitted to soups of 384^3 to 1024^3 on the H200
 * machine's 16 cores (src/engine/NOTES.md, "auto's rates: the rule and
 * the rows").  What a few tiles cost is mostly their bookkeeping, so it
 * is priced at the rate of rows of whole vectors; a dense step, at the
 * rate the run's rows get (cpu_stepper_rate). */
#define TILE_COST 4.0
#define LATE_FLOOR 0.2

/* The skipping engine steps every tile of the first two generations
 * before it can tell what changed (skip.h). */
#define SEEDED_STEPS 2

/* A dense step of the run, and a step of every tile priced as rows of
 * whole vectors, in seconds. */
typedef struct step_prices {
	double dense, tiles;
} step_prices;

static step_prices prices_of(const engine_opts *opts)
{
	engine_opts whole = *opts;
	whole.nz = 0;
	double steps = opts->steps >= 1 ? opts->steps : 1;
	double rate = cpu_stepper_rate(&whole);
	return (step_prices){estimate_dense_seconds(opts) / steps,
			     rate > 0 ? opts->work / rate / steps : INFINITY};
}

/* Seconds a step of the run takes when it steps a share f of its tiles;
 * floor: the least share a step is counted as (LATE_FLOOR in the sample's
 * steps, 0 beyond them). */
static double step_seconds(step_prices p, double f, double floor)
{
	double of_all = fmax(floor, TILE_COST * f);
	return of_all > 0 ? fmin(p.dense, p.tiles * of_all) : 0;
}

double estimate_dense_seconds(const engine_opts *opts)
{
	double rate = cpu_stepper_rate(opts);
	return rate > 0 ? opts->work / rate : INFINITY;
}

/* What the floor adds for the run's steps beyond a sample of `done`, in
 * seconds at the tiles' price: the integral of LATE_FLOOR (done / t)^3
 * from done to steps. */
static double floor_beyond(step_prices p, double done, double steps)
{
	if (steps <= done)
		return 0;
	return p.tiles * LATE_FLOOR * done / 2 * (1 - done * done / (steps * steps));
}

double estimate_least_seconds(const engine_opts *opts)
{
	double steps = opts->steps;
	if (steps < 1)
		return 0;
	step_prices p = prices_of(opts);
	double sampled = fmin(steps, SAMPLE_STEPS);
	double seeded = fmin(sampled, SEEDED_STEPS);
	return p.dense * seeded + step_seconds(p, 0, LATE_FLOOR) * (sampled - seeded) +
	       floor_beyond(p, sampled, steps);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The cube of `s` (at most SAMPLE_EDGE a side, so rows of one word) at
 * the origin of g, from the first word of each row. */
static void cut_sample(const grid *g, grid *s)
{
	uint64_t mask = grid_tail_mask(s);
	for (uint64_t x = 0; x < s->nx; x++)
		for (uint64_t y = 0; y < s->ny; y++)
			grid_row(s, x, y)[0] = grid_row(g, x, y)[0] & mask;
}

static int make_sample(const engine_opts *opts, const grid *initial,
		       row_progress *ready, const rule *r, engine **out)
{
	grid s;
	l3d_err err;
	uint64_t rows;
	if (grid_alloc(&s, min_u64(initial->nx, SAMPLE_EDGE),
		       min_u64(initial->ny, SAMPLE_EDGE),
		       min_u64(initial->nz, SAMPLE_EDGE), &err))
		return -1;
	/* The corner straight from the file where it can be read so; else
	 * the first planes, once they are in. */
	if (!ready || row_progress_corner(ready, &s) != 0) {
		if (ready && row_progress_wait(ready, s.nx * initial->ny, &rows)) {
			grid_free(&s);
			return -1;
		}
		cut_sample(initial, &s);
	}
	engine_opts one = {"cpu", 1, -1, opts->simd, 0, 0, NULL, 0, 0, opts->knobs, 0};
	int rc = engine_cpu_create(&one, &s, NULL, r, out, &err);
	grid_free(&s);
	return rc ? -1 : 0;
}

#define SAMPLE_CHUNKS ((SAMPLE_STEPS + SAMPLE_CHUNK - 1) / SAMPLE_CHUNK)

/* A sample being stepped: tiles stepped and steps made, in all and at
 * the end of each chunk; est, the run's seconds for the steps so far. */
typedef struct sample_run {
	engine *e;
	uint64_t done;
	double stepped, tiles, est;
	int chunks;
	uint64_t done_at[SAMPLE_CHUNKS + 1];
	double stepped_at[SAMPLE_CHUNKS + 1];
} sample_run;

/* The share of tiles the sample stepped between two of its counts. */
static double share(const sample_run *s, double stepped0, uint64_t done0)
{
	return s->tiles > 0 && s->done > done0
		       ? (s->stepped - stepped0) / s->tiles / (double)(s->done - done0)
		       : 1;
}

/* Step the sample one chunk; p: the run's steps' prices. */
static int sample_chunk(sample_run *s, uint64_t most, step_prices p, l3d_err *err)
{
	uint64_t n = min_u64(SAMPLE_CHUNK, most - s->done), done0 = s->done;
	double stepped0 = s->stepped, total;
	int rc = engine_step(s->e, n, NULL, err);
	if (rc)
		return rc;
	s->done += n;
	engine_cpu_tiles(s->e, &s->stepped, &total);
	s->tiles = total / (double)s->done;
	s->est += (double)n * step_seconds(p, share(s, stepped0, done0), LATE_FLOOR);
	s->chunks++;
	s->done_at[s->chunks] = s->done;
	s->stepped_at[s->chunks] = s->stepped;
	return L3D_OK;
}

/* The share of tiles the sample stepped over its last SAMPLE_TAIL steps
 * (from the end of the last chunk at least that far back). */
static double recent_share(const sample_run *s)
{
	int k = s->chunks;
	while (k > 0 && s->done_at[k] + SAMPLE_TAIL > s->done)
		k--;
	return share(s, s->stepped_at[k], s->done_at[k]);
}

/* A sample that stepped a quarter of its tiles or more a step, on average
 * over its last SAMPLE_TAIL steps (a chaotic rule: such a step costs a
 * dense one), is taken to go on so: when the run's remaining steps at a dense step's
 * price bring the estimate to `enough`, the sample stops there instead of
 * stepping on towards it, and est becomes that projection.  A soup that
 * settles has long dropped under the quarter by then. */
static bool busy_to_the_end(sample_run *s, step_prices p, double steps, double enough)
{
	if (s->done < SAMPLE_TAIL || recent_share(s) * TILE_COST < 1)
		return false;
	double projected = s->est + (steps - (double)s->done) * p.dense;
	if (projected < enough)
		return false;
	s->est = projected;
	return true;
}

double estimate_skipping_seconds(const engine_opts *opts, const grid *initial,
				 row_progress *ready, const rule *r, double enough,
				 char *why, size_t why_size)
{
	double steps = opts->steps;
	if (steps < 1 || engine_knobs_of(opts)->dense)
		return estimate_dense_seconds(opts);
	step_prices p = prices_of(opts);
	sample_run s = {0};
	double t0 = l3d_seconds();
	if (make_sample(opts, initial, ready, r, &s.e))
		return -1;
	uint64_t most = (uint64_t)fmin(steps, SAMPLE_STEPS);
	l3d_err err;
	/* The sample's steps so far give a bound that only grows. */
	while (s.done < most && s.est < enough) {
		if (sample_chunk(&s, most, p, &err)) {
			engine_destroy(s.e);
			return -1;
		}
		if (busy_to_the_end(&s, p, steps, enough))
			break;
	}
	double rest = steps - (double)s.done;
	if (s.est < enough && rest > 0)
		s.est += rest * step_seconds(p, recent_share(&s), 0) +
			 floor_beyond(p, (double)s.done, steps);
	snprintf(why, why_size,
		 "a %llux%llux%llu sample stepped %.3g%% of its tiles in %llu steps "
		 "(%.1f ms): about %.2g s on the CPU",
		 (unsigned long long)s.e->nx, (unsigned long long)s.e->ny,
		 (unsigned long long)s.e->nz, 100 * share(&s, 0, 0),
		 (unsigned long long)s.done, 1e3 * (l3d_seconds() - t0), s.est);
	engine_destroy(s.e);
	return s.est;
}
