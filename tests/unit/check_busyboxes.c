/* check_busyboxes.c - Golly's BusyBoxes rules: their names, the engine
 * against the reference stepper (tests/tools/reference.c, from Golly's own
 * table of the 28 cells), and patterns whose behaviour follows from the
 * rule's definition. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "base/rule.h"
#include "engine/busyboxes.h"
#include "engine/cuda/device.h"
#include "engine/choose.h"
#include "reference.h"

static rule bb_rule(const char *text)
{
	rule r;
	l3d_err err = {0, ""};
	ck_assert_msg(rule_parse(text, &r, &err) == L3D_OK, "%s", err.msg);
	return r;
}

START_TEST(test_names)
{
	static const char *const mirror[] = {"BusyBoxes", "busyboxes", "BB", "bb", "BUSYBOXES"};
	static const char *const wrap[] = {"BusyBoxesW", "BBW", "bbw", "busyboxesw"};
	char buf[64];
	for (size_t i = 0; i < sizeof mirror / sizeof *mirror; i++) {
		rule r = bb_rule(mirror[i]);
		ck_assert_uint_eq(r.family, RULE_BUSYBOXES);
		ck_assert(rule_is_busyboxes(&r));
		rule_format(&r, buf, sizeof buf);
		ck_assert_str_eq(buf, "BusyBoxes");
		rule_format_golly(&r, buf, sizeof buf);
		ck_assert_str_eq(buf, "BusyBoxes");
	}
	for (size_t i = 0; i < sizeof wrap / sizeof *wrap; i++) {
		rule r = bb_rule(wrap[i]);
		ck_assert_uint_eq(r.family, RULE_BUSYBOXES_WRAP);
		rule_format_golly(&r, buf, sizeof buf);
		ck_assert_str_eq(buf, "BusyBoxesW");
	}
	rule a = bb_rule("BB"), b = bb_rule("BBW"), c = bb_rule("BusyBoxes");
	ck_assert(!rule_equal(&a, &b) && rule_equal(&a, &c));
	ck_assert(!rule_equal(&a, &rule_default) && !rule_is_busyboxes(&rule_default));
	/* not names of Golly's: refused as rules of counts */
	rule r;
	l3d_err err;
	ck_assert_int_eq(rule_parse("BusyBoxesM", &r, &err), L3D_ERR_USAGE);
	ck_assert_int_eq(rule_parse("BBX", &r, &err), L3D_ERR_USAGE);
}
END_TEST

static engine *make(const grid *g, const rule *r)
{
	engine_opts o = {.kind = "cpu", .threads = 1, .device = -1};
	engine *e = NULL;
	l3d_err err = {0, ""};
	ck_assert_msg(engine_create(&o, g, r, &e, &err) == L3D_OK, "%s", err.msg);
	return e;
}

/* Random universes, both boundaries, every phase to start from: the
 * engine's universe and counts equal the reference's at every step. */
static const uint64_t sizes[][3] = {
	{8, 8, 8}, {10, 8, 12}, {16, 6, 14}, {12, 12, 2}, {4, 4, 4}, {2, 6, 8}, {20, 20, 20},
};

START_TEST(test_random_match_reference)
{
	const uint64_t *n = sizes[_i];
	for (int wrap = 0; wrap < 2; wrap++)
		for (uint64_t start = 0; start < 6; start++) {
			grid g, got;
			ck_assert_int_eq(grid_alloc(&g, n[0], n[1], n[2], NULL), L3D_OK);
			ck_assert_int_eq(grid_alloc(&got, n[0], n[1], n[2], NULL), L3D_OK);
			grid_random(&g, start % 2 ? 0.05 : 0.3, 100 + start + 7 * (uint64_t)_i);
			g.generation = start + 6 * (uint64_t)wrap;   /* phase start */
			uint64_t pop = grid_population(&g);
			rule r = bb_rule(wrap ? "BBW" : "BB");
			engine *e = make(&g, &r);
			ref_universe u;
			ck_assert_int_eq(ref_from_grid(&u, &g), 0);
			uint64_t moves = 0;
			for (int step = 1; step <= 30; step++) {
				uint64_t moved;
				ref_step_busyboxes(&u, g.generation + (uint64_t)step - 1, !wrap, &moved);
				engine_stats st;
				ck_assert_int_eq(engine_step(e, 1, &st, NULL), L3D_OK);
				ck_assert_int_eq(engine_read(e, &got, NULL), L3D_OK);
				grid want;
				ck_assert_int_eq(grid_alloc(&want, n[0], n[1], n[2], NULL), L3D_OK);
				ref_to_grid(&u, &want);
				ck_assert_msg(grid_equal(&got, &want),
					      "%llux%llux%llu %s from phase %llu: differs at step %d",
					      (unsigned long long)n[0], (unsigned long long)n[1],
					      (unsigned long long)n[2], wrap ? "BBW" : "BB",
					      (unsigned long long)start, step);
				ck_assert_uint_eq(st.births, moved);
				ck_assert_uint_eq(st.deaths, moved);
				ck_assert_uint_eq(st.population, grid_population(&want));
				/* at least 8 a side, nothing is lost or merged */
				if (n[0] >= 8 && n[1] >= 8 && n[2] >= 8)
					ck_assert_uint_eq(st.population, pop);
				moves += moved;
				grid_free(&want);
			}
			if (n[0] >= 8 && n[1] >= 8 && n[2] >= 8 && pop > 20)
				ck_assert_msg(moves > 0, "nothing ever moved: a test that cannot fail");
			ref_free(&u);
			engine_destroy(e);
			grid_free(&g);
			grid_free(&got);
		}
}
END_TEST

/* Two cells, O of even x+y+z and A a knight's move from it at O+(2,-1,0):
 * A activates O's swap to O+(1,1,0) alone, so O moves in phase 0; in
 * phase 3 O, now at A+(-1,2,0), activates A's swap the same way; in the
 * other phases neither lies in the other's plane.  So the pair moves by
 * (1,1,0) every 6 generations: around a 16^3 torus in 96. */
static void place_pair(grid *g, uint64_t x, uint64_t y, uint64_t z)
{
	grid_set(g, x % g->nx, y % g->ny, z, 1);
	grid_set(g, (x + 2) % g->nx, (y + g->ny - 1) % g->ny, z, 1);
}

START_TEST(test_pair_moves)
{
	grid g, want, got;
	ck_assert_int_eq(grid_alloc(&g, 16, 16, 16, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&want, 16, 16, 16, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&got, 16, 16, 16, NULL), L3D_OK);
	place_pair(&g, 4, 4, 4);
	rule r = bb_rule("BBW");
	engine *e = make(&g, &r);
	for (uint64_t k = 1; k <= 16; k++) {
		engine_stats st;
		ck_assert_int_eq(engine_step(e, 6, &st, NULL), L3D_OK);
		memset(want.bits, 0, grid_bytes(&want));
		place_pair(&want, (4 + k) % 16, (4 + k) % 16, 4);
		ck_assert_int_eq(engine_read(e, &got, NULL), L3D_OK);
		ck_assert_msg(grid_equal(&got, &want), "the pair after %llu periods",
			      (unsigned long long)k);
		ck_assert_uint_eq(st.population, 2);
	}
	ck_assert(grid_equal(&got, &g));      /* back where it began */
	engine_destroy(e);
	/* The same pair one generation later in Golly's count (phase 1) does
	 * not move until phase 3, when A moves first: O, at A+(-2,1,0), is the
	 * activator of A's swap to A+(-1,-1,0) alone. */
	g.generation = 1;
	e = make(&g, &r);
	ck_assert_int_eq(engine_step(e, 2, NULL, NULL), L3D_OK);
	ck_assert_int_eq(engine_read(e, &got, NULL), L3D_OK);
	ck_assert(grid_equal(&got, &g));
	ck_assert_int_eq(engine_step(e, 1, NULL, NULL), L3D_OK);
	ck_assert_int_eq(engine_read(e, &got, NULL), L3D_OK);
	ck_assert_int_eq(grid_get(&got, 5, 2, 4), 1);         /* A: (6,3,4) + (-1,-1,0) */
	ck_assert_int_eq(grid_get(&got, 6, 3, 4), 0);
	ck_assert_int_eq(grid_get(&got, 4, 4, 4), 1);
	engine_destroy(e);
	grid_free(&g);
	grid_free(&want);
	grid_free(&got);
}
END_TEST

/* At the face, BusyBoxes refuses the move that BusyBoxesW wraps. */
START_TEST(test_faces)
{
	grid g, got;
	ck_assert_int_eq(grid_alloc(&g, 8, 8, 8, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&got, 8, 8, 8, NULL), L3D_OK);
	place_pair(&g, 3, 7, 2);                  /* O's swap goes to y = 8 */
	for (int wrap = 0; wrap < 2; wrap++) {
		rule r = bb_rule(wrap ? "BBW" : "BB");
		uint64_t moved = busyboxes_step(&g, 0, !wrap, &got);
		ck_assert_uint_eq(moved, (uint64_t)wrap);
		ck_assert_int_eq(grid_get(&got, 4, 0, 2), wrap);    /* (3,7,2) + (1,1,0) */
		ck_assert_int_eq(grid_get(&got, 3, 7, 2), !wrap);
		(void)r;
	}
	/* a lone cell never moves, nor do cells too far apart to see each other */
	memset(g.bits, 0, grid_bytes(&g));
	grid_set(&g, 2, 2, 2, 1);
	grid_set(&g, 6, 6, 6, 1);
	for (uint64_t gen = 0; gen < 12; gen++) {
		ck_assert_uint_eq(busyboxes_step(&g, gen, true, &got), 0);
		ck_assert(grid_equal(&g, &got));
	}
	grid_free(&g);
	grid_free(&got);
}
END_TEST

/* Golly's rule: even sides only; and the GPU is not asked. */
START_TEST(test_refusals)
{
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 8, 7, 8, NULL), L3D_OK);
	rule r = bb_rule("BB");
	engine_opts o = {.kind = "cpu", .threads = 1, .device = -1};
	engine *e = NULL;
	l3d_err err = {0, ""};
	ck_assert_int_eq(engine_create(&o, &g, &r, &e, &err), L3D_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "BusyBoxes needs an even number of cells along "
				     "each axis; this universe is 8x7x8"));
	grid_free(&g);
	ck_assert_int_eq(grid_alloc(&g, 8, 8, 8, NULL), L3D_OK);
	o.kind = "cuda";          /* the GPU's engine, where there is one (check_cuda) */
	if (cuda_device_count() == 0) {
		ck_assert_int_eq(engine_create(&o, &g, &r, &e, &err), L3D_ERR_UNAVAILABLE);
		ck_assert_ptr_nonnull(strstr(err.msg, "engine 'cuda'"));
	}
	grid_free(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("busyboxes");
	TCase *t = tcase_create("busyboxes");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_names);
	tcase_add_loop_test(t, test_random_match_reference, 0, (int)(sizeof sizes / sizeof *sizes));
	tcase_add_test(t, test_pair_moves);
	tcase_add_test(t, test_faces);
	tcase_add_test(t, test_refusals);
	suite_add_tcase(s, t);
	return run_suite(s, true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
