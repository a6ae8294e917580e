/* kernel_hood.h - the kernels for Golly's F, C, E and H neighbourhoods,
 * written once for every vector width.  No include guard: kernel_body.h
 * includes it once per width, with its macros and helpers in force.
 *
 * These neighbourhoods have 6 to 12 cells, so each output vector adds its
 * neighbours bit-slice by bit-slice directly rather than through Moore's
 * shared box sums: for every input plane x-1, x, x+1 the kernel keeps the
 * rows y-1, y, y+1 (cells and their z-shifted copies, zrow) in registers
 * as it slides along y, and a full-adder tree sums the 6, 8 or 12 words
 * the neighbourhood names (sum6: 8 operations, sum8: 14, sum12: 20).  The
 * rule is then a multiplexer tree over the 3 or 4 bits of the count, as
 * for Moore's general rules (tree in kernel_body.h), with the count of
 * neighbours alone (the cell is not part of it).
 *
 * Offsets (dx,dy,dz) are plane, row and bit: dx picks the input plane,
 * dy the row (for packed short rows, the neighbouring rows of the same
 * vector by a shuffle), dz the zrow copy (dn for -1, up for +1).
 *
 * The rows before, at and after the output vector live in three sets of
 * three planes.  For F they take turns (the y loop unrolled by three):
 * moving the window on by copies, which do not fit in registers, made
 * about a third of the loop's instructions loads and stores, and F steps
 * 1.3 to 1.8 times as fast without them (M = 256, on 16 and on 2 AVX-512
 * cores).  C, E and H, which read more of the window, measured as fast or
 * faster with the copies, and keep them. */

/* One row's three copies in each of the three input planes, for the rows
 * before (p), at (c) and after (n) the output vector: pointers into the
 * three sets. */
typedef struct FN(window) {
	const FN(zrow) *p, *c, *n;
} FN(window);

ALWAYS_INLINE V FN(pick)(FN(zrow) r, const int dz)
{
	return dz < 0 ? r.dn : dz > 0 ? r.up : r.c;
}

/* The cells at offset (dx, dy, dz) from every cell of the output vector. */
ALWAYS_INLINE V FN(nb)(const FN(chunk) *k, const FN(window) *w, const int dx,
		       const int dy, const int dz, const bool packed)
{
	V c = FN(pick)(w->c[dx + 1], dz);
	if (dy == 0)
		return c;
	V other = FN(pick)(dy < 0 ? w->p[dx + 1] : w->n[dx + 1], dz);
#if VL > 1
	if (packed)
		return dy < 0 ? __builtin_shuffle(other, c, k->up_idx)
			      : __builtin_shuffle(c, other, k->down_idx);
#else
	(void)k;
	(void)packed;
#endif
	return other;
}

/* Full adder: *sum and *carry of three bit planes. */
ALWAYS_INLINE void FN(fa)(V a, V b, V c, V *sum, V *carry)
{
	*sum = TL(a, b, c, TXOR3);
	*carry = TL(a, b, c, TMAJ);
}

/* Six bit planes summed into three (0..6). */
ALWAYS_INLINE void FN(sum6)(const V in[6], V n[4])
{
	V s1, c1, s2, c2;
	FN(fa)(in[0], in[1], in[2], &s1, &c1);
	FN(fa)(in[3], in[4], in[5], &s2, &c2);
	V k = s1 & s2;
	n[0] = s1 ^ s2;
	FN(fa)(c1, c2, k, &n[1], &n[2]);
	n[3] = VSPLAT(0);
}

/* Eight bit planes summed into four (0..8). */
ALWAYS_INLINE void FN(sum8)(const V in[8], V n[4])
{
	V s1, c1, s2, c2, s3, c3, t, u;
	FN(fa)(in[0], in[1], in[2], &s1, &c1);
	FN(fa)(in[3], in[4], in[5], &s2, &c2);
	FN(fa)(s1, s2, in[6], &s3, &c3);
	V k0 = s3 & in[7];
	n[0] = s3 ^ in[7];
	/* weight 2: c1, c2, c3, k0 */
	FN(fa)(c1, c2, c3, &t, &u);
	V k1 = t & k0;
	n[1] = t ^ k0;
	/* weight 4: u, k1 */
	n[2] = u ^ k1;
	n[3] = u & k1;
}

/* Twelve bit planes summed into four (0..12). */
ALWAYS_INLINE void FN(sum12)(const V in[12], V n[4])
{
	V s[4], c[4], t1, d1, t2, f1, t3, f2;
	for (int i = 0; i < 4; i++)
		FN(fa)(in[3 * i], in[3 * i + 1], in[3 * i + 2], &s[i], &c[i]);
	/* weight 1: s0..s3 */
	FN(fa)(s[0], s[1], s[2], &t1, &d1);
	V e1 = t1 & s[3];
	n[0] = t1 ^ s[3];
	/* weight 2: c0..c3, d1, e1 */
	FN(fa)(c[0], c[1], c[2], &t2, &f1);
	FN(fa)(c[3], d1, e1, &t3, &f2);
	V g1 = t2 & t3;
	n[1] = t2 ^ t3;
	/* weight 4: f1, f2, g1 (the count is at most 12, so no weight 16) */
	FN(fa)(f1, f2, g1, &n[2], &n[3]);
}

/* The neighbour count of every cell of the output vector, as four bit
 * planes.  The offsets are those of rule.h, exactly. */
ALWAYS_INLINE void FN(hood_count)(const FN(chunk) *k, const FN(window) *w,
				  V n[4], const int hood, const bool packed)
{
#define NB(dx, dy, dz) FN(nb)(k, w, dx, dy, dz, packed)
	if (hood == RULE_FACE) {
		V in[6] = {NB(1, 0, 0), NB(-1, 0, 0), NB(0, 1, 0),
			   NB(0, -1, 0), NB(0, 0, 1), NB(0, 0, -1)};
		FN(sum6)(in, n);
	} else if (hood == RULE_CORNER) {
		V in[8] = {NB(1, 1, 1), NB(1, 1, -1), NB(1, -1, 1), NB(1, -1, -1),
			   NB(-1, 1, 1), NB(-1, 1, -1), NB(-1, -1, 1), NB(-1, -1, -1)};
		FN(sum8)(in, n);
	} else if (hood == RULE_EDGE) {
		V in[12] = {NB(1, 1, 0), NB(1, -1, 0), NB(-1, 1, 0), NB(-1, -1, 0),
			    NB(1, 0, 1), NB(1, 0, -1), NB(-1, 0, 1), NB(-1, 0, -1),
			    NB(0, 1, 1), NB(0, 1, -1), NB(0, -1, 1), NB(0, -1, -1)};
		FN(sum12)(in, n);
	} else {
		V in[12] = {NB(1, 0, 0), NB(-1, 0, 0), NB(0, 1, 0), NB(0, -1, 0),
			    NB(0, 0, 1), NB(0, 0, -1), NB(0, 1, -1), NB(0, -1, 1),
			    NB(1, 0, -1), NB(-1, 0, 1), NB(1, -1, 0), NB(-1, 1, 0)};
		FN(sum12)(in, n);
	}
#undef NB
}

/* The next generation of one output vector from its neighbour count:
 * the rule, the store, and the counts for a log line. */
ALWAYS_INLINE void FN(emit_hood)(const FN(hot) *h, const V n[4], V self,
				 uint64_t *out_at, V mask, V acc[3],
				 const bool count, const int depth)
{
	V s[5] = {n[0], n[1], n[2], n[3], VSPLAT(0)};
	V out = FN(trees)(h->pairs_dead, h->pairs_live, s, self, depth) & mask;
	FN(store)(h, out, self, out_at, acc, count);
}

/* Output row y of a chunk from the rows before (pr) and at (cu) it, and
 * after it (nx), which is loaded here from row y + g. */
ALWAYS_INLINE void FN(hood_row)(const cpu_plan *p, const FN(chunk) *k, const FN(hot) *h,
				const uint64_t *const in[3], uint64_t *out_plane,
				uint64_t y, const FN(zrow) *pr, const FN(zrow) *cu,
				FN(zrow) *nx, V acc[3], const bool count, const int hood,
				const bool whole, const bool packed)
{
	const uint64_t w = p->words, g = packed ? p->group : 1;
	const uint64_t yn = (y + g == p->ny ? 0 : y + g) * w;
	for (int d = 0; d < 3; d++)
		nx[d] = FN(zrow_at)(in[d] + yn, k, whole, packed);
	FN(window) win = {pr, cu, nx};
	V n[4];
	FN(hood_count)(k, &win, n, hood, packed);
	FN(emit_hood)(h, n, cu[1].c, out_plane + y * w + k->off, k->outmask, acc, count,
		      hood == RULE_FACE ? 3 : 4);
}

/* ---- corners (C), by partial sums shared between rows ----
 * The eight corners of a cell are the z neighbours (dn and up) of rows
 * y - 1 and y + 1 in planes x - 1 and x + 1.  So with Q(r), those of row
 * r in the two planes summed (0..4, three bit planes), the count is
 * Q(y - 1) + Q(y + 1): each row's Q is made once and serves the rows on
 * both sides of it, and the window is three Q, not 27 vectors of rows. */
typedef struct FN(q3) {
	V b0, b1, b2;
} FN(q3);

ALWAYS_INLINE FN(q3) FN(corner_q)(const uint64_t *lo, const uint64_t *hi,
				  const FN(chunk) *k, const bool whole, const bool packed)
{
	FN(zrow) a = FN(zrow_at)(lo, k, whole, packed), b = FN(zrow_at)(hi, k, whole, packed);
	V a0 = a.dn ^ a.up, a1 = a.dn & a.up, b0 = b.dn ^ b.up, b1 = b.dn & b.up;
	V carry = a0 & b0;
	FN(q3) q = {a0 ^ b0, TL(a1, b1, carry, TXOR3), TL(a1, b1, carry, TMAJ)};
	return q;
}

/* The row before (up) or after (down) each row of a vector, from the
 * vectors of rows around it: a shuffle for packed short rows. */
ALWAYS_INLINE V FN(row_up)(const FN(chunk) *k, V before, V at, const bool packed)
{
#if VL > 1
	if (packed)
		return __builtin_shuffle(before, at, k->up_idx);
#endif
	(void)k, (void)at, (void)packed;
	return before;
}

ALWAYS_INLINE V FN(row_down)(const FN(chunk) *k, V at, V after, const bool packed)
{
#if VL > 1
	if (packed)
		return __builtin_shuffle(at, after, k->down_idx);
#endif
	(void)k, (void)at, (void)packed;
	return after;
}

/* Q(y - 1) + Q(y + 1) (0..8) from the Q of the vectors before, at and
 * after the output vector. */
ALWAYS_INLINE void FN(corner_count)(const FN(chunk) *k, const FN(q3) *p, const FN(q3) *c,
				    const FN(q3) *n, V out[4], const bool packed)
{
	V up0 = FN(row_up)(k, p->b0, c->b0, packed), dn0 = FN(row_down)(k, c->b0, n->b0, packed);
	V up1 = FN(row_up)(k, p->b1, c->b1, packed), dn1 = FN(row_down)(k, c->b1, n->b1, packed);
	V up2 = FN(row_up)(k, p->b2, c->b2, packed), dn2 = FN(row_down)(k, c->b2, n->b2, packed);
	V k0 = up0 & dn0;
	V k1 = TL(up1, dn1, k0, TMAJ);
	out[0] = up0 ^ dn0;
	out[1] = TL(up1, dn1, k0, TXOR3);
	out[2] = TL(up2, dn2, k1, TXOR3);
	out[3] = TL(up2, dn2, k1, TMAJ);
}

ALWAYS_INLINE void FN(plane_corner)(const cpu_plan *p, const uint64_t *const in[3],
				    uint64_t *out_plane, uint64_t ya, uint64_t yb, V acc[3],
				    const bool count, const bool whole, const bool packed)
{
	const uint64_t w = p->words, ny = p->ny, chunks = packed ? 1 : w / VL;
	const uint64_t g = packed ? p->group : 1;
	FN(hot) h;
	FN(hot_init)(p, &h);
	for (uint64_t c = 0; c < chunks; c++) {
		FN(chunk) k;
		FN(chunk_init)(p, c, &k, packed);
		uint64_t ym = (ya ? ya - g : ny - g) * w;
		FN(q3) q[3];
		q[0] = FN(corner_q)(in[0] + ym, in[2] + ym, &k, whole, packed);
		q[1] = FN(corner_q)(in[0] + ya * w, in[2] + ya * w, &k, whole, packed);
		for (uint64_t y = ya; y < yb; y += g) {
			uint64_t yn = (y + g == ny ? 0 : y + g) * w;
			q[2] = FN(corner_q)(in[0] + yn, in[2] + yn, &k, whole, packed);
			V n[4];
			FN(corner_count)(&k, &q[0], &q[1], &q[2], n, packed);
			V self = *(const VU *)(in[1] + y * w + k.off);
			FN(emit_hood)(&h, n, self, out_plane + y * w + k.off, k.outmask, acc, count,
				      4);
			q[0] = q[1];
			q[1] = q[2];
		}
	}
}

/* Output plane x, rows [ya, yb), from input planes x-1, x, x+1. */
ALWAYS_INLINE void FN(plane_hood)(const cpu_plan *p, const uint64_t *const in[3],
				  uint64_t *out_plane, uint64_t ya, uint64_t yb,
				  V acc[3], const bool count, const int hood,
				  const bool whole, const bool packed)
{
	const uint64_t w = p->words, ny = p->ny, chunks = packed ? 1 : w / VL;
	const uint64_t g = packed ? p->group : 1;
	FN(hot) h;
	FN(hot_init)(p, &h);
	for (uint64_t c = 0; c < chunks; c++) {
		FN(chunk) k;
		FN(chunk_init)(p, c, &k, packed);
		FN(zrow) set[3][3];       /* rows y - g, y, y + g, taking turns */
		uint64_t ym = (ya ? ya - g : ny - g) * w;
		for (int d = 0; d < 3; d++) {
			set[0][d] = FN(zrow_at)(in[d] + ym, &k, whole, packed);
			set[1][d] = FN(zrow_at)(in[d] + ya * w, &k, whole, packed);
		}
		if (hood != RULE_FACE) {          /* the window moved on by copies */
			for (uint64_t y = ya; y < yb; y += g) {
				FN(hood_row)(p, &k, &h, in, out_plane, y, set[0], set[1], set[2],
					     acc, count, hood, whole, packed);
				for (int d = 0; d < 3; d++) {
					set[0][d] = set[1][d];
					set[1][d] = set[2][d];
				}
			}
			continue;
		}
		for (uint64_t y = ya; y < yb; y += 3 * g) {
			FN(hood_row)(p, &k, &h, in, out_plane, y, set[0], set[1], set[2], acc,
				     count, hood, whole, packed);
			if (y + g >= yb)
				break;
			FN(hood_row)(p, &k, &h, in, out_plane, y + g, set[1], set[2], set[0],
				     acc, count, hood, whole, packed);
			if (y + 2 * g >= yb)
				break;
			FN(hood_row)(p, &k, &h, in, out_plane, y + 2 * g, set[2], set[0],
				     set[1], acc, count, hood, whole, packed);
		}
	}
}

ALWAYS_INLINE void FN(band_hood_kind)(const cpu_plan *p, const cpu_slab *s,
				      uint64_t xa, uint64_t xb, uint64_t ya,
				      uint64_t yb, engine_stats *counts,
				      const int hood, const bool whole,
				      const bool packed)
{
	const uint64_t plane = p->ny * p->words;
	V acc[3] = {VSPLAT(0), VSPLAT(0), VSPLAT(0)};
	for (uint64_t x = xa; x < xb; x++) {
		const uint64_t *in[3] = {FN(plane)(s, plane, (int64_t)x - 1),
					 FN(plane)(s, plane, (int64_t)x),
					 FN(plane)(s, plane, (int64_t)x + 1)};
		uint64_t *out = s->dst + x * plane;
		if (hood == RULE_CORNER && counts)
			FN(plane_corner)(p, in, out, ya, yb, acc, true, whole, packed);
		else if (hood == RULE_CORNER)
			FN(plane_corner)(p, in, out, ya, yb, acc, false, whole, packed);
		else if (counts)
			FN(plane_hood)(p, in, out, ya, yb, acc, true, hood, whole, packed);
		else
			FN(plane_hood)(p, in, out, ya, yb, acc, false, hood, whole, packed);
	}
	if (counts) {
		counts->population += LANESUM(acc[0]);
		counts->births += LANESUM(acc[1]);
		counts->deaths += LANESUM(acc[2]);
	}
}

/* One instance per neighbourhood, row kind and layout. */
#define HOOD_CASE(hood, whole, packed)                                        \
	FN(band_hood_kind)(p, s, xa, xb, ya, yb, counts, hood, whole, packed)
#define HOOD_LAYOUT(hood, whole) BY_LAYOUT(HOOD_CASE, hood, whole)
#define HOOD_ROWS(hood)                                                       \
	do {                                                                  \
		if (p->nz % 64 == 0)                                          \
			HOOD_LAYOUT(hood, true);                              \
		else                                                          \
			HOOD_LAYOUT(hood, false);                             \
	} while (0)

static void FN(band_hood)(const cpu_plan *p, const cpu_slab *s, uint64_t xa,
			  uint64_t xb, uint64_t ya, uint64_t yb,
			  engine_stats *counts)
{
	switch (p->hood) {
	case RULE_FACE: HOOD_ROWS(RULE_FACE); break;
	case RULE_CORNER: HOOD_ROWS(RULE_CORNER); break;
	case RULE_EDGE: HOOD_ROWS(RULE_EDGE); break;
	default: HOOD_ROWS(RULE_HEX); break;
	}
}

#undef HOOD_CASE
#undef HOOD_LAYOUT
#undef HOOD_ROWS
