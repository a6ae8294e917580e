/* check_picture.c - the colour map and the 3D render, as pure functions:
 * the map's documented control points and its rising lightness; counts to
 * entries; a render the same in any split of its rows, and changed by the
 * cells it should show. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "base/colormap.h"
#include "base/render.h"
#include "run/pngwrite.h"
#include "run/snapshot.h"

/* CIE L* of an sRGB colour, the lightness the map must raise. */
static double lightness(const uint8_t c[3])
{
	double lin[3];
	for (int k = 0; k < 3; k++) {
		double v = c[k] / 255.0;
		lin[k] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	double y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
	return y > 216.0 / 24389 ? 116 * cbrt(y) - 16 : y * 24389.0 / 27;
}

START_TEST(map_has_its_control_points)
{
	/* matplotlib's viridis at 0, 64, 85, 128, 192 and 255 (its
	 * _viridis_data rounded to bytes; 85 is #31688E, a third of the
	 * way). */
	static const struct { unsigned i; uint8_t rgb[3]; } at[] = {
		{0, {0x44, 0x01, 0x54}}, {64, {0x3B, 0x52, 0x8B}}, {85, {0x31, 0x68, 0x8E}},
		{128, {0x21, 0x91, 0x8C}}, {192, {0x5E, 0xC9, 0x62}}, {255, {0xFD, 0xE7, 0x25}},
	};
	for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
		uint8_t c[3];
		colormap_rgb(at[k].i, c);
		ck_assert_mem_eq(c, at[k].rgb, 3);
	}
}
END_TEST

START_TEST(map_lightness_rises_and_zero_stands_apart)
{
	uint8_t c[3], black[3] = {0, 0, 0};
	colormap_rgb(0, c);
	double prev = lightness(c);
	/* The map's darkest colour is well apart from black (empty). */
	ck_assert(prev - lightness(black) > 10);
	/* Rising from entry to entry, but for the rounding of a colour to
	 * whole bytes (a small fraction of one unit of L*); and every eight
	 * entries by more than that. */
	double lights[256];
	for (unsigned i = 0; i < 256; i++) {
		colormap_rgb(i, c);
		lights[i] = lightness(c);
		if (i)
			ck_assert_msg(lights[i] > prev - 0.25, "lightness falls at entry %u", i);
		if (i >= 8)
			ck_assert_msg(lights[i] > lights[i - 8] + 0.5,
				      "lightness flat near entry %u", i);
		prev = lights[i];
	}
}
END_TEST

START_TEST(counts_to_entries)
{
	ck_assert_uint_eq(colormap_index(1, 128), 0);
	ck_assert_uint_eq(colormap_index(128, 128), 255);
	ck_assert_uint_eq(colormap_index(500, 128), 255);
	ck_assert_uint_eq(colormap_index(2, 4), 85);
	ck_assert_uint_eq(colormap_index(3, 4), 170);
	ck_assert_uint_eq(colormap_index(1, 1), 255);
	/* Rising with the count, for a reference of any size. */
	for (uint64_t c = 2; c <= 1000; c++)
		ck_assert_uint_ge(colormap_index(c, 1000), colormap_index(c - 1, 1000));
}
END_TEST

static uint8_t *render_all(const render_view *v, const grid *g, uint32_t band)
{
	uint8_t *rgb = malloc((size_t)v->width * v->height * 3);
	ck_assert_ptr_nonnull(rgb);
	for (uint32_t j = 0; j < v->height; j += band) {
		uint32_t n = v->height - j < band ? v->height - j : band;
		render_rows(v, g, j, n, rgb + (size_t)j * v->width * 3);
	}
	return rgb;
}

START_TEST(render_is_the_same_in_any_bands)
{
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 23, 17, 70, NULL), L3D_OK);
	grid_random(&g, 0.05, 11);
	render_view v;
	render_setup(&v, g.nx, g.ny, g.nz, 30, 25, 3);
	uint64_t w, h;
	render_size(g.nx, g.ny, g.nz, 30, 25, 3, &w, &h);
	ck_assert_uint_eq(v.width, w);
	ck_assert_uint_eq(v.height, h);
	uint8_t *one = render_all(&v, &g, v.height), *rows = render_all(&v, &g, 1),
		*odd = render_all(&v, &g, 7);
	size_t bytes = (size_t)v.width * v.height * 3;
	ck_assert_mem_eq(one, rows, bytes);
	ck_assert_mem_eq(one, odd, bytes);
	/* Another universe, another picture. */
	grid_random(&g, 0.05, 12);
	uint8_t *other = render_all(&v, &g, v.height);
	ck_assert(memcmp(one, other, bytes) != 0);
	free(one);
	free(rows);
	free(odd);
	free(other);
	grid_free(&g);
}
END_TEST

START_TEST(render_shows_the_cell_in_front)
{
	/* Seen from +x along the axis (azimuth 0, elevation 0), cell (x, y, z)
	 * covers the pixels of (y, z); of two cells on one line the one with
	 * the higher x is in front and nearer: lighter. */
	grid g;
	ck_assert_int_eq(grid_alloc(&g, 8, 8, 8, NULL), L3D_OK);
	render_view v;
	render_setup(&v, 8, 8, 8, 0, 0, 4);
	grid_set(&g, 1, 3, 3, 1);
	uint8_t *far = render_all(&v, &g, 5);
	grid_set(&g, 6, 3, 3, 1);
	uint8_t *both = render_all(&v, &g, 5);
	/* The centre of cell (y 3, z 3): y runs right, z up. */
	uint32_t margin = 4 + 4, i = margin + 3 * 4 + 2, j = margin + (7 - 3) * 4 + 2;
	const uint8_t *p = far + ((size_t)j * v.width + i) * 3, *q = both + ((size_t)j * v.width + i) * 3;
	ck_assert(p[0] + p[1] + p[2] < q[0] + q[1] + q[2]);
	/* The rest of the picture is unchanged. */
	size_t diff = 0;
	for (size_t k = 0; k < (size_t)v.width * v.height * 3; k++)
		diff += far[k] != both[k];
	ck_assert(diff > 0 && diff <= 4 * 4 * 3);
	free(far);
	free(both);
	grid_free(&g);
}
END_TEST

/* Drawn cell by cell, every picture is the one drawn ray by ray: sparse
 * and dense universes, odd boxes, views along the axes and the diagonals
 * (where rays run along cell edges and walks break ties), and several
 * scales. */
START_TEST(render_cells_is_render_rows)
{
	static const double views[][2] = {
		{30, 25}, {0, 0}, {-90, 90}, {45, 45}, {45, 35.2643897}, {90, 0},
		{180, -30}, {-135, -60}, {12.5, 80}, {270, 45}, {0, -90}, {-45, 0},
	};
	static const uint64_t boxes[][3] = {{7, 5, 9}, {16, 16, 16}, {1, 12, 3}, {20, 3, 33}};
	static const double densities[] = {0.002, 0.03, 0.3};
	uint64_t seed = 1, pictures = 0;
	for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; b++)
		for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++)
			for (size_t k = 0; k < sizeof views / sizeof views[0]; k++) {
				grid g;
				ck_assert_int_eq(grid_alloc(&g, boxes[b][0], boxes[b][1],
							    boxes[b][2], NULL), L3D_OK);
				grid_random(&g, densities[d], seed++);
				render_view v;
				render_setup(&v, g.nx, g.ny, g.nz, views[k][0], views[k][1],
					     1 + (b + k) % 4);
				uint8_t *rows = render_all(&v, &g, v.height);
				uint8_t *cells = malloc((size_t)v.width * v.height * 3);
				ck_assert_ptr_nonnull(cells);
				ck_assert_int_eq(render_cells(&v, &g, 1 + (int)(k % 3), cells, NULL), L3D_OK);
				size_t bytes = (size_t)v.width * v.height * 3, first = 0;
				while (first < bytes && rows[first] == cells[first])
					first++;
				ck_assert_msg(first == bytes,
					      "box %zu density %g view %g,%g: pixel %zu differs",
					      b, densities[d], views[k][0], views[k][1], first / 3);
				pictures++;
				free(rows);
				free(cells);
				grid_free(&g);
			}
	ck_assert_uint_eq(pictures, 4 * 3 * 12);
}
END_TEST

/* The largest --snapshot-size a PNG allows is taken for every kind: the
 * least scale past it is stepped back to the largest that fits. */
START_TEST(largest_size_fits)
{
	const snapshot_kind kinds[] = {SNAP_PROJECTION, SNAP_SLICE, SNAP_RENDER};
	const uint64_t shapes[][3] = {{3, 3, 3}, {8, 8, 8}, {7, 5, 3}};
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 3; i++) {
			snapshot_opts o = {.prefix = "t-", .kind = kinds[k], .axis = 2,
					   .azimuth = 30, .elevation = 25, .threads = 1};
			uint64_t bytes;
			l3d_err err = {0, ""};
			ck_assert_msg(snapshot_fit(&o, shapes[i], PNGW_MAX_EDGE, &bytes, &err) == L3D_OK,
				      "kind %d, shape %d: %s", k, i, err.msg);
			ck_assert_uint_gt(o.scale, 1);
			/* One more pixel a cell would not fit. */
			snapshot_opts more = o;
			more.scale = o.scale + 1;
			ck_assert_int_eq(snapshot_fit(&more, shapes[i], PNGW_MAX_EDGE, &bytes, &err),
					 L3D_ERR_USAGE);
		}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("picture");
	TCase *tc = tcase_create("picture");
	tcase_add_test(tc, map_has_its_control_points);
	tcase_add_test(tc, map_lightness_rises_and_zero_stands_apart);
	tcase_add_test(tc, counts_to_entries);
	tcase_add_test(tc, render_is_the_same_in_any_bands);
	tcase_add_test(tc, render_shows_the_cell_in_front);
	tcase_add_test(tc, render_cells_is_render_rows);
	tcase_add_test(tc, largest_size_fits);
	suite_add_tcase(s, tc);
	return run_suite(s, true) ? 1 : 0;
}
