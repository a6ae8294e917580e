/* engine.h - the one interface every engine (CPU, CUDA, MPI) sits behind.
 * Which engine runs is chosen elsewhere (choose.h); the engines themselves
 * live in cpu/, cuda/ and ../mpi/.
 *
 * Callers create an engine from a universe and a rule, step it, ask for
 * counts, views and the universe back, and destroy it; they cannot tell
 * which engine runs.  An engine owns its own copy of the universe (on the
 * GPU, in slabs across ranks, ...), so the caller's grid may be freed after
 * engine_create().  The universe may also be handed over while it is still
 * being read (engine_create_streamed), and read back a run of rows at a
 * time (engine_read_rows), so that file I/O overlaps the transfers.
 *
 * Steps on a device may still be running when engine_step() returns
 * without counts (it waits for the call before it instead): everything
 * that reads the universe afterwards comes after them, a failure of
 * theirs is reported by the next call, and engine_finish() waits for
 * them.
 *
 * Counting: when engine_step() is given a stats pointer, the engine reports
 * the population of the universe after the last step, and the births and
 * deaths of that last step (cells dead at generation g-1 and alive at g, and
 * the reverse).  Engines compute them in the same pass as the step where
 * they can, so a log line costs no extra pass over the universe. */
#ifndef LIFE3D_ENGINE_H
#define LIFE3D_ENGINE_H

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
	int threads;           /* CPU threads; 0 = all cores */
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

/* opts's knobs, or the defaults (opts or its knobs NULL).  Activity
 * skipping (each engine's own) is on unless knobs->dense (LIFE3D_SKIP=0)
 * asks for dense stepping, for comparison. */
const engine_knobs *engine_knobs_of(const engine_opts *opts);

int engine_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err);
/* Another universe of the engine's sizes in place of the current one, so
 * that one engine (its threads, compiled rule, device buffers and graphs,
 * made once) steps many: the steps still running are waited for, u is
 * copied in, and what the engine learnt of the universe before (its
 * tiles' activity, a repeat) is forgotten, so the steps that follow are
 * bit-identical to those of a new engine made from u.  No view may be in
 * flight.  L3D_ERR_USAGE when u's sizes are not the engine's;
 * L3D_ERR_UNAVAILABLE from an engine that cannot (the distributed one, an
 * engine moving to the GPU, one let go). */
int engine_load(engine *e, const grid *u, l3d_err *err);
/* Returns once every step asked for is done (local to this process). */
int engine_finish(engine *e, l3d_err *err);
/* `out` must be allocated with the engine's sizes; its generation is left
 * to the caller. */
int engine_read(engine *e, grid *out, l3d_err *err);
/* Rows [first, first + n) of the current universe (row x * ny + y) into
 * out, which has room for n rows of grid layout: a writer takes the
 * universe a chunk at a time this way, so a download overlaps the writing
 * of the chunk before. */
int engine_read_rows(engine *e, uint64_t first, uint64_t n, uint64_t *out,
		     l3d_err *err);
int engine_project(engine *e, int axis, uint32_t *counts, l3d_err *err);
int engine_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
		 l3d_err *err);
/* Snapshots taken while the steps go on: engine_view_start() begins a
 * projection (project: uint32_t counts, as engine_project) or a slice
 * (uint8_t cells, as engine_slice) of the current universe into `out`;
 * engine_view_wait() returns once `out` holds it, and may be called from
 * another thread while this one steps on.  One view at a time.  Engines
 * without an asynchronous path fill `out` before engine_view_start()
 * returns. */
int engine_view_start(engine *e, bool project, int axis, uint64_t index,
		      void *out, l3d_err *err);
int engine_view_wait(engine *e, l3d_err *err);
/* The 3D render (render.h) of the current universe, as a view: v is
 * render_setup()'s for the engine's sizes, rgb has room for v->width *
 * v->height pixels of 3 bytes, and engine_view_wait() returns once rgb
 * holds render_rows()'s bytes.  Engines that do not draw renders
 * themselves (engine_renders() false) read the universe back and draw it
 * on this thread before returning: correct, but a caller that can copy
 * the universe and draw it on threads of its own does better. */
int engine_render_start(engine *e, const render_view *v, uint8_t *rgb,
			l3d_err *err);
/* Ready the engine for renders of v, as render_start would on its first
 * call (buffers, what depends on the view alone), so that a run pays for
 * it before its first step and the first render costs what the next do.
 * Optional: renders work without it, and engines with nothing to ready do
 * nothing. */
int engine_render_prepare(engine *e, const render_view *v, l3d_err *err);
/* True when the engine draws renders itself, from its own memory (a GPU):
 * cheaper than taking the universe to draw it. */
bool engine_renders(const engine *e);
/* True when the engine knows that the current universe is the one of two
 * generations back, as activity skipping finds out (the rule being
 * deterministic, it then repeats with period 2 for good: a universe of
 * generation g is the one of every later generation g + 2k).  False when
 * that is not known, which is always the case with LIFE3D_SKIP=0. */
bool engine_repeats(const engine *e);
/* Whether the engine leapt over a universe that repeats with a period
 * (leap.h): the universe after *after steps since the engine was made
 * (or last loaded) was the one of *period steps before, and later steps
 * cost nothing.  Skipping's period-2 leap (engine_repeats) is not
 * reported here. */
bool engine_leap_found(const engine *e, uint64_t *after, uint64_t *period);
const char *engine_describe(const engine *e);
/* The engine's current universe if it is a host grid, else NULL; valid
 * until the next engine call. */
grid *engine_host_grid(engine *e);
/* The run is over but for reading the universe back (engine_read,
 * engine_read_rows, engine_host_grid), engine_describe and
 * engine_destroy: no step, view or render follows, and none is in flight.
 * An engine on a device may then take its universe into host memory
 * (engine_host_grid gives it from then on) and give the device back on a
 * thread of its own, so that the driver's teardown, which otherwise comes
 * at the process's exit, overlaps the writing of the result.  Returns 0
 * also when nothing was done (no such engine, or no host memory to spare:
 * the universe stays where it was); an error only when reading it back
 * failed. */
int engine_let_go(engine *e, l3d_err *err);
void engine_destroy(engine *e);

/* The kind opts names ("auto" when opts or opts->kind is NULL).
 * L3D_ERR_USAGE "unknown engine 'NAME' (expected auto, cpu or cuda)". */
int engine_kind_of(const engine_opts *opts, engine_kind *out, l3d_err *err);

#endif
