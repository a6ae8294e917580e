/* kernel_body.h - the stepping kernel, written once for every vector
 * width (see kernel.h for the scheme).  No include guard: each
 * simd_*.c file includes it once per width after defining
 *
 *   VL          lanes per vector (1, 2, 4 or 8 words of 64 bits)
 *   V, VU       the vector type and an unaligned, aliasing twin for memory
 *   VSPLAT(x)   a vector with x in every lane
 *   TL(a,b,c,F) three-input logic; F is an expression in TA, TB, TC
 *               (vpternlog's immediate where the CPU has it)
 *   VPOPCNT(v)  per-lane population counts
 *   VSHLD1(a,b), VSHRD1(a,b)  (a << 1 | b >> 63), (a >> 1 | b << 63)
 *   VSTREAM(p,v) store around the caches (p aligned to the vector)
 *   FN(name)    the name with this width's suffix
 *
 * and the file #undefs them all at its end.
 *
 * Layout: a vector is VL consecutive words of one row (a chunk), or, for
 * rows shorter than that, `group` whole rows packed together (packed), so
 * short rows still fill the vector.  When VL does not divide the row, its
 * last chunk ends at the row's end and overlaps the one before: those
 * words are computed twice, to the same values, and counted once.
 *
 * Wrap-around along z: a cell's z neighbours come from shifting its word
 * by one bit and pulling in the edge bit of the word before or after.
 * Around a row's ends those are the row's own last and first words, with
 * per-lane shift counts that take bit nz-1 to bit 0 and bit 0 to bit
 * nz-1; when nz is a multiple of 64 no such counts are needed and each
 * neighbour is one funnel shift.  Padding bits above nz collect garbage in
 * Z, Y and S, which never reaches a valid bit (only the input rows are
 * shifted, and their padding is zero) and is masked off before the result
 * is stored. */

#define TXOR3 (TA ^ TB ^ TC)
#define TMAJ ((TA & TB) | (TA & TC) | (TB & TC))
/* TA ? TC : TB */
#define TMUX ((TA & TC) | (~TA & TB))

#if VL == 1
#define SETLANE(v, i, x) ((v) = (x))
#define LANESUM(v) (v)
#else
#define SETLANE(v, i, x) ((v)[i] = (x))
#define LANESUM(v) FN(lanesum)(v)
static inline uint64_t FN(lanesum)(V v)
{
	uint64_t n = 0;
	for (int i = 0; i < VL; i++)
		n += v[i];
	return n;
}
#endif

#if VL == 8
#define PREV_IDX ((V){8, 0, 1, 2, 3, 4, 5, 6})
#define NEXT_IDX ((V){1, 2, 3, 4, 5, 6, 7, 8})
#elif VL == 4
#define PREV_IDX ((V){4, 0, 1, 2})
#define NEXT_IDX ((V){1, 2, 3, 4})
#elif VL == 2
#define PREV_IDX ((V){2, 0})
#define NEXT_IDX ((V){1, 2})
#endif

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Where a chunk sits in its row and how its z neighbours are formed.  A
 * packed vector holds `group` whole short rows instead: the words around
 * each row's ends come from the row itself, and the rows above and below
 * from the neighbouring vectors. */
typedef struct FN(chunk) {
	uint64_t off;          /* first word of the chunk in the row */
	uint64_t before;       /* word whose top bit precedes the chunk */
	uint64_t after;        /* word whose low bit follows the chunk */
	V shift_before;        /* 63, or last_bit for a row's first word */
	V shift_after;         /* 63, or last_bit for a row's last word */
	V outmask;             /* all ones but the padding of a row's last word */
	V cntmask;             /* all ones but the words an earlier chunk made */
#if VL > 1
	V prev_idx, next_idx;  /* packed: the word before / after, in-row */
	V up_idx, down_idx;    /* packed: rows one up / down, across vectors */
#endif
} FN(chunk);

/* Chunks a row takes: the last may overlap the one before (vwords). */
ALWAYS_INLINE uint64_t FN(chunks)(const cpu_plan *p, const bool packed)
{
	return packed ? 1 : p->vwords / VL;
}

ALWAYS_INLINE void FN(chunk_init)(const cpu_plan *p, uint64_t c, FN(chunk) *k,
				  const bool packed)
{
	uint64_t chunks = FN(chunks)(p, packed);
	k->off = c + 1 < chunks || packed ? c * VL : p->words - VL;
	k->before = c ? k->off - 1 : p->words - 1;
	k->after = c + 1 < chunks ? k->off + VL : 0;
	k->shift_before = VSPLAT(63);
	k->shift_after = VSPLAT(63);
	k->outmask = VSPLAT(~(uint64_t)0);
	k->cntmask = VSPLAT(~(uint64_t)0);
#if VL > 1
	if (packed) {
		/* w divides VL, so it is a power of two: l % w is l & (w - 1),
		 * not a division (sixteen of which took 1-2% of a pass over a
		 * plane of 256 rows) */
		uint64_t w = p->words, wm = w - 1;
		for (uint64_t l = 0; l < VL; l++) {
			bool first = (l & wm) == 0, last = ((l + 1) & wm) == 0;
			k->prev_idx[l] = first ? l + w - 1 : l - 1;
			k->next_idx[l] = last ? l + 1 - w : l + 1;
			k->up_idx[l] = VL - w + l;
			k->down_idx[l] = l + w;
			if (first)
				k->shift_before[l] = p->last_bit;
			if (last) {
				k->shift_after[l] = p->last_bit;
				k->outmask[l] = p->tail;
			}
		}
		return;
	}
#endif
	if (c == 0)
		SETLANE(k->shift_before, 0, p->last_bit);
	if (c + 1 == chunks) {
		SETLANE(k->shift_after, VL - 1, p->last_bit);
		SETLANE(k->outmask, VL - 1, p->tail);
		for (uint64_t l = 0; k->off + l < c * VL; l++)
			SETLANE(k->cntmask, l, 0);
	}
}

/* The mask of a chunk's output: all ones (an AND the compiler drops)
 * when nz is a multiple of 64 (`whole`) and no row has padding. */
ALWAYS_INLINE V FN(outmask)(const FN(chunk) *k, const bool whole)
{
	return whole ? VSPLAT(~(uint64_t)0) : k->outmask;
}

/* A row's cells (c) and its two copies shifted along z: dn holds each
 * cell's z - 1 neighbour, up its z + 1 neighbour.  When nz is a multiple
 * of 64 (`whole`) the words around the row's ends need no shifting, and
 * each neighbour is one funnel shift. */
typedef struct FN(zrow) {
	V c, dn, up;
} FN(zrow);

/* The row vector `cur` and its copies shifted along z, given the words
 * before and after each of its words (prev, next). */
ALWAYS_INLINE FN(zrow) FN(zshift)(V cur, V prev, V next, const FN(chunk) *k,
				  const bool whole)
{
	FN(zrow) r = {cur, cur, cur};
	if (whole) {
		r.dn = VSHLD1(cur, prev);
		r.up = VSHRD1(cur, next);
	} else {
		r.dn = (cur << 1) | (prev >> k->shift_before);
		r.up = (cur >> 1) | (next << k->shift_after);
	}
	return r;
}

/* The words before and after each word of the row vector `cur`: within
 * the vector (packed short rows), else `before` and `after` (the words
 * around the vector in its row) shuffled in. */
ALWAYS_INLINE void FN(zsides)(V cur, uint64_t before, uint64_t after, const FN(chunk) *k,
			      const bool packed, V *prev, V *next)
{
#if VL == 1
	(void)cur, (void)k, (void)packed;
	*prev = before;
	*next = after;
#else
	if (packed) {
		(void)before, (void)after;
		*prev = __builtin_shuffle(cur, k->prev_idx);
		*next = __builtin_shuffle(cur, k->next_idx);
	} else {
		*prev = __builtin_shuffle(cur, VSPLAT(before), PREV_IDX);
		*next = __builtin_shuffle(cur, VSPLAT(after), NEXT_IDX);
	}
#endif
}

/* The words of a row around the vector at k->off (packed rows need none:
 * 0, never read). */
ALWAYS_INLINE uint64_t FN(word_before)(const uint64_t *row, const FN(chunk) *k,
				       const bool packed)
{
	return VL > 1 && packed ? 0 : row[k->before];
}

ALWAYS_INLINE uint64_t FN(word_after)(const uint64_t *row, const FN(chunk) *k,
				      const bool packed)
{
	return VL > 1 && packed ? 0 : row[k->after];
}

ALWAYS_INLINE FN(zrow) FN(zrow_at)(const uint64_t *row, const FN(chunk) *k,
				   const bool whole, const bool packed)
{
	V cur = *(const VU *)(row + k->off), prev, next;
	FN(zsides)(cur, FN(word_before)(row, k, packed), FN(word_after)(row, k, packed), k,
		   packed, &prev, &next);
	return FN(zshift)(cur, prev, next, k, whole);
}

/* Two rows a and b summed before they are shifted: the sum's two bit
 * planes s0 = a ^ b and s1 = a & b, each with its z-shifted copies, so
 * that a.dn + a.up + b.dn + b.up is s0.dn + s0.up + 2 (s1.dn + s1.up)
 * without the shifted rows of a and b. */
ALWAYS_INLINE void FN(zrow_pair)(const uint64_t *a, const uint64_t *b, const FN(chunk) *k,
				 const bool whole, const bool packed, FN(zrow) *s0,
				 FN(zrow) *s1)
{
	V x = *(const VU *)(a + k->off), y = *(const VU *)(b + k->off);
	uint64_t xb = FN(word_before)(a, k, packed), yb = FN(word_before)(b, k, packed);
	uint64_t xa = FN(word_after)(a, k, packed), ya = FN(word_after)(b, k, packed);
	V p0, n0, p1, n1;
	FN(zsides)(x ^ y, xb ^ yb, xa ^ ya, k, packed, &p0, &n0);
	FN(zsides)(x & y, xb & yb, xa & ya, k, packed, &p1, &n1);
	*s0 = FN(zshift)(x ^ y, p0, n0, k, whole);
	*s1 = FN(zshift)(x & y, p1, n1, k, whole);
}

/* Z: the sum of each cell and its two z neighbours in one row, as two
 * bit planes. */
ALWAYS_INLINE void FN(zsum)(const uint64_t *row, const FN(chunk) *k,
			    V *z0, V *z1, const bool whole, const bool packed)
{
	FN(zrow) r = FN(zrow_at)(row, k, whole, packed);
	*z0 = TL(r.c, r.dn, r.up, TXOR3);
	*z1 = TL(r.c, r.dn, r.up, TMAJ);
}

/* A number held as four bit planes (Y, 0..9). */
typedef struct FN(nibble) {
	V b0, b1, b2, b3;
} FN(nibble);

/* Y = three 2-bit numbers (0..3 each) summed into 4 bits (0..9). */
ALWAYS_INLINE FN(nibble) FN(ysum)(V a0, V a1, V b0, V b1, V c0, V c1)
{
	V k = TL(a0, b0, c0, TMAJ);
	V t = TL(a1, b1, c1, TXOR3);
	V m = TL(a1, b1, c1, TMAJ);
	FN(nibble) y = {
		TL(a0, b0, c0, TXOR3),
		t ^ k,
		TL(m, t, k, TA ^ (TB & TC)),
		TL(m, t, k, TA & TB & TC),
	};
	return y;
}

/* S = three 4-bit numbers (0..9 each) summed: s[0..3] are the low bits of
 * S (0..27); S >= 16 exactly when hi[0] | hi[1]. */
ALWAYS_INLINE void FN(xsum)(FN(nibble) a, FN(nibble) b, FN(nibble) c, V s[4],
			    V hi[2])
{
	V k1 = TL(a.b0, b.b0, c.b0, TMAJ);
	V t1 = TL(a.b1, b.b1, c.b1, TXOR3);
	V m1 = TL(a.b1, b.b1, c.b1, TMAJ);
	V n1 = t1 & k1;
	V t2 = TL(a.b2, b.b2, c.b2, TXOR3);
	V m2 = TL(a.b2, b.b2, c.b2, TMAJ);
	V m3 = TL(t2, m1, n1, TMAJ);
	V t3 = TL(a.b3, b.b3, c.b3, TXOR3);
	s[0] = TL(a.b0, b.b0, c.b0, TXOR3);
	s[1] = t1 ^ k1;
	s[2] = TL(t2, m1, n1, TXOR3);
	s[3] = TL(t3, m2, m3, TXOR3);
	hi[0] = TL(a.b3, b.b3, c.b3, TMAJ);
	hi[1] = TL(t3, m2, m3, TMAJ);
}

/* Two 4-bit numbers (0..9 each) summed into 5 bits (0..18): the sum of
 * two planes' Y, which the next generations of both share. */
typedef struct FN(pair) {
	V b0, b1, b2, b3, b4;
} FN(pair);

ALWAYS_INLINE FN(pair) FN(add44)(FN(nibble) a, FN(nibble) b)
{
	V c1 = a.b0 & b.b0;
	V c2 = TL(a.b1, b.b1, c1, TMAJ);
	V c3 = TL(a.b2, b.b2, c2, TMAJ);
	FN(pair) r = {
		a.b0 ^ b.b0,
		TL(a.b1, b.b1, c1, TXOR3),
		TL(a.b2, b.b2, c2, TXOR3),
		TL(a.b3, b.b3, c3, TXOR3),
		TL(a.b3, b.b3, c3, TMAJ),
	};
	return r;
}

/* S = such a pair sum plus a third Y, in xsum's form. */
ALWAYS_INLINE void FN(add54)(FN(pair) q, FN(nibble) a, V s[4], V hi[2])
{
	V c1 = q.b0 & a.b0;
	V c2 = TL(q.b1, a.b1, c1, TMAJ);
	V c3 = TL(q.b2, a.b2, c2, TMAJ);
	s[0] = q.b0 ^ a.b0;
	s[1] = TL(q.b1, a.b1, c1, TXOR3);
	s[2] = TL(q.b2, a.b2, c2, TXOR3);
	s[3] = TL(q.b3, a.b3, c3, TXOR3);
	hi[0] = q.b4;
	hi[1] = TL(q.b3, a.b3, c3, TMAJ);
}

/* B6/S567 with S counting the cell itself: born on S = 6, survives on
 * S = 6, 7, 8.  S mod 16 in {6, 7, 8} is (s3 s2 s1) = 011 or 100, and
 * then s0 and self decide: 6 always, 7 and 8 if alive, 9 never. */
ALWAYS_INLINE V FN(rule_b6s567)(const V s[4], const V hi[2], V self, V mask)
{
	V bits321 = TL(s[1], s[2], s[3], (TA & TB & ~TC) | (~TA & ~TB & TC));
	V low = TL(s[0], self, s[3], (~TC & (~TA | TB)) | (TC & ~TA & TB));
	V g = TL(low, bits321, hi[0], TA & TB & ~TC);
	return TL(g, hi[1], mask, TA & ~TB & TC);
}

/* Any rule, as the sum of its groups: S = 4j + 2 s1 + s0 for j = (s4 s3
 * s2) = 0..6, and within group j the next state is a function of the
 * cell, s1 and s0 alone: one ternary operation, whose truth table comes
 * from the group's four pair codes (the plan's group_code, kernel.h).
 * The next state is the OR over the groups of [j = (s4 s3 s2)] and that
 * function (rule_of): five operations a group the rule uses, none for one
 * it does not.  The code picks one of 256 cases of a switch, the same
 * branch for every vector.  Measured against the multiplexer tree over
 * the bits of S that this replaces (src/engine/cpu/NOTES.md, "Other
 * rules and neighbourhoods on the CPU").  On AVX-512 and AVX2 the plan
 * usually carries the rule compiled, the switch's choices fixed
 * (rulejit.h), and rule_of and rule_of2 call that instead.
 *
 * A pair code's outcome (0: never, 1: on s0, 2: on ~s0, 3: always) as a
 * function of x = s0. */
#define PAIR_LEAF(k, x) ((k) == 0 ? (x) & ~(x) : (k) == 1 ? (x) : (k) == 2 ? ~(x) : (x) | ~(x))
/* The group's function of (self, s1, s0) for dead pair codes a, b and
 * live ones c, d (for s1 = 0 and 1). */
#define GROUP_TABLE(a, b, c, d)                                               \
	((~TA & ((~TB & PAIR_LEAF(a, TC)) | (TB & PAIR_LEAF(b, TC)))) |       \
	 (TA & ((~TB & PAIR_LEAF(c, TC)) | (TB & PAIR_LEAF(d, TC)))))
#define GROUP_CASE(a, b, c, d)                                                \
	case 64 * (a) + 16 * (b) + 4 * (c) + (d):                             \
		GROUP_DO(GROUP_TABLE(a, b, c, d))
#define GROUP_CASES4(a, b, c)                                                 \
	GROUP_CASE(a, b, c, 0); GROUP_CASE(a, b, c, 1);                      \
	GROUP_CASE(a, b, c, 2); GROUP_CASE(a, b, c, 3)
#define GROUP_CASES16(a, b)                                                   \
	GROUP_CASES4(a, b, 0); GROUP_CASES4(a, b, 1);                        \
	GROUP_CASES4(a, b, 2); GROUP_CASES4(a, b, 3)
#define GROUP_CASES64(a)                                                      \
	GROUP_CASES16(a, 0); GROUP_CASES16(a, 1);                            \
	GROUP_CASES16(a, 2); GROUP_CASES16(a, 3)
#define GROUP_DO(t) return TL(self, s1, s0, t)
ALWAYS_INLINE V FN(group_fn)(int code, V self, V s1, V s0)
{
	switch (code) {
	GROUP_CASES64(0); GROUP_CASES64(1); GROUP_CASES64(2); GROUP_CASES64(3);
	default: return self;    /* not reached: codes are 0..255 */
	}
}
#undef GROUP_DO
/* The same for two vectors (a and b) at once: one branch for both. */
#define GROUP_DO(t)                                                           \
	*fa = TL(self_a, a1, a0, t);                                          \
	*fb = TL(self_b, b1, b0, t);                                          \
	return
ALWAYS_INLINE void FN(group_fn2)(int code, V self_a, V a1, V a0, V self_b,
				 V b1, V b0, V *fa, V *fb)
{
	switch (code) {
	GROUP_CASES64(0); GROUP_CASES64(1); GROUP_CASES64(2); GROUP_CASES64(3);
	default: *fa = self_a, *fb = self_b;    /* not reached */
	}
}
#undef GROUP_DO
#undef GROUP_CASES64
#undef GROUP_CASES16
#undef GROUP_CASES4
#undef GROUP_CASE
#undef GROUP_TABLE
#undef PAIR_LEAF

/* What a pass reads of the plan on every vector, copied out of it: the
 * stores through may_alias pointers would otherwise make the compiler
 * read the plan again after each one. */
typedef struct FN(hot) {
	bool stream;
	uint64_t prefetch;
	uint8_t group_code[CPU_GROUPS];
	uint64_t jbits[CPU_GROUPS][3];
	int groups;
	uint64_t carry;
	const void *rule_code;
} FN(hot);

ALWAYS_INLINE void FN(hot_init)(const cpu_plan *p, FN(hot) *h)
{
	h->stream = p->stream;
	h->prefetch = (uint64_t)p->prefetch * 8;
	memcpy(h->group_code, p->group_code, sizeof h->group_code);
	memcpy(h->jbits, p->group_jbits, sizeof h->jbits);
	h->groups = p->groups;
	h->carry = p->count_carry;
	h->rule_code = p->rule_code;
}

/* The carry into F's, C's, E's and H's counts (cpu_plan.count_carry):
 * read from the plan where the includer defines KERNEL_CARRY (the plan
 * sets it only for those kernels, cpu_carry_free), else a constant 0 that
 * the compiler folds away. */
ALWAYS_INLINE V FN(carry)(const FN(hot) *h)
{
#if defined(KERNEL_CARRY) && KERNEL_CARRY
	return VSPLAT(h->carry);
#else
	(void)h;
	return VSPLAT(0);
#endif
}

/* Whether (s4 s3 s2) of s is group k's j. */
ALWAYS_INLINE V FN(group_hit)(const FN(hot) *h, int k, const V s[5])
{
	V miss2 = s[2] ^ VSPLAT(h->jbits[k][2]);
	V hit32 = TL(s[3], miss2, VSPLAT(h->jbits[k][1]), ~(TA ^ TC) & ~TB);
	return TL(s[4], hit32, VSPLAT(h->jbits[k][0]), ~(TA ^ TC) & TB);
}

/* The groups the rule uses (the plan's list), each added to the result:
 * a loop of as many turns as the rule has groups, always the same ones.
 * Whether (s4 s3 s2) is the group's j takes three operations whose
 * constants are j's bits (broadcast from memory), not a switch: with a
 * switch the compiler made all seven tests for every vector, kept some
 * of them on the stack and branched twice a group (src/engine/cpu/NOTES.md,
 * "Other rules and neighbourhoods on the CPU"). */
#if defined(KERNEL_RULE_CODE) && KERNEL_RULE_CODE
/* rule_of by the rule's machine code (rulejit.h): the cell and the
 * count's bits go in the registers it reads (on AVX-512 s0..s3, h0 and
 * h1; on AVX2 s0..s4, s4 = h0 | h1), and the stack pointer steps over the
 * red zone (where this function may keep values) before the call pushes
 * its return address.  The code writes only the registers its convention
 * names: zmm21..25 for AVX-512 (KERNEL_RULE_CODE 1), ymm4..7, ymm14 and
 * ymm15 for AVX2 (2).  Every input is in a register (the empty asm)
 * before the first register variable is set: between those and the call
 * nothing may run that could write the registers, and a sanitizer's
 * check of a 32- or 64-byte load is a call that may. */
ALWAYS_INLINE V FN(rule_code)(const void *code, const V s[6], V self)
{
#if KERNEL_RULE_CODE == 1
	V c = self, a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3], a4 = s[4], a5 = s[5];
	__asm__("" : "+v"(c), "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5));
	register V self_r __asm__("xmm16") = c;
	register V s0 __asm__("xmm17") = a0, s1 __asm__("xmm18") = a1;
	register V s2 __asm__("xmm19") = a2, s3 __asm__("xmm20") = a3;
	register V h0 __asm__("xmm21") = a4, h1 __asm__("xmm26") = a5;
	__asm__("lea -128(%%rsp), %%rsp\n\tcall *%[code]\n\tlea 128(%%rsp), %%rsp"
		: "+v"(self_r), "+v"(h0)
		: "v"(s0), "v"(s1), "v"(s2), "v"(s3), "v"(h1), [code] "r"(code)
		: "xmm22", "xmm23", "xmm24", "xmm25");
#else
	V c = self, a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3], a4 = s[4] | s[5];
	__asm__("" : "+v"(c), "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4));
	register V self_r __asm__("xmm8") = c;
	register V s0 __asm__("xmm9") = a0, s1 __asm__("xmm10") = a1;
	register V s2 __asm__("xmm11") = a2, s3 __asm__("xmm12") = a3;
	register V s4 __asm__("xmm13") = a4;
	__asm__("lea -128(%%rsp), %%rsp\n\tcall *%[code]\n\tlea 128(%%rsp), %%rsp"
		: "+v"(self_r)
		: "v"(s0), "v"(s1), "v"(s2), "v"(s3), "v"(s4), [code] "r"(code)
		: "xmm4", "xmm5", "xmm6", "xmm7", "xmm14", "xmm15");
#endif
	return self_r;
}
#define RULE_CODE(h, s, self) FN(rule_code)((h)->rule_code, s, self)
#else
#define RULE_CODE(h, s, self) VSPLAT(0)
#endif

/* s0..s4 of rule_of's s (below), s4 = h0 | h1, for group_hit. */
ALWAYS_INLINE void FN(jbits)(const V s[6], V j[5])
{
	for (int i = 0; i < 4; i++)
		j[i] = s[i];
	j[4] = s[4] | s[5];
}

/* The next state of the cells self from their count's bits s: s0..s3,
 * then h0 and h1, of which S >= 16 exactly when one is set (xsum's hi;
 * the compiled rule on AVX-512 takes them apart, and needs no OR of the
 * two where the rule has no group above 15; F's, C's, E's and H's
 * counts stay below 16, and their h0 and h1 are 0). */
ALWAYS_INLINE V FN(rule_of)(const FN(hot) *h, const V s[6], V self, const int kind)
{
	if (kind == CPU_RULE_CODE)
		return RULE_CODE(h, s, self);
	V j[5], out = VSPLAT(0);
	FN(jbits)(s, j);
	for (int k = 0; k < h->groups; k++) {
		V f = FN(group_fn)(h->group_code[k], self, s[1], s[0]);
		out = TL(FN(group_hit)(h, k, j), f, out, (TA & TB) | TC);
	}
	return out;
}

/* rule_of for two vectors, a and b: one branch a group for both, which
 * the two planes of a pass (pass2) and pairs of rows (plane_parts) share
 * (src/engine/cpu/NOTES.md, "Two vectors a branch"). */
ALWAYS_INLINE void FN(rule_of2)(const FN(hot) *h, const V sa[6], V self_a,
				const V sb[6], V self_b, V *out_a, V *out_b, const int kind)
{
	if (kind == CPU_RULE_CODE) {
		*out_a = RULE_CODE(h, sa, self_a);
		*out_b = RULE_CODE(h, sb, self_b);
		return;
	}
	V ja[5], jb[5];
	FN(jbits)(sa, ja);
	FN(jbits)(sb, jb);
	V oa = VSPLAT(0), ob = VSPLAT(0);
	for (int k = 0; k < h->groups; k++) {
		V fa, fb;
		FN(group_fn2)(h->group_code[k], self_a, sa[1], sa[0], self_b, sb[1],
			      sb[0], &fa, &fb);
		oa = TL(FN(group_hit)(h, k, ja), fa, oa, (TA & TB) | TC);
		ob = TL(FN(group_hit)(h, k, jb), fb, ob, (TA & TB) | TC);
	}
	*out_a = oa;
	*out_b = ob;
}

/* Store one vector of the next generation and, when counting, add the
 * population, births and deaths of the words in cnt (the chunk's
 * cntmask). */
ALWAYS_INLINE void FN(store)(const FN(hot) *h, V out, V self, uint64_t *out_at,
			     V cnt, V acc[3], const bool count)
{
	if (h->stream)
		VSTREAM(out_at, out);
	else
		*(VU *)out_at = out;
	if (count) {
		acc[0] += VPOPCNT(out & cnt);
		acc[1] += VPOPCNT(TL(out, self, cnt, TA & ~TB & TC));
		acc[2] += VPOPCNT(TL(self, out, cnt, TA & ~TB & TC));
	}
}

/* The next generation of one vector of cells from its box sum S: rule,
 * store, and the counts for a log line. */
ALWAYS_INLINE void FN(emit)(const FN(hot) *h, const V s[4], const V hi[2],
			    const uint64_t *self_at, uint64_t *out_at, V mask,
			    V cnt, V acc[3], const bool count, const int kind)
{
	V self = *(const VU *)self_at;
	V s6[6] = {s[0], s[1], s[2], s[3], hi[0], hi[1]};
	V out = kind == CPU_RULE_B6S567 ? FN(rule_b6s567)(s, hi, self, mask)
					: FN(rule_of)(h, s6, self, kind) & mask;
	FN(store)(h, out, self, out_at, cnt, acc, count);
}

/* The rule for two vectors of cells, a and b, from their counts' bit
 * planes (sa, sb, as rule_of's s): the next cells stored at out_a and
 * out_b. */
ALWAYS_INLINE void FN(decide2)(const FN(hot) *h, const V sa[6], V a, const V sb[6],
			       V b, uint64_t *out_a, uint64_t *out_b, V mask, V cnt,
			       V acc[3], const bool count, const int kind)
{
	V ra, rb;
	FN(rule_of2)(h, sa, a, sb, b, &ra, &rb, kind);
	FN(store)(h, ra & mask, a, out_a, cnt, acc, count);
	FN(store)(h, rb & mask, b, out_b, cnt, acc, count);
}

/* emit for two vectors of cells, a and b (the two planes of a pass2). */
ALWAYS_INLINE void FN(emit2)(const FN(hot) *h, const V sa[4], const V ha[2],
			     const V sb[4], const V hb[2], const uint64_t *self_a,
			     const uint64_t *self_b, uint64_t *out_a, uint64_t *out_b,
			     V mask, V cnt, V acc[3], const bool count, const int kind)
{
	if (kind == CPU_RULE_B6S567) {
		FN(emit)(h, sa, ha, self_a, out_a, mask, cnt, acc, count, kind);
		FN(emit)(h, sb, hb, self_b, out_b, mask, cnt, acc, count, kind);
		return;
	}
	V a6[6] = {sa[0], sa[1], sa[2], sa[3], ha[0], ha[1]};
	V b6[6] = {sb[0], sb[1], sb[2], sb[3], hb[0], hb[1]};
	FN(decide2)(h, a6, *(const VU *)self_a, b6, *(const VU *)self_b, out_a, out_b,
		    mask, cnt, acc, count, kind);
}

/* Y of one vector from the Z of the vectors before, at and after it:
 * for packed rows the neighbours are the rows one up and one down. */
ALWAYS_INLINE FN(nibble) FN(ysum_at)(const FN(chunk) *k, V zp0, V zp1, V zc0,
				     V zc1, V zn0, V zn1, const bool packed)
{
#if VL > 1
	if (packed)
		return FN(ysum)(__builtin_shuffle(zp0, zc0, k->up_idx),
				__builtin_shuffle(zp1, zc1, k->up_idx), zc0, zc1,
				__builtin_shuffle(zc0, zn0, k->down_idx),
				__builtin_shuffle(zc1, zn1, k->down_idx));
#else
	(void)k;
	(void)packed;
#endif
	return FN(ysum)(zp0, zp1, zc0, zc1, zn0, zn1);
}

/* Bring the next input rows into the cache one pass before they are
 * needed. */
ALWAYS_INLINE void FN(prefetch)(const FN(hot) *h, const uint64_t *at,
				uint64_t planes)
{
	__builtin_prefetch((const void *)((uintptr_t)at + h->prefetch * planes));
}

/* One pass over rows [ya, yb) of input plane `in`: compute its Y and,
 * when `emit`, the next generation of the plane before it from the two
 * older Y in ring_a and ring_b.  Y goes to ring_new unless it is NULL. */
ALWAYS_INLINE void FN(pass)(const cpu_plan *p, const uint64_t *in,
			    const uint64_t *self_plane, uint64_t *out_plane,
			    FN(nibble) *ring_new, const FN(nibble) *ring_a,
			    const FN(nibble) *ring_b,
			    uint64_t ya, uint64_t yb, V acc[3],
			    const bool emit, const bool count, const int kind,
			    const bool whole, const bool packed)
{
	const uint64_t w = p->words, ny = p->ny, chunks = FN(chunks)(p, packed);
	const uint64_t g = packed ? p->group : 1;    /* rows per vector */
	FN(hot) h;
	FN(hot_init)(p, &h);
	for (uint64_t c = 0; c < chunks; c++) {
		FN(chunk) k;
		FN(chunk_init)(p, c, &k, packed);
		V zp0, zp1, zc0, zc1;
		FN(zsum)(in + (ya ? ya - g : ny - g) * w, &k, &zp0, &zp1, whole, packed);
		FN(zsum)(in + ya * w, &k, &zc0, &zc1, whole, packed);
		for (uint64_t y = ya, i = c; y < yb; y += g, i += chunks) {
			uint64_t yn = y + g == ny ? 0 : y + g;
			V zn0, zn1;
			FN(zsum)(in + yn * w, &k, &zn0, &zn1, whole, packed);
			FN(prefetch)(&h, in + yn * w + k.off, 1);
			FN(nibble) ys = FN(ysum_at)(&k, zp0, zp1, zc0, zc1, zn0, zn1, packed);
			if (emit) {
				V s[4], hi[2];
				FN(xsum)(ring_a[i], ring_b[i], ys, s, hi);
				uint64_t at = y * w + k.off;
				FN(emit)(&h, s, hi, self_plane + at, out_plane + at,
					 FN(outmask)(&k, whole), k.cntmask, acc, count, kind);
			}
			if (ring_new)
				ring_new[i] = ys;
			zp0 = zc0;
			zp1 = zc1;
			zc0 = zn0;
			zc1 = zn1;
		}
	}
}

/* One pass over rows [ya, yb) of two consecutive input planes in0, in1
 * (x0, x0 + 1): the next generation of planes x0 - 1 and x0.  ring_a and
 * ring_b hold Y of planes x0 - 2 and x0 - 1 and are left holding Y of
 * in0 and in1.  The two results share Y(x0 - 1) + Y(x0). */
ALWAYS_INLINE void FN(pass2)(const cpu_plan *p, const uint64_t *in0,
			     const uint64_t *in1, const uint64_t *self_plane,
			     uint64_t *out_plane, FN(nibble) *ring_a,
			     FN(nibble) *ring_b, uint64_t ya, uint64_t yb,
			     V acc[3], const bool count, const int kind,
			     const bool whole, const bool packed)
{
	const uint64_t w = p->words, ny = p->ny, chunks = FN(chunks)(p, packed);
	const uint64_t g = packed ? p->group : 1;
	const uint64_t plane = ny * w;
	FN(hot) h;
	FN(hot_init)(p, &h);
	for (uint64_t c = 0; c < chunks; c++) {
		FN(chunk) k;
		FN(chunk_init)(p, c, &k, packed);
		uint64_t ym = (ya ? ya - g : ny - g) * w;
		V ap0, ap1, ac0, ac1, bp0, bp1, bc0, bc1;
		FN(zsum)(in0 + ym, &k, &ap0, &ap1, whole, packed);
		FN(zsum)(in0 + ya * w, &k, &ac0, &ac1, whole, packed);
		FN(zsum)(in1 + ym, &k, &bp0, &bp1, whole, packed);
		FN(zsum)(in1 + ya * w, &k, &bc0, &bc1, whole, packed);
		for (uint64_t y = ya, i = c; y < yb; y += g, i += chunks) {
			uint64_t yn = (y + g == ny ? 0 : y + g) * w;
			V an0, an1, bn0, bn1;
			FN(zsum)(in0 + yn, &k, &an0, &an1, whole, packed);
			FN(zsum)(in1 + yn, &k, &bn0, &bn1, whole, packed);
			FN(prefetch)(&h, in0 + yn + k.off, 2);
			FN(prefetch)(&h, in1 + yn + k.off, 2);
			FN(nibble) y0 = FN(ysum_at)(&k, ap0, ap1, ac0, ac1, an0, an1, packed);
			FN(nibble) y1 = FN(ysum_at)(&k, bp0, bp1, bc0, bc1, bn0, bn1, packed);
			FN(pair) mid = FN(add44)(ring_b[i], y0);
			V sa[4], ha[2], sb[4], hb[2];
			uint64_t at = y * w + k.off;
			FN(add54)(mid, ring_a[i], sa, ha);
			FN(add54)(mid, y1, sb, hb);
			FN(emit2)(&h, sa, ha, sb, hb, self_plane + at, self_plane + plane + at,
				  out_plane + at, out_plane + plane + at, FN(outmask)(&k, whole),
				  k.cntmask, acc, count, kind);
			ring_a[i] = y0;
			ring_b[i] = y1;
			ap0 = ac0, ap1 = ac1, ac0 = an0, ac1 = an1;
			bp0 = bc0, bp1 = bc1, bc0 = bn0, bc1 = bn1;
		}
	}
}

/* Input plane x of the slab, x in -1..nx. */
static inline const uint64_t *FN(plane)(const cpu_slab *s, uint64_t plane,
					int64_t x)
{
	if (x < 0)
		return s->halo_lo;
	if ((uint64_t)x >= s->nx)
		return s->halo_hi;
	return s->src + (uint64_t)x * plane;
}

/* March along x through planes xa-1 .. xb for rows [ya, yb) (at most
 * tile_rows of them), two planes a pass, keeping Y of the last two input
 * planes in the ring. */
ALWAYS_INLINE void FN(band_kind)(const cpu_plan *p, const cpu_slab *s,
				 uint64_t xa, uint64_t xb, uint64_t ya,
				 uint64_t yb, uint64_t *ring,
				 engine_stats *counts, const int kind, const bool whole,
				 const bool packed)
{
	const uint64_t plane = p->ny * p->words, inputs = xb - xa + 2;
	/* slots a little more than a tile apart: loads from one slot would
	 * otherwise share their low address bits with the store just made
	 * to the other, which the CPU takes for a dependence */
	const uint64_t slot = p->tile_rows * p->vwords / VL + 2;
	FN(nibble) *ra = (FN(nibble) *)ring, *rb = ra + slot;
	V acc[3] = {VSPLAT(0), VSPLAT(0), VSPLAT(0)};
	/* input plane i is x = xa - 1 + i; its pass makes plane x - 1 */
	FN(pass)(p, FN(plane)(s, plane, (int64_t)xa - 1), NULL, NULL, ra, NULL, NULL,
		 ya, yb, acc, false, false, kind, whole, packed);
	FN(pass)(p, FN(plane)(s, plane, (int64_t)xa), NULL, NULL, rb, NULL, NULL,
		 ya, yb, acc, false, false, kind, whole, packed);
	uint64_t i = 2;
	for (; i + 1 < inputs; i += 2) {
		uint64_t x = xa - 1 + i;
		const uint64_t *in0 = FN(plane)(s, plane, (int64_t)x);
		const uint64_t *in1 = FN(plane)(s, plane, (int64_t)x + 1);
		const uint64_t *self = s->src + (x - 1) * plane;
		uint64_t *out = s->dst + (x - 1) * plane;
		if (counts)
			FN(pass2)(p, in0, in1, self, out, ra, rb, ya, yb, acc, true,
				  kind, whole, packed);
		else
			FN(pass2)(p, in0, in1, self, out, ra, rb, ya, yb, acc, false,
				  kind, whole, packed);
	}
	if (i < inputs) {
		uint64_t x = xa - 1 + i;
		const uint64_t *self = s->src + (x - 1) * plane;
		uint64_t *out = s->dst + (x - 1) * plane;
		FN(pass)(p, FN(plane)(s, plane, (int64_t)x), self, out, NULL, ra, rb,
			 ya, yb, acc, true, counts != NULL, kind, whole, packed);
	}
	if (counts) {
		counts->population += LANESUM(acc[0]);
		counts->births += LANESUM(acc[1]);
		counts->deaths += LANESUM(acc[2]);
	}
}

/* One instance per rule kind, row kind (nz a multiple of 64 or not) and
 * layout (packed short rows or chunks of long ones). */
#define BAND_CASE(kind, whole, packed)                                        \
	FN(band_kind)(p, s, xa, xb, ya, yb, ring, counts, kind, whole, packed)
/* CASE(a, b, packed) for the layout of the plan's rows. */
#if VL > 1
#define BY_LAYOUT(CASE, a, b)                                                 \
	do {                                                                  \
		if (p->group > 1)                                             \
			CASE(a, b, true);                                     \
		else                                                          \
			CASE(a, b, false);                                    \
	} while (0)
#else
#define BY_LAYOUT(CASE, a, b) CASE(a, b, false)
#endif
#define BAND_LAYOUT(kind, whole) BY_LAYOUT(BAND_CASE, kind, whole)
/* LAYOUT(a, whole) for the plan's rows: whole when nz is a multiple of 64. */
#define BY_ROWS(LAYOUT, a)                                                    \
	do {                                                                  \
		if (p->nz % 64 == 0)                                          \
			LAYOUT(a, true);                                      \
		else                                                          \
			LAYOUT(a, false);                                     \
	} while (0)
#define BAND_ROWS(kind) BY_ROWS(BAND_LAYOUT, kind)

#include "kernel_hood.h"

/* Moore's instances, a function per rule kind (as HOOD_FN). */
#define BAND_FN(name, rule_kind)                                              \
	static __attribute__((noinline)) void FN(name)(                      \
		const cpu_plan *p, const cpu_slab *s, uint64_t xa, uint64_t xb, \
		uint64_t ya, uint64_t yb, uint64_t *ring, engine_stats *counts) \
	{                                                                     \
		BAND_ROWS(rule_kind);                                         \
	}
BAND_FN(band_b6s567, CPU_RULE_B6S567)
BAND_FN(band_groups, CPU_RULE_GROUPS)
#if defined(KERNEL_RULE_CODE) && KERNEL_RULE_CODE
BAND_FN(band_code, CPU_RULE_CODE)
#endif

static void FN(band)(const cpu_plan *p, const cpu_slab *s, uint64_t xa,
		     uint64_t xb, uint64_t ya, uint64_t yb, uint64_t *ring,
		     engine_stats *counts)
{
	if (p->hood != RULE_MOORE) {
		FN(band_hood)(p, s, xa, xb, ya, yb, counts);
		return;
	}
	if (p->rule_kind == CPU_RULE_B6S567)
		FN(band_b6s567)(p, s, xa, xb, ya, yb, ring, counts);
#if defined(KERNEL_RULE_CODE) && KERNEL_RULE_CODE
	else if (p->rule_kind == CPU_RULE_CODE)
		FN(band_code)(p, s, xa, xb, ya, yb, ring, counts);
#endif
	else
		FN(band_groups)(p, s, xa, xb, ya, yb, ring, counts);
}

#undef BAND_CASE
#undef BAND_FN
#undef BAND_ROWS
#undef BY_ROWS
#undef BAND_LAYOUT
#undef RULE_CODE
#undef BY_LAYOUT
#undef TXOR3
#undef TMAJ
#undef TMUX
#undef SETLANE
#undef LANESUM
#undef PREV_IDX
#undef NEXT_IDX
#undef ALWAYS_INLINE
#undef VL
#undef V
#undef VU
#undef VSPLAT
#undef TL
#undef VPOPCNT
#undef VSHLD1
#undef VSTREAM
#undef VSHRD1
#undef FN
