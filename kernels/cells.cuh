/* cells.cuh - what every stepping kernel shares (step.cu, tiles.cu): the
 * arguments of a launch, the wait for the grid before, a word of a row with
 * its z-shifted copies, the counts of the smaller neighbourhoods (from
 * base/hood.h's offsets), the rule applied to bit-sliced counts, and the
 * counters' flush.  Device code and host helpers (small_hood, launch_cfg,
 * ceil_div, fill_args), in an anonymous namespace: each kernel file has its
 * own copy. */
#ifndef LIFE3D_CELLS_CUH
#define LIFE3D_CELLS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <utility>

#include "kernels.h"
#include "bitsum.cuh"

namespace {

constexpr unsigned FULL = 0xffffffffu;

struct StepArgs {
	const uint32_t *src;
	uint32_t *dst;
	l3dk_counts *counts;
	uint64_t plane;          /* 32-bit words per x plane */
	uint32_t nx, ny, w32;
	/* The plane copied after plane x_end - 1 is plane 0.  On the torus
	 * x_end = nx: plane x wraps.  In an open box x_end is one past the last
	 * halo plane; the copies after it (past the planes that are stored)
	 * start again from plane 0, which keeps them in memory, and feed only
	 * results that are dropped. */
	int32_t x_end;
	int open;                /* 1: planes -1 and nx are halo planes in memory */
	uint32_t lpr, rpw, rows, out_rows, chunk;
	uint32_t wl, bl;
	uint32_t leaf_b[32], leaf_s[32];
};

__device__ __forceinline__ void wait_for_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	cudaGridDependencySynchronize();
#endif
}

__device__ __forceinline__ void let_next_grid_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/* The rule as constants (L3DK_RULE_CONST, rule_jit.cu): bit s of the two
 * words below is leaf_b[s] and leaf_s[s] of fill_args.  Compiled ahead of
 * time they are placeholders; the host writes the rule's words over them
 * in the PTX text (step.cu's jit_text) before the driver compiles it, which
 * then folds the multiplexer tree into the few operations the rule needs. */
#define L3DK_MARK_B "0x5EB1A7E0"
#define L3DK_MARK_S "0x5EB1A7E1"

__device__ __forceinline__ void const_leaves(uint32_t leaf_b[32], uint32_t leaf_s[32])
{
	uint32_t b, s;
	asm("mov.b32 %0, " L3DK_MARK_B ";" : "=r"(b));
	asm("mov.b32 %0, " L3DK_MARK_S ";" : "=r"(s));
#pragma unroll
	for (int i = 0; i < 32; i++) {
		leaf_b[i] = 0u - (b >> i & 1u);
		leaf_s[i] = 0u - (s >> i & 1u);
	}
}

template <int RULE>
__device__ __forceinline__ uint32_t apply_rule(const StepArgs &a, const uint32_t s[5],
					       uint32_t self)
{
	if (RULE == L3DK_RULE_B6S567)
		return rule_b6s567(s, self);
	if (RULE == L3DK_RULE_LOW)
		return rule_low(s, self, a.leaf_b, a.leaf_s);
	if (RULE == L3DK_RULE_CONST) {
		uint32_t leaf_b[32], leaf_s[32];
		const_leaves(leaf_b, leaf_s);
		return rule_any(s, self, leaf_b, leaf_s);
	}
	return rule_any(s, self, a.leaf_b, a.leaf_s);
}

/* The sum of v over a whole warp, in every lane. */
template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
#pragma unroll
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_xor_sync(FULL, v, d);
	return v;
}

/* A warp's counts (32- or 64-bit) added to the device's counters. */
template <typename T>
__device__ __forceinline__ void flush_counts(l3dk_counts *counts, T pop, T born, T died)
{
	pop = warp_sum(pop);
	born = warp_sum(born);
	died = warp_sum(died);
	if ((threadIdx.x & 31) == 0 && (pop | born | died)) {
		atomicAdd(&counts->population, (unsigned long long)pop);
		atomicAdd(&counts->births, (unsigned long long)born);
		atomicAdd(&counts->deaths, (unsigned long long)died);
	}
}

/* Word w of a row and its two z-shifted copies: dn holds each cell's z - 1
 * neighbour, up its z + 1 neighbour. */
struct ZWord {
	uint32_t c, dn, up;
};

__device__ __forceinline__ ZWord zword(const StepArgs &a, const uint32_t *row, uint32_t w,
				       bool exact)
{
	ZWord r;
	r.c = row[w];
	uint32_t below = row[w == 0 ? a.w32 - 1 : w - 1];
	uint32_t above = row[w + 1 == a.w32 ? 0 : w + 1];
	r.up = __funnelshift_r(r.c, above, 1);
	r.dn = __funnelshift_l(below, r.c, 1);
	if (!exact) {
		if (w == a.wl)
			r.up |= (row[0] & 1u) << a.bl;
		if (w == 0)
			r.dn |= (row[a.wl] >> a.bl) & 1u;
	}
	return r;
}

__device__ __forceinline__ uint32_t pick(const ZWord &r, int dz)
{
	return dz < 0 ? r.dn : dz > 0 ? r.up : r.c;
}

struct Rows3 {
	ZWord r[3];          /* rows y-1, y, y+1 */
};

__device__ __forceinline__ Rows3 load_rows(const StepArgs &a, int64_t x, uint32_t ym,
					   uint32_t y, uint32_t yp, uint32_t w, bool exact)
{
	if (!a.open)
		x = x < 0 ? x + a.nx : x >= (int64_t)a.nx ? x - a.nx : x;
	const uint32_t *plane = a.src + x * (int64_t)a.plane;
	Rows3 t;
	t.r[0] = zword(a, plane + (uint64_t)ym * a.w32, w, exact);
	t.r[1] = zword(a, plane + (uint64_t)y * a.w32, w, exact);
	t.r[2] = zword(a, plane + (uint64_t)yp * a.w32, w, exact);
	return t;
}

/* Neighbour I of a neighbourhood, base/hood.h's offset I: its plane, row
 * and z copy, all known when this compiles. */
template <int HOOD, int I>
__device__ __forceinline__ uint32_t neighbour(const Rows3 (&p)[3])
{
	constexpr int dx = hood_dx(HOOD, I, 0), dy = hood_dx(HOOD, I, 1), dz = hood_dx(HOOD, I, 2);
	return pick(p[dx + 1].r[dy + 1], dz);
}

template <int HOOD, int... I>
__device__ __forceinline__ void hood_count_of(const Rows3 (&p)[3], uint32_t n[5],
					      std::integer_sequence<int, I...>)
{
	uint32_t in[] = {neighbour<HOOD, I>(p)...};
	constexpr unsigned cells = sizeof...(I);
	static_assert(cells == 6 || cells == 8 || cells == 12, "no adder for this many cells");
	if constexpr (cells == 6)
		sum6(in, n);
	else if constexpr (cells == 8)
		sum8(in, n);
	else
		sum12(in, n);
}

/* The count of neighbours of a neighbourhood other than Moore, in its
 * offsets' order, from the rows y-1, y, y+1 of planes x-1, x, x+1. */
template <int HOOD>
__device__ __forceinline__ void hood_count(const Rows3 (&p)[3], uint32_t n[5])
{
	hood_count_of<HOOD>(p, n, std::make_integer_sequence<int, hood_cells(HOOD)>());
}

/* pick(HoodTag<h>()) for a neighbourhood h other than Moore: the kernels'
 * one dispatch on it, over every rule_hood after Moore in turn (an h out of
 * range takes the last), so that a new neighbourhood adds no line here. */
template <int H>
struct HoodTag {
	static constexpr int value = H;
};

template <typename Pick, int H = RULE_MOORE + 1>
inline auto small_hood(int h, Pick pick)
{
	if (H + 1 == RULE_HOODS || h == H)
		return pick(HoodTag<H>());
	if constexpr (H + 1 < RULE_HOODS)
		return small_hood<Pick, H + 1>(h, pick);
}

/* A launch of fn with its arguments, with programmatic stream
 * serialization when pdl (compute capability 9.0 and later). */
inline cudaError_t launch_cfg(const void *fn, void **args, dim3 grid, dim3 block,
			      size_t smem, int pdl, cudaStream_t s)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr[1];
	cfg.gridDim = grid;
	cfg.blockDim = block;
	cfg.dynamicSmemBytes = smem;
	cfg.stream = s;
	if (pdl) {
		attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
		attr[0].val.programmaticStreamSerializationAllowed = 1;
		cfg.attrs = attr;
		cfg.numAttrs = 1;
	}
	return cudaLaunchKernelExC(&cfg, fn, args);
}

/* a / b rounded up, for counts of blocks and tiles (that fit 32 bits). */
inline uint32_t ceil_div(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

inline void fill_args(const l3dk_plan *p, const l3dk_launch *c, StepArgs *a)
{
	a->plane = (uint64_t)p->ny * p->w32;
	a->nx = p->nx;
	a->ny = p->ny;
	a->w32 = p->w32;
	a->lpr = p->lpr;
	a->rpw = p->rpw;
	a->rows = c ? c->rows : 0;
	a->out_rows = c ? c->out_rows : 0;
	a->chunk = c ? c->chunk : 0;
	a->wl = p->wl;
	a->bl = p->bl;
	/* Moore: S counts the cell itself, so a dead cell sees S neighbours,
	 * a live one S - 1.  The other neighbourhoods count neighbours only. */
	int shift = p->hood == RULE_MOORE ? 1 : 0;
	for (int s = 0; s < 32; s++) {
		a->leaf_b[s] = s <= 26 && (p->birth >> s & 1u) ? FULL : 0;
		a->leaf_s[s] = s >= shift && s - shift <= 26 &&
					(p->survive >> (s - shift) & 1u) ? FULL : 0;
	}
}

} /* namespace */

#endif
