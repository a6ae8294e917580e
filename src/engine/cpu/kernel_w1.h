/* kernel_w1.h - the kernel on single 64-bit words, as band_w1: the
 * portable path, and the SIMD paths' fallback for rows of a single word
 * that cannot be packed several to a vector.  The includer may define
 * VSTREAM first (a streaming store); without it results are stored
 * plainly. */
typedef uint64_t cpu_word_u __attribute__((aligned(8), may_alias));

#define VL 1
#define V uint64_t
#define VU cpu_word_u
#define VSPLAT(x) ((uint64_t)(x))
#define TL(a, b, c, F) ({ V TA = (a), TB = (b), TC = (c); (V)(F); })
#define VPOPCNT(v) ((V)__builtin_popcountll(v))
#define VSHLD1(a, b) (((a) << 1) | ((b) >> 63))
#define VSHRD1(a, b) (((a) >> 1) | ((b) << 63))
#ifndef VSTREAM
#define VSTREAM(p, v) (*(VU *)(p) = (v))
#endif
#define FN(name) name##_w1
#include "kernel_body.h"
