/* rule_jit.cu - the one-generation kernels again, with the rule as
 * constants (cells.cuh's L3DK_RULE_CONST), compiled to PTX only: the build
 * compiles this file once for each module below (L3DK_JIT_MODULE) and keeps
 * the texts in the program (rule_ptx.c).  step.cu writes a rule's words
 * over the placeholders in one module's text and has the driver compile
 * it for the device in use; knowing the rule, the compiler folds the
 * multiplexer tree that the kernels with the rule as parameters evaluate
 * into the rule's own few operations.
 *
 * Modules (step.cu's jit_module): 0-3 the fused kernel, bit 1 for 4 words
 * a lane (else 2), bit 0 for exact rows; 4-7 the F, C, E and H kernel of a
 * thread a word; 8-23 the F, C, E and H kernel of lanes, four each, with
 * bits 1 and 0 as for the fused kernel.  Each holds l3dk_jit_s0 (no
 * counters) and l3dk_jit_s1 (counters). */
#include "step_kernels.cuh"

#ifndef L3DK_JIT_MODULE
#error "L3DK_JIT_MODULE (0..23) selects the module"
#endif

/* E (module 6) waits on its loads at 58% occupancy with the 54 registers
 * the compiler picks; held to 51 (5 blocks an SM) it runs 17% faster on an
 * H200.  The same bound made F, C and H slower (kernels/NOTES.md, "The
 * rule compiled in"). */
#if L3DK_JIT_MODULE == 6
#define JIT_BOUNDS __launch_bounds__(256, 5)
#else
#define JIT_BOUNDS
#endif

#if L3DK_JIT_MODULE < 4
#define JIT_BODY(stats)                                                              \
	fused_body<1, (L3DK_JIT_MODULE & 2) ? 4 : 2, L3DK_RULE_CONST,                \
		   (L3DK_JIT_MODULE & 1) != 0, stats>(a)
#elif L3DK_JIT_MODULE < 8
#define JIT_BODY(stats) hood_body<L3DK_JIT_MODULE - 3, L3DK_RULE_CONST, stats>(a)
#else
#define JIT_BODY(stats)                                                              \
	hood_lanes_body<(L3DK_JIT_MODULE - 8) / 4 + 1, (L3DK_JIT_MODULE & 2) ? 4 : 2,  \
			L3DK_RULE_CONST, (L3DK_JIT_MODULE & 1) != 0, stats>(a)
#endif

extern "C" __global__ void JIT_BOUNDS l3dk_jit_s0(const __grid_constant__ StepArgs a)
{
	JIT_BODY(false);
}

extern "C" __global__ void JIT_BOUNDS l3dk_jit_s1(const __grid_constant__ StepArgs a)
{
	JIT_BODY(true);
}
