/* rulejit.h - a rule other than B6/S567 compiled to machine code when
 * the engine is made (AVX-512 or AVX2), so the kernels call it instead of
 * picking each group's operation by a switch on every vector
 * (kernel_body.h, rule_of).
 *
 * The code is a handful of logic operations, one function of the cell and
 * the count's bit planes, written into a page of its own that is
 * made executable only after it is written (never writable and
 * executable at once).  It gives what rule_of gives for every count the
 * plan's kernel can make: each group's function of (self, s1, s0) is a
 * leaf, and a multiplexer tree over the bits of j = (s4 s3 s2) that those
 * counts reach picks among them; groups the rule does not use are 0 and
 * cost nothing.  On AVX-512 a leaf and a node are one vpternlog each; a
 * node with one side 0 is a condition on a bit of j, held back and
 * applied with others on up to two bits of j in one vpternlog; s4 comes as two planes h0 and h1 (s4 = h0 | h1, as the sum
 * makes it), so that a rule with no group of S >= 16 keeps the rest where
 * neither is set in one vpternlog, with no OR.  On AVX2 they are built
 * from and, andn, or and xor.
 *
 * Its calling convention is its own (the kernels' inline call, rule_code
 * in kernel_body.h); it touches no memory and needs no stack beyond its
 * return address, and reads only vectors of the plan's width:
 *   AVX-512: the cell in zmm16, s0..s3 in zmm17..20, h0 in zmm21 and h1
 *            in zmm26, the result in zmm16; it writes zmm21..25 and
 *            nothing else.
 *   AVX2:    the cell in ymm8, s0..s4 in ymm9..13, the result in ymm8;
 *            it writes ymm4..7, ymm14 and ymm15 (RULEJIT_AVX2_TEMPS) and
 *            nothing else.
 *
 * Where it cannot be made (not x86-64, a rule that needs more registers
 * than that, or a system that refuses executable memory) the kernels keep
 * rule_of's switch; results are the same. */
#ifndef LIFE3D_ENGINE_CPU_RULEJIT_H
#define LIFE3D_ENGINE_CPU_RULEJIT_H

#include <stddef.h>

#include "kernel.h"

/* The most bytes the code of a rule takes. */
#define RULEJIT_MAX_BYTES 1024
/* Registers the AVX2 code may write. */
#define RULEJIT_AVX2_TEMPS 6

typedef enum rulejit_isa { RULEJIT_AVX512, RULEJIT_AVX2 } rulejit_isa;

/* Write the code of plan p's groups for vectors of p->vl lanes (AVX-512:
 * 2, 4 or 8; AVX2: 2 or 4) into buf (RULEJIT_MAX_BYTES); the bytes
 * written, or 0 when the AVX2 code would need more registers than it may
 * write.  Pure: no memory is made executable. */
size_t cpu_rulejit_emit(const cpu_plan *p, rulejit_isa isa, unsigned char *buf);

/* The code of plan p's groups in executable memory, or NULL (and *why
 * says why) where it cannot be made: the plan is not a rule of groups on
 * vectors of those widths, the code cannot be written, this is not
 * x86-64, or the system refused.  Free it with cpu_rulejit_free. */
const void *cpu_rulejit_make(const cpu_plan *p, rulejit_isa isa, const char **why);
void cpu_rulejit_free(const void *code);

#endif
