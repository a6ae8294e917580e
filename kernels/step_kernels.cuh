/* step_kernels.cuh - the stepping kernels' device code: step.cu launches
 * them with the rule as kernel parameters, rule_jit.cu compiles them again
 * with the rule as constants.
 *
 * Contract: fused_body, generic_body, hood_body and hood_lanes_body are one
 * thread's work in the fused, generic and neighbourhood kernels (the last
 * for rows that fit a warp); step_fused, step_generic, step_hood and
 * step_hood_lanes are those kernels (templates over generations, words a
 * lane, the rule kind of cells.cuh's apply_rule, exact rows and counters).  Each
 * kernel file that includes this has its own copy, in an anonymous
 * namespace, and compiles only the kernels it names.
 *
 * Fused kernel.  A block owns `out_rows` consecutive y rows of a chunk of x
 * planes and marches along x, one plane an iteration.  Its threads cover
 * whole z rows (a row is lpr lanes of one warp, each lane G consecutive
 * 32-bit words), so z neighbours across words come from warp shuffles and
 * the z wrap of the torus is a shuffle inside the row.  Per plane:
 *   cp.async brings the plane RING-1 ahead into a shared-memory ring;
 *   z-sum of my words -> shared memory -> mbarrier with the two
 *   neighbouring warps -> add the z-sums of the rows above and below
 *   (y-sum) -> add the y-sums of planes x-1, x, x+1, kept in registers as
 *   the march slides along x -> new cells -> 16-byte store.
 * With K > 1 (temporal blocking) stage j takes stage j-1's cells of the
 * previous plane, so one pass advances K generations while reading and
 * writing memory once.  Stage j (from 0) is exact on rows at least K-1-j
 * rows inside the block: the block has threads for out_rows + 2(K-1) rows
 * and writes out_rows; the edge threads also load the rows just outside,
 * whose z-sums stage 0 needs.  A block starts K planes before its chunk
 * and reads 2K-1 planes past it.
 *
 * Generic kernel: one thread per 32-bit word, every neighbour word loaded
 * from memory; for rows too long for a warp (nz > 4096), one step a launch.
 *
 * Rows whose length is not a multiple of 64 carry padding bits; the z wrap
 * then joins bit nz-1 to bit 0 explicitly and every result is masked so the
 * padding stays zero (grid.h's invariant). */
#ifndef LIFE3D_STEP_KERNELS_CUH
#define LIFE3D_STEP_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"
#include "bitsum.cuh"
#include "cells.cuh"

namespace {

template <int G>
__device__ __forceinline__ void store_words(uint32_t *p, const uint32_t (&w)[G])
{
	if constexpr (G == 4)
		*reinterpret_cast<uint4 *>(p) = make_uint4(w[0], w[1], w[2], w[3]);
	else
		*reinterpret_cast<uint2 *>(p) = make_uint2(w[0], w[1]);
}

template <int G>
__device__ __forceinline__ void store_shared(uint32_t addr, const uint32_t (&w)[G])
{
	if constexpr (G == 4)
		asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(w[0]),
			     "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
	else
		asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(addr), "r"(w[0]), "r"(w[1])
			     : "memory");
}

template <int G>
__device__ __forceinline__ void load_shared(uint32_t (&w)[G], uint32_t addr)
{
	if constexpr (G == 4)
		asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "r"(addr) : "memory");
	else
		asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
			     : "=r"(w[0]), "=r"(w[1]) : "r"(addr) : "memory");
}

/* Where a lane sits in its row and whom it shuffles with. */
template <int G>
struct Lane {
	uint32_t src_below, src_above;   /* lanes holding my neighbour words */
	uint32_t src_first, src_last;    /* lanes holding words 0 and wl */
	uint32_t last_index;             /* wl % G */
	uint32_t lr, rw;                 /* lane within the row, row within the warp */
	bool slot;                       /* false: spare lane past the last row */
	uint32_t wrapfix[G];             /* bit of word wl that wraps to word 0 */
	uint32_t valid[G];               /* valid bits of my words */

	__device__ Lane(const StepArgs &a, uint32_t lane)
	{
		rw = lane / a.lpr;
		lr = lane - rw * a.lpr;
		slot = rw < a.rpw;
		uint32_t base = rw * a.lpr;
		src_below = slot ? base + (lr == 0 ? a.lpr - 1 : lr - 1) : lane;
		src_above = slot ? base + (lr + 1 == a.lpr ? 0 : lr + 1) : lane;
		src_first = slot ? base : lane;
		src_last = slot ? base + a.wl / G : lane;
		last_index = a.wl % G;
#pragma unroll
		for (int i = 0; i < G; i++) {
			uint32_t gw = lr * G + i;
			uint32_t top = a.bl == 31 ? FULL : (2u << a.bl) - 1;
			wrapfix[i] = gw == a.wl ? 1u << a.bl : 0;
			valid[i] = gw < a.wl ? FULL : gw == a.wl ? top : 0;
		}
	}
};

/* My G words shifted along z: up[i] holds each cell's z+1 neighbour, dn[i]
 * its z-1 neighbour.  below/above: the words just before and after mine in
 * the row (wrapping); first/last: words 0 and wl of the row, used only when
 * rows have padding: the bits that should cross the wrap then come from
 * zero padding, so word 0's bit 0 is put above cell nz-1, and cell nz-1
 * below cell 0. */
template <int G, bool EXACT>
__device__ __forceinline__ void zshift_core(const uint32_t (&c)[G], uint32_t below,
					    uint32_t above, uint32_t first, uint32_t last,
					    uint32_t (&up)[G], uint32_t (&dn)[G],
					    const Lane<G> &L, uint32_t bl)
{
#pragma unroll
	for (int i = 0; i < G; i++) {
		up[i] = __funnelshift_r(c[i], i + 1 < G ? c[i + 1] : above, 1);
		dn[i] = __funnelshift_l(i > 0 ? c[i - 1] : below, c[i], 1);
	}
	if (!EXACT) {
		uint32_t first_bit = 0u - (first & 1u);
#pragma unroll
		for (int i = 0; i < G; i++)
			up[i] |= L.wrapfix[i] & first_bit;
		dn[0] |= L.lr == 0 ? (last >> bl) & 1u : 0u;
	}
}

/* Each cell plus its z-1 and z+1 neighbours (0..3), as two bit planes. */
template <int G>
__device__ __forceinline__ void add_zwords(const uint32_t (&c)[G], const uint32_t (&up)[G],
					   const uint32_t (&dn)[G], uint32_t (&s0)[G],
					   uint32_t (&s1)[G])
{
#pragma unroll
	for (int i = 0; i < G; i++) {
		s0[i] = xor3(up[i], c[i], dn[i]);
		s1[i] = maj3(up[i], c[i], dn[i]);
	}
}

/* z-sum of G words: each cell plus its z-1 and z+1 neighbours (0..3). */
template <int G, bool EXACT>
__device__ __forceinline__ void zsum_core(const uint32_t (&c)[G], uint32_t below,
					  uint32_t above, uint32_t first, uint32_t last,
					  uint32_t (&s0)[G], uint32_t (&s1)[G],
					  const Lane<G> &L, uint32_t bl)
{
	uint32_t up[G], dn[G];
	zshift_core<G, EXACT>(c, below, above, first, last, up, dn, L, bl);
	add_zwords<G>(c, up, dn, s0, s1);
}

/* zshift_core with the neighbour words taken from the other lanes of the
 * row (every lane of the warp must call it). */
template <int G, bool EXACT>
__device__ __forceinline__ void zshift(const uint32_t (&c)[G], uint32_t (&up)[G],
				       uint32_t (&dn)[G], const Lane<G> &L, uint32_t bl)
{
	uint32_t below = __shfl_sync(FULL, c[G - 1], L.src_below);
	uint32_t above = __shfl_sync(FULL, c[0], L.src_above);
	uint32_t first = 0, last = 0;
	if (!EXACT) {
		uint32_t mine = 0;
#pragma unroll
		for (int i = 0; i < G; i++)
			mine = i == (int)L.last_index ? c[i] : mine;
		first = __shfl_sync(FULL, c[0], L.src_first);
		last = __shfl_sync(FULL, mine, L.src_last);
	}
	zshift_core<G, EXACT>(c, below, above, first, last, up, dn, L, bl);
}

/* zsum_core, the neighbour words from the other lanes of the row. */
template <int G, bool EXACT>
__device__ __forceinline__ void zsum(const uint32_t (&c)[G], uint32_t (&s0)[G],
				     uint32_t (&s1)[G], const Lane<G> &L, uint32_t bl)
{
	uint32_t up[G], dn[G];
	zshift<G, EXACT>(c, up, dn, L, bl);
	add_zwords<G>(c, up, dn, s0, s1);
}

/* Copies from global to shared memory that complete in the background
 * (cp.async), so prefetching a plane holds no registers.  Before sm_80
 * they are plain loads and stores. */
template <int BYTES>
__device__ __forceinline__ void copy_async(uint32_t dst, const uint32_t *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	if constexpr (BYTES == 16)
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src)
			     : "memory");
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst), "l"(src),
			     "n"(BYTES) : "memory");
#else
	for (int i = 0; i < BYTES / 4; i++)
		asm volatile("st.shared.u32 [%0], %1;" ::"r"(dst + 4 * i), "r"(__ldg(src + i))
			     : "memory");
#endif
}

__device__ __forceinline__ void copy_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* Wait until at most N groups of copies (the newest) are in flight. */
template <int N>
__device__ __forceinline__ void copy_wait_all_but()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

/* Planes in the input ring: the one being read and RING-1 in flight. */
constexpr int RING = 4;

__device__ __forceinline__ uint32_t load_shared_word(uint32_t addr)
{
	uint32_t w;
	asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(addr) : "memory");
	return w;
}

/* Per-warp barriers in shared memory: a warp announces that its z-sums of
 * a plane are written, and waits only for the two warps whose rows border
 * its own, so the warps of a block drift apart instead of all stalling at
 * once.  A barrier serves every other plane (parity), so the phase to wait
 * for flips every two planes.  Before sm_80 (no mbarrier) the whole block
 * waits instead. */
/* The wait: try_wait (which may suspend the thread a while) from sm_90,
 * the polling test_wait on sm_80 to sm_89. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define BAR_WAIT "try_wait"
#else
#define BAR_WAIT "test_wait"
#endif

__device__ __forceinline__ void bar_init(uint32_t addr, uint32_t count)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(addr), "r"(count) : "memory");
#endif
}

__device__ __forceinline__ void exchange_with_neighbours(uint32_t mine, uint32_t lo,
							 uint32_t hi, uint32_t phase)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	__syncwarp();
	asm volatile("{\n\t.reg .b64 state;\n\t"
		     "mbarrier.arrive.shared.b64 state, [%0];\n\t}" ::"r"(mine)
		     : "memory");
	asm volatile("{\n\t.reg .pred done;\n"
		     "WAIT_LO:\n\t"
		     "mbarrier." BAR_WAIT ".parity.shared.b64 done, [%0], %2;\n\t"
		     "@!done bra WAIT_LO;\n"
		     "WAIT_HI:\n\t"
		     "mbarrier." BAR_WAIT ".parity.shared.b64 done, [%1], %2;\n\t"
		     "@!done bra WAIT_HI;\n\t}" ::"r"(lo), "r"(hi), "r"(phase)
		     : "memory");
#else
	__syncthreads();
#endif
}

/* Everything one thread of the fused kernel keeps while it marches.
 *
 * Block rows run from -(K-1) to rows-K.  The rows just outside, -K and
 * rows-K+1, are needed only as z-sums of the first stage, so the threads of
 * the edge rows compute those too instead of a row of threads idling
 * through every stage.
 *
 * Shared memory: an input ring of RING slots (plane p being read, the next
 * RING-1 in flight; p+RING is copied into p's slot once p is read), each
 * rows + 2 rows of w32 words; then, per stage and parity, a buffer of
 * rows + 2 rows of z-sums, a row being the bit-0 words of all its lanes,
 * then the bit-1 words; then a barrier per warp and parity. */
template <int K, int G>
struct March {
	uint32_t me, below, above, extra;   /* z-sum slots (bit 0, buffer 0) */
	uint32_t bit1, buffer;              /* byte offsets: bit 1, next buffer */
	uint32_t in_me, in_extra;           /* input slot 0: my words, my extra row */
	uint32_t in_slot;                   /* bytes per input slot */
	uint32_t x_below, x_above, x_last;  /* extra row: byte offsets of words */
	uint32_t row_mask;                  /* lanes of my row */
	uint32_t bar_mine, bar_lo, bar_hi;  /* barriers: mine, the warps around */
	const uint32_t *row, *extra_row;    /* my words in plane 0, my extra row */
	uint64_t out;                       /* my words' offset in a plane */
	int32_t pin;                        /* plane of the last copy issued */
	uint32_t x0, iters;                 /* iters: planes marched, even */
	uint32_t live_until;                /* planes that produce output + 3K-1 */
	bool out_row, edge;                 /* edge: my row is the first or last */
	uint32_t self[K][G];                /* each stage's input one plane back */
	uint32_t carry[K][G];               /* stage j's output, stage j+1's next input */
	uint32_t pop, born, died;
};

/* Start copying the next plane into input slot `slot`. */
template <int K, int G>
__device__ __forceinline__ void copy_next_plane(const StepArgs &a, const Lane<G> &L,
						March<K, G> &m, uint32_t slot)
{
	m.pin = m.pin + 1 == a.x_end ? 0 : m.pin + 1;
	int64_t plane = (int64_t)m.pin * (int64_t)a.plane;
	if (L.slot)
		copy_async<4 * G>(m.in_me + slot, m.row + plane);
	if (m.edge)
		copy_async<4 * G>(m.in_extra + slot + L.lr * G * 4, m.extra_row + plane + L.lr * G);
	copy_commit();
}

/* z-sums of my extra row, whose words the lanes of my row copied. */
template <int K, int G, bool EXACT>
__device__ __forceinline__ void zsum_extra(const StepArgs &a, const Lane<G> &L,
					   const March<K, G> &m, uint32_t slot,
					   uint32_t (&e0)[G], uint32_t (&e1)[G])
{
	uint32_t row = m.in_extra + slot, w[G];
	__syncwarp(m.row_mask);
	load_shared<G>(w, row + L.lr * G * 4);
	uint32_t below = load_shared_word(row + m.x_below);
	uint32_t above = load_shared_word(row + m.x_above);
	uint32_t first = EXACT ? 0 : load_shared_word(row);
	uint32_t last = EXACT ? 0 : load_shared_word(row + m.x_last);
	__syncwarp(m.row_mask);
	zsum_core<G, EXACT>(w, below, above, first, last, e0, e1, L, a.bl);
}

/* One plane of the march.  Stage j takes the plane stage j-1 produced one
 * plane earlier (stage 0: the plane just copied in), so within a plane the
 * stages are independent: all z-sums, one exchange with the neighbouring
 * warps, then all the adding, with K times the independent work between
 * two waits.  Stage j lags 2j planes behind stage 0 and emits plane
 * p-2j-1 of generation g+j+1; the march emits plane p-2K+1 once 3K-1
 * planes have filled the pipeline.  ya holds each stage's y-sums two
 * planes back and is overwritten with the new ones; yb holds one plane
 * back.  The caller swaps ya and yb between planes. */
template <int K, int G, int RULE, bool EXACT, bool STATS, int PAR>
__device__ __forceinline__ void march_plane(const StepArgs &a, const Lane<G> &L,
					    March<K, G> &m, uint32_t t,
					    uint32_t (&ya)[K][4][G], uint32_t (&yb)[K][4][G])
{
	const uint32_t slot = (t % RING) * m.in_slot;
	const bool live = t >= 3 * K - 1 && t < m.live_until && m.out_row;
	copy_wait_all_but<RING - 1>();
	uint32_t in[K][G], s0[K][G], s1[K][G];
#pragma unroll
	for (int i = 0; i < G; i++)
		in[0][i] = 0;
	if (L.slot)
		load_shared<G>(in[0], m.in_me + slot);
#pragma unroll
	for (int j = 0; j < K; j++) {
		const uint32_t buf = (uint32_t)(j * 2 + PAR) * m.buffer;
		if (j > 0) {
#pragma unroll
			for (int i = 0; i < G; i++)
				in[j][i] = m.carry[j - 1][i];
		}
		zsum<G, EXACT>(in[j], s0[j], s1[j], L, a.bl);
		if (L.slot) {
			store_shared<G>(m.me + buf, s0[j]);
			store_shared<G>(m.me + buf + m.bit1, s1[j]);
		}
		if (j == 0) {
			if (m.edge) {
				uint32_t e0[G], e1[G];
				zsum_extra<K, G, EXACT>(a, L, m, slot, e0, e1);
				store_shared<G>(m.extra + buf, e0);
				store_shared<G>(m.extra + buf + m.bit1, e1);
			}
			/* This slot is read: refill it RING planes ahead. */
			copy_next_plane<K, G>(a, L, m, slot);
		}
	}
	exchange_with_neighbours(m.bar_mine + PAR * 8, m.bar_lo + PAR * 8, m.bar_hi + PAR * 8,
				 (t >> 1) & 1);
#pragma unroll
	for (int j = 0; j < K; j++) {
		const uint32_t buf = (uint32_t)(j * 2 + PAR) * m.buffer;
		uint32_t lo0[G], lo1[G], hi0[G], hi1[G];
		load_shared<G>(lo0, m.below + buf);
		load_shared<G>(lo1, m.below + buf + m.bit1);
		load_shared<G>(hi0, m.above + buf);
		load_shared<G>(hi1, m.above + buf + m.bit1);
#pragma unroll
		for (int i = 0; i < G; i++) {
			uint32_t y[4], A[4], B[4], s[5];
			add3_2bit(lo0[i], lo1[i], s0[j][i], s1[j][i], hi0[i], hi1[i], y);
#pragma unroll
			for (int b = 0; b < 4; b++) {
				A[b] = ya[j][b][i];
				B[b] = yb[j][b][i];
			}
			add3_4bit(A, B, y, s);
#pragma unroll
			for (int b = 0; b < 4; b++)
				ya[j][b][i] = y[b];
			uint32_t out = apply_rule<RULE>(a, s, m.self[j][i]);
			if (!EXACT)
				out &= L.valid[i];
			if (STATS && j == K - 1 && live) {
				m.pop += __popc(out);
				m.born += __popc(out & ~m.self[j][i]);
				m.died += __popc(m.self[j][i] & ~out);
			}
			m.self[j][i] = in[j][i];
			if (j < K - 1)
				m.carry[j][i] = out;
			else
				in[j][i] = out;
		}
	}
	if (live)
		store_words<G>(a.dst + m.out + (uint64_t)(m.x0 + t - (3 * K - 1)) * a.plane,
			       in[K - 1]);
}

/* One thread of the fused kernel (step_fused below). */
template <int K, int G, int RULE, bool EXACT, bool STATS>
__device__ __forceinline__ void fused_body(const StepArgs &a)
{
	extern __shared__ uint4 smem4[];
	const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const Lane<G> L(a, lane);
	March<K, G> m;

	let_next_grid_start();
	const int r = (int)(warp * a.rpw + (L.slot ? L.rw : 0)) - (K - 1);
	const int edge = !L.slot ? 0 : r == -(K - 1) ? -1 : r == (int)a.rows - K ? 1 : 0;
	m.edge = edge != 0;
	m.row_mask = a.lpr == 32 ? FULL : ((1u << a.lpr) - 1) << (L.rw * a.lpr);

	/* Zero the two rows outside each z-sum buffer: later stages read them
	 * only for rows whose results are dropped, but never uninitialised. */
	uint32_t *sm = reinterpret_cast<uint32_t *>(smem4);
	const uint32_t in_words = RING * (a.rows + 2) * a.w32;
	const uint32_t row_words = 2 * a.w32;
	const uint32_t buffer_words = (a.rows + 2) * row_words;
	uint32_t *zs = sm + in_words;
	for (uint32_t i = threadIdx.x; i < 2 * K * 2 * row_words; i += blockDim.x) {
		uint32_t b = i / (2 * row_words), w = i % (2 * row_words);
		zs[b * buffer_words + (w < row_words ? w : (a.rows + 1) * row_words + w - row_words)] = 0;
	}
	const uint32_t base = (uint32_t)__cvta_generic_to_shared(sm);
	const uint32_t warps = blockDim.x / 32;
	const uint32_t bars = base + (in_words + 2 * K * buffer_words) * 4;
	for (uint32_t i = threadIdx.x; i < warps * 2; i += blockDim.x)
		bar_init(bars + 8 * i, 32);
	m.bar_mine = bars + warp * 2 * 8;
	m.bar_lo = warp == 0 ? m.bar_mine : m.bar_mine - 2 * 8;
	m.bar_hi = warp + 1 == warps ? m.bar_mine : m.bar_mine + 2 * 8;
	m.in_slot = (a.rows + 2) * a.w32 * 4;
	m.in_me = base + (uint32_t)(r + K) * a.w32 * 4 + L.lr * G * 4;
	m.in_extra = base + (uint32_t)(r + K + edge) * a.w32 * 4;
	m.x_below = (L.lr == 0 ? a.w32 - 1 : L.lr * G - 1) * 4;
	m.x_above = (L.lr + 1 == a.lpr ? 0 : L.lr * G + G) * 4;
	m.x_last = a.wl * 4;
	m.buffer = buffer_words * 4;
	m.bit1 = a.w32 * 4;
	m.me = base + in_words * 4 + (uint32_t)(r + K) * row_words * 4 + L.lr * G * 4;
	m.below = m.me - row_words * 4;
	m.above = m.me + row_words * 4;
	m.extra = edge < 0 ? m.below : m.above;

	const uint32_t y0 = blockIdx.y * a.out_rows;
	int64_t y = ((int64_t)y0 + r) % (int64_t)a.ny, ye = ((int64_t)y0 + r + edge) % (int64_t)a.ny;
	y += y < 0 ? a.ny : 0;
	ye += ye < 0 ? a.ny : 0;
	m.out_row = L.slot && r >= 0 && r < (int)a.out_rows && y0 + r < a.ny;
	m.out = (uint64_t)y * a.w32 + L.lr * G;
	m.row = a.src + m.out;
	m.extra_row = a.src + (uint64_t)ye * a.w32;
	m.x0 = blockIdx.x * a.chunk;
	/* An even number of planes keeps the two-plane loop body free of a
	 * conditional half (whose register shuffling would cost more than one
	 * plane of work that is not stored). */
	m.live_until = min(a.chunk, a.nx - m.x0) + 3 * K - 1;
	m.iters = (m.live_until + 1) & ~1u;
	/* Copied first: plane pin + 1, wrapped on the torus.  (Written so
	 * that the common kernel stays within 128 registers: 16 warps.) */
	int64_t p0 = ((int64_t)m.x0 - K - 1) % (int64_t)a.nx;
	m.pin = a.open ? (int32_t)m.x0 - K - 1 : (int32_t)(p0 < 0 ? p0 + a.nx : p0);
	m.pop = m.born = m.died = 0;

	uint32_t ya[K][4][G], yb[K][4][G];
#pragma unroll
	for (int j = 0; j < K; j++)
#pragma unroll
		for (int i = 0; i < G; i++) {
			m.self[j][i] = m.carry[j][i] = 0;
#pragma unroll
			for (int b = 0; b < 4; b++)
				ya[j][b][i] = yb[j][b][i] = 0;
		}
	__syncthreads();
	wait_for_previous_grid();
#pragma unroll
	for (int i = 0; i < RING; i++)
		copy_next_plane<K, G>(a, L, m, i * m.in_slot);
	for (uint32_t t = 0; t < m.iters; t += 2) {
		march_plane<K, G, RULE, EXACT, STATS, 0>(a, L, m, t, ya, yb);
		march_plane<K, G, RULE, EXACT, STATS, 1>(a, L, m, t + 1, yb, ya);
	}
	if (STATS)
		flush_counts(a.counts, m.pop, m.born, m.died);
}

/* z-sum of word w of a row read straight from memory. */
__device__ __forceinline__ void zsum_word(const StepArgs &a, const uint32_t *row,
					  uint32_t w, bool exact, uint32_t &s0,
					  uint32_t &s1)
{
	uint32_t c = row[w];
	uint32_t below = row[w == 0 ? a.w32 - 1 : w - 1];
	uint32_t above = row[w + 1 == a.w32 ? 0 : w + 1];
	uint32_t up = __funnelshift_r(c, above, 1), dn = __funnelshift_l(below, c, 1);
	if (!exact) {
		if (w == a.wl)
			up |= (row[0] & 1u) << a.bl;
		if (w == 0)
			dn |= (row[a.wl] >> a.bl) & 1u;
	}
	s0 = up ^ c ^ dn;
	s1 = maj3(up, c, dn);
}

template <int RULE, bool STATS>
__device__ __forceinline__ void generic_body(const StepArgs &a)
{
	wait_for_previous_grid();
	const bool exact = a.wl == a.w32 - 1 && a.bl == 31;
	const uint64_t total = (uint64_t)a.nx * a.plane;
	uint32_t pop = 0, born = 0, died = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < total;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		uint32_t w = (uint32_t)(i % a.w32);
		uint64_t rowi = i / a.w32;
		uint32_t y = (uint32_t)(rowi % a.ny), x = (uint32_t)(rowi / a.ny);
		if (w > a.wl) {
			a.dst[i] = 0;
			continue;
		}
		uint32_t ys[3][4];
		for (int dx = 0; dx < 3; dx++) {
			int64_t xx = (int64_t)x - 1 + dx;
			if (!a.open)
				xx = (xx + a.nx) % a.nx;
			uint32_t z0[3], z1[3];
			for (int dy = 0; dy < 3; dy++) {
				uint32_t yy = (y + a.ny - 1 + dy) % a.ny;
				const uint32_t *row = a.src + (xx * (int64_t)a.ny + yy) * (int64_t)a.w32;
				zsum_word(a, row, w, exact, z0[dy], z1[dy]);
			}
			add3_2bit(z0[0], z1[0], z0[1], z1[1], z0[2], z1[2], ys[dx]);
		}
		uint32_t s[5], self = a.src[i];
		add3_4bit(ys[0], ys[1], ys[2], s);
		uint32_t top = a.bl == 31 ? FULL : (2u << a.bl) - 1;
		uint32_t out = apply_rule<RULE>(a, s, self) & (w == a.wl ? top : FULL);
		a.dst[i] = out;
		if (STATS) {
			pop += __popc(out);
			born += __popc(out & ~self);
			died += __popc(self & ~out);
		}
	}
	if (STATS)
		flush_counts(a.counts, pop, born, died);
}

/* The F, C, E and H neighbourhoods (base/hood.h).  A thread owns one 32-bit
 * word position (y, w) of a plane and marches along x through a chunk of
 * HOOD_CHUNK planes, keeping rows y-1, y, y+1 of the planes x-1, x, x+1 as
 * words and their z-shifted copies in registers, so each output word reads
 * the 9 words around it in one new plane, and no index is divided inside
 * the march.  The count adds the neighbourhood's 6, 8 or 12 words, as
 * base/hood.h lists them (cells.cuh's hood_count), with full adders
 * (sum6/sum8/sum12); the rule then looks at the count of
 * neighbours alone, at most 12 (rule_low's tree over four bits). */
constexpr uint32_t HOOD_CHUNK = 16;

template <int HOOD, int RULE, bool STATS>
__device__ __forceinline__ void hood_body(const StepArgs &a)
{
	wait_for_previous_grid();
	const bool exact = a.wl == a.w32 - 1 && a.bl == 31;
	const uint32_t col = blockIdx.x * blockDim.x + threadIdx.x;
	const uint32_t x0 = blockIdx.y * HOOD_CHUNK;
	const uint32_t x1 = x0 + HOOD_CHUNK < a.nx ? x0 + HOOD_CHUNK : a.nx;
	uint32_t pop = 0, born = 0, died = 0;
	if (col < a.ny * a.w32) {
		const uint32_t w = col % a.w32, y = col / a.w32;
		const uint32_t ym = y ? y - 1 : a.ny - 1, yp = y + 1 == a.ny ? 0 : y + 1;
		const uint32_t top = w < a.wl ? FULL : w > a.wl ? 0 : a.bl == 31 ? FULL
										 : (2u << a.bl) - 1;
		Rows3 p[3];
		if (w <= a.wl) {
			p[0] = load_rows(a, (int64_t)x0 - 1, ym, y, yp, w, exact);
			p[1] = load_rows(a, x0, ym, y, yp, w, exact);
		}
		for (uint32_t x = x0; x < x1; x++) {
			uint32_t *out = a.dst + (uint64_t)x * a.plane + col;
			if (w > a.wl) {
				*out = 0;
				continue;
			}
			p[2] = load_rows(a, (int64_t)x + 1, ym, y, yp, w, exact);
			uint32_t n[5], self = p[1].r[1].c;
			hood_count<HOOD>(p, n);
			uint32_t v = apply_rule<RULE>(a, n, self) & top;
			*out = v;
			if (STATS) {
				pop += __popc(v);
				born += __popc(v & ~self);
				died += __popc(self & ~v);
			}
			p[0] = p[1];
			p[1] = p[2];
		}
	}
	if (STATS)
		flush_counts(a.counts, pop, born, died);
}

/* a (NA bits) + b (NB bits) into NOUT bits, the sum known to fit (no carry
 * out of the top bit).  Unrolled, every bit's case is known: a full adder
 * where three bits meet, a half adder where two do. */
template <int NA, int NB, int NOUT>
__device__ __forceinline__ void add_bits(const uint32_t *a, const uint32_t *b, uint32_t *out)
{
	constexpr int MOST = NA > NB ? NA : NB;
	uint32_t k = 0;
#pragma unroll
	for (int i = 0; i < NOUT; i++) {
		const uint32_t x = i < NA ? a[i] : 0, y = i < NB ? b[i] : 0;
		const int inputs = (i < NA) + (i < NB) + (i >= 1 && i <= MOST);
		if (i == NOUT - 1) {
			out[i] = x ^ y ^ k;
		} else if (inputs == 3) {
			fa(x, y, k, out[i], k);
		} else {
			out[i] = x ^ y ^ k;
			k = (x & y) | (k & (x | y));
		}
	}
}

/* The F, C, E and H neighbourhoods again, for rows that fit a warp: the
 * fused kernel's lanes (a row is lpr lanes of G consecutive words; the z
 * neighbours across words come from shuffles) march along x through a chunk
 * of planes.  Each plane read (my words of rows y-1, y and y+1: vector loads
 * that the threads of the rows around share through L1) is summed once into
 * what it gives the three output planes around it: q to plane x-1 (whose
 * neighbour at dx = +1 it is), m to its own plane, r to plane x+1 (up and
 * dn are a row's z+1 and z-1 neighbours, a z pair their sum).  Plane x's
 * count is q(x+1) + m(x) + r(x-1) (base/hood.h's offsets), added as
 * q(x+1) + acc(x) with acc(x) = m(x) + r(x-1) made when plane x is read.
 * Each plane's partial sums are made once instead of once an output
 * reading them, and a lane's loads and index arithmetic serve G words.
 *
 * HoodLanes<HOOD> is all a neighbourhood's own code here, one block each:
 * parts(), its q, m and r of a plane, and the bit planes Q, M, R of each
 * (M = 0: no m), ACC of acc and N of the count; WIDE_REGS, the registers
 * a thread of its kernel of 4 words a lane compiled at run time is held
 * to (0: the compiler's choice; step.cu's jit_regs). */
template <int G>
using Planes3 = uint32_t[3][G];

template <int HOOD>
struct HoodLanes;

/* Each block's parts(): plane c's rows y-1, y, y+1 (my words) into its q,
 * m and r. */
#define HOOD_PARTS                                                                \
	template <int G, bool EXACT>                                              \
	static __device__ __forceinline__ void parts(const Planes3<G> &c, const Lane<G> &L, \
						     uint32_t bl, Planes3<G> &q,  \
						     Planes3<G> &m, Planes3<G> &r)

/* zshift of rows ROWS... of c, in that order, into up and dn. */
template <int G, bool EXACT, int... ROWS>
__device__ __forceinline__ void zshift_rows(const Planes3<G> &c, Planes3<G> &up, Planes3<G> &dn,
					    const Lane<G> &L, uint32_t bl)
{
	(zshift<G, EXACT>(c[ROWS], up[ROWS], dn[ROWS], L, bl), ...);
}

/* F: q = r = c(y); m = c(y-1) + c(y+1) + z pair of y; acc at most 5. */
template <>
struct HoodLanes<RULE_FACE> {
	static constexpr int Q = 1, M = 3, R = 1, ACC = 3, N = 3, WIDE_REGS = 0;

	HOOD_PARTS
	{
		uint32_t up[3][G], dn[3][G];
		zshift_rows<G, EXACT, 1>(c, up, dn, L, bl);
#pragma unroll
		for (int i = 0; i < G; i++) {
			uint32_t t[3];
			q[0][i] = r[0][i] = c[1][i];
			sum4(c[0][i], c[2][i], up[1][i], dn[1][i], t);
			m[0][i] = t[0], m[1][i] = t[1], m[2][i] = t[2];
		}
	}
};

/* C: q = r = z pairs of y-1 and y+1; m = 0; acc at most 4. */
template <>
struct HoodLanes<RULE_CORNER> {
	static constexpr int Q = 3, M = 0, R = 3, ACC = 3, N = 4, WIDE_REGS = 0;

	HOOD_PARTS
	{
		uint32_t up[3][G], dn[3][G];
		zshift_rows<G, EXACT, 0, 2>(c, up, dn, L, bl);
#pragma unroll
		for (int i = 0; i < G; i++) {
			uint32_t t[3];
			sum4(up[0][i], dn[0][i], up[2][i], dn[2][i], t);
			q[0][i] = r[0][i] = t[0], q[1][i] = r[1][i] = t[1], q[2][i] = r[2][i] = t[2];
		}
	}
};

/* E: q = r = c(y-1) + c(y+1) + z pair of y; m = z pairs of y-1 and y+1;
 * acc at most 8.  Both from t = c(y-1) + c(y+1), two bits made once:
 * q = r = t + up(y) + dn(y), and m = up(t) + dn(t), the z pairs of rows
 * y-1 and y+1 summed as one 2-bit number (a z shift moves each bit plane
 * alike).  10 LOP3 a word, where two sum4 of four words took 12; the same
 * six shuffles a plane (t's two bit planes for rows y-1, y+1). */
template <>
struct HoodLanes<RULE_EDGE> {
	static constexpr int Q = 3, M = 3, R = 3, ACC = 4, N = 4, WIDE_REGS = 80;

	HOOD_PARTS
	{
		uint32_t t0[G], t1[G], up[G], dn[G];
#pragma unroll
		for (int i = 0; i < G; i++)
			t0[i] = c[0][i] ^ c[2][i], t1[i] = c[0][i] & c[2][i];
		zshift<G, EXACT>(c[1], up, dn, L, bl);
#pragma unroll
		for (int i = 0; i < G; i++) {
			uint32_t k;
			fa(t0[i], up[i], dn[i], q[0][i], k);
			q[1][i] = t1[i] ^ k, q[2][i] = t1[i] & k;
			r[0][i] = q[0][i], r[1][i] = q[1][i], r[2][i] = q[2][i];
		}
		uint32_t u1[G], d1[G];
		zshift<G, EXACT>(t0, up, dn, L, bl);
		zshift<G, EXACT>(t1, u1, d1, L, bl);
#pragma unroll
		for (int i = 0; i < G; i++) {
			const uint32_t ut[2] = {up[i], u1[i]}, dt[2] = {dn[i], d1[i]};
			uint32_t mi[3];
			add_bits<2, 2, 3>(ut, dt, mi);
			m[0][i] = mi[0], m[1][i] = mi[1], m[2][i] = mi[2];
		}
	}
};

/* H: q = c(y) + dn(y) + c(y-1); r = c(y) + up(y) + c(y+1);
 * m = c(y-1) + c(y+1) + z pair of y + up(y-1) + dn(y+1); acc at most 9. */
template <>
struct HoodLanes<RULE_HEX> {
	static constexpr int Q = 2, M = 3, R = 2, ACC = 4, N = 4, WIDE_REGS = 80;

	HOOD_PARTS
	{
		uint32_t up[3][G], dn[3][G];
		zshift_rows<G, EXACT, 1, 0, 2>(c, up, dn, L, bl);
#pragma unroll
		for (int i = 0; i < G; i++) {
			fa(c[1][i], dn[1][i], c[0][i], q[0][i], q[1][i]);
			fa(c[1][i], up[1][i], c[2][i], r[0][i], r[1][i]);
			uint32_t in[6] = {c[0][i], c[2][i], up[1][i], dn[1][i], up[0][i], dn[2][i]};
			uint32_t n[5];
			sum6(in, n);
			m[0][i] = n[0], m[1][i] = n[1], m[2][i] = n[2];
		}
	}
};

#undef HOOD_PARTS

template <int HOOD, int G, bool EXACT>
__device__ __forceinline__ void hood_parts(const Planes3<G> &c, const Lane<G> &L, uint32_t bl,
					   Planes3<G> &q, Planes3<G> &m, Planes3<G> &r)
{
	static_assert((1 << HoodLanes<HOOD>::N) > hood_cells(HOOD), "N bits hold no count");
	HoodLanes<HOOD>::template parts<G, EXACT>(c, L, bl, q, m, r);
}

/* What a lane carries from one plane of the march to the next. */
template <int G>
struct HoodCarry {
	uint32_t r[3][G];      /* r of the plane last read */
	uint32_t acc[4][G];    /* m(x) + r(x-1) for output plane x */
	uint32_t self[G];      /* plane x's cells of my words of row y */
};

/* m(x) + r(x-1) of word i. */
template <int HOOD, int G>
__device__ __forceinline__ void hood_acc(const uint32_t (&m)[3][G], const uint32_t (&r)[3][G],
					 uint32_t (&acc)[4][G], int i)
{
	using H = HoodLanes<HOOD>;
	const uint32_t mi[3] = {m[0][i], m[1][i], m[2][i]}, ri[3] = {r[0][i], r[1][i], r[2][i]};
	uint32_t t[4] = {0, 0, 0, 0};
	if constexpr (H::M == 0)                /* acc is r */
		t[0] = ri[0], t[1] = ri[1], t[2] = ri[2];
	else
		add_bits<H::M, H::R, H::ACC>(mi, ri, t);
#pragma unroll
	for (int b = 0; b < 4; b++)
		acc[b][i] = t[b];
}

/* q(x+1) + acc(x) of word i: plane x's count. */
template <int HOOD, int G>
__device__ __forceinline__ void hood_sum(const uint32_t (&q)[3][G], const uint32_t (&acc)[4][G],
					 int i, uint32_t n[5])
{
	using H = HoodLanes<HOOD>;
	const uint32_t qi[3] = {q[0][i], q[1][i], q[2][i]};
	const uint32_t ai[4] = {acc[0][i], acc[1][i], acc[2][i], acc[3][i]};
	n[3] = n[4] = 0;
	add_bits<H::Q, H::ACC, H::N>(qi, ai, n);
}

/* Planes a block of the lanes kernel marches through (two more are read). */
constexpr uint32_t HOOD_LANES_CHUNK = 16;

template <int G>
__device__ __forceinline__ void load_words(uint32_t (&w)[G], const uint32_t *p)
{
	if constexpr (G == 4) {
		uint4 v = __ldg(reinterpret_cast<const uint4 *>(p));
		w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
	} else {
		uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
		w[0] = v.x, w[1] = v.y;
	}
}

/* My words of rows y-1, y, y+1 (offsets off) of plane x; zeros for a lane
 * without a row. */
template <int G>
__device__ __forceinline__ void load_plane(const StepArgs &a, int64_t x, const uint64_t (&off)[3],
					   bool mine, uint32_t (&c)[3][G])
{
	if (!a.open)
		x = x < 0 ? x + a.nx : x >= (int64_t)a.nx ? x - a.nx : x;
	const uint32_t *plane = a.src + x * (int64_t)a.plane;
#pragma unroll
	for (int j = 0; j < 3; j++) {
#pragma unroll
		for (int i = 0; i < G; i++)
			c[j][i] = 0;
		if (mine)
			load_words<G>(c[j], plane + off[j]);
	}
}

/* Read plane x+1 and write plane x, from what was carried for plane x
 * (now) into what plane x+1 will need (next). */
template <int HOOD, int G, int RULE, bool EXACT, bool STATS>
__device__ __forceinline__ void hood_lanes_plane(const StepArgs &a, const Lane<G> &L,
						 const uint64_t (&off)[3], bool mine, uint32_t x,
						 const HoodCarry<G> &now, HoodCarry<G> &next,
						 uint32_t (&counts)[3])
{
	uint32_t c[3][G], q[3][G], m[3][G], out[G];
	load_plane<G>(a, (int64_t)x + 1, off, mine, c);
	hood_parts<HOOD, G, EXACT>(c, L, a.bl, q, m, next.r);
#pragma unroll
	for (int i = 0; i < G; i++) {
		uint32_t n[5];
		hood_sum<HOOD, G>(q, now.acc, i, n);
		out[i] = apply_rule<RULE>(a, n, now.self[i]);
		if (!EXACT)
			out[i] &= L.valid[i];
		if (STATS && mine) {
			counts[0] += __popc(out[i]);
			counts[1] += __popc(out[i] & ~now.self[i]);
			counts[2] += __popc(now.self[i] & ~out[i]);
		}
		hood_acc<HOOD, G>(m, now.r, next.acc, i);
		next.self[i] = c[1][i];
	}
	if (mine)
		store_words<G>(a.dst + (uint64_t)x * a.plane + off[1], out);
}

/* One thread of step_hood_lanes: row group blockIdx.y, chunk blockIdx.x of
 * a.chunk planes.  Two carries take turns, so nothing is copied between
 * planes. */
template <int HOOD, int G, int RULE, bool EXACT, bool STATS>
__device__ __forceinline__ void hood_lanes_body(const StepArgs &a)
{
	const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const Lane<G> L(a, lane);
	const uint32_t y = (blockIdx.y * (blockDim.x >> 5) + warp) * a.rpw + L.rw;
	const bool mine = L.slot && y < a.ny;
	const uint32_t ym = y == 0 ? a.ny - 1 : y - 1, yp = y + 1 >= a.ny ? 0 : y + 1;
	const uint32_t col = L.lr * G;
	const uint64_t off[3] = {(uint64_t)ym * a.w32 + col, (uint64_t)y * a.w32 + col,
				 (uint64_t)yp * a.w32 + col};
	const uint32_t x0 = blockIdx.x * a.chunk;
	const uint32_t x1 = x0 + a.chunk < a.nx ? x0 + a.chunk : a.nx;
	HoodCarry<G> carry[2];
	uint32_t counts[3] = {0, 0, 0};

	wait_for_previous_grid();
	{
		uint32_t c[3][G], q[3][G], m[3][G], r[3][G];
		load_plane<G>(a, (int64_t)x0 - 1, off, mine, c);
		hood_parts<HOOD, G, EXACT>(c, L, a.bl, q, m, r);
		load_plane<G>(a, x0, off, mine, c);
		hood_parts<HOOD, G, EXACT>(c, L, a.bl, q, m, carry[0].r);
#pragma unroll
		for (int i = 0; i < G; i++) {
			hood_acc<HOOD, G>(m, r, carry[0].acc, i);
			carry[0].self[i] = c[1][i];
		}
	}
	for (uint32_t x = x0; x < x1; x += 2) {
		hood_lanes_plane<HOOD, G, RULE, EXACT, STATS>(a, L, off, mine, x, carry[0],
							      carry[1], counts);
		if (x + 1 < x1)
			hood_lanes_plane<HOOD, G, RULE, EXACT, STATS>(a, L, off, mine, x + 1,
								      carry[1], carry[0], counts);
	}
	if (STATS)
		flush_counts(a.counts, counts[0], counts[1], counts[2]);
}

/* The kernels.  Two fused stages of 4 words a lane want about 176
 * registers: 8 warps an SM.  At 168 (a few spills to L1) 12 warps fit,
 * which measured 14% faster. */
template <int K, int G, int RULE, bool EXACT, bool STATS>
__global__ void __maxnreg__(K == 2 && G == 4 ? 168 : 255)
step_fused(const __grid_constant__ StepArgs a)
{
	fused_body<K, G, RULE, EXACT, STATS>(a);
}

template <int RULE, bool STATS>
__global__ void step_generic(const __grid_constant__ StepArgs a)
{
	generic_body<RULE, STATS>(a);
}

template <int HOOD, int RULE, bool STATS>
__global__ void step_hood(const __grid_constant__ StepArgs a)
{
	hood_body<HOOD, RULE, STATS>(a);
}

template <int HOOD, int G, int RULE, bool EXACT, bool STATS>
__global__ void step_hood_lanes(const __grid_constant__ StepArgs a)
{
	hood_lanes_body<HOOD, G, RULE, EXACT, STATS>(a);
}

/* rule_jit.cu's modules, one a kernel that has the rule compiled in:
 * 0-3 the fused kernel; from JIT_WORD the kernel of a thread a word of
 * each neighbourhood after Moore; from JIT_LANES their kernels of lanes,
 * four each (step.cu's jit_module). */
constexpr int JIT_WORD = 4;
constexpr int JIT_LANES = JIT_WORD + RULE_HOODS - 1;
constexpr int JIT_MODULES = JIT_LANES + 4 * (RULE_HOODS - 1);

} /* namespace */

#endif
