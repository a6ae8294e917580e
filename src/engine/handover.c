/* handover.c - see handover.h.
 *
 * While the next engine is not ready, the first one steps in slices of
 * about a millisecond, so the move happens soon after it becomes ready
 * rather than at the end of a long call.  The first engine is kept until
 * the end: a snapshot thread may still be waiting on a view it started. */
#include "handover.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"

typedef struct handover {
	engine base;
	engine *first;
	engine *cur;             /* first, or the engine moved to */
	engine *view_on;         /* where the pending view was started */
	handover_next next;
	bool settled;            /* moved, or known never to move */
	uint64_t slice;          /* steps per call on the first engine */
	uint64_t stepped_first;  /* generations the first engine stepped */
	char desc[448];
} handover;

static int move_over(handover *h, l3d_err *err)
{
	h->settled = true;
	grid tmp = {0};
	const grid *now = engine_host_grid(h->first);
	if (!now) {
		int rc = grid_alloc(&tmp, h->base.nx, h->base.ny, h->base.nz, err);
		if (!rc)
			rc = engine_read(h->first, &tmp, err);
		if (rc) {
			grid_free(&tmp);
			return rc;
		}
		now = &tmp;
	}
	engine *to = NULL;
	l3d_err why = {0, ""};
	int rc = h->next.make(h->next.ctx, now, &to, &why);
	grid_free(&tmp);
	if (rc == L3D_ERR_UNAVAILABLE)
		return L3D_OK;       /* no second engine: the first goes on */
	if (rc) {
		*err = why;
		return rc;
	}
	h->cur = to;
	return L3D_OK;
}

/* The first engine steps until the next is ready, then the rest goes to
 * whichever engine is current.  Counts come from the call with the last
 * step, whichever engine makes it. */
static int handover_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	handover *h = (handover *)e;
	while (steps > 0) {
		if (!h->settled && h->next.ready(h->next.ctx)) {
			int rc = move_over(h, err);
			if (rc)
				return rc;
		}
		if (h->settled)
			return engine_step(h->cur, steps, stats, err);
		uint64_t k = steps < h->slice ? steps : h->slice;
		double t = l3d_seconds();
		int rc = engine_step(h->first, k, k == steps ? stats : NULL, err);
		if (rc)
			return rc;
		double dt = l3d_seconds() - t;
		if (dt < 0.0005 && k == h->slice && h->slice < ((uint64_t)1 << 20))
			h->slice *= 2;
		else if (dt > 0.002 && h->slice > 1)
			h->slice /= 2;
		h->stepped_first += k;
		steps -= k;
	}
	return L3D_OK;
}

static int handover_read(engine *e, grid *out, l3d_err *err)
{
	return engine_read(((handover *)e)->cur, out, err);
}

static int handover_read_rows(engine *e, uint64_t first, uint64_t n, uint64_t *out,
			      l3d_err *err)
{
	return engine_read_rows(((handover *)e)->cur, first, n, out, err);
}

static int handover_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	return engine_project(((handover *)e)->cur, axis, counts, err);
}

static int handover_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
			  l3d_err *err)
{
	return engine_slice(((handover *)e)->cur, axis, index, cells, err);
}

static int handover_view_start(engine *e, bool project, int axis, uint64_t index,
			       void *out, l3d_err *err)
{
	handover *h = (handover *)e;
	h->view_on = h->cur;
	return engine_view_start(h->cur, project, axis, index, out, err);
}

static int handover_finish(engine *e, l3d_err *err)
{
	handover *h = (handover *)e;
	return h->settled ? engine_finish(h->cur, err) : L3D_OK;
}

static int handover_view_wait(engine *e, l3d_err *err)
{
	handover *h = (handover *)e;
	return h->view_on ? engine_view_wait(h->view_on, err) : L3D_OK;
}

static int handover_render_start(engine *e, const render_view *v, uint8_t *rgb,
				 l3d_err *err)
{
	handover *h = (handover *)e;
	h->view_on = h->cur;
	return engine_render_start(h->cur, v, rgb, err);
}

static int handover_render_prepare(engine *e, const render_view *v, l3d_err *err)
{
	return engine_render_prepare(((handover *)e)->cur, v, err);
}

static bool handover_renders(const engine *e)
{
	return engine_renders(((const handover *)e)->cur);
}

static bool handover_repeats(const engine *e)
{
	return engine_repeats(((const handover *)e)->cur);
}

static bool handover_leap_found(const engine *e, uint64_t *after, uint64_t *period)
{
	return engine_leap_found(((const handover *)e)->cur, after, period);
}

static grid *handover_host_grid(engine *e)
{
	return engine_host_grid(((handover *)e)->cur);
}

static const char *handover_describe(const engine *e)
{
	handover *h = (handover *)e;
	if (h->cur == h->first && h->settled)
		return engine_describe(h->first);
	if (h->cur == h->first)
		snprintf(h->desc, sizeof h->desc, "%s while %s starts",
			 engine_describe(h->first), h->next.what);
	else
		snprintf(h->desc, sizeof h->desc, "%s (the first %llu steps on %s)",
			 engine_describe(h->cur),
			 (unsigned long long)h->stepped_first,
			 engine_describe(h->first));
	return h->desc;
}

static void handover_destroy(engine *e)
{
	handover *h = (handover *)e;
	if (h->cur != h->first)
		engine_destroy(h->cur);
	engine_destroy(h->first);
	if (h->next.release)
		h->next.release(h->next.ctx);
	free(h);
}

static const engine_ops handover_ops = {
	.name = "handover",
	.step = handover_step,
	.finish = handover_finish,
	.read = handover_read,
	.read_rows = handover_read_rows,
	.project = handover_project,
	.slice = handover_slice,
	.view_start = handover_view_start,
	.view_wait = handover_view_wait,
	.render_start = handover_render_start,
	.render_prepare = handover_render_prepare,
	.renders = handover_renders,
	.repeats = handover_repeats,
	.leap_found = handover_leap_found,
	.host_grid = handover_host_grid,
	.destroy = handover_destroy,
	.describe = handover_describe,
};

int engine_handover_create(engine *first, handover_next next, engine **out,
			   l3d_err *err)
{
	*out = NULL;
	handover *h = calloc(1, sizeof *h);
	if (!h) {
		engine_destroy(first);
		if (next.release)
			next.release(next.ctx);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	}
	h->base = *first;
	h->base.ops = &handover_ops;
	h->base.leap = NULL;          /* the engines inside leap, not this one */
	h->base.leap_tried = false;
	h->first = h->cur = first;
	h->next = next;
	h->slice = 1;
	*out = &h->base;
	return L3D_OK;
}
