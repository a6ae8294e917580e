/* cuda.c - the CUDA engine's host side.
 *
 * The universe lives on the device in grid layout, in two buffers that the
 * steps ping-pong between, so upload and read-back are plain copies (made
 * in chunks through pinned staging buffers).  The upload follows the input
 * as it is read: each batch of rows goes to the device while later ones are
 * still being read, so the transfer ends soon after the file does; and a
 * writer downloads the result a chunk of rows at a time (read_rows) while
 * the chunk before is encoded and written.  The steps between two calls
 * are captured once as a CUDA graph and replayed: a call of N generations
 * is `bulk` graphs of BULK_LAUNCHES launches and one graph for the rest,
 * each cached by its shape; after the first two steps, the steps advance
 * only the tiles that can change (activity skipping, below) where that
 * pays.  On compute capability 9.0 and later the
 * launches use programmatic dependent launch, so a kernel's start-up
 * overlaps the end of the one before.  Population, births, deaths, slices,
 * projections and 3D renders are computed on the device; only their
 * results travel, a snapshot's view on a stream of its own into pinned
 * memory while the next steps run (views.c).
 *
 * LIFE3D_CUDA_LAUNCH (plain, graph, pdl) and LIFE3D_CUDA_TUNE
 * ("fuse=2,warps=8,chunk=64,words=4,generic=1,tiles=1,tilez=8") override
 * the launch mode, the kernel shapes, (tiles=1) the switch to dense steps
 * when most tiles are active and (tilez) the tiles' extent in z, for tests
 * and measurements. */
#include "cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two staging buffers of pinned memory for the universe's way to and
 * from the host (cuda_buffers), each at most STAGE_BYTES. */
#define STAGE_BYTES ((size_t)16 << 20)

uint64_t engine_cuda_host_bytes(uint64_t universe_bytes)
{
	return 2 * (universe_bytes < STAGE_BYTES ? universe_bytes : STAGE_BYTES);
}

#ifndef HAVE_CUDA

int engine_cuda_create(const engine_opts *opts, const grid *initial,
		       row_progress *ready, const rule *r, engine **out,
		       l3d_err *err)
{
	(void)opts, (void)initial, (void)ready, (void)r;
	*out = NULL;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda' is not built in (configure --with-cuda)");
}

#else /* HAVE_CUDA */

#include <pthread.h>

#include "kernels/kernels.h"
#include "device.h"
#include "graphs.h"
#include "pace.h"
#include "runtime.h"
#include "tiles.h"
#include "views.h"

enum { BULK_LAUNCHES = 64 };
/* Rows uploaded per call while the input is read: large enough that the
 * cost of a call is nothing, small enough that little is left to copy
 * once the last row is read. */
#define UPLOAD_BATCH ((size_t)4 << 20)

typedef enum launch_mode { LAUNCH_PLAIN, LAUNCH_GRAPH, LAUNCH_PDL } launch_mode;

typedef struct cuda_engine {
	engine base;
	int device;
	engine_knobs knobs;          /* as the engine was made with */
	char desc[320];
	size_t desc_len;             /* of "cuda/DEVICE", before the tiles' share */
	launch_mode mode;
	cudaStream_t stream;
	void *buf[2];
	int cur;                     /* buffer holding the current generation */
	size_t bytes;
	l3dk_plan plan;
	l3dk_counts *d_counts, *h_counts;
	void *stage[2];              /* pinned; NULL: copy without staging */
	cudaEvent_t stage_done[2];
	cudaEvent_t queued;          /* the end of the last call's steps */
	bool ahead;                  /* ... which may still be running */
	size_t stage_bytes;
	int next_stage;              /* staging buffer the next upload uses */
	size_t row_bytes;
	graph_cache graphs;           /* runs of launches, by launch_run's key */
	struct {                     /* a universe that repeats with period 2 */
		void *copy;          /* the universe two steps back, for a probe */
		bool off;            /* no memory for the copy: never probed */
		bool on;             /* it repeats: steps cost nothing */
		int a;               /* the buffer of one of its two phases */
		engine_stats of[2];  /* the counts of a generation in a, and not */
		uint64_t gap, since; /* steps between probes, and since the last */
	} settle;
	gpu_tiles tiles;             /* stepping only what can change (tiles.h) */
	bool tiles_off;              /* LIFE3D_SKIP=0, or no memory: dense */
	int tiles_words;             /* of z a tile; 0: the default */
	cuda_views view;             /* the view a snapshot is taking */
	grid host;                   /* the universe once the device is let go */
	bool pinned;                 /* ... registered with the driver for the copy */
	pthread_t giver;             /* ... which gives the device back */
	bool giving;
} cuda_engine;

/* LIFE3D_CUDA_LAUNCH (s, NULL when unset), on a GPU of compute
 * capability cc_major. */
static launch_mode read_launch_mode(const char *s, int cc_major)
{
	launch_mode best = cc_major >= 9 ? LAUNCH_PDL : LAUNCH_GRAPH;
	if (s && !strcmp(s, "plain"))
		return LAUNCH_PLAIN;
	if (s && !strcmp(s, "graph"))
		return LAUNCH_GRAPH;
	return best;
}

static cudaError_t launch_tiles(cuda_engine *c, uint64_t n, int stats, int parity, int ring,
				int list_all);

/* Issue one run of launches on the stream (directly or under capture). */
static cudaError_t launch_run(cuda_engine *c, uint64_t full, int part, int stats, int parity,
			      int ring)
{
	if (ring >= 0)
		return launch_tiles(c, full, stats, parity, ring, 0);
	uint64_t n = full + (part > 0);
	for (uint64_t i = 0; i < n; i++) {
		int gens = i < full ? c->plan.fuse : part;
		l3dk_counts *counts = stats && i + 1 == n ? c->d_counts : NULL;
		cudaError_t e = l3dk_step(&c->plan, c->buf[parity], c->buf[parity ^ 1], gens,
					  counts, c->mode == LAUNCH_PDL, c->stream);
		if (e != cudaSuccess)
			return e;
		parity ^= 1;
	}
	return cudaSuccess;
}

/* launch_run under capture: a graph's key is a run's shape, `full` of
 * plan.fuse generations, then one of `part` generations (0: none),
 * starting from buffer `parity`; or, with `ring` 0..2, `full` tile steps
 * starting from list `ring` (stored as ring + 1). */
static cudaError_t issue_run(void *ctx, const uint64_t key[GRAPH_KEY], cudaStream_t s)
{
	cuda_engine *c = ctx;
	(void)s;
	return launch_run(c, key[0], (int)(key[1] >> 1), (int)(key[1] & 1), (int)key[2],
			  (int)key[3] - 1);
}

/* The cached graph for a run from the current buffer, captured on first
 * use; ring -1 for dense steps. */
static int run_graph(cuda_engine *c, uint64_t full, int part, int stats, int ring,
		     l3d_err *err)
{
	const uint64_t key[GRAPH_KEY] = {full, (uint64_t)part << 1 | (stats != 0),
					 (uint64_t)c->cur, (uint64_t)(ring + 1)};
	CUDA_TRY(graph_cache_launch(&c->graphs, key, issue_run, c, c->stream),
		 "running the steps as a graph");
	return L3D_OK;
}

/* Steps of every cell. */
static int run_dense(cuda_engine *c, uint64_t steps, int stats, l3d_err *err)
{
	uint64_t fuse = (uint64_t)c->plan.fuse, bulk = BULK_LAUNCHES * fuse;
	if (c->mode == LAUNCH_PLAIN) {
		CUDA_TRY(launch_run(c, steps / fuse, (int)(steps % fuse), stats, c->cur, -1),
			 "launching a step");
		c->cur ^= (int)((steps / fuse + (steps % fuse > 0)) & 1);
		return L3D_OK;
	}
	/* BULK_LAUNCHES is even, so bulk runs leave the current buffer. */
	uint64_t rounds = steps / bulk, rest = steps % bulk;
	if (rest == 0 && stats) {
		rounds--;
		rest = bulk;
	}
	for (uint64_t i = 0; i < rounds; i++) {
		int rc = run_graph(c, BULK_LAUNCHES, 0, 0, -1, err);
		if (rc)
			return rc;
	}
	if (rest) {
		int rc = run_graph(c, rest / fuse, (int)(rest % fuse), stats, -1, err);
		if (rc)
			return rc;
		c->cur ^= (int)((rest / fuse + (rest % fuse > 0)) & 1);
	}
	return L3D_OK;
}

/* ---- stepping only the tiles that can change (kernels/tiles.cu) ----
 * At the pace of pace.h, through tiles.h; the tile steps in graphs of up
 * to TILE_RUN.  The size of the list after each graph comes back to the
 * host, which reads it once the next graph is queued, so the device does
 * not wait.  An empty list means that no tile changed from two
 * generations back: the universe repeats with period 2 from there on, as
 * the probes below would find, and further steps are a swap (so with tiles
 * there are no probes). */
enum { TILE_RUN = 48 };

static int read_counts(cuda_engine *c, engine_stats *out, l3d_err *err);

/* n tile steps from buffer `parity` and list `ring` (list_all: a list of
 * every tile, for the first of them). */
static cudaError_t launch_tiles(cuda_engine *c, uint64_t n, int stats, int parity, int ring,
				int list_all)
{
	int pdl = c->mode == LAUNCH_PDL;
	for (uint64_t i = 0; i < n; i++) {
		cudaError_t e = l3dk_tiles_step(&c->plan, &c->tiles.t, ring, c->buf[parity],
						c->buf[parity ^ 1], parity ^ 1, list_all && i == 0,
						pdl, c->stream);
		if (e != cudaSuccess)
			return e;
		parity ^= 1;
		ring = ring == 2 ? 0 : ring + 1;
	}
	return stats ? l3dk_tiles_counts(&c->tiles.t, parity, c->d_counts, pdl, c->stream)
		     : cudaSuccess;
}

/* The tiles' memory on first use (without it, dense steps from then on);
 * every list emptied, and two steps over every tile to come. */
static int tiles_start(cuda_engine *c, l3d_err *err)
{
	if (!c->tiles.t.base) {
		size_t bytes;
		if (!gpu_tiles_make(&c->tiles, &c->plan, c->plan.nx, 0, c->tiles_words, false,
				    &bytes)) {
			c->tiles_off = true;
			return L3D_OK;
		}
		CUDA_TRY(cudaMemsetAsync(c->tiles.t.base, 0, bytes, c->stream),
			 "clearing the tiles");
	}
	CUDA_TRY(gpu_tiles_start(&c->tiles, c->stream), "clearing the tiles");
	return L3D_OK;
}

/* The universe repeats with period 2: the counts of its two phases, from
 * the tiles' counts of each buffer, once everything queued is done. */
static int tiles_settle(cuda_engine *c, l3d_err *err)
{
	engine_stats of[2];
	for (int k = 0; k < 2; k++) {
		CUDA_TRY(cudaMemsetAsync(c->d_counts, 0, sizeof *c->d_counts, c->stream),
			 "clearing the counters");
		CUDA_TRY(l3dk_tiles_counts(&c->tiles.t, c->cur ^ k, c->d_counts, 0, c->stream),
			 "counting the tiles");
		int rc = read_counts(c, &of[k], err);
		if (rc)
			return rc;
	}
	c->settle.on = true;
	c->settle.a = c->cur;
	c->settle.of[0] = of[0];
	c->settle.of[1] = of[1];
	return L3D_OK;
}

/* Whether a list of `size` tiles is worth stepping (if not, dense steps
 * for a while), or whether the universe has come to repeat. */
static int tiles_judge(cuda_engine *c, uint32_t size, l3d_err *err)
{
	if (size == 0)
		return tiles_settle(c, err);
	gpu_tiles_judge(&c->tiles, size);
	return L3D_OK;
}

/* One step over every tile, and the list it leaves judged (the device
 * waits for that).  After dense steps of one generation a launch, the
 * buffer written held the generation before, so the first list is already
 * the true one, or more, and a busy universe goes back to dense steps at
 * once; the second step makes every tile's counts known. */
static int tiles_fresh_step(cuda_engine *c, int stats, l3d_err *err)
{
	int pdl = c->mode == LAUNCH_PDL;
	CUDA_TRY(l3dk_tiles_all(&c->tiles.t, c->tiles.ring, pdl, c->stream), "listing the tiles");
	CUDA_TRY(launch_tiles(c, 1, stats, c->cur, c->tiles.ring, 1), "stepping the tiles");
	c->cur ^= 1;
	gpu_tiles_turn(&c->tiles, 1);
	uint32_t size;
	int rc = gpu_tiles_fresh_size(&c->tiles, c->stream, &size, err);
	if (rc)
		return rc;
	c->ahead = false;
	if (c->tiles.pace.fresh && size == 0)
		return L3D_OK;
	return tiles_judge(c, size, err);
}

/* After a graph of tile steps is queued: the list size left by the graph
 * before it judged, and this one's asked for. */
static int tiles_check(cuda_engine *c, l3d_err *err)
{
	bool heard;
	uint32_t size;
	CUDA_TRY(gpu_tiles_hear(&c->tiles, true, &heard, &size), "stepping the tiles");
	if (heard) {
		int rc = tiles_judge(c, size, err);
		if (rc || !c->tiles.pace.on || c->settle.on)
			return rc;
	}
	return gpu_tiles_ask(&c->tiles, c->stream, err);
}

static int run_tiles(cuda_engine *c, uint64_t n, int stats, l3d_err *err)
{
	if (c->mode == LAUNCH_PLAIN)
		CUDA_TRY(launch_tiles(c, n, stats, c->cur, c->tiles.ring, 0), "stepping the tiles");
	else {
		int rc = run_graph(c, n, 0, stats, c->tiles.ring, err);
		if (rc)
			return rc;
	}
	c->cur ^= (int)(n & 1);
	gpu_tiles_turn(&c->tiles, n);
	tile_pace_count(&c->tiles.pace, n);
	return tiles_check(c, err);
}

/* `steps` steps, by tiles where that pays; with stats, the counts of the
 * last one in d_counts.  *done: the steps run, fewer when the universe
 * is found to repeat (settle.on; the rest are a swap). */
static int run_steps(cuda_engine *c, uint64_t steps, int stats, uint64_t *done,
		     l3d_err *err)
{
	uint64_t asked = steps;
	while (steps > 0 && !c->settle.on) {
		int rc;
		uint64_t n;
		tile_pace *pace = &c->tiles.pace;
		if (!pace->on) {
			n = c->tiles_off || steps < pace->dense_left ? steps : pace->dense_left;
			rc = n ? run_dense(c, n, stats && n == steps, err) : tiles_start(c, err);
			if (rc)
				return rc;
			tile_pace_count(pace, n);
			steps -= n;
		} else if (pace->fresh) {
			tile_pace_count(pace, 1);
			rc = tiles_fresh_step(c, stats && steps == 1, err);
			if (rc)
				return rc;
			steps--;
		} else {
			n = steps < TILE_RUN ? steps : TILE_RUN;
			rc = run_tiles(c, n, stats && n == steps, err);
			if (rc)
				return rc;
			steps -= n;
		}
	}
	*done = asked - steps;
	return L3D_OK;
}

/* ---- a universe that repeats with period 2 ----
 * Every `gap` steps (64, doubling to 4096 while it fails) the universe is
 * copied, stepped twice and compared with the copy.  When the two are the
 * same it repeats with period 2 from there on (the rule is deterministic):
 * the two buffers hold its two phases, a step is a swap and its counts are
 * known, so any number of steps costs nothing.  Bit for bit what stepping
 * would give.  The probe costs a copy and two passes over the universe
 * and one wait for the device. */
enum { SETTLE_FIRST = 64, SETTLE_MOST = 4096 };

/* The device's counters to the host, once everything queued is done. */
static int read_counts(cuda_engine *c, engine_stats *out, l3d_err *err)
{
	CUDA_TRY(cudaMemcpyAsync(c->h_counts, c->d_counts, sizeof *c->h_counts,
				 cudaMemcpyDeviceToHost, c->stream),
		 "reading the counters");
	CUDA_TRY(cudaStreamSynchronize(c->stream), "stepping");
	c->ahead = false;
	*out = (engine_stats){c->h_counts->population, c->h_counts->births,
			      c->h_counts->deaths};
	return L3D_OK;
}

/* Counts of the current universe against `other`, on the host
 * (l3dk_compare's: population, births into it, deaths). */
static int compare_with(cuda_engine *c, const void *other, engine_stats *out, l3d_err *err)
{
	CUDA_TRY(cudaMemsetAsync(c->d_counts, 0, sizeof *c->d_counts, c->stream),
		 "clearing the counters");
	CUDA_TRY(l3dk_compare(&c->plan, c->buf[c->cur], other, c->d_counts, c->stream),
		 "comparing generations");
	return read_counts(c, out, err);
}

/* Two steps, the counts of the second in *last, and whether they brought
 * the universe back.  *probed false: no memory for the copy (then never
 * again). */
static int probe(cuda_engine *c, engine_stats *last, bool *probed, l3d_err *err)
{
	*probed = false;
	if (!c->settle.copy && cudaMalloc(&c->settle.copy, c->bytes) != cudaSuccess) {
		(void)cudaGetLastError();
		c->settle.copy = NULL;
		c->settle.off = true;
		return L3D_OK;
	}
	CUDA_TRY(cudaMemcpyAsync(c->settle.copy, c->buf[c->cur], c->bytes,
				 cudaMemcpyDeviceToDevice, c->stream),
		 "copying the universe");
	uint64_t done;
	int rc = run_steps(c, 2, 0, &done, err);
	engine_stats back, now;
	if (!rc)
		rc = compare_with(c, c->settle.copy, &back, err);
	if (!rc)
		rc = compare_with(c, c->buf[c->cur ^ 1], &now, err);
	if (rc)
		return rc;
	*probed = true;
	*last = now;
	c->settle.since = 0;
	if (back.births || back.deaths) {
		c->settle.gap = c->settle.gap < SETTLE_MOST ? 2 * c->settle.gap : SETTLE_MOST;
		return L3D_OK;
	}
	c->settle.on = true;
	c->settle.a = c->cur;
	c->settle.of[0] = *last;
	c->settle.of[1] = (engine_stats){now.population - now.births + now.deaths,
					 now.deaths, now.births};
	return L3D_OK;
}

/* Steps of a universe that repeats: a swap for an odd number, and steps
 * in which no tile was stepped (-v's share is over every step, as the CPU
 * engine's is). */
static void leap(cuda_engine *c, uint64_t steps, engine_stats *last)
{
	c->cur ^= (int)(steps & 1);
	c->tiles.pace.tile_steps += steps;
	*last = c->settle.of[c->cur == c->settle.a ? 0 : 1];
}

/* Probes are for engines without tiles (no memory for them). */
static bool probing(const cuda_engine *c)
{
	return !c->settle.off && c->tiles_off;
}

/* Steps to run before the next probe.  A call of up to SETTLE_MOST steps
 * is not cut (its probe, when due, comes first): calls between snapshots
 * keep their few graph shapes, and each recapture would cost more than a
 * late probe.  A longer call is cut where the probe is due, in whole bulk
 * graphs. */
static uint64_t before_probe(const cuda_engine *c, uint64_t steps)
{
	if (!probing(c) || c->settle.since >= c->settle.gap || steps <= SETTLE_MOST)
		return steps;
	uint64_t bulk = BULK_LAUNCHES * (uint64_t)c->plan.fuse;
	uint64_t n = (c->settle.gap - c->settle.since + bulk - 1) / bulk * bulk;
	return n < steps ? n : steps;
}

/* Nothing but reads follows engine_let_go: a step would use memory given
 * back. */
static int let_go_already(const cuda_engine *c, l3d_err *err)
{
	return c->host.bits ? l3d_fail(err, L3D_ERR_RUNTIME,
				       "engine 'cuda': used after its device was let go")
			    : L3D_OK;
}

static int cuda_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	int gone = let_go_already(c, err);
	if (gone)
		return gone;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	engine_stats known = {0, 0, 0};
	bool on_host = false, on_device = false, queued = false;
	while (steps > 0) {
		if (c->settle.on) {
			leap(c, steps, &known);
			on_host = true, on_device = false;
			break;
		}
		if (probing(c) && c->settle.since >= c->settle.gap && steps >= 2) {
			bool probed;
			int rc = probe(c, &known, &probed, err);
			if (rc)
				return rc;
			if (probed) {
				on_host = true, on_device = false, queued = false;
				steps -= 2;
				continue;
			}
		}
		uint64_t n = before_probe(c, steps);
		bool count = stats && n == steps;
		if (count)
			CUDA_TRY(cudaMemsetAsync(c->d_counts, 0, sizeof *c->d_counts, c->stream),
				 "clearing the counters");
		uint64_t done;
		int rc = run_steps(c, n, count, &done, err);
		if (rc)
			return rc;
		c->settle.since += done;
		steps -= done;
		on_host = false, on_device = count, queued = true;
		if (c->settle.on) {
			leap(c, steps, &known);
			on_host = true, on_device = false;
			break;
		}
	}
	if (stats && !on_host && !on_device) {
		CUDA_TRY(cudaMemsetAsync(c->d_counts, 0, sizeof *c->d_counts, c->stream),
			 "clearing the counters");
		CUDA_TRY(l3dk_population(&c->plan, c->buf[c->cur], c->d_counts, c->stream),
			 "counting the population");
		on_device = true;
	}
	if (stats && on_host) {
		*stats = known;
		return L3D_OK;
	}
	/* Without counts to return, the call ends once the call before it has:
	 * its own steps are left running, so the device is not idle while the
	 * caller takes a snapshot or looks at the clock and queues the next
	 * ones.  Whatever reads the universe comes after them on the stream. */
	if (!stats) {
		if (!queued)
			return L3D_OK;
		if (c->ahead)
			CUDA_TRY(cudaEventSynchronize(c->queued), "stepping");
		CUDA_TRY(cudaEventRecord(c->queued, c->stream), "cudaEventRecord");
		c->ahead = true;
		return L3D_OK;
	}
	return read_counts(c, stats, err);
}

static int cuda_finish(engine *e, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	if (!c->ahead)
		return L3D_OK;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	CUDA_TRY(cudaEventSynchronize(c->queued), "stepping");
	c->ahead = false;
	return L3D_OK;
}

/* Bytes [off, off + len) of the universe from `host` (the whole host
 * universe) to the device.  Through the staging buffers in turn, so that
 * filling one overlaps the transfer from the other; the transfers are
 * left running, the caller synchronises. */
static int upload_range(cuda_engine *c, const char *host, size_t off, size_t len,
			l3d_err *err)
{
	char *dst = c->buf[c->cur];
	/* The whole universe in one call (every row was read before the
	 * device was ready, as at 1024^3 from a file): registered with the
	 * driver and sent in one transfer: 9-14 ms at 1024^3 on an H200,
	 * against 21-26 through the staging buffers. */
	if (off == 0 && len == c->bytes && len > c->stage_bytes) {
		if (cudaHostRegister((void *)host, len, cudaHostRegisterDefault) == cudaSuccess) {
			cudaError_t e = cudaMemcpy(dst, host, len, cudaMemcpyHostToDevice);
			cudaHostUnregister((void *)host);
			CUDA_TRY(e, "uploading");
			return L3D_OK;
		}
		cudaGetLastError();    /* refused: through the staging buffers */
	}
	if (!c->stage[0]) {
		CUDA_TRY(cudaMemcpy(dst + off, host + off, len, cudaMemcpyHostToDevice),
			 "uploading");
		return L3D_OK;
	}
	for (size_t end = off + len, n; off < end; off += n, c->next_stage ^= 1) {
		int i = c->next_stage;
		n = end - off < c->stage_bytes ? end - off : c->stage_bytes;
		CUDA_TRY(cudaEventSynchronize(c->stage_done[i]), "uploading");
		memcpy(c->stage[i], host + off, n);
		CUDA_TRY(cudaMemcpyAsync(dst + off, c->stage[i], n, cudaMemcpyHostToDevice,
					 c->stream),
			 "uploading");
		CUDA_TRY(cudaEventRecord(c->stage_done[i], c->stream), "uploading");
	}
	return L3D_OK;
}

typedef struct upload_job {
	cuda_engine *c;
	const char *host;
} upload_job;

static int upload_rows(void *ctx, uint64_t first, uint64_t n, l3d_err *err)
{
	upload_job *u = ctx;
	size_t row = u->c->row_bytes;
	return upload_range(u->c, u->host, (size_t)first * row, (size_t)n * row, err);
}

/* The rows as the input announces them (all at once when ready is NULL). */
static int upload(cuda_engine *c, const grid *initial, row_progress *ready,
		  l3d_err *err)
{
	upload_job u = {c, (const char *)initial->bits};
	uint64_t batch = UPLOAD_BATCH / c->row_bytes;
	int rc = row_progress_follow(ready, initial->nx * initial->ny, batch, upload_rows,
				     &u, "engine 'cuda'", err);
	/* Transfers still running read the staging buffers: let them end
	 * before anything is freed. */
	cudaError_t e = cudaStreamSynchronize(c->stream);
	if (rc)
		return rc;
	if (e != cudaSuccess)
		return cuda_fail(err, e, "uploading");
	return L3D_OK;
}

/* Bytes [off, off + len) of the universe into `host` (len bytes).  Chunk
 * k+1 is in flight to a staging buffer while chunk k is copied out of the
 * other. */
static int download(cuda_engine *c, void *host, size_t off, size_t len, l3d_err *err)
{
	char *dst = host;
	const char *src = (const char *)c->buf[c->cur] + off;
	if (!c->stage[0]) {
		CUDA_TRY(cudaMemcpy(dst, src, len, cudaMemcpyDeviceToHost), "reading back");
		return L3D_OK;
	}
	size_t chunks = (len + c->stage_bytes - 1) / c->stage_bytes;
	for (size_t k = 0; k <= chunks; k++) {
		if (k < chunks) {
			size_t at = k * c->stage_bytes;
			size_t n = len - at < c->stage_bytes ? len - at : c->stage_bytes;
			CUDA_TRY(cudaMemcpyAsync(c->stage[k & 1], src + at, n,
						 cudaMemcpyDeviceToHost, c->stream),
				 "reading back");
			CUDA_TRY(cudaEventRecord(c->stage_done[k & 1], c->stream), "reading back");
		}
		if (k > 0) {
			size_t at = (k - 1) * c->stage_bytes;
			size_t n = len - at < c->stage_bytes ? len - at : c->stage_bytes;
			CUDA_TRY(cudaEventSynchronize(c->stage_done[(k - 1) & 1]), "reading back");
			memcpy(dst + at, c->stage[(k - 1) & 1], n);
		}
	}
	return L3D_OK;
}

static int cuda_read(engine *e, grid *out, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	if (c->host.bits) {
		memcpy(out->bits, c->host.bits, c->bytes);
		return L3D_OK;
	}
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	return download(c, out->bits, 0, c->bytes, err);
}

/* Called from whichever thread runs a writer's fetch stage: the device is
 * made current on that thread first. */
static int cuda_read_rows(engine *e, uint64_t first, uint64_t n, uint64_t *out,
			  l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	return download(c, out, (size_t)first * c->row_bytes, (size_t)n * c->row_bytes,
			err);
}

/* ---- snapshot views (views.c), with the device made current ---- */

static int cuda_view_start(engine *e, bool project, int axis, uint64_t index, void *out,
			   l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	uint64_t extent[3] = {c->base.nx, c->base.ny, c->base.nz};
	if (axis < 0 || axis > 2 || (!project && index >= extent[axis]))
		return l3d_fail(err, L3D_ERR_USAGE, "engine 'cuda': no slice %llu on axis %d",
				(unsigned long long)index, axis);
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	return cuda_views_start(&c->view, &c->plan, c->buf[c->cur], project, axis, index, out,
				c->stream, err);
}

static int cuda_render_prepare(engine *e, const render_view *v, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	return cuda_views_render_prepare(&c->view, v, c->stream, err);
}

static int cuda_render_start(engine *e, const render_view *v, uint8_t *rgb, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	return cuda_views_render(&c->view, &c->plan, c->buf[c->cur], v, rgb, c->stream, err);
}

/* May run on the snapshot thread while the stepping thread goes on. */
static int cuda_view_wait(engine *e, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	if (!c->view.out)
		return L3D_OK;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	return cuda_views_wait(&c->view, err);
}

static int cuda_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	int rc = cuda_view_start(e, true, axis, 0, counts, err);
	return rc ? rc : cuda_view_wait(e, err);
}

static int cuda_slice(engine *e, int axis, uint64_t index, uint8_t *cells, l3d_err *err)
{
	int rc = cuda_view_start(e, false, axis, index, cells, err);
	return rc ? rc : cuda_view_wait(e, err);
}

/* What cuda_destroy frees on the device and in pinned memory (the let-go
 * copy's registration included). */
static void free_device(cuda_engine *c)
{
	cudaSetDevice(c->device);
	if (c->pinned)
		cudaHostUnregister(c->host.bits);
	c->pinned = false;
	if (c->stream)          /* steps may still be running (cuda_step) */
		cudaStreamSynchronize(c->stream);
	graph_cache_clear(&c->graphs);
	for (int i = 0; i < 2; i++) {
		cudaFree(c->buf[i]);
		cudaFreeHost(c->stage[i]);
		if (c->stage_done[i])
			cudaEventDestroy(c->stage_done[i]);
	}
	cudaFree(c->d_counts);
	cudaFreeHost(c->h_counts);
	if (c->queued)
		cudaEventDestroy(c->queued);
	cuda_views_free(&c->view);
	cudaFree(c->settle.copy);
	gpu_tiles_free(&c->tiles);
	if (c->stream)
		cudaStreamDestroy(c->stream);
}

static void cuda_destroy(engine *e)
{
	cuda_engine *c = (cuda_engine *)e;
	if (!c)
		return;
	if (c->giving)
		pthread_join(c->giver, NULL);
	else
		free_device(c);
	grid_free(&c->host);
	free(c);
}

/* ---- letting the device go (engine_let_go) ---- */

/* The device freed, then the primary context reset: the driver's
 * teardown, about 70 ms on an H200, which the process's exit would
 * otherwise pay after the result is written (src/engine/NOTES.md,
 * "A GPU run's start and end, taken apart"). */
static void *give_back(void *arg)
{
	cuda_engine *c = arg;
	free_device(c);
	cudaDeviceReset();
	return NULL;
}

static const char *cuda_describe(const engine *e);

static int cuda_let_go(engine *e, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	int rc = c->host.bits ? L3D_OK : cuda_finish(e, err);
	if (rc || c->host.bits)
		return rc;
	cuda_describe(e);    /* the share of tiles stepped, while it can be read */
	l3d_err no_room;
	if (grid_alloc(&c->host, e->nx, e->ny, e->nz, &no_room) != L3D_OK)
		return L3D_OK;
	/* Its pages made on every core, then pinned for the copy: 10-14 ms at
	 * 1024^3 on an H200, against 38-45 for a copy into new pageable
	 * memory, whose pages the kernel clears one fault at a time. */
	grid_touch(&c->host);
	cudaError_t ce = cudaSetDevice(c->device);
	c->pinned = ce == cudaSuccess &&
		    cudaHostRegister(c->host.bits, c->bytes, cudaHostRegisterDefault) == cudaSuccess;
	if (!c->pinned)
		cudaGetLastError();
	if (ce == cudaSuccess)
		ce = cudaMemcpy(c->host.bits, c->buf[c->cur], c->bytes, cudaMemcpyDeviceToHost);
	if (ce != cudaSuccess) {
		if (c->pinned)
			cudaHostUnregister(c->host.bits);
		c->pinned = false;
		grid_free(&c->host);
		return cuda_fail(err, ce, "reading back");
	}
	c->giving = pthread_create(&c->giver, NULL, give_back, c) == 0;
	return L3D_OK;
}

static grid *cuda_host_grid(engine *e)
{
	cuda_engine *c = (cuda_engine *)e;
	return c->host.bits ? &c->host : NULL;
}

/* The device's name, and the share of tiles stepped when tiles are. */
static const char *cuda_describe(const engine *e)
{
	cuda_engine *c = (cuda_engine *)e;
	uint64_t steps = c->tiles.pace.dense_steps + c->tiles.pace.tile_steps;
	unsigned long long stepped = 0;
	if (c->host.bits)    /* let go: as said before */
		return c->desc;
	c->desc[c->desc_len] = 0;
	if (c->tiles_off || !c->tiles.t.base || !steps ||
	    cudaSetDevice(c->device) != cudaSuccess ||
	    cudaMemcpy(&stepped, c->tiles.t.stepped, sizeof stepped,
		       cudaMemcpyDeviceToHost) != cudaSuccess)
		return c->desc;
	double share = tile_pace_share(&c->tiles.pace, c->tiles.t.count, (double)stepped);
	snprintf(c->desc + c->desc_len, sizeof c->desc - c->desc_len, ", %.3g%% of tiles stepped",
		 100 * share);
	return c->desc;
}

/* An empty list of tiles, or a probe, found the universe repeating. */
static bool cuda_repeats(const engine *e)
{
	return ((const cuda_engine *)e)->settle.on;
}

/* The universe u uploaded into the current buffer (the graphs, keyed by
 * buffer, stay valid), and what the engine knew of the one before
 * forgotten: its repeat, and the pace of its tiles, so the next steps
 * start dense, as a new engine's do.  -v's share goes on over every
 * universe, as the device's count of tiles stepped does. */
static int cuda_load(engine *e, const grid *u, l3d_err *err)
{
	cuda_engine *c = (cuda_engine *)e;
	if (c->host.bits)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "engine 'cuda': its device was let go");
	int rc = cuda_finish(e, err);
	if (rc)
		return rc;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	CUDA_TRY(cudaStreamSynchronize(c->stream), "stepping");
	c->tiles.pending = false;
	c->settle.on = false;
	c->settle.gap = SETTLE_FIRST;
	c->settle.since = 0;
	tile_pace was = c->tiles.pace;
	tile_pace_init(&c->tiles.pace, was.always);
	c->tiles.pace.tile_steps = was.tile_steps;
	c->tiles.pace.dense_steps = was.dense_steps;
	return upload(c, u, NULL, err);
}

static const engine_ops cuda_ops = {
	.name = "cuda",
	.step = cuda_step,
	.finish = cuda_finish,
	.read = cuda_read,
	.read_rows = cuda_read_rows,
	.project = cuda_project,
	.slice = cuda_slice,
	.view_start = cuda_view_start,
	.view_wait = cuda_view_wait,
	.render_start = cuda_render_start,
	.render_prepare = cuda_render_prepare,
	.destroy = cuda_destroy,
	.host_grid = cuda_host_grid,
	.let_go = cuda_let_go,
	.describe = cuda_describe,
	.repeats = cuda_repeats,
	.load = cuda_load,
};

/* Fail before allocating when the two buffers cannot fit. */
static int check_memory(cuda_engine *c, const char *name, l3d_err *err)
{
	char what[96];
	snprintf(what, sizeof what, "a %llux%llux%llu universe",
		 (unsigned long long)c->base.nx, (unsigned long long)c->base.ny,
		 (unsigned long long)c->base.nz);
	return cuda_memory_check(2.0 * (double)c->bytes, what, name, err);
}

static int allocate(cuda_engine *c, l3d_err *err)
{
	CUDA_TRY(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
		 "cudaStreamCreate");
	for (int i = 0; i < 2; i++)
		CUDA_TRY(cudaMalloc(&c->buf[i], c->bytes), "allocating the universe");
	CUDA_TRY(cudaMalloc((void **)&c->d_counts, sizeof *c->d_counts), "cudaMalloc");
	CUDA_TRY(cudaMallocHost((void **)&c->h_counts, sizeof *c->h_counts), "cudaMallocHost");
	CUDA_TRY(cudaEventCreateWithFlags(&c->queued, cudaEventDisableTiming), "cudaEventCreate");
	c->settle.gap = SETTLE_FIRST;
	c->settle.off = c->knobs.dense;
	c->tiles_off = c->settle.off;
	c->stage_bytes = c->bytes < STAGE_BYTES ? c->bytes : STAGE_BYTES;
	for (int i = 0; i < 2; i++) {
		CUDA_TRY(cudaEventCreateWithFlags(&c->stage_done[i], cudaEventDisableTiming),
			 "cudaEventCreate");
		/* Without pinned memory the copies still work, only slower. */
		if (cudaMallocHost(&c->stage[i], c->stage_bytes) != cudaSuccess) {
			cudaGetLastError();
			cudaFreeHost(c->stage[0]);
			c->stage[0] = c->stage[1] = NULL;
			break;
		}
	}
	return L3D_OK;
}

static int open_device(cuda_engine *c, const grid *initial, row_progress *ready,
		       l3d_err *err)
{
	struct cudaDeviceProp p;
	CUDA_TRY(cudaSetDevice(c->device), "cudaSetDevice");
	CUDA_TRY(cudaGetDeviceProperties(&p, c->device), "cudaGetDeviceProperties");
	snprintf(c->desc, sizeof c->desc, "cuda/%s", p.name);
	c->desc_len = strlen(c->desc);
	c->mode = read_launch_mode(c->knobs.launch, p.major);
	int rc = check_memory(c, p.name, err);
	if (rc)
		return rc;
	l3dk_tuning tune;
	cuda_tuning(c->knobs.cuda_tune, &tune);
	CUDA_TRY(l3dk_plan_make(&c->plan, c->base.nx, c->base.ny, c->base.nz, c->base.rule.birth,
				c->base.rule.survive, (rule_hood)c->base.rule.hood, &tune),
		 "planning the kernels");
	cuda_describe_rule(&c->plan, c->desc + c->desc_len, sizeof c->desc - c->desc_len);
	c->desc_len = strlen(c->desc);
	tile_pace_init(&c->tiles.pace, tune.tiles == 1);
	c->tiles_words = tune.tilez;
	if ((rc = allocate(c, err)))
		return rc;
	return upload(c, initial, ready, err);
}

int engine_cuda_create(const engine_opts *opts, const grid *initial,
		       row_progress *ready, const rule *r, engine **out, l3d_err *err)
{
	int device;
	*out = NULL;
	int rc = cuda_pick_device(opts, 0, &device, err);
	if (rc)
		return rc;
	cuda_engine *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	c->base.ops = &cuda_ops;
	c->base.nx = initial->nx;
	c->base.ny = initial->ny;
	c->base.nz = initial->nz;
	c->base.rule = *r;
	c->device = device;
	c->knobs = *engine_knobs_of(opts);
	c->bytes = grid_bytes(initial);
	c->row_bytes = (size_t)initial->words * 8;
	rc = open_device(c, initial, ready, err);
	if (rc) {
		cuda_destroy(&c->base);
		return rc;
	}
	*out = &c->base;
	return L3D_OK;
}

#endif /* HAVE_CUDA */
