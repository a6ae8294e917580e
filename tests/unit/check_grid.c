/* check_grid.c - the packed universe: sizes, bit layout, views, the
 * seeded generator. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "base/grid.h"

START_TEST(sizes_are_checked)
{
	l3d_err err = {0, ""};
	ck_assert_int_eq(grid_check_size(1, 1, 1, "t", &err), L3D_OK);
	ck_assert_int_eq(grid_check_size(0, 4, 4, "t", &err), L3D_ERR_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "t: size 0x4x4"));
	ck_assert_int_eq(grid_check_size(GRID_MAX_EDGE + 1, 1, 1, "t", &err), L3D_ERR_DATA);
	ck_assert_int_eq(grid_check_size(GRID_MAX_EDGE, GRID_MAX_EDGE, GRID_MAX_EDGE, "t", &err),
			 L3D_ERR_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "too many cells"));
	/* Packed rows of 2^61 bytes would fit, but the cells number 2^64 + ... */
	err.msg[0] = 0;
	ck_assert_int_eq(grid_check_size(UINT64_C(1) << 24, UINT64_C(1) << 24, 65600, "t", &err),
			 L3D_ERR_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "too many cells"));
	/* ... and just under 2^64 cells is still representable. */
	ck_assert_int_eq(grid_check_size(UINT64_C(1) << 24, UINT64_C(1) << 24, 65535, "t", &err),
			 L3D_OK);
}
END_TEST

START_TEST(layout_is_z_fastest_bits)
{
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 3, 2, 70, NULL), L3D_OK);
	ck_assert_uint_eq(g.words, 2);
	grid_set(&g, 2, 1, 65, 1);
	/* row (2,1) is the 6th row: words 10 and 11; z 65 is bit 1 of 11 */
	ck_assert_uint_eq(g.bits[11], 2);
	ck_assert_int_eq(grid_get(&g, 2, 1, 65), 1);
	ck_assert_uint_eq(grid_population(&g), 1);
	ck_assert_uint_eq(grid_tail_mask(&g), 0x3f);
	grid_set(&g, 2, 1, 65, 0);
	ck_assert_uint_eq(grid_population(&g), 0);
	grid_free(&g);
}
END_TEST

START_TEST(rows_pack_and_unpack)
{
	grid g;
	uint8_t in[130], out[130];
	ck_assert_int_eq(grid_alloc(&g, 1, 1, 130, NULL), L3D_OK);
	for (int i = 0; i < 130; i++)
		in[i] = (uint8_t)((i * 7 + i / 3) % 2);
	ck_assert_int_eq(grid_row_pack(&g, 0, 0, in), 0);
	grid_row_unpack(&g, 0, 0, out);
	ck_assert_mem_eq(in, out, 130);
	ck_assert_uint_eq(g.bits[2] & ~grid_tail_mask(&g), 0);
	in[5] = 2;
	ck_assert_int_eq(grid_row_pack(&g, 0, 0, in), -1);
	grid_free(&g);
}
END_TEST

START_TEST(random_is_seeded_and_dense_as_asked)
{
	grid a, b;
	ck_assert_int_eq(grid_alloc(&a, 20, 21, 67, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&b, 20, 21, 67, NULL), L3D_OK);
	grid_random(&a, 0.3, 99);
	grid_random(&b, 0.3, 99);
	ck_assert(grid_equal(&a, &b));
	grid_random(&b, 0.3, 100);
	ck_assert(!grid_equal(&a, &b));
	double frac = (double)grid_population(&a) / (double)grid_cells(&a);
	ck_assert_double_le(fabs(frac - 0.3), 0.02);
	grid_random(&a, 1.0, 5);
	ck_assert_uint_eq(grid_population(&a), grid_cells(&a));
	grid_random(&a, 0.0, 5);
	ck_assert_uint_eq(grid_population(&a), 0);
	grid_free(&a);
	grid_free(&b);
}
END_TEST

/* Universes of 4 MiB and more come zeroed from the kernel at a 2 MiB
 * boundary (grid.c), touched or not: a freed one reused must be zero
 * again, and every population, through popcnt or not, agrees with
 * counting bit by bit. */
START_TEST(large_grids_are_zero_and_counted)
{
	for (int round = 0; round < 2; round++) {
		grid g;
		ck_assert_int_eq(grid_alloc(&g, 130, 70, 4100, NULL), L3D_OK);
		ck_assert_uint_eq((uintptr_t)g.bits % ((uintptr_t)2 << 20), 0);
		size_t words = grid_bytes(&g) / 8;
		ck_assert_uint_ge(grid_bytes(&g), (size_t)4 << 20);
		if (round)
			grid_touch(&g);     /* its pages made on every core: still zero */
		uint64_t any = 0;
		for (size_t i = 0; i < words; i++)
			any |= g.bits[i];
		ck_assert_uint_eq(any, 0);
		grid_random(&g, round ? 0.9 : 0.37, 7 + (uint64_t)round);
		/* Bit by bit over a stretch with an odd start and length
		 * (slow under the sanitizers, so not the whole grid); the
		 * whole grid then by both counts. */
		size_t from = 3, len = 100001;
		uint64_t bits = 0;
		for (size_t i = from; i < from + len; i++)
			for (int b = 0; b < 64; b++)
				bits += (g.bits[i] >> b) & 1;
		ck_assert_uint_eq(words_population(g.bits + from, len), bits);
		ck_assert_uint_eq(words_population_portable(g.bits + from, len), bits);
		ck_assert_uint_eq(grid_population(&g),
				  words_population_portable(g.bits, words));
		grid_free(&g);
		ck_assert_ptr_null(g.bits);
	}
	const uint64_t edge[] = {0, 1, 0x8000000000000000u, ~(uint64_t)0, 0x5555555555555555u};
	for (int i = 0; i < 5; i++)
		ck_assert_uint_eq(words_population_portable(&edge[i], 1),
				  (uint64_t)__builtin_popcountll(edge[i]));
}
END_TEST

/* Views against cell-by-cell counting on a box with three different edges. */
START_TEST(views_match_cells)
{
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 5, 6, 7, NULL), L3D_OK);
	grid_random(&g, 0.4, 3);
	for (int axis = 0; axis < 3; axis++) {
		uint64_t w, h, len[3] = {5, 6, 7};
		grid_view_dims(&g, axis, &w, &h);
		uint32_t *counts = calloc(w * h, sizeof *counts);
		uint8_t *cells = calloc(w * h, 1);
		grid_project(&g, axis, counts);
		grid_slice(&g, axis, 2, cells);
		for (uint64_t v = 0; v < h; v++)
			for (uint64_t u = 0; u < w; u++) {
				uint32_t n = 0;
				for (uint64_t k = 0; k < len[axis]; k++) {
					uint64_t c[3];
					c[axis] = k;
					c[axis == 0 ? 1 : 0] = u;
					c[axis == 2 ? 1 : 2] = v;
					n += (uint32_t)grid_get(&g, c[0], c[1], c[2]);
					if (k == 2)
						ck_assert_uint_eq(cells[v * w + u],
								  grid_get(&g, c[0], c[1], c[2]));
				}
				ck_assert_uint_eq(counts[v * w + u], n);
			}
		free(counts);
		free(cells);
	}
	grid_free(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grid");
	TCase *tc = tcase_create("grid");
	tcase_add_test(tc, sizes_are_checked);
	tcase_add_test(tc, layout_is_z_fastest_bits);
	tcase_add_test(tc, rows_pack_and_unpack);
	tcase_add_test(tc, random_is_seeded_and_dense_as_asked);
	tcase_add_test(tc, views_match_cells);
	suite_add_tcase(s, tc);
	TCase *big = tcase_create("large");
	tcase_add_test(big, large_grids_are_zero_and_counted);
	tcase_set_timeout(big, 60);
	suite_add_tcase(s, big);
	return run_suite(s, true) ? 1 : 0;
}
