/* check_engine.c - the CPU engine against the reference stepper.
 *
 * Every SIMD path this CPU runs (each forced in turn) and 1, 2 and 3
 * threads must give the reference's universe and its population, births
 * and deaths, bit for bit, on random universes of every awkward size: edges
 * of 1 and 2 (a cell is its own neighbour), rows that end inside a word,
 * rows of every vector width, under many rules.  Known patterns are
 * checked by position, the slab interface by stepping a universe as two
 * slabs with separate halo planes, and the handover engine by moving a
 * universe between two CPU engines part-way through a run. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "engine/choose.h"
#include "engine/cpu/cpu.h"
#include "engine/cpu/rulejit.h"
#include "engine/cpu/skip.h"
#include "engine/cpu/stepper.h"
#include "engine/estimate.h"
#include "engine/handover.h"
#include "engine/visible.h"
#include "reference.h"

static const char *const all_paths[] = {"avx512", "avx2", "portable"};
static const int thread_counts[] = {1, 2, 3};

static bool path_usable(const char *path)
{
	char list[128];
	snprintf(list, sizeof list, " %s ", cpu_stepper_paths());
	char word[32];
	snprintf(word, sizeof word, " %s ", path);
	return strstr(list, word) != NULL;
}

static rule parse(const char *text)
{
	rule r;
	l3d_err err = {0, ""};
	ck_assert_msg(rule_parse(text, &r, &err) == L3D_OK, "%s", err.msg);
	return r;
}

/* Masks from a small xorshift, so a case is the same on every run. */
static rule random_rule(uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	rule r = {(uint32_t)x & RULE_ALL_COUNTS, (uint32_t)(x >> 32) & RULE_ALL_COUNTS, RULE_MOORE, 0};
	return r;
}

/* A random rule of neighbourhood h: masks within its counts. */
static rule random_hood_rule(uint64_t seed, rule_hood h)
{
	rule r = random_rule(seed);
	uint32_t counts = (UINT32_C(1) << (rule_hood_max(h) + 1)) - 1;
	r.birth &= counts;
	r.survive &= counts;
	r.hood = h;
	return r;
}

/* ---- the reference trajectory of a case ---- */

typedef struct trajectory {
	int steps;
	grid start;
	grid *gens;              /* gens[i]: generation i + 1 */
	engine_stats *stats;     /* stats[i]: of generation i + 1 */
} trajectory;

static void trajectory_make(trajectory *t, uint64_t nx, uint64_t ny, uint64_t nz,
			    double density, uint64_t seed, const rule *r, int steps)
{
	t->steps = steps;
	ck_assert_int_eq(grid_alloc(&t->start, nx, ny, nz, NULL), L3D_OK);
	grid_random(&t->start, density, seed);
	t->gens = calloc((size_t)steps, sizeof *t->gens);
	t->stats = calloc((size_t)steps, sizeof *t->stats);
	ref_universe u;
	ck_assert_int_eq(ref_from_grid(&u, &t->start), 0);
	for (int i = 0; i < steps; i++) {
		engine_stats *s = &t->stats[i];
		ref_step(&u, r, &s->population, &s->births, &s->deaths);
		ck_assert_int_eq(grid_alloc(&t->gens[i], nx, ny, nz, NULL), L3D_OK);
		ref_to_grid(&u, &t->gens[i]);
	}
	ref_free(&u);
}

static void trajectory_free(trajectory *t)
{
	for (int i = 0; i < t->steps; i++)
		grid_free(&t->gens[i]);
	grid_free(&t->start);
	free(t->gens);
	free(t->stats);
}

/* The knobs (engine/knobs.h) every engine of these tests is made with:
 * cases set a field, and set it back. */
static engine_knobs knobs;

static engine *make_engine(const grid *g, const rule *r, const char *simd, int threads)
{
	engine_opts o = {.kind = "cpu", .threads = threads, .device = -1, .simd = simd,
			 .knobs = &knobs};
	engine *e = NULL;
	l3d_err err = {0, ""};
	int rc = engine_create(&o, g, r, &e, &err);
	ck_assert_msg(rc == L3D_OK, "engine_create: %s", err.msg);
	return e;
}

static void assert_same(engine *e, const grid *want, const char *what, int gen)
{
	grid got;
	ck_assert_int_eq(grid_alloc(&got, want->nx, want->ny, want->nz, NULL), L3D_OK);
	ck_assert_int_eq(engine_read(e, &got, NULL), L3D_OK);
	ck_assert_msg(grid_equal(&got, want), "%s: universe differs at generation %d",
		      what, gen);
	grid_free(&got);
}

static void assert_stats(const engine_stats *got, const engine_stats *want,
			 const char *what, int gen)
{
	ck_assert_msg(got->population == want->population && got->births == want->births &&
		      got->deaths == want->deaths,
		      "%s: generation %d: population/births/deaths %llu/%llu/%llu, "
		      "reference %llu/%llu/%llu", what, gen,
		      (unsigned long long)got->population, (unsigned long long)got->births,
		      (unsigned long long)got->deaths, (unsigned long long)want->population,
		      (unsigned long long)want->births, (unsigned long long)want->deaths);
}

/* Step one generation at a time with counts, then replay in two calls of
 * several steps (counts for the last step only). */
static void check_engine_run(const trajectory *t, const rule *r, const char *simd,
			     int threads, const char *what)
{
	engine *e = make_engine(&t->start, r, simd, threads);
	for (int i = 0; i < t->steps; i++) {
		engine_stats st = {9, 9, 9};
		ck_assert_int_eq(engine_step(e, 1, &st, NULL), L3D_OK);
		assert_same(e, &t->gens[i], what, i + 1);
		assert_stats(&st, &t->stats[i], what, i + 1);
	}
	engine_destroy(e);

	e = make_engine(&t->start, r, simd, threads);
	int half = t->steps / 2;
	if (half) {
		ck_assert_int_eq(engine_step(e, (uint64_t)half, NULL, NULL), L3D_OK);
		assert_same(e, &t->gens[half - 1], what, half);
	}
	engine_stats st = {9, 9, 9};
	ck_assert_int_eq(engine_step(e, (uint64_t)(t->steps - half), &st, NULL), L3D_OK);
	assert_same(e, &t->gens[t->steps - 1], what, t->steps);
	assert_stats(&st, &t->stats[t->steps - 1], what, t->steps);
	engine_destroy(e);
}

/* With several threads the rows are also cut into small tiles
 * (LIFE3D_CPU_TILE), so threads share even small universes and every
 * tile seam in y is crossed, and results are written with the streaming
 * stores otherwise kept for universes larger than the caches. */
static void check_all_paths(const trajectory *t, const rule *r, const char *label)
{
	static const char *const tiles[] = {NULL, "1", "5"};
	for (size_t p = 0; p < sizeof all_paths / sizeof *all_paths; p++) {
		if (!path_usable(all_paths[p]))
			continue;
		for (size_t k = 0; k < sizeof thread_counts / sizeof *thread_counts; k++) {
			char what[160];
			snprintf(what, sizeof what, "%s %s x%d tile %s", label, all_paths[p],
				 thread_counts[k], tiles[k] ? tiles[k] : "auto");
			if (tiles[k]) {
				knobs.cpu_tile = strtoull(tiles[k], NULL, 10);
				knobs.cpu_stream = 1;
			}
			check_engine_run(t, r, all_paths[p], thread_counts[k], what);
			if (k == 0 && strcmp(all_paths[p], "portable") != 0) {
				/* the groups by rule_of's switch, not compiled */
				knobs.rule_table = true;
				check_engine_run(t, r, all_paths[p], thread_counts[k], what);
				knobs.rule_table = false;
			}
			knobs.cpu_tile = 0;
			knobs.cpu_stream = 0;
		}
	}
}

/* ---- random universes ---- */

typedef struct size_case {
	uint64_t nx, ny, nz;
	int steps;
} size_case;

static const size_case sizes[] = {
	{1, 1, 1, 50}, {2, 2, 2, 50}, {3, 3, 3, 50}, {5, 5, 5, 50},
	{31, 31, 31, 12}, {32, 32, 32, 12}, {33, 33, 33, 12},
	{64, 64, 64, 4}, {67, 67, 67, 3},
	{1, 7, 130, 30}, {3, 64, 65, 12}, {17, 5, 128, 20}, {70, 3, 2, 30},
	{2, 1, 1, 50}, {1, 2, 70, 40}, {4, 3, 1, 50},
	/* row lengths for every vector width and chunk count: 1 to 16 words,
	 * rows packed several to a vector (y divisible) or not (y odd), rows
	 * whose last vector overlaps the one before (3, 5, 6, 9, 10, 11, 13
	 * words) */
	{3, 4, 192, 10}, {4, 4, 256, 10}, {3, 5, 256, 10}, {2, 6, 128, 10},
	{2, 3, 320, 10}, {2, 3, 383, 10},
	{5, 4, 512, 8}, {2, 3, 600, 8}, {2, 5, 768, 8}, {3, 4, 1024, 8},
	{2, 2, 1000, 8}, {3, 3, 576, 8}, {2, 5, 704, 8}, {3, 2, 801, 6},
};

static const char *const rule_texts[] = {
	"B5/S45", "B4/S5..7", "B/S0..26", "B0..26/S", "B3/S23",
	"B0/S", "B0,6/S0,13,26", "B1,2/S", "B26/S26", "B13..26/S0..12",
};

/* One size, rule and density on every path, against the reference. */
static void check_case(const size_case *c, const rule *r, double density, uint64_t seed)
{
	trajectory t;
	trajectory_make(&t, c->nx, c->ny, c->nz, density, seed, r, c->steps);
	char label[96], text[64];
	rule_format(r, text, sizeof text);
	snprintf(label, sizeof label, "%llux%llux%llu %s", (unsigned long long)c->nx,
		 (unsigned long long)c->ny, (unsigned long long)c->nz, text);
	check_all_paths(&t, r, label);
	trajectory_free(&t);
}

/* Each size runs B6/S567 and two more rules: one from the list, one from
 * random masks (which often hold count 0, births from nothing). */
START_TEST(random_universes_match_reference)
{
	const size_case *c = &sizes[_i];
	rule rules[3] = {rule_default,
			 parse(rule_texts[_i % (sizeof rule_texts / sizeof *rule_texts)]),
			 random_rule((uint64_t)_i)};
	double densities[3] = {0.3, 0.1 + 0.1 * (_i % 5), 0.5};
	for (int k = 0; k < 3; k++)
		check_case(c, &rules[k], densities[k], 1000 + (uint64_t)_i * 7 + (uint64_t)k);
}
END_TEST

/* Some of them count one more than the neighbours where the carry is
 * free (cpu_plan.count_carry: 3D3..6/3F, 3D4..8/3C, 3D3..5,12/4,12E,
 * 3D3,4,12/3..6H, up to the count 13). */
static const char *const hood_rule_texts[] = {
	"3D0..6/1,3F", "3D2,3/2F", "3D4..8/3C", "3D/1C", "3D3..5/4E",
	"3D1,5,9/2,12E", "3D3/3H", "3D2..4/2,3H", "B1/S0..12H", "B1..6/SF",
	"3D3..6/3F", "3D3..5,12/4,12E", "3D3,4,12/3..6H",
};

/* Every neighbourhood on every size: a listed rule and random masks, each
 * at its own density. */
START_TEST(random_hoods_match_reference)
{
	const size_case *c = &sizes[_i];
	size_t listed = sizeof hood_rule_texts / sizeof *hood_rule_texts;
	rule rules[2] = {parse(hood_rule_texts[_i % listed]),
			 random_hood_rule(500 + (uint64_t)_i, (rule_hood)(1 + _i % (RULE_HOODS - 1)))};
	double densities[2] = {0.2 + 0.05 * (_i % 5), 0.4};
	for (int k = 0; k < 2; k++)
		check_case(c, &rules[k], densities[k], 3000 + (uint64_t)_i * 5 + (uint64_t)k);
}
END_TEST

/* The neighbourhoods on rows packed two to a vector (whose rows beside
 * come from the vector itself and its neighbours by one shuffle): 256
 * bits a row on AVX-512, 128 on AVX2, 64 on two-word vectors; one, two and
 * three vectors of rows, so the rows beside wrap within a vector and
 * across two; rules with the carry into the count (3D4..8/3C,
 * 3D3..5,12/4,12E, 3D3..6/3F) and without. */
static const size_case two_row_sizes[] = {
	{3, 6, 256, 8}, {2, 2, 256, 12}, {3, 4, 250, 8}, {3, 6, 128, 10},
	{2, 4, 100, 10}, {3, 6, 64, 12}, {2, 2, 40, 20},
	/* several turns of two vectors, the rows before carried across */
	{2, 14, 256, 6}, {3, 12, 250, 6}, {2, 18, 128, 6},
};
static const char *const two_row_rules[] = {
	"3D4..8/3C", "3D0,1/2C", "3D3..5,12/4,12E", "3D4/3,4E", "3D1,5,9/2,12E",
	"3D3..6/3F", "3D1,2/2F", "3D3/3H", "3D2..4/2,3H",
};

START_TEST(rows_two_a_vector_match_reference)
{
	const size_case *c = &two_row_sizes[_i];
	size_t n = sizeof two_row_rules / sizeof *two_row_rules;
	for (size_t k = 0; k < n; k++) {
		rule r = parse(two_row_rules[k]);
		check_case(c, &r, 0.25 + 0.05 * (double)k, 7000 + (uint64_t)_i * 11 + k);
	}
}
END_TEST

/* ---- the rule compiled (rulejit.h) ---- */

#if defined(__x86_64__)
/* Run rule code on eight-word planes in[0] (the cell), in[1..4] (s0..s3),
 * in[5] and h1 (h0 and h1, s4 = h0 | h1) in the registers its convention
 * names; its result (vl words) to out. */
__attribute__((target("avx512f")))
static void call_rule_code(const void *code, const uint64_t in[6][8], const uint64_t h1[8],
			   uint64_t out[8])
{
	__asm__ volatile("vmovdqu64 0(%[in]), %%zmm16\n\t"
			 "vmovdqu64 64(%[in]), %%zmm17\n\t"
			 "vmovdqu64 128(%[in]), %%zmm18\n\t"
			 "vmovdqu64 192(%[in]), %%zmm19\n\t"
			 "vmovdqu64 256(%[in]), %%zmm20\n\t"
			 "vmovdqu64 320(%[in]), %%zmm21\n\t"
			 "vmovdqu64 (%[h1]), %%zmm26\n\t"
			 "lea -128(%%rsp), %%rsp\n\t"
			 "call *%[code]\n\t"
			 "lea 128(%%rsp), %%rsp\n\t"
			 "vmovdqu64 %%zmm16, (%[out])"
			 :
			 : [in] "r"(in), [h1] "r"(h1), [out] "r"(out), [code] "r"(code)
			 : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
			   "xmm23", "xmm24", "xmm25", "xmm26", "memory");
}

/* The same for the AVX2 convention: ymm8 (the cell), ymm9..13. */
__attribute__((target("avx2")))
static void call_rule_code_avx2(const void *code, const uint64_t in[6][8], uint64_t out[8])
{
	__asm__ volatile("vmovdqu 0(%[in]), %%ymm8\n\t"
			 "vmovdqu 64(%[in]), %%ymm9\n\t"
			 "vmovdqu 128(%[in]), %%ymm10\n\t"
			 "vmovdqu 192(%[in]), %%ymm11\n\t"
			 "vmovdqu 256(%[in]), %%ymm12\n\t"
			 "vmovdqu 320(%[in]), %%ymm13\n\t"
			 "lea -128(%%rsp), %%rsp\n\t"
			 "call *%[code]\n\t"
			 "lea 128(%%rsp), %%rsp\n\t"
			 "vmovdqu %%ymm8, (%[out])"
			 :
			 : [in] "r"(in), [out] "r"(out), [code] "r"(code)
			 : "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
			   "xmm12", "xmm13", "xmm14", "xmm15", "memory");
}

/* Every (cell, count) at once: bit b of every word is the cell b / 32 with
 * the count b % 32, and for every count the kernel can make the code's
 * bit b must be the rule's outcome there: Moore's count includes the cell
 * (0..27; a live cell survives on S - 1), the others count their
 * neighbours, or one more (count_carry).  Every neighbourhood, random
 * rules and the listed ones, every vector width, with the carry free and
 * not; on AVX-512, with the count's bit 4 given as h0 and, again, as h1. */
static void check_rule_code(const rule *r, bool carry_free, unsigned vl, rulejit_isa isa)
{
	cpu_plan p = {.vl = vl};
	cpu_plan_rule(&p, r, carry_free);
	const char *why = "";
	const void *code = cpu_rulejit_make(&p, isa, &why);
	if (p.rule_kind != CPU_RULE_GROUPS) {
		ck_assert_ptr_null(code);
		return;
	}
	ck_assert_msg(code != NULL, "rule code not made: %s", why);
	uint64_t in[6][8], out[8];
	for (unsigned w = 0; w < 8; w++)
		for (unsigned plane = 0; plane < 6; plane++) {
			in[plane][w] = 0;
			for (unsigned b = 0; b < 64; b++) {
				unsigned bit = plane == 0 ? b >> 5 : (b & 31) >> (plane - 1);
				in[plane][w] |= (uint64_t)(bit & 1) << b;
			}
		}
	uint64_t zero[8] = {0}, s4[8], by_h1[8];
	memcpy(s4, in[5], sizeof s4);
	if (isa == RULEJIT_AVX512) {
		call_rule_code(code, (const uint64_t(*)[8])in, zero, out);
		memset(in[5], 0, sizeof in[5]);
		call_rule_code(code, (const uint64_t(*)[8])in, s4, by_h1);
	} else {
		call_rule_code_avx2(code, (const uint64_t(*)[8])in, out);
		memcpy(by_h1, out, sizeof by_h1);
	}
	cpu_rulejit_free(code);
	unsigned more = r->hood == RULE_MOORE ? 1 : p.count_carry ? 1 : 0;
	uint64_t dead = (uint64_t)r->birth << (r->hood == RULE_MOORE ? 0 : more);
	uint64_t live = (uint64_t)r->survive << more;
	uint64_t want = (dead & 0xFFFFFFFFu) | (live & 0xFFFFFFFFu) << 32;
	unsigned max = r->hood == RULE_MOORE ? 27 : rule_hood_max((rule_hood)r->hood) + more;
	uint64_t made = (UINT64_C(2) << max) - 1;    /* the counts 0..max */
	made |= made << 32;
	char text[64];
	rule_format(r, text, sizeof text);
	for (unsigned w = 0; w < vl; w++) {
		ck_assert_msg((out[w] & made) == (want & made),
			      "%s, %s, %u lanes%s: word %u is %016llx, not %016llx (bits %016llx)",
			      text, isa == RULEJIT_AVX512 ? "avx512" : "avx2", vl,
			      p.count_carry ? ", count + 1" : "", w,
			      (unsigned long long)out[w], (unsigned long long)want,
			      (unsigned long long)made);
		ck_assert_msg((by_h1[w] & made) == (want & made),
			      "%s, avx512, %u lanes%s, bit 4 as h1: word %u is %016llx, not %016llx",
			      text, vl, p.count_carry ? ", count + 1" : "", w,
			      (unsigned long long)by_h1[w], (unsigned long long)want);
	}
}
#endif

START_TEST(rule_code_matches_rule)
{
#if defined(__x86_64__)
	rulejit_isa isa = _i ? RULEJIT_AVX2 : RULEJIT_AVX512;
	if (!path_usable(_i ? "avx2" : "avx512"))
		return;
	static const char *const texts[] = {
		"B5/S45", "B5..7/S4..9", "B3,6/S3..8", "B/S", "B0..26/S0..26", "B26/S0",
		"3D1,2/2F", "3D0..6/1,3F", "3D0,1/2C", "3D4..8/3C", "3D4/3,4E",
		"3D3..5/4E", "3D3/3H", "3D2..4/2,3H", "3D3..5,12/4,12E",
	};
	static const unsigned widths[] = {2, 4, 8};
	unsigned nw = isa == RULEJIT_AVX512 ? 3 : 2;    /* AVX2's widest is 4 */
	for (size_t k = 0; k < sizeof texts / sizeof *texts; k++)
		for (size_t w = 0; w < nw; w++)
			for (int carry = 0; carry < 2; carry++) {
				rule r = parse(texts[k]);
				check_rule_code(&r, carry, widths[w], isa);
			}
	for (uint64_t seed = 0; seed < 2000; seed++) {
		rule r = random_hood_rule(seed, (rule_hood)(seed % RULE_HOODS));
		check_rule_code(&r, seed & 1, widths[seed / 2 % nw], isa);
	}
	/* B6/S567 and single words have kernels of their own */
	cpu_plan p = {.vl = 4};
	cpu_plan_rule(&p, &rule_default, true);
	const char *why = "";
	ck_assert_ptr_null(cpu_rulejit_make(&p, isa, &why));
	ck_assert(*why);
	rule r = parse("B5/S45");
	cpu_plan_rule(&p, &r, true);
	p.vl = 1;
	ck_assert_ptr_null(cpu_rulejit_make(&p, isa, &why));
#endif
}
END_TEST

/* A rule of groups is compiled on AVX-512 and AVX2 unless
 * LIFE3D_CPU_RULE_CODE=0, and the description says so, or why not. */
START_TEST(rule_code_is_said)
{
	const char *path = _i ? "avx2" : "avx512";
	if (!path_usable(path))
		return;
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 4, 4, 256, NULL), L3D_OK);
	rule r = parse("B5..7/S4..9");
	char plain[64], want[160];
	snprintf(plain, sizeof plain, "cpu/%s x2 threads", path);
	snprintf(want, sizeof want, "%s (rule compiled)", plain);
	engine *e = make_engine(&g, &r, path, 2);
	ck_assert_str_eq(engine_describe(e), want);
	engine_destroy(e);
	knobs.rule_table = true;
	e = make_engine(&g, &r, path, 2);
	snprintf(want, sizeof want, "%s (rule not compiled: LIFE3D_CPU_RULE_CODE=0)", plain);
	ck_assert_str_eq(engine_describe(e), want);
	engine_destroy(e);
	knobs.rule_table = false;
	e = make_engine(&g, &rule_default, path, 2);
	snprintf(want, sizeof want, "%s (rule not compiled: B6/S567 has a kernel of its own)",
		 plain);
	ck_assert_str_eq(engine_describe(e), want);
	engine_destroy(e);
	grid_free(&g);
}
END_TEST

/* ---- activity skipping against dense stepping ---- */

/* The percentage of tiles stepped, from the engine's description. */
static double stepped_percent(const engine *e)
{
	const char *d = strstr(engine_describe(e), ", ");
	return d ? atof(d + 2) : 100;
}

typedef struct skip_case {
	uint64_t nx, ny, nz;
	const char *rule;
	double density;
	int steps;          /* one at a time, every log line compared */
	uint64_t jump;      /* then this many in one call */
	int busy;           /* may not settle: no skipping asked of it */
} skip_case;

/* Soups that settle (so tiles are skipped), in every neighbourhood, on odd
 * sizes; a chaotic one (so the engine falls back to dense stepping and
 * comes back); a universe that empties.  The skipping engine must give
 * the dense engine's universe and counts at every step. */
static const skip_case skip_cases[] = {
	{40, 37, 70, "B6/S567", 0.25, 160, 20001, 0},
	{33, 64, 128, "B6/S567", 0.2, 120, 301, 0},
	{29, 30, 31, "3D3/3H", 0.05, 120, 1001, 0},
	{30, 29, 65, "3D2,3/3F", 0.2, 120, 1001, 0},
	{31, 27, 64, "3D4..8/3C", 0.2, 100, 1001, 0},
	{28, 31, 33, "3D4..6/4E", 0.2, 100, 1001, 0},
	{24, 24, 64, "B5..7/S4..9", 0.25, 150, 3, 1},
	/* tiles enough to be shared among threads */
	{96, 90, 512, "B6/S567", 0.25, 30, 101, 1},
	{20, 21, 22, "B7/S", 0.3, 20, 1000000001, 0},
};

START_TEST(skipping_matches_dense)
{
	const skip_case *c = &skip_cases[_i];
	rule r = parse(c->rule);
	grid g;
	ck_assert_int_eq(grid_alloc(&g, c->nx, c->ny, c->nz, NULL), L3D_OK);
	grid_random(&g, c->density, 40 + (uint64_t)_i);
	engine *skip = make_engine(&g, &r, NULL, 2);
	knobs.dense = true;
	engine *dense = make_engine(&g, &r, NULL, 2);
	knobs.dense = false;
	engine_stats a, b;
	ck_assert_int_eq(engine_step(dense, 1, &b, NULL), L3D_OK);
	ck_assert_int_eq(engine_step(skip, 1, &a, NULL), L3D_OK);
	char what[96];
	snprintf(what, sizeof what, "%s %llux%llux%llu", c->rule, (unsigned long long)c->nx,
		 (unsigned long long)c->ny, (unsigned long long)c->nz);
	grid want;
	ck_assert_int_eq(grid_alloc(&want, c->nx, c->ny, c->nz, NULL), L3D_OK);
	for (int i = 1; i <= c->steps; i++) {
		if (i > 1) {
			ck_assert_int_eq(engine_step(skip, 1, &a, NULL), L3D_OK);
			ck_assert_int_eq(engine_step(dense, 1, &b, NULL), L3D_OK);
		}
		assert_stats(&a, &b, what, i);
		if (i % 7 == 0 || i == c->steps) {
			ck_assert_int_eq(engine_read(dense, &want, NULL), L3D_OK);
			assert_same(skip, &want, what, i);
		}
	}
	if (c->jump < 100000) {
		ck_assert_int_eq(engine_step(skip, c->jump, &a, NULL), L3D_OK);
		ck_assert_int_eq(engine_step(dense, c->jump, &b, NULL), L3D_OK);
	} else {
		/* a settled universe: a billion steps at once, checked against
		 * the dense engine's parity */
		ck_assert_int_eq(engine_step(skip, c->jump, &a, NULL), L3D_OK);
		ck_assert_int_eq(engine_step(dense, 2 + c->jump % 2, &b, NULL), L3D_OK);
	}
	assert_stats(&a, &b, what, c->steps + 1);
	ck_assert_int_eq(engine_read(dense, &want, NULL), L3D_OK);
	assert_same(skip, &want, what, c->steps + 1);
	double pct = stepped_percent(skip);
	if (!c->busy)
		ck_assert_msg(pct < 50, "%s: %.3g%% of tiles stepped; nothing skipped", what, pct);
	engine_destroy(skip);
	engine_destroy(dense);
	grid_free(&g);
	grid_free(&want);
}
END_TEST

/* A distributed rank's slab, its halos given here: the skipping
 * bookkeeping against dense steps of the same slab and halos.  Under B0/S
 * every cell blinks (born alone, never surviving), except that a dead
 * cell beside a live halo cell is not born: the halo shows in one phase of
 * the blink only.  A halo cell that comes on and stays on differs from the
 * halo two generations back but not from the one before, while the tile
 * beside it may equal what it was two generations back: that tile must be
 * stepped then (comparing the halo with the generation before would skip
 * it, wrongly).  The cell comes on at either parity, on either side. */
START_TEST(slab_halos_two_generations_back)
{
	const uint64_t nx = 16, ny = 40, nz = 70;
	rule r = parse("B0/S");
	l3d_err err = {0, ""};
	grid a[2], want[2];
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(grid_alloc(&a[k], nx, ny, nz, &err), L3D_OK);
		ck_assert_int_eq(grid_alloc(&want[k], nx, ny, nz, &err), L3D_OK);
	}
	uint64_t plane = ny * a[0].words;
	uint64_t *halo[2] = {calloc(plane, 8), calloc(plane, 8)};
	ck_assert(halo[0] && halo[1]);
	cpu_stepper *st;
	cpu_skip *k;
	engine_opts two = {.threads = 2};
	ck_assert_int_eq(cpu_stepper_create(ny, nz, &r, &two, &st, &err), L3D_OK);
	ck_assert_int_eq(cpu_skip_create(st, &a[0], false, &k, &err), L3D_OK);
	int side = _i / 2, on_at = 9 + _i % 2, cur = 0;
	for (int t = 0; t < 24; t++) {
		if (t == on_at)     /* row 21 (of 40), z 33 */
			halo[side][21 * a[0].words] |= (uint64_t)1 << 33;
		cpu_slab s = {nx, ny, nz, a[0].words, a[cur].bits, a[cur ^ 1].bits,
			      halo[0], halo[1]};
		cpu_slab d = {nx, ny, nz, a[0].words, want[cur].bits, want[cur ^ 1].bits,
			      halo[0], halo[1]};
		engine_stats got = {0, 0, 0}, exp = {0, 0, 0};
		if (cpu_skip_by_tiles(k))
			ck_assert_int_eq(cpu_skip_step(k, st, &s, &got, &err), L3D_OK);
		else
			cpu_stepper_step(st, &s, &got);
		cpu_skip_done(k, &s);
		cpu_stepper_step(st, &d, &exp);
		cur ^= 1;
		ck_assert_msg(!memcmp(a[cur].bits, want[cur].bits, grid_bytes(&a[cur])),
			      "side %d, on at %d: cells differ at generation %d", side, on_at,
			      t + 1);
		ck_assert_msg(got.population == exp.population && got.births == exp.births &&
			      got.deaths == exp.deaths, "side %d, on at %d: counts at %d",
			      side, on_at, t + 1);
	}
	double stepped, total;
	cpu_skip_tiles(k, &stepped, &total);
	ck_assert_msg(stepped < total / 2, "%g of %g tiles stepped: nothing skipped", stepped,
		      total);
	cpu_skip_destroy(k);
	cpu_stepper_destroy(st);
	for (int j = 0; j < 2; j++) {
		grid_free(&a[j]);
		grid_free(&want[j]);
		free(halo[j]);
	}
}
END_TEST

/* ---- the slab seam: two slabs with halos in their own buffers ---- */

static void check_slabs(const char *rule_text)
{
	const uint64_t nx = 9, ny = 11, nz = 133;
	rule r = parse(rule_text);
	trajectory t;
	trajectory_make(&t, nx, ny, nz, 0.3, 77, &r, 6);
	grid cur, next;
	ck_assert_int_eq(grid_alloc(&cur, nx, ny, nz, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&next, nx, ny, nz, NULL), L3D_OK);
	memcpy(cur.bits, t.start.bits, grid_bytes(&cur));
	uint64_t plane = ny * cur.words, cut = 4;
	uint64_t *halo = malloc(4 * plane * 8);
	/* the lower slab through a stepper kept across steps, in small tiles
	 * shared by two threads; the upper one through cpu_step_slab */
	engine_knobs tile2 = {.cpu_tile = 2};
	engine_opts two = {.threads = 2, .knobs = &tile2};
	cpu_stepper *st;
	ck_assert_int_eq(cpu_stepper_create(ny, nz, &r, &two, &st, NULL), L3D_OK);
	for (int i = 0; i < t.steps; i++) {
		/* halos: lower slab x = -1 and x = cut; upper x = cut-1 and nx */
		memcpy(halo, cur.bits + (nx - 1) * plane, plane * 8);
		memcpy(halo + plane, cur.bits + cut * plane, plane * 8);
		memcpy(halo + 2 * plane, cur.bits + (cut - 1) * plane, plane * 8);
		memcpy(halo + 3 * plane, cur.bits, plane * 8);
		cpu_slab lo = {cut, ny, nz, cur.words, cur.bits, next.bits, halo, halo + plane};
		cpu_slab hi = {nx - cut, ny, nz, cur.words, cur.bits + cut * plane,
			       next.bits + cut * plane, halo + 2 * plane, halo + 3 * plane};
		engine_stats counts = {0, 0, 0};
		cpu_stepper_step(st, &lo, &counts);
		ck_assert_int_eq(cpu_step_slab(&hi, &r, 1, &counts), L3D_OK);
		ck_assert_msg(grid_equal(&next, &t.gens[i]), "slabs differ at generation %d", i + 1);
		assert_stats(&counts, &t.stats[i], "slabs", i + 1);
		grid g = cur;
		cur = next;
		next = g;
	}
	cpu_stepper_destroy(st);
	free(halo);
	grid_free(&cur);
	grid_free(&next);
	trajectory_free(&t);
}

START_TEST(slabs_with_separate_halos_match_reference)
{
	static const char *const texts[] = {"B5/S45", "3D2,3/2F", "3D4..8/3C",
					    "3D3..5/4E", "3D2..4/2,3H"};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		check_slabs(texts[i]);
}
END_TEST

/* ---- known patterns, by position ---- */

typedef struct cell3 { int x, y, z; } cell3;

static uint64_t wrap(int v, uint64_t n)
{
	int64_t m = (int64_t)n, r = (int64_t)v % m;
	return (uint64_t)(r < 0 ? r + m : r);
}

static void place(grid *g, const cell3 *cells, int n, cell3 at)
{
	memset(g->bits, 0, grid_bytes(g));
	for (int i = 0; i < n; i++)
		grid_set(g, wrap(cells[i].x + at.x, g->nx), wrap(cells[i].y + at.y, g->ny),
			 wrap(cells[i].z + at.z, g->nz), 1);
}

/* After `steps`, the pattern must be where `moved` says, on every path. */
static void check_pattern(const char *rule_text, const cell3 *cells, int n,
			  int steps, cell3 at, cell3 moved, const char *what)
{
	rule r = parse(rule_text);
	grid start, want;
	ck_assert_int_eq(grid_alloc(&start, 12, 13, 70, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&want, 12, 13, 70, NULL), L3D_OK);
	place(&start, cells, n, at);
	cell3 to = {at.x + moved.x, at.y + moved.y, at.z + moved.z};
	place(&want, cells, n, to);
	for (size_t p = 0; p < sizeof all_paths / sizeof *all_paths; p++) {
		if (!path_usable(all_paths[p]))
			continue;
		engine *e = make_engine(&start, &r, all_paths[p], 2);
		engine_stats st;
		ck_assert_int_eq(engine_step(e, (uint64_t)steps, &st, NULL), L3D_OK);
		char label[96];
		snprintf(label, sizeof label, "%s on %s", what, all_paths[p]);
		assert_same(e, &want, label, steps);
		ck_assert_uint_eq(st.population, (uint64_t)n);
		engine_destroy(e);
	}
	grid_free(&start);
	grid_free(&want);
}

/* Placed across the z = 63/64 word seam and the z wrap. */
START_TEST(block_is_still)
{
	cell3 c[8];
	for (int i = 0; i < 8; i++)
		c[i] = (cell3){i & 1, (i >> 1) & 1, (i >> 2) & 1};
	check_pattern("B6/S567", c, 8, 1, (cell3){3, 4, 63}, (cell3){0, 0, 0}, "block");
	check_pattern("B6/S567", c, 8, 7, (cell3){11, 12, 69}, (cell3){0, 0, 0},
		      "block across the wrap");
}
END_TEST

START_TEST(blinker_has_period_two)
{
	cell3 c[6];
	for (int i = 0; i < 6; i++)
		c[i] = (cell3){i % 3, 0, i / 3};
	check_pattern("B6/S567", c, 6, 2, (cell3){5, 5, 40}, (cell3){0, 0, 0}, "blinker");
	check_pattern("B6/S567", c, 6, 10, (cell3){10, 12, 69}, (cell3){0, 0, 0},
		      "blinker across the wrap");
	/* one step later it is not in its first phase */
	rule r = rule_default;
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 12, 13, 70, NULL), L3D_OK);
	place(&g, c, 6, (cell3){5, 5, 40});
	engine *e = make_engine(&g, &r, NULL, 1);
	ck_assert_int_eq(engine_step(e, 1, NULL, NULL), L3D_OK);
	grid got;
	ck_assert_int_eq(grid_alloc(&got, 12, 13, 70, NULL), L3D_OK);
	ck_assert_int_eq(engine_read(e, &got, NULL), L3D_OK);
	ck_assert(!grid_equal(&got, &g));
	ck_assert_uint_eq(grid_population(&got), 6);
	engine_destroy(e);
	grid_free(&g);
	grid_free(&got);
}
END_TEST

START_TEST(glider_moves_diagonally)
{
	const int xy[5][2] = {{1, 0}, {2, 1}, {0, 2}, {1, 2}, {2, 2}};
	cell3 c[10];
	for (int i = 0; i < 10; i++)
		c[i] = (cell3){xy[i % 5][0], xy[i % 5][1], i / 5};
	check_pattern("B6/S567", c, 10, 4, (cell3){2, 3, 63}, (cell3){1, 1, 0}, "glider");
	check_pattern("B6/S567", c, 10, 40, (cell3){9, 10, 69}, (cell3){10, 10, 0},
		      "glider around the torus");
}
END_TEST

START_TEST(b5s45_glider_moves)
{
	const cell3 c[10] = {{2, 2, 2}, {3, 2, 2}, {1, 3, 2}, {4, 3, 2}, {2, 4, 2},
			     {3, 4, 2}, {2, 2, 1}, {3, 2, 1}, {1, 3, 1}, {4, 3, 1}};
	check_pattern("B5/S45", c, 10, 4, (cell3){3, 3, 60}, (cell3){0, -1, 1},
		      "B5/S45 glider");
	check_pattern("B5/S45", c, 10, 80, (cell3){3, 3, 60}, (cell3){0, -20, 20},
		      "B5/S45 glider across seams");
}
END_TEST

/* ---- options, views, the generator ---- */

START_TEST(simd_paths_are_chosen_and_checked)
{
	const char *paths = cpu_stepper_paths();
	size_t n = strlen(paths);
	ck_assert(n >= 8 && strcmp(paths + n - 8, "portable") == 0);
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 4, 4, 64, NULL), L3D_OK);
	rule r = rule_default;
	engine_opts o = {.kind = "cpu", .threads = 2, .device = -1, .simd = "sse9"};
	engine *e = NULL;
	l3d_err err = {0, ""};
	ck_assert_int_eq(engine_create(&o, &g, &r, &e, &err), L3D_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "sse9"));
	for (size_t p = 0; p < sizeof all_paths / sizeof *all_paths; p++) {
		o.simd = all_paths[p];
		int rc = engine_create(&o, &g, &r, &e, &err);
		if (!path_usable(all_paths[p])) {
			ck_assert_int_eq(rc, L3D_ERR_UNAVAILABLE);
			continue;
		}
		ck_assert_int_eq(rc, L3D_OK);
		char want[64];
		snprintf(want, sizeof want, "cpu/%s x2 threads (rule not compiled: ", all_paths[p]);
		ck_assert_msg(!strncmp(engine_describe(e), want, strlen(want)), "%s",
			      engine_describe(e));
		engine_destroy(e);
	}
	/* the knob (LIFE3D_SIMD) applies when no path is given */
	engine_knobs simd = {.simd = "portable"};
	o.knobs = &simd;
	o.simd = NULL;
	ck_assert_int_eq(engine_create(&o, &g, &r, &e, &err), L3D_OK);
	ck_assert_str_eq(engine_describe(e), "cpu/portable x2 threads (rule not compiled: "
			 "the portable path has no compiler)");
	engine_destroy(e);
	simd.simd = "bogus";
	ck_assert_int_eq(engine_create(&o, &g, &r, &e, &err), L3D_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "LIFE3D_SIMD"));
	o.knobs = NULL;
	/* 0 threads = all cores */
	o.threads = 0;
	ck_assert_int_eq(engine_create(&o, &g, &r, &e, &err), L3D_OK);
	ck_assert_ptr_nonnull(strstr(engine_describe(e), "cpu/"));
	engine_destroy(e);
	grid_free(&g);
}
END_TEST

/* auto's estimate of the CPU's rate: per thread of the path it would take,
 * none for a path it cannot take. */
START_TEST(cpu_rate_follows_threads_and_path)
{
	engine_opts one = {.kind = "auto", .threads = 1, .device = -1, .simd = "portable"};
	engine_opts two = one;
	two.threads = 2;
	double r1 = cpu_stepper_rate(&one), r2 = cpu_stepper_rate(&two);
	ck_assert(r1 > 1e9 && r1 < 1e11);
	ck_assert(r2 > 1.99 * r1 && r2 < 2.01 * r1);
	one.simd = NULL;           /* the best path here: at least as fast */
	ck_assert(cpu_stepper_rate(&one) >= r1);
	one.simd = "sse9";
	ck_assert(cpu_stepper_rate(&one) == 0);
	for (size_t p = 0; p < sizeof all_paths / sizeof *all_paths; p++) {
		one.simd = all_paths[p];
		ck_assert((cpu_stepper_rate(&one) > 0) == path_usable(all_paths[p]));
	}
}
END_TEST

/* ... and of the rule and the rows: B6/S567's own kernel is the fastest
 * where the rule is not compiled (the portable path), as fast as a
 * compiled rule (AVX-512 and AVX2, rulejit.h), and rows that are not a whole
 * number of vectors waste part of the last one (every row is whole words
 * on the portable path). */
START_TEST(cpu_rate_follows_rule_and_rows)
{
	engine_knobs table = {.rule_table = true};
	engine_opts o = {"auto", 1, -1, "portable", 0, 0, NULL, 64, 512, NULL, 0};
	double whole = cpu_stepper_rate(&o);
	rule r = parse("B5..7/S4..9"), h = parse("3D3/3H"), d = rule_default;
	o.rule = &d;
	ck_assert(cpu_stepper_rate(&o) == whole);
	o.rule = &r;
	ck_assert(cpu_stepper_rate(&o) < 0.7 * whole);
	o.rule = &h;
	ck_assert(cpu_stepper_rate(&o) < whole && cpu_stepper_rate(&o) > 0.7 * whole);
	/* each group of counts a rule uses costs more: B5/S45 uses one,
	 * B5..7/S4..9 two, B3,6/S3..8 three */
	rule single = parse("B5/S45"), three = parse("B3,6/S3..8");
	o.rule = &single;
	double one_group = cpu_stepper_rate(&o);
	o.rule = &three;
	double three_groups = cpu_stepper_rate(&o);
	o.rule = &r;
	ck_assert(three_groups < cpu_stepper_rate(&o) && cpu_stepper_rate(&o) < one_group);
	for (int p = 0; p < 2; p++) {
		o.simd = all_paths[p];    /* avx512, avx2: the rule compiled */
		if (!path_usable(o.simd))
			continue;
		o.rule = NULL;
		whole = cpu_stepper_rate(&o);
		o.rule = &three;
		ck_assert(cpu_stepper_rate(&o) == whole);
		o.knobs = &table;
		ck_assert(cpu_stepper_rate(&o) < 0.7 * whole);
		o.knobs = NULL;
	}
	o.simd = NULL;
	o.rule = NULL;
	whole = cpu_stepper_rate(&o);
	o.nz = 576;                /* 9 words */
	double odd = cpu_stepper_rate(&o);
	o.simd = "portable";
	double one = cpu_stepper_rate(&o);
	o.nz = 512;
	ck_assert(cpu_stepper_rate(&o) == one);
	if (path_usable("avx2") || path_usable("avx512"))
		ck_assert_msg(odd < 0.8 * whole, "%g against %g", odd, whole);
	o.nz = 0;                  /* rows not known: as whole ones */
	o.simd = NULL;
	ck_assert(cpu_stepper_rate(&o) == whole);
}
END_TEST

/* auto's estimate from a sample: a settling soup well under its dense
 * * time, a chaotic rule near it; an early stop once the bound is
 * passed; a universe smaller than the sample; rows that never come. */
static double estimate_of(const grid *g, const char *rule_text, double steps,
			  double enough, char *why, row_progress *ready)
{
	engine_opts o = {.kind = "auto", .threads = 2, .device = -1,
			 .work = (double)grid_cells(g) * steps, .steps = steps};
	rule r = parse(rule_text);
	return estimate_skipping_seconds(&o, g, ready, &r, enough, why, 200);
}

START_TEST(estimate_tells_soups_from_chaos)
{
	grid g;
	char why[200];
	ck_assert_int_eq(grid_alloc(&g, 96, 80, 200, NULL), L3D_OK);
	grid_random(&g, 0.25, 7);
	engine_opts o = {.kind = "auto", .threads = 2, .device = -1,
			 .work = (double)grid_cells(&g) * 1024, .steps = 1024};
	double dense = estimate_dense_seconds(&o);
	double soup = estimate_of(&g, "B6/S567", 1024, INFINITY, why, NULL);
	ck_assert_msg(soup > 0 && soup < 0.5 * dense, "soup %g, dense %g: %s", soup, dense, why);
	/* the least any universe could give: two dense steps, then the floor */
	double least = estimate_least_seconds(&o);
	ck_assert_msg(least > 0.2 * dense && least <= soup, "least %g, soup %g", least, soup);
	o.steps = 0;
	ck_assert(estimate_least_seconds(&o) == 0);
	ck_assert_msg(strncmp(why, "a 64x64x64 sample stepped ", 26) == 0, "%s", why);
	ck_assert_msg(strstr(why, " in 1024 steps ("), "%s", why);
	/* and how long the sample took */
	ck_assert_msg(strstr(why, " ms): about "), "%s", why);
	double chaos = estimate_of(&g, "B5..7/S4..9", 1024, INFINITY, why, NULL);
	ck_assert_msg(chaos >= 0.9 * dense, "chaos %g, dense %g: %s", chaos, dense, why);
	/* longer runs: the steps beyond the sample at its tail's share */
	ck_assert(estimate_of(&g, "B5..7/S4..9", 4096, INFINITY, why, NULL) >= 3.9 * chaos);
	double early = estimate_of(&g, "B5..7/S4..9", 1024, 0.01 * dense, why, NULL);
	ck_assert_msg(early >= 0.01 * dense && early < 0.5 * dense, "%g: %s", early, why);
	ck_assert_msg(strstr(why, " in 32 steps"), "%s", why);
	/* busy for 256 steps: taken as busy to the end, not stepped on to
	 * the bound (which the steps alone would reach in 640) */
	early = estimate_of(&g, "B5..7/S4..9", 1024, 0.6 * dense, why, NULL);
	ck_assert_msg(early >= 0.6 * dense, "%g: %s", early, why);
	ck_assert_msg(strstr(why, " in 256 steps"), "%s", why);
	/* a soup is not: its estimate stays what its steps say */
	ck_assert(estimate_of(&g, "B6/S567", 1024, 0.95 * soup, why, NULL) < soup * 1.0001);
	grid_free(&g);
	ck_assert_int_eq(grid_alloc(&g, 5, 70, 9, NULL), L3D_OK);
	grid_random(&g, 0.4, 8);
	ck_assert(estimate_of(&g, "B5..7/S4..9", 10, INFINITY, why, NULL) > 0);
	ck_assert_msg(strncmp(why, "a 5x64x9 sample", 15) == 0, "%s", why);
	row_progress none;
	row_progress_init(&none, g.nx * g.ny);
	row_progress_fail(&none);
	ck_assert(estimate_of(&g, "B6/S567", 10, INFINITY, why, &none) < 0);
	row_progress_destroy(&none);
	grid_free(&g);
}
END_TEST

/* auto's bound grows with the GPUs the driver sets up at a GPU start:
 * its device nodes, or fewer where CUDA_VISIBLE_DEVICES lists fewer. */
START_TEST(gpus_to_set_up_follow_nodes_and_visible)
{
	char dir[] = "/tmp/check_engine_devXXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *names[] = {"nvidia0", "nvidia1", "nvidia12", "nvidiactl", "nvidia-uvm",
			       "nvidia-uvm-tools", "nvidia", "nvidia1a", "null"};
	char path[128];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	ck_assert_int_eq(engine_gpus_to_set_up(dir, NULL), 3);
	ck_assert_int_eq(engine_gpus_to_set_up(dir, "0"), 1);
	ck_assert_int_eq(engine_gpus_to_set_up(dir, "1,0"), 2);
	ck_assert_int_eq(engine_gpus_to_set_up(dir, "0,1,2,3,4"), 3);
	ck_assert_int_eq(engine_gpus_to_set_up(dir, ""), 0);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(engine_gpus_to_set_up(dir, NULL), 0);
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert_int_eq(engine_gpus_to_set_up(dir, NULL), 0);
}
END_TEST

/* A made-up /proc/driver/nvidia/gpus: one folder a GPU, named by its PCI
 * address, each with an information file as the driver writes it. */
typedef struct fake_gpu {
	const char *bus, *model, *uuid, *excluded;
} fake_gpu;

static void fake_gpus(char *dir, const fake_gpu *g, int n)
{
	char path[256];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, g[i].bus);
		ck_assert_int_eq(mkdir(path, 0700), 0);
		snprintf(path, sizeof path, "%s/%s/information", dir, g[i].bus);
		FILE *f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "Model: \t\t %s\nIRQ:   \t\t 17\nGPU UUID: \t %s\n"
			   "Bus Type: \t PCIe\nDevice Minor: \t %d\nGPU Excluded:\t %s\n",
			g[i].model, g[i].uuid, i, g[i].excluded);
		fclose(f);
	}
}

static void unfake_gpus(const char *dir, const fake_gpu *g, int n)
{
	char path[256];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s/information", dir, g[i].bus);
		ck_assert_int_eq(unlink(path), 0);
		snprintf(path, sizeof path, "%s/%s", dir, g[i].bus);
		ck_assert_int_eq(rmdir(path), 0);
	}
	ck_assert_int_eq(rmdir(dir), 0);
}

/* What engine_one_gpu names, or "-" for nothing. */
static const char *one_gpu(const char *visible, const char *order, const char *dir,
			   int device)
{
	static char entry[64];
	if (!engine_one_gpu(visible, order, dir, device, entry, sizeof entry))
		return "-";
	return entry;
}

/* A single process names its GPU alone where the driver's list makes
 * sure which it is, and leaves CUDA_VISIBLE_DEVICES as it is otherwise. */
START_TEST(one_gpu_is_named_only_when_sure)
{
	/* Listed out of order: the driver's order is by PCI address. */
	const fake_gpu same[] = {
		{"0000:9a:00.0", "NVIDIA H200", "GPU-9a9a9a9a-0000-1111-2222-333333333333", "No"},
		{"0000:18:00.0", "NVIDIA H200", "GPU-18181818-0000-1111-2222-333333333333", "No"},
		{"0000:3b:00.0", "NVIDIA H200", "GPU-3b3b3b3b-0000-1111-2222-333333333333", "No"},
	};
	char dir[] = "/tmp/check_engine_gpusXXXXXX";
	fake_gpus(dir, same, 3);
	/* No list: the index itself, when the GPU exists. */
	ck_assert_str_eq(one_gpu(NULL, NULL, dir, 0), "0");
	ck_assert_str_eq(one_gpu(NULL, NULL, dir, 2), "2");
	ck_assert_str_eq(one_gpu(NULL, NULL, dir, 3), "-");
	ck_assert_str_eq(one_gpu(NULL, NULL, dir, -1), "-");
	/* A list: its entry, as written. */
	ck_assert_str_eq(one_gpu("2,0", NULL, dir, 0), "2");
	ck_assert_str_eq(one_gpu("2,0", NULL, dir, 1), "0");
	ck_assert_str_eq(one_gpu("2,0", NULL, dir, 2), "-");
	ck_assert_str_eq(one_gpu("2,GPU-3b3b", NULL, dir, 1), "GPU-3b3b");
	ck_assert_str_eq(one_gpu("1,GPU-3b3b", NULL, dir, 1), "-");       /* 1 is 3b */
	ck_assert_str_eq(one_gpu("GPU-9a9a9a9a-0000-1111-2222-333333333333,1", NULL, dir, 0),
			 "GPU-9a9a9a9a-0000-1111-2222-333333333333");
	/* Nothing to gain, or not sure: left alone. */
	ck_assert_str_eq(one_gpu("1", NULL, dir, 0), "-");          /* one already */
	ck_assert_str_eq(one_gpu("", NULL, dir, 0), "-");           /* none */
	ck_assert_str_eq(one_gpu("0,-1,2", NULL, dir, 2), "-");     /* hides the rest */
	ck_assert_str_eq(one_gpu("0,5,1", NULL, dir, 2), "-");      /* no GPU 5 */
	ck_assert_str_eq(one_gpu("0,0,1", NULL, dir, 2), "-");      /* twice */
	ck_assert_str_eq(one_gpu("1,GPU-1818,0", NULL, dir, 2), "-"); /* GPU-1818 is 0 */
	ck_assert_str_eq(one_gpu("GPU-,1", NULL, dir, 1), "-");     /* every GPU's */
	ck_assert_str_eq(one_gpu("GPU-77,1", NULL, dir, 1), "-");   /* none's */
	ck_assert_str_eq(one_gpu("MIG-9a9a,1", NULL, dir, 1), "-"); /* not checked */
	ck_assert_str_eq(one_gpu(" 0,1", NULL, dir, 1), "-");
	ck_assert_str_eq(one_gpu("0,1", NULL, "/nonexistent", 1), "-");
	unfake_gpus(dir, same, 3);

	/* Two models: CUDA's own order may put either first. */
	const fake_gpu mixed[] = {
		{"0000:18:00.0", "NVIDIA A100", "GPU-aaaa0000", "No"},
		{"0000:3b:00.0", "NVIDIA H200", "GPU-bbbb0000", "No"},
	};
	char dir2[] = "/tmp/check_engine_gpusXXXXXX";
	fake_gpus(dir2, mixed, 2);
	ck_assert_str_eq(one_gpu(NULL, NULL, dir2, 1), "-");
	ck_assert_str_eq(one_gpu(NULL, "FASTEST_FIRST", dir2, 1), "-");
	ck_assert_str_eq(one_gpu(NULL, "PCI_BUS_ID", dir2, 1), "1");
	ck_assert_str_eq(one_gpu("1,0", NULL, dir2, 1), "0");        /* indices alone */
	ck_assert_str_eq(one_gpu("GPU-bbbb,GPU-aaaa", NULL, dir2, 1), "GPU-aaaa");
	ck_assert_str_eq(one_gpu("1,GPU-aaaa", NULL, dir2, 1), "-");   /* mixed */
	ck_assert_str_eq(one_gpu("1,GPU-aaaa", "PCI_BUS_ID", dir2, 1), "GPU-aaaa");
	unfake_gpus(dir2, mixed, 2);

	/* One excluded: CUDA leaves it out and the indices shift. */
	const fake_gpu excl[] = {
		{"0000:18:00.0", "NVIDIA H200", "GPU-aaaa0000", "Yes"},
		{"0000:3b:00.0", "NVIDIA H200", "GPU-bbbb0000", "No"},
		{"0000:5c:00.0", "NVIDIA H200", "GPU-cccc0000", "No"},
	};
	char dir3[] = "/tmp/check_engine_gpusXXXXXX";
	fake_gpus(dir3, excl, 3);
	ck_assert_str_eq(one_gpu(NULL, NULL, dir3, 0), "-");
	ck_assert_str_eq(one_gpu("1,2", NULL, dir3, 0), "-");
	unfake_gpus(dir3, excl, 3);

	/* One GPU: nothing to narrow. */
	char dir4[] = "/tmp/check_engine_gpusXXXXXX";
	fake_gpus(dir4, excl + 1, 1);
	ck_assert_str_eq(one_gpu(NULL, NULL, dir4, 0), "-");
	unfake_gpus(dir4, excl + 1, 1);
}
END_TEST

START_TEST(views_match_the_universe)
{
	grid g, back;
	ck_assert_int_eq(grid_alloc(&g, 6, 7, 75, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&back, 6, 7, 75, NULL), L3D_OK);
	grid_random(&g, 0.4, 5);
	rule r = rule_default;
	engine *e = make_engine(&g, &r, NULL, 2);
	ck_assert_int_eq(engine_step(e, 3, NULL, NULL), L3D_OK);
	ck_assert_int_eq(engine_read(e, &back, NULL), L3D_OK);
	ck_assert(grid_equal(engine_host_grid(e), &back));
	for (int axis = 0; axis < 3; axis++) {
		uint64_t w, h;
		grid_view_dims(&back, axis, &w, &h);
		uint32_t *a = calloc(w * h, 4), *b = calloc(w * h, 4);
		uint8_t *sa = calloc(w * h, 1), *sb = calloc(w * h, 1);
		ck_assert_int_eq(engine_project(e, axis, a, NULL), L3D_OK);
		grid_project(&back, axis, b);
		ck_assert_mem_eq(a, b, w * h * 4);
		ck_assert_int_eq(engine_slice(e, axis, 2, sa, NULL), L3D_OK);
		grid_slice(&back, axis, 2, sb);
		ck_assert_mem_eq(sa, sb, w * h);
		free(a), free(b), free(sa), free(sb);
	}
	engine_destroy(e);
	grid_free(&g);
	grid_free(&back);
}
END_TEST

/* An engine with nothing but the required operations, over another: the
 * fall-backs of engine.c serve it. */
typedef struct bare_engine {
	engine base;
	engine *inner;
} bare_engine;

static int bare_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	return engine_step(((bare_engine *)e)->inner, steps, stats, err);
}

static int bare_read(engine *e, grid *out, l3d_err *err)
{
	return engine_read(((bare_engine *)e)->inner, out, err);
}

static void bare_destroy(engine *e)
{
	engine_destroy(((bare_engine *)e)->inner);
}

static const engine_ops bare_ops = {
	.name = "bare", .step = bare_step, .read = bare_read, .destroy = bare_destroy,
};

/* A render through engine_render_start: render_rows()'s bytes at once. */
static void assert_render(engine *e, const grid *g, double az, double el, uint64_t scale)
{
	render_view v;
	render_setup(&v, g->nx, g->ny, g->nz, az, el, scale);
	size_t bytes = 3 * (size_t)v.width * v.height;
	uint8_t *want = malloc(bytes), *got = calloc(bytes, 1);
	ck_assert(want && got);
	render_rows(&v, g, 0, v.height, want);
	ck_assert_int_eq(engine_render_start(e, &v, got, NULL), L3D_OK);
	ck_assert_int_eq(engine_view_wait(e, NULL), L3D_OK);
	ck_assert_mem_eq(want, got, bytes);
	free(want), free(got);
}

/* Engines that do not draw renders: engine_render_start draws from the
 * host grid, or from a read-back; a view of another box is refused. */
START_TEST(renders_without_an_engine_of_their_own)
{
	grid g, back;
	ck_assert_int_eq(grid_alloc(&g, 9, 5, 70, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&back, 9, 5, 70, NULL), L3D_OK);
	grid_random(&g, 0.1, 8);
	rule r = rule_default;
	engine *e = make_engine(&g, &r, NULL, 2);
	ck_assert_int_eq(engine_step(e, 2, NULL, NULL), L3D_OK);
	ck_assert_int_eq(engine_read(e, &back, NULL), L3D_OK);
	ck_assert(!engine_renders(e));
	assert_render(e, &back, 30, 25, 2);
	bare_engine bare = {{.ops = &bare_ops, .nx = g.nx, .ny = g.ny, .nz = g.nz, .rule = rule_default}, e};
	ck_assert(!engine_renders(&bare.base));
	ck_assert_ptr_null(engine_host_grid(&bare.base));
	assert_render(&bare.base, &back, 120, 10, 3);
	render_view other;
	render_setup(&other, 9, 5, 71, 30, 25, 1);
	uint8_t *rgb = malloc(3 * (size_t)other.width * other.height);
	l3d_err err;
	ck_assert_int_eq(engine_render_start(&bare.base, &other, rgb, &err), L3D_ERR_USAGE);
	ck_assert_str_eq(err.msg, "engine 'bare': a render of another universe");
	free(rgb);
	engine_destroy(&bare.base);
	grid_free(&g);
	grid_free(&back);
}
END_TEST

START_TEST(random_grid_is_deterministic)
{
	grid a, b, c;
	ck_assert_int_eq(grid_alloc(&a, 40, 41, 130, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&b, 40, 41, 130, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&c, 40, 41, 130, NULL), L3D_OK);
	grid_random(&a, 0.3, 42);
	grid_random(&b, 0.3, 42);
	grid_random(&c, 0.3, 43);
	ck_assert(grid_equal(&a, &b));
	ck_assert(!grid_equal(&a, &c));
	double cells = (double)grid_cells(&a);
	double fa = (double)grid_population(&a) / cells;
	double fc = (double)grid_population(&c) / cells;
	ck_assert_msg(fa > 0.29 && fa < 0.31, "density %f", fa);
	ck_assert_msg(fc > 0.29 && fc < 0.31, "density %f", fc);
	/* padding above nz stays clear */
	for (uint64_t r = 0; r < a.nx * a.ny; r++)
		ck_assert_uint_eq(a.bits[r * a.words + a.words - 1] & ~grid_tail_mask(&a), 0);
	grid_free(&a);
	grid_free(&b);
	grid_free(&c);
}
END_TEST

/* ---- handover: a first engine, then a second from a given poll on ---- */

typedef struct fake_next {
	int polls, ready_after;  /* ready from poll ready_after on; -1: never */
	bool unavailable;        /* make() says there is no second engine */
	rule rule;
	int made;
} fake_next;

static bool fake_ready(void *ctx)
{
	fake_next *f = ctx;
	return f->ready_after >= 0 && f->polls++ >= f->ready_after;
}

static int fake_make(void *ctx, const grid *now, engine **out, l3d_err *err)
{
	fake_next *f = ctx;
	f->made++;
	if (f->unavailable)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "none here");
	engine_opts o = {.kind = "cpu", .threads = 1, .device = -1, .simd = "portable"};
	return engine_create(&o, now, &f->rule, out, err);
}

/* Calls of 1, 1, 2, 5 and the rest, counts on each, a view at the end:
 * the same universe and counts as the reference whenever the move comes. */
START_TEST(handover_keeps_the_trajectory)
{
	static const struct { int after; bool unavailable; } cases[] = {
		{0, false}, {1, false}, {3, false}, {5, false}, {-1, false},
		{2, true},
	};
	rule r = parse("B5/S45");
	trajectory t;
	trajectory_make(&t, 13, 9, 70, 0.3, 91, &r, 24);
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		fake_next f = {0, cases[c].after, cases[c].unavailable, r, 0};
		handover_next next = {fake_ready, fake_make, NULL, &f, "the second"};
		engine *e = NULL;
		ck_assert_int_eq(engine_handover_create(make_engine(&t.start, &r, NULL, 2),
							next, &e, NULL), L3D_OK);
		static const int calls[] = {1, 1, 2, 5, 15};
		int gen = 0;
		for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
			engine_stats st = {9, 9, 9};
			ck_assert_int_eq(engine_step(e, (uint64_t)calls[k], &st, NULL), L3D_OK);
			gen += calls[k];
			assert_same(e, &t.gens[gen - 1], "handover", gen);
			assert_stats(&st, &t.stats[gen - 1], "handover", gen);
		}
		uint32_t got[13 * 9], want[13 * 9];
		ck_assert_int_eq(engine_project(e, 2, got, NULL), L3D_OK);
		grid_project(&t.gens[gen - 1], 2, want);
		ck_assert_mem_eq(got, want, sizeof got);
		ck_assert(!engine_renders(e));
		assert_render(e, &t.gens[gen - 1], 30, 25, 1);
		const char *d = engine_describe(e);
		bool moved = cases[c].after >= 0 && !cases[c].unavailable;
		ck_assert_int_eq(f.made, cases[c].after >= 0 ? 1 : 0);
		ck_assert_msg((strstr(d, "steps on") != NULL) == moved, "case %zu: %s", c, d);
		ck_assert_msg((strstr(d, "while the second starts") != NULL) ==
			      (cases[c].after < 0), "case %zu: %s", c, d);
		engine_destroy(e);
	}
	trajectory_free(&t);
}
END_TEST

/* ---- one engine, many universes (engine_load) ---- */

/* A census's shape: 200 soups of 16^3 a rule (1000 over the five rules:
 * every neighbourhood family), some sparse enough to die or settle (so the
 * engine has learnt a repeat when the next is loaded), each loaded into
 * one engine and stepped in calls of 1, 2 and 37 steps: the counts of
 * every call, the cells at the end and whether it repeats are those of a
 * new engine made from the same soup; -v's share of tiles stepped is
 * over them all. */
START_TEST(one_engine_many_universes)
{
	static const char *const rules[] = {"B6/S567", "3D4..8/3C", "3D2,3/3F", "3D4..6/4E",
					    "3D3/3H"};
	static const uint64_t calls[] = {1, 2, 37};
	rule r = parse(rules[_i]);
	grid g, want;
	l3d_err err = {0, ""};
	ck_assert_int_eq(grid_alloc(&g, 16, 16, 16, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&want, 16, 16, 16, NULL), L3D_OK);
	engine *kept = make_engine(&g, &r, NULL, 2);
	for (int u = 0; u < 200; u++) {
		double density = u % 4 == 0 ? 0.03 : 0.2 + 0.02 * (u % 5);
		grid_random(&g, density, 5000 + 1000 * (uint64_t)_i + (uint64_t)u);
		ck_assert_msg(engine_load(kept, &g, &err) == L3D_OK, "%s", err.msg);
		engine *fresh = make_engine(&g, &r, NULL, 2);
		for (size_t k = 0; k < sizeof calls / sizeof *calls; k++) {
			engine_stats a, b;
			ck_assert_int_eq(engine_step(fresh, calls[k], &a, NULL), L3D_OK);
			ck_assert_int_eq(engine_step(kept, calls[k], &b, NULL), L3D_OK);
			assert_stats(&b, &a, rules[_i], u);
		}
		ck_assert_int_eq(engine_read(fresh, &want, NULL), L3D_OK);
		assert_same(kept, &want, rules[_i], u);
		ck_assert_msg(engine_repeats(kept) == engine_repeats(fresh), "%s soup %d: repeats %d",
			      rules[_i], u, engine_repeats(fresh));
		engine_destroy(fresh);
	}
	/* -v's share is over every universe's steps */
	double share = stepped_percent(kept);
	ck_assert_msg(share > 0 && share <= 100, "%s: %g%% of tiles stepped", rules[_i], share);
	grid other;
	ck_assert_int_eq(grid_alloc(&other, 16, 16, 17, NULL), L3D_OK);
	ck_assert_int_eq(engine_load(kept, &other, &err), L3D_ERR_USAGE);
	ck_assert_str_eq(err.msg, "engine 'cpu': a 16x16x17 universe loaded into one of 16x16x16");
	engine_destroy(kept);
	grid_free(&other);
	grid_free(&want);
	grid_free(&g);
}
END_TEST

/* ---- the knobs (engine/knobs.h) ---- */

/* A made-up environment: NAME=VALUE entries, NULL-ended. */
static const char *const *fake_env;

static char *fake_get(const char *name)
{
	size_t n = strlen(name);
	for (const char *const *e = fake_env; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return (char *)*e + n + 1;
	return NULL;
}

/* Read the knobs from env; the status. */
static int read_knobs(const char *const *env, engine_knobs *k, l3d_err *err)
{
	fake_env = env;
	return engine_knobs_read(k, fake_get, err);
}

START_TEST(knobs_are_read_and_checked)
{
	engine_knobs k;
	l3d_err err = {0, ""};
	static const char *const none[] = {NULL};
	ck_assert_int_eq(read_knobs(none, &k, &err), L3D_OK);
	ck_assert(!k.dense && !k.simd && !k.cpu_tile && !k.cpu_stream && !k.rule_table);
	ck_assert(!k.launch && !k.cuda_tune && !k.halo_depth && !k.halo && !k.cuda_visible);
	static const char *const all[] = {
		"LIFE3D_SKIP=0", "LIFE3D_SIMD=AVX2", "LIFE3D_CPU_TILE=12", "LIFE3D_CPU_STREAM=0",
		"LIFE3D_CPU_RULE_CODE=0", "LIFE3D_CUDA_LAUNCH=Graph",
		"LIFE3D_CUDA_TUNE=fuse=2,tiles=1,warps=-1", "LIFE3D_HALO_DEPTH=3", "LIFE3D_HALO=MPI",
		"LIFE3D_DRIVER_GPUS=/tmp/g", "CUDA_VISIBLE_DEVICES=", "CUDA_DEVICE_ORDER=PCI_BUS_ID",
		NULL};
	ck_assert_int_eq(read_knobs(all, &k, &err), L3D_OK);
	ck_assert(k.dense && k.rule_table);
	ck_assert_str_eq(k.simd, "avx2");
	ck_assert_uint_eq(k.cpu_tile, 12);
	ck_assert_int_eq(k.cpu_stream, -1);
	ck_assert_str_eq(k.launch, "graph");
	ck_assert_str_eq(k.cuda_tune, "fuse=2,tiles=1,warps=-1");
	ck_assert_uint_eq(k.halo_depth, 3);
	ck_assert_str_eq(k.halo, "mpi");
	ck_assert_str_eq(k.driver_gpus, "/tmp/g");
	ck_assert_str_eq(k.cuda_visible, "");     /* empty hides every GPU: kept */
	ck_assert_str_eq(k.device_order, "PCI_BUS_ID");
	static const char *const empty[] = {"LIFE3D_SKIP=", "LIFE3D_CPU_STREAM=", NULL};
	ck_assert_int_eq(read_knobs(empty, &k, &err), L3D_OK);
	ck_assert(!k.dense && !k.cpu_stream);
	static const struct {
		const char *env, *said;
	} bad[] = {
		{"LIFE3D_SKIP=yes", "LIFE3D_SKIP: 'yes' is not 0 or 1"},
		{"LIFE3D_CPU_STREAM=2", "LIFE3D_CPU_STREAM: '2' is not 0 or 1"},
		{"LIFE3D_SIMD=sse9", "LIFE3D_SIMD: 'sse9' is not auto, avx512, avx2 or portable"},
		{"LIFE3D_CPU_TILE=0", "LIFE3D_CPU_TILE: '0' is not a whole number"},
		{"LIFE3D_HALO_DEPTH=1073741825", "LIFE3D_HALO_DEPTH: '1073741825' is not a whole"},
		{"LIFE3D_HALO=nccl2", "LIFE3D_HALO: 'nccl2' is not auto, nccl, mpi or staged"},
		{"LIFE3D_CUDA_LAUNCH=graphs", "LIFE3D_CUDA_LAUNCH: 'graphs' is not plain, graph"},
		{"LIFE3D_CUDA_TUNE=tile=1", "LIFE3D_CUDA_TUNE: 'tile=1' is not KEY=NUMBER"},
		{"LIFE3D_CUDA_TUNE=fuse=2,", "LIFE3D_CUDA_TUNE: 'fuse=2,' is not"},
		{"LIFE3D_CUDA_TUNE=fuse", "LIFE3D_CUDA_TUNE: 'fuse' is not"},
		{"LIFE3D_CUDA_TUNE=fuse=x", "LIFE3D_CUDA_TUNE: 'fuse=x' is not"},
		{"LIFE3D_CUDA_TUNE=fuse=9999999999", "LIFE3D_CUDA_TUNE: 'fuse=9999999999' is not"},
		{"LIFE3D_MPI_STAGING=1", "LIFE3D_MPI_STAGING is no longer read: use LIFE3D_HALO=staged"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *env[] = {bad[i].env, NULL};
		err.msg[0] = '\0';
		ck_assert_int_eq(read_knobs(env, &k, &err), L3D_ERR_USAGE);
		ck_assert_msg(strncmp(err.msg, bad[i].said, strlen(bad[i].said)) == 0,
			      "%s: '%s'", bad[i].env, err.msg);
	}
}
END_TEST

/* Every variable of the table is in life3d(1)'s ENVIRONMENT. */
START_TEST(knobs_are_in_the_manual)
{
	const char *srcdir = getenv("SRCDIR");
	if (!srcdir)
		return; /* only the harness knows where the sources are */
	char path[4200];
	snprintf(path, sizeof path, "%s/man/life3d.1", srcdir);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	static char man[1 << 20];
	size_t n = fread(man, 1, sizeof man - 1, f);
	fclose(f);
	man[n] = '\0';
	const char *env = strstr(man, "\n.SH ENVIRONMENT\n");
	ck_assert_ptr_nonnull(env);
	size_t i = 0;
	for (const char *name; (name = engine_knob_name(i)); i++) {
		char item[80];
		snprintf(item, sizeof item, "\n.B %s\n", name);
		const char *at = strstr(env, item);
		snprintf(item, sizeof item, "\n.BR %s ", name);
		const char *or = strstr(env, item);
		ck_assert_msg(at || or, "life3d(1)'s ENVIRONMENT lacks %s", name);
	}
	ck_assert_uint_ge(i, 12);
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *t = tcase_create("reference");
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, random_universes_match_reference, 0,
			    (int)(sizeof sizes / sizeof *sizes));
	tcase_add_loop_test(t, random_hoods_match_reference, 0,
			    (int)(sizeof sizes / sizeof *sizes));
	tcase_add_loop_test(t, rows_two_a_vector_match_reference, 0,
			    (int)(sizeof two_row_sizes / sizeof *two_row_sizes));
	tcase_add_test(t, slabs_with_separate_halos_match_reference);
	tcase_add_loop_test(t, skipping_matches_dense, 0,
			    (int)(sizeof skip_cases / sizeof *skip_cases));
	tcase_add_loop_test(t, slab_halos_two_generations_back, 0, 4);
	suite_add_tcase(s, t);
	t = tcase_create("patterns");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, block_is_still);
	tcase_add_test(t, blinker_has_period_two);
	tcase_add_test(t, glider_moves_diagonally);
	tcase_add_test(t, b5s45_glider_moves);
	suite_add_tcase(s, t);
	t = tcase_create("rule code");
	tcase_add_loop_test(t, rule_code_matches_rule, 0, 2);
	tcase_add_loop_test(t, rule_code_is_said, 0, 2);
	suite_add_tcase(s, t);
	t = tcase_create("interface");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, simd_paths_are_chosen_and_checked);
	tcase_add_test(t, cpu_rate_follows_threads_and_path);
	tcase_add_test(t, cpu_rate_follows_rule_and_rows);
	tcase_add_test(t, estimate_tells_soups_from_chaos);
	tcase_add_test(t, gpus_to_set_up_follow_nodes_and_visible);
	tcase_add_test(t, one_gpu_is_named_only_when_sure);
	tcase_add_test(t, views_match_the_universe);
	tcase_add_test(t, renders_without_an_engine_of_their_own);
	tcase_add_test(t, random_grid_is_deterministic);
	tcase_add_test(t, handover_keeps_the_trajectory);
	tcase_add_test(t, knobs_are_read_and_checked);
	tcase_add_loop_test(t, one_engine_many_universes, 0, 5);
	tcase_add_test(t, knobs_are_in_the_manual);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(engine_suite(), true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
