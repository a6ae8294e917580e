/* simd_avx2.c - the kernel compiled for AVX2.
 *
 * Without a three-input logic instruction the compiler builds each
 * function from two-input ones; without a vector population count,
 * counting (only on logged steps) looks nibbles up in a table.  Only
 * called after the CPU was found to support AVX2, POPCNT and BMI2. */
#include "kernel.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("avx2,popcnt,bmi,bmi2")
#include <immintrin.h>

typedef uint64_t v4 __attribute__((vector_size(32)));
typedef uint64_t v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef uint64_t v2 __attribute__((vector_size(16)));
typedef uint64_t v2u __attribute__((vector_size(16), aligned(8), may_alias));

/* Population count of each 64-bit lane without a vector popcount
 * instruction: look up each nibble's count in a 16-entry table (vpshufb),
 * then add a lane's bytes (vpsadbw). */
static inline v4 popcount4(v4 v)
{
	const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
					       0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	const __m256i nibble = _mm256_set1_epi8(0x0f);
	__m256i x = (__m256i)v;
	__m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble));
	__m256i hi = _mm256_shuffle_epi8(table,
					 _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble));
	return (v4)_mm256_sad_epu8(_mm256_add_epi8(lo, hi), _mm256_setzero_si256());
}

static inline v2 popcount2(v2 v)
{
	const __m128i table = _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	const __m128i nibble = _mm_set1_epi8(0x0f);
	__m128i x = (__m128i)v;
	__m128i lo = _mm_shuffle_epi8(table, _mm_and_si128(x, nibble));
	__m128i hi = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(x, 4), nibble));
	return (v2)_mm_sad_epu8(_mm_add_epi8(lo, hi), _mm_setzero_si128());
}

/* A rule of groups may be compiled for these vectors (rulejit.h, AVX2's
 * convention). */
#define KERNEL_RULE_CODE 2

#define VL 4
#define V v4
#define VU v4u
#define VSPLAT(x) ((V){0} + (uint64_t)(x))
#define TL(a, b, c, F) ({ V TA = (a), TB = (b), TC = (c); (V)(F); })
#define VPOPCNT(v) popcount4(v)
#define VSHLD1(a, b) (((a) << 1) | ((b) >> 63))
#define VSHRD1(a, b) (((a) >> 1) | ((b) << 63))
#define VSTREAM(p, v) _mm256_stream_si256((void *)(p), (__m256i)(v))
#define FN(name) name##_w4
#include "kernel_body.h"

#define VL 2
#define V v2
#define VU v2u
#define VSPLAT(x) ((V){0} + (uint64_t)(x))
#define TL(a, b, c, F) ({ V TA = (a), TB = (b), TC = (c); (V)(F); })
#define VPOPCNT(v) popcount2(v)
#define VSHLD1(a, b) (((a) << 1) | ((b) >> 63))
#define VSHRD1(a, b) (((a) >> 1) | ((b) << 63))
#define VSTREAM(p, v) _mm_stream_si128((void *)(p), (__m128i)(v))
#define FN(name) name##_w2
#include "kernel_body.h"

#undef KERNEL_RULE_CODE
#define VSTREAM(p, v) _mm_stream_si64((long long *)(p), (long long)(v))
#include "kernel_w1.h"

cpu_band_fn cpu_band_avx2(unsigned vl)
{
	switch (vl) {
	case 4: return band_w4;
	case 2: return band_w2;
	default: return band_w1;
	}
}

#else

cpu_band_fn cpu_band_avx2(unsigned vl)
{
	return 0;
}

#endif
