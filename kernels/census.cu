/* census.cu - the census's soups stepped many at a time: one block a soup.
 *
 * A soup's space is a 64^3 torus in grid layout (grid.h): 64 x 64 rows of
 * one 64-bit word, row x * 64 + y, bit z.  A block loads its soup into
 * shared memory (two 32 KiB buffers), steps a chunk of generations there
 * without touching global memory, and writes it back with what the
 * census judges a chunk's end by (census.h): the population, census_hash
 * (the XOR over live words i of mix64(word ^ mix64(i + 1))) and whether a
 * live cell lies within `edge` cells of a face.  Any Moore rule without
 * birth on 0 (a word whose nine columns are empty stays empty, and is
 * skipped: most of a soup's space is).
 *
 * The count is bit-sliced: each column word and its two z-neighbours (the
 * word rotated by one: the torus in z) make a 2-bit sum; nine of them, the
 * cell's own column included, make a 5-bit total t = neighbours + self.
 * A live cell survives when t - 1 is in S, a dead one is born when t is
 * in B.  Checked against the CPU engine by check_cuda (test_census_batch)
 * and cli_census (the same haul from --engine cpu and cuda). */
#include "kernels.h"

#define BOX 64
#define WORDS (BOX * BOX)
#define THREADS 512

__device__ __forceinline__ uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* t += the 2-bit sum of w and its z-neighbours, on five bit planes. */
__device__ __forceinline__ void add_column(uint64_t w, uint64_t t[5])
{
	uint64_t l = (w << 1) | (w >> 63), r = (w >> 1) | (w << 63);
	uint64_t s0 = w ^ l ^ r, s1 = (w & l) | (w & r) | (l & r);
	uint64_t c1 = t[0] & s0;
	t[0] ^= s0;
	uint64_t u = t[1] ^ s1, c2 = (t[1] & s1) | (u & c1);
	t[1] = u ^ c1;
	uint64_t c3 = t[2] & c2;
	t[2] ^= c2;
	uint64_t c4 = t[3] & c3;
	t[3] ^= c3;
	t[4] |= c4;
}

__device__ __forceinline__ uint64_t next_word(const uint64_t *a, int i, uint32_t birth,
					      uint32_t survive1)
{
	int x = i >> 6, y = i & 63;
	int xs[3] = {(x + 63) & 63, x, (x + 1) & 63}, ys[3] = {(y + 63) & 63, y, (y + 1) & 63};
	uint64_t c[9], any = 0;
	for (int k = 0; k < 9; k++) {
		c[k] = a[xs[k / 3] * BOX + ys[k % 3]];
		any |= c[k];
	}
	if (!any)
		return 0;
	uint64_t t[5] = {0, 0, 0, 0, 0};
	for (int k = 0; k < 9; k++)
		add_column(c[k], t);
	uint64_t self = c[4], res = 0;
	for (int v = 0; v < 28; v++) {
		uint64_t mb = (birth >> v) & 1 ? ~0ULL : 0, ms = (survive1 >> v) & 1 ? ~0ULL : 0;
		if (!(mb | ms))
			continue;
		uint64_t eq = ~0ULL;
		for (int b = 0; b < 5; b++)
			eq &= (v >> b) & 1 ? t[b] : ~t[b];
		res |= eq & ((mb & ~self) | (ms & self));
	}
	return res;
}

__global__ void __launch_bounds__(THREADS) census_chunk(uint64_t *boxes, uint32_t birth,
							uint32_t survive1, unsigned gens,
							unsigned edge, l3dk_census_end *ends)
{
	extern __shared__ uint64_t sm[];
	uint64_t *a = sm, *b = sm + WORDS;
	uint64_t *box = boxes + (size_t)blockIdx.x * WORDS;
	__shared__ unsigned long long pop, hash;
	__shared__ unsigned near;
	if (threadIdx.x == 0) {
		pop = hash = 0;
		near = 0;
	}
	for (int i = threadIdx.x; i < WORDS; i += THREADS)
		a[i] = box[i];
	__syncthreads();
	for (unsigned g = 0; g < gens; g++) {
		for (int i = threadIdx.x; i < WORDS; i += THREADS)
			b[i] = next_word(a, i, birth, survive1);
		__syncthreads();
		uint64_t *s = a;
		a = b;
		b = s;
	}
	uint64_t zmask = edge >= 32 ? ~0ULL : (((1ULL << edge) - 1) | ~(~0ULL >> edge));
	unsigned long long p = 0, h = 0;
	unsigned e = 0;
	for (int i = threadIdx.x; i < WORDS; i += THREADS) {
		uint64_t w = a[i];
		box[i] = w;
		if (!w)
			continue;
		int x = i >> 6, y = i & 63;
		p += __popcll(w);
		h ^= mix64(w ^ mix64((uint64_t)i + 1));
		e |= (unsigned)x < edge || x >= BOX - (int)edge || (unsigned)y < edge ||
		     y >= BOX - (int)edge || (w & zmask) != 0;
	}
	for (int o = 16; o > 0; o >>= 1) {
		p += __shfl_xor_sync(0xffffffffu, p, o);
		h ^= __shfl_xor_sync(0xffffffffu, h, o);
		e |= __shfl_xor_sync(0xffffffffu, e, o);
	}
	if ((threadIdx.x & 31) == 0) {
		atomicAdd(&pop, p);
		atomicXor(&hash, h);
		atomicOr(&near, e);
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		ends[blockIdx.x].population = pop;
		ends[blockIdx.x].hash = hash;
		ends[blockIdx.x].edge = near;
	}
}

extern "C" cudaError_t l3dk_census_chunk(uint64_t *boxes, unsigned n, uint32_t birth,
					 uint32_t survive, unsigned gens, unsigned edge,
					 l3dk_census_end *ends, cudaStream_t stream)
{
	const size_t shared = 2 * WORDS * sizeof(uint64_t);
	cudaError_t e = cudaFuncSetAttribute(census_chunk,
					     cudaFuncAttributeMaxDynamicSharedMemorySize,
					     (int)shared);
	if (e != cudaSuccess || n == 0)
		return e;
	census_chunk<<<n, THREADS, shared, stream>>>(boxes, birth, survive << 1, gens, edge, ends);
	return cudaGetLastError();
}
