/* engine_ops.h - what an engine is made of: the counts it reports, the
 * options it is made with, the operations it implements and the head
 * every engine embeds.  Callers use engine.h's calls, which include this;
 * the engines (cpu/, cuda/, ../mpi/) fill an engine_ops, and engine.c and
 * leap.c call through it. */
#ifndef LIFE3D_ENGINE_OPS_H
#define LIFE3D_ENGINE_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/grid.h"
#include "base/progress.h"
#include "base/render.h"
#include "base/rule.h"
#include "base/status.h"
#include "knobs.h"

typedef struct engine engine;

typedef struct engine_stats {
	uint64_t population;
	uint64_t births;
	uint64_t deaths;
} engine_stats;

typedef enum engine_kind { ENGINE_AUTO, ENGINE_CPU, ENGINE_CUDA } engine_kind;

typedef struct engine_opts {
	const char *kind;      /* "auto", "cpu" or "cuda" */
	int threads;           /* CPU threads; 0 = cpu_count() (base/pool.h) */
	int device;            /* CUDA device index; -1 = default */
	const char *simd;      /* CPU path: "auto", "avx512", "avx2", "portable";
	                          NULL = auto (then knobs->simd) */
	double work;           /* cell updates the run will ask for (cells x
	                          steps), for auto's choice; 0 = unknown */
	double steps;          /* and the steps among them; 0 = unknown */
	const rule *rule;      /* the run's rule, for auto's choice; NULL = B6/S567 */
	uint64_t ny, nz;       /* the universe's rows and row length, for auto's
	                          choice; 0 = unknown */
	const engine_knobs *knobs;   /* the environment's knobs; NULL = none */
	uint64_t host_later;   /* host memory this process will take after the
	                          engine is made (pictures, a gathered result),
	                          which an engine that checks its own memory
	                          counts with its own; 0 = none */
} engine_opts;

/* Operations an engine implements.  Everything but step, read and destroy
 * is optional: engine.c falls back on reading the universe back. */
typedef struct engine_ops {
	const char *name;
	int (*step)(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err);
	/* wait for steps still running (NULL: step never leaves any) */
	int (*finish)(engine *e, l3d_err *err);
	int (*read)(engine *e, grid *out, l3d_err *err);
	/* rows [first, first + n) (row x * ny + y) into out, in grid layout */
	int (*read_rows)(engine *e, uint64_t first, uint64_t n, uint64_t *out,
			 l3d_err *err);
	int (*project)(engine *e, int axis, uint32_t *counts, l3d_err *err);
	int (*slice)(engine *e, int axis, uint64_t index, uint8_t *cells,
		     l3d_err *err);
	/* a projection (uint32_t counts) or slice (uint8_t cells) that may
	 * still be on its way into out when view_start returns */
	int (*view_start)(engine *e, bool project, int axis, uint64_t index,
			  void *out, l3d_err *err);
	int (*view_wait)(engine *e, l3d_err *err);
	/* a 3D render drawn by the engine, which may still be on its way into
	 * rgb when render_start returns (view_wait waits for it as for a
	 * view); and whether the engine draws one now (NULL: whether
	 * render_start is there); optional: ready for renders of v
	 * (engine_render_prepare) */
	int (*render_start)(engine *e, const render_view *v, uint8_t *rgb,
			    l3d_err *err);
	bool (*renders)(const engine *e);
	int (*render_prepare)(engine *e, const render_view *v, l3d_err *err);
	void (*destroy)(engine *e);
	/* the engine's own universe when it lives in host memory in grid
	 * layout (lets the result be written without a copy) */
	grid *(*host_grid)(engine *e);
	/* short description for the summary line, e.g. "cpu/avx512 x2" */
	const char *(*describe)(const engine *e);
	/* optional: engine_let_go */
	int (*let_go)(engine *e, l3d_err *err);
	/* optional: engine_repeats (NULL: never known) */
	bool (*repeats)(const engine *e);
	/* optional: engine_load (NULL: L3D_ERR_UNAVAILABLE) */
	int (*load)(engine *e, const grid *u, l3d_err *err);
	/* optional, for leaps (leap.h): step as step does, and write the
	 * universe's hash after each generation into hashes[0 .. steps)
	 * (equal universes hash alike; 0: not known then); or, before any
	 * step, L3D_ERR_UNAVAILABLE when the engine keeps no hash
	 * (LIFE3D_LEAP=0, LIFE3D_SKIP=0).  With it come mark (set the
	 * current universe aside; L3D_ERR_RUNTIME when memory is short),
	 * same_as_mark (the current universe is the one set aside) and
	 * leapt_over (steps that were leapt, for describe's tally). */
	int (*step_hashed)(engine *e, uint64_t steps, engine_stats *stats,
			   uint64_t *hashes, l3d_err *err);
	int (*mark)(engine *e, l3d_err *err);
	bool (*same_as_mark)(engine *e);
	void (*leapt_over)(engine *e, uint64_t steps);
	/* optional: engine_leap_found for an engine that wraps others */
	bool (*leap_found)(const engine *e, uint64_t *after, uint64_t *period);
} engine_ops;

/* The common head of every engine; implementations embed it first. */
struct engine {
	const engine_ops *ops;
	uint64_t nx, ny, nz;
	rule rule;
	struct leap *leap;         /* engine.c's (leap.h); zero at creation */
	bool leap_tried;
};

#endif
