/* kernel.h - the bit-sliced stepping kernels behind the CPU engine.
 *
 * One kernel source (kernel_body.h) is compiled once per instruction
 * set: AVX-512, AVX2 and plain 64-bit words.  Each cell is one bit, z is
 * packed into words, and a vector holds `vl` consecutive words of one row
 * (the row's last vector may overlap the one before it).
 * The 27-cell box sum is built from shared partial sums:
 *
 *   Z(x,y)  = the three cells along z of one row        (0..3, 2 bit planes)
 *   Y(x,y)  = Z(x,y-1) + Z(x,y) + Z(x,y+1)              (0..9, 4 bit planes)
 *   S(x,y)  = Y(x-1,y) + Y(x,y) + Y(x+1,y)              (0..27, 5 bit planes)
 *
 * Z slides along y in registers; Y is kept for two consecutive x planes
 * in a per-thread ring (the only scratch), so every partial sum is
 * computed once.  A pass reads two new planes and makes the next
 * generation of two, sharing Y(x) + Y(x+1) between them.  The rule is
 * then bit logic on S and the cell itself.  The smaller neighbourhoods
 * (F, C, E, H) have kernels of their own (kernel_hood.h). */
#ifndef LIFE3D_ENGINE_CPU_KERNEL_H
#define LIFE3D_ENGINE_CPU_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "slab.h"

typedef enum cpu_simd {
	CPU_SIMD_PORTABLE,
	CPU_SIMD_AVX2,
	CPU_SIMD_AVX512,
	CPU_SIMD_COUNT
} cpu_simd;

enum cpu_rule_kind {
	CPU_RULE_B6S567,   /* next = [S==6] | (self & [S in {7,8}]) */
	CPU_RULE_GROUPS,   /* any rule: its groups of four S (kernel_body.h) */
	CPU_RULE_CODE      /* CPU_RULE_GROUPS by rule_code, where it was made */
};

/* Groups of four counts, S = 4j .. 4j + 3 (j = 0..6). */
#define CPU_GROUPS 7

/* Everything a kernel needs that does not change from step to step. */
typedef struct cpu_plan {
	uint64_t ny, nz, words;
	uint64_t vwords;          /* words a row takes as vectors: words rounded
				     up to whole vectors (the last overlapping
				     the one before), or words when packed */
	unsigned vl;              /* 64-bit lanes per vector: 8, 4, 2 or 1 */
	unsigned group;           /* rows per vector: 1, or vl / words when
				     short rows are packed (ny % group == 0) */
	unsigned last_bit;        /* (nz - 1) % 64: top valid bit of a row's last word */
	uint64_t tail;            /* mask of the valid bits of a row's last word */
	uint64_t tile_rows;       /* rows of y per ring tile (cache blocking) */
	int64_t prefetch;         /* words ahead to prefetch input rows, 0 = none */
	bool stream;              /* store the result around the caches (set
				     per step: dst must be vector-aligned) */
	int rule_kind;
	int hood;                 /* a rule_hood (base/hood.h): RULE_MOORE, or
				     kernel_hood.h's */
	/* CPU_RULE_GROUPS: the groups of four counts (4j .. 4j + 3) in which
	 * the rule gives a live cell, in order, for k < groups: j's bits
	 * (those of s4, s3, s2) in group_jbits[k], each a word of all ones
	 * or none, and its code group_code[k] = 64 a + 16 b + 4 c + d, the
	 * outcome pairs (2 f(n) + f(n + 1) for n = 4j and 4j + 2) of a dead
	 * cell (a, b) and a live one (c, d).  The count is Moore's S, which
	 * counts the cell itself (a live cell survives on S - 1), or the
	 * other neighbourhoods' number of neighbours. */
	uint64_t group_jbits[CPU_GROUPS][3];
	uint8_t group_code[CPU_GROUPS];
	int groups;
	/* F, C, E and H: all ones when the kernel counts one more than the
	 * neighbours (a carry into the count's adders; the groups above are
	 * then those of count + 1), else 0.  Set only where it saves a group
	 * and the kernel's ternary operations make the carry free
	 * (cpu_carry_free); other kernels never add it. */
	uint64_t count_carry;
	/* CPU_RULE_GROUPS on AVX-512's and AVX2's vectors: the groups
	 * compiled to machine code (rulejit.h), which the kernels call instead
	 * of rule_of's switch; NULL where it was not made.  The stepper that
	 * makes it sets rule_kind to CPU_RULE_CODE, so that the kernels have
	 * an instance of their own for it: one that also has rule_of's groups
	 * to hand keeps more values on the stack (src/engine/cpu/NOTES.md,
	 * "The compiled rule's own instances; the rows before carried"). */
	const void *rule_code;
} cpu_plan;

/* The rule's part of the plan: rule_kind, hood, the groups and
 * count_carry (taken only where carry_free, cpu_carry_free).  The
 * stepper's, and the tests' way to the groups of any rule. */
void cpu_plan_rule(cpu_plan *p, const rule *r, bool carry_free);

/* Words of ring scratch one thread needs (two planes of Y for a tile). */
uint64_t cpu_ring_words(const cpu_plan *p);

/* Advance output planes [xa, xb) and rows [ya, yb) of a slab one
 * generation; yb - ya <= tile_rows.  `ring` is the calling thread's
 * scratch, 64-byte aligned.
 * When counts is non-NULL, add population, births and deaths to it. */
typedef void (*cpu_band_fn)(const cpu_plan *p, const cpu_slab *s,
			    uint64_t xa, uint64_t xb, uint64_t ya, uint64_t yb,
			    uint64_t *ring, engine_stats *counts);

/* The kernel of a SIMD path for vectors of `vl` lanes (cpu_plan.vl), or
 * NULL when this build lacks the path.  The caller checks that the CPU
 * supports it. */
cpu_band_fn cpu_band_avx512(unsigned vl);
cpu_band_fn cpu_band_avx2(unsigned vl);
cpu_band_fn cpu_band_portable(unsigned vl);

/* Whether the kernel of path s for vectors of vl lanes adds
 * cpu_plan.count_carry (AVX-512's vectors, where it costs nothing). */
bool cpu_carry_free(cpu_simd s, unsigned vl);

/* Widest vector (in 64-bit lanes) each path uses. */
unsigned cpu_simd_max_lanes(cpu_simd s);

#endif
