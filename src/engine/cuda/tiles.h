/* tiles.h - a GPU engine's tiles (kernels/tiles.cu) and the host's side
 * of driving them: their memory, the ring of three lists, the size of a
 * list read back to the host, and the pace of tile steps (pace.h).
 *
 * Shared by the single-GPU engine (cuda.c: the torus, tile steps in graphs
 * of up to TILE_RUN) and the GPU slab backend of the distributed mode
 * (mpi/backend_cuda.c: the own planes of a slab, an open box whose halos
 * l3dk_tiles_halos compares), as engine/cpu/skip.c is for the CPU.  Each
 * keeps what differs: how the tile steps are launched (the halos, the
 * graphs' keys) and what an empty list means to it.  A list's size comes
 * back two ways: at once, the host waiting (after a step over every tile,
 * into h_size[1]), or one step or graph late, the host reading it once the
 * next is queued (gpu_tiles_ask, then gpu_tiles_hear: into h_size[0],
 * followed by the event `sized`).  CUDA builds only. */
#ifndef LIFE3D_ENGINE_CUDA_TILES_H
#define LIFE3D_ENGINE_CUDA_TILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/status.h"
#include "kernels/kernels.h"
#include "pace.h"

typedef struct gpu_tiles {
	l3dk_tiles t;        /* t.base NULL: no tiles (not made, or no memory) */
	tile_pace pace;      /* dense or by tiles (pace.h) */
	int ring;            /* the list the next tile step reads */
	uint32_t *h_size;    /* pinned: a list's size, late [0], at once [1] */
	cudaEvent_t sized;   /* h_size[0] written ... */
	bool pending;        /* ... for a list not yet judged */
} gpu_tiles;

/* The tiles' memory (l3dk_tiles_make's planes, open and words; *bytes its
 * size), placed, with the pinned sizes and their event; `clear`: the
 * memory cleared at once (cudaMemset), else the caller clears it on its
 * stream.  False where the memory is not there: the error cleared, t.base
 * left NULL.  g->pace is left as it was. */
bool gpu_tiles_make(gpu_tiles *g, const l3dk_plan *p, uint64_t planes, int open, int words,
		    bool clear, size_t *bytes);

/* What gpu_tiles_make made freed (any of it may be missing). */
void gpu_tiles_free(gpu_tiles *g);

/* The lists start (l3dk_tiles_reset on s: emptied, every mark cleared):
 * two steps over every tile to come, no size on its way. */
cudaError_t gpu_tiles_start(gpu_tiles *g, cudaStream_t s);

/* After n tile steps: the list the next one reads. */
void gpu_tiles_turn(gpu_tiles *g, uint64_t n);

/* Whether a list of `size` tiles (size > 0) is worth stepping; if not,
 * dense steps for a while (tile_pace_judge). */
bool gpu_tiles_judge(gpu_tiles *g, uint32_t size);

/* After a step over every tile: the size of the list the next step reads
 * into *size, the host waiting for s; one step over every tile fewer to
 * come. */
int gpu_tiles_fresh_size(gpu_tiles *g, cudaStream_t s, uint32_t *size, l3d_err *err);

/* The same read without the count: into h_size[1] and *size once s is
 * done. */
cudaError_t gpu_tiles_size_now(gpu_tiles *g, cudaStream_t s, uint32_t *size);

/* The size of the list the next step reads asked for on s, into h_size[0]
 * (pending). */
int gpu_tiles_ask(gpu_tiles *g, cudaStream_t s, l3d_err *err);

/* The size asked for, where one is pending: with `wait` the host waits for
 * it, else only looks (pending stays true while it is on its way).
 * *heard: it came, into *size (pending false). */
cudaError_t gpu_tiles_hear(gpu_tiles *g, bool wait, bool *heard, uint32_t *size);

#endif
