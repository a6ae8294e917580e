/* stepper.c - the CPU engine's stepping core (cpu_stepper, stepper.h):
 * bit-sliced kernels (kernel.h) chosen for this CPU at run time, run by a
 * persistent thread pool.
 *
 * Work split: a step is cut into pieces, each a tile of rows (sized so its
 * ring of partial sums stays in the core's cache) across a range of x
 * planes (the whole slab unless there are too few tiles to go round).
 * Threads take pieces from a shared counter; each writes only its own
 * rows of the output, in whole cache lines.  Counts for a log line are
 * added up per thread in the same pass and summed at the end.  Activity
 * skipping's tiles (cpu_stepper_step_tiles) go out in runs of the list,
 * a few runs a thread. */
#include "stepper.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "kernel.h"
#include "rulejit.h"
#include "base/pool.h"

/* Ring bytes per thread: 2 planes of Y (4 bits per cell) for a tile. */
#define RING_BUDGET ((uint64_t)192 << 10)
#define MAX_THREADS 4096
/* Universe and result larger than this together do not stay in the
 * last-level cache between steps: write the result around the caches,
 * which saves reading each line before it is overwritten. */
#define STREAM_ABOVE ((uint64_t)16 << 20)
#define MIN_XRANGE 8
/* Tiles of fewer words than this in all (a few microseconds of work) are
 * stepped by the calling thread alone. */
#define TILES_ALONE_WORDS ((uint64_t)1 << 12)
/* Listed tiles are dealt out in runs, about this many runs a thread: one
 * piece a tile made threads queue on the shared counters. */
#define TILE_RUNS_PER_THREAD 4

static const char *const simd_names[CPU_SIMD_COUNT] = {
	[CPU_SIMD_PORTABLE] = "portable",
	[CPU_SIMD_AVX2] = "avx2",
	[CPU_SIMD_AVX512] = "avx512",
};

/* ---- which SIMD paths this binary has and this CPU runs ---- */

unsigned cpu_simd_max_lanes(cpu_simd s)
{
	return s == CPU_SIMD_AVX512 ? 8 : s == CPU_SIMD_AVX2 ? 4 : 1;
}

bool cpu_carry_free(cpu_simd s, unsigned vl)
{
	return s == CPU_SIMD_AVX512 && vl > 1;
}

static cpu_band_fn simd_kernel(cpu_simd s, unsigned vl)
{
	switch (s) {
	case CPU_SIMD_AVX512: return cpu_band_avx512(vl);
	case CPU_SIMD_AVX2: return cpu_band_avx2(vl);
	default: return cpu_band_portable(vl);
	}
}

static bool cpu_has(cpu_simd s)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
	__builtin_cpu_init();
	bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
		    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
	if (s == CPU_SIMD_AVX2)
		return avx2;
	if (s == CPU_SIMD_AVX512)
		return avx2 && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("avx512vpopcntdq") &&
		       __builtin_cpu_supports("avx512vbmi2");
#endif
	return s == CPU_SIMD_PORTABLE;
}

static bool simd_usable(cpu_simd s)
{
	return simd_kernel(s, 1) && cpu_has(s);
}

static cpu_simd simd_best(void)
{
	for (int s = CPU_SIMD_COUNT - 1; s > CPU_SIMD_PORTABLE; s--)
		if (simd_usable((cpu_simd)s))
			return (cpu_simd)s;
	return CPU_SIMD_PORTABLE;
}

static char simd_paths[64];

static void simd_paths_init(void)
{
	for (int s = CPU_SIMD_COUNT - 1; s >= 0; s--)
		if (simd_usable((cpu_simd)s)) {
			if (simd_paths[0])
				strcat(simd_paths, " ");
			strcat(simd_paths, simd_names[s]);
		}
}

const char *cpu_stepper_paths(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, simd_paths_init);
	return simd_paths;
}

static int simd_choose(const char *name, const engine_knobs *k, cpu_simd *out,
		       l3d_err *err);
static bool runs_b6s567(const rule *r);
static uint64_t row_chunks(uint64_t words, unsigned vl);
static uint64_t row_cost(uint64_t words, unsigned vl);
static void plan_width(cpu_plan *p, unsigned max_lanes);

/* What a vector of vl lanes costs, for the rate, in vectors of 256 bits:
 * on the H200 machine's Xeon a 512-bit operation takes about 1.5 times a
 * 256-bit one (dense at 16 threads: rows of 12 words in vectors of 4 step
 * at 0.70 of rows of 8 in vectors of 8, 10 words at 0.67, 6 at 0.57;
 * src/engine/NOTES.md, "auto's dense rate: what a 512-bit vector and a
 * rule's groups cost").  plan_width weighs it as 2 when it picks the
 * width, which the measured rates of 9-11 words favour. */
static double vector_cost(unsigned vl)
{
	return vl >= 8 ? 1.5 : 1;
}

/* The share of the widest rows' dense rate that rows of nz cells get:
 * their own words per unit of vector work (chunks of vl lanes, the last
 * overlapping) against rows of whole vectors of the widest kind; packed
 * rows count as whole. */
static double width_share(uint64_t ny, uint64_t nz, cpu_simd s)
{
	unsigned most = cpu_simd_max_lanes(s);
	cpu_plan p = {.ny = ny, .words = (nz + 63) / 64};
	plan_width(&p, most);
	if (p.group > 1)
		return 1;
	double share = (double)p.words / ((double)row_chunks(p.words, p.vl) * vector_cost(p.vl)) /
		       ((double)most / vector_cost(most));
	return share < 1 ? share : 1;
}

/* A rule's dense rate against B6/S567's: each group of counts the rule
 * uses (plan_groups) costs about a third of B6/S567's step.  On the H200
 * machine's 16 cores at 384^3 and 640^3 (src/engine/NOTES.md, "auto's
 * dense rate: what a 512-bit vector and a rule's groups cost"), one group
 * (B5/S45, 3D3/3H, 3D1,2/2F) stepped at 0.67-0.82 of B6/S567, two
 * (B5..7/S4..9, and 3D4/3,4E before count_carry made it one) at
 * 0.58-0.63, three (B3,6/S3..8) at 0.50-0.51;
 * at 512^3, where B6/S567 meets the memory, at 0.68-0.87.  With the rule
 * compiled (AVX-512 and AVX2, rulejit.h) the groups cost next to nothing:
 * the general Moore rules at 0.96-1.0 of B6/S567 with AVX-512 and
 * 0.89-0.94 with AVX2 on a 2-core Xeon, counted here as 1. */
static double rule_share(const rule *r, bool carry_free, bool compiled)
{
	if (!r || runs_b6s567(r) || compiled)
		return 1;
	cpu_plan p = {0};
	cpu_plan_rule(&p, r, carry_free);
	return 1 / (1 + 0.32 * p.groups);
}

/* Per thread, B6/S567 stepped densely in rows of whole vectors: AVX-512
 * as measured on the 16 cores of the H200 machine (4.4-5.1e11 at 512^3;
 * src/engine/NOTES.md, "auto's rates: the rule and the rows"); AVX2 and
 * the portable path on a 2-core machine without AVX-512 (1.1-1.8e10 and
 * 0.4-0.6e10 with one thread).  Scaled by the rule (rule_share) and by
 * the rows' fit to the vectors (width_share) when opts gives them. */
double cpu_stepper_rate(const engine_opts *opts)
{
	static const double per_thread[CPU_SIMD_COUNT] = {
		[CPU_SIMD_PORTABLE] = 0.5e10,
		[CPU_SIMD_AVX2] = 1.5e10,
		[CPU_SIMD_AVX512] = 2.8e10,
	};
	cpu_simd s;
	l3d_err ignored;
	const engine_knobs *k = engine_knobs_of(opts);
	if (simd_choose(opts ? opts->simd : NULL, k, &s, &ignored) != L3D_OK)
		return 0;
	int threads = opts && opts->threads > 0 ? opts->threads : cpu_count();
	double rate = per_thread[s] * (threads < MAX_THREADS ? threads : MAX_THREADS);
	if (opts && opts->nz && opts->ny)
		rate *= width_share(opts->ny, opts->nz, s);
	return rate * rule_share(opts ? opts->rule : NULL,
				 cpu_carry_free(s, cpu_simd_max_lanes(s)),
				 s != CPU_SIMD_PORTABLE && !k->rule_table);
}

/* name: NULL or "auto" (then k->simd, LIFE3D_SIMD, then the best), or a
 * path. */
static int simd_choose(const char *name, const engine_knobs *k, cpu_simd *out,
		       l3d_err *err)
{
	const char *what = "--simd";
	if (!name || !*name || strcmp(name, "auto") == 0) {
		const char *env = k->simd;
		if (!env || !*env || strcasecmp(env, "auto") == 0) {
			*out = simd_best();
			return L3D_OK;
		}
		name = env;
		what = "LIFE3D_SIMD";
	}
	for (int s = 0; s < CPU_SIMD_COUNT; s++) {
		if (strcasecmp(name, simd_names[s]) != 0)   /* as --simd's choices */
			continue;
		if (!simd_usable((cpu_simd)s))
			return l3d_fail(err, L3D_ERR_UNAVAILABLE,
					"%s %s: this %s (usable here: %s)", what, name,
					simd_kernel((cpu_simd)s, 1) ? "CPU lacks it"
								 : "build lacks it",
					cpu_stepper_paths());
		*out = (cpu_simd)s;
		return L3D_OK;
	}
	return l3d_fail(err, L3D_ERR_USAGE,
			"%s '%s': unknown SIMD path (expected auto, avx512, avx2 or portable)",
			what, name);
}

/* ---- the plan: geometry, vector width, rule ---- */

/* Outcome pair of counts n and n + 1 in a mask of counts: 2 f(n) + f(n+1). */
static unsigned pair_code(uint32_t outcomes, unsigned n)
{
	return 2 * ((outcomes >> n) & 1u) + ((outcomes >> (n + 1)) & 1u);
}

/* The groups a rule uses and their codes (kernel.h), from the counts that
 * give a live cell: `dead` for a dead cell, `live` for a live one. */
static void plan_groups(cpu_plan *p, uint32_t dead, uint32_t live)
{
	p->rule_kind = CPU_RULE_GROUPS;
	p->groups = 0;
	for (unsigned j = 0; j < CPU_GROUPS; j++) {
		unsigned code = 64 * pair_code(dead, 4 * j) + 16 * pair_code(dead, 4 * j + 2) +
				4 * pair_code(live, 4 * j) + pair_code(live, 4 * j + 2);
		if (code) {
			for (unsigned b = 0; b < 3; b++)
				p->group_jbits[p->groups][b] = -(uint64_t)((j >> (2 - b)) & 1);
			p->group_code[p->groups++] = (uint8_t)code;
		}
	}
}

/* Whether r steps with B6/S567's own kernel (rule_b6s567). */
static bool runs_b6s567(const rule *r)
{
	return r->hood == RULE_MOORE && r->birth == UINT32_C(1) << 6 &&
	       r->survive == UINT32_C(7) << 5;
}

/* The rule's groups.  F, C, E and H count the neighbours alone (0..12),
 * and where the carry is free they may count one more (count_carry) when
 * that puts the rule's counts in fewer groups: 3D3..5/4E's 3, 4 and 5 are
 * two groups (0..3 and 4..7), as 4, 5 and 6 one.  Moore's S counts the
 * cell too, so a live cell survives on S - 1. */
void cpu_plan_rule(cpu_plan *p, const rule *r, bool carry_free)
{
	p->hood = (int)r->hood;
	p->count_carry = 0;
	if (runs_b6s567(r)) {
		p->rule_kind = CPU_RULE_B6S567;
		return;
	}
	uint32_t birth = r->birth & RULE_ALL_COUNTS, survive = r->survive & RULE_ALL_COUNTS;
	if (r->hood == RULE_MOORE) {
		plan_groups(p, birth, survive << 1);
		return;
	}
	plan_groups(p, birth, survive);
	if (!carry_free)
		return;
	cpu_plan one_more = *p;
	plan_groups(&one_more, birth << 1, survive << 1);
	if (one_more.groups < p->groups) {
		*p = one_more;
		p->count_carry = ~(uint64_t)0;
	}
}

/* Vectors of vl lanes a row of `words` takes, the last one overlapping
 * the one before when vl does not divide the row. */
static uint64_t row_chunks(uint64_t words, unsigned vl)
{
	return (words + vl - 1) / vl;
}

/* What a row of `words` costs in vectors of vl lanes, for plan_width: a
 * 512-bit operation counts as two of 256 bits, as AVX-512 cores issue
 * them at half the rate or less. */
static uint64_t row_cost(uint64_t words, unsigned vl)
{
	return row_chunks(words, vl) * (vl >= 8 ? 2 : 1);
}

/* Vectors of chunks of a row: the widest whose lane count divides the row,
 * unless a wider one with an overlapping last chunk costs less (row_cost;
 * a row of 9 words takes three vectors of 4, not nine words one by one).
 * Rows shorter than the widest vector are packed several to a vector
 * instead, when that is wider and the rows divide evenly: fewer, wider
 * instructions beat the extra shuffles that packing needs. */
static void plan_width(cpu_plan *p, unsigned max_lanes)
{
	p->group = 1;
	p->vl = max_lanes;
	while (p->words % p->vl)
		p->vl /= 2;
	for (unsigned vl = max_lanes; vl > p->vl; vl /= 2) {
		unsigned group = (unsigned)(vl / p->words);
		if (vl % p->words == 0 && p->ny % group == 0) {
			p->vl = vl;
			p->group = group;
			p->vwords = p->words;
			return;
		}
	}
	unsigned best = p->vl;
	for (unsigned vl = max_lanes; vl > p->vl; vl /= 2)
		if (vl <= p->words && row_cost(p->words, vl) < row_cost(p->words, best))
			best = vl;
	p->vl = best;
	p->vwords = (p->words + best - 1) / best * best;
}

static void plan_init(cpu_plan *p, uint64_t ny, uint64_t nz, uint64_t tile, const rule *r,
		      cpu_simd simd)
{
	memset(p, 0, sizeof *p);
	p->ny = ny;
	p->nz = nz;
	p->words = (nz + 63) / 64;
	plan_width(p, cpu_simd_max_lanes(simd));
	p->last_bit = (unsigned)((nz - 1) & 63);
	p->tail = (nz & 63) ? ((uint64_t)1 << (nz & 63)) - 1 : ~(uint64_t)0;
	uint64_t row_bytes = 2 * p->vwords * 4 * 8, fit = RING_BUDGET / row_bytes;
	/* as many tiles as the budget needs, all of about the same height */
	uint64_t tiles = fit ? (ny + fit - 1) / fit : ny;
	uint64_t rows = (ny + tiles - 1) / tiles;
	if (tile)
		rows = tile;
	/* tiles of whole vectors and cache lines, so threads never write one
	 * line */
	uint64_t line_rows = 8 / (p->words & 7 ? p->words & -p->words : 8);
	if (line_rows < p->group)
		line_rows = p->group;
	rows = (rows + line_rows - 1) / line_rows * line_rows;
	p->tile_rows = rows < 1 ? 1 : rows > ny ? ny : rows;
	/* the next plane's rows, one pass ahead of their use */
	p->prefetch = (int64_t)(ny * p->words);
	cpu_plan_rule(p, r, cpu_carry_free(simd, p->vl));
}

uint64_t cpu_ring_words(const cpu_plan *p)
{
	/* two slots of tile_rows * vwords nibbles plus two spare nibbles
	 * (see band_kind), in whole cache lines so rings never share one */
	uint64_t slot = p->tile_rows * p->vwords * 4 + 8 * p->vl;
	return (2 * slot + 7) & ~(uint64_t)7;
}

/* ---- the stepper ---- */

typedef struct count_slot {
	engine_stats st;
	char pad[64 - sizeof(engine_stats)];
} count_slot;

struct cpu_stepper {
	cpu_plan plan;
	cpu_band_fn band;
	cpu_simd simd;
	int threads;
	int stream;                /* streaming stores: -1 by size, 0 never, 1 always */
	cpu_pool *pool;
	uint64_t *ring;            /* threads * ring_words */
	uint64_t ring_words;
	count_slot *counts;        /* one cache line per thread */
	char desc[160];
	/* tiles mode (cpu_stepper_step_tiles): the tiles listed, their shape,
	 * their results, and each thread's copy of the tile it overwrites */
	const uint32_t *tile_list;
	uint64_t tiles_listed, tile_run;   /* a piece: tile_run listed tiles */
	uint64_t tile_x, tile_y, tiles_y;
	cpu_tile_result *tile_out;
	uint64_t *save;            /* threads * save_words */
	uint64_t save_words;
	/* the step in progress: pieces of (x range, tile of rows) */
	const cpu_slab *slab;
	bool count;
	uint64_t xranges, ytiles, pieces;
	uint32_t step;             /* steps begun, mod 2^32 */
	/* step << 32 | pieces not yet taken; and pieces finished */
	_Alignas(64) _Atomic uint64_t claim;
	_Alignas(64) _Atomic uint64_t done;
	char pad[64 - sizeof(uint64_t)];
};

/* Take a piece of the step in progress: its index, or -1 when none is
 * left.  Counting down in the same word as the step number means a thread
 * that wakes late cannot take a piece of a later step by mistake, and a
 * piece taken keeps its step from finishing, so the step's slab and
 * plan stay valid while the piece is worked on. */
static int64_t take_piece(cpu_stepper *st)
{
	uint64_t v = atomic_load_explicit(&st->claim, memory_order_acquire);
	while ((uint32_t)v) {
		if (atomic_compare_exchange_weak_explicit(&st->claim, &v, v - 1,
							  memory_order_acquire,
							  memory_order_acquire))
			return (int64_t)(uint32_t)v - 1;
	}
	return -1;
}

/* One listed tile: keep what dst held there, step it with its own counts,
 * and say whether the new generation differs from what it replaced. */
static void step_tile(cpu_stepper *st, int t, uint64_t i, uint64_t *ring)
{
	const cpu_slab *s = st->slab;
	uint32_t tile = st->tile_list[i];
	uint64_t ix = tile / st->tiles_y, iy = tile % st->tiles_y;
	uint64_t xa = ix * st->tile_x, xb = xa + st->tile_x < s->nx ? xa + st->tile_x : s->nx;
	uint64_t ya = iy * st->tile_y, yb = ya + st->tile_y < s->ny ? ya + st->tile_y : s->ny;
	uint64_t plane = s->ny * s->words, run = (yb - ya) * s->words;
	uint64_t *save = st->save + (uint64_t)t * st->save_words;
	for (uint64_t x = xa; x < xb; x++)
		memcpy(save + (x - xa) * run, s->dst + x * plane + ya * s->words, run * 8);
	cpu_tile_result *r = &st->tile_out[tile];
	r->st = (engine_stats){0, 0, 0};
	st->band(&st->plan, s, xa, xb, ya, yb, ring, &r->st);
	r->changed = 0;
	for (uint64_t x = xa; x < xb && !r->changed; x++)
		r->changed = memcmp(save + (x - xa) * run, s->dst + x * plane + ya * s->words,
				    run * 8) != 0;
}

/* Threads take pieces rather than a fixed share, so a thread the system
 * holds back holds up only the piece it is working on. */
static void step_task(void *arg, int t)
{
	cpu_stepper *st = arg;
	uint64_t *ring = st->ring + (uint64_t)t * st->ring_words;
	for (int64_t i; (i = take_piece(st)) >= 0;) {
		if (st->tile_list) {
			uint64_t a = (uint64_t)i * st->tile_run;
			uint64_t b = st->tiles_listed - a < st->tile_run ? st->tiles_listed
									  : a + st->tile_run;
			for (uint64_t j = a; j < b; j++)
				step_tile(st, t, j, ring);
			atomic_fetch_add_explicit(&st->done, 1, memory_order_release);
			continue;
		}
		const cpu_slab *s = st->slab;
		engine_stats *c = st->count ? &st->counts[t].st : NULL;
		uint64_t ix = (uint64_t)i % st->xranges, iy = (uint64_t)i / st->xranges;
		uint64_t xa = ix * s->nx / st->xranges, xb = (ix + 1) * s->nx / st->xranges;
		uint64_t ya = iy * st->plan.tile_rows;
		uint64_t yb = s->ny - ya < st->plan.tile_rows ? s->ny : ya + st->plan.tile_rows;
		st->band(&st->plan, s, xa, xb, ya, yb, ring, c);
#if defined(__x86_64__) || defined(__i386__)
		/* streaming stores are not ordered by the release below:
		 * make them visible before the piece counts as done */
		if (st->plan.stream)
			__builtin_ia32_sfence();
#endif
		atomic_fetch_add_explicit(&st->done, 1, memory_order_release);
	}
}

/* Wait for the pieces others took: spin briefly, then yield the core so a
 * thread of ours that the system has descheduled can run. */
static void wait_done(cpu_stepper *st)
{
	for (unsigned i = 0;
	     atomic_load_explicit(&st->done, memory_order_acquire) < st->pieces; i++) {
#if defined(__x86_64__) || defined(__i386__)
		if (i < 4000) {
			__builtin_ia32_pause();
			continue;
		}
#endif
		sched_yield();
	}
}

/* Enough pieces for every thread to get several; an x range shorter than
 * MIN_XRANGE planes would spend too much on the two extra planes of
 * partial sums each range computes. */
static void plan_pieces(cpu_stepper *st, const cpu_slab *s, int threads)
{
	uint64_t want = 4 * (uint64_t)threads;
	st->ytiles = (s->ny + st->plan.tile_rows - 1) / st->plan.tile_rows;
	st->xranges = 1;
	if (st->ytiles < want) {
		uint64_t most = s->nx / MIN_XRANGE ? s->nx / MIN_XRANGE : 1;
		uint64_t need = (want + st->ytiles - 1) / st->ytiles;
		st->xranges = need < most ? need : most;
	}
	st->pieces = st->xranges * st->ytiles;
}

void cpu_stepper_step(cpu_stepper *st, const cpu_slab *s, engine_stats *stats)
{
	uint64_t bytes = s->nx * s->ny * s->words * 8;
	bool big = st->stream < 0 ? 2 * bytes > STREAM_ABOVE : st->stream;
	/* streaming stores need every vector aligned (rows of whole vectors),
	 * and each store a whole cache line: chunks of half a line, stored
	 * row after row, leave lines half written, which cost 3x at 768^3 on
	 * the H200 machine's Xeon */
	st->plan.stream = big && (uintptr_t)s->dst % (st->plan.vl * 8) == 0 &&
			  st->plan.vwords == st->plan.words && st->plan.vl * 8 >= 64;
	plan_pieces(st, s, st->threads);
	st->slab = s;
	st->count = stats != NULL;
	if (stats)
		for (int t = 0; t < st->threads; t++)
			st->counts[t].st = (engine_stats){0, 0, 0};
	atomic_store_explicit(&st->done, 0, memory_order_relaxed);
	st->step++;
	atomic_store_explicit(&st->claim, (uint64_t)st->step << 32 | st->pieces,
			      memory_order_release);
	if (st->threads > 1 && st->pieces > 1)
		cpu_pool_wake(st->pool, step_task, st);
	step_task(st, 0);
	wait_done(st);
	if (stats)
		for (int t = 0; t < st->threads; t++) {
			stats->population += st->counts[t].st.population;
			stats->births += st->counts[t].st.births;
			stats->deaths += st->counts[t].st.deaths;
		}
}

uint64_t cpu_stepper_row_unit(const cpu_stepper *st)
{
	uint64_t words = st->plan.words;
	uint64_t line_rows = 8 / (words & 7 ? words & -words : 8);
	return line_rows > st->plan.group ? line_rows : st->plan.group;
}

uint64_t cpu_stepper_max_rows(const cpu_stepper *st)
{
	return st->plan.tile_rows;
}

int cpu_stepper_step_tiles(cpu_stepper *st, const cpu_slab *s, uint64_t tx,
			   uint64_t ty, const uint32_t *tiles, uint64_t n,
			   cpu_tile_result *results, l3d_err *err)
{
	if (n == 0)
		return L3D_OK;
	uint64_t words = tx * ty * s->words;
	if (words > st->save_words) {
		free(st->save);
		st->save = aligned_alloc(64, ((words * 8 + 63) & ~(uint64_t)63) *
					     (uint64_t)st->threads);
		st->save_words = st->save ? (words + 7) & ~(uint64_t)7 : 0;
		if (!st->save)
			return l3d_fail(err, L3D_ERR_RUNTIME,
					"out of memory for the CPU engine's tiles");
	}
	st->plan.stream = false;     /* the tile is read back at once */
	st->slab = s;
	st->count = true;
	st->tile_list = tiles;
	st->tile_x = tx;
	st->tile_y = ty;
	st->tiles_y = (s->ny + ty - 1) / ty;
	st->tile_out = results;
	uint64_t runs = TILE_RUNS_PER_THREAD * (uint64_t)st->threads;
	st->tiles_listed = n;
	st->tile_run = (n + runs - 1) / runs;
	st->pieces = (n + st->tile_run - 1) / st->tile_run;
	atomic_store_explicit(&st->done, 0, memory_order_relaxed);
	st->step++;
	atomic_store_explicit(&st->claim, (uint64_t)st->step << 32 | st->pieces,
			      memory_order_release);
	/* a few small tiles are done before the other threads would wake */
	if (st->threads > 1 && st->pieces > 1 && n * words >= TILES_ALONE_WORDS)
		cpu_pool_wake(st->pool, step_task, st);
	step_task(st, 0);
	wait_done(st);
	st->tile_list = NULL;
	return L3D_OK;
}

const char *cpu_stepper_describe(const cpu_stepper *st)
{
	return st->desc;
}

void cpu_stepper_destroy(cpu_stepper *st)
{
	if (!st)
		return;
	cpu_pool_destroy(st->pool);
	cpu_rulejit_free(st->plan.rule_code);
	free(st->save);
	free(st->ring);
	free(st->counts);
	free(st);
}

static int resolve_threads(int threads)
{
	if (threads <= 0)
		threads = cpu_count();
	return threads > MAX_THREADS ? MAX_THREADS : threads;
}

/* The plan's rule compiled where the path and the knobs allow (the
 * rule then runs by rule_of's switch); "" or, for -v, why not. */
static const char *compile_rule(cpu_plan *p, cpu_simd path, const engine_knobs *k)
{
	const char *why_not = "";
	if (path != CPU_SIMD_AVX512 && path != CPU_SIMD_AVX2)
		return "the portable path has no compiler";
	if (k->rule_table)
		return "LIFE3D_CPU_RULE_CODE=0";
	p->rule_code = cpu_rulejit_make(p, path == CPU_SIMD_AVX512 ? RULEJIT_AVX512
								: RULEJIT_AVX2, &why_not);
	if (p->rule_code)
		p->rule_kind = CPU_RULE_CODE;
	return why_not;
}

int cpu_stepper_create(uint64_t ny, uint64_t nz, const rule *r, const engine_opts *opts,
		       cpu_stepper **out, l3d_err *err)
{
	*out = NULL;
	cpu_simd path = CPU_SIMD_PORTABLE;
	const engine_knobs *k = engine_knobs_of(opts);
	int rc = simd_choose(opts ? opts->simd : NULL, k, &path, err);
	if (rc)
		return rc;
	cpu_stepper *st = aligned_alloc(64, sizeof *st);
	if (st)
		memset(st, 0, sizeof *st);
	if (!st)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the CPU engine");
	st->simd = path;
	st->threads = resolve_threads(opts ? opts->threads : 0);
	st->stream = k->cpu_stream ? k->cpu_stream > 0 : -1;
	plan_init(&st->plan, ny, nz, k->cpu_tile, r, path);
	const char *why_not = compile_rule(&st->plan, path, k);
	st->band = simd_kernel(path, st->plan.vl);
	st->ring_words = cpu_ring_words(&st->plan);
	size_t ring_bytes = (size_t)(st->ring_words * 8 * (uint64_t)st->threads);
	st->ring = aligned_alloc(64, ring_bytes);
	st->counts = aligned_alloc(64, sizeof(count_slot) * (size_t)st->threads);
	if (!st->ring || !st->counts) {
		cpu_stepper_destroy(st);
		return l3d_fail(err, L3D_ERR_RUNTIME,
				"out of memory for the CPU engine's scratch (%zu bytes)",
				ring_bytes);
	}
	rc = cpu_pool_create(st->threads, &st->pool, err);
	if (rc) {
		cpu_stepper_destroy(st);
		return rc;
	}
	snprintf(st->desc, sizeof st->desc, "cpu/%s x%d thread%s (rule %s%s)",
		 simd_names[path], st->threads, st->threads == 1 ? "" : "s",
		 st->plan.rule_code ? "compiled" : "not compiled: ", why_not);
	*out = st;
	return L3D_OK;
}

int cpu_step_slab(const cpu_slab *s, const rule *r, int threads,
		  engine_stats *stats)
{
	cpu_stepper *st;
	engine_opts opts = {.threads = threads};
	int rc = cpu_stepper_create(s->ny, s->nz, r, &opts, &st, NULL);
	if (rc)
		return rc;
	cpu_stepper_step(st, s, stats);
	cpu_stepper_destroy(st);
	return L3D_OK;
}

