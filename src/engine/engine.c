/* engine.c - engine selection and the fall-backs shared by every engine. */
#include "engine.h"
#include "handover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The CPU engine keeps the universe and one buffer of the same size;
 * refuse before allocating rather than be killed for memory later. */
static int cpu_create_checked(const engine_opts *opts, const grid *initial,
			      row_progress *ready, const rule *r, engine **out,
			      l3d_err *err)
{
	char what[96];
	snprintf(what, sizeof what, "the CPU engine for a %llux%llux%llu universe",
		 (unsigned long long)initial->nx, (unsigned long long)initial->ny,
		 (unsigned long long)initial->nz);
	size_t need = 2 * grid_bytes(initial);
	int rc = host_memory_check(need, what, err);
	return rc ? rc : engine_cpu_create(opts, initial, ready, r, out, err);
}

/* A small universe starts on the CPU while the GPU context is still being
 * created (engine_warm_up) and moves to the GPU once it is: the CPU engine
 * finishes many small runs before a context would be ready, and a universe
 * this small crosses to the device in a millisecond.  Larger ones wait for
 * the GPU, which then takes their rows as they are read: at 512^3 the CPU
 * steps while it waits were worth no more than the move cost (and the
 * busy cores slowed the GPU's set-up), see kernels/NOTES.md.  A device
 * named with --device is checked before the first step, as for any other
 * run, so a wrong one is an error whether or not the run is short. */
#define HANDOVER_MAX_BYTES ((size_t)2 << 20)

/* Only a run that stepped on the CPU while the GPU started leaves that
 * start-up behind at the end; every other run waits for it as usual. */
static bool gpu_started_under_cpu;

typedef struct gpu_later {
	engine_opts opts;
	rule rule;
} gpu_later;

/* Without the NVIDIA driver's control node the probe fails at once, so
 * there is nothing to wait for and no reason to start twice. */
static bool gpu_driver_present(void)
{
	return access("/dev/nvidiactl", F_OK) == 0;
}

static bool gpu_ready(void *ctx)
{
	(void)ctx;
	return !engine_cuda_warming();
}

static int gpu_make(void *ctx, const grid *now, engine **out, l3d_err *err)
{
	gpu_later *g = ctx;
	engine_settle();
	if (engine_cuda_device_count() == 0)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "no GPU");
	return engine_cuda_create(&g->opts, now, NULL, &g->rule, out, err);
}

static int cpu_until_gpu(const engine_opts *opts, const grid *initial,
			 row_progress *ready, const rule *r, engine **out,
			 l3d_err *err)
{
	engine *cpu;
	int rc = cpu_create_checked(opts, initial, ready, r, &cpu, err);
	if (rc)
		return rc;
	gpu_later *g = malloc(sizeof *g);
	if (!g) {
		engine_destroy(cpu);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	}
	g->opts = opts ? *opts : (engine_opts){"auto", 0, -1, NULL};
	g->rule = *r;
	gpu_started_under_cpu = true;
	handover_next next = {gpu_ready, gpu_make, free, g, "the GPU"};
	return engine_handover_create(cpu, next, out, err);
}

int engine_create_streamed(const engine_opts *opts, const grid *initial,
			   row_progress *ready, const rule *r, engine **out,
			   l3d_err *err)
{
	const char *kind = opts && opts->kind ? opts->kind : "auto";
	*out = NULL;
	if (strcmp(kind, "auto") == 0 && (!opts || opts->device < 0) &&
	    engine_cuda_warming() && grid_bytes(initial) <= HANDOVER_MAX_BYTES &&
	    gpu_driver_present())
		return cpu_until_gpu(opts, initial, ready, r, out, err);
	engine_settle();
	if (strcmp(kind, "cpu") == 0)
		return cpu_create_checked(opts, initial, ready, r, out, err);
	if (strcmp(kind, "cuda") == 0)
		return engine_cuda_create(opts, initial, ready, r, out, err);
	if (strcmp(kind, "auto") != 0)
		return l3d_fail(err, L3D_ERR_USAGE,
				"unknown engine '%s' (expected auto, cpu or cuda)",
				kind);
	if (engine_cuda_device_count() > 0) {
		/* Unavailable is decided before any row is taken, so the CPU
		 * engine can still follow the same rows from the start. */
		int rc = engine_cuda_create(opts, initial, ready, r, out, err);
		/* A GPU that is present but cannot take this universe (too
		 * large, busy) is not a reason to fail an auto run. */
		if (rc != L3D_ERR_UNAVAILABLE)
			return rc;
	}
	return cpu_create_checked(opts, initial, ready, r, out, err);
}

int engine_create(const engine_opts *opts, const grid *initial, const rule *r,
		  engine **out, l3d_err *err)
{
	return engine_create_streamed(opts, initial, NULL, r, out, err);
}

void engine_warm_up(const engine_opts *opts)
{
	const char *kind = opts && opts->kind ? opts->kind : "auto";
	if (strcmp(kind, "cpu") != 0)
		engine_cuda_warm_up(opts && opts->device >= 0 ? opts->device : 0);
}

void engine_settle(void)
{
	engine_cuda_settle();
}

void engine_leave(void)
{
	if (gpu_started_under_cpu)
		engine_cuda_leave();
	else
		engine_settle();
}

bool engine_left_behind(void)
{
	return engine_cuda_left_behind();
}

int engine_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	return e->ops->step(e, steps, stats, err);
}

int engine_read(engine *e, grid *out, l3d_err *err)
{
	return e->ops->read(e, out, err);
}

/* Views through a full read-back, for engines without their own. */
static int read_back(engine *e, grid *tmp, l3d_err *err)
{
	int rc = grid_alloc(tmp, e->nx, e->ny, e->nz, err);
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
	grid *g = engine_host_grid(e);
	if (g) {
		memcpy(out, g->bits + first * words, (size_t)(n * words * 8));
		return L3D_OK;
	}
	if (e->ops->read_rows)
		return e->ops->read_rows(e, first, n, out, err);
	/* An engine with neither: correct, but a whole read-back per call. */
	grid tmp;
	int rc = read_back(e, &tmp, err);
	if (rc)
		return rc;
	memcpy(out, tmp.bits + first * words, (size_t)(n * words * 8));
	grid_free(&tmp);
	return L3D_OK;
}

int engine_view_start(engine *e, bool project, int axis, uint64_t index,
		      void *out, l3d_err *err)
{
	if (e->ops->view_start)
		return e->ops->view_start(e, project, axis, index, out, err);
	return project ? engine_project(e, axis, out, err)
		       : engine_slice(e, axis, index, out, err);
}

int engine_view_wait(engine *e, l3d_err *err)
{
	return e->ops->view_wait ? e->ops->view_wait(e, err) : L3D_OK;
}

int engine_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	if (e->ops->project)
		return e->ops->project(e, axis, counts, err);
	grid tmp;
	int rc = read_back(e, &tmp, err);
	if (rc)
		return rc;
	grid_project(&tmp, axis, counts);
	grid_free(&tmp);
	return L3D_OK;
}

int engine_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
		 l3d_err *err)
{
	if (e->ops->slice)
		return e->ops->slice(e, axis, index, cells, err);
	grid tmp;
	int rc = read_back(e, &tmp, err);
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
	return e->ops->host_grid ? e->ops->host_grid(e) : NULL;
}

void engine_destroy(engine *e)
{
	if (e)
		e->ops->destroy(e);
}
