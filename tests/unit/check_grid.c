/* check_grid.c - the packed universe: sizes, bit layout, views, the
 * seeded generator; the host memory limits, read from fake /proc and
 * /sys/fs/cgroup trees. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "base/grid.h"
#include "base/hostmem.h"

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

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
/* Golly's random fill, cell by cell in doubles as 3D.lua writes it: the
 * box leaves n / 8 (rounded down) at each end, the ball is centred at
 * (n - 1) / 2 with radius half the box's shortest edge and takes the cells
 * with round(dx^2) + round(dy^2) + round(dz^2) <= round(r^2). */
static bool in_shape(uint64_t x, uint64_t y, uint64_t z, const uint64_t n[3], grid_shape shape)
{
	uint64_t c[3] = {x, y, z};
	double edge = 1e300, sum = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t m = n[i] < 8 ? 0 : n[i] / 8;
		if (c[i] < m || c[i] > n[i] - 1 - m)
			return false;
		edge = fmin(edge, (double)(n[i] - 2 * m));
		double d = (double)c[i] - ((double)n[i] - 1) / 2;
		sum += floor(d * d + 0.5);
	}
	return shape == GRID_BOX || sum <= floor(edge / 2 * edge / 2 + 0.5);
}

START_TEST(random_shapes_are_golly_s)
{
	static const uint64_t sizes[][3] = {{30, 30, 30}, {31, 31, 31}, {7, 9, 70}, {64, 17, 130}, {8, 8, 8}};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		for (int shape = GRID_BOX; shape <= GRID_BALL; shape++) {
			const uint64_t *n = sizes[k];
			grid g, slab;
			l3d_err err;
			ck_assert_int_eq(grid_alloc(&g, n[0], n[1], n[2], &err), L3D_OK);
			grid_random(&g, 1.0, 3);
			grid_keep_shape(&g, 0, n[0], (grid_shape)shape);
			uint64_t count = 0;
			for (uint64_t x = 0; x < n[0]; x++)
				for (uint64_t y = 0; y < n[1]; y++)
					for (uint64_t z = 0; z < n[2]; z++) {
						bool want = in_shape(x, y, z, n, (grid_shape)shape);
						ck_assert_msg(grid_get(&g, x, y, z) == want,
							      "%llux%llux%llu shape %d: cell %llu,%llu,%llu",
							      (unsigned long long)n[0], (unsigned long long)n[1],
							      (unsigned long long)n[2], shape, (unsigned long long)x,
							      (unsigned long long)y, (unsigned long long)z);
						count += want;
					}
			ck_assert_uint_eq(grid_population(&g), count);
			/* A slab of it, as a rank makes it, is the same planes. */
			uint64_t x0 = n[0] / 3, w = n[0] - x0 > 3 ? 3 : n[0] - x0;
			ck_assert_int_eq(grid_alloc(&slab, w, n[1], n[2], &err), L3D_OK);
			grid_random_planes(&slab, x0, 1.0, 3);
			grid_keep_shape(&slab, x0, n[0], (grid_shape)shape);
			ck_assert(memcmp(slab.bits, grid_row(&g, x0, 0), grid_bytes(&slab)) == 0);
			grid_free(&slab);
			grid_free(&g);
		}
	/* Golly's own figures on its cubes: 30 -> 24^3 and a ball of 7400. */
	grid g;
	l3d_err err;
	ck_assert_int_eq(grid_alloc(&g, 30, 30, 30, &err), L3D_OK);
	grid_random(&g, 1.0, 1);
	grid_keep_shape(&g, 0, 30, GRID_BOX);
	ck_assert_uint_eq(grid_population(&g), 24 * 24 * 24);
	grid_random(&g, 1.0, 1);
	grid_keep_shape(&g, 0, 30, GRID_BALL);
	ck_assert_uint_eq(grid_population(&g), 7400);
	grid_free(&g);
}
END_TEST

START_TEST(large_grids_are_zero_and_counted)
{
	for (int round = 0; round < 2; round++) {
		grid g;
		ck_assert_int_eq(grid_alloc(&g, 130, 70, 4100, NULL), L3D_OK);
		/* mapped at a huge page, but for AddressSanitizer (grid.c) */
		ck_assert_uint_eq((uintptr_t)g.bits % (UNDER_ASAN ? 64 : (uintptr_t)2 << 20), 0);
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

/* ---- host memory, over files of the test's own ---- */

static char fake[64];

/* Write text to fake/rel, making its directories. */
static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", fake, rel);
	for (char *c = path + strlen(fake) + 1; *c; c++)
		if (*c == '/') {
			*c = 0;
			mkdir(path, 0755);
			*c = '/';
		}
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void fake_tree(void)
{
	snprintf(fake, sizeof fake, "/tmp/check_grid.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fake));
}

static void fake_gone(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fake);
	ck_assert_int_eq(system(cmd), 0);
}

static size_t cgroup_left(char *which, size_t size)
{
	char proc[96], cg[96];
	snprintf(proc, sizeof proc, "%s/proc", fake);
	snprintf(cg, sizeof cg, "%s/cg", fake);
	return host_cgroup_left(proc, cg, which, size);
}

START_TEST(meminfo_and_rlimits_are_read)
{
	char proc[96];
	fake_tree();
	snprintf(proc, sizeof proc, "%s/proc", fake);
	ck_assert_uint_eq(host_meminfo_available(proc), SIZE_MAX);
	put("proc/meminfo", "MemTotal:       64000 kB\nMemFree:  100 kB\nMemAvailable:    3000 kB\n");
	ck_assert_uint_eq(host_meminfo_available(proc), 3000 * 1024);
	/* Without a status file the limit is all there is to go by. */
	ck_assert_uint_eq(host_rlimit_left(1 << 20, proc, "VmSize:"), 1 << 20);
	put("proc/self/status", "Name:\tlife3d\nVmPeak:\t  9000 kB\nVmSize:\t  2000 kB\n"
	    "VmData:\t   500 kB\n");
	ck_assert_uint_eq(host_rlimit_left(4000 * 1024, proc, "VmSize:"), 2000 * 1024);
	ck_assert_uint_eq(host_rlimit_left(4000 * 1024, proc, "VmData:"), 3500 * 1024);
	ck_assert_uint_eq(host_rlimit_left(1000 * 1024, proc, "VmSize:"), 0);
	ck_assert_uint_eq(host_rlimit_left(SIZE_MAX, proc, "VmSize:"), SIZE_MAX);
	fake_gone();
}
END_TEST

START_TEST(cgroup_v2_limits_bind_from_every_parent)
{
	char which[256];
	fake_tree();
	/* No cgroup file, then one naming a cgroup with no files: no limit. */
	ck_assert_uint_eq(cgroup_left(which, sizeof which), SIZE_MAX);
	put("proc/self/cgroup", "0::/job/step\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), SIZE_MAX);
	ck_assert_str_eq(which, "");
	put("cg/job/step/memory.max", "max\n");
	put("cg/job/step/memory.current", "100\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), SIZE_MAX);
	/* The job's limit binds its step, whose own says "max". */
	put("cg/job/memory.max", "10000\n");
	put("cg/job/memory.current", "4000\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), 6000);
	ck_assert_str_eq(which, "memory.max of the cgroup /job");
	/* The step's own, smaller, binds once set; a root's (a container's)
	 * smaller still, then. */
	put("cg/job/step/memory.max", "1100\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), 1000);
	ck_assert_str_eq(which, "memory.max of the cgroup /job/step");
	put("cg/memory.max", "900\n");
	put("cg/memory.current", "800\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), 100);
	ck_assert_str_eq(which, "memory.max of the cgroup /");
	/* Usage past the limit leaves nothing. */
	put("cg/job/memory.current", "20000\n");
	ck_assert_uint_eq(cgroup_left(NULL, 0), 0);
	fake_gone();
}
END_TEST

START_TEST(cgroup_v1_memory_controller_wins)
{
	char which[256];
	fake_tree();
	/* Hybrid: the v1 memory controller holds the limits, not v2's tree. */
	put("proc/self/cgroup", "12:cpu,cpuacct:/other\n0::/unified\n"
	    "5:memory:/slurm/uid_1/job_7\n3:pids:/x\n");
	put("cg/unified/memory.max", "10\n");
	put("cg/unified/memory.current", "0\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), SIZE_MAX);
	put("cg/memory/slurm/uid_1/job_7/memory.limit_in_bytes", "2147483648\n");
	put("cg/memory/slurm/uid_1/job_7/memory.usage_in_bytes", "1073741824\n");
	/* v1's "unlimited" is a huge number, not "max". */
	put("cg/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("cg/memory/memory.usage_in_bytes", "5000000000\n");
	ck_assert_uint_eq(cgroup_left(which, sizeof which), 1073741824);
	ck_assert_str_eq(which, "memory.limit_in_bytes of the cgroup /slurm/uid_1/job_7");
	/* A controller list that names memory among others. */
	put("proc/self/cgroup", "5:blkio,memory:/slurm/uid_1/job_7\n");
	ck_assert_uint_eq(cgroup_left(NULL, 0), 1073741824);
	fake_gone();
}
END_TEST

START_TEST(the_least_limit_is_the_one_named)
{
	char proc[96], cg[96], which[256];
	struct rlimit as, data;
	ck_assert_int_eq(getrlimit(RLIMIT_AS, &as), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_DATA, &data), 0);
	fake_tree();
	snprintf(proc, sizeof proc, "%s/proc", fake);
	snprintf(cg, sizeof cg, "%s/cg", fake);
	put("proc/meminfo", "MemAvailable:    3000 kB\n");
	put("proc/self/cgroup", "0::/job\n");
	put("cg/job/memory.max", "2000000\n");
	put("cg/job/memory.current", "1000000\n");
	size_t least = host_memory_limit(proc, cg, which, sizeof which);
	ck_assert_uint_le(least, 1000000);
	/* The test's own rlimits are real ones: with none, the cgroup's. */
	if (as.rlim_cur == RLIM_INFINITY && data.rlim_cur == RLIM_INFINITY) {
		ck_assert_uint_eq(least, 1000000);
		ck_assert_str_eq(which, "memory.max of the cgroup /job");
		put("cg/job/memory.max", "max\n");
		ck_assert_uint_eq(host_memory_limit(proc, cg, which, sizeof which), 3000 * 1024);
		ck_assert_str_eq(which, "MemAvailable");
	}
	fake_gone();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grid");
	TCase *tc = tcase_create("grid");
	tcase_add_test(tc, sizes_are_checked);
	tcase_add_test(tc, layout_is_z_fastest_bits);
	tcase_add_test(tc, random_shapes_are_golly_s);
	tcase_add_test(tc, rows_pack_and_unpack);
	tcase_add_test(tc, random_is_seeded_and_dense_as_asked);
	tcase_add_test(tc, views_match_cells);
	tcase_add_test(tc, meminfo_and_rlimits_are_read);
	tcase_add_test(tc, cgroup_v2_limits_bind_from_every_parent);
	tcase_add_test(tc, cgroup_v1_memory_controller_wins);
	tcase_add_test(tc, the_least_limit_is_the_one_named);
	suite_add_tcase(s, tc);
	TCase *big = tcase_create("large");
	tcase_add_test(big, large_grids_are_zero_and_counted);
	tcase_set_timeout(big, 60);
	suite_add_tcase(s, big);
	return run_suite(s, true) ? 1 : 0;
}
