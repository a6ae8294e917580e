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
 * same bytes).  What depends on the view alone is kept in the scratch from
 * one picture to the next: each pixel's start (where its walk enters the
 * box) and the box edge over it, stored once a view by prepare_kernel,
 * which also sets every pixel's key pending.  A picture then takes three
 * kernels.  The first lists the live cells (a block's cells appended
 * together, one atomicAdd a block) and counts them; when they are few
 * enough for drawing cell by cell to be cheaper than the walks (and for
 * the list), the second offers every listed cell to the pixels it may
 * cover (a 64-bit atomicMin a pixel keeps the candidate of fewest steps),
 * a thread a cell, and the third paints, setting the keys it used pending
 * again for the next picture.  The choice is made on the device, from the
 * count, so the host never waits: the kernels of the path not taken
 * return at once (the walks when the cells are drawn, the offers and the
 * paint when the rays are walked).  The scratch (l3dk_render_scratch) is
 * 40 bytes a pixel for keys and starts and 16 a listed cell, up to two
 * cells a pixel; without it every picture is walked.
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

/* Where a pixel's walk starts (render_first); face -1: it misses the box.
 * And the box edge over the pixel (render_edge_at).  32 bytes, read as two
 * 16-byte loads. */
struct __align__(16) Start {
	int32_t cell[3], dist[3], face, edge;
};

/* A live cell of the list. */
struct __align__(16) Cell {
	uint32_t x, y, z, pad;
};

/* The scratch: the live count, then a key and a start a pixel, then the
 * list of live cells. */
struct Scratch {
	unsigned long long *live;
	unsigned long long *keys;
	Start *starts;
	Cell *cells;
	unsigned long long max_live;   /* drawn cell by cell up to this count,
	                                  which the list holds */
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
	return s.starts && *s.live <= s.max_live;
}

/* The walk a stored start begins. */
__device__ __forceinline__ void walk_of(const render_view &v, const Start &st, render_walk *w)
{
	render_direction(&v, w);
	for (int k = 0; k < 3; k++) {
		w->cell[k] = st.cell[k];
		w->dist[k] = st.dist[k];
	}
	w->face = st.face;
}

/* Once a view: each pixel's start and edge, and its key pending. */
__global__ void __launch_bounds__(256)
prepare_kernel(render_view v, Scratch s)
{
	__shared__ render_view sv;
	load_view(v, &sv);
	uint64_t pixels = (uint64_t)sv.width * sv.height;
	for (uint64_t p = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; p < pixels;
	     p += (uint64_t)gridDim.x * blockDim.x) {
		uint32_t i = (uint32_t)(p % sv.width), j = (uint32_t)(p / sv.width);
		render_walk w;
		int hit = render_first(&sv, i, j, &w);
		Start st;
		for (int k = 0; k < 3; k++) {
			st.cell[k] = (int32_t)w.cell[k];
			st.dist[k] = (int32_t)w.dist[k];
		}
		st.face = hit ? w.face : -1;
		st.edge = render_edge_at(&sv, i, j);
		s.starts[p] = st;
		s.keys[p] = PENDING;
	}
}

/* Walk each pixel's ray and paint it, unless the picture is drawn cell by
 * cell. */
__global__ void __launch_bounds__(TILE_W * TILE_H)
render_kernel(render_view v, Cells c, uint64_t tiles_x, uint64_t tiles, uint8_t *rgb,
	      Scratch s)
{
	__shared__ render_view sv;
	if (by_cells(s))
		return;
	load_view(v, &sv);
	for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
		uint64_t i = t % tiles_x * TILE_W + threadIdx.x % TILE_W;
		uint64_t j = t / tiles_x * TILE_H + threadIdx.x / TILE_W;
		if (i >= sv.width || j >= sv.height)
			continue;
		render_walk w;
		int hit = render_first(&sv, (uint32_t)i, (uint32_t)j, &w);
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

/* The live cells listed (up to max_live of them) and counted.  A thread
 * takes eight 64-bit words (grid layout: rows of w64 words) a round, a
 * warp's loads falling on consecutive words, and a block its 2048 words
 * with one atomicAdd: one a warp made the count's address the bottleneck
 * (at 1024^3 on an H200, 4 words a thread took 87 us, 8 82 us, 16 98 us).
 * The rounds are the same for every thread of a block, so its counts are
 * summed with shuffles and shared memory.  The list's order is of no
 * consequence: a pixel keeps the least key whatever the order of offers. */
constexpr unsigned COLLECT_THREADS = 256, COLLECT_WORDS = 8;

/* a / b and a % b, in 32 bits where both fit (a GPU divides 64-bit
 * integers in a long subroutine). */
__device__ __forceinline__ void divide(uint64_t a, uint64_t b, uint64_t *q, uint64_t *r)
{
	if ((a | b) >> 32 == 0) {
		uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
		*q = a32 / b32;
		*r = a32 % b32;
	} else {
		*q = a / b;
		*r = a % b;
	}
}

__device__ __forceinline__ void list_word(const Scratch &s, unsigned long long w, uint64_t k,
					  uint64_t w64, uint64_t ny, unsigned long long at)
{
	uint64_t row, word, x, y;
	divide(k, w64, &row, &word);
	divide(row, ny, &x, &y);
	Cell c{(uint32_t)x, (uint32_t)y, 0, 0};
	uint32_t z0 = (uint32_t)(word * 64);
	for (; w; w &= w - 1, at++) {
		c.z = z0 + __ffsll((long long)w) - 1;
		s.cells[at] = c;
	}
}

__global__ void __launch_bounds__(COLLECT_THREADS)
collect_kernel(const unsigned long long *bits, uint64_t words, uint64_t w64, uint64_t ny,
	       Scratch s)
{
	__shared__ unsigned warp_sum[COLLECT_THREADS / 32];
	__shared__ unsigned long long block_base;
	const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
	const uint64_t per_block = (uint64_t)COLLECT_THREADS * COLLECT_WORDS;
	for (uint64_t at = blockIdx.x * per_block; at < words; at += gridDim.x * per_block) {
		uint64_t k = at + threadIdx.x;
		unsigned long long w[COLLECT_WORDS];
		unsigned n = 0;
		for (unsigned j = 0; j < COLLECT_WORDS; j++) {
			uint64_t kj = k + (uint64_t)j * COLLECT_THREADS;
			w[j] = kj < words ? __ldg(&bits[kj]) : 0;
			n += __popcll(w[j]);
		}
		unsigned before = n;             /* inclusive, within the warp */
		for (unsigned d = 1; d < 32; d *= 2) {
			unsigned up = __shfl_up_sync(0xffffffffu, before, d);
			before += lane >= d ? up : 0;
		}
		if (lane == 31)
			warp_sum[warp] = before;
		__syncthreads();
		if (threadIdx.x == 0) {
			unsigned total = 0;
			for (unsigned i = 0; i < COLLECT_THREADS / 32; i++) {
				unsigned t = warp_sum[i];
				warp_sum[i] = total;     /* now the warp's offset */
				total += t;
			}
			block_base = total ? atomicAdd(s.live, (unsigned long long)total) : 0;
		}
		__syncthreads();
		unsigned long long base = block_base + warp_sum[warp] + before - n;
		__syncthreads();                 /* warp_sum is reused next round */
		if (!n || base + n > s.max_live)
			continue;
		for (unsigned j = 0; j < COLLECT_WORDS; j++) {
			if (w[j])
				list_word(s, w[j], k + (uint64_t)j * COLLECT_THREADS, w64, ny, base);
			base += __popcll(w[j]);
		}
	}
}

/* Every listed cell, a thread a cell. */
__global__ void __launch_bounds__(256)
offer_kernel(render_view v, Scratch s)
{
	__shared__ render_view sv;
	if (!by_cells(s))
		return;
	load_view(v, &sv);
	unsigned long long n = *s.live;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		Cell c = s.cells[i];
		int64_t cell[3] = {c.x, c.y, c.z};
		offer(sv, s, cell);
	}
}

/* A picture drawn cell by cell: each pixel painted from its key, which
 * is left pending for the next picture. */
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
		int hit = key != PENDING;
		if (hit) {
			s.keys[p] = PENDING;
			walk_of(sv, st, &w);
			render_at_key(&sv, s.shift, key, &w);
		}
		render_paint_edge(&sv, st.edge, hit, &w, rgb + p * 3);
	}
}

constexpr size_t COUNT_BYTES = 256;

/* Each part of the scratch starts on a 256-byte boundary. */
size_t aligned(size_t bytes)
{
	return (bytes + 255) & ~(size_t)255;
}

/* Cells the list holds for a picture: those worth drawing cell by cell,
 * but no more than two a pixel. */
uint64_t list_cells(const render_view *v)
{
	uint64_t most = render_max_live(v), two = 2 * (uint64_t)v->width * v->height;
	return most < two ? most : two;
}

unsigned blocks_of(uint64_t items, unsigned threads)
{
	uint64_t b = (items + threads - 1) / threads;
	return (unsigned)(b < 132u * 16 ? (b ? b : 1) : 132u * 16);
}

size_t scratch_bytes_of(const render_view *v)
{
	if (!render_key_shift(v))
		return 0;
	size_t pixels = (size_t)v->width * v->height;
	return COUNT_BYTES + aligned(pixels * sizeof(unsigned long long)) +
	       aligned(pixels * sizeof(Start)) + (size_t)list_cells(v) * sizeof(Cell);
}

/* The scratch's parts for view v; false (sc all null) when there is no
 * scratch or too little. */
bool split(const render_view *v, void *scratch, size_t scratch_bytes, Scratch *sc)
{
	*sc = Scratch{};
	size_t need = scratch_bytes_of(v);
	if (!need || !scratch || scratch_bytes < need)
		return false;
	uint64_t pixels = (uint64_t)v->width * v->height;
	char *base = static_cast<char *>(scratch);
	size_t keys = COUNT_BYTES, starts = keys + aligned(pixels * sizeof(unsigned long long));
	size_t cells = starts + aligned(pixels * sizeof(Start));
	sc->live = reinterpret_cast<unsigned long long *>(base);
	sc->keys = reinterpret_cast<unsigned long long *>(base + keys);
	sc->starts = reinterpret_cast<Start *>(base + starts);
	sc->cells = reinterpret_cast<Cell *>(base + cells);
	sc->max_live = list_cells(v);
	sc->shift = render_key_shift(v);
	return true;
}

} /* namespace */

extern "C" size_t l3dk_render_scratch(const struct render_view *v)
{
	return scratch_bytes_of(v);
}

extern "C" cudaError_t l3dk_render_prepare(const struct render_view *v, void *scratch,
					   size_t scratch_bytes, cudaStream_t s)
{
	Scratch sc;
	if (!v->width || !v->height)
		return cudaErrorInvalidValue;
	if (split(v, scratch, scratch_bytes, &sc))
		prepare_kernel<<<blocks_of((uint64_t)v->width * v->height, 256), 256, 0, s>>>(*v, sc);
	return cudaGetLastError();
}

extern "C" cudaError_t l3dk_render(const l3dk_plan *p, const void *bits,
				   const struct render_view *v, uint8_t *rgb, void *scratch,
				   size_t scratch_bytes, int prepared, cudaStream_t s)
{
	if (v->nx != p->nx || v->ny != p->ny || v->nz != p->nz || !v->width || !v->height)
		return cudaErrorInvalidValue;
	Cells c{static_cast<const uint32_t *>(bits), p->ny, p->w32};
	uint64_t pixels = (uint64_t)v->width * v->height;
	Scratch sc;
	if (split(v, scratch, scratch_bytes, &sc)) {
		cudaError_t e = cudaMemsetAsync(sc.live, 0, sizeof *sc.live, s);
		if (e != cudaSuccess)
			return e;
		if (!prepared)
			prepare_kernel<<<blocks_of(pixels, 256), 256, 0, s>>>(*v, sc);
		uint64_t words = (uint64_t)p->nx * p->ny * (p->w32 / 2);
		collect_kernel<<<blocks_of(words / COLLECT_WORDS, COLLECT_THREADS), COLLECT_THREADS, 0, s>>>(
			static_cast<const unsigned long long *>(bits), words, p->w32 / 2, p->ny, sc);
	}
	uint64_t tiles_x = (v->width + TILE_W - 1) / TILE_W;
	uint64_t tiles = tiles_x * ((v->height + TILE_H - 1) / TILE_H);
	unsigned blocks = (unsigned)(tiles < 65535u * 32 ? tiles : 65535u * 32);
	render_kernel<<<blocks, TILE_W * TILE_H, 0, s>>>(*v, c, tiles_x, tiles, rgb, sc);
	if (!sc.starts)
		return cudaGetLastError();
	offer_kernel<<<blocks_of(sc.max_live, 256), 256, 0, s>>>(*v, sc);
	paint_kernel<<<blocks_of(pixels, 256), 256, 0, s>>>(*v, rgb, sc);
	return cudaGetLastError();
}
