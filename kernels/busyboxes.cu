/* busyboxes.cu - one generation of Golly's BusyBoxes rules: a thread a
 * 64-bit word of the universe (grid layout), as engine/busyboxes.c steps
 * the CPU's and with its table (base/bbtable.h).
 *
 * A thread takes the live cells of its word.  Those of the other parity
 * than the phase's stay; each of the phase's parity reads its 28 cells in
 * the phase's plane and moves to the diagonal site of its one possible
 * swap when that site is empty (and, for BusyBoxes, inside the universe).
 * Each cell is ORed into `next` where it ends, which the caller cleared:
 * the CPU engine sets the same bits, so the two agree whatever the order.
 * Most words of a Golly pattern's universe are empty and cost one load.
 * Checked against the CPU engine by check_cuda (busyboxes_agree). */
#include "kernels.h"

struct bb_box {
	uint64_t n[3], words;
};

__device__ __forceinline__ uint64_t wrap_at(uint64_t at, int d, uint64_t n)
{
	int64_t v = ((int64_t)at + d) % (int64_t)n;
	return (uint64_t)(v < 0 ? v + (int64_t)n : v);
}

__device__ __forceinline__ bool cell_at(const uint64_t *g, const bb_box &b, const uint64_t c[3])
{
	return (g[(c[0] * b.n[1] + c[1]) * b.words + c[2] / 64] >> (c[2] % 64)) & 1;
}

__device__ __forceinline__ void set_at(uint64_t *g, const bb_box &b, const uint64_t c[3])
{
	atomicOr((unsigned long long *)&g[(c[0] * b.n[1] + c[1]) * b.words + c[2] / 64],
		 1ULL << (c[2] % 64));
}

/* Where the live cell at c goes (c itself if it stays), as the CPU's
 * move_of: bb_swap_of over the 28 cells in the phase's plane. */
__device__ void move_of(const bb_table &t, const uint64_t *g, const bb_box &b,
			uint64_t c[3], int ua, int ub, bool mirror)
{
	uint32_t live = 0;
	for (int i = 0; i < t.n; i++) {
		uint64_t p[3] = {c[0], c[1], c[2]};
		p[ua] = wrap_at(c[ua], t.off[i][0], b.n[ua]);
		p[ub] = wrap_at(c[ub], t.off[i][1], b.n[ub]);
		live |= (uint32_t)cell_at(g, b, p) << i;
	}
	int site = bb_swap_of(&t, live);
	if (site < 0)
		return;
	int da = t.off[site][0], db = t.off[site][1];
	int64_t a = (int64_t)c[ua] + da, bb = (int64_t)c[ub] + db;
	if (mirror && (a < 0 || bb < 0 || (uint64_t)a >= b.n[ua] || (uint64_t)bb >= b.n[ub]))
		return;
	c[ua] = wrap_at(c[ua], da, b.n[ua]);
	c[ub] = wrap_at(c[ub], db, b.n[ub]);
}

__global__ void bb_step(const uint64_t *cur, uint64_t *next, bb_box b, bb_table t,
			unsigned phase, bool mirror, unsigned long long *moved)
{
	uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= b.n[0] * b.n[1] * b.words)
		return;
	uint64_t v = cur[i];
	if (!v)
		return;
	uint64_t row = i / b.words, w = i % b.words, x = row / b.n[1], y = row % b.n[1];
	/* the bits of z of the phase's parity: x + y + z = phase mod 2 */
	uint64_t movers = v & (((x + y + phase) & 1) ? 0xaaaaaaaaaaaaaaaaULL : 0x5555555555555555ULL);
	if (v & ~movers)
		atomicOr((unsigned long long *)&next[i], v & ~movers);
	static const int axes[3][2] = {{0, 1}, {1, 2}, {0, 2}};   /* XY, YZ, XZ */
	int ua = axes[phase % 3][0], ub = axes[phase % 3][1];
	unsigned long long went = 0;
	for (; movers; movers &= movers - 1) {
		uint64_t c[3] = {x, y, w * 64 + (uint64_t)__ffsll((long long)movers) - 1};
		uint64_t z = c[2];
		move_of(t, cur, b, c, ua, ub, mirror);
		went += c[0] != x || c[1] != y || c[2] != z;
		set_at(next, b, c);
	}
	if (went && moved)
		atomicAdd(moved, went);
}

__global__ void bb_population(const uint64_t *g, uint64_t n, unsigned long long *population)
{
	unsigned long long sum = 0;
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		sum += (unsigned long long)__popcll(g[i]);
	for (int o = 16; o > 0; o /= 2)
		sum += __shfl_down_sync(0xffffffffu, sum, o);
	if ((threadIdx.x & 31) == 0 && sum)
		atomicAdd(population, sum);
}

#define BB_THREADS 256

extern "C" cudaError_t l3dk_busyboxes_step(const uint64_t *cur, uint64_t *next, uint64_t nx,
					   uint64_t ny, uint64_t nz, const bb_table *table,
					   unsigned phase, int mirror, l3dk_counts *counts,
					   cudaStream_t s)
{
	bb_box b = {{nx, ny, nz}, (nz + 63) / 64};
	uint64_t words = nx * ny * b.words;
	cudaError_t e = cudaMemsetAsync(next, 0, words * 8, s);
	if (e != cudaSuccess)
		return e;
	uint64_t blocks = (words + BB_THREADS - 1) / BB_THREADS;
	bb_step<<<(unsigned)blocks, BB_THREADS, 0, s>>>(cur, next, b, *table, phase % 6,
							 mirror != 0,
							 counts ? &counts->births : NULL);
	e = cudaGetLastError();
	if (e != cudaSuccess || !counts)
		return e;
	return l3dk_busyboxes_population(next, words, counts, s);
}

extern "C" cudaError_t l3dk_busyboxes_population(const uint64_t *g, uint64_t words,
						 l3dk_counts *counts, cudaStream_t s)
{
	uint64_t blocks = (words + BB_THREADS - 1) / BB_THREADS;
	unsigned grid = (unsigned)(blocks < 1024 ? blocks : 1024);
	bb_population<<<grid, BB_THREADS, 0, s>>>(g, words, &counts->population);
	return cudaGetLastError();
}
