/* slab_engine.h - the engine of a distributed run: each rank steps its own
 * slab of x-planes on a backend (backend.h) and trades halo planes with
 * its neighbours (see slab_engine.c for how).  Built with MPI only.
 *
 * Callers see an ordinary engine (engine.h).  Its views (project, slice)
 * and read-back are collective: every rank calls them, and the result
 * lands on rank 0 alone (the other ranks' buffers are left untouched and
 * may be NULL). */
#ifndef LIFE3D_MPI_SLAB_ENGINE_H
#define LIFE3D_MPI_SLAB_ENGINE_H

#include "engine/engine.h"

/* `slab` is this rank's planes [x0, x0 + slab->nx) of a universe of nx
 * planes.  opts->kind: cuda steps on this rank's GPU, cpu on its cores,
 * auto on the GPU where the rank has one. */
int slab_engine_create(const engine_opts *opts, const grid *slab, uint64_t x0,
		       uint64_t nx, const rule *r, engine **out, l3d_err *err);
/* This rank's planes as a host grid (a view, valid until the next engine
 * call; nothing to free) and the index of its first plane. */
int slab_engine_planes(engine *e, grid *view, uint64_t *x0, l3d_err *err);

#endif
