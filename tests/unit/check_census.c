/* check_census.c - cell sets, components, neighbourhood groups and the
 * census's canonical codes.  The expectations are worked out here apart
 * from object.c: groups by a brute force of their own, components by a
 * flood fill over a box, codes by hand. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "census/object.h"

/* ---- helpers ---- */

typedef int8_t mat[3][3];

/* A set of cells from a list of triples that ends at INT32_MIN. */
static cellset set_of(const int32_t *v)
{
	cellset s;
	cellset_init(&s);
	for (; *v != INT32_MIN; v += 3)
		ck_assert_int_eq(cellset_push(&s, v[0], v[1], v[2], NULL), L3D_OK);
	return s;
}

#define SET(...) set_of((const int32_t[]){__VA_ARGS__, INT32_MIN})

/* Bit (dx+1)*9+(dy+1)*3+dz+1 for each offset of N, or of M N. */
static uint32_t hood_mask(rule_hood h, const mat *m)
{
	uint32_t mask = 0;
	const hood_def *t = &hood_table[h];
	for (unsigned i = 0; i < t->cells; i++) {
		int v[3];
		for (int r = 0; r < 3; r++)
			v[r] = m ? (*m)[r][0] * t->offset[i][0] + (*m)[r][1] * t->offset[i][1] +
					   (*m)[r][2] * t->offset[i][2]
				 : t->offset[i][r];
		if (v[0] < -1 || v[0] > 1 || v[1] < -1 || v[1] > 1 || v[2] < -1 || v[2] > 1)
			return 0;
		mask |= UINT32_C(1) << ((v[0] + 1) * 9 + (v[1] + 1) * 3 + v[2] + 1);
	}
	return mask;
}

static bool maps_hood(rule_hood h, const mat *m)
{
	return hood_mask(h, m) == hood_mask(h, NULL);
}

static void mat_mul(const mat *a, const mat *b, mat *out)
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			(*out)[r][c] = (int8_t)((*a)[r][0] * (*b)[0][c] + (*a)[r][1] * (*b)[1][c] +
						(*a)[r][2] * (*b)[2][c]);
}

static int group_find(const census_group *g, const mat *m)
{
	for (int k = 0; k < g->n; k++)
		if (!memcmp(g->m[k], *m, sizeof *m))
			return k;
	return -1;
}

static bool signed_permutation(const mat *m)
{
	for (int r = 0; r < 3; r++) {
		int nonzero = 0;
		for (int c = 0; c < 3; c++)
			nonzero += (*m)[r][c] != 0;
		if (nonzero != 1)
			return false;
	}
	return true;   /* with a nonzero determinant, which maps_hood implies */
}

/* s turned by m and moved by t, into a new set. */
static cellset moved(const cellset *s, const mat *m, const int t[3])
{
	cellset out;
	cellset_init(&out);
	for (size_t i = 0; i < s->n; i++) {
		int32_t v[3], c[3] = {s->c[i].x, s->c[i].y, s->c[i].z};
		for (int r = 0; r < 3; r++)
			v[r] = (*m)[r][0] * c[0] + (*m)[r][1] * c[1] + (*m)[r][2] * c[2] + t[r];
		ck_assert_int_eq(cellset_push(&out, v[0], v[1], v[2], NULL), L3D_OK);
	}
	return out;
}

static void turn_vec(const mat *m, const int d[3], int out[3])
{
	for (int r = 0; r < 3; r++)
		out[r] = (*m)[r][0] * d[0] + (*m)[r][1] * d[1] + (*m)[r][2] * d[2];
}

static census_name name_ok(const cellset *phases, int period, const int d[3],
			   const census_group *g)
{
	census_name nm;
	l3d_err err = {0, ""};
	int rc = census_code(phases, period, d, g, &nm, &err);
	ck_assert_msg(rc == L3D_OK, "census_code: %s", err.msg);
	return nm;
}

static const mat identity = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const mat mirror_x = {{-1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* ---- cell sets ---- */

START_TEST(test_cellset)
{
	cellset s = SET(2, 0, 0, -1, 5, 5, 2, 0, 0, -1, 5, 4, 0, 0, 0, -1, 5, 5);
	cellset_sort(&s);
	ck_assert_uint_eq(s.n, 4);
	const census_cell want[4] = {{-1, 5, 4}, {-1, 5, 5}, {0, 0, 0}, {2, 0, 0}};
	ck_assert(!memcmp(s.c, want, sizeof want));

	cellset t = SET(-1, 5, 4, -1, 5, 5, 0, 0, 0, 2, 0, 0);
	int d[3] = {7, 7, 7}, by[3] = {3, -4, 0};
	ck_assert(cellset_same_shape(&s, &t, d));
	ck_assert(d[0] == 0 && d[1] == 0 && d[2] == 0);
	ck_assert_int_eq(cellset_translate(&t, by, NULL), L3D_OK);
	ck_assert(cellset_same_shape(&s, &t, d));
	ck_assert(d[0] == 3 && d[1] == -4 && d[2] == 0);
	t.c[3].z++;   /* one cell off: no longer a translate */
	ck_assert(!cellset_same_shape(&s, &t, d));
	t.n--;
	ck_assert(!cellset_same_shape(&s, &t, d));

	/* A move past int32 fails and changes nothing. */
	int far[3] = {0, 0, INT32_MAX - 4};
	l3d_err err = {0, ""};
	ck_assert_int_eq(cellset_translate(&s, far, &err), L3D_ERR_DATA);
	ck_assert_int_eq(err.code, L3D_ERR_DATA);
	ck_assert(!memcmp(s.c, want, sizeof want));

	cellset_clear(&s);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_ge(s.cap, 4);
	cellset_free(&s);
	cellset_free(&t);
	ck_assert(s.c == NULL && s.n == 0 && s.cap == 0);
}
END_TEST

/* ---- groups ---- */

START_TEST(test_group_sizes)
{
	for (int h = 0; h < RULE_HOODS; h++) {
		census_group g;
		census_group_of((rule_hood)h, &g);
		ck_assert_msg(g.n == 48, "%s: %d symmetries", hood_table[h].name, g.n);
		ck_assert(!memcmp(g.m[0], identity, sizeof identity));
		/* Every matrix of {-1,0,1}^9 that maps N onto N, counted here
		 * without object.c's bound of 48, and each found in g. */
		int found = 0;
		for (int code = 0; code < 19683; code++) {
			mat m;
			for (int e = 0, c = code; e < 9; e++, c /= 3)
				m[e / 3][e % 3] = (int8_t)(c % 3 - 1);
			if (maps_hood((rule_hood)h, &m)) {
				found++;
				ck_assert(group_find(&g, &m) >= 0);
			}
		}
		ck_assert_int_eq(found, g.n);
	}
}
END_TEST

START_TEST(test_group_closed)
{
	for (int h = 0; h < RULE_HOODS; h++) {
		census_group g;
		census_group_of((rule_hood)h, &g);
		for (int a = 0; a < g.n; a++) {
			ck_assert_msg(maps_hood((rule_hood)h, &g.m[a]), "%s: element %d",
				      hood_table[h].name, a);
			ck_assert_int_eq(group_find(&g, &g.m[a]), a);   /* no repeats */
			for (int b = 0; b < g.n; b++) {
				mat p;
				mat_mul(&g.m[a], &g.m[b], &p);
				ck_assert(group_find(&g, &p) >= 0);
			}
		}
	}
}
END_TEST

START_TEST(test_group_hex)
{
	/* Moore, F, C, E: exactly the 48 signed permutations.  H: not the
	 * mirror x -> -x, and elements that are no signed permutation. */
	census_group g;
	for (int h = 0; h < RULE_HEX; h++) {
		census_group_of((rule_hood)h, &g);
		for (int k = 0; k < g.n; k++)
			ck_assert(signed_permutation(&g.m[k]));
		ck_assert(group_find(&g, &mirror_x) >= 0);
	}
	census_group_of(RULE_HEX, &g);
	ck_assert_int_eq(group_find(&g, &mirror_x), -1);
	int skew = 0;
	for (int k = 0; k < g.n; k++)
		skew += !signed_permutation(&g.m[k]);
	ck_assert_int_gt(skew, 0);
	/* Out of range: Moore's. */
	census_group m, bad;
	census_group_of(RULE_MOORE, &m);
	census_group_of(RULE_HOODS, &bad);
	ck_assert(!memcmp(&m, &bad, sizeof m));
}
END_TEST

/* ---- components ---- */

static size_t components(const cellset *s, rule_hood h, uint32_t *label)
{
	size_t count = 99;
	l3d_err err = {0, ""};
	ck_assert_int_eq(cellset_components(s, h, label, &count, &err), L3D_OK);
	return count;
}

/* Two 2x2x2 blocks, the second `gap` empty cells past the first along x. */
static size_t two_blocks(int gap, rule_hood h)
{
	cellset s;
	cellset_init(&s);
	for (int b = 0; b < 2; b++)
		for (int i = 0; i < 8; i++)
			ck_assert_int_eq(cellset_push(&s, b * (2 + gap) + (i >> 2), i >> 1 & 1,
						      i & 1, NULL), L3D_OK);
	cellset_sort(&s);
	uint32_t label[16];
	size_t n = components(&s, h, label);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(label[i], n == 2 ? (uint32_t)(i >= 8) : 0);
	cellset_free(&s);
	return n;
}

START_TEST(test_components_blocks)
{
	ck_assert_uint_eq(two_blocks(2, RULE_MOORE), 2);
	ck_assert_uint_eq(two_blocks(1, RULE_MOORE), 1);
	ck_assert_uint_eq(two_blocks(0, RULE_MOORE), 1);
	ck_assert_uint_eq(two_blocks(3, RULE_MOORE), 2);
}
END_TEST

static size_t pair(rule_hood h, int dx, int dy, int dz)
{
	cellset s = SET(0, 0, 0, dx, dy, dz);
	cellset_sort(&s);
	uint32_t label[2];
	size_t n = components(&s, h, label);
	ck_assert(label[0] == 0 && label[1] == n - 1);
	cellset_free(&s);
	return n;
}

START_TEST(test_components_face)
{
	ck_assert_uint_eq(pair(RULE_FACE, 1, 1, 0), 1);   /* in N+N, not N */
	ck_assert_uint_eq(pair(RULE_FACE, 1, 0, 0), 1);   /* in N, not N+N */
	ck_assert_uint_eq(pair(RULE_FACE, 0, 0, -2), 1);
	ck_assert_uint_eq(pair(RULE_FACE, 3, 0, 0), 2);
	ck_assert_uint_eq(pair(RULE_FACE, 1, 1, 1), 2);
	ck_assert_uint_eq(pair(RULE_CORNER, 1, 0, 0), 2);
	ck_assert_uint_eq(pair(RULE_CORNER, 2, 0, 0), 1);
	ck_assert_uint_eq(pair(RULE_MOORE, 2, -2, 2), 1);
	ck_assert_uint_eq(pair(RULE_MOORE, 3, 0, 0), 2);
	ck_assert_uint_eq(pair(RULE_HEX, 1, 1, 0), 1);    /* (1,0,0) + (0,1,0) */
	ck_assert_uint_eq(pair(RULE_HEX, 1, 1, 1), 2);    /* no two of H sum to it */
	ck_assert_uint_eq(pair(RULE_HEX, 1, 1, -2), 1);   /* (1,0,-1) + (0,1,-1) */
}
END_TEST

START_TEST(test_components_order)
{
	/* Sorted: a (0,0,0), b (0,9,0), c (5,0,0), d (6,9,0), e (7,0,0);
	 * only c and e are joined ((2,0,0) is in N+N), and e, after d, takes
	 * c's number: 0 1 2 3 2. */
	cellset s = SET(7, 0, 0, 0, 9, 0, 6, 9, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0);
	cellset_sort(&s);
	uint32_t label[5];
	ck_assert_uint_eq(components(&s, RULE_MOORE, label), 4);
	const uint32_t want[5] = {0, 1, 2, 3, 2};
	ck_assert(!memcmp(label, want, sizeof want));
	cellset_free(&s);
}
END_TEST

/* Components by a flood fill of an n^3 box, numbered by first cell in
 * (x, y, z) order, which is the box's index order. */
#define BOX 24
static size_t flood(const uint8_t *alive, rule_hood h, int32_t *comp)
{
	int off[26 * 27 + 1][3], no = 0;   /* repeats kept: harmless */
	const hood_def *t = &hood_table[h];
	for (unsigned i = 0; i < t->cells; i++)
		for (unsigned j = 0; j <= t->cells; j++) {
			for (int a = 0; a < 3; a++)
				off[no][a] = t->offset[i][a] + (j < t->cells ? t->offset[j][a] : 0);
			no += off[no][0] || off[no][1] || off[no][2];
		}
	static int stack[BOX * BOX * BOX];
	size_t k = 0;
	for (int i = 0; i < BOX * BOX * BOX; i++)
		comp[i] = -1;
	for (int i = 0; i < BOX * BOX * BOX; i++) {
		if (!alive[i] || comp[i] >= 0)
			continue;
		int top = 0;
		stack[top++] = i;
		comp[i] = (int32_t)k;
		while (top) {
			int c = stack[--top], x = c / (BOX * BOX), y = c / BOX % BOX, z = c % BOX;
			for (int o = 0; o < no; o++) {
				int X = x + off[o][0], Y = y + off[o][1], Z = z + off[o][2];
				int q = (X * BOX + Y) * BOX + Z;
				if (X < 0 || Y < 0 || Z < 0 || X >= BOX || Y >= BOX || Z >= BOX ||
				    !alive[q] || comp[q] >= 0)
					continue;
				comp[q] = (int32_t)k;
				stack[top++] = q;
			}
		}
		k++;
	}
	return k;
}

START_TEST(test_components_random)
{
	static uint8_t alive[BOX * BOX * BOX];
	static int32_t comp[BOX * BOX * BOX];
	static uint32_t label[BOX * BOX * BOX];
	uint64_t r = 12345;
	for (int h = 0; h < RULE_HOODS; h++)
		for (int density = 2; density <= 30; density += 7) {
			cellset s;
			cellset_init(&s);
			for (int i = 0; i < BOX * BOX * BOX; i++) {
				r = r * 6364136223846793005u + 1442695040888963407u;
				alive[i] = (r >> 33) % 100 < (uint64_t)density;
				if (alive[i])
					ck_assert_int_eq(cellset_push(&s, i / (BOX * BOX) - 9,
								      i / BOX % BOX - 30, i % BOX,
								      NULL), L3D_OK);
			}
			size_t want = flood(alive, (rule_hood)h, comp);
			ck_assert_uint_eq(components(&s, (rule_hood)h, label), want);
			for (int i = 0, j = 0; i < BOX * BOX * BOX; i++)
				if (alive[i])
					ck_assert_int_eq(label[j++], comp[i]);
			cellset_free(&s);
		}
}
END_TEST

START_TEST(test_components_errors)
{
	cellset s;
	cellset_init(&s);
	size_t n = 5;
	l3d_err err = {0, ""};
	ck_assert_int_eq(cellset_components(&s, RULE_FACE, NULL, &n, &err), L3D_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(cellset_components(&s, RULE_HOODS, NULL, &n, &err), L3D_ERR_DATA);
}
END_TEST

/* ---- codes ---- */

/* phases (period of them) named under g equal every turn, move and start
 * phase of themselves: same code, kind, period, population, d, cells. */
static void check_invariant(const cellset *phases, int period, const int d[3],
			    const census_group *g)
{
	census_name base = name_ok(phases, period, d, g);
	const int moves[3][3] = {{0, 0, 0}, {-1000, 7, -3}, {5, -200000, 99}};
	cellset *turned = calloc((size_t)period, sizeof *turned);
	for (int e = 0; e < g->n; e++)
		for (int t = 0; t < 3; t++)
			for (int start = 0; start < period; start++) {
				for (int p = 0; p < period; p++)
					turned[p] = moved(&phases[(p + start) % period], &g->m[e],
							  moves[t]);
				int td[3];
				turn_vec(&g->m[e], d, td);
				census_name nm = name_ok(turned, period, td, g);
				ck_assert_msg(!strcmp(nm.code, base.code), "%s != %s (element %d)",
					      nm.code, base.code, e);
				ck_assert(nm.kind == base.kind && nm.period == base.period &&
					  nm.population == base.population);
				ck_assert(!memcmp(nm.d, base.d, sizeof nm.d));
				ck_assert_uint_eq(nm.cells.n, base.cells.n);
				ck_assert(!memcmp(nm.cells.c, base.cells.c,
						  nm.cells.n * sizeof *nm.cells.c));
				census_name_free(&nm);
				for (int p = 0; p < period; p++)
					cellset_free(&turned[p]);
			}
	free(turned);
	census_name_free(&base);
}

static const int still[3] = {0, 0, 0};

static void expect_code(const cellset *phases, int period, const int d[3],
			const census_group *g, const char *code)
{
	census_name nm = name_ok(phases, period, d, g);
	ck_assert_str_eq(nm.code, code);
	census_name_free(&nm);
}

START_TEST(test_code_block)
{
	census_group g;
	census_group_of(RULE_MOORE, &g);
	cellset block = SET(0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0,
			    1, 1, 1);
	census_name nm = name_ok(&block, 1, still, &g);
	ck_assert_str_eq(nm.code, "xs8_2x2x2_ff");
	ck_assert_int_eq(nm.kind, 's');
	ck_assert_int_eq(nm.period, 1);
	ck_assert_uint_eq(nm.population, 8);
	ck_assert(nm.cells.n == 8 && !memcmp(nm.cells.c, block.c, sizeof *block.c * 8));
	census_name_free(&nm);
	check_invariant(&block, 1, still, &g);
	census_group_of(RULE_HEX, &g);
	check_invariant(&block, 1, still, &g);
	cellset_free(&block);
}
END_TEST

START_TEST(test_code_by_hand)
{
	census_group g;
	census_group_of(RULE_MOORE, &g);
	/* Two cells: box 1x1x2, bits 0 and 1. */
	cellset two = SET(4, -3, 8, 5, -3, 8);
	expect_code(&two, 1, still, &g, "xs2_1x1x2_3");
	/* Three of a 2x2 square: box 1x2x2; the missing cell may be any bit
	 * of 0..3, and "7" (bit 3, (y,z) = (1,1), missing) is the least. */
	cellset ell = SET(0, 0, 0, 1, 0, 0, 0, 0, -1);
	census_name nm = name_ok(&ell, 1, still, &g);
	ck_assert_str_eq(nm.code, "xs3_1x2x2_7");
	const census_cell want[3] = {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}};
	ck_assert(nm.cells.n == 3 && !memcmp(nm.cells.c, want, sizeof want));
	census_name_free(&nm);
	/* Two digits, the second holding bit 4 alone: 1x1x5, cells z=0,4. */
	cellset gap = SET(0, 0, 0, 0, 4, 0);
	expect_code(&gap, 1, still, &g, "xs2_1x1x5_11");
	cellset_free(&two);
	cellset_free(&ell);
	cellset_free(&gap);
}
END_TEST

START_TEST(test_code_blinker)
{
	/* x=0..2, y=0, z=0..1 and x=1, y=-1..1, z=0..1: boxes 3x1x2 and
	 * 1x3x2, the least turn of either 1x2x3, all 6 bits: digits f, 3. */
	cellset ph[2] = {SET(0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 2, 0, 0, 2, 0, 1),
			 SET(1, -1, 0, 1, -1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1)};
	census_group g;
	census_group_of(RULE_MOORE, &g);
	census_name nm = name_ok(ph, 2, still, &g);
	ck_assert_str_eq(nm.code, "xp2_1x2x3_f3");
	ck_assert_int_eq(nm.kind, 'p');
	ck_assert_uint_eq(nm.population, 6);
	census_name_free(&nm);
	check_invariant(ph, 2, still, &g);
	/* Its first phase alone is a still life, named by population. */
	expect_code(ph, 1, still, &g, "xs6_1x2x3_f3");
	cellset_free(&ph[0]);
	cellset_free(&ph[1]);
}
END_TEST

/* Conway's Life on a small board, for the glider's phases. */
#define LB 12
static void life_step(uint8_t b[LB][LB])
{
	uint8_t n[LB][LB];
	for (int x = 0; x < LB; x++)
		for (int y = 0; y < LB; y++) {
			int c = 0;
			for (int dx = -1; dx <= 1; dx++)
				for (int dy = -1; dy <= 1; dy++)
					if ((dx || dy) && x + dx >= 0 && x + dx < LB && y + dy >= 0 &&
					    y + dy < LB)
						c += b[x + dx][y + dy];
			n[x][y] = c == 3 || (c == 2 && b[x][y]);
		}
	memcpy(b, n, sizeof n);
}

/* The 3D glider: Conway's, each cell at z = 0 and z = 1; 5 phases, the
 * fifth the first moved. */
static void glider_phases(cellset ph[5])
{
	uint8_t b[LB][LB] = {{0}};
	b[3][2] = b[4][3] = b[2][4] = b[3][4] = b[4][4] = 1;
	for (int p = 0; p < 5; p++) {
		cellset_init(&ph[p]);
		for (int x = 0; x < LB; x++)
			for (int y = 0; y < LB; y++)
				for (int z = 0; z < 2 && b[x][y]; z++)
					ck_assert_int_eq(cellset_push(&ph[p], x - 6, y - 6, z, NULL),
							 L3D_OK);
		life_step(b);
	}
}

START_TEST(test_code_glider)
{
	cellset ph[5];
	glider_phases(ph);
	int d[3];
	ck_assert(cellset_same_shape(&ph[0], &ph[4], d));
	ck_assert(d[0] == 1 && d[1] == 1 && d[2] == 0);
	census_group g;
	census_group_of(RULE_MOORE, &g);
	census_name nm = name_ok(ph, 4, d, &g);
	ck_assert_msg(!strncmp(nm.code, "xq4_", 4), "%s", nm.code);
	ck_assert_int_eq(nm.kind, 'q');
	ck_assert_uint_eq(nm.population, 10);
	int zeros = 0, ones = 0;
	for (int a = 0; a < 3; a++) {
		zeros += nm.d[a] == 0;
		ones += abs(nm.d[a]) == 1;
	}
	ck_assert(zeros == 1 && ones == 2);
	/* Some phase under some element is the canonical one, d turned by
	 * that same element. */
	bool seen = false;
	for (int p = 0; p < 4 && !seen; p++)
		for (int e = 0; e < g.n && !seen; e++) {
			cellset t = moved(&ph[p], &g.m[e], still);
			int td[3], by[3];
			turn_vec(&g.m[e], d, td);
			cellset_sort(&t);
			seen = cellset_same_shape(&t, &nm.cells, by) && !memcmp(td, nm.d, sizeof td);
			cellset_free(&t);
		}
	ck_assert(seen);
	census_name_free(&nm);
	check_invariant(ph, 4, d, &g);
	for (int p = 0; p < 5; p++)
		cellset_free(&ph[p]);
}
END_TEST

START_TEST(test_code_distinct)
{
	census_group g;
	census_group_of(RULE_MOORE, &g);
	cellset block = SET(0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0,
			    1, 1, 1);
	cellset slab = SET(0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0);
	cellset corner = SET(0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0);
	cellset diag = SET(0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1);
	cellset *objs[4] = {&block, &slab, &corner, &diag};
	char *codes[8];
	int n = 0;
	for (int o = 0; o < 4; o++)
		for (int period = 1; period <= 2; period++) {
			cellset ph[2] = {*objs[o], *objs[o]};
			census_name nm = name_ok(ph, period, still, &g);
			codes[n++] = strdup(nm.code);
			census_name_free(&nm);
		}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			ck_assert_msg(strcmp(codes[i], codes[j]), "%s twice", codes[i]);
	ck_assert_str_eq(codes[2], "xs4_1x2x2_f");
	ck_assert_str_eq(codes[3], "xp2_1x2x2_f");
	for (int i = 0; i < n; i++)
		free(codes[i]);
	for (int o = 0; o < 4; o++)
		cellset_free(objs[o]);
}
END_TEST

START_TEST(test_code_chiral)
{
	/* An object without symmetry and its mirror x -> -x: one name under
	 * the Moore group, which holds the mirror, two under H's. */
	cellset obj = SET(0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 3, 0, 1);
	cellset mir = moved(&obj, &mirror_x, still);
	census_group g;
	census_group_of(RULE_MOORE, &g);
	census_name a = name_ok(&obj, 1, still, &g), b = name_ok(&mir, 1, still, &g);
	ck_assert_str_eq(a.code, b.code);
	census_name_free(&a);
	census_name_free(&b);
	census_group_of(RULE_HEX, &g);
	a = name_ok(&obj, 1, still, &g);
	b = name_ok(&mir, 1, still, &g);
	ck_assert_msg(strcmp(a.code, b.code), "H: %s for both", a.code);
	census_name_free(&a);
	census_name_free(&b);
	check_invariant(&obj, 1, still, &g);
	cellset_free(&obj);
	cellset_free(&mir);
}
END_TEST

START_TEST(test_code_errors)
{
	census_group g;
	census_group_of(RULE_MOORE, &g);
	cellset ph[2] = {SET(0, 0, 0), {NULL, 0, 0}};
	census_name nm;
	l3d_err err = {0, ""};
	ck_assert_int_eq(census_code(ph, 2, still, &g, &nm, &err), L3D_ERR_DATA);
	ck_assert(nm.code == NULL && nm.cells.n == 0);
	census_name_free(&nm);
	ck_assert_int_eq(census_code(ph, 0, still, &g, &nm, &err), L3D_ERR_DATA);
	/* 1 x 4097 x 4097 cells is over CENSUS_MAX_BOX; 1 x 4096 x 4096 not. */
	cellset big = SET(0, 0, 0, 0, 4096, 4096);
	ck_assert_int_eq(census_code(&big, 1, still, &g, &nm, &err), L3D_ERR_DATA);
	ck_assert(nm.code == NULL);
	big.c[1].y = big.c[1].z = 4095;
	ck_assert_int_eq(census_code(&big, 1, still, &g, &nm, &err), L3D_OK);
	ck_assert_uint_eq(strlen(nm.code), strlen("xs2_1x4096x4096_") + 4096 * 4096 / 4);
	census_name_free(&nm);
	cellset_free(&big);
	cellset_free(&ph[0]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("census");
	TCase *tc = tcase_create("census");
	tcase_add_test(tc, test_cellset);
	tcase_add_test(tc, test_group_sizes);
	tcase_add_test(tc, test_group_closed);
	tcase_add_test(tc, test_group_hex);
	tcase_add_test(tc, test_components_blocks);
	tcase_add_test(tc, test_components_face);
	tcase_add_test(tc, test_components_order);
	tcase_add_test(tc, test_components_random);
	tcase_add_test(tc, test_components_errors);
	tcase_add_test(tc, test_code_block);
	tcase_add_test(tc, test_code_by_hand);
	tcase_add_test(tc, test_code_blinker);
	tcase_add_test(tc, test_code_glider);
	tcase_add_test(tc, test_code_distinct);
	tcase_add_test(tc, test_code_chiral);
	tcase_add_test(tc, test_code_errors);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return run_suite(s, true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
