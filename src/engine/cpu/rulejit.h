/* rulejit.h - a rule other than B6/S567 compiled to AVX-512 machine code
 * when the engine is made, so the kernels call it instead of picking each
 * group's operation by a switch on every vector (kernel_body.h, rule_of).
 *
 * The code is a handful of vpternlogq, one function of the cell and the
 * count's five bit planes, written into a page of its own that is made
 * executable only after it is written (never writable and executable at
 * once).  It gives what rule_of gives for every count the plan's kernel
 * can make: each group's function of (self, s1, s0) is one vpternlog,
 * and a multiplexer tree over the bits of j = (s4 s3 s2) that those
 * counts reach (one vpternlog a node) picks among them; groups the rule
 * does not use are 0 and cost nothing.
 *
 * Its calling convention is its own (the kernels' inline call,
 * rule_code in kernel_body.h): inputs in zmm16 (the cell), zmm17..21
 * (s0..s4), the result in zmm16; it writes zmm22..25 and nothing else,
 * touches no memory and needs no stack beyond its return address.  Only
 * vectors of the plan's width (128, 256 or 512 bits) are read.
 *
 * Where it cannot be made (not x86-64, or the system refuses executable
 * memory) the kernels keep rule_of's switch; results are the same. */
#ifndef LIFE3D_ENGINE_CPU_RULEJIT_H
#define LIFE3D_ENGINE_CPU_RULEJIT_H

#include <stddef.h>

#include "kernel.h"

/* The most bytes the code of a rule takes (CPU_GROUPS groups). */
#define RULEJIT_MAX_BYTES 512

/* Write the code of plan p's groups for vectors of p->vl lanes (2, 4 or 8)
 * into buf (RULEJIT_MAX_BYTES); the bytes written.  Pure: no memory is
 * made executable (the tests read the bytes). */
size_t cpu_rulejit_emit(const cpu_plan *p, unsigned char *buf);

/* The code of plan p's groups in executable memory, or NULL (and *why
 * says why) where it cannot be made: the plan is not a rule of groups on
 * vectors of 2, 4 or 8 lanes, this is not x86-64, or the system refused.
 * Free it with cpu_rulejit_free. */
const void *cpu_rulejit_make(const cpu_plan *p, const char **why);
void cpu_rulejit_free(const void *code);

#endif
