/* kernel_hood.h - the kernels for Golly's F, C, E and H neighbourhoods,
 * written once for every vector width.  No include guard: kernel_body.h
 * includes it once per width, with its macros and helpers in force.
 *
 * These neighbourhoods have 6 to 12 cells, so they do not go through
 * Moore's shared box sums.  Every neighbour of each lies in row y - 1, y
 * or y + 1, so each row's contribution to the counts of the rows beside
 * it and to its own is summed once, when the row is loaded, and shared
 * (plane_parts, below).  The rule is then
 * applied by its groups of four counts, as for Moore's general rules
 * (rule_groups in kernel_body.h), to the count of neighbours alone (the
 * cell is not part of it), or to that count plus one (cpu_plan's
 * count_carry: a carry into the count's first adder, free where the
 * adders are ternary operations), when that puts the rule's counts into
 * fewer groups: 3D3..5/4E's 3, 4 and 5 span the groups 0..3 and 4..7,
 * its 4, 5 and 6 one.
 *
 * Offsets (dx,dy,dz) are plane, row and bit: dx picks the input plane,
 * dy the row (for packed short rows, the neighbouring rows of the same
 * vector by a shuffle), dz the zrow copy (dn for -1, up for +1).
 *
 * A new neighbourhood (base/hood.h) adds here its branch in row_parts,
 * beside and parts_count, whether its b is its a (band_hood_kind), its
 * HOOD_FN instances and its cases in band_hood.  The branches stay inside
 * those shared functions: moved out into a function a neighbourhood, each
 * way tried changed the compiled kernels (GCC 12 compiles the same
 * arithmetic to other instruction counts when the functions around it
 * change shape; src/engine/cpu/NOTES.md, "One home a neighbourhood"). */

/* Full adder: *sum and *carry of three bit planes. */
ALWAYS_INLINE void FN(fa)(V a, V b, V c, V *sum, V *carry)
{
	*sum = TL(a, b, c, TXOR3);
	*carry = TL(a, b, c, TMAJ);
}

/* Six bit planes summed into three (0..6). */
ALWAYS_INLINE void FN(sum6)(const V in[6], V n[3])
{
	V s1, c1, s2, c2;
	FN(fa)(in[0], in[1], in[2], &s1, &c1);
	FN(fa)(in[3], in[4], in[5], &s2, &c2);
	n[0] = s1 ^ s2;
	FN(fa)(c1, c2, s1 & s2, &n[1], &n[2]);
}

/* The next generation of one output vector from its neighbour count:
 * the rule, the store, and the counts for a log line. */
ALWAYS_INLINE void FN(emit_hood)(const FN(hot) *h, const V n[4], V self,
				 uint64_t *out_at, V mask, V cnt, V acc[3],
				 const bool count, const int kind)
{
	V s[6] = {n[0], n[1], n[2], n[3], VSPLAT(0), VSPLAT(0)};
	V out = FN(rule_of)(h, s, self, kind) & mask;
	FN(store)(h, out, self, out_at, cnt, acc, count);
}

/* emit_hood for two vectors of cells, a and b (two rows of a plane). */
ALWAYS_INLINE void FN(emit_hood2)(const FN(hot) *h, const V na[4], const V nb[4],
				  V self_a, V self_b, uint64_t *out_a, uint64_t *out_b,
				  V mask, V cnt, V acc[3], const bool count,
				  const int kind)
{
	V sa[6] = {na[0], na[1], na[2], na[3], VSPLAT(0), VSPLAT(0)};
	V sb[6] = {nb[0], nb[1], nb[2], nb[3], VSPLAT(0), VSPLAT(0)};
	FN(decide2)(h, sa, self_a, sb, self_b, out_a, out_b, mask, cnt, acc, count,
		    kind);
}

/* ---- Partial sums made once a row, shared between rows ----
 * Every neighbour of these four lies in row y - 1, y or y + 1, and what
 * a row r gives the counts of the rows beside it depends on row r alone.
 * So each row's parts are summed once, when the row is loaded: a, what it
 * gives the row after it (as that row's y - 1); b, what it gives the row
 * before it (as y + 1); m, what it gives its own.  The count is
 * a(y - 1) + b(y + 1) + m(y).  With lo, mid and hi row r of planes x - 1,
 * x and x + 1 (cells c, z neighbours dn and up), as base/hood.h's offsets:
 *   F: a = b = mid.c, m = lo.c + hi.c + mid.dn (0..2) and e = mid.up;
 *   C: a = b = lo.dn + lo.up + hi.dn + hi.up (0..4), m = 0;
 *   E: a = b = lo.c + hi.c + mid.dn + mid.up (0..4),
 *      m = lo.dn + lo.up + hi.dn + hi.up (0..4), kept as four bits;
 *   H: a = mid.c + mid.up + hi.c (0..3), b = mid.c + mid.dn + lo.c (0..3),
 *      m = lo.c + hi.c + mid.dn + mid.up + hi.dn + lo.up (0..6).
 * F's e, a part of weight one apart from m, keeps its count at six full
 * adders, as a sum of six bits; only mid is shifted along z.  E's m is
 * its four bits: m0 and m1 of weight one, m2 and e of weight two.
 * C's a and E's m sum lo and hi before the z shifts (zrow_pair): the
 * sum's two bit planes are shifted instead of the two rows.
 * The window is one row's parts and what the rows before it give (u,
 * next_up), not 27 vectors of rows.  The parts
 * are named fields, every one set (zero where a neighbourhood has none),
 * which keeps them in registers. */
typedef struct FN(parts) {
	V a0, a1, a2, b0, b1, m0, m1, m2, e;
} FN(parts);

/* Two numbers of two bit planes summed into three. */
ALWAYS_INLINE void FN(add22)(V a0, V a1, V b0, V b1, V *s0, V *s1, V *s2)
{
	V carry = a0 & b0;
	*s0 = a0 ^ b0;
	*s1 = TL(a1, b1, carry, TXOR3);
	*s2 = TL(a1, b1, carry, TMAJ);
}

ALWAYS_INLINE FN(parts) FN(row_parts)(const uint64_t *const in[3], uint64_t at,
				      const FN(chunk) *k, const int hood, const bool whole,
				      const bool packed)
{
	V z = VSPLAT(0);
	FN(parts) q = {z, z, z, z, z, z, z, z, z};
	if (hood == RULE_FACE) {
		V lo = *(const VU *)(in[0] + at + k->off), hi = *(const VU *)(in[2] + at + k->off);
		FN(zrow) mid = FN(zrow_at)(in[1] + at, k, whole, packed);
		q.a0 = mid.c;
		FN(fa)(lo, hi, mid.dn, &q.m0, &q.m1);
		q.e = mid.up;
		return q;
	}
	if (hood == RULE_CORNER || hood == RULE_EDGE) {
		/* lo + hi (s1 s0) summed before the shifts: their four z
		 * neighbours are (s1 s0).dn + (s1 s0).up. */
		FN(zrow) s0, s1;
		FN(zrow_pair)(in[0] + at, in[2] + at, k, whole, packed, &s0, &s1);
		if (hood == RULE_CORNER) {
			FN(add22)(s0.dn, s1.dn, s0.up, s1.up, &q.a0, &q.a1, &q.a2);
			return q;
		}
		/* E's m as its four bits, of weights 1, 1, 2 and 2: summed
		 * into the count column by column (parts_count) */
		q.m0 = s0.dn, q.m1 = s0.up, q.m2 = s1.dn, q.e = s1.up;
		FN(zrow) mid = FN(zrow_at)(in[1] + at, k, whole, packed);
		/* a = s0.c + mid.dn + mid.up (a full adder: a0, carry k1) + 2 s1.c */
		V k1;
		FN(fa)(s0.c, mid.dn, mid.up, &q.a0, &k1);
		q.a1 = s1.c ^ k1;
		q.a2 = s1.c & k1;
		return q;
	}
	FN(zrow) lo = FN(zrow_at)(in[0] + at, k, whole, packed);
	FN(zrow) hi = FN(zrow_at)(in[2] + at, k, whole, packed);
	FN(zrow) mid = FN(zrow_at)(in[1] + at, k, whole, packed);
	q.a0 = TL(mid.c, mid.up, hi.c, TXOR3);
	q.a1 = TL(mid.c, mid.up, hi.c, TMAJ);
	q.b0 = TL(mid.c, mid.dn, lo.c, TXOR3);
	q.b1 = TL(mid.c, mid.dn, lo.c, TMAJ);
	V in6[6] = {lo.c, hi.c, mid.dn, mid.up, hi.dn, lo.up}, n[3];
	FN(sum6)(in6, n);
	q.m0 = n[0], q.m1 = n[1], q.m2 = n[2];
	return q;
}

/* For each row of the vector `at`, the row before it (up) or after it
 * (!up), from `at` and the vector of rows on that side (`side`): a shuffle
 * for packed short rows, else that vector itself. */
ALWAYS_INLINE V FN(row_beside)(const FN(chunk) *k, V side, V at, const bool up,
			       const bool packed)
{
#if VL > 1
	if (packed)
		return up ? __builtin_shuffle(side, at, k->up_idx)
			  : __builtin_shuffle(at, side, k->down_idx);
#endif
	(void)k, (void)at, (void)up, (void)packed;
	return side;
}

/* Full adders down three bit planes: x + y + cin (x2, y2 the top; cin 0
 * or 1 in every bit). */
ALWAYS_INLINE void FN(add3b)(V x0, V x1, V x2, V y0, V y1, V y2, V cin, V out[4])
{
	V k0 = TL(x0, y0, cin, TMAJ);
	V k1 = TL(x1, y1, k0, TMAJ);
	out[0] = TL(x0, y0, cin, TXOR3);
	out[1] = TL(x1, y1, k0, TXOR3);
	out[2] = TL(x2, y2, k1, TXOR3);
	out[3] = TL(x2, y2, k1, TMAJ);
}

/* The parts the rows beside the vector of rows `at` give it, from the
 * vector of rows on that side (`side`): before it (up), a; after it, b,
 * which is a but for H.  v[3], zero where the neighbourhood has no such
 * plane. */
ALWAYS_INLINE void FN(beside)(const FN(chunk) *k, const FN(parts) *side,
			      const FN(parts) *at, const bool up, V v[3],
			      const int hood, const bool packed)
{
	bool b = !up && hood == RULE_HEX;
	v[0] = FN(row_beside)(k, b ? side->b0 : side->a0, b ? at->b0 : at->a0, up, packed);
	v[1] = v[2] = VSPLAT(0);
	if (hood != RULE_FACE)
		v[1] = FN(row_beside)(k, b ? side->b1 : side->a1, b ? at->b1 : at->a1,
				      up, packed);
	if (hood == RULE_CORNER || hood == RULE_EDGE)
		v[2] = FN(row_beside)(k, side->a2, at->a2, up, packed);
}

/* The count (plus cin) of the vector of rows whose parts are c, from
 * what the rows before it give (u, beside) and the rows after it (d). */
ALWAYS_INLINE void FN(parts_count)(const V u[3], const V d[3], const FN(parts) *c,
				   V cin, V out[4], const int hood)
{
	if (hood == RULE_FACE) {        /* six bits and cin: at most 7 */
		V s, k1, k2;
		FN(fa)(c->m0, c->e, u[0], &s, &k1);
		FN(fa)(s, d[0], cin, &out[0], &k2);
		FN(fa)(c->m1, k1, k2, &out[1], &out[2]);
		out[3] = VSPLAT(0);
		return;
	}
	if (hood == RULE_HEX) {
		V s0, s1, s2;
		FN(add22)(u[0], u[1], d[0], d[1], &s0, &s1, &s2);
		FN(add3b)(s0, s1, s2, c->m0, c->m1, c->m2, cin, out);
		return;
	}
	if (hood != RULE_EDGE) {
		FN(add3b)(u[0], u[1], u[2], d[0], d[1], d[2], cin, out);
		return;
	}
	/* E: a(y - 1) + a(y + 1) + cin (0..9), then m's bits added column by
	 * column, at most 13: m0 and m1 with the sum's bit 0, m2 and e with
	 * bit 1 and the carry (9 operations, where m summed first and then
	 * added took 11). */
	V s[4], c1, t, c2, c3;
	FN(add3b)(u[0], u[1], u[2], d[0], d[1], d[2], cin, s);
	FN(fa)(s[0], c->m0, c->m1, &out[0], &c1);
	FN(fa)(s[1], c->m2, c->e, &t, &c2);
	out[1] = t ^ c1;
	FN(fa)(s[2], c2, t & c1, &out[2], &c3);
	out[3] = s[3] ^ c3;
}

/* What the rows before the vector of rows `at` give it (u), made when
 * that vector's d (what the rows after its predecessor `side` give it)
 * is at hand.  With two rows a vector (`two`: rows r and r + 1), the
 * rows before `at` are the upper half of `side` and the lower half of
 * `at`, the very rows after `side`: F's, C's and E's u is side's d, and
 * its shuffles are not made twice. */
ALWAYS_INLINE void FN(next_up)(const FN(chunk) *k, const FN(parts) *side,
			       const FN(parts) *at, const V d[3], V u[3],
			       const int hood, const bool packed, const bool two)
{
	if (two) {
		u[0] = d[0], u[1] = d[1], u[2] = d[2];
		return;
	}
	FN(beside)(k, side, at, true, u, hood, packed);
}

/* Output plane x, rows [ya, yb), from input planes x-1, x, x+1.  Two rows a turn, so that the rule's groups branch once for both
 * (rule_of2). */
ALWAYS_INLINE void FN(plane_parts)(const cpu_plan *p, const uint64_t *const in[3],
				   uint64_t *out_plane, uint64_t ya, uint64_t yb, V acc[3],
				   const bool count, const int hood, const bool whole,
				   const bool packed, const bool two, const int kind)
{
	const uint64_t w = p->words, ny = p->ny, chunks = FN(chunks)(p, packed);
	const uint64_t g = packed ? p->group : 1;
	FN(hot) h;
	FN(hot_init)(p, &h);
	const V cin = FN(carry)(&h);
	for (uint64_t c = 0; c < chunks; c++) {
		FN(chunk) k;
		FN(chunk_init)(p, c, &k, packed);
		uint64_t ym = (ya ? ya - g : ny - g) * w;
		FN(parts) q0 = FN(row_parts)(in, ym, &k, hood, whole, packed);
		FN(parts) q1 = FN(row_parts)(in, ya * w, &k, hood, whole, packed);
		V u[3], d[3];                   /* beside q1: before, after */
		FN(beside)(&k, &q0, &q1, true, u, hood, packed);
		uint64_t y = ya;
		for (; y + g < yb; y += 2 * g) {        /* two rows at a time */
			uint64_t y1 = (y + g) * w, y2 = (y + 2 * g == ny ? 0 : y + 2 * g) * w;
			FN(parts) q2 = FN(row_parts)(in, y1, &k, hood, whole, packed);
			FN(parts) q3 = FN(row_parts)(in, y2, &k, hood, whole, packed);
			V na[4], nb[4];
			FN(beside)(&k, &q2, &q1, false, d, hood, packed);
			FN(parts_count)(u, d, &q1, cin, na, hood);
			FN(next_up)(&k, &q1, &q2, d, u, hood, packed, two);
			FN(beside)(&k, &q3, &q2, false, d, hood, packed);
			FN(parts_count)(u, d, &q2, cin, nb, hood);
			FN(next_up)(&k, &q2, &q3, d, u, hood, packed, two);
			FN(emit_hood2)(&h, na, nb, *(const VU *)(in[1] + y * w + k.off),
				       *(const VU *)(in[1] + y1 + k.off), out_plane + y * w + k.off,
				       out_plane + y1 + k.off, FN(outmask)(&k, whole), k.cntmask, acc,
				       count, kind);
			q1 = q3;
		}
		if (y < yb) {                         /* the last row, alone */
			uint64_t yn = (y + g == ny ? 0 : y + g) * w;
			FN(parts) q2 = FN(row_parts)(in, yn, &k, hood, whole, packed);
			V n[4];
			FN(beside)(&k, &q2, &q1, false, d, hood, packed);
			FN(parts_count)(u, d, &q1, cin, n, hood);
			V self = *(const VU *)(in[1] + y * w + k.off);
			FN(emit_hood)(&h, n, self, out_plane + y * w + k.off,
				      FN(outmask)(&k, whole), k.cntmask, acc, count, kind);
		}
	}
}

/* Planes [xa, xb), rows [ya, yb), counted into `counts` unless NULL;
 * `two`: two rows a vector (next_up); `kind`: CPU_RULE_GROUPS or
 * CPU_RULE_CODE (rule_of). */
ALWAYS_INLINE void FN(hood_planes)(const cpu_plan *p, const cpu_slab *s,
				   uint64_t xa, uint64_t xb, uint64_t ya,
				   uint64_t yb, engine_stats *counts,
				   const int hood, const bool whole,
				   const bool packed, const bool two, const int kind)
{
	const uint64_t plane = p->ny * p->words;
	V acc[3] = {VSPLAT(0), VSPLAT(0), VSPLAT(0)};
	for (uint64_t x = xa; x < xb; x++) {
		const uint64_t *in[3] = {FN(plane)(s, plane, (int64_t)x - 1),
					 FN(plane)(s, plane, (int64_t)x),
					 FN(plane)(s, plane, (int64_t)x + 1)};
		uint64_t *out = s->dst + x * plane;
		if (counts)
			FN(plane_parts)(p, in, out, ya, yb, acc, true, hood, whole, packed, two, kind);
		else
			FN(plane_parts)(p, in, out, ya, yb, acc, false, hood, whole, packed, two, kind);
	}
	if (counts) {
		counts->population += LANESUM(acc[0]);
		counts->births += LANESUM(acc[1]);
		counts->deaths += LANESUM(acc[2]);
	}
}

/* hood_planes, with two rows a vector told apart where that saves
 * shuffles (F, C and E; with the rule compiled, the hot case). */
ALWAYS_INLINE void FN(band_hood_kind)(const cpu_plan *p, const cpu_slab *s,
				      uint64_t xa, uint64_t xb, uint64_t ya,
				      uint64_t yb, engine_stats *counts,
				      const int hood, const bool whole,
				      const bool packed, const int kind)
{
	if (kind == CPU_RULE_CODE && packed && p->group == 2 && hood != RULE_HEX)
		FN(hood_planes)(p, s, xa, xb, ya, yb, counts, hood, whole, packed, true,
				kind);
	else
		FN(hood_planes)(p, s, xa, xb, ya, yb, counts, hood, whole, packed, false,
				kind);
}

/* One instance per neighbourhood, row kind, layout and rule kind; a
 * function per neighbourhood and rule kind (HOOD_FN), each with its own
 * frame and registers: with all of them in one function the compiler
 * kept more of E's loop on the stack (src/engine/cpu/NOTES.md, "The
 * compiled rule's own instances; the rows before carried"). */
#define HOOD_CASE(hood, whole, packed)                                        \
	FN(band_hood_kind)(p, s, xa, xb, ya, yb, counts, hood, whole, packed, kind)
#define HOOD_LAYOUT(hood, whole) BY_LAYOUT(HOOD_CASE, hood, whole)
#define HOOD_FN(name, hood, rule_kind)                                        \
	static __attribute__((noinline)) void FN(name)(                      \
		const cpu_plan *p, const cpu_slab *s, uint64_t xa, uint64_t xb, \
		uint64_t ya, uint64_t yb, engine_stats *counts)               \
	{                                                                     \
		const int kind = rule_kind;                                   \
		BY_ROWS(HOOD_LAYOUT, hood);                                   \
	}

HOOD_FN(face_groups, RULE_FACE, CPU_RULE_GROUPS)
HOOD_FN(corner_groups, RULE_CORNER, CPU_RULE_GROUPS)
HOOD_FN(edge_groups, RULE_EDGE, CPU_RULE_GROUPS)
HOOD_FN(hex_groups, RULE_HEX, CPU_RULE_GROUPS)
#if defined(KERNEL_RULE_CODE) && KERNEL_RULE_CODE
HOOD_FN(face_code, RULE_FACE, CPU_RULE_CODE)
HOOD_FN(corner_code, RULE_CORNER, CPU_RULE_CODE)
HOOD_FN(edge_code, RULE_EDGE, CPU_RULE_CODE)
HOOD_FN(hex_code, RULE_HEX, CPU_RULE_CODE)
#endif

static void FN(band_hood)(const cpu_plan *p, const cpu_slab *s, uint64_t xa,
			  uint64_t xb, uint64_t ya, uint64_t yb,
			  engine_stats *counts)
{
#if defined(KERNEL_RULE_CODE) && KERNEL_RULE_CODE
	if (p->rule_kind == CPU_RULE_CODE) {
		switch (p->hood) {
		case RULE_FACE: FN(face_code)(p, s, xa, xb, ya, yb, counts); return;
		case RULE_CORNER: FN(corner_code)(p, s, xa, xb, ya, yb, counts); return;
		case RULE_EDGE: FN(edge_code)(p, s, xa, xb, ya, yb, counts); return;
		default: FN(hex_code)(p, s, xa, xb, ya, yb, counts); return;
		}
	}
#endif
	switch (p->hood) {
	case RULE_FACE: FN(face_groups)(p, s, xa, xb, ya, yb, counts); return;
	case RULE_CORNER: FN(corner_groups)(p, s, xa, xb, ya, yb, counts); return;
	case RULE_EDGE: FN(edge_groups)(p, s, xa, xb, ya, yb, counts); return;
	default: FN(hex_groups)(p, s, xa, xb, ya, yb, counts); return;
	}
}

#undef HOOD_CASE
#undef HOOD_LAYOUT
#undef HOOD_FN
