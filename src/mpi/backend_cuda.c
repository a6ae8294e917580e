/* backend_cuda.c - a rank's slab stepped on its GPU (see backend.h).
 *
 * The slab and its halos live in two device buffers of n + 2 * depth
 * planes that the steps ping-pong between.  Every step runs on one stream,
 * `run`, in the order the engine queues them (the interior first, then the
 * ranges next to the halos); the halo copies run on a second, `copy`.  Two
 * events tie them together.  `halo_in` follows the last copy into the
 * device, and the first step queued after it waits for it.  `edges_done`
 * follows the steps that read halos: it is recorded when the next step
 * that does not (the interior) or the next copy is queued, and every copy
 * waits for it.  The planes an exchange sends are always written by such
 * steps, and the halos it fills are read only by them, so the copies never
 * wait for the interior kernel: the staging copies and the MPI messages
 * overlap it.  The host waits once for both planes going out, and not at
 * all for the halos coming in (the steps that read them wait on the
 * device).  A step queued right after another, with no event or copy
 * between them (the steps of a batch after its first), is launched with
 * programmatic dependent launch on GPUs that have it, so that it starts
 * while the one before drains.  Counts are summed on the device and read
 * back by finish().
 *
 * With a link (NCCL, nccl_link.h), an exchange is queued on `copy` in the
 * same place, planes sent straight from one GPU's buffer into the next's
 * halos: no staging, and no host wait at all.
 *
 * Activity skipping (kernels/tiles.cu, at the pace of engine/cuda/pace.h,
 * driven through engine/cuda/tiles.h as the single GPU is), unless
 * LIFE3D_SKIP=0: a generation of the own planes [0, n), asked for in one
 * piece, goes by tiles over those planes, x not wrapping.  Before
 * each tile step the halos it reads are compared with the same buffer's
 * halos two generations back (kept by the tiles), and the tiles of the
 * first and last tile planes that a change touches are listed.  Once the
 * lists run, the generations of a batch (those between two exchanges) go
 * as one CUDA graph, captured once for each shape (the number of
 * generations, the buffer, the list, whether it counts) and replayed
 * (engine/cuda/graphs.h), so the host makes a call a batch, not five or
 * six a generation; LIFE3D_CUDA_LAUNCH=plain queues them one by one.  The
 * lists' sizes come back to the host without a wait (an event polled,
 * once a batch), except after a step of every tile, and when the engine
 * asks whether the slab is quiet (once in many batches). */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAVE_CUDA

int backend_cuda_devices(void)
{
	return 0;
}

int backend_cuda_create(const grid *slab, uint64_t depth, const rule *r,
			const engine_opts *opts, int local_rank, slab_backend **out,
			l3d_err *err)
{
	(void)slab, (void)depth, (void)r, (void)opts, (void)local_rank;
	*out = NULL;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda' is not built in (configure --with-cuda)");
}

#else /* HAVE_CUDA */

#include "kernels/kernels.h"
#include "engine/cuda/device.h"
#include "engine/cuda/graphs.h"
#include "engine/cuda/pace.h"
#include "engine/cuda/runtime.h"
#include "engine/cuda/tiles.h"
#include "nccl_link.h"

typedef struct cuda_slab {
	slab_backend base;
	int device;
	uint64_t n, depth, plane_words;
	size_t plane_bytes;
	char *buf[2];                /* n + 2 * depth planes each */
	int cur;
	l3dk_plan plan;
	cudaStream_t run, copy;
	cudaEvent_t halo_in, edges_done;
	cudaStream_t side;           /* a batch graph's halo ranges, beside its tiles */
	cudaEvent_t fork, join;      /* ... branching off run and back */
	l3dk_counts *d_counts, *h_counts;
	engine_stats *pending;       /* where the device's counts go */
	bool halo_unwaited;          /* halo_in recorded, no step waits for it yet */
	bool edges_unmarked;         /* steps that read halos since edges_done */
	bool kernel_last;            /* the last thing queued on run is a step */
	bool pdl;                    /* the GPU has programmatic dependent launch */
	bool graphs_on;              /* batches by tiles as graphs (not plain launches) */
	graph_cache graphs;          /* batches by tiles, by issue_batch's key */
	nccl_link *link;             /* NULL: halos go through the host */
	int left, right;             /* the link's neighbours */
	char name[272];
	gpu_tiles tiles;             /* stepping only what can change
	                              * (engine/cuda/tiles.h); t.base NULL:
	                              * every cell every step */
	bool tiled;                  /* the generation being stepped goes by tiles */
	bool last_tiled;             /* ... the last one did */
	cudaError_t tiles_failed;    /* in an op without an error, for finish() */
	slab_backend_ops ops;        /* with the skipping ops when t.base is set */
} cuda_slab;

static char *plane_at(cuda_slab *c, int which, int64_t x)
{
	return c->buf[which] + (size_t)(x + (int64_t)c->depth) * c->plane_bytes;
}

static uint64_t *cs_plane(slab_backend *b, int64_t x)
{
	cuda_slab *c = (cuda_slab *)b;
	return (uint64_t *)plane_at(c, c->cur, x);
}

/* edges_done after the steps that read halos, if any were queued since. */
static int mark_edges(cuda_slab *c, l3d_err *err)
{
	if (c->edges_unmarked) {
		CUDA_TRY(cudaEventRecord(c->edges_done, c->run), "ordering a step");
		c->edges_unmarked = false;
		c->kernel_last = false;
	}
	return L3D_OK;
}

/* What must come before a step on `run`: see the top. */
static int before_step(cuda_slab *c, bool reads_halo, engine_stats *stats, l3d_err *err)
{
	if (!reads_halo) {
		int rc = mark_edges(c, err);
		if (rc)
			return rc;
	}
	if (stats && c->pending != stats) {
		/* Cleared before any kernel of this generation counts. */
		CUDA_TRY(cudaMemsetAsync(c->d_counts, 0, sizeof *c->d_counts, c->run),
		    "clearing the counters");
		c->pending = stats;
		c->kernel_last = false;
	}
	if (c->halo_unwaited) {
		CUDA_TRY(cudaStreamWaitEvent(c->run, c->halo_in, 0), "ordering a step");
		c->halo_unwaited = false;
		c->kernel_last = false;
	}
	return L3D_OK;
}

/* ---- activity skipping ---- */

/* After a step over every tile: the list it leaves, judged at once. */
static int tiles_judge_now(cuda_slab *c, l3d_err *err)
{
	uint32_t size;
	int rc = gpu_tiles_fresh_size(&c->tiles, c->run, &size, err);
	if (rc)
		return rc;
	c->kernel_last = false;
	if (size)
		gpu_tiles_judge(&c->tiles, size);
	return L3D_OK;
}

/* After a step by the lists: the size of a list read back earlier judged,
 * if it has come, and the size of this one asked for, if none is on its
 * way; the host never waits. */
static int tiles_poll(cuda_slab *c, l3d_err *err)
{
	bool heard;
	uint32_t size;
	CUDA_TRY(gpu_tiles_hear(&c->tiles, false, &heard, &size), "stepping the tiles");
	if (c->tiles.pending)        /* still on its way */
		return L3D_OK;
	if (heard && size && !gpu_tiles_judge(&c->tiles, size))
		return L3D_OK;
	int rc = gpu_tiles_ask(&c->tiles, c->run, err);
	if (rc)
		return rc;
	c->kernel_last = false;
	return L3D_OK;
}

/* The launches of one generation of the own planes by tiles, from buffer
 * b and list r: the halos' changes listed (with `all`, a list of every
 * tile first, on a fresh start), the listed tiles stepped, with `count`
 * their counts summed; `after_kernel`: the first launch follows a kernel
 * (programmatic dependent launch).  Queued directly or under capture. */
static cudaError_t launch_tiles_gen(cuda_slab *c, int b, int r, bool all, bool count,
				    bool after_kernel)
{
	const l3dk_tiles *t = &c->tiles.t;
	cudaError_t e = all ? l3dk_tiles_all(t, r, c->pdl && after_kernel, c->run) : cudaSuccess;
	if (e == cudaSuccess)
		e = l3dk_tiles_halos(&c->plan, t, r, plane_at(c, b, 0), b, !all,
				     c->pdl && (all || after_kernel), c->run);
	if (e == cudaSuccess)
		e = l3dk_tiles_step(&c->plan, t, r, plane_at(c, b, 0), plane_at(c, b ^ 1, 0),
				    b ^ 1, all, c->pdl, c->run);
	if (e == cudaSuccess && count)
		e = l3dk_tiles_counts(t, b ^ 1, c->d_counts, c->pdl, c->run);
	return e;
}

/* The own planes by tiles, one generation, its counts summed with stats. */
static int tiles_step(cuda_slab *c, engine_stats *stats, l3d_err *err)
{
	int r = c->tiles.ring, all = c->tiles.pace.fresh > 0;
	CUDA_TRY(launch_tiles_gen(c, c->cur, r, all, stats != NULL, c->kernel_last),
		 "stepping the tiles");
	c->kernel_last = true;
	c->edges_unmarked = true;
	gpu_tiles_turn(&c->tiles, 1);
	c->tiled = true;
	tile_pace_count(&c->tiles.pace, 1);
	return all ? tiles_judge_now(c, err) : tiles_poll(c, err);
}

/* Whether the next generation's own planes go by tiles: after the dense
 * steps the pace asks for, the lists start again (emptied, every mark
 * cleared). */
static bool tiles_next(cuda_slab *c)
{
	if (!c->tiles.t.base || c->tiles_failed != cudaSuccess)
		return false;
	if (!c->tiles.pace.on && c->tiles.pace.dense_left == 0) {
		cudaError_t e = cudaSetDevice(c->device);
		if (e == cudaSuccess)
			e = gpu_tiles_start(&c->tiles, c->run);
		if (e != cudaSuccess) {
			c->tiles_failed = e;
			return false;
		}
		c->kernel_last = false;
	}
	return c->tiles.pace.on;
}

/* The planes of generation `parity` stepped into the halos in full, r of
 * them each side, on the side stream: branched off run after what was
 * queued there, joined back by the event join. */
static cudaError_t launch_halo_ranges(cuda_slab *c, int parity, int64_t r)
{
	int64_t n = (int64_t)c->n;
	int to = parity ^ 1;
	cudaError_t e = cudaEventRecord(c->fork, c->run);
	if (e == cudaSuccess)
		e = cudaStreamWaitEvent(c->side, c->fork, 0);
	if (e == cudaSuccess)
		e = l3dk_step_open(&c->plan, plane_at(c, parity, -r), plane_at(c, to, -r),
				   (uint64_t)r, NULL, 0, c->side);
	if (e == cudaSuccess)
		e = l3dk_step_open(&c->plan, plane_at(c, parity, n), plane_at(c, to, n),
				   (uint64_t)r, NULL, c->pdl, c->side);
	return e == cudaSuccess ? cudaEventRecord(c->join, c->side) : e;
}

/* The launches of a batch of `steps` generations by tiles from buffer
 * `parity` and list `ring`, the counts of the last with `stats`: for each,
 * the planes stepped into the halos (r of them each side) in full, the
 * halos compared, the tiles stepped.  Under capture (issue_batch).  The
 * halo ranges and the tiles of one generation touch different planes (the
 * ranges write the halos' planes of the next buffer, the tiles its own
 * planes; both read this one), so the ranges go on a branch of the graph
 * beside the halo comparison and the tile step, and each generation waits
 * for both: two kernels deep a generation instead of four.  The first
 * kernel after a join depends on two, so it is launched without PDL. */
static cudaError_t launch_batch(cuda_slab *c, uint64_t steps, int stats, int parity, int ring)
{
	cudaError_t e = cudaSuccess;
	for (uint64_t j = 0; j < steps && e == cudaSuccess; j++) {
		int64_t r = (int64_t)(steps - 1 - j);
		if (r > 0)
			e = launch_halo_ranges(c, parity, r);
		if (e == cudaSuccess)
			e = launch_tiles_gen(c, parity, ring, false, stats && j + 1 == steps,
					     false);
		if (e == cudaSuccess && r > 0)
			e = cudaStreamWaitEvent(c->run, c->join, 0);
		parity ^= 1;
		ring = ring == 2 ? 0 : ring + 1;
	}
	return e;
}

/* A batch's key: its steps, whether it counts, its buffer and list. */
static cudaError_t issue_batch(void *ctx, const uint64_t key[GRAPH_KEY], cudaStream_t s)
{
	(void)s;
	return launch_batch(ctx, key[0], (int)key[1], (int)key[2], (int)key[3]);
}

/* A batch by tiles as one graph, once the lists run (not on a step of
 * every tile, which the host judges at once): the halos waited for on the
 * device, the graph queued, the size of the list it leaves asked for.
 * Batches longer than BATCH_GRAPH_MOST (halos deeper than any default,
 * LIFE3D_HALO_DEPTH) go one generation at a time, not as graphs of
 * thousands of launches. */
enum { BATCH_GRAPH_MOST = 64 };

static int cs_batch(slab_backend *b, uint64_t steps, engine_stats *stats, bool *taken,
		    l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	*taken = false;
	if (!c->graphs_on || c->tiles.pace.fresh > 0 || steps > BATCH_GRAPH_MOST)
		return L3D_OK;
	*taken = true;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	int rc = before_step(c, true, stats, err);
	if (rc)
		return rc;
	const uint64_t key[GRAPH_KEY] = {steps, stats != NULL, (uint64_t)c->cur,
					 (uint64_t)c->tiles.ring};
	CUDA_TRY(graph_cache_launch(&c->graphs, key, issue_batch, c, c->run),
		 "stepping the tiles as a graph");
	c->cur ^= (int)(steps & 1);
	gpu_tiles_turn(&c->tiles, steps);
	c->kernel_last = false;
	c->edges_unmarked = true;
	c->tiled = false;
	c->last_tiled = true;
	tile_pace_count(&c->tiles.pace, steps);
	return tiles_poll(c, err);
}

static bool cs_skips_next(slab_backend *b)
{
	return tiles_next((cuda_slab *)b);
}

/* The last generation went by tiles and its list came back empty: no
 * tile changed from two generations back.  The host waits for that. */
static bool cs_quiet(slab_backend *b)
{
	cuda_slab *c = (cuda_slab *)b;
	if (!c->last_tiled || c->tiles_failed != cudaSuccess)
		return false;
	uint32_t size = 0;
	cudaError_t e = cudaSetDevice(c->device);
	if (e == cudaSuccess)
		e = gpu_tiles_size_now(&c->tiles, c->run, &size);
	c->kernel_last = false;
	if (e != cudaSuccess) {
		c->tiles_failed = e;
		return false;
	}
	return size == 0;
}

/* Every rank quiet: the buffers hold the two phases; the counts of the
 * one that is current after `steps` from the tiles' counts.  The steps
 * are steps in which no tile was stepped (-v's share, cs_tiles). */
static void cs_leap(slab_backend *b, uint64_t steps, engine_stats *stats)
{
	cuda_slab *c = (cuda_slab *)b;
	c->cur ^= (int)(steps & 1);
	c->tiles.pace.tile_steps += steps;
	if (!stats)
		return;
	cudaError_t e = cudaSetDevice(c->device);
	if (e == cudaSuccess && !c->pending)
		e = cudaMemsetAsync(c->d_counts, 0, sizeof *c->d_counts, c->run);
	if (e == cudaSuccess && !c->pending)
		e = l3dk_tiles_counts(&c->tiles.t, c->cur, c->d_counts, 0, c->run);
	if (e == cudaSuccess && !c->pending)
		c->pending = stats;
	else if (e == cudaSuccess)
		e = cudaErrorInvalidValue;  /* counts of another step not read yet */
	c->kernel_last = false;
	if (e != cudaSuccess)
		c->tiles_failed = e;
}

static void cs_tiles(slab_backend *b, double *stepped, double *total)
{
	cuda_slab *c = (cuda_slab *)b;
	unsigned long long n = 0;
	const tile_pace *p = &c->tiles.pace;
	if (cudaSetDevice(c->device) != cudaSuccess ||
	    cudaMemcpy(&n, c->tiles.t.stepped, sizeof n, cudaMemcpyDeviceToHost) != cudaSuccess)
		cudaGetLastError();
	*total = (double)(p->dense_steps + p->tile_steps) * (double)c->tiles.t.count;
	*stepped = tile_pace_share(p, c->tiles.t.count, (double)n) * *total;
}

static int cs_step(slab_backend *b, int64_t xa, int64_t xb, engine_stats *stats,
		   l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	if (xa >= xb)
		return L3D_OK;
	bool reads_halo = xa < 1 || xb > (int64_t)c->n - 1;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	int rc = before_step(c, reads_halo, stats, err);
	if (rc)
		return rc;
	if (xa == 0 && xb == (int64_t)c->n && tiles_next(c))
		return tiles_step(c, stats, err);
	CUDA_TRY(l3dk_step_open(&c->plan, plane_at(c, c->cur, xa), plane_at(c, c->cur ^ 1, xa),
			   (uint64_t)(xb - xa), stats ? c->d_counts : NULL,
			   c->pdl && c->kernel_last, c->run),
	    "launching a step");
	c->kernel_last = true;
	c->edges_unmarked |= reads_halo;
	return L3D_OK;
}

static void cs_swap(slab_backend *b)
{
	cuda_slab *c = (cuda_slab *)b;
	c->cur ^= 1;
	if (c->tiles.t.base && !c->tiled)
		tile_pace_count(&c->tiles.pace, 1);
	c->last_tiled = c->tiled;
	c->tiled = false;
}

/* An exchange copies its planes out after the last range that read a halo
 * (which wrote them) and its halos in before the next one: see the top.
 * The copy stream waits for that range. */
static int copy_after_edges(cuda_slab *c, l3d_err *err)
{
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	int rc = mark_edges(c, err);
	if (rc)
		return rc;
	CUDA_TRY(cudaStreamWaitEvent(c->copy, c->edges_done, 0), "ordering a copy");
	return L3D_OK;
}

static int cs_to_host(slab_backend *b, int64_t x, uint64_t count, uint64_t *dst,
		      l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	int rc = copy_after_edges(c, err);
	if (rc)
		return rc;
	CUDA_TRY(cudaMemcpyAsync(dst, cs_plane(b, x), count * c->plane_bytes,
			    cudaMemcpyDeviceToHost, c->copy),
	    "copying planes to the host");
	return L3D_OK;
}

static int cs_from_host(slab_backend *b, int64_t x, uint64_t count,
			const uint64_t *src, l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	int rc = copy_after_edges(c, err);
	if (rc)
		return rc;
	CUDA_TRY(cudaMemcpyAsync(cs_plane(b, x), src, count * c->plane_bytes,
			    cudaMemcpyHostToDevice, c->copy),
	    "copying planes to the device");
	CUDA_TRY(cudaEventRecord(c->halo_in, c->copy), "ordering a copy");
	c->halo_unwaited = true;
	return L3D_OK;
}

static int cs_exchange(slab_backend *b, uint64_t count, l3d_err *err);
static int cs_copies_done(slab_backend *b, l3d_err *err);

/* One exchange here, waited for, so that NCCL's connections and kernels
 * are set up with the engine, not timed with the first step. */
static int cs_link(slab_backend *b, int left, int right, l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	int rc = nccl_link_open(&c->link, err);
	if (rc)
		return rc;
	c->left = left;
	c->right = right;
	b->link = nccl_link_name(c->link);
	rc = cs_exchange(b, c->depth, err);
	return rc ? rc : cs_copies_done(b, err);
}

static int cs_exchange(slab_backend *b, uint64_t count, l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	int64_t n = (int64_t)c->n, d = (int64_t)count;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	int rc = mark_edges(c, err);
	if (rc)
		return rc;
	CUDA_TRY(cudaStreamWaitEvent(c->copy, c->edges_done, 0), "ordering an exchange");
	rc = nccl_link_exchange(c->link, cs_plane(b, 0), cs_plane(b, n - d),
				    cs_plane(b, -d), cs_plane(b, n),
				    (size_t)count * c->plane_words, c->left, c->right,
				    c->copy, err);
	if (rc)
		return rc;
	CUDA_TRY(cudaEventRecord(c->halo_in, c->copy), "ordering an exchange");
	c->halo_unwaited = true;
	return L3D_OK;
}

/* One wait for both planes of an exchange: a synchronisation costs about
 * as much as copying a 1024x1024 plane. */
static int cs_copies_done(slab_backend *b, l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	CUDA_TRY(cudaStreamSynchronize(c->copy), "copying planes");
	return L3D_OK;
}

static int cs_finish(slab_backend *b, l3d_err *err)
{
	cuda_slab *c = (cuda_slab *)b;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	CUDA_TRY(c->tiles_failed, "stepping the tiles");
	if (c->pending) {
		CUDA_TRY(cudaMemcpyAsync(c->h_counts, c->d_counts, sizeof *c->h_counts,
				    cudaMemcpyDeviceToHost, c->run),
		    "reading the counters");
		c->kernel_last = false;
	}
	CUDA_TRY(cudaStreamSynchronize(c->copy), "stepping");
	CUDA_TRY(cudaStreamSynchronize(c->run), "stepping");
	if (c->link) {
		int rc = nccl_link_check(c->link, err);
		if (rc)
			return rc;
	}
	if (c->pending) {
		c->pending->population += c->h_counts->population;
		c->pending->births += c->h_counts->births;
		c->pending->deaths += c->h_counts->deaths;
		c->pending = NULL;
	}
	return L3D_OK;
}

static void *cs_host_alloc(slab_backend *b, size_t bytes)
{
	cuda_slab *c = (cuda_slab *)b;
	void *p = NULL;
	if (cudaSetDevice(c->device) != cudaSuccess ||
	    cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	memset(p, 0, bytes);
	return p;
}

static void cs_host_free(slab_backend *b, void *p)
{
	(void)b;
	if (p)
		cudaFreeHost(p);
}

static void cs_destroy(slab_backend *b)
{
	cuda_slab *c = (cuda_slab *)b;
	if (!c)
		return;
	cudaSetDevice(c->device);
	if (c->run)
		cudaStreamSynchronize(c->run);
	if (c->copy)
		cudaStreamSynchronize(c->copy);
	nccl_link_close(c->link);
	graph_cache_clear(&c->graphs);
	for (int i = 0; i < 2; i++)
		cudaFree(c->buf[i]);
	cudaFree(c->d_counts);
	cudaFreeHost(c->h_counts);
	gpu_tiles_free(&c->tiles);
	if (c->halo_in)
		cudaEventDestroy(c->halo_in);
	if (c->edges_done)
		cudaEventDestroy(c->edges_done);
	if (c->run)
		cudaStreamDestroy(c->run);
	if (c->copy)
		cudaStreamDestroy(c->copy);
	if (c->fork)
		cudaEventDestroy(c->fork);
	if (c->join)
		cudaEventDestroy(c->join);
	if (c->side)
		cudaStreamDestroy(c->side);
	free(c);
}

static const slab_backend_ops cuda_slab_ops = {
	.plane = cs_plane,
	.step = cs_step,
	.swap = cs_swap,
	.to_host = cs_to_host,
	.from_host = cs_from_host,
	.link = cs_link,
	.exchange = cs_exchange,
	.copies_done = cs_copies_done,
	.finish = cs_finish,
	.destroy = cs_destroy,
	.host_alloc = cs_host_alloc,
	.host_free = cs_host_free,
};

int backend_cuda_devices(void)
{
	return cuda_device_count();
}

/* Skipping, unless LIFE3D_SKIP=0 or the memory for the tiles is not
 * there: the ops that tell the engine of it.  LIFE3D_CUDA_TUNE's tiles=1
 * keeps the lists however long, tilez sets the tiles' extent in z. */
static void start_skipping(cuda_slab *c, const engine_knobs *k)
{
	c->ops = cuda_slab_ops;
	c->base.ops = &c->ops;
	if (k->dense)
		return;
	l3dk_tuning tune;
	cuda_tuning(k->cuda_tune, &tune);
	size_t bytes;
	if (!gpu_tiles_make(&c->tiles, &c->plan, c->n, 1, tune.tilez, true, &bytes))
		return;
	tile_pace_init(&c->tiles.pace, tune.tiles == 1);
	c->ops.skips_next = cs_skips_next;
	c->ops.quiet = cs_quiet;
	c->ops.leap = cs_leap;
	c->ops.tiles = cs_tiles;
	c->ops.batch = cs_batch;
}

static int open_slab(cuda_slab *c, const grid *slab, const rule *r, const engine_knobs *k,
		     l3d_err *err)
{
	struct cudaDeviceProp p;
	size_t bytes = (size_t)(c->n + 2 * c->depth) * c->plane_bytes;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	CUDA_TRY(cudaGetDeviceProperties(&p, c->device), "cudaGetDeviceProperties");
	c->graphs_on = !(k->launch && strcmp(k->launch, "plain") == 0);
	/* LIFE3D_CUDA_LAUNCH=graph: as a GPU before 9.0 launches. */
	c->pdl = p.major >= 9 && c->graphs_on && !(k->launch && strcmp(k->launch, "graph") == 0);
	snprintf(c->name, sizeof c->name, "cuda/%s", p.name);
	char what[64], name[300];
	snprintf(what, sizeof what, "a slab of %llu planes", (unsigned long long)c->n);
	snprintf(name, sizeof name, "%s (device %d)", p.name, c->device);
	int rc = cuda_memory_check(2.0 * (double)bytes, what, name, err);
	if (rc)
		return rc;
	/* Of LIFE3D_CUDA_TUNE's keys the plan reads params alone here. */
	l3dk_tuning all, tune = {0};
	cuda_tuning(k->cuda_tune, &all);
	tune.params = all.params;
	CUDA_TRY(l3dk_plan_make(&c->plan, c->n + 2 * c->depth, slab->ny, slab->nz, r->birth,
			   r->survive, (rule_hood)r->hood, &tune),
	    "planning the kernels");
	CUDA_TRY(cudaStreamCreateWithFlags(&c->run, cudaStreamNonBlocking), "cudaStreamCreate");
	CUDA_TRY(cudaStreamCreateWithFlags(&c->copy, cudaStreamNonBlocking), "cudaStreamCreate");
	CUDA_TRY(cudaStreamCreateWithFlags(&c->side, cudaStreamNonBlocking), "cudaStreamCreate");
	CUDA_TRY(cudaEventCreateWithFlags(&c->fork, cudaEventDisableTiming), "cudaEventCreate");
	CUDA_TRY(cudaEventCreateWithFlags(&c->join, cudaEventDisableTiming), "cudaEventCreate");
	CUDA_TRY(cudaEventCreateWithFlags(&c->halo_in, cudaEventDisableTiming), "cudaEventCreate");
	CUDA_TRY(cudaEventCreateWithFlags(&c->edges_done, cudaEventDisableTiming), "cudaEventCreate");
	for (int i = 0; i < 2; i++) {
		CUDA_TRY(cudaMalloc((void **)&c->buf[i], bytes), "allocating the slab");
		CUDA_TRY(cudaMemset(c->buf[i], 0, bytes), "clearing the slab");
	}
	CUDA_TRY(cudaMalloc((void **)&c->d_counts, sizeof *c->d_counts), "cudaMalloc");
	CUDA_TRY(cudaMallocHost((void **)&c->h_counts, sizeof *c->h_counts), "cudaMallocHost");
	CUDA_TRY(cudaEventRecord(c->edges_done, c->run), "cudaEventRecord");
	rc = cs_from_host(&c->base, 0, c->n, slab->bits, err);
	return rc ? rc : cs_copies_done(&c->base, err);
}

int backend_cuda_create(const grid *slab, uint64_t depth, const rule *r,
			const engine_opts *opts, int local_rank, slab_backend **out,
			l3d_err *err)
{
	int device;
	*out = NULL;
	int rc = cuda_pick_device(opts, local_rank, &device, err);
	if (rc)
		return rc;
	cuda_slab *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	c->base = (slab_backend){&cuda_slab_ops, c->name, false, true, NULL};
	c->device = device;
	c->n = slab->nx;
	c->depth = depth;
	c->plane_words = slab->ny * slab->words;
	c->plane_bytes = (size_t)c->plane_words * 8;
	const engine_knobs *k = engine_knobs_of(opts);
	rc = open_slab(c, slab, r, k, err);
	if (!rc)
		start_skipping(c, k);
	if (rc) {
		cs_destroy(&c->base);
		return rc;
	}
	*out = &c->base;
	return L3D_OK;
}

#endif /* HAVE_CUDA */
