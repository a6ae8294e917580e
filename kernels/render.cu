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
 * To time it: life3d --engine cuda --random 1024 -n 1000 --snapshot-every
 * 100 --snapshot-kind render -v against the same run without snapshots
 * (scripts/bench_render). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "base/render_pixel.h"
#include "kernels.h"

namespace {

constexpr unsigned TILE_W = 32, TILE_H = 8;

static_assert(sizeof(render_view) % 8 == 0, "render_view is copied in 8-byte words");
static_assert(sizeof(render_view) <= 4000, "render_view must fit the kernel parameters");

struct Cells {
	const uint32_t *bits;
	uint64_t ny, w32;
};

__device__ __forceinline__ int alive(const Cells &c, const int64_t cell[3])
{
	uint64_t x = (uint64_t)cell[0], y = (uint64_t)cell[1], z = (uint64_t)cell[2];
	return (int)(__ldg(&c.bits[(x * c.ny + y) * c.w32 + (z >> 5)]) >> (z & 31) & 1u);
}

__global__ void __launch_bounds__(TILE_W * TILE_H)
render_kernel(render_view v, Cells c, uint64_t tiles_x, uint64_t tiles, uint8_t *rgb)
{
	__shared__ render_view sv;
	const unsigned long long *from = reinterpret_cast<const unsigned long long *>(&v);
	unsigned long long *to = reinterpret_cast<unsigned long long *>(&sv);
	for (unsigned k = threadIdx.x; k < sizeof(render_view) / 8; k += blockDim.x)
		to[k] = from[k];
	__syncthreads();
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

} /* namespace */

extern "C" cudaError_t l3dk_render(const l3dk_plan *p, const void *bits,
				   const struct render_view *v, uint8_t *rgb, cudaStream_t s)
{
	if (v->nx != p->nx || v->ny != p->ny || v->nz != p->nz || !v->width || !v->height)
		return cudaErrorInvalidValue;
	Cells c{static_cast<const uint32_t *>(bits), p->ny, p->w32};
	uint64_t tiles_x = (v->width + TILE_W - 1) / TILE_W;
	uint64_t tiles = tiles_x * ((v->height + TILE_H - 1) / TILE_H);
	unsigned blocks = (unsigned)(tiles < 65535u * 32 ? tiles : 65535u * 32);
	render_kernel<<<blocks, TILE_W * TILE_H, 0, s>>>(*v, c, tiles_x, tiles, rgb);
	return cudaGetLastError();
}
