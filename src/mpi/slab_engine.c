/* slab_engine.c - see slab_engine.h: each rank steps its own x-planes.
 *
 * A rank keeps its n planes and `depth` halo planes on each side, in grid
 * layout, in one buffer per generation:
 *
 *     [-depth, 0)    copies of the left neighbour's last planes
 *     [0, n)         this rank's planes
 *     [n, n + depth) copies of the right neighbour's first planes
 *
 * (neighbours are cyclic: the universe is a torus).  A batch of b <= depth
 * steps starts with one exchange of b planes each way; then step j of the
 * batch computes planes [-(b-1-j), n+(b-1-j)), the valid region shrinking
 * by a plane on each side per step, so after b steps exactly [0, n) is
 * right.  b = 1 is the plain exchange every step; deeper halos trade b - 1
 * extra planes of work per step for b times fewer messages, which pays
 * when slabs are thin and latency, not work, sets the pace.  In the first
 * step of a batch the planes that need no halo are computed while the
 * halo messages travel.
 *
 * A backend may skip the tiles whose neighbourhood did not change (both
 * do: engine/cpu/skip.h, kernels/tiles.cu): a generation it steps by tiles
 * waits for its halos and gets its own planes in one call, or the whole
 * batch goes in one call where the backend can (a GPU's graph).  Every few
 * batches the ranks ask one another whether anything changed; when
 * nothing did, the universe repeats with period 2 and the steps left pass
 * at once.
 *
 * Stepping sits behind slab_backend (backend.h): the rank's cores
 * (backend_cpu.c) or its GPU (backend_cuda.c).  Halos travel one of four
 * ways (halo_path), chosen once for the run: the CPU backend hands its
 * planes to MPI; GPU backends trade them device to device through their
 * own link (NCCL) when every rank has one, else hand device pointers to a
 * CUDA-aware MPI, else stage them through pinned host buffers.
 * LIFE3D_HALO names a way instead (staged works with the CPU backend too,
 * so that path is tested without a GPU).
 *
 * Views and read-back are collective (every rank calls them) and land on
 * rank 0 only; the other ranks' output buffers are left untouched. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "backend.h"
#include "comm.h"
#include "slab_engine.h"
#include "base/hostmem.h"
#include "engine/choose.h"
#include "engine/leap.h"

/* ---- the engine ---- */

typedef enum halo_path {
	HALO_HOST,          /* MPI on the planes, in host memory (CPU backend) */
	HALO_DEVICE_MPI,    /* MPI on device memory (a CUDA-aware library) */
	HALO_STAGED,        /* device (or host) -> pinned host -> MPI -> back */
	HALO_LINK           /* the backend's link, device to device (NCCL) */
} halo_path;

typedef struct mpi_engine {
	engine base;
	slab_backend *b;
	uint64_t x0, n, plane_words, depth;
	uint64_t link_depth;     /* the depth should halos go through the link */
	uint64_t device_depth;   /* ... through MPI from a GPU's memory */
	int rank, size, left, right;
	halo_path path;
	bool skips;              /* every rank's backend skips tiles */
	uint64_t *stage_buf;     /* 4 * depth planes: out low, out high, in low, in high */
	grid mirror;             /* own planes in host memory, for a device backend */
	/* leaps (engine/leap.h): each generation's hash of the own planes
	 * while a hashed call steps (recording), and the planes set aside */
	bool recording, hashing, hash_decided;
	bool no_leap;            /* LIFE3D_LEAP=0 on this rank */
	uint64_t hash_mask;
	uint64_t hashed;
	uint64_t hashes[LEAP_CHUNK];
	int known[LEAP_CHUNK];
	grid marked;
	char text[400];
	size_t text_len;         /* of the description without the tiles stepped */
} mpi_engine;

/* Halo staging buffers, from the backend (pinned memory for a GPU). */
static uint64_t *stage_alloc(mpi_engine *m, uint64_t planes)
{
	return m->b->ops->host_alloc(m->b, planes * m->plane_words * 8);
}

static void stage_free(mpi_engine *m, uint64_t *p)
{
	m->b->ops->host_free(m->b, p);
}

enum { TAG_TO_LEFT = 1, TAG_TO_RIGHT = 2, TAG_VIEW = 3 };

static int copies_done(mpi_engine *m, l3d_err *err)
{
	return m->b->ops->copies_done ? m->b->ops->copies_done(m->b, err) : L3D_OK;
}

/* Both halo exchanges of a batch of b steps, posted; they complete in
 * exchange_finish.  The buffers travel as planes of 64-bit words. */
static int exchange_start(mpi_engine *m, uint64_t b, MPI_Request req[4],
			  uint64_t *in[2], l3d_err *err)
{
	const slab_backend_ops *ops = m->b->ops;
	int64_t n = (int64_t)m->n, d = (int64_t)b;
	int count = (int)(b * m->plane_words), rc = L3D_OK;
	uint64_t *out[2];
	if (m->path == HALO_STAGED) {
		uint64_t quarter = m->depth * m->plane_words;
		out[0] = m->stage_buf;
		out[1] = m->stage_buf + quarter;
		in[0] = m->stage_buf + 2 * quarter;
		in[1] = m->stage_buf + 3 * quarter;
		/* Waiting for these also covers the last exchange's copies in,
		 * so `in` may be received into again. */
		rc = ops->to_host(m->b, 0, b, out[0], err);
		if (!rc)
			rc = ops->to_host(m->b, n - d, b, out[1], err);
		if (!rc)
			rc = copies_done(m, err);
	} else {
		out[0] = ops->plane(m->b, 0);
		out[1] = ops->plane(m->b, n - d);
		in[0] = ops->plane(m->b, -d);
		in[1] = ops->plane(m->b, n);
	}
	/* Tags tell the two directions apart when both neighbours are the
	 * same rank (two ranks in all). */
	MPI_Irecv(in[0], count, MPI_UINT64_T, m->left, TAG_TO_RIGHT, comm_world, &req[0]);
	MPI_Irecv(in[1], count, MPI_UINT64_T, m->right, TAG_TO_LEFT, comm_world, &req[1]);
	MPI_Isend(out[0], count, MPI_UINT64_T, m->left, TAG_TO_LEFT, comm_world, &req[2]);
	MPI_Isend(out[1], count, MPI_UINT64_T, m->right, TAG_TO_RIGHT, comm_world, &req[3]);
	return rc;
}

static int exchange_finish(mpi_engine *m, uint64_t b, MPI_Request req[4],
			   uint64_t *in[2], l3d_err *err)
{
	/* Statuses kept, not MPI_STATUSES_IGNORE: GCC takes MPICH's constant
	 * for an array of none and warns. */
	MPI_Status st[4];
	MPI_Waitall(4, req, st);
	if (m->path != HALO_STAGED)
		return L3D_OK;
	/* Not waited for here: the steps that read the halos wait on the
	 * device, and the next exchange before it receives into `in`. */
	const slab_backend_ops *ops = m->b->ops;
	int rc = ops->from_host(m->b, -(int64_t)b, b, in[0], err);
	return rc ? rc : ops->from_host(m->b, (int64_t)m->n, b, in[1], err);
}

/* Step planes [xa, xb) in a few pieces, letting MPI move the halo
 * messages between them (it progresses only inside its own calls).  A
 * piece is at least 16 planes: each call also sums the planes around it.
 * A backend that queues its steps takes them in one piece. */
static int step_while_waiting(mpi_engine *m, int64_t xa, int64_t xb,
			      engine_stats *st, MPI_Request req[4], l3d_err *err)
{
	int64_t piece = m->b->queued ? xb - xa : (xb - xa + 3) / 4;
	piece = piece < 16 ? 16 : piece;
	int rc = L3D_OK;
	for (int64_t x = xa; x < xb && !rc; x += piece) {
		int64_t end = x + piece < xb ? x + piece : xb;
		rc = m->b->ops->step(m->b, x, end, st, err);
		int done;
		MPI_Status sts[4];
		MPI_Testall(4, req, &done, sts);
	}
	return rc;
}

static int step_range(mpi_engine *m, int64_t xa, int64_t xb, engine_stats *st,
		      l3d_err *err)
{
	return xa < xb ? m->b->ops->step(m->b, xa, xb, st, err) : L3D_OK;
}

/* The first step's interior, [1, n-1), needs no halo.  It is stepped
 * while the halos travel: on the CPU between MPI calls; on a GPU queued
 * before the staging copies or the link's exchange, which then overlap
 * it.  A generation that skips tiles (no interior) waits for its halos
 * instead.  The exchange is made even after a failed step: the
 * neighbours wait for it. */
static int interior_and_exchange(mpi_engine *m, uint64_t b, bool interior,
				 engine_stats *first, l3d_err *err)
{
	int64_t n = interior ? (int64_t)m->n : 0;
	bool queue_first = m->b->queued && m->path != HALO_DEVICE_MPI;
	MPI_Request req[4];
	uint64_t *in[2];
	int rc = L3D_OK;
	if (m->path == HALO_DEVICE_MPI)   /* MPI reads the device planes */
		rc = m->b->ops->finish(m->b, err);
	if (!rc && queue_first && n > 2)
		rc = m->b->ops->step(m->b, 1, n - 1, first, err);
	if (m->path == HALO_LINK) {
		int xrc = m->b->ops->exchange(m->b, b, rc ? NULL : err);
		return rc ? rc : xrc;
	}
	int xrc = exchange_start(m, b, req, in, rc ? NULL : err);
	rc = rc ? rc : xrc;
	if (!rc && !queue_first && n > 2)
		rc = step_while_waiting(m, 1, n - 1, first, req, err);
	xrc = exchange_finish(m, b, req, in, rc ? NULL : err);
	return rc ? rc : xrc;
}

static bool skips_next(const mpi_engine *m)
{
	return m->b->ops->skips_next && m->b->ops->skips_next(m->b);
}

/* A generation of planes [-r, n + r) once the halos are in.  A backend
 * that skips gets its own planes [0, n) in one call. */
static int step_generation(mpi_engine *m, int64_t r, engine_stats *stats,
			   l3d_err *err)
{
	int64_t n = (int64_t)m->n;
	if (!m->b->ops->skips_next)
		return step_range(m, -r, n + r, stats, err);
	int rc = step_range(m, -r, 0, NULL, err);
	rc = rc ? rc : step_range(m, 0, n, stats, err);
	return rc ? rc : step_range(m, n, n + r, NULL, err);
}

/* The next generation is current; a hashed call notes its hash. */
static void swap_noted(mpi_engine *m)
{
	m->b->ops->swap(m->b);
	if (m->recording && m->hashed < LEAP_CHUNK)
		m->hashes[m->hashed++] = m->b->ops->hash(m->b);
}

/* b steps with one exchange; stats (if not NULL) counts the last one.  A
 * failing step does not stop the exchanges: the neighbours wait for them. */
static int run_batch(mpi_engine *m, uint64_t b, engine_stats *stats, l3d_err *err)
{
	int64_t n = (int64_t)m->n, reach = (int64_t)b - 1;
	engine_stats *first = b == 1 ? stats : NULL;
	bool whole = skips_next(m), taken = false;
	int rc = interior_and_exchange(m, b, !whole, first, err);
	if (!rc && whole && m->b->ops->batch)
		rc = m->b->ops->batch(m->b, b, stats, &taken, err);
	if (taken)
		return rc;
	if (!rc && whole)
		rc = step_generation(m, reach, first, err);
	if (!rc && !whole)
		rc = step_range(m, -reach, 1, first, err);
	if (!rc && !whole)
		rc = step_range(m, n - 1 > 1 ? n - 1 : 1, n + reach, first, err);
	swap_noted(m);
	for (int64_t j = 1; j <= reach && !rc; j++) {
		rc = step_generation(m, reach - j, j == reach ? stats : NULL, err);
		swap_noted(m);
	}
	return rc;
}

/* Collective, every LEAP_EVERY batches of a call: when every rank's
 * planes are as two generations back, the universe repeats with period 2
 * and the steps left pass at once.  Whether to look is the same on every
 * rank (a failed rank votes no). */
#define LEAP_EVERY 16
static bool leap_everywhere(mpi_engine *m, uint64_t batch, uint64_t left, int rc,
			    engine_stats *stats)
{
	if (!m->skips || !left || batch % LEAP_EVERY != LEAP_EVERY - 1)
		return false;
	if (comm_any(rc != L3D_OK || !m->b->ops->quiet(m->b)))
		return false;
	m->b->ops->leap(m->b, left, stats);
	return true;
}

/* Collective: the share of tiles stepped over every rank, for -v. */
static void gather_tiles(mpi_engine *m)
{
	double mine[2], all[2];
	m->b->ops->tiles(m->b, &mine[0], &mine[1]);
	MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, comm_world);
	if (m->rank == 0 && all[1] > 0)
		snprintf(m->text + m->text_len, sizeof m->text - m->text_len,
			 ", %.3g%% of tiles stepped", 100 * all[0] / all[1]);
}

static int mpi_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	engine_stats st = {0, 0, 0};
	int rc = L3D_OK;
	for (uint64_t batch = 0; steps; batch++) {
		uint64_t b = steps < m->depth ? steps : m->depth;
		steps -= b;
		int brc = run_batch(m, b, steps == 0 && stats ? &st : NULL,
				    rc ? NULL : err);
		rc = rc ? rc : brc;
		if (leap_everywhere(m, batch, steps, rc, stats ? &st : NULL))
			steps = 0;
	}
	int frc = m->b->ops->finish ? m->b->ops->finish(m->b, rc ? NULL : err) : L3D_OK;
	rc = comm_agree(rc ? rc : frc, err);
	if (!rc && m->skips)
		gather_tiles(m);
	if (!rc && stats) {
		uint64_t mine[3] = {st.population, st.births, st.deaths}, all[3];
		MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, comm_world);
		*stats = (engine_stats){all[0], all[1], all[2]};
	}
	return rc;
}

/* ---- leaps (engine/leap.h): the universe's hash is the XOR of the
 * ranks' hashes of their own planes (skip.h), agreed after each call ---- */

/* Whether every rank's backend keeps a hash; decided once, together. */
static bool hashing(mpi_engine *m, l3d_err *err)
{
	if (!m->hash_decided) {
		bool can = !m->no_leap && m->skips && m->b->ops->hash_on;
		int rc = can ? m->b->ops->hash_on(m->b, m->x0, err) : L3D_ERR_UNAVAILABLE;
		m->hashing = !comm_any(rc != L3D_OK);
		m->hash_decided = true;
	}
	return m->hashing;
}

static int mpi_step_hashed(engine *e, uint64_t steps, engine_stats *stats,
			   uint64_t *hashes, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	if (steps > LEAP_CHUNK)
		return l3d_fail(err, L3D_ERR_USAGE, "engine 'mpi': %llu hashed steps at once",
				(unsigned long long)steps);
	if (!hashing(m, err))
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "engine 'mpi' keeps no hash");
	memset(m->hashes, 0, sizeof m->hashes);
	m->hashed = 0;
	m->recording = true;
	int rc = mpi_step(e, steps, stats, err);
	m->recording = false;
	if (rc)
		return rc;
	for (uint64_t i = 0; i < steps; i++)
		m->known[i] = m->hashes[i] != 0;
	MPI_Allreduce(MPI_IN_PLACE, m->hashes, (int)steps, MPI_UINT64_T, MPI_BXOR, comm_world);
	MPI_Allreduce(MPI_IN_PLACE, m->known, (int)steps, MPI_INT, MPI_LAND, comm_world);
	for (uint64_t i = 0; i < steps; i++)
		hashes[i] = m->known[i] ? (m->hashes[i] & m->hash_mask) | 1 : 0;
	return L3D_OK;
}

/* Collective: every rank sets its own planes aside. */
static int mpi_mark(engine *e, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	grid v;
	uint64_t x0;
	int rc = slab_engine_planes(e, &v, &x0, err);
	if (!rc && !m->marked.bits)
		rc = grid_alloc(&m->marked, m->n, e->ny, e->nz, err);
	if (!rc)
		memcpy(m->marked.bits, v.bits, grid_bytes(&v));
	return comm_agree(rc, err);
}

/* Collective: every rank's own planes are the ones it set aside. */
static bool mpi_same_as_mark(engine *e)
{
	mpi_engine *m = (mpi_engine *)e;
	grid v;
	uint64_t x0;
	l3d_err ignored;
	bool differs = slab_engine_planes(e, &v, &x0, &ignored) != L3D_OK ||
		       memcmp(m->marked.bits, v.bits, grid_bytes(&v)) != 0;
	return !comm_any(differs);
}

/* Collective: steps leapt count as steps of no tile. */
static void mpi_leapt_over(engine *e, uint64_t steps)
{
	mpi_engine *m = (mpi_engine *)e;
	if (m->b->ops->leapt)
		m->b->ops->leapt(m->b, steps);
	gather_tiles(m);
}

int slab_engine_planes(engine *e, grid *view, uint64_t *x0, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	int src = leap_sync(e, err);       /* a lazy leap made real first */
	if (src)
		return src;
	*x0 = m->x0;
	*view = (grid){.nx = m->n, .ny = e->ny, .nz = e->nz,
		       .words = m->plane_words / e->ny};
	if (m->b->host_memory && m->path != HALO_STAGED) {
		view->bits = m->b->ops->plane(m->b, 0);
		return L3D_OK;
	}
	if (!m->mirror.bits) {
		int rc = grid_alloc(&m->mirror, m->n, e->ny, e->nz, err);
		if (rc)
			return rc;
	}
	view->bits = m->mirror.bits;
	int rc = m->b->ops->to_host(m->b, 0, m->n, view->bits, err);
	return rc ? rc : copies_done(m, err);
}

static int mpi_read(engine *e, grid *out, l3d_err *err)
{
	grid v;
	uint64_t x0;
	int rc = comm_agree(slab_engine_planes(e, &v, &x0, err), err);
	if (!rc)
		comm_gather_slabs(&v, out);
	return rc;
}

/* ---- views: projections and slices, assembled on rank 0 ---- */

/* Rank 0 puts every rank's block of image columns (block[v * n + u],
 * u < n, one column per x-plane) in place in the nx-wide image. */
static void gather_columns(mpi_engine *m, const void *block, size_t elem,
			   uint64_t height, void *image)
{
	size_t row = (size_t)m->n * elem;
	MPI_Datatype t;
	if (m->rank != 0) {
		MPI_Type_contiguous((int)row, MPI_BYTE, &t);
		MPI_Type_commit(&t);
		MPI_Send(block, (int)height, t, 0, TAG_VIEW, comm_world);
		MPI_Type_free(&t);
		return;
	}
	size_t width = (size_t)m->base.nx * elem;
	for (uint64_t v = 0; v < height; v++)
		memcpy((char *)image + v * width, (const char *)block + v * row, row);
	for (int r = 1; r < m->size; r++) {
		uint64_t x0, n;
		comm_slab_of(m->base.nx, m->size, r, &x0, &n);
		MPI_Type_vector((int)height, (int)(n * elem), (int)width, MPI_BYTE, &t);
		MPI_Type_commit(&t);
		MPI_Recv((char *)image + x0 * elem, 1, t, r, TAG_VIEW, comm_world,
			 MPI_STATUS_IGNORE);
		MPI_Type_free(&t);
	}
}

/* Projections along x add up the ranks' own images. */
static void sum_counts(mpi_engine *m, uint32_t *local, uint32_t *counts,
		       uint64_t total)
{
	const uint64_t piece = (uint64_t)1 << 28;
	for (uint64_t at = 0; at < total; at += piece) {
		int k = (int)(total - at < piece ? total - at : piece);
		MPI_Reduce(local + at, m->rank == 0 ? counts + at : NULL, k,
			   MPI_UINT32_T, MPI_SUM, 0, comm_world);
	}
}

/* The x-plane `index` comes from the rank that holds it. */
static void move_plane_slice(mpi_engine *m, const uint8_t *local,
			     uint64_t index, uint64_t bytes, uint8_t *cells)
{
	int owner = 0;
	for (int r = 0; r < m->size; r++) {
		uint64_t x0, n;
		comm_slab_of(m->base.nx, m->size, r, &x0, &n);
		if (index >= x0 && index < x0 + n)
			owner = r;
	}
	if (owner == 0 && m->rank == 0)
		memcpy(cells, local, bytes);
	else if (m->rank == owner)
		comm_send(local, bytes, 0, TAG_VIEW);
	else if (m->rank == 0)
		comm_recv(cells, bytes, owner, TAG_VIEW);
}

/* A projection (counts) or slice (cells) of the whole universe on rank 0. */
static int collective_view(mpi_engine *m, bool project, int axis,
			   uint64_t index, void *out, l3d_err *err)
{
	grid v;
	uint64_t x0, w, h;
	int rc = slab_engine_planes(&m->base, &v, &x0, err);
	grid_view_dims(&v, axis, &w, &h);
	size_t elem = project ? sizeof(uint32_t) : 1;
	bool holds = project || axis != 0 || (index >= x0 && index < x0 + m->n);
	void *local = NULL;
	if (!rc && holds && !(local = malloc(w * h * elem)))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	rc = comm_agree(rc, err);
	if (!rc && project)
		grid_project(&v, axis, local);
	else if (!rc && holds)
		grid_slice(&v, axis, axis == 0 ? index - x0 : index, local);
	if (!rc && axis == 0 && project)
		sum_counts(m, local, out, w * h);
	else if (!rc && axis == 0)
		move_plane_slice(m, local, index, w * h, out);
	else if (!rc)
		gather_columns(m, local, elem, h, out);
	free(local);
	return rc;
}

static int mpi_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	return collective_view((mpi_engine *)e, true, axis, 0, counts, err);
}

static int mpi_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
		     l3d_err *err)
{
	return collective_view((mpi_engine *)e, false, axis, index, cells, err);
}

/* ---- creation ---- */

static const char *mpi_describe(const engine *e)
{
	return ((const mpi_engine *)e)->text;
}

static void mpi_destroy(engine *e)
{
	mpi_engine *m = (mpi_engine *)e;
	if (m->b) {
		copies_done(m, NULL);    /* none may still read or fill a buffer */
		if (m->stage_buf)
			stage_free(m, m->stage_buf);
		m->b->ops->destroy(m->b);
	}
	grid_free(&m->mirror);
	grid_free(&m->marked);
	free(m);
}

static const engine_ops mpi_ops = {
	.name = "mpi",
	.step = mpi_step,
	.read = mpi_read,
	.project = mpi_project,
	.slice = mpi_slice,
	.destroy = mpi_destroy,
	.describe = mpi_describe,
	.step_hashed = mpi_step_hashed,
	.mark = mpi_mark,
	.same_as_mark = mpi_same_as_mark,
	.leapt_over = mpi_leapt_over,
};

/* Halo depths, for halos through MPI from host memory (d[0]), through
 * the backend's link (d[1]) and through MPI from a GPU's memory, staged or
 * not (d[2]).  From host memory: 1 (exchange every step, hidden behind the
 * interior work of a CPU rank) unless the thinnest slab is so small that
 * message latency would show.  Through the link the host never waits, and
 * the edge planes' small steps, not the exchange, set the pace: deeper
 * halos take them once per batch, at the price of (depth - 1) planes
 * stepped twice on average, kept to 1% of the slab (up to 8).  From a
 * GPU's memory through MPI, each exchange is a wait of the host for the
 * device and a round trip through host memory, 0.2-0.5 ms on an H200
 * (src/mpi/NOTES.md, "Skipping on GPU slabs"), longer than a GPU's step
 * of a large slab and much longer than a step by tiles: 8.
 * LIFE3D_HALO_DEPTH sets all three.
 * Rank 0 decides, as the environment may differ between nodes.  Never
 * deeper than the thinnest slab. */
static void choose_depths(uint64_t nx, uint64_t plane_cells, uint64_t plane_words,
			  const engine_knobs *k, uint64_t d[3])
{
	int size = comm_size();
	uint64_t x0, thinnest;
	comm_slab_of(nx, size, size - 1, &x0, &thinnest);
	if (k->halo_depth) {
		d[0] = d[1] = d[2] = k->halo_depth;
	} else {
		d[0] = thinnest * plane_cells < ((uint64_t)1 << 20) ? 4 : 1;
		d[1] = thinnest / 128 + 1;
		d[1] = d[1] > 8 ? 8 : d[1] < d[0] ? d[0] : d[1];
		d[2] = 8;
	}
	MPI_Bcast(d, 3, MPI_UINT64_T, 0, comm_world);
	for (int i = 0; i < 3; i++) {
		if (d[i] > thinnest)
			d[i] = thinnest;
		while (d[i] > 1 && d[i] * plane_words > INT_MAX)
			d[i]--;
		d[i] = d[i] ? d[i] : 1;
	}
}

/* The host memory of every rank of this node must fit together: the
 * CPU backend's buffers and tiles (a GPU's are in its memory), the
 * halos' staging (4 * depth planes, should halos be staged) and what this
 * rank takes later (opts->host_later: rank 0's pictures and a gathered
 * result), checked before anything is allocated. */
static int check_memory(const grid *slab, uint64_t depth, uint64_t nx,
			const engine_opts *opts, bool gpu, l3d_err *err)
{
	char what[200];
	int local = comm_local_size();
	uint64_t plane = slab->ny * slab->words * 8;
	uint64_t mine = 4 * depth * plane +
			(gpu ? 0 : engine_cpu_bytes(opts, slab->nx + 2 * depth, slab->ny,
						    slab->nz, NULL));
	uint64_t later = opts ? opts->host_later : 0;
	snprintf(what, sizeof what,
		 "the slab engine for a %llux%llux%llu universe (%d rank%s on this node)%s",
		 (unsigned long long)nx, (unsigned long long)slab->ny,
		 (unsigned long long)slab->nz, local, local == 1 ? "" : "s",
		 later ? " and the pictures or the result rank 0 gathers" : "");
	return host_memory_check_shared((size_t)(mine + later),
					(size_t)(mine * (uint64_t)local + later), what, err);
}

/* --engine cuda: this rank's GPU; auto: the GPU where the rank has one,
 * else the CPU (ranks may differ); cpu: the CPU. */
static int create_backend(mpi_engine *m, const engine_opts *opts, const grid *slab,
			  const rule *r, l3d_err *err)
{
	engine_kind kind;
	int rc = engine_kind_of(opts, &kind, err);
	if (rc)
		return rc;
	if (kind == ENGINE_CUDA || (kind == ENGINE_AUTO && backend_cuda_devices() > 0)) {
		uint64_t d = m->link_depth > m->device_depth ? m->link_depth : m->device_depth;
		d = m->depth > d ? m->depth : d;
		rc = check_memory(slab, d, m->base.nx, opts, true, err);
		return rc ? rc : backend_cuda_create(slab, d, r, opts, comm_local_rank(),
						     &m->b, err);
	}
	rc = check_memory(slab, m->depth, m->base.nx, opts, false, err);
	return rc ? rc : backend_cpu_create(slab, m->depth, r, opts, &m->b, err);
}

/* LIFE3D_HALO (knobs.h), as rank 0 has it: 0 auto, 1 nccl, 2 mpi,
 * 3 staged; -1 unknown. */
static int halo_wanted(const engine_knobs *k)
{
	static const char *const names[] = {"auto", "nccl", "mpi", "staged"};
	int want = 0;
	if (comm_rank() == 0 && k->halo) {
		want = -1;
		for (int i = 0; i < 4; i++)
			if (strcasecmp(k->halo, names[i]) == 0)
				want = i;
	}
	MPI_Bcast(&want, 1, MPI_INT, 0, comm_world);
	return want;
}

/* Collective: the backend's link, when every rank's backend has one.
 * On failure `why` says why (for -v) and err is left alone. */
static int try_link(mpi_engine *m, char *why, size_t len)
{
	l3d_err e = {0, ""};
	if (comm_any(m->b->ops->link == NULL)) {
		snprintf(why, len, "not every rank has a GPU");
		return L3D_ERR_UNAVAILABLE;
	}
	int rc = comm_agree(m->b->ops->link(m->b, m->left, m->right, &e), &e);
	if (rc)
		snprintf(why, len, "%s", e.msg);
	return rc;
}

/* Collective: how halos travel (see the top); `why` says why the link
 * was not taken, when it was tried. */
static int choose_halo(mpi_engine *m, const engine_knobs *k, char *why, size_t len,
		       l3d_err *err)
{
	int want = halo_wanted(k);
	bool device = !m->b->host_memory;
	if (want < 0)
		return l3d_fail(err, L3D_ERR_USAGE,
				"LIFE3D_HALO must be auto, nccl, mpi or staged");
	if (want == 3) {
		m->path = HALO_STAGED;
		return L3D_OK;
	}
	if (want <= 1 && try_link(m, why, len) == L3D_OK) {
		m->path = HALO_LINK;
		return L3D_OK;
	}
	if (want == 0 && !comm_any(device))
		*why = '\0';        /* no GPU anywhere: nothing to explain */
	if (want == 1)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "LIFE3D_HALO=nccl: %s", why);
	if (want == 2 && comm_any(device && !comm_cuda_aware()))
		return l3d_fail(err, L3D_ERR_UNAVAILABLE,
				"LIFE3D_HALO=mpi: the MPI library cannot move GPU memory "
				"(it is not CUDA-aware)");
	m->path = !device ? HALO_HOST : comm_cuda_aware() ? HALO_DEVICE_MPI : HALO_STAGED;
	return L3D_OK;
}

static int create_here(mpi_engine *m, const engine_opts *opts, const grid *slab,
		       const rule *r, l3d_err *err)
{
	if (m->plane_words > INT_MAX)
		return l3d_fail(err, L3D_ERR_USAGE,
				"planes of %llux%llu cells are too large to exchange",
				(unsigned long long)slab->ny, (unsigned long long)slab->nz);
	return create_backend(m, opts, slab, r, err);
}

/* "... (halo depth 1, halos by NCCL 2.28.9)" for -v. */
static void describe(mpi_engine *m, const char *why)
{
	static const char *const ways[] = {
		[HALO_HOST] = ", halos by MPI", [HALO_DEVICE_MPI] = ", halos by CUDA-aware MPI",
		[HALO_STAGED] = ", halos staged through host memory", [HALO_LINK] = ""};
	char link[64] = "";
	if (m->path == HALO_LINK)
		snprintf(link, sizeof link, ", halos by %s", m->b->link);
	int len = snprintf(m->text, sizeof m->text, "%s x%d ranks (halo depth %llu%s%s%s%s)",
			   m->b->name, m->size, (unsigned long long)m->depth, ways[m->path],
			   link, *why ? "; not NCCL: " : "", why);
	m->text_len = len < (int)sizeof m->text ? (size_t)len : sizeof m->text - 1;
}

int slab_engine_create(const engine_opts *opts, const grid *slab, uint64_t x0,
		      uint64_t nx, const rule *r, engine **out, l3d_err *err)
{
	*out = NULL;
	mpi_engine *m = calloc(1, sizeof *m);
	int rank = comm_rank(), size = comm_size();
	uint64_t depths[3];
	const engine_knobs *k = engine_knobs_of(opts);
	choose_depths(nx, slab->ny * slab->nz, slab->ny * slab->words, k, depths);
	char why[256] = "";
	int rc = m ? L3D_OK : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	if (m) {
		m->base = (engine){.ops = &mpi_ops, .nx = nx, .ny = slab->ny, .nz = slab->nz, .rule = *r};
		m->x0 = x0;
		m->n = slab->nx;
		m->plane_words = slab->ny * slab->words;
		m->depth = depths[0];
		m->link_depth = depths[1];
		m->device_depth = depths[2];
		m->no_leap = k->no_leap;
		m->hash_mask = engine_leap_hash_mask(k);
		m->rank = rank;
		m->size = size;
		m->left = (rank + size - 1) % size;
		m->right = (rank + 1) % size;
		rc = create_here(m, opts, slab, r, err);
	}
	rc = comm_agree(rc, err);
	if (!rc)
		rc = choose_halo(m, k, why, sizeof why, err);
	if (!rc && m->path == HALO_LINK)
		m->depth = m->link_depth;
	else if (!rc && !m->b->host_memory)
		m->depth = m->device_depth;
	if (!rc)
		m->skips = !comm_any(m->b->ops->tiles == NULL);
	if (!rc && m->path == HALO_STAGED && !(m->stage_buf = stage_alloc(m, 4 * m->depth)))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for halo buffers");
	rc = comm_agree(rc, err);
	if (rc) {
		if (m)
			mpi_destroy(&m->base);
		return rc;
	}
	describe(m, why);
	*out = &m->base;
	return L3D_OK;
}
