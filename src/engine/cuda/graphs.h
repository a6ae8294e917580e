/* graphs.h - runs of launches captured once as a CUDA graph and replayed,
 * kept by a key of the caller's, the least recently used evicted.
 *
 * Shared by the single-GPU engine (cuda.c: runs of steps between outputs)
 * and the GPU slab backend of the distributed mode (mpi/backend_cuda.c: a
 * batch of tile steps between two exchanges of halos).  A run's launches
 * must depend on its key alone (and on what stays fixed for the cache's
 * life: buffers, plans); a replay gives the device the same work with one
 * call of the host.  CUDA builds only. */
#ifndef LIFE3D_ENGINE_CUDA_GRAPHS_H
#define LIFE3D_ENGINE_CUDA_GRAPHS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#define GRAPH_SLOTS 16
#define GRAPH_KEY 4

typedef struct graph_cache {
	struct {
		cudaGraphExec_t exec;        /* NULL: a free slot */
		uint64_t key[GRAPH_KEY];
		uint64_t used;               /* the clock when last launched */
	} slot[GRAPH_SLOTS];
	uint64_t clock;
} graph_cache;

/* Queue on s the launches of the run named by key (called under capture). */
typedef cudaError_t (*graph_issue_fn)(void *ctx, const uint64_t key[GRAPH_KEY],
				      cudaStream_t s);

/* Queue on s the graph of key's run, capturing it with issue(ctx, key, s)
 * on first use.  A failed capture leaves the slot free. */
cudaError_t graph_cache_launch(graph_cache *g, const uint64_t key[GRAPH_KEY],
			       graph_issue_fn issue, void *ctx, cudaStream_t s);

/* Every graph destroyed (the cache may be used again). */
void graph_cache_clear(graph_cache *g);

#endif
