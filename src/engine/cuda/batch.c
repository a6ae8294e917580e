/* batch.c - the census's soups on one GPU (batch.h). */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

bool cuda_batch_takes(const rule *r, uint64_t side)
{
	return r->hood == RULE_MOORE && !(r->birth & 1) && side == CUDA_BATCH_SIDE;
}

#ifndef HAVE_CUDA

int cuda_batch_create(int device, uint32_t slots, const rule *r, unsigned edge,
		      cuda_batch **out, l3d_err *err)
{
	(void)device, (void)slots, (void)r, (void)edge;
	*out = NULL;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda' is not built in (configure --with-cuda)");
}
int cuda_batch_put(cuda_batch *b, uint32_t s, const grid *g, l3d_err *err)
{
	(void)b, (void)s, (void)g;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE, "no CUDA batch");
}
int cuda_batch_get(cuda_batch *b, uint32_t s, grid *g, l3d_err *err)
{
	(void)b, (void)s, (void)g;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE, "no CUDA batch");
}
int cuda_batch_step(cuda_batch *b, unsigned gens, cuda_batch_end *ends, l3d_err *err)
{
	(void)b, (void)gens, (void)ends;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE, "no CUDA batch");
}
void cuda_batch_destroy(cuda_batch *b)
{
	(void)b;
}

#else /* HAVE_CUDA */

#include "kernels/kernels.h"
#include "device.h"
#include "runtime.h"

#define SLOT_WORDS ((size_t)CUDA_BATCH_SIDE * CUDA_BATCH_SIDE)

struct cuda_batch {
	int device;
	uint32_t slots;
	rule rule;
	unsigned edge;
	cudaStream_t stream;
	uint64_t *boxes;              /* device: slots x SLOT_WORDS */
	uint64_t *host;               /* pinned: the same */
	l3dk_census_end *ends, *hends;   /* device, pinned */
};

int cuda_batch_create(int device, uint32_t slots, const rule *r, unsigned edge,
		      cuda_batch **out, l3d_err *err)
{
	engine_opts o = {.device = device};
	cuda_batch *b = calloc(1, sizeof *b);
	*out = NULL;
	if (!b)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a GPU batch");
	*b = (cuda_batch){.slots = slots, .rule = *r, .edge = edge};
	size_t bytes = slots * SLOT_WORDS * sizeof(uint64_t), ends = slots * sizeof *b->ends;
	int rc = cuda_pick_device(&o, 0, &b->device, err);
	cudaError_t e = rc ? cudaSuccess : cudaSetDevice(b->device);
	if (!rc && e == cudaSuccess)
		e = cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking);
	if (!rc && e == cudaSuccess)
		e = cudaMalloc((void **)&b->boxes, bytes);
	if (!rc && e == cudaSuccess)
		e = cudaMemset(b->boxes, 0, bytes);
	if (!rc && e == cudaSuccess)
		e = cudaMallocHost((void **)&b->host, bytes);
	if (!rc && e == cudaSuccess)
		e = cudaMalloc((void **)&b->ends, ends);
	if (!rc && e == cudaSuccess)
		e = cudaMallocHost((void **)&b->hends, ends);
	if (!rc && e != cudaSuccess)
		rc = cuda_fail(err, e, "a batch of census soups");
	if (rc) {
		cuda_batch_destroy(b);
		return rc;
	}
	*out = b;
	return L3D_OK;
}

/* put and get may come from any thread (the census's judges): each names
 * the device, which is the calling thread's own setting. */
int cuda_batch_put(cuda_batch *b, uint32_t s, const grid *g, l3d_err *err)
{
	uint64_t *h = b->host + s * SLOT_WORDS;
	CUDA_TRY(cudaSetDevice(b->device), "cudaSetDevice");
	memcpy(h, g->bits, SLOT_WORDS * sizeof *h);
	CUDA_TRY(cudaMemcpyAsync(b->boxes + s * SLOT_WORDS, h, SLOT_WORDS * sizeof *h,
				 cudaMemcpyHostToDevice, b->stream),
		 "a census soup to the GPU");
	return L3D_OK;
}

int cuda_batch_get(cuda_batch *b, uint32_t s, grid *g, l3d_err *err)
{
	CUDA_TRY(cudaSetDevice(b->device), "cudaSetDevice");
	CUDA_TRY(cudaMemcpyAsync(g->bits, b->boxes + s * SLOT_WORDS, SLOT_WORDS * sizeof(uint64_t),
				 cudaMemcpyDeviceToHost, b->stream),
		 "a census soup from the GPU");
	CUDA_TRY(cudaStreamSynchronize(b->stream), "a census soup from the GPU");
	return L3D_OK;
}

int cuda_batch_step(cuda_batch *b, unsigned gens, cuda_batch_end *ends, l3d_err *err)
{
	CUDA_TRY(l3dk_census_chunk(b->boxes, b->slots, b->rule.birth, b->rule.survive, gens,
				   b->edge, b->ends, b->stream),
		 "a census chunk");
	CUDA_TRY(cudaMemcpyAsync(b->hends, b->ends, b->slots * sizeof *b->ends,
				 cudaMemcpyDeviceToHost, b->stream),
		 "a census chunk's ends");
	CUDA_TRY(cudaStreamSynchronize(b->stream), "a census chunk");
	for (uint32_t s = 0; s < b->slots; s++)
		ends[s] = (cuda_batch_end){b->hends[s].population, b->hends[s].hash,
					   b->hends[s].edge != 0};
	return L3D_OK;
}

void cuda_batch_destroy(cuda_batch *b)
{
	if (!b)
		return;
	cudaSetDevice(b->device);
	if (b->stream)
		cudaStreamSynchronize(b->stream);
	cudaFree(b->boxes);
	cudaFree(b->ends);
	cudaFreeHost(b->host);
	cudaFreeHost(b->hends);
	if (b->stream)
		cudaStreamDestroy(b->stream);
	free(b);
}

#endif /* HAVE_CUDA */
