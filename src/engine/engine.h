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

#include "engine_ops.h"

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
