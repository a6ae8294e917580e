/* object.c - cell sets, components, neighbourhood symmetries and the
 * census's canonical codes (object.h says what each one promises). */
#include "census/object.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cellset_init(cellset *s)
{
	s->c = NULL;
	s->n = s->cap = 0;
}

void cellset_free(cellset *s)
{
	free(s->c);
	cellset_init(s);
}

void cellset_clear(cellset *s)
{
	s->n = 0;
}

int cellset_push(cellset *s, int32_t x, int32_t y, int32_t z, l3d_err *err)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16, bytes;
		census_cell *c;
		if (l3d_mul_size(cap, sizeof *c, &bytes) || !(c = realloc(s->c, bytes)))
			return l3d_fail(err, L3D_ERR_RUNTIME,
					"out of memory: a set of %zu cells", s->n + 1);
		s->c = c;
		s->cap = cap;
	}
	s->c[s->n++] = (census_cell){x, y, z};
	return L3D_OK;
}

static int cell_cmp(const census_cell *a, const census_cell *b)
{
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return (a->z > b->z) - (a->z < b->z);
}

static int cell_qcmp(const void *a, const void *b)
{
	return cell_cmp(a, b);
}

void cellset_sort(cellset *s)
{
	if (s->n < 2)
		return;
	qsort(s->c, s->n, sizeof *s->c, cell_qcmp);
	size_t kept = 1;
	for (size_t i = 1; i < s->n; i++)
		if (cell_cmp(&s->c[i], &s->c[kept - 1]))
			s->c[kept++] = s->c[i];
	s->n = kept;
}

static bool fits_int32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

int cellset_translate(cellset *s, const int d[3], l3d_err *err)
{
	/* Checked first in full, so that a failure leaves s as it was. */
	for (size_t i = 0; i < s->n; i++)
		if (!fits_int32((int64_t)s->c[i].x + d[0]) ||
		    !fits_int32((int64_t)s->c[i].y + d[1]) ||
		    !fits_int32((int64_t)s->c[i].z + d[2]))
			return l3d_fail(err, L3D_ERR_DATA,
					"moving by (%d,%d,%d) leaves the int32 range",
					d[0], d[1], d[2]);
	for (size_t i = 0; i < s->n; i++) {
		s->c[i].x += d[0];
		s->c[i].y += d[1];
		s->c[i].z += d[2];
	}
	return L3D_OK;
}

bool cellset_same_shape(const cellset *a, const cellset *b, int d[3])
{
	if (a->n != b->n)
		return false;
	int64_t m[3] = {0, 0, 0};
	if (a->n) {
		m[0] = (int64_t)b->c[0].x - a->c[0].x;
		m[1] = (int64_t)b->c[0].y - a->c[0].y;
		m[2] = (int64_t)b->c[0].z - a->c[0].z;
	}
	for (int k = 0; k < 3; k++)
		if (m[k] < INT_MIN || m[k] > INT_MAX)
			return false;
	for (size_t i = 1; i < a->n; i++)
		if ((int64_t)b->c[i].x - a->c[i].x != m[0] ||
		    (int64_t)b->c[i].y - a->c[i].y != m[1] ||
		    (int64_t)b->c[i].z - a->c[i].z != m[2])
			return false;
	for (int k = 0; k < 3; k++)
		d[k] = (int)m[k];
	return true;
}

/* The joining offsets of N u (N+N) that are lexicographically positive:
 * the relation is symmetric, so from each cell only the cells after it in
 * sorted order need looking for.  Offsets of N + N lie in [-2,2]^3, marked
 * in a 5^3 table, which also drops the repeats.  Returns how many (62 at
 * most: half of 5^3 - 1). */
static int join_offsets(rule_hood h, int off[62][3])
{
	bool mark[125] = {false};
	const hood_def *t = &hood_table[h];
	for (unsigned i = 0; i < t->cells; i++)
		for (unsigned j = 0; j <= t->cells; j++) {
			/* j == cells stands for N alone (adding nothing). */
			int v[3];
			for (int a = 0; a < 3; a++)
				v[a] = t->offset[i][a] + (j < t->cells ? t->offset[j][a] : 0);
			mark[(v[0] + 2) * 25 + (v[1] + 2) * 5 + v[2] + 2] = true;
			mark[(2 - v[0]) * 25 + (2 - v[1]) * 5 + 2 - v[2]] = true;
		}
	int n = 0;
	for (int k = 63; k < 125; k++)   /* 62 is (0,0,0); after it, the positive */
		if (mark[k]) {
			off[n][0] = k / 25 - 2;
			off[n][1] = k / 5 % 5 - 2;
			off[n][2] = k % 5 - 2;
			n++;
		}
	return n;
}

/* Index of cell (x,y,z) in sorted s[lo, n), or SIZE_MAX. */
static size_t find_cell(const cellset *s, size_t lo, int64_t x, int64_t y, int64_t z)
{
	if (!fits_int32(x) || !fits_int32(y) || !fits_int32(z))
		return SIZE_MAX;
	census_cell key = {(int32_t)x, (int32_t)y, (int32_t)z};
	size_t hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cell_cmp(&s->c[mid], &key);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* Union-find whose every parent is at a lower index than its child: a
 * root is its component's first cell, which numbering in order needs. */
static uint32_t find_root(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];   /* path halving */
		i = parent[i];
	}
	return i;
}

static void join(uint32_t *parent, uint32_t i, uint32_t j)
{
	uint32_t a = find_root(parent, i), b = find_root(parent, j);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

int cellset_components(const cellset *s, rule_hood hood, uint32_t *label,
		       size_t *count, l3d_err *err)
{
	*count = 0;
	if ((unsigned)hood >= RULE_HOODS)
		return l3d_fail(err, L3D_ERR_DATA, "components: no neighbourhood %d",
				(int)hood);
	if (s->n > UINT32_MAX)
		return l3d_fail(err, L3D_ERR_DATA,
				"components: %zu cells, more than labels can number", s->n);
	int off[62][3];
	int no = join_offsets(hood, off);
	for (size_t i = 0; i < s->n; i++)
		label[i] = (uint32_t)i;
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < no; k++) {
			size_t j = find_cell(s, i + 1, (int64_t)s->c[i].x + off[k][0],
					     (int64_t)s->c[i].y + off[k][1],
					     (int64_t)s->c[i].z + off[k][2]);
			if (j != SIZE_MAX)
				join(label, (uint32_t)i, (uint32_t)j);
		}
	/* Every parent precedes its child, so in one pass in order a parent
	 * already holds its component's number when its children ask. */
	uint32_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		label[i] = label[i] == i ? k++ : label[label[i]];
	*count = k;
	return L3D_OK;
}

/* The symmetry group, by trying every matrix of entries in {-1,0,1}.
 * Those are enough: in each of the five neighbourhoods every unit vector
 * e is an offset (F, Moore, H) or half the sum of two (C: (1,1,1) +
 * (1,-1,-1) = 2e; E: (1,1,0) + (1,-1,0)).  Its image, the matrix's column,
 * is then an offset, or half the sum of two offsets' images, which are
 * offsets with entries in [-1,1]; so the column's entries lie in [-1,1]
 * too, and are integers.  For H this finds 48, the face-centred cubic
 * lattice's point group in H's skewed coordinates, without the mirror
 * x -> -x (which sends (1,0,-1) to (-1,0,-1), no offset of H).
 * Such a map commutes with every outer-totalistic rule of the
 * neighbourhood: it sends the neighbours p + N of a cell p onto the
 * neighbours Mp + MN = Mp + N of its image, one to one, so every cell's
 * count, hence its next state, goes with it.  The identity first, then
 * the others in the order of their nine entries, -1 < 0 < 1. */
static bool maps_onto(const int8_t m[3][3], const hood_def *t)
{
	for (unsigned i = 0; i < t->cells; i++) {
		int v[3];
		for (int r = 0; r < 3; r++)
			v[r] = m[r][0] * t->offset[i][0] + m[r][1] * t->offset[i][1] +
			       m[r][2] * t->offset[i][2];
		bool found = false;
		for (unsigned j = 0; j < t->cells && !found; j++)
			found = v[0] == t->offset[j][0] && v[1] == t->offset[j][1] &&
				v[2] == t->offset[j][2];
		if (!found)
			return false;
	}
	/* Into N; an invertible m is one to one, so onto N as well. */
	int det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
		  m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
		  m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	return det != 0;
}

void census_group_of(rule_hood hood, census_group *g)
{
	const hood_def *t = &hood_table[(unsigned)hood < RULE_HOODS ? hood : RULE_MOORE];
	memset(g, 0, sizeof *g);
	for (int r = 0; r < 3; r++)
		g->m[0][r][r] = 1;
	g->n = 1;
	for (int code = 0; code < 19683 && g->n < CENSUS_GROUP_MAX; code++) {
		int8_t m[3][3];
		for (int e = 8, c = code; e >= 0; e--, c /= 3)
			m[e / 3][e % 3] = (int8_t)(c % 3 - 1);
		if (memcmp(m, g->m[0], sizeof m) && maps_onto((const int8_t(*)[3])m, t))
			memcpy(g->m[g->n++], m, sizeof m);
	}
}

/* Cell c turned by m, in 64 bits: three int32 terms may overflow 32. */
static void turn(const int8_t m[3][3], const census_cell *c, int64_t v[3])
{
	for (int r = 0; r < 3; r++)
		v[r] = m[r][0] * (int64_t)c->x + m[r][1] * (int64_t)c->y +
		       m[r][2] * (int64_t)c->z;
}

/* Min corner and box of phase p (not empty) turned by m. */
static void bounds(const cellset *p, const int8_t m[3][3], int64_t lo[3],
		   uint64_t box[3])
{
	int64_t hi[3], v[3];
	turn(m, &p->c[0], lo);
	memcpy(hi, lo, sizeof hi);
	for (size_t i = 1; i < p->n; i++) {
		turn(m, &p->c[i], v);
		for (int a = 0; a < 3; a++) {
			lo[a] = v[a] < lo[a] ? v[a] : lo[a];
			hi[a] = v[a] > hi[a] ? v[a] : hi[a];
		}
	}
	for (int a = 0; a < 3; a++)
		box[a] = (uint64_t)(hi[a] - lo[a]) + 1;
}

static int box_cmp(const uint64_t a[3], const uint64_t b[3])
{
	for (int k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* The hex digits of phase p turned by m into `box` (its min corner lo):
 * the digits' values are gathered first, then written as characters. */
static void render(const cellset *p, const int8_t m[3][3], const int64_t lo[3],
		   const uint64_t box[3], char *hex, size_t digits)
{
	memset(hex, 0, digits);
	for (size_t i = 0; i < p->n; i++) {
		int64_t v[3];
		turn(m, &p->c[i], v);
		uint64_t bit = (((uint64_t)(v[0] - lo[0]) * box[1]) +
				(uint64_t)(v[1] - lo[1])) * box[2] + (uint64_t)(v[2] - lo[2]);
		hex[bit >> 2] |= (char)(1 << (bit & 3));
	}
	for (size_t k = 0; k < digits; k++)
		hex[k] = "0123456789abcdef"[(int)hex[k]];
	hex[digits] = '\0';
}

/* The chosen candidate: phase and group element. */
typedef struct choice {
	int phase, elem;
	int64_t lo[3];
	uint64_t box[3];
} choice;

/* Smallest box over every phase and element: cheap, so it is settled
 * before any digits are written, and only its ties are written out. */
static void smallest_box(const cellset *phases, int period, const census_group *g,
			 choice *best)
{
	for (int p = 0; p < period; p++)
		for (int e = 0; e < g->n; e++) {
			choice c = {p, e, {0}, {0}};
			bounds(&phases[p], g->m[e], c.lo, c.box);
			if ((p == 0 && e == 0) || box_cmp(c.box, best->box) < 0)
				*best = c;
		}
}

/* Among the candidates of best's box, the smallest digits, left in hex;
 * try (as long) is for the others'. */
static void smallest_hex(const cellset *phases, int period, const census_group *g,
			 choice *best, char *hex, char *try, size_t digits)
{
	render(&phases[best->phase], g->m[best->elem], best->lo, best->box, hex, digits);
	for (int p = 0; p < period; p++)
		for (int e = 0; e < g->n; e++) {
			choice c = {p, e, {0}, {0}};
			bounds(&phases[p], g->m[e], c.lo, c.box);
			if (box_cmp(c.box, best->box))
				continue;
			render(&phases[p], g->m[e], c.lo, c.box, try, digits);
			if (strcmp(try, hex) < 0) {
				memcpy(hex, try, digits + 1);
				*best = c;
			}
		}
}

/* The chosen phase into out: cells moved to (0,0,0), sorted; d turned. */
static int fill_phase(const cellset *p, const int8_t m[3][3], const choice *c,
		      const int d[3], census_name *out, l3d_err *err)
{
	int64_t v[3];
	for (int a = 0; a < 3; a++) {
		v[a] = m[a][0] * (int64_t)d[0] + m[a][1] * (int64_t)d[1] +
		       m[a][2] * (int64_t)d[2];
		if (v[a] < INT_MIN || v[a] > INT_MAX)
			return l3d_fail(err, L3D_ERR_DATA,
					"displacement (%d,%d,%d) turned leaves int's range",
					d[0], d[1], d[2]);
		out->d[a] = (int)v[a];
	}
	for (size_t i = 0; i < p->n; i++) {
		turn(m, &p->c[i], v);
		int rc = cellset_push(&out->cells, (int32_t)(v[0] - c->lo[0]),
				      (int32_t)(v[1] - c->lo[1]), (int32_t)(v[2] - c->lo[2]), err);
		if (rc)
			return rc;
	}
	cellset_sort(&out->cells);
	out->population = out->cells.n;
	return L3D_OK;
}

/* The code's text: "x" kind number "_" XxYxZ "_" hex. */
static int write_code(census_name *out, const uint64_t box[3], const char *hex,
		      size_t digits, l3d_err *err)
{
	unsigned long long num = out->kind == 's' ? out->population
						  : (unsigned long long)out->period;
	char head[96];
	int len = snprintf(head, sizeof head, "x%c%llu_%llux%llux%llu_", out->kind, num,
			   (unsigned long long)box[0], (unsigned long long)box[1],
			   (unsigned long long)box[2]);
	out->code = malloc((size_t)len + digits + 1);
	if (!out->code)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory: a code of %zu digits",
				digits);
	memcpy(out->code, head, (size_t)len);
	memcpy(out->code + len, hex, digits + 1);
	return L3D_OK;
}

static int check_object(const cellset *phases, int period, const census_group *g,
			l3d_err *err)
{
	if (period < 1 || g->n < 1)
		return l3d_fail(err, L3D_ERR_DATA, "census: %d phases, %d symmetries",
				period, g->n);
	for (int p = 0; p < period; p++)
		if (!phases[p].n)
			return l3d_fail(err, L3D_ERR_DATA, "census: phase %d is empty", p);
	return L3D_OK;
}

int census_code(const cellset *phases, int period, const int d[3],
		const census_group *g, census_name *out, l3d_err *err)
{
	memset(out, 0, sizeof *out);   /* code NULL, cells empty */
	int rc = check_object(phases, period, g, err);
	if (rc)
		return rc;
	choice best;
	smallest_box(phases, period, g, &best);
	/* Checked one axis at a time so the product cannot overflow. */
	if (best.box[0] > CENSUS_MAX_BOX || best.box[1] > CENSUS_MAX_BOX / best.box[0] ||
	    best.box[2] > CENSUS_MAX_BOX / (best.box[0] * best.box[1]))
		return l3d_fail(err, L3D_ERR_DATA,
				"census: an object of %llux%llux%llu cells is too large to name",
				(unsigned long long)best.box[0], (unsigned long long)best.box[1],
				(unsigned long long)best.box[2]);
	size_t digits = (size_t)((best.box[0] * best.box[1] * best.box[2] + 3) / 4);
	char *hex = malloc(2 * (digits + 1));
	if (!hex)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory: a code of %zu digits",
				digits);
	smallest_hex(phases, period, g, &best, hex, hex + digits + 1, digits);
	out->period = period;
	out->kind = d[0] || d[1] || d[2] ? 'q' : period == 1 ? 's' : 'p';
	rc = fill_phase(&phases[best.phase], g->m[best.elem], &best, d, out, err);
	if (!rc)
		rc = write_code(out, best.box, hex, digits, err);
	free(hex);
	if (rc)
		census_name_free(out);
	return rc;
}

void census_name_free(census_name *nm)
{
	free(nm->code);
	nm->code = NULL;
	cellset_free(&nm->cells);
}
