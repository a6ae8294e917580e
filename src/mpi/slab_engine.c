/* engine_mpi.c - the slab engine: each rank steps its own x-planes.
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
 * Stepping sits behind slab_backend (slab.h): the CPU kernel
 * (cpu_step_slab) here, or the rank's GPU (slab_cuda.c).  A GPU backend
 * hands device pointers to a CUDA-aware MPI, or stages the halo planes
 * through pinned host buffers (set LIFE3D_MPI_STAGING=1 to force staging
 * with the CPU backend, so that path is tested without a GPU too).
 *
 * Views and read-back are collective (every rank calls them) and land on
 * rank 0 only; the other ranks' output buffers are left untouched. */
#include "comm_mpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pool.h"
#include "engine/cpu/cpu.h"
#include "backend.h"

/* ---- the CPU backend ---- */

typedef struct cpu_backend {
	slab_backend base;
	uint64_t n, depth, ny, nz, words, plane_words;
	uint64_t *cur, *next;    /* n + 2 * depth planes each */
	cpu_stepper *stepper;
} cpu_backend;

static uint64_t *cpu_plane(slab_backend *b, int64_t x)
{
	cpu_backend *c = (cpu_backend *)b;
	return c->cur + (uint64_t)(x + (int64_t)c->depth) * c->plane_words;
}

static int cpu_step(slab_backend *b, int64_t xa, int64_t xb,
		    engine_stats *stats, l3d_err *err)
{
	cpu_backend *c = (cpu_backend *)b;
	uint64_t at = (uint64_t)(xa + (int64_t)c->depth) * c->plane_words;
	uint64_t n = (uint64_t)(xb - xa);
	cpu_slab s = {n, c->ny, c->nz, c->words, c->cur + at, c->next + at,
		      c->cur + at - c->plane_words, c->cur + at + n * c->plane_words};
	cpu_stepper_step(c->stepper, &s, stats);
	return L3D_OK;
}

static void cpu_swap(slab_backend *b)
{
	cpu_backend *c = (cpu_backend *)b;
	uint64_t *t = c->cur;
	c->cur = c->next;
	c->next = t;
}

static int cpu_to_host(slab_backend *b, int64_t x, uint64_t count,
		       uint64_t *dst, l3d_err *err)
{
	cpu_backend *c = (cpu_backend *)b;
	memcpy(dst, cpu_plane(b, x), count * c->plane_words * 8);
	return L3D_OK;
}

static int cpu_from_host(slab_backend *b, int64_t x, uint64_t count,
			 const uint64_t *src, l3d_err *err)
{
	cpu_backend *c = (cpu_backend *)b;
	memcpy(cpu_plane(b, x), src, count * c->plane_words * 8);
	return L3D_OK;
}

static void cpu_destroy(slab_backend *b)
{
	cpu_backend *c = (cpu_backend *)b;
	cpu_stepper_destroy(c->stepper);
	free(c->cur);
	free(c->next);
	free(c);
}

static const slab_backend_ops cpu_backend_ops = {
	.plane = cpu_plane,
	.step = cpu_step,
	.swap = cpu_swap,
	.to_host = cpu_to_host,
	.from_host = cpu_from_host,
	.destroy = cpu_destroy,
};

/* Threads per rank: the cores this rank may use, but no more than its
 * share of the node when the launcher did not bind ranks to cores. */
static int rank_threads(const engine_opts *opts)
{
	if (opts && opts->threads > 0)
		return opts->threads;
	long cores = sysconf(_SC_NPROCESSORS_ONLN), mine = cpu_count();
	long share = cores / dist_local_size();
	long t = mine < share ? mine : share;
	return t > 0 ? (int)t : 1;
}

static uint64_t *alloc_planes(uint64_t planes, uint64_t plane_words)
{
	size_t bytes = (size_t)(planes * plane_words * 8);
	bytes = (bytes + 63) & ~(size_t)63;
	uint64_t *p = aligned_alloc(64, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

static int cpu_backend_create(const grid *slab, uint64_t depth, const rule *r,
			      const engine_opts *opts, slab_backend **out,
			      l3d_err *err)
{
	cpu_backend *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	*c = (cpu_backend){
		.base = {&cpu_backend_ops, "cpu", true, false},
		.n = slab->nx, .depth = depth, .ny = slab->ny, .nz = slab->nz,
		.words = slab->words, .plane_words = slab->ny * slab->words,
	};
	int rc = cpu_stepper_create(slab->ny, slab->nz, r, rank_threads(opts),
				    opts ? opts->simd : NULL, &c->stepper, err);
	if (!rc) {
		c->base.name = cpu_stepper_describe(c->stepper);
		c->cur = alloc_planes(c->n + 2 * depth, c->plane_words);
		c->next = alloc_planes(c->n + 2 * depth, c->plane_words);
		if (!c->cur || !c->next)
			rc = l3d_fail(err, L3D_ERR_RUNTIME,
				      "out of memory for a slab of %llu planes",
				      (unsigned long long)slab->nx);
	}
	if (rc) {
		cpu_destroy(&c->base);
		return rc;
	}
	memcpy(cpu_plane(&c->base, 0), slab->bits, grid_bytes(slab));
	*out = &c->base;
	return L3D_OK;
}

/* ---- the engine ---- */

typedef struct mpi_engine {
	engine base;
	slab_backend *b;
	uint64_t x0, n, plane_words, depth;
	int rank, size, left, right;
	bool stage;              /* halos through host buffers */
	uint64_t *stage_buf;     /* 4 * depth planes: out low, out high, in low, in high */
	grid mirror;             /* own planes in host memory, for a device backend */
	struct {                 /* a view taken for the snapshot being written */
		bool valid, project;
		int axis;
		uint64_t index;
		void *image;
	} prepared;
	char text[96];
} mpi_engine;

/* Halo staging buffers: the backend's (pinned for a GPU) or plain. */
static uint64_t *stage_alloc(mpi_engine *m, uint64_t planes)
{
	if (m->b->ops->host_alloc)
		return m->b->ops->host_alloc(m->b, planes * m->plane_words * 8);
	return alloc_planes(planes, m->plane_words);
}

static void stage_free(mpi_engine *m, uint64_t *p)
{
	if (m->b->ops->host_free)
		m->b->ops->host_free(m->b, p);
	else
		free(p);
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
	if (m->stage) {
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
	MPI_Irecv(in[0], count, MPI_UINT64_T, m->left, TAG_TO_RIGHT, dist_comm, &req[0]);
	MPI_Irecv(in[1], count, MPI_UINT64_T, m->right, TAG_TO_LEFT, dist_comm, &req[1]);
	MPI_Isend(out[0], count, MPI_UINT64_T, m->left, TAG_TO_LEFT, dist_comm, &req[2]);
	MPI_Isend(out[1], count, MPI_UINT64_T, m->right, TAG_TO_RIGHT, dist_comm, &req[3]);
	return rc;
}

static int exchange_finish(mpi_engine *m, uint64_t b, MPI_Request req[4],
			   uint64_t *in[2], l3d_err *err)
{
	MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
	if (!m->stage)
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
		MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
	}
	return rc;
}

static int step_range(mpi_engine *m, int64_t xa, int64_t xb, engine_stats *st,
		      l3d_err *err)
{
	return xa < xb ? m->b->ops->step(m->b, xa, xb, st, err) : L3D_OK;
}

/* The first step's interior, [1, n-1), needs no halo.  It is stepped
 * while the halo messages travel: on the CPU between MPI calls; on a GPU
 * queued before the staging copies, which then overlap it. */
static int interior_and_exchange(mpi_engine *m, uint64_t b, engine_stats *first,
				 l3d_err *err)
{
	int64_t n = (int64_t)m->n;
	bool queue_first = m->b->queued && m->stage;
	MPI_Request req[4];
	uint64_t *in[2];
	int rc = L3D_OK;
	if (m->b->queued && !m->stage)   /* MPI reads the device planes */
		rc = m->b->ops->finish(m->b, err);
	if (!rc && queue_first && n > 2)
		rc = m->b->ops->step(m->b, 1, n - 1, first, err);
	int xrc = exchange_start(m, b, req, in, rc ? NULL : err);
	rc = rc ? rc : xrc;
	if (!rc && !queue_first && n > 2)
		rc = step_while_waiting(m, 1, n - 1, first, req, err);
	xrc = exchange_finish(m, b, req, in, rc ? NULL : err);
	return rc ? rc : xrc;
}

/* b steps with one exchange; stats (if not NULL) counts the last one.  A
 * failing step does not stop the exchanges: the neighbours wait for them. */
static int run_batch(mpi_engine *m, uint64_t b, engine_stats *stats, l3d_err *err)
{
	int64_t n = (int64_t)m->n, reach = (int64_t)b - 1;
	engine_stats *first = b == 1 ? stats : NULL;
	int rc = interior_and_exchange(m, b, first, err);
	if (!rc)
		rc = step_range(m, -reach, 1, first, err);
	if (!rc)
		rc = step_range(m, n - 1 > 1 ? n - 1 : 1, n + reach, first, err);
	m->b->ops->swap(m->b);
	for (int64_t j = 1; j <= reach && !rc; j++) {
		int64_t r = reach - j;
		rc = step_range(m, -r, n + r, j == reach ? stats : NULL, err);
		m->b->ops->swap(m->b);
	}
	return rc;
}

static int mpi_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	engine_stats st = {0, 0, 0};
	int rc = L3D_OK;
	while (steps) {
		uint64_t b = steps < m->depth ? steps : m->depth;
		steps -= b;
		int brc = run_batch(m, b, steps == 0 && stats ? &st : NULL,
				    rc ? NULL : err);
		rc = rc ? rc : brc;
	}
	int frc = m->b->ops->finish ? m->b->ops->finish(m->b, rc ? NULL : err) : L3D_OK;
	rc = dist_agree(rc ? rc : frc, err);
	if (!rc && stats) {
		uint64_t mine[3] = {st.population, st.births, st.deaths}, all[3];
		MPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_SUM, dist_comm);
		*stats = (engine_stats){all[0], all[1], all[2]};
	}
	return rc;
}

int engine_mpi_slab(engine *e, grid *view, uint64_t *x0, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	*x0 = m->x0;
	*view = (grid){.nx = m->n, .ny = e->ny, .nz = e->nz,
		       .words = m->plane_words / e->ny};
	if (m->b->host_memory && !m->stage) {
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
	int rc = dist_agree(engine_mpi_slab(e, &v, &x0, err), err);
	if (!rc)
		dist_gather_slabs(&v, out);
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
		MPI_Send(block, (int)height, t, 0, TAG_VIEW, dist_comm);
		MPI_Type_free(&t);
		return;
	}
	size_t width = (size_t)m->base.nx * elem;
	for (uint64_t v = 0; v < height; v++)
		memcpy((char *)image + v * width, (const char *)block + v * row, row);
	for (int r = 1; r < m->size; r++) {
		uint64_t x0, n;
		dist_slab_of(m->base.nx, m->size, r, &x0, &n);
		MPI_Type_vector((int)height, (int)(n * elem), (int)width, MPI_BYTE, &t);
		MPI_Type_commit(&t);
		MPI_Recv((char *)image + x0 * elem, 1, t, r, TAG_VIEW, dist_comm,
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
			   MPI_UINT32_T, MPI_SUM, 0, dist_comm);
	}
}

/* The x-plane `index` comes from the rank that holds it. */
static void move_plane_slice(mpi_engine *m, const uint8_t *local,
			     uint64_t index, uint64_t bytes, uint8_t *cells)
{
	int owner = 0;
	for (int r = 0; r < m->size; r++) {
		uint64_t x0, n;
		dist_slab_of(m->base.nx, m->size, r, &x0, &n);
		if (index >= x0 && index < x0 + n)
			owner = r;
	}
	if (owner == 0 && m->rank == 0)
		memcpy(cells, local, bytes);
	else if (m->rank == owner)
		dist_send(local, bytes, 0, TAG_VIEW);
	else if (m->rank == 0)
		dist_recv(cells, bytes, owner, TAG_VIEW);
}

/* A projection (counts) or slice (cells) of the whole universe on rank 0. */
static int collective_view(mpi_engine *m, bool project, int axis,
			   uint64_t index, void *out, l3d_err *err)
{
	grid v;
	uint64_t x0, w, h;
	int rc = engine_mpi_slab(&m->base, &v, &x0, err);
	grid_view_dims(&v, axis, &w, &h);
	size_t elem = project ? sizeof(uint32_t) : 1;
	bool holds = project || axis != 0 || (index >= x0 && index < x0 + m->n);
	void *local = NULL;
	if (!rc && holds && !(local = malloc(w * h * elem)))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	rc = dist_agree(rc, err);
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

/* Serve the view prepared by engine_mpi_snapshot, if this is it. */
static bool take_prepared(mpi_engine *m, bool project, int axis,
			  uint64_t index, void *out)
{
	if (!m->prepared.valid || m->prepared.project != project ||
	    m->prepared.axis != axis || (!project && m->prepared.index != index))
		return false;
	grid dims = {.nx = m->base.nx, .ny = m->base.ny, .nz = m->base.nz};
	uint64_t w, h;
	grid_view_dims(&dims, axis, &w, &h);
	memcpy(out, m->prepared.image, w * h * (project ? sizeof(uint32_t) : 1));
	return true;
}

static int mpi_project(engine *e, int axis, uint32_t *counts, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	if (take_prepared(m, true, axis, 0, counts))
		return L3D_OK;
	return collective_view(m, true, axis, 0, counts, err);
}

static int mpi_slice(engine *e, int axis, uint64_t index, uint8_t *cells,
		     l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	if (take_prepared(m, false, axis, index, cells))
		return L3D_OK;
	return collective_view(m, false, axis, index, cells, err);
}

/* All ranks assemble the view; then rank 0 alone encodes and writes it,
 * snapshot_write finding the view ready instead of asking the others. */
int engine_mpi_snapshot(engine *e, const snapshot_opts *o, uint64_t generation,
			char *path, size_t path_size, l3d_err *err)
{
	mpi_engine *m = (mpi_engine *)e;
	bool project = o->kind == SNAP_PROJECTION;
	grid dims = {.nx = e->nx, .ny = e->ny, .nz = e->nz};
	uint64_t w, h;
	grid_view_dims(&dims, o->axis, &w, &h);
	int rc = L3D_OK;
	void *image = NULL;
	if (m->rank == 0 && !(image = malloc(w * h * (project ? sizeof(uint32_t) : 1))))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	rc = dist_agree(rc, err);
	if (!rc)
		rc = collective_view(m, project, o->axis, o->index, image, err);
	if (!rc && m->rank == 0) {
		m->prepared.valid = true;
		m->prepared.project = project;
		m->prepared.axis = o->axis;
		m->prepared.index = o->index;
		m->prepared.image = image;
		rc = snapshot_write(e, o, generation, path, path_size, err);
	}
	m->prepared.valid = false;
	free(image);
	return dist_agree(rc, err);
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
};

/* Halo depth: 1 (exchange every step, hidden behind the interior work)
 * unless the thinnest slab is so small that message latency would show;
 * LIFE3D_HALO_DEPTH overrides.  Rank 0 decides, as the environment may
 * differ between nodes.  Never deeper than the thinnest slab. */
static uint64_t choose_depth(uint64_t nx, uint64_t plane_cells,
			     uint64_t plane_words)
{
	int size = dist_size();
	uint64_t x0, thinnest, depth = 1;
	dist_slab_of(nx, size, size - 1, &x0, &thinnest);
	const char *env = getenv("LIFE3D_HALO_DEPTH");
	if (env && *env)
		depth = strtoull(env, NULL, 10);
	else if (thinnest * plane_cells < ((uint64_t)1 << 20))
		depth = 4;
	MPI_Bcast(&depth, 1, MPI_UINT64_T, 0, dist_comm);
	if (depth > thinnest)
		depth = thinnest;
	while (depth > 1 && depth * plane_words > INT_MAX)
		depth--;
	return depth ? depth : 1;
}

/* The engine's buffers for every rank of this node must fit together. */
static int check_memory(const grid *slab, uint64_t depth, uint64_t nx,
			l3d_err *err)
{
	char what[160];
	int local = dist_local_size();
	snprintf(what, sizeof what,
		 "the slab engine for a %llux%llux%llu universe (%d rank%s on this node)",
		 (unsigned long long)nx, (unsigned long long)slab->ny,
		 (unsigned long long)slab->nz, local, local == 1 ? "" : "s");
	size_t need = (size_t)(2 * (slab->nx + 2 * depth) * slab->ny * slab->words * 8);
	return host_memory_check(need * (size_t)local, what, err);
}

/* --engine cuda: this rank's GPU; auto: the GPU where the rank has one,
 * else the CPU (ranks may differ); cpu: the CPU. */
static int create_backend(mpi_engine *m, const engine_opts *opts, const grid *slab,
			  const rule *r, l3d_err *err)
{
	const char *kind = opts && opts->kind ? opts->kind : "auto";
	bool cuda = strcmp(kind, "cuda") == 0;
	if (!cuda && strcmp(kind, "cpu") != 0 && strcmp(kind, "auto") != 0)
		return l3d_fail(err, L3D_ERR_USAGE,
				"unknown engine '%s' (expected auto, cpu or cuda)", kind);
	if (cuda || (strcmp(kind, "auto") == 0 && slab_cuda_devices() > 0))
		return slab_cuda_create(slab, m->depth, r, opts, dist_local_rank(), &m->b, err);
	int rc = check_memory(slab, m->depth, m->base.nx, err);
	return rc ? rc : cpu_backend_create(slab, m->depth, r, opts, &m->b, err);
}

static int create_here(mpi_engine *m, const engine_opts *opts, const grid *slab,
		       const rule *r, l3d_err *err)
{
	if (m->plane_words > INT_MAX)
		return l3d_fail(err, L3D_ERR_USAGE,
				"planes of %llux%llu cells are too large to exchange",
				(unsigned long long)slab->ny, (unsigned long long)slab->nz);
	int rc = create_backend(m, opts, slab, r, err);
	if (rc)
		return rc;
	const char *env = getenv("LIFE3D_MPI_STAGING");
	m->stage = (!m->b->host_memory && !dist_cuda_aware()) ||
		   (env && strcmp(env, "1") == 0);
	if (m->stage && !(m->stage_buf = stage_alloc(m, 4 * m->depth)))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for halo buffers");
	return rc;
}

int engine_mpi_create(const engine_opts *opts, const grid *slab, uint64_t x0,
		      uint64_t nx, const rule *r, engine **out, l3d_err *err)
{
	*out = NULL;
	mpi_engine *m = calloc(1, sizeof *m);
	int rank = dist_rank(), size = dist_size();
	uint64_t depth = choose_depth(nx, slab->ny * slab->nz, slab->ny * slab->words);
	int rc = m ? L3D_OK : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	if (m) {
		m->base = (engine){&mpi_ops, nx, slab->ny, slab->nz, *r};
		m->x0 = x0;
		m->n = slab->nx;
		m->plane_words = slab->ny * slab->words;
		m->depth = depth;
		m->rank = rank;
		m->size = size;
		m->left = (rank + size - 1) % size;
		m->right = (rank + 1) % size;
		rc = create_here(m, opts, slab, r, err);
	}
	rc = dist_agree(rc, err);
	if (rc) {
		if (m)
			mpi_destroy(&m->base);
		return rc;
	}
	snprintf(m->text, sizeof m->text, "%s x%d ranks (halo depth %llu%s)",
		 m->b->name, size, (unsigned long long)depth,
		 m->stage ? ", staged" : m->b->host_memory ? "" : ", CUDA-aware MPI");
	*out = &m->base;
	return L3D_OK;
}
