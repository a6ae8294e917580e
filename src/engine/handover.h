/* handover.h - an engine that steps on one engine until another
 * can be had, then moves the universe over at a step boundary.
 *
 * Why: a GPU context takes a few hundred milliseconds to create, longer
 * than the CPU engine needs for many small runs.  `--engine auto` lets the
 * CPU step a small universe while the GPU is being set up in the
 * background, and moves it to the GPU once that is ready; a run that ends
 * first never waits for the GPU at all.  Callers see one engine. */
#ifndef LIFE3D_ENGINE_HANDOVER_H
#define LIFE3D_ENGINE_HANDOVER_H

#include "engine.h"

typedef struct handover_next {
	/* true once make() would not have to wait */
	bool (*ready)(void *ctx);
	/* the engine to move to, holding `now`; L3D_ERR_UNAVAILABLE means
	 * there is none, and the first engine keeps stepping */
	int (*make)(void *ctx, const grid *now, engine **out, l3d_err *err);
	/* frees ctx when the handover engine is destroyed (may be NULL) */
	void (*release)(void *ctx);
	void *ctx;
	const char *what;        /* the next engine, for descriptions: "the GPU" */
} handover_next;

/* Takes ownership of `first` (destroyed with the new engine, also when
 * this fails) and of next.ctx. */
int engine_handover_create(engine *first, handover_next next, engine **out,
			   l3d_err *err);

#endif
