/* views.cu - population, projections and slices computed on the device,
 * so a log line or a snapshot never copies the universe back. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"

namespace {

constexpr unsigned FULL = 0xffffffffu;

struct Box {
	const uint32_t *bits;
	uint64_t nx, ny, nz, w32;
};

Box box_of(const l3dk_plan *p, const void *bits)
{
	return Box{static_cast<const uint32_t *>(bits), p->nx, p->ny, p->nz, p->w32};
}

__device__ __forceinline__ uint32_t cell(const Box &b, uint64_t x, uint64_t y, uint64_t z)
{
	return b.bits[(x * b.ny + y) * b.w32 + (z >> 5)] >> (z & 31) & 1u;
}

__device__ __forceinline__ uint64_t thread_index()
{
	return blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
}

__device__ __forceinline__ uint64_t thread_stride()
{
	return (uint64_t)gridDim.x * blockDim.x;
}

__global__ void population_kernel(Box b, l3dk_counts *counts)
{
	uint64_t total = b.nx * b.ny * b.w32, n = 0;
	for (uint64_t i = thread_index(); i < total; i += thread_stride())
		n += __popc(b.bits[i]);
#pragma unroll
	for (int d = 16; d > 0; d >>= 1)
		n += __shfl_xor_sync(FULL, n, d);
	if ((threadIdx.x & 31) == 0 && n)
		atomicAdd(&counts->population, (unsigned long long)n);
}

/* Two universes a and b compared: population a, cells of a not in b
 * (births into a), cells of b not in a (deaths). */
__global__ void compare_kernel(Box a, const uint32_t *b, l3dk_counts *counts)
{
	uint64_t total = a.nx * a.ny * a.w32, n[3] = {0, 0, 0};
	for (uint64_t i = thread_index(); i < total; i += thread_stride()) {
		uint32_t x = a.bits[i], y = b[i];
		n[0] += __popc(x);
		n[1] += __popc(x & ~y);
		n[2] += __popc(y & ~x);
	}
	for (int k = 0; k < 3; k++) {
#pragma unroll
		for (int d = 16; d > 0; d >>= 1)
			n[k] += __shfl_xor_sync(FULL, n[k], d);
	}
	if ((threadIdx.x & 31) == 0) {
		if (n[0])
			atomicAdd(&counts->population, (unsigned long long)n[0]);
		if (n[1])
			atomicAdd(&counts->births, (unsigned long long)n[1]);
		if (n[2])
			atomicAdd(&counts->deaths, (unsigned long long)n[2]);
	}
}

/* Axis z: one thread per (x, y) row, counts[y * nx + x]. */
__global__ void project_z(Box b, uint32_t *counts)
{
	for (uint64_t i = thread_index(); i < b.nx * b.ny; i += thread_stride()) {
		uint64_t x = i % b.nx, y = i / b.nx;
		const uint32_t *row = b.bits + (x * b.ny + y) * b.w32;
		uint32_t n = 0;
		for (uint64_t w = 0; w < b.w32; w++)
			n += __popc(row[w]);
		counts[i] = n;
	}
}

/* Axes x and y: one thread per output pixel (u, z), walking the axis;
 * neighbouring threads read the same word, so each word is fetched once. */
__global__ void project_xy(Box b, int axis, uint32_t *counts)
{
	uint64_t width = axis == 0 ? b.ny : b.nx, along = axis == 0 ? b.nx : b.ny;
	for (uint64_t i = thread_index(); i < width * b.nz; i += thread_stride()) {
		uint64_t z = i % b.nz, u = i / b.nz;
		uint32_t n = 0;
		for (uint64_t k = 0; k < along; k++)
			n += axis == 0 ? cell(b, k, u, z) : cell(b, u, k, z);
		counts[z * width + u] = n;
	}
}

__global__ void slice_kernel(Box b, int axis, uint64_t index, uint8_t *cells)
{
	uint64_t width = axis == 0 ? b.ny : b.nx;
	uint64_t height = axis == 2 ? b.ny : b.nz;
	for (uint64_t i = thread_index(); i < width * height; i += thread_stride()) {
		uint64_t u = i % width, v = i / width, x, y, z;
		switch (axis) {
		case 0: x = index; y = u; z = v; break;
		case 1: x = u; y = index; z = v; break;
		default: x = u; y = v; z = index; break;
		}
		cells[i] = (uint8_t)cell(b, x, y, z);
	}
}

dim3 blocks_for(uint64_t items)
{
	uint64_t b = (items + 255) / 256;
	return dim3((unsigned)(b < 65535 * 32 ? (b ? b : 1) : 65535 * 32));
}

} /* namespace */

extern "C" int l3dk_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess)
		return 0;
	return n;
}

extern "C" cudaError_t l3dk_population(const l3dk_plan *p, const void *bits,
				       l3dk_counts *counts, cudaStream_t s)
{
	Box b = box_of(p, bits);
	population_kernel<<<blocks_for(b.nx * b.ny * b.w32 / 8), 256, 0, s>>>(b, counts);
	return cudaGetLastError();
}

extern "C" cudaError_t l3dk_compare(const l3dk_plan *p, const void *a, const void *b,
				    l3dk_counts *counts, cudaStream_t s)
{
	Box x = box_of(p, a);
	compare_kernel<<<blocks_for(x.nx * x.ny * x.w32 / 8), 256, 0, s>>>(
		x, static_cast<const uint32_t *>(b), counts);
	return cudaGetLastError();
}

extern "C" cudaError_t l3dk_project(const l3dk_plan *p, const void *bits, int axis,
				    uint32_t *counts, cudaStream_t s)
{
	Box b = box_of(p, bits);
	if (axis == 2)
		project_z<<<blocks_for(b.nx * b.ny), 256, 0, s>>>(b, counts);
	else
		project_xy<<<blocks_for((axis == 0 ? b.ny : b.nx) * b.nz), 256, 0, s>>>(b, axis,
											  counts);
	return cudaGetLastError();
}

extern "C" cudaError_t l3dk_slice(const l3dk_plan *p, const void *bits, int axis,
				  uint64_t index, uint8_t *cells, cudaStream_t s)
{
	Box b = box_of(p, bits);
	uint64_t width = axis == 0 ? b.ny : b.nx, height = axis == 2 ? b.ny : b.nz;
	slice_kernel<<<blocks_for(width * height), 256, 0, s>>>(b, axis, index, cells);
	return cudaGetLastError();
}
