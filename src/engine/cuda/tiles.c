/* tiles.c - a GPU engine's tiles and their lists' sizes (see tiles.h). */
#include "tiles.h"

#include "runtime.h"

bool gpu_tiles_make(gpu_tiles *g, const l3dk_plan *p, uint64_t planes, int open, int words,
		    bool clear, size_t *bytes)
{
	void *mem = NULL;
	if (l3dk_tiles_make(p, planes, open, words, &g->t, bytes) != cudaSuccess ||
	    cudaMalloc(&mem, *bytes) != cudaSuccess ||
	    (clear && cudaMemset(mem, 0, *bytes) != cudaSuccess) ||
	    cudaMallocHost((void **)&g->h_size, 2 * sizeof *g->h_size) != cudaSuccess ||
	    cudaEventCreateWithFlags(&g->sized, cudaEventDisableTiming) != cudaSuccess) {
		(void)cudaGetLastError();
		cudaFree(mem);
		return false;
	}
	l3dk_tiles_place(&g->t, mem);
	return true;
}

void gpu_tiles_free(gpu_tiles *g)
{
	cudaFree(g->t.base);
	cudaFreeHost(g->h_size);
	if (g->sized)
		cudaEventDestroy(g->sized);
}

cudaError_t gpu_tiles_start(gpu_tiles *g, cudaStream_t s)
{
	cudaError_t e = l3dk_tiles_reset(&g->t, s);
	if (e != cudaSuccess)
		return e;
	tile_pace_start(&g->pace);
	g->pending = false;
	return cudaSuccess;
}

void gpu_tiles_turn(gpu_tiles *g, uint64_t n)
{
	g->ring = (int)((g->ring + n) % 3);
}

bool gpu_tiles_judge(gpu_tiles *g, uint32_t size)
{
	return tile_pace_judge(&g->pace, size, g->t.count);
}

/* The size of the list the next step reads into h_size[k], queued on s. */
static cudaError_t copy_size(gpu_tiles *g, int k, cudaStream_t s)
{
	return cudaMemcpyAsync(&g->h_size[k], g->t.size[g->ring], sizeof *g->h_size,
			       cudaMemcpyDeviceToHost, s);
}

int gpu_tiles_fresh_size(gpu_tiles *g, cudaStream_t s, uint32_t *size, l3d_err *err)
{
	CUDA_TRY(copy_size(g, 1, s), "reading the tile list");
	CUDA_TRY(cudaStreamSynchronize(s), "stepping the tiles");
	g->pace.fresh--;
	*size = g->h_size[1];
	return L3D_OK;
}

cudaError_t gpu_tiles_size_now(gpu_tiles *g, cudaStream_t s, uint32_t *size)
{
	cudaError_t e = copy_size(g, 1, s);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(s);
	if (e == cudaSuccess)
		*size = g->h_size[1];
	return e;
}

int gpu_tiles_ask(gpu_tiles *g, cudaStream_t s, l3d_err *err)
{
	CUDA_TRY(copy_size(g, 0, s), "reading the tile list");
	CUDA_TRY(cudaEventRecord(g->sized, s), "cudaEventRecord");
	g->pending = true;
	return L3D_OK;
}

cudaError_t gpu_tiles_hear(gpu_tiles *g, bool wait, bool *heard, uint32_t *size)
{
	*heard = false;
	if (!g->pending)
		return cudaSuccess;
	cudaError_t e = wait ? cudaEventSynchronize(g->sized) : cudaEventQuery(g->sized);
	if (!wait && e == cudaErrorNotReady)
		return cudaSuccess;
	if (e != cudaSuccess)
		return e;
	g->pending = false;
	*heard = true;
	*size = g->h_size[0];
	return cudaSuccess;
}
