/* rulejit.c - see rulejit.h.
 *
 * Why: rule_of picks each group's operation by a switch, a jump a group
 * on every pair of vectors, and the general Moore rules ran at 75-91% of
 * B6/S567 on AVX-512 and 72-91% on AVX2 for it; the same operations
 * fixed ran as fast as B6/S567 (src/engine/cpu/NOTES.md, "The rule
 * compiled on the CPU"). */
#include "rulejit.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The calling convention's registers (rulejit.h): s4 = h0 | h1, made in
 * h0's register where a node selects by it. */
enum { R_SELF = 16, R_S0, R_S1, R_S2, R_S3, R_H0, R_TMP, R_H1 = 26 };

/* vpternlog's truth tables of its inputs: the destination, then the two
 * sources. */
enum { TA = 0xF0, TB = 0xCC, TC = 0xAA };

typedef struct emitter {
	unsigned char *at;
	size_t n;
	unsigned ll;    /* EVEX.L'L: 0, 1, 2 for 128, 256, 512 bits */
} emitter;

/* One EVEX instruction on registers 16..31 (prefix 66, W1): opcode op of
 * map mm (1: 0F, 3: 0F3A), ModRM.reg = dst, vvvv = src1 (0 and so
 * unused when the instruction has none), ModRM.rm = src2, then the
 * immediate unless imm < 0.  The register fields are stored inverted. */
static void evex(emitter *e, unsigned mm, unsigned op, unsigned dst, unsigned src1,
		 unsigned src2, int imm)
{
	unsigned char *b = e->at + e->n;
	b[0] = 0x62;
	b[1] = (unsigned char)((~dst >> 3 & 1) << 7 | (~src2 >> 4 & 1) << 6 |
			       (~src2 >> 3 & 1) << 5 | (~dst >> 4 & 1) << 4 | mm);
	b[2] = (unsigned char)(1u << 7 | (~src1 & 15) << 3 | 1u << 2 | 1u);
	b[3] = (unsigned char)(e->ll << 5 | (~src1 >> 4 & 1) << 3);
	b[4] = (unsigned char)op;
	b[5] = (unsigned char)(0xC0 | (dst & 7) << 3 | (src2 & 7));
	e->n += 6;
	if (imm >= 0)
		e->at[e->n++] = (unsigned char)imm;
}

/* dst = f(dst, a, b), f's truth table `table` (vpternlogq). */
static void tern(emitter *e, unsigned dst, unsigned a, unsigned b, unsigned table)
{
	evex(e, 3, 0x25, dst, a, b, (int)(table & 0xFF));
}

/* dst = src (vmovdqa64). */
static void move(emitter *e, unsigned dst, unsigned src)
{
	evex(e, 1, 0x6F, dst, 0, src, -1);
}

/* endbr64, the landing pad of an indirect call where CET asks one (a
 * no-op elsewhere). */
static void landing_pad(unsigned char *buf, size_t *n)
{
	static const unsigned char endbr64[] = {0xF3, 0x0F, 0x1E, 0xFA};
	for (size_t i = 0; i < sizeof endbr64; i++)
		buf[(*n)++] = endbr64[i];
}

/* A pair code's outcome (kernel.h: 0 never, 1 on x, 2 on ~x, 3 always). */
static unsigned pair_leaf(unsigned code, unsigned x)
{
	return code == 0 ? 0 : code == 1 ? x : code == 2 ? ~x : 0xFF;
}

/* Group code 64 a + 16 b + 4 c + d as the truth table of a function of
 * (self, s1, s0): kernel_body.h's GROUP_TABLE. */
static unsigned leaf_table(unsigned code)
{
	unsigned dead = (~TB & pair_leaf(code >> 6 & 3, TC)) | (TB & pair_leaf(code >> 4 & 3, TC));
	unsigned live = (~TB & pair_leaf(code >> 2 & 3, TC)) | (TB & pair_leaf(code & 3, TC));
	return ((~TA & dead) | (TA & live)) & 0xFF;
}

/* The largest count the plan's kernel gives: Moore's S counts the cell
 * (0..27); the others count their neighbours, one more with the carry. */
static unsigned count_max(const cpu_plan *p)
{
	if (p->hood == RULE_MOORE)
		return 27;
	return rule_hood_max((rule_hood)p->hood) + (p->count_carry ? 1 : 0);
}

/* The groups' functions of (self, s1, s0) by j = (s4 s3 s2), 0 where the
 * rule has no group (never a live cell there). */
static void leaf_tables(const cpu_plan *p, unsigned leaf[8])
{
	for (unsigned j = 0; j < 8; j++)
		leaf[j] = 0;
	for (int k = 0; k < p->groups; k++) {
		unsigned j = (unsigned)(p->group_jbits[k][0] & 4) | (unsigned)(p->group_jbits[k][1] & 2) |
			     (unsigned)(p->group_jbits[k][2] & 1);
		leaf[j] = leaf_table(p->group_code[k]);
	}
}

enum { NONE = 0 };    /* a subtree that is 0 everywhere: no register */

/* A subtree's value: its register (or NONE), and a condition on the bits
 * of j not yet applied: the value holds only where cond (bit j: the
 * condition at that j) is set, and cond depends on the bits in deps (bit
 * b for j's bit b, that is s(b + 2)), two at most, so that one vpternlog
 * applies it.  Conditions met on the way up are gathered rather than
 * applied one by one. */
typedef struct tval {
	unsigned reg;
	unsigned cond;    /* 8 bits, one a value of j; 0xFF: none pending */
	unsigned deps;
} tval;

enum { ALWAYS = 0xFF };

/* The register of j's bit b (s4: h0's register, where top made it). */
static unsigned sel_reg(unsigned b)
{
	return b == 2 ? R_H0 : R_S2 + b;
}

/* The bits of j set in deps, in order (b0 <= b1; one bit: both it). */
static void dep_bits(unsigned deps, unsigned *b0, unsigned *b1)
{
	unsigned n = 0, b[3] = {0, 0, 0};
	for (unsigned i = 0; i < 3; i++)
		if (deps >> i & 1)
			b[n++] = i;
	*b0 = b[0];
	*b1 = n > 1 ? b[1] : b[0];
}

/* v's register with its pending condition applied: reg & cond(B, C), B
 * and C the registers of its (one or two) bits of j. */
static unsigned settle(emitter *e, tval v)
{
	if (!v.reg || v.cond == ALWAYS)
		return v.reg;
	unsigned b0, b1, table = 0;
	dep_bits(v.deps, &b0, &b1);
	for (unsigned x = 0; x < 4; x++) {
		unsigned bb = x & 1, cc = x >> 1;
		if (b0 == b1 && bb != cc)
			continue;
		unsigned j = bb << b0 | cc << b1;
		if (v.cond >> j & 1)
			table |= (bb ? TB : ~TB) & (cc ? TC : ~TC);
	}
	tern(e, v.reg, sel_reg(b0), sel_reg(b1), TA & table & 0xFF);
	return v.reg;
}

/* The values of j (a bit each) whose bit b is `want`. */
static unsigned where_bit(unsigned b, bool want)
{
	unsigned set = 0;
	for (unsigned j = 0; j < 8; j++)
		if ((j >> b & 1) == want)
			set |= 1u << j;
	return set;
}

/* v applied where j's bit b is `want`, the condition kept pending while
 * it depends on two bits of j at most. */
static tval only_where(emitter *e, tval v, unsigned b, bool want)
{
	if (__builtin_popcount(v.deps | 1u << b) > 2)
		v = (tval){settle(e, v), ALWAYS, 0};
	return (tval){v.reg, v.cond & where_bit(b, want), v.deps | 1u << b};
}

/* The subtree of groups j0 .. j0 + 2^level - 1, selected by s2 .. s(level
 * + 1) (s4 in R_H0), into a register from R_TMP up (`free` the first one
 * unused), or NONE.  Each leaf is a move and one vpternlog of (self, s1,
 * s0); a node is one vpternlog, a multiplexer, or nothing where one side
 * is 0 (a condition on its bit, pending).  A multiplexer of two values
 * with pending conditions is one of their registers, the conditions
 * joined into one: sel ? (h & ch) : (l & cl) is (sel ? h : l) & (sel ? ch
 * : cl). */
static tval subtree(emitter *e, const unsigned leaf[8], unsigned j0, unsigned level,
		    unsigned free)
{
	tval none = {NONE, ALWAYS, 0};
	if (level == 0) {
		if (!leaf[j0])
			return none;
		move(e, free, R_SELF);
		tern(e, free, R_S1, R_S0, leaf[j0]);
		return (tval){free, ALWAYS, 0};
	}
	tval lo = subtree(e, leaf, j0, level - 1, free);
	tval hi = subtree(e, leaf, j0 + (1u << (level - 1)), level - 1,
			  lo.reg ? free + 1 : free);
	unsigned b = level - 1;
	if (!lo.reg && !hi.reg)
		return none;
	if (!lo.reg)
		return only_where(e, hi, b, true);
	if (!hi.reg)
		return only_where(e, lo, b, false);
	unsigned cond = (hi.cond & where_bit(b, true)) | (lo.cond & where_bit(b, false));
	unsigned deps = lo.deps | hi.deps | (lo.cond == hi.cond ? 0 : 1u << b);
	if (__builtin_popcount(deps) > 2) {
		lo = (tval){settle(e, lo), ALWAYS, 0};
		hi = (tval){settle(e, hi), ALWAYS, 0};
		cond = ALWAYS, deps = 0;
	}
	tern(e, lo.reg, sel_reg(b), hi.reg, (TB & TC) | (~TB & TA));    /* sel ? hi : lo */
	return (tval){lo.reg, cond, deps};
}

/* The tree of every group.  Where the groups of S >= 16 are all 0 (a
 * rule with no birth above 15 neighbours and no survival above 14), the
 * groups below are kept where neither h0 nor h1 is set, one vpternlog;
 * else s4 = h0 | h1 is made for the top node (vporq), as the kernel did
 * before the call. */
static unsigned top(emitter *e, const unsigned leaf[8], unsigned levels)
{
	if (levels == 3 && !leaf[4] && !leaf[5] && !leaf[6] && !leaf[7]) {
		unsigned r = settle(e, subtree(e, leaf, 0, 2, R_TMP));
		if (r)
			tern(e, r, R_H0, R_H1, TA & ~TB & ~TC);
		return r;
	}
	if (levels == 3)
		evex(e, 1, 0xEB, R_H0, R_H0, R_H1, -1);        /* vporq */
	return settle(e, subtree(e, leaf, 0, levels, R_TMP));
}

/* The code for AVX-512 (vpternlog on zmm16-26). */
static size_t emit_avx512(const unsigned leaf[8], unsigned levels, unsigned vl,
			  unsigned char *buf)
{
	emitter e = {buf, 0, vl == 8 ? 2 : vl == 4 ? 1 : 0};
	landing_pad(buf, &e.n);
	unsigned r = top(&e, leaf, levels);
	if (r)
		move(&e, R_SELF, r);
	else
		evex(&e, 1, 0xEF, R_SELF, R_SELF, R_SELF, -1);    /* vpxorq: 0 */
	buf[e.n++] = 0xC3;                                         /* ret */
	return e.n;
}

/* ---- AVX2: two-input operations on ymm0-15 (VEX) ----
 *
 * No three-input operation here, so each value is built from and, andn,
 * or and xor, and a complement is kept as a flag on the value until an
 * operation absorbs it (De Morgan: ~a & b is one andn, ~a & ~b one or,
 * complemented).  A multiplexer is three operations, or one where a side
 * is a constant or the other's complement. */

/* The AVX2 convention's registers (rulejit.h), and the temporaries the
 * code may write. */
enum { Y_SELF = 8, Y_S0, Y_S1, Y_S2, Y_S3, Y_S4 };
static const int y_temps[RULEJIT_AVX2_TEMPS] = {14, 15, 7, 6, 5, 4};

/* A value: a register read complemented or not, or (reg < 0) the
 * constant 0 or, complemented, all ones. */
typedef struct yval {
	int reg;
	bool inv;
} yval;

static const yval Y_ZERO = {-1, false}, Y_ONES = {-1, true};

typedef struct yemitter {
	unsigned char *at;
	size_t n;
	unsigned l;         /* VEX.L: 1 for 256 bits, 0 for 128 */
	unsigned busy;      /* temporaries in use, a bit each */
	bool short_of;      /* more temporaries were needed than there are */
} yemitter;

enum { Y_AND = 0xDB, Y_ANDN = 0xDF, Y_OR = 0xEB, Y_XOR = 0xEF, Y_ONES_OP = 0x76, Y_MOVE = 0x6F };

/* One VEX instruction (66 0F map, three-byte form): dst = src1 op src2
 * (andn: ~src1 & src2; pcmpeqd of a register with itself: all ones;
 * movdqa: dst = src2, src1 0). */
static void vex(yemitter *e, unsigned op, unsigned dst, unsigned src1, unsigned src2)
{
	unsigned char *b = e->at + e->n;
	b[0] = 0xC4;
	b[1] = (unsigned char)((~dst >> 3 & 1) << 7 | 1u << 6 | (~src2 >> 3 & 1) << 5 | 1u);
	b[2] = (unsigned char)((~src1 & 15) << 3 | e->l << 2 | 1u);
	b[3] = (unsigned char)op;
	b[4] = (unsigned char)(0xC0 | (dst & 7) << 3 | (src2 & 7));
	e->n += 5;
}

static int temp_index(int reg)
{
	for (int i = 0; i < RULEJIT_AVX2_TEMPS; i++)
		if (y_temps[i] == reg)
			return i;
	return -1;
}

static void temp_free(yemitter *e, yval v)
{
	int i = v.reg >= 0 ? temp_index(v.reg) : -1;
	if (i >= 0)
		e->busy &= ~(1u << i);
}

/* The register for the result of an operation on a and b: a's or b's
 * temporary (the other one freed), else a new one. */
static int result_reg(yemitter *e, yval a, yval b)
{
	if (a.reg >= 0 && temp_index(a.reg) >= 0) {
		if (b.reg != a.reg)
			temp_free(e, b);
		return a.reg;
	}
	if (b.reg >= 0 && temp_index(b.reg) >= 0)
		return b.reg;
	for (int i = 0; i < RULEJIT_AVX2_TEMPS; i++)
		if (!(e->busy & 1u << i)) {
			e->busy |= 1u << i;
			return y_temps[i];
		}
	e->short_of = true;
	return y_temps[0];
}

static yval y_not(yval v)
{
	v.inv = !v.inv;
	return v;
}

static bool y_same(yval a, yval b)
{
	return a.reg == b.reg && a.inv == b.inv;
}

static yval y_and(yemitter *e, yval a, yval b)
{
	if (y_same(a, Y_ZERO) || y_same(b, Y_ZERO)) {
		temp_free(e, a);
		temp_free(e, b);
		return Y_ZERO;
	}
	if (y_same(a, Y_ONES))
		return b;
	if (y_same(b, Y_ONES))
		return a;
	int dst = result_reg(e, a, b);
	if (!a.inv && !b.inv)
		vex(e, Y_AND, (unsigned)dst, (unsigned)a.reg, (unsigned)b.reg);
	else if (a.inv && !b.inv)
		vex(e, Y_ANDN, (unsigned)dst, (unsigned)a.reg, (unsigned)b.reg);
	else if (!a.inv && b.inv)
		vex(e, Y_ANDN, (unsigned)dst, (unsigned)b.reg, (unsigned)a.reg);
	else
		vex(e, Y_OR, (unsigned)dst, (unsigned)a.reg, (unsigned)b.reg);
	return (yval){dst, a.inv && b.inv};
}

static yval y_or(yemitter *e, yval a, yval b)
{
	return y_not(y_and(e, y_not(a), y_not(b)));
}

static yval y_xor(yemitter *e, yval a, yval b)
{
	if (a.reg < 0)
		return a.inv ? y_not(b) : b;
	if (b.reg < 0)
		return b.inv ? y_not(a) : a;
	int dst = result_reg(e, a, b);
	vex(e, Y_XOR, (unsigned)dst, (unsigned)a.reg, (unsigned)b.reg);
	return (yval){dst, a.inv != b.inv};
}

/* sel ? hi : lo, sel an input register. */
static yval y_mux(yemitter *e, int sel, yval hi, yval lo)
{
	yval s = {sel, false};
	if (y_same(hi, lo))
		return lo;
	if (hi.reg == lo.reg)                 /* each the other's complement */
		return y_xor(e, lo, s);
	if (y_same(lo, Y_ZERO))
		return y_and(e, s, hi);
	if (y_same(hi, Y_ZERO))
		return y_and(e, y_not(s), lo);
	if (y_same(lo, Y_ONES))
		return y_or(e, y_not(s), hi);
	if (y_same(hi, Y_ONES))
		return y_or(e, s, lo);
	yval h = y_and(e, s, hi);
	yval l = y_and(e, y_not(s), lo);
	return y_or(e, h, l);
}

/* A group's function of (self, s1, s0), truth table t (TA, TB, TC), by
 * multiplexers over s1 and the cell of the four functions of s0. */
static yval y_leaf(yemitter *e, unsigned t)
{
	yval by_cell[2];
	unsigned cells = (t & 15) == t >> 4 ? 1 : 2;    /* 1: the cell does not matter */
	for (unsigned c = 0; c < cells; c++) {
		yval by_s1[2];
		for (unsigned s1 = 0; s1 < 2; s1++) {
			unsigned at0 = t >> (4 * c + 2 * s1) & 1, at1 = t >> (4 * c + 2 * s1 + 1) & 1;
			yval s0 = {Y_S0, false};
			by_s1[s1] = at0 == at1 ? (at0 ? Y_ONES : Y_ZERO) : at1 ? s0 : y_not(s0);
		}
		by_cell[c] = y_mux(e, Y_S1, by_s1[1], by_s1[0]);
	}
	return cells == 1 ? by_cell[0] : y_mux(e, Y_SELF, by_cell[1], by_cell[0]);
}

/* subtree, for AVX2. */
static yval y_subtree(yemitter *e, const unsigned leaf[8], unsigned j0, unsigned level)
{
	if (level == 0)
		return leaf[j0] ? y_leaf(e, leaf[j0]) : Y_ZERO;
	yval lo = y_subtree(e, leaf, j0, level - 1);
	yval hi = y_subtree(e, leaf, j0 + (1u << (level - 1)), level - 1);
	return y_mux(e, (int)(Y_S2 + level - 1), hi, lo);
}

/* The code for AVX2 (ymm8-13 in, ymm8 out, y_temps written); 0 when the
 * rule needs more temporaries than that. */
static size_t emit_avx2(const unsigned leaf[8], unsigned levels, unsigned vl,
			unsigned char *buf)
{
	yemitter e = {buf, 0, vl == 4 ? 1 : 0, 0, false};
	landing_pad(buf, &e.n);
	yval r = y_subtree(&e, leaf, 0, levels);
	if (r.reg < 0) {
		vex(&e, r.inv ? Y_ONES_OP : Y_XOR, Y_SELF, Y_SELF, Y_SELF);
	} else if (r.inv) {
		int ones = result_reg(&e, Y_ZERO, Y_ZERO);
		vex(&e, Y_ONES_OP, (unsigned)ones, (unsigned)ones, (unsigned)ones);
		vex(&e, Y_ANDN, Y_SELF, (unsigned)r.reg, (unsigned)ones);
	} else if (r.reg != Y_SELF) {
		vex(&e, Y_MOVE, Y_SELF, 0, (unsigned)r.reg);
	}
	e.at[e.n++] = 0xC3;                                        /* ret */
	return e.short_of ? 0 : e.n;
}

size_t cpu_rulejit_emit(const cpu_plan *p, rulejit_isa isa, unsigned char *buf)
{
	unsigned leaf[8], max = count_max(p);
	leaf_tables(p, leaf);
	/* only the bits of S that the counts reach select: F's counts stop
	 * below 8 (no s3, s4), C's, E's and H's below 16 (no s4) */
	unsigned levels = max >= 16 ? 3 : max >= 8 ? 2 : max >= 4 ? 1 : 0;
	if (isa == RULEJIT_AVX512)
		return emit_avx512(leaf, levels, p->vl, buf);
	return emit_avx2(leaf, levels, p->vl, buf);
}

#if defined(__x86_64__)
static size_t page_bytes(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page >= RULEJIT_MAX_BYTES ? (size_t)page : 4096;
}

const void *cpu_rulejit_make(const cpu_plan *p, rulejit_isa isa, const char **why)
{
	bool width = isa == RULEJIT_AVX512 ? p->vl == 2 || p->vl == 4 || p->vl == 8
					   : p->vl == 2 || p->vl == 4;
	if (p->rule_kind != CPU_RULE_GROUPS || !width) {
		*why = p->rule_kind == CPU_RULE_B6S567 ? "B6/S567 has a kernel of its own"
						      : "rows of one word have kernels of their own";
		return NULL;
	}
	unsigned char code[RULEJIT_MAX_BYTES];
	size_t bytes = cpu_rulejit_emit(p, isa, code);
	if (!bytes) {
		*why = "the rule needs more registers than the code may write";
		return NULL;
	}
	size_t len = page_bytes();
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		*why = "no memory could be mapped for it";
		return NULL;
	}
	memcpy(mem, code, bytes);
	if (mprotect(mem, len, PROT_READ | PROT_EXEC) != 0) {
		munmap(mem, len);
		*why = "the system refuses executable memory";
		return NULL;
	}
	return mem;
}

void cpu_rulejit_free(const void *code)
{
	if (code)
		munmap((void *)(uintptr_t)code, page_bytes());
}
#else
const void *cpu_rulejit_make(const cpu_plan *p, rulejit_isa isa, const char **why)
{
	(void)p;
	(void)isa;
	*why = "not an x86-64 build";
	return NULL;
}

void cpu_rulejit_free(const void *code)
{
	(void)code;
}
#endif
