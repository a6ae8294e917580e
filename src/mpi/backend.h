/* backend.h - stepping one rank's slab of a distributed universe.
 *
 * A slab is n consecutive x-planes of the universe plus `depth` halo planes
 * on each side, which the distributed engine (slab_engine.c) fills from the
 * neighbouring ranks.  A backend keeps the slab where it steps it (host
 * memory for the CPU, device memory for a GPU) and offers the few
 * operations the engine needs; the engine does the exchanges, the batching
 * of steps and the I/O, and cannot tell the backends apart otherwise.
 *
 * Planes are numbered from the slab's first own plane: -depth .. n+depth-1.
 * A plane is ny rows of `words` 64-bit words (grid layout). */
#ifndef LIFE3D_MPI_BACKEND_H
#define LIFE3D_MPI_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

typedef struct slab_backend slab_backend;

typedef struct slab_backend_ops {
	/* Plane x of the current generation (host or device memory). */
	uint64_t *(*plane)(slab_backend *b, int64_t x);
	/* Planes [xa, xb) of the current generation into the next; the counts
	 * of the new planes are added to stats (if not NULL) by the time
	 * finish() returns. */
	int (*step)(slab_backend *b, int64_t xa, int64_t xb, engine_stats *stats,
		    l3d_err *err);
	void (*swap)(slab_backend *b);     /* the next generation is current */
	/* Planes [x, x + count) of the current generation to or from host
	 * memory.  Between finish() and the next step, any planes; while
	 * steps are queued, only those an exchange moves (the first and last
	 * `depth` own planes out, the halos in): they are ordered after the
	 * queued steps that write or read them, and steps queued later that
	 * read the halos wait for them.  The copies may still be under way on
	 * return; they complete in the order they were started, all of them by
	 * the time copies_done() returns, and until then the host buffer must
	 * be left alone. */
	int (*to_host)(slab_backend *b, int64_t x, uint64_t count, uint64_t *dst,
		       l3d_err *err);
	int (*from_host)(slab_backend *b, int64_t x, uint64_t count,
			 const uint64_t *src, l3d_err *err);
	/* Optional (NULL: none), collective: let exchange() trade halos with
	 * ranks `left` and `right` from device memory to device memory, and
	 * set `link`.  L3D_ERR_UNAVAILABLE, with the reason, on every rank
	 * when that cannot be; then exchanges go through the host. */
	int (*link)(slab_backend *b, int left, int right, l3d_err *err);
	/* After link(): the first and last `count` own planes out to the
	 * neighbours and theirs into the halos, ordered against the steps as
	 * to_host() and from_host() are; queued, the host never waits. */
	int (*exchange)(slab_backend *b, uint64_t count, l3d_err *err);
	/* Wait for the copies started so far (NULL: each is done on return). */
	int (*copies_done)(slab_backend *b, l3d_err *err);
	/* Wait for every queued step and surface its errors (NULL: steps are
	 * done when they return). */
	int (*finish)(slab_backend *b, l3d_err *err);
	void (*destroy)(slab_backend *b);
	/* Host buffers that copy fast to and from the slab (pinned memory for
	 * a GPU); zeroed, 64-byte aligned.  NULL when memory runs out. */
	void *(*host_alloc)(slab_backend *b, size_t bytes);
	void (*host_free)(slab_backend *b, void *p);

	/* Activity skipping (engine/cpu/skip.h), optional (NULL: every cell
	 * is stepped).  skips_next: whether the next generation's own planes
	 * are to be stepped tile by tile, skipping those whose neighbourhood
	 * is the same as two generations back; the engine then brings the
	 * halos in first and steps [0, n) in one call (else in any pieces). */
	bool (*skips_next)(slab_backend *b);
	/* The last generation's own planes equal those two generations back. */
	bool (*quiet)(slab_backend *b);
	/* Every rank quiet: the universe repeats with period 2, and `steps`
	 * generations pass at once; the counts of the last are added to stats
	 * (if not NULL). */
	void (*leap)(slab_backend *b, uint64_t steps, engine_stats *stats);
	/* Tiles stepped and tiles there were, over all steps so far. */
	void (*tiles)(slab_backend *b, double *stepped, double *total);
	/* Leaps (engine/leap.h), optional with skipping (NULL: no leaps but
	 * period 2's): hash_on keeps a hash of the own planes from now on
	 * (x0: the first own plane in the universe; engine/cpu/skip.h's
	 * cpu_skip_hash), hash gives that of the current generation (0: not
	 * known), leapt counts steps leapt as steps of no tile. */
	int (*hash_on)(slab_backend *b, uint64_t x0, l3d_err *err);
	uint64_t (*hash)(slab_backend *b);
	void (*leapt)(slab_backend *b, uint64_t steps);
	/* Optional (NULL: none): when skips_next holds, after the exchange
	 * of a batch, all of its `steps` generations at once, as the engine
	 * would step them one by one (for r = steps - 1 down to 0: planes
	 * [-r, 0), [0, n) and [n, n + r), then swap()), the counts of the last
	 * added to stats (if not NULL) by the time finish() returns.
	 * *taken false: nothing was done, and the engine steps them one by one. */
	int (*batch)(slab_backend *b, uint64_t steps, engine_stats *stats, bool *taken,
		     l3d_err *err);
} slab_backend_ops;

struct slab_backend {
	const slab_backend_ops *ops;
	const char *name;
	/* plane() points into host memory; otherwise into device memory, to
	 * be handed to MPI only when the library is CUDA-aware. */
	bool host_memory;
	/* step() only queues the work: the engine queues the interior before
	 * it exchanges halos, and the exchange overlaps the stepping. */
	bool queued;
	/* What exchange() goes through ("NCCL 2.28.9") once link() has
	 * succeeded; NULL before. */
	const char *link;
};

/* The CPU backend (backend_cpu.c): the slab in host memory, stepped by
 * opts->threads threads (0: the cores this rank may use, at most its
 * share of the node) on the SIMD path opts->simd; it skips inactive
 * tiles unless LIFE3D_SKIP=0 (as this rank reads it). */
int backend_cpu_create(const grid *slab, uint64_t depth, const rule *r,
		       const engine_opts *opts, slab_backend **out, l3d_err *err);

/* The GPU backend (backend_cuda.c): the slab in device memory on the GPU
 * that this rank's node-local index picks (or opts->device).
 * L3D_ERR_UNAVAILABLE when no GPU can be used, with the reason. */
int backend_cuda_create(const grid *slab, uint64_t depth, const rule *r,
			const engine_opts *opts, int local_rank, slab_backend **out,
			l3d_err *err);
/* Whether this rank sees a usable GPU (0 when CUDA is not built in). */
int backend_cuda_devices(void);

#endif
