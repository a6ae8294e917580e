/* rule_jit.cu - the one-generation kernels again, with the rule as
 * constants (cells.cuh's L3DK_RULE_CONST), compiled to PTX only: the build
 * compiles this file once for each module below (L3DK_JIT_MODULE) and keeps
 * the texts in the program (rule_ptx.c).  step.cu writes a rule's words
 * over the placeholders in one module's text and has the driver compile
 * it for the device in use; knowing the rule, the compiler folds the
 * multiplexer tree that the kernels with the rule as parameters evaluate
 * into the rule's own few operations.
 *
 * Modules (step_kernels.cuh's JIT_WORD and JIT_LANES, step.cu's
 * jit_module): 0-3 the fused kernel, bit 1 for 4 words a lane (else 2),
 * bit 0 for exact rows; 4-7 the F, C, E and H kernel of a thread a word;
 * 8-23 the F, C, E and H kernel of lanes, four each, with bits 1 and 0 as
 * for the fused kernel.  Each holds l3dk_jit_s0 (no counters) and
 * l3dk_jit_s1 (counters). */
#include "step_kernels.cuh"

#ifndef L3DK_JIT_MODULE
#error "L3DK_JIT_MODULE (0..JIT_MODULES - 1) selects the module"
#endif

/* E's kernel of a thread a word (module 6) waits on its loads at 58%
 * occupancy with the 54 registers the compiler picks; held to 51 (5 blocks
 * an SM) it runs 17% faster on an H200.  The same bound made F, C and H
 * slower (kernels/NOTES.md, "The rule compiled in"). */
static_assert(JIT_WORD + RULE_EDGE - 1 == 6, "E's kernel of a thread a word is module 6");
#if L3DK_JIT_MODULE == 6
#define JIT_BOUNDS __launch_bounds__(256, 5)
#else
#define JIT_BOUNDS
#endif

namespace {

template <int M, bool STATS>
__device__ __forceinline__ void jit_body(const StepArgs &a)
{
	constexpr int lanes = M - JIT_LANES;
	if constexpr (M < JIT_WORD)
		fused_body<1, (M & 2) ? 4 : 2, L3DK_RULE_CONST, (M & 1) != 0, STATS>(a);
	else if constexpr (M < JIT_LANES)
		hood_body<M - JIT_WORD + 1, L3DK_RULE_CONST, STATS>(a);
	else
		hood_lanes_body<lanes / 4 + 1, (lanes & 2) ? 4 : 2, L3DK_RULE_CONST,
				(lanes & 1) != 0, STATS>(a);
}

} /* namespace */

extern "C" __global__ void JIT_BOUNDS l3dk_jit_s0(const __grid_constant__ StepArgs a)
{
	jit_body<L3DK_JIT_MODULE, false>(a);
}

extern "C" __global__ void JIT_BOUNDS l3dk_jit_s1(const __grid_constant__ StepArgs a)
{
	jit_body<L3DK_JIT_MODULE, true>(a);
}
