/* batch.h - many small universes on one GPU, stepped together: the
 * census's soups (kernels/census.cu).
 *
 * A batch holds `slots` spaces of 64^3 cells on the device, each a grid of
 * 64 x 64 rows of one word.  cuda_batch_put and cuda_batch_get move one
 * space between the host and its slot; cuda_batch_step advances every slot
 * a chunk of generations in one launch and gives each slot's chunk end
 * (population, the census's hash, a live cell near a face).  Moore rules
 * without birth on 0 alone (cuda_batch_takes).  Everything exists in a
 * build without CUDA, where no batch can be made (L3D_ERR_UNAVAILABLE). */
#ifndef LIFE3D_ENGINE_CUDA_BATCH_H
#define LIFE3D_ENGINE_CUDA_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/grid.h"
#include "base/rule.h"
#include "base/status.h"

#define CUDA_BATCH_SIDE 64

typedef struct cuda_batch cuda_batch;

typedef struct cuda_batch_end {
	uint64_t population, hash;
	bool edge;
} cuda_batch_end;

/* Whether a batch steps spaces of `side` under r. */
bool cuda_batch_takes(const rule *r, uint64_t side);
/* A batch of `slots` empty spaces on device `device` (-1: the first),
 * for rule r; a live cell within `edge` of a face counts as near it. */
int cuda_batch_create(int device, uint32_t slots, const rule *r, unsigned edge,
		      cuda_batch **out, l3d_err *err);
/* g (CUDA_BATCH_SIDE on each axis) into slot s, before the next step.
 * put and get may be called from several threads at once, for different
 * slots, between steps. */
int cuda_batch_put(cuda_batch *b, uint32_t s, const grid *g, l3d_err *err);
/* Slot s's space into g, as the last step left it. */
int cuda_batch_get(cuda_batch *b, uint32_t s, grid *g, l3d_err *err);
/* Every slot `gens` generations on; ends[s] for each slot. */
int cuda_batch_step(cuda_batch *b, unsigned gens, cuda_batch_end *ends, l3d_err *err);
void cuda_batch_destroy(cuda_batch *b);

#endif
