/* rulejit.c - see rulejit.h.
 *
 * Why: rule_of picks each group's vpternlog by a switch, a jump a group
 * on every pair of vectors, and the general Moore rules ran at 75-91% of
 * B6/S567 on AVX-512 for it; the same operations with their immediates
 * fixed ran as fast as B6/S567 (kernels/NOTES.md, "The rule compiled in,
 * on the CPU"). */
#include "rulejit.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The calling convention's registers (rulejit.h). */
enum { R_SELF = 16, R_S0, R_S1, R_S2, R_S3, R_S4, R_TMP };

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

/* The subtree of groups j0 .. j0 + 2^level - 1, selected by s2 .. s(level
 * + 1), into a register from R_TMP up (`free` the first one unused), or
 * NONE.  Each node is one vpternlog (a multiplexer, or an AND where one
 * side is 0), each leaf a move and one vpternlog of (self, s1, s0). */
static unsigned subtree(emitter *e, const unsigned leaf[8], unsigned j0, unsigned level,
			unsigned free)
{
	if (level == 0) {
		if (!leaf[j0])
			return NONE;
		move(e, free, R_SELF);
		tern(e, free, R_S1, R_S0, leaf[j0]);
		return free;
	}
	unsigned lo = subtree(e, leaf, j0, level - 1, free);
	unsigned hi = subtree(e, leaf, j0 + (1u << (level - 1)), level - 1, lo ? free + 1 : free);
	unsigned sel = R_S2 + level - 1;
	if (!lo && !hi)
		return NONE;
	if (!hi) {
		tern(e, lo, sel, sel, TA & ~TB);          /* lo where sel is 0 */
		return lo;
	}
	if (!lo) {
		tern(e, hi, sel, sel, TA & TB);           /* hi where sel is 1 */
		return hi;
	}
	tern(e, lo, sel, hi, (TB & TC) | (~TB & TA));     /* sel ? hi : lo */
	return lo;
}

size_t cpu_rulejit_emit(const cpu_plan *p, unsigned char *buf)
{
	emitter e = {buf, 0, p->vl == 8 ? 2 : p->vl == 4 ? 1 : 0};
	static const unsigned char endbr64[] = {0xF3, 0x0F, 0x1E, 0xFA};
	for (size_t i = 0; i < sizeof endbr64; i++)    /* a landing pad where CET asks one */
		buf[e.n++] = endbr64[i];
	unsigned leaf[8], max = count_max(p);
	leaf_tables(p, leaf);
	/* only the bits of S that the counts reach select: F's counts stop
	 * below 8 (no s3, s4), C's, E's and H's below 16 (no s4) */
	unsigned levels = max >= 16 ? 3 : max >= 8 ? 2 : max >= 4 ? 1 : 0;
	unsigned r = subtree(&e, leaf, 0, levels, R_TMP);
	if (r)
		move(&e, R_SELF, r);
	else
		evex(&e, 1, 0xEF, R_SELF, R_SELF, R_SELF, -1);    /* vpxorq: 0 */
	buf[e.n++] = 0xC3;                                         /* ret */
	return e.n;
}

#if defined(__x86_64__)
static size_t page_bytes(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page >= RULEJIT_MAX_BYTES ? (size_t)page : 4096;
}

const void *cpu_rulejit_make(const cpu_plan *p, const char **why)
{
	if (p->rule_kind != CPU_RULE_GROUPS || (p->vl != 2 && p->vl != 4 && p->vl != 8)) {
		*why = "B6/S567 and rows of single words have kernels of their own";
		return NULL;
	}
	size_t len = page_bytes();
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		*why = "no memory could be mapped for it";
		return NULL;
	}
	cpu_rulejit_emit(p, mem);
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
const void *cpu_rulejit_make(const cpu_plan *p, const char **why)
{
	(void)p;
	*why = "not an x86-64 build";
	return NULL;
}

void cpu_rulejit_free(const void *code)
{
	(void)code;
}
#endif
