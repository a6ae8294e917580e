/* views.c - the CUDA engine's snapshot views (see views.h). */
#include "views.h"

#include <string.h>

#include "base/grid.h"
#include "runtime.h"

/* Buffers for a view of `bytes`, kept for the next snapshot. */
static int view_buffers(cuda_views *v, size_t bytes, l3d_err *err)
{
	if (!v->copy) {
		CUDA_TRY(cudaStreamCreateWithFlags(&v->copy, cudaStreamNonBlocking),
			 "cudaStreamCreate");
		CUDA_TRY(cudaEventCreateWithFlags(&v->computed, cudaEventDisableTiming),
			 "cudaEventCreate");
		CUDA_TRY(cudaEventCreateWithFlags(&v->copied, cudaEventDisableTiming),
			 "cudaEventCreate");
	}
	if (bytes <= v->capacity)
		return L3D_OK;
	cudaFree(v->dev);
	cudaFreeHost(v->pinned);
	v->dev = v->pinned = NULL;
	v->capacity = 0;
	CUDA_TRY(cudaMalloc(&v->dev, bytes), "allocating a view");
	CUDA_TRY(cudaMallocHost(&v->pinned, bytes), "allocating a view");
	v->capacity = bytes;
	return L3D_OK;
}

/* Once the view's kernel is queued on the stepping stream s: its result
 * (`bytes` of v->dev) to pinned memory on the view's stream, for
 * cuda_views_wait() to take into out.  The next steps need not wait for
 * the copy, nor the copy for them. */
static int view_copy(cuda_views *v, size_t bytes, void *out, cudaStream_t s, l3d_err *err)
{
	CUDA_TRY(cudaEventRecord(v->computed, s), "cudaEventRecord");
	CUDA_TRY(cudaStreamWaitEvent(v->copy, v->computed, 0), "cudaStreamWaitEvent");
	CUDA_TRY(cudaMemcpyAsync(v->pinned, v->dev, bytes, cudaMemcpyDeviceToHost, v->copy),
		 "copying a view");
	CUDA_TRY(cudaEventRecord(v->copied, v->copy), "cudaEventRecord");
	v->bytes = bytes;
	v->out = out;
	return L3D_OK;
}

int cuda_views_start(cuda_views *v, const l3dk_plan *p, const void *bits, bool project,
		     int axis, uint64_t index, void *out, cudaStream_t s, l3d_err *err)
{
	uint64_t width, height;
	grid dims = {.nx = p->nx, .ny = p->ny, .nz = p->nz};
	grid_view_dims(&dims, axis, &width, &height);
	size_t bytes = (size_t)(width * height) * (project ? sizeof(uint32_t) : 1);
	int rc = view_buffers(v, bytes ? bytes : 1, err);
	if (rc)
		return rc;
	cudaError_t k = project ? l3dk_project(p, bits, axis, v->dev, s)
				: l3dk_slice(p, bits, axis, index, v->dev, s);
	CUDA_TRY(k, project ? "computing a projection" : "computing a slice");
	return view_copy(v, bytes, out, s, err);
}

/* The scratch that lets a render of a sparse universe be drawn cell by
 * cell, kept for the next snapshot.  Only a speed-up: without the memory
 * for it every ray is walked. */
static void render_scratch(cuda_views *v, const render_view *rv)
{
	size_t need = l3dk_render_scratch(rv);
	if (need <= v->scratch_bytes)
		return;
	cudaFree(v->scratch);
	v->scratch = NULL;
	v->scratch_bytes = 0;
	v->prepared = false;
	if (cudaMalloc(&v->scratch, need) == cudaSuccess)
		v->scratch_bytes = need;
	else
		(void)cudaGetLastError();
}

/* The buffers for renders of rv; *same: the scratch is ready for rv. */
static int render_buffers(cuda_views *v, const render_view *rv, bool *same, l3d_err *err)
{
	int rc = view_buffers(v, (size_t)rv->width * rv->height * 3, err);
	if (rc)
		return rc;
	render_scratch(v, rv);
	*same = v->prepared && !memcmp(&v->last, rv, sizeof *rv);
	return L3D_OK;
}

int cuda_views_render_prepare(cuda_views *v, const render_view *rv, cudaStream_t s,
			      l3d_err *err)
{
	bool same;
	int rc = render_buffers(v, rv, &same, err);
	if (rc || same)
		return rc;
	CUDA_TRY(l3dk_render_prepare(rv, v->scratch, v->scratch_bytes, s), "preparing renders");
	v->last = *rv;
	v->prepared = true;
	return L3D_OK;
}

/* A render is a view like the others: drawn on the stepping stream, its
 * picture copied back on the view's stream. */
int cuda_views_render(cuda_views *v, const l3dk_plan *p, const void *bits,
		      const render_view *rv, uint8_t *rgb, cudaStream_t s, l3d_err *err)
{
	bool same;
	int rc = render_buffers(v, rv, &same, err);
	if (rc)
		return rc;
	v->prepared = false;
	CUDA_TRY(l3dk_render(p, bits, rv, v->dev, v->scratch, v->scratch_bytes, same, s),
		 "drawing a render");
	v->last = *rv;
	v->prepared = true;
	return view_copy(v, (size_t)rv->width * rv->height * 3, rgb, s, err);
}

int cuda_views_wait(cuda_views *v, l3d_err *err)
{
	if (!v->out)
		return L3D_OK;
	void *out = v->out;
	v->out = NULL;
	CUDA_TRY(cudaEventSynchronize(v->copied), "copying a view");
	memcpy(out, v->pinned, v->bytes);
	return L3D_OK;
}

void cuda_views_free(cuda_views *v)
{
	if (v->copy) {          /* a view's copy may still use its buffers */
		cudaStreamSynchronize(v->copy);
		cudaStreamDestroy(v->copy);
		cudaEventDestroy(v->computed);
		cudaEventDestroy(v->copied);
	}
	cudaFree(v->dev);
	cudaFree(v->scratch);
	cudaFreeHost(v->pinned);
	*v = (cuda_views){0};
}
