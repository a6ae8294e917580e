/* views.h - the CUDA engine's snapshot views: projections, slices and 3D
 * renders computed on the device, behind the steps, from the universe a
 * step left there, their results brought back on a stream of their own
 * into pinned memory while the next steps run.
 *
 * The kernels (views.cu, render.cu) run on the stepping stream, ahead of
 * the next steps, which overwrite what they read; the copy waits for them
 * on the view's stream, and cuda_views_wait hands the result over.  One
 * view at a time: start, then wait, before the next start.  The buffers
 * stay for the next snapshot.  Calls are made with the device current.
 * CUDA builds only. */
#ifndef LIFE3D_ENGINE_CUDA_VIEWS_H
#define LIFE3D_ENGINE_CUDA_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/render.h"
#include "base/status.h"
#include "kernels/kernels.h"

typedef struct cuda_views {
	cudaStream_t copy;           /* the copy to the host */
	cudaEvent_t computed, copied;
	void *dev, *pinned;
	size_t capacity, bytes;
	void *out;                   /* NULL: none pending */
	void *scratch;               /* a render's (l3dk_render_scratch) */
	size_t scratch_bytes;
	bool prepared;               /* scratch holds the per-pixel data of */
	render_view last;            /* ... the last render's view */
} cuda_views;

/* A projection (project) or the slice `index` along `axis` of the
 * universe `bits` (of p's box), for cuda_views_wait to put in out. */
int cuda_views_start(cuda_views *v, const l3dk_plan *p, const void *bits, bool project,
		     int axis, uint64_t index, void *out, cudaStream_t s, l3d_err *err);

/* The per-view part of renders of rv queued ahead, so that the first
 * render does not pay for it. */
int cuda_views_render_prepare(cuda_views *v, const render_view *rv, cudaStream_t s,
			      l3d_err *err);

/* The render rv of `bits`, for cuda_views_wait to put in rgb. */
int cuda_views_render(cuda_views *v, const l3dk_plan *p, const void *bits,
		      const render_view *rv, uint8_t *rgb, cudaStream_t s, l3d_err *err);

/* The view started last, in the caller's memory (nothing when none is
 * pending).  May run on another thread than the steps. */
int cuda_views_wait(cuda_views *v, l3d_err *err);

/* Waits for a copy still under way, and frees everything. */
void cuda_views_free(cuda_views *v);

#endif
