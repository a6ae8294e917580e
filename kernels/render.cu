/* render.cu - the 3D render (base/render.h) drawn on the device from the
 * universe in its memory, so a render snapshot copies the picture back,
 * not the universe.
 *
 * One thread a pixel, each running base/render_pixel.h's code, the code
 * render_rows() runs on the host: same integers, same bytes.  Only the
 * cell lookup is this file's own, in the device's layout (rows of w32
 * 32-bit words; a walk never names a cell outside the box, so padding
 * words are never needed and never read past).  A block draws a tile of
 * 32 x 8 pixels: neighbouring rays walk neighbouring cells, so the tile's
 * reads share cache lines.  The view (about 1.5 kB, the colour map
 * included) comes as a kernel parameter and is copied to shared memory
 * once a block, where the per-pixel lookups (edges, the map by depth, the
 * face's shade) index it freely.
 *
 * A sparse universe is drawn cell by cell instead (render_pixel.h: the
 * same bytes): its live cells are counted first (l3dk_population), and
 * when they are few enough for that to be cheaper than the walks, the
 * first kernel only stores each pixel's start, the second offers every
 * live cell to the pixels it may cover (a 64-bit atomicMin a pixel keeps
 * the candidate of fewest steps) and the third paints.  The choice is
 * made on the device, from the count, so the host never waits: the
 * kernels of the path not taken return at once.  It needs 36 bytes a
 * pixel of scratch (l3dk_render_scratch); without them every picture is
 * walked.
 *
 * To time it: life3d --engine cuda --random 1024 -n 1000 --snapshot-every
 * 100 --snapshot-kind render -v against the same run without snapshots
 * (scripts/bench_render). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "base/render_pixel.h"
#include "kernels.h"

namespace {

constexpr unsigned TILE_W = 32, TILE_H = 8;
constexpr unsigned long long PENDING = ~0ull;

static_assert(sizeof(render_view) % 8 == 0, "render_view is copied in 8-byte words");
static_assert(sizeof(render_view) <= 4000, "render_view must fit the kernel parameters");

struct Cells {
	const uint32_t *bits;
	uint64_t ny, w32;
};

/* Where a pixel's walk starts (render_first); face -1: it misses the box. */
struct Start {
	int32_t cell[3], dist[3], face;
};

/* The scratch: the live count, then a key and a start a pixel. */
struct Scratch {
	l3dk_counts *live;
	unsigned long long *keys;
	Start *starts;
	unsigned long long max_live;   /* drawn cell by cell up to this count */
	int shift;                     /* render_key_shift */
};

__device__ __forceinline__ int alive(const Cells &c, const int64_t cell[3])
{
	uint64_t x = (uint64_t)cell[0], y = (uint64_t)cell[1], z = (uint64_t)cell[2];
	return (int)(__ldg(&c.bits[(x * c.ny + y) * c.w32 + (z >> 5)]) >> (z & 31) & 1u);
}

/* The view to shared memory, once a block. */
__device__ __forceinline__ void load_view(const render_view &v, render_view *sv)
{
	const unsigned long long *from = reinterpret_cast<const unsigned long long *>(&v);
	unsigned long long *to = reinterpret_cast<unsigned long long *>(sv);
	for (unsigned k = threadIdx.x; k < sizeof(render_view) / 8; k += blockDim.x)
		to[k] = from[k];
	__syncthreads();
}

__device__ __forceinline__ bool by_cells(const Scratch &s)
{
	return s.starts && s.live->population <= s.max_live;
}

/* The walk a stored start begins (render_enter's speed and step). */
__device__ __forceinline__ void walk_of(const render_view &v, const Start &st, render_walk *w)
{
	for (int k = 0; k < 3; k++) {
		int64_t dir = -v.toward[k];
		w->cell[k] = st.cell[k];
		w->dist[k] = st.dist[k];
		w->speed[k] = dir < 0 ? -dir : dir;
		w->step[k] = dir > 0 ? 1 : -1;
	}
	w->face = st.face;
}

/* Walk each pixel's ray and paint it, or, for a picture drawn cell by
 * cell, store its start. */
__global__ void __launch_bounds__(TILE_W * TILE_H)
render_kernel(render_view v, Cells c, uint64_t tiles_x, uint64_t tiles, uint8_t *rgb,
	      Scratch s)
{
	__shared__ render_view sv;
	load_view(v, &sv);
	bool cells = by_cells(s);
	for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
		uint64_t i = t % tiles_x * TILE_W + threadIdx.x % TILE_W;
		uint64_t j = t / tiles_x * TILE_H + threadIdx.x / TILE_W;
		if (i >= sv.width || j >= sv.height)
			continue;
		render_walk w;
		int hit = render_first(&sv, (uint32_t)i, (uint32_t)j, &w);
		if (cells) {
			uint64_t p = j * sv.width + i;
			Start st;
			for (int k = 0; k < 3; k++) {
				st.cell[k] = (int32_t)w.cell[k];
				st.dist[k] = (int32_t)w.dist[k];
			}
			st.face = hit ? w.face : -1;
			s.starts[p] = st;
			s.keys[p] = PENDING;
			continue;
		}
		while (hit && !alive(c, w.cell))
			hit = render_next(&sv, &w);
		render_paint(&sv, (uint32_t)i, (uint32_t)j, hit, &w,
			     rgb + (j * sv.width + i) * 3);
	}
}

/* Live cell c offered to the pixels it may cover. */
__device__ __forceinline__ void offer(const render_view &v, const Scratch &s, const int64_t c[3])
{
	int64_t i0, i1, j0, j1;
	if (!render_footprint(&v, c, &i0, &i1, &j0, &j1))
		return;
	unsigned long long index =
		((uint64_t)c[0] * v.ny + (uint64_t)c[1]) * v.nz + (uint64_t)c[2];
	for (int64_t j = j0; j <= j1; j++)
		for (int64_t i = i0; i <= i1; i++) {
			uint64_t p = (uint64_t)j * v.width + (uint64_t)i, steps;
			Start st = s.starts[p];
			if (st.face < 0)
				continue;
			render_walk w;
			int face;
			walk_of(v, st, &w);
			if (render_visit(&w, c, &steps, &face))
				atomicMin(&s.keys[p], (unsigned long long)steps << s.shift | index);
		}
}

/* Every live cell, a thread a 32-bit word. */
__global__ void __launch_bounds__(256)
offer_kernel(render_view v, Cells c, uint64_t words, Scratch s)
{
	__shared__ render_view sv;
	if (!by_cells(s))
		return;
	load_view(v, &sv);
	for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < words;
	     k += (uint64_t)gridDim.x * blockDim.x) {
		uint32_t bits = c.bits[k];
		if (!bits)
			continue;
		uint64_t row = k / c.w32;
		int64_t cell[3] = {(int64_t)(row / c.ny), (int64_t)(row % c.ny),
				   (int64_t)(k % c.w32 * 32)};
		int64_t z0 = cell[2];
		for (; bits; bits &= bits - 1) {
			cell[2] = z0 + __ffs(bits) - 1;
			offer(sv, s, cell);
		}
	}
}

/* A picture drawn cell by cell: each pixel painted from its key. */
__global__ void __launch_bounds__(256)
paint_kernel(render_view v, uint8_t *rgb, Scratch s)
{
	__shared__ render_view sv;
	if (!by_cells(s))
		return;
	load_view(v, &sv);
	uint64_t pixels = (uint64_t)sv.width * sv.height;
	for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < pixels;
	     p += (uint64_t)gridDim.x * blockDim.x) {
		Start st = s.starts[p];
		unsigned long long key = s.keys[p];
		render_walk w;
		walk_of(sv, st, &w);
		int hit = st.face >= 0 && key != PENDING;
		if (hit) {
			uint64_t index = key & ((1ull << s.shift) - 1), steps;
			int64_t cell[3] = {(int64_t)(index / sv.nz / sv.ny),
					   (int64_t)(index / sv.nz % sv.ny), (int64_t)(index % sv.nz)};
			int face;
			render_visit(&w, cell, &steps, &face);
			for (int k = 0; k < 3; k++)
				w.cell[k] = cell[k];
			w.face = face;
		}
		render_paint(&sv, (uint32_t)(p % sv.width), (uint32_t)(p / sv.width), hit, &w,
			     rgb + p * 3);
	}
}

constexpr size_t COUNT_BYTES = 256;

unsigned blocks_of(uint64_t items, unsigned threads)
{
	uint64_t b = (items + threads - 1) / threads;
	return (unsigned)(b < 132u * 16 ? (b ? b : 1) : 132u * 16);
}

} /* namespace */

extern "C" size_t l3dk_render_scratch(const struct render_view *v)
{
	if (!render_key_shift(v))
		return 0;
	return COUNT_BYTES + (size_t)v->width * v->height * (sizeof(unsigned long long) + sizeof(Start));
}

extern "C" cudaError_t l3dk_render(const l3dk_plan *p, const void *bits,
				   const struct render_view *v, uint8_t *rgb, void *scratch,
				   size_t scratch_bytes, cudaStream_t s)
{
	if (v->nx != p->nx || v->ny != p->ny || v->nz != p->nz || !v->width || !v->height)
		return cudaErrorInvalidValue;
	Cells c{static_cast<const uint32_t *>(bits), p->ny, p->w32};
	uint64_t pixels = (uint64_t)v->width * v->height;
	Scratch sc{};
	size_t need = l3dk_render_scratch(v);
	if (need && scratch && scratch_bytes >= need) {
		char *base = static_cast<char *>(scratch);
		sc.live = reinterpret_cast<l3dk_counts *>(base);
		sc.keys = reinterpret_cast<unsigned long long *>(base + COUNT_BYTES);
		sc.starts = reinterpret_cast<Start *>(base + COUNT_BYTES + pixels * sizeof(unsigned long long));
		sc.max_live = render_max_live(v);
		sc.shift = render_key_shift(v);
		cudaError_t e = cudaMemsetAsync(sc.live, 0, sizeof *sc.live, s);
		if (e == cudaSuccess)
			e = l3dk_population(p, bits, sc.live, s);
		if (e != cudaSuccess)
			return e;
	}
	uint64_t tiles_x = (v->width + TILE_W - 1) / TILE_W;
	uint64_t tiles = tiles_x * ((v->height + TILE_H - 1) / TILE_H);
	unsigned blocks = (unsigned)(tiles < 65535u * 32 ? tiles : 65535u * 32);
	render_kernel<<<blocks, TILE_W * TILE_H, 0, s>>>(*v, c, tiles_x, tiles, rgb, sc);
	if (!sc.starts)
		return cudaGetLastError();
	uint64_t words = p->nx * p->ny * p->w32;
	offer_kernel<<<blocks_of(words, 256), 256, 0, s>>>(*v, c, words, sc);
	paint_kernel<<<blocks_of(pixels, 256), 256, 0, s>>>(*v, rgb, sc);
	return cudaGetLastError();
}
