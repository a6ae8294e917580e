/* simd_avx512.c - the kernel compiled for AVX-512 (F, VL, VPOPCNTDQ,
 * VBMI2).
 *
 * vpternlogq computes any three-input logic function in one instruction,
 * so each full adder of the bit-sliced count is two instructions;
 * vpshldq/vpshrdq shift a word while pulling in its neighbour's edge bit.
 * Rows of 8 or more words use 512-bit or 256-bit vectors (the last
 * overlapping the one before when the row is not a whole number of them:
 * plan_width in stepper.c weighs the two), shorter rows 256- or 128-bit
 * ones (still with vpternlogq) or several rows packed into one vector;
 * only rows of one word that cannot be packed go word by word.
 * Only called after the CPU was found to support these extensions. */
#include "kernel.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("avx512f,avx512vl,avx512vpopcntdq,avx512vbmi2,popcnt,bmi,bmi2")
#include <immintrin.h>

/* The truth tables of vpternlog's three inputs. */
enum { TA = 0xF0, TB = 0xCC, TC = 0xAA };

typedef uint64_t v8 __attribute__((vector_size(64)));
typedef uint64_t v8u __attribute__((vector_size(64), aligned(8), may_alias));
typedef uint64_t v4 __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef uint64_t v2 __attribute__((vector_size(16)));
typedef uint64_t v2u __attribute__((vector_size(16), aligned(8), may_alias));

/* A carry into F's, C's, E's and H's counts is one more input of a
 * ternary operation already made: these kernels add it (cpu_carry_free). */
#define KERNEL_CARRY 1
/* A rule of groups may be compiled for these vectors (rulejit.h,
 * AVX-512's convention). */
#define KERNEL_RULE_CODE 1

#define VL 8
#define V v8
#define VU v8u
#define VSPLAT(x) ((V){0} + (uint64_t)(x))
#define TL(a, b, c, F) ((V)_mm512_ternarylogic_epi64((__m512i)(a), \
	(__m512i)(b), (__m512i)(c), (F) & 0xFF))
#define VPOPCNT(v) ((V)_mm512_popcnt_epi64((__m512i)(v)))
#define VSHLD1(a, b) ((V)_mm512_shldi_epi64((__m512i)(a), (__m512i)(b), 1))
#define VSHRD1(a, b) ((V)_mm512_shrdi_epi64((__m512i)(a), (__m512i)(b), 1))
#define VSTREAM(p, v) _mm512_stream_si512((void *)(p), (__m512i)(v))
#define FN(name) name##_w8
#include "kernel_body.h"

#define VL 4
#define V v4
#define VU v4u
#define VSPLAT(x) ((V){0} + (uint64_t)(x))
#define TL(a, b, c, F) ((V)_mm256_ternarylogic_epi64((__m256i)(a), \
	(__m256i)(b), (__m256i)(c), (F) & 0xFF))
#define VPOPCNT(v) ((V)_mm256_popcnt_epi64((__m256i)(v)))
#define VSHLD1(a, b) ((V)_mm256_shldi_epi64((__m256i)(a), (__m256i)(b), 1))
#define VSHRD1(a, b) ((V)_mm256_shrdi_epi64((__m256i)(a), (__m256i)(b), 1))
#define VSTREAM(p, v) _mm256_stream_si256((void *)(p), (__m256i)(v))
#define FN(name) name##_w4
#include "kernel_body.h"

#define VL 2
#define V v2
#define VU v2u
#define VSPLAT(x) ((V){0} + (uint64_t)(x))
#define TL(a, b, c, F) ((V)_mm_ternarylogic_epi64((__m128i)(a), \
	(__m128i)(b), (__m128i)(c), (F) & 0xFF))
#define VPOPCNT(v) ((V)_mm_popcnt_epi64((__m128i)(v)))
#define VSHLD1(a, b) ((V)_mm_shldi_epi64((__m128i)(a), (__m128i)(b), 1))
#define VSHRD1(a, b) ((V)_mm_shrdi_epi64((__m128i)(a), (__m128i)(b), 1))
#define VSTREAM(p, v) _mm_stream_si128((void *)(p), (__m128i)(v))
#define FN(name) name##_w2
#include "kernel_body.h"

#undef KERNEL_CARRY
#undef KERNEL_RULE_CODE
#define VSTREAM(p, v) _mm_stream_si64((long long *)(p), (long long)(v))
#include "kernel_w1.h"

cpu_band_fn cpu_band_avx512(unsigned vl)
{
	switch (vl) {
	case 8: return band_w8;
	case 4: return band_w4;
	case 2: return band_w2;
	default: return band_w1;
	}
}

#else

cpu_band_fn cpu_band_avx512(unsigned vl)
{
	return 0;
}

#endif
