/* tiles.cu - stepping only the tiles whose surroundings changed.
 *
 * The universe is cut into tiles of L3DK_TILE_X planes x ty rows x tz
 * 32-bit words of z (tz = min(L3DK_TILE_Z, w32), ty = 32 / tz), for every
 * neighbourhood and rule: a list's tiles one a block (a warp a plane, a
 * lane a word), a step of every tile's one a warp (marching its planes).
 *
 * Why a tile may be left alone: the buffer a step writes into holds the
 * generation before the one it reads (t - 1), so a tile whose whole
 * neighbourhood is the same at t as at t - 2 already holds generation
 * t + 1 there.  A stepped tile compares what it writes with what it
 * overwrites; where they differ it wakes the tiles next to the faces,
 * edges and corners that the differing cells touch (and itself) for the
 * next step, by appending them to the next list.  Each tile has the
 * counts of its own last generation of each buffer; a skipped tile's
 * counts are those of two generations back, which it equals.
 *
 * Lists, their sizes and the marks that keep a tile from being listed
 * twice are a ring of three: the step reading list r appends to list
 * r + 1 and clears size r + 2 (read by the step before, which is over), and
 * clears the marks of the tiles it steps (every tile marked in r is in
 * list r).  So one fixed launch a step, whose work the device reads, and
 * no wait for the host. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"
#include "bitsum.cuh"
#include "cells.cuh"

namespace {

/* Faces of a tile where a cell differs from two generations back. */
enum { LOX = 1, HIX = 2, LOY = 4, HIY = 8, LOZ = 16, HIZ = 32, ANY = 64 };

struct TileArgs {
	StepArgs s;                  /* box, rule, src, dst */
	l3dk_tiles t;
	int ring, out;               /* list read (0..2); buffer written (0, 1),
				      * or read, for halo_changes */
};

/* y-sum of the z-sums of rows y-1, y, y+1 of a plane (0..9, 4 bits). */
struct YSum {
	uint32_t v[4];
};

__device__ __forceinline__ YSum ysum(const Rows3 &p)
{
	uint32_t z0[3], z1[3];
#pragma unroll
	for (int i = 0; i < 3; i++) {
		z0[i] = xor3(p.r[i].up, p.r[i].c, p.r[i].dn);
		z1[i] = maj3(p.r[i].up, p.r[i].c, p.r[i].dn);
	}
	YSum y;
	add3_2bit(z0[0], z1[0], z0[1], z1[1], z0[2], z1[2], y.v);
	return y;
}

/* The faces a differing word d of (x, y, w) lies on. */
__device__ __forceinline__ uint32_t faces(uint32_t d, uint32_t x, uint32_t x0, uint32_t x1,
					  uint32_t y, uint32_t y0, uint32_t y1, uint32_t w,
					  uint32_t w0, uint32_t w1, uint32_t top_bit)
{
	if (!d)
		return 0;
	uint32_t f = ANY;
	f |= x == x0 ? LOX : 0;
	f |= x == x1 ? HIX : 0;
	f |= y == y0 ? LOY : 0;
	f |= y == y1 ? HIY : 0;
	f |= w == w0 && (d & 1u) ? LOZ : 0;
	f |= w == w1 && (d >> top_bit & 1u) ? HIZ : 0;
	return f;
}

/* Wake the tiles next to tile (ix, iy, iz) whose neighbourhoods reach the
 * faces in f, and the tile itself: lane k < 27 takes offset k (called by
 * a whole warp, f the same in every lane).  One atomic add a warp for the
 * list's size: at full activity every tile appends, and adds to one
 * address from each lane would queue up behind each other. */
__device__ __forceinline__ void wake(const TileArgs &a, uint32_t f, int ix, uint32_t iy,
				     uint32_t iz, uint32_t lane)
{
	if (!(f & ANY))
		return;
	const l3dk_tiles &t = a.t;
	int dx = (int)(lane % 3) - 1, dy = (int)(lane / 3 % 3) - 1, dz = (int)(lane / 9) - 1;
	bool near = lane < 27 && (dx == 0 || (f & (dx < 0 ? LOX : HIX))) &&
		    (dy == 0 || (f & (dy < 0 ? LOY : HIY))) &&
		    (dz == 0 || (f & (dz < 0 ? LOZ : HIZ)));
	int jx = ix + dx;
	if (t.open)        /* x does not wrap: no tiles beyond the box */
		near = near && jx >= 0 && jx < (int)t.nx;
	else
		jx = (jx + (int)t.nx) % (int)t.nx;
	uint32_t jy = (iy + t.ny + dy) % t.ny, jz = (iz + t.nz + dz) % t.nz;
	uint32_t j = ((uint32_t)jx * t.ny + jy) * t.nz + jz;
	int next = a.ring == 2 ? 0 : a.ring + 1;
	bool add = near && atomicExch(&t.mark[next][j], 1u) == 0;
	uint32_t who = __ballot_sync(FULL, add);
	if (!who)
		return;
	uint32_t first = __ffs(who) - 1, at = 0;
	if (lane == first)
		at = atomicAdd(t.size[next], (uint32_t)__popc(who));
	at = __shfl_sync(FULL, at, first);
	if (add)
		t.list[next][at + __popc(who & ((1u << lane) - 1))] = j;
}

__device__ __forceinline__ uint32_t warp_or(uint32_t v)
{
#pragma unroll
	for (int d = 16; d > 0; d >>= 1)
		v |= __shfl_xor_sync(FULL, v, d);
	return v;
}

/* Where a lane's word column sits in its tile, and the tile's bounds. */
struct TileGeo {
	uint32_t ix, iy, iz, x0, x1, y0, y1, w0, w1;
	uint32_t y, w, ym, yp, top_bit, top;
	bool exact, live;
};

__device__ __forceinline__ TileGeo tile_geo(const TileArgs &a, uint32_t tile, uint32_t lane)
{
	const StepArgs &s = a.s;
	const l3dk_tiles &t = a.t;
	TileGeo g;
	g.iz = tile % t.nz, g.iy = tile / t.nz % t.ny, g.ix = tile / t.nz / t.ny;
	g.y0 = g.iy * t.ty, g.w0 = g.iz * t.tz, g.x0 = g.ix * L3DK_TILE_X;
	g.y = g.y0 + lane / t.tz, g.w = g.w0 + lane % t.tz;
	g.x1 = (g.x0 + L3DK_TILE_X < s.nx ? g.x0 + L3DK_TILE_X : s.nx) - 1;
	g.y1 = (g.y0 + t.ty < s.ny ? g.y0 + t.ty : s.ny) - 1;
	g.w1 = (g.w0 + t.tz <= s.wl ? g.w0 + t.tz : s.wl + 1) - 1;
	g.live = lane < t.ty * t.tz && g.y <= g.y1 && g.w <= g.w1;
	g.exact = s.wl == s.w32 - 1 && s.bl == 31;
	g.ym = g.y ? g.y - 1 : s.ny - 1, g.yp = g.y + 1 == s.ny ? 0 : g.y + 1;
	g.top_bit = g.w == s.wl ? s.bl : 31;
	g.top = g.top_bit == 31 ? FULL : (2u << g.top_bit) - 1;
	return g;
}

__device__ __forceinline__ Rows3 tile_rows(const TileArgs &a, const TileGeo &g, int64_t x)
{
	return load_rows(a.s, x, g.ym, g.y, g.yp, g.w, g.exact);
}

/* What a tile's words add up to: the faces that differ, and the counts. */
struct TileSum {
	uint32_t f, pop, born, died;
};

/* A whole warp's sums, in every lane. */
__device__ __forceinline__ TileSum warp_total(TileSum s)
{
	return TileSum{warp_or(s.f), warp_sum(s.pop), warp_sum(s.born), warp_sum(s.died)};
}

/* Word (x, y, w) of the next generation from the rows around it (planes
 * x - 1, x, x + 1), written where it differs from what is there. */
template <int HOOD, int RULE>
__device__ __forceinline__ void tile_word(const TileArgs &a, const TileGeo &g,
					  const Rows3 (&p)[3], uint32_t x, TileSum &sum)
{
	const StepArgs &s = a.s;
	uint32_t n[5], self = p[1].r[1].c, v;
	if constexpr (HOOD == RULE_MOORE) {
		YSum q[3] = {ysum(p[0]), ysum(p[1]), ysum(p[2])};
		add3_4bit(q[0].v, q[1].v, q[2].v, n);
		v = apply_rule<RULE>(s, n, self);
	} else {
		hood_count<HOOD>(p, n);
		v = rule_low(n, self, s.leaf_b, s.leaf_s);
	}
	v &= g.top;
	uint32_t *o = s.dst + (uint64_t)x * s.plane + (uint64_t)g.y * s.w32 + g.w;
	uint32_t old = *o;
	if (v != old)
		*o = v;
	sum.f |= faces(v ^ old, x, g.x0, g.x1, g.y, g.y0, g.y1, g.w, g.w0, g.w1, g.top_bit);
	sum.pop += __popc(v);
	sum.born += __popc(v & ~self);
	sum.died += __popc(self & ~v);
}

/* A whole warp's sums into the tile's counts, its mark cleared, and its
 * neighbours woken. */
__device__ __forceinline__ void tile_done(const TileArgs &a, const TileGeo &g, uint32_t tile,
					  TileSum sum, uint32_t lane)
{
	sum = warp_total(sum);
	if (lane == 0) {
		a.t.counts[a.out][tile] = l3dk_tile_counts{sum.pop, sum.born, sum.died};
		a.t.mark[a.ring][tile] = 0;
	}
	wake(a, sum.f, (int)g.ix, g.iy, g.iz, lane);
}

/* One tile, by one block: warp k takes plane x0 + k, each lane a word of
 * it, which reads the 27 words around it (all loads independent: a tile
 * costs about one trip to memory, however few are stepped).  For lists. */
template <int HOOD, int RULE>
__device__ __forceinline__ void step_tile(const TileArgs &a, uint32_t tile, uint32_t lane,
					  uint32_t warp, uint32_t (*shared)[4])
{
	const TileGeo g = tile_geo(a, tile, lane);
	const uint32_t x = g.x0 + warp;
	TileSum sum = {0, 0, 0, 0};
	if (x <= g.x1 && g.live) {
		Rows3 p[3];
#pragma unroll
		for (int k = 0; k < 3; k++)
			p[k] = tile_rows(a, g, (int64_t)x - 1 + k);
		tile_word<HOOD, RULE>(a, g, p, x, sum);
	}
	sum = warp_total(sum);
	if (lane == 0) {
		shared[warp][0] = sum.f;
		shared[warp][1] = sum.pop;
		shared[warp][2] = sum.born;
		shared[warp][3] = sum.died;
	}
	__syncthreads();
	if (warp == 0) {
		TileSum all = {0, 0, 0, 0};
		if (lane < L3DK_TILE_X)
			all = TileSum{shared[lane][0], shared[lane][1], shared[lane][2], shared[lane][3]};
		tile_done(a, g, tile, all, lane);
	}
}

/* One tile, by one warp marching through its planes, the loads of the
 * plane after next issued before the word of this one is written: for
 * steps of every tile, where throughput counts and there is a tile for
 * every warp the device holds. */
template <int HOOD, int RULE>
__device__ __forceinline__ void march_tile(const TileArgs &a, uint32_t tile, uint32_t lane)
{
	const TileGeo g = tile_geo(a, tile, lane);
	TileSum sum = {0, 0, 0, 0};
	if (g.live) {
		Rows3 p[3], next;
		p[0] = tile_rows(a, g, (int64_t)g.x0 - 1);
		p[1] = tile_rows(a, g, g.x0);
		next = tile_rows(a, g, (int64_t)g.x0 + 1);
		for (uint32_t x = g.x0; x <= g.x1; x++) {
			p[2] = next;
			if (x < g.x1)
				next = tile_rows(a, g, (int64_t)x + 2);
			tile_word<HOOD, RULE>(a, g, p, x, sum);
			p[0] = p[1];
			p[1] = p[2];
		}
	}
	tile_done(a, g, tile, sum, lane);
}

/* At least four blocks an SM (64 registers a thread): a step of every tile
 * waits on its scattered loads, and at the 80 registers the compiler chose
 * 3 blocks fit, 27% occupancy; at 4, 47% and 0.68 ms instead of 1.14 ms
 * for the 131072 tiles of 1024^3 (ncu, one H200). */
template <int HOOD, int RULE, bool MARCH>
__global__ void __launch_bounds__(L3DK_TILE_X * 32, 4)
	step_tiles(const __grid_constant__ TileArgs a)
{
	/* by the parity of the tiles a block has done: warp 0 reads one half
	 * while the others fill the other, so one barrier a tile */
	__shared__ uint32_t shared[2][L3DK_TILE_X][4];
	wait_for_previous_grid();
	const l3dk_tiles &t = a.t;
	const uint32_t n = *t.size[a.ring];
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		*t.size[a.ring == 0 ? 2 : a.ring - 1] = 0;
		*t.stepped += n;
	}
	const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	if (MARCH) {
		for (uint32_t i = blockIdx.x * L3DK_TILE_X + warp; i < n;
		     i += gridDim.x * L3DK_TILE_X)
			march_tile<HOOD, RULE>(a, t.list[a.ring][i], lane);
		return;
	}
	uint32_t k = 0;
	for (uint32_t i = blockIdx.x; i < n; i += gridDim.x, k ^= 1)
		step_tile<HOOD, RULE>(a, t.list[a.ring][i], lane, warp, shared[k]);
}

/* The halo planes of an open box (-1 and nx of src) against the copies
 * of them kept from the last step that read this buffer, two generations
 * back: a warp a tile of a halo plane, a lane a word.  A tile of the
 * slab's first or last tile plane that a changed word touches is listed
 * for the step reading list ring + 1 (when `wake`: a step of every tile
 * needs no list), and the copies take the new halos. */
__global__ void halo_changes(const __grid_constant__ TileArgs a, int wake_them)
{
	wait_for_previous_grid();
	const l3dk_tiles &t = a.t;
	const uint32_t lane = threadIdx.x & 31;
	const uint64_t per_side = (uint64_t)t.ny * t.nz;
	const uint64_t warp = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
	if (warp >= 2 * per_side)
		return;
	const int side = warp >= per_side;
	const TileGeo g = tile_geo(a, (uint32_t)(warp - side * per_side), lane);
	uint32_t d = 0;
	if (g.live) {
		uint64_t at = (uint64_t)g.y * a.s.w32 + g.w;
		int64_t x = side ? (int64_t)a.s.nx : -1;
		uint32_t v = a.s.src[x * (int64_t)a.s.plane + (int64_t)at];
		uint32_t *kept = a.t.kept[a.out] + side * a.s.plane + at;
		d = v ^ *kept;
		if (d)
			*kept = v;
	}
	/* The halo is a tile plane beyond the box, its changes on the face
	 * that the box's first (or last) tile plane reads. */
	uint32_t f = warp_or(faces(d, side ? 0 : 1, 0, 1, g.y, g.y0, g.y1, g.w, g.w0, g.w1,
				   g.top_bit));
	if (wake_them)
		wake(a, f, side ? (int)t.nx : -1, g.iy, g.iz, lane);
}

/* List r = every tile. */
__global__ void list_all(l3dk_tiles t, int r)
{
	wait_for_previous_grid();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < t.count)
		t.list[r][i] = i;
	if (i == 0)
		*t.size[r] = (uint32_t)t.count;
}

/* The counts of buffer b's generation: its tiles' counts summed. */
__global__ void sum_counts(l3dk_tiles t, int b, l3dk_counts *counts)
{
	wait_for_previous_grid();
	unsigned long long pop = 0, born = 0, died = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < t.count;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		l3dk_tile_counts c = t.counts[b][i];
		pop += c.population;
		born += c.births;
		died += c.deaths;
	}
	flush_counts(counts, pop, born, died);
}

typedef void (*tile_fn)(TileArgs);

template <int HOOD, int RULE>
tile_fn tile_variant(bool march)
{
	return march ? step_tiles<HOOD, RULE, true> : step_tiles<HOOD, RULE, false>;
}

template <int HOOD>
tile_fn tile_kernel_for(int rule, bool march)
{
	if (HOOD != RULE_MOORE)
		return tile_variant<HOOD, L3DK_RULE_LOW>(march);
	switch (rule) {
	case L3DK_RULE_B6S567: return tile_variant<HOOD, L3DK_RULE_B6S567>(march);
	case L3DK_RULE_LOW: return tile_variant<HOOD, L3DK_RULE_LOW>(march);
	default: return tile_variant<HOOD, L3DK_RULE_ANY>(march);
	}
}

tile_fn tile_kernel(const l3dk_plan *p, bool march)
{
	if (p->hood != RULE_MOORE)
		return small_hood(p->hood, [&](auto h) {
			return tile_kernel_for<decltype(h)::value>(p->rule_kind, march);
		});
	return tile_kernel_for<RULE_MOORE>(p->rule_kind, march);
}

/* The arguments of a tile kernel: the plan's rule and plane shape over
 * the tiles' planes, open or not. */
TileArgs tile_args(const l3dk_plan *p, const l3dk_tiles *t, int r, const void *src,
		   void *dst, int out)
{
	TileArgs a;
	fill_args(p, nullptr, &a.s);
	a.s.src = static_cast<const uint32_t *>(src);
	a.s.dst = static_cast<uint32_t *>(dst);
	a.s.nx = t->planes;
	a.s.open = t->open;
	a.s.x_end = (int32_t)t->planes;
	a.s.counts = nullptr;
	a.t = *t;
	a.ring = r;
	a.out = out;
	return a;
}

} /* namespace */

extern "C" cudaError_t l3dk_tiles_make(const l3dk_plan *p, uint64_t planes, int open,
				       int words, l3dk_tiles *t, size_t *bytes)
{
	*t = l3dk_tiles{};
	*bytes = 0;
	if (planes == 0 || planes > p->nx)
		return cudaErrorInvalidValue;
	t->planes = (uint32_t)planes;
	t->open = open;
	words = words == 2 || words == 4 || words == 8 || words == 16 || words == 32 ? words
										    : L3DK_TILE_Z;
	t->tz = p->w32 < (uint32_t)words ? p->w32 : (uint32_t)words;
	t->ty = 32 / t->tz;
	t->nx = (uint32_t)ceil_div(planes, L3DK_TILE_X);
	t->ny = (uint32_t)ceil_div(p->ny, t->ty);
	t->nz = (uint32_t)ceil_div(p->wl + 1, t->tz);
	t->count = (uint64_t)t->nx * t->ny * t->nz;
	if (t->count > UINT32_MAX)
		return cudaErrorInvalidValue;
	int dev = 0, sms = 0, per_sm = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&per_sm, (const void *)tile_kernel(p, false), L3DK_TILE_X * 32, 0);
	if (e != cudaSuccess)
		return e;
	uint64_t most = (uint64_t)(per_sm > 0 ? per_sm : 1) * (uint64_t)sms;
	uint64_t blocks = t->count;
	t->blocks = (uint32_t)(blocks < most ? blocks : most);
	blocks = ceil_div(t->count, L3DK_TILE_X);
	t->march_blocks = (uint32_t)(blocks < most ? blocks : most);
	t->plane = (uint64_t)p->ny * p->w32;
	*bytes = 64 + t->count * (3 * 2 * sizeof(uint32_t) + 2 * sizeof(l3dk_tile_counts)) +
		 (open ? 4 * t->plane * sizeof(uint32_t) : 0);
	return cudaSuccess;
}

extern "C" void l3dk_tiles_place(l3dk_tiles *t, void *mem)
{
	char *m = static_cast<char *>(mem);
	t->stepped = reinterpret_cast<unsigned long long *>(m);
	for (int r = 0; r < 3; r++)
		t->size[r] = reinterpret_cast<uint32_t *>(m + 16 + 4 * r);
	m += 64;
	for (int r = 0; r < 3; r++, m += t->count * sizeof(uint32_t))
		t->list[r] = reinterpret_cast<uint32_t *>(m);
	for (int r = 0; r < 3; r++, m += t->count * sizeof(uint32_t))
		t->mark[r] = reinterpret_cast<uint32_t *>(m);
	for (int b = 0; b < 2; b++, m += t->count * sizeof(l3dk_tile_counts))
		t->counts[b] = reinterpret_cast<l3dk_tile_counts *>(m);
	for (int b = 0; b < 2; b++, m += 2 * t->plane * sizeof(uint32_t))
		t->kept[b] = t->open ? reinterpret_cast<uint32_t *>(m) : nullptr;
	t->base = mem;
}

extern "C" cudaError_t l3dk_tiles_reset(const l3dk_tiles *t, cudaStream_t s)
{
	char *m = static_cast<char *>(t->base);
	cudaError_t e = cudaMemsetAsync(m + 16, 0, 48, s);
	if (e == cudaSuccess)
		e = cudaMemsetAsync(t->mark[0], 0, 3 * t->count * sizeof(uint32_t), s);
	return e;
}

extern "C" cudaError_t l3dk_tiles_all(const l3dk_tiles *t, int r, int pdl, cudaStream_t s)
{
	l3dk_tiles copy = *t;
	void *args[] = {&copy, &r};
	return launch_cfg((const void *)list_all, args, dim3((unsigned)ceil_div(t->count, 256)),
			  dim3(256), 0, pdl, s);
}

extern "C" cudaError_t l3dk_tiles_step(const l3dk_plan *p, const l3dk_tiles *t, int r,
				       const void *src, void *dst, int out, int all, int pdl,
				       cudaStream_t s)
{
	if (r < 0 || r > 2 || out < 0 || out > 1)
		return cudaErrorInvalidValue;
	TileArgs a = tile_args(p, t, r, src, dst, out);
	void *args[] = {&a};
	return launch_cfg((const void *)tile_kernel(p, all), args,
			  dim3(all ? t->march_blocks : t->blocks), dim3(L3DK_TILE_X * 32), 0, pdl, s);
}

extern "C" cudaError_t l3dk_tiles_halos(const l3dk_plan *p, const l3dk_tiles *t, int r,
					const void *src, int b, int wake, int pdl,
					cudaStream_t s)
{
	if (r < 0 || r > 2 || b < 0 || b > 1 || !t->open)
		return cudaErrorInvalidValue;
	TileArgs a = tile_args(p, t, r == 0 ? 2 : r - 1, src, nullptr, b);
	void *args[] = {&a, &wake};
	uint64_t threads = 2 * 32 * (uint64_t)t->ny * t->nz;
	return launch_cfg((const void *)halo_changes, args, dim3(ceil_div(threads, 256)),
			  dim3(256), 0, pdl, s);
}

extern "C" cudaError_t l3dk_tiles_counts(const l3dk_tiles *t, int b, l3dk_counts *counts,
					 int pdl, cudaStream_t s)
{
	l3dk_tiles copy = *t;
	uint64_t blocks = ceil_div(t->count, 256);
	void *args[] = {&copy, &b, &counts};
	return launch_cfg((const void *)sum_counts, args,
			  dim3((unsigned)(blocks < 1024 ? blocks : 1024)), dim3(256), 0, pdl, s);
}
