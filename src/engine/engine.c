/* engine.c - the engine interface: calls through the ops table, and the
 * fall-backs (views, renders and rows through a full read-back) for
 * engines that lack an operation; and leaps (leap.h) for engines that
 * hash their universe: every call that reads or replaces the universe
 * first brings the engine to the generation asked for (synced). */
#include "engine.h"

#include "leap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const engine_knobs *engine_knobs_of(const engine_opts *opts)
{
	return engine_knobs_or_default(opts ? opts->knobs : NULL);
}

int engine_kind_of(const engine_opts *opts, engine_kind *out, l3d_err *err)
{
	static const char *const names[] = {"auto", "cpu", "cuda"};
	const char *kind = opts && opts->kind ? opts->kind : "auto";
	for (int k = 0; k < 3; k++)
		if (strcmp(kind, names[k]) == 0) {
			*out = (engine_kind)k;
			return L3D_OK;
		}
	return l3d_fail(err, L3D_ERR_USAGE,
			"unknown engine '%s' (expected auto, cpu or cuda)", kind);
}

int engine_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	if (e->ops->step_hashed)
		return leap_step(e, steps, stats, err);
	return e->ops->step(e, steps, stats, err);
}

/* A lazy leap made real before the universe is read. */
static int synced(engine *e, l3d_err *err)
{
	return e->ops->step_hashed ? leap_sync(e, err) : L3D_OK;
}

bool engine_leap_found(const engine *e, uint64_t *after, uint64_t *period)
{
	if (e->ops->leap_found)
		return e->ops->leap_found(e, after, period);
	return e->ops->step_hashed && leap_found(e, after, period);
}

int engine_load(engine *e, const grid *u, l3d_err *err)
{
	if (u->nx != e->nx || u->ny != e->ny || u->nz != e->nz)
		return l3d_fail(err, L3D_ERR_USAGE,
				"engine '%s': a %llux%llux%llu universe loaded into one of "
				"%llux%llux%llu", e->ops->name, (unsigned long long)u->nx,
				(unsigned long long)u->ny, (unsigned long long)u->nz,
				(unsigned long long)e->nx, (unsigned long long)e->ny,
				(unsigned long long)e->nz);
	if (!e->ops->load)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE,
				"engine '%s' cannot load another universe", e->ops->name);
	int rc = e->ops->load(e, u, err);
	if (!rc && e->ops->step_hashed)
		leap_forget(e);
	return rc;
}

int engine_read(engine *e, grid *out, l3d_err *err)
{
	int rc = synced(e, err);
	return rc ? rc : e->ops->read(e, out, err);
}

/* Views through a full read-back, for engines without their own. */
static int read_back(engine *e, grid *tmp, l3d_err *err)
{
	int rc = synced(e, err);
	if (!rc)
		rc = grid_alloc(tmp, e->nx, e->ny, e->nz, err);
	if (rc)
		return rc;
	rc = e->ops->read(e, tmp, err);
	if (rc)
		grid_free(tmp);
	return rc;
}

int engine_read_rows(engine *e, uint64_t first, uint64_t n, uint64_t *out,
		     l3d_err *err)
{
	uint64_t words = (e->nz + 63) / 64;
	int rc = synced(e, err);
	if (rc)
		return rc;
	grid *g = engine_host_grid(e);
	if (g) {
		memcpy(out, g->bits + first * words, (size_t)(n * words * 8));
		return L3D_OK;
	}
	if (e->ops->read_rows)
		return e->ops->read_rows(e, first, n, out, err);
	/* An engine with neither: correct, but a whole read-back per call. */
	grid tmp;
	rc = read_back(e, &tmp, err);
	if (rc)
		return rc;
	memcpy(out, tmp.bits + first * words, (size_t)(n * words * 8));
	grid_free(&tmp);
	return L3D_OK;
}

int engine_view_start(engine *e, bool project, int axis, uint64_t index,
		      void *out, l3d_err *err)
{
	int rc = synced(e, err);
	if (rc)
		return rc;
	if (e->ops->view_start)
		return e->ops->view_start(e, project, axis, index, out, err);
	return project ? engine_project(e, axis, out, err)
		       : engine_slice(e, axis, index, out, err);
}

int engine_finish(engine *e, l3d_err *err)
{
	return e->ops->finish ? e->ops->finish(e, err) : L3D_OK;
}

int engine_view_wait(engine *e, l3d_err *err)
{
	return e->ops->view_wait ? e->ops->view_wait(e, err) : L3D_OK;
}

int engine_render_start(engine *e, const render_view *v, uint8_t *rgb,
			l3d_err *err)
{
	if (v->nx != e->nx || v->ny != e->ny || v->nz != e->nz)
		return l3d_fail(err, L3D_ERR_USAGE, "engine '%s': a render of another universe",
				e->ops->name);
	int rc = synced(e, err);
	if (rc)
		return rc;
	if (e->ops->render_start)
		return e->ops->render_start(e, v, rgb, err);
	grid tmp = {0};
	const grid *g = engine_host_grid(e);
	if (!g) {
		rc = read_back(e, &tmp, err);
		if (rc)
			return rc;
		g = &tmp;
	}
	render_rows(v, g, 0, v->height, rgb);
	grid_free(&tmp);
	return L3D_OK;
}

int engine_render_prepare(engine *e, const render_view *v, l3d_err *err)
{
	if (v->nx != e->nx || v->ny != e->ny || v->nz != e->nz)
		return l3d_fail(err, L3D_ERR_USAGE, "engine '%s': a render of another universe",
				e->ops->name);
	return e->ops->render_prepare ? e->ops->render_prepare(e, v, err) : L3D_OK;
}

bool engine_renders(const engine *e)
{
	return e->ops->renders ? e->ops->renders(e) : e->ops->render_start != NULL;
}

bool engine_repeats(const engine *e)
{
	return e->ops->repeats && e->ops->repeats(e);
}

int engine_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	int rc = synced(e, err);
	if (rc)
		return rc;
	if (e->ops->project)
		return e->ops->project(e, axis, counts, err);
	grid tmp;
	rc = read_back(e, &tmp, err);
	if (rc)
		return rc;
	grid_project(&tmp, axis, counts);
	grid_free(&tmp);
	return L3D_OK;
}

int engine_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
		 l3d_err *err)
{
	int rc = synced(e, err);
	if (rc)
		return rc;
	if (e->ops->slice)
		return e->ops->slice(e, axis, index, cells, err);
	grid tmp;
	rc = read_back(e, &tmp, err);
	if (rc)
		return rc;
	grid_slice(&tmp, axis, index, cells);
	grid_free(&tmp);
	return L3D_OK;
}

const char *engine_describe(const engine *e)
{
	return e->ops->describe ? e->ops->describe(e) : e->ops->name;
}

grid *engine_host_grid(engine *e)
{
	l3d_err ignored;
	if (!e->ops->host_grid || synced(e, &ignored))
		return NULL;
	return e->ops->host_grid(e);
}

int engine_let_go(engine *e, l3d_err *err)
{
	int rc = synced(e, err);
	if (rc)
		return rc;
	return e->ops->let_go ? e->ops->let_go(e, err) : L3D_OK;
}

void engine_destroy(engine *e)
{
	if (!e)
		return;
	leap_destroy(e);
	e->ops->destroy(e);
}
