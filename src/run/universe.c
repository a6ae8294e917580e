/* universe.c - see universe.h.  The one place that tells one process from
 * many: each function below does the single-process thing itself and
 * hands a distributed run to mpi/ (built with --with-mpi only). */
#include "universe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "engine/choose.h"
#include "mpi/comm.h"
#ifdef HAVE_MPI
#include "mpi/slab_engine.h"
#include "mpi/slab_io.h"
#endif

/* Without MPI built in there is always one rank. */
static bool distributed(void)
{
	return comm_size() > 1;
}

void universe_warm_up(const engine_opts *eo)
{
	if (!distributed())
		engine_warm_up(eo);
}

int universe_random(universe_source *u, const uint64_t size[3], double density,
		    uint64_t seed, grid_shape shape, l3d_err *err)
{
	uint64_t n = 0;
	memset(u, 0, sizeof *u);
	u->format = FMT_NATIVE;
	u->name = "--random";
	int rc = comm_split(size[0], "--random", &u->x0, &n, err);
	if (!rc)
		rc = comm_agree(grid_alloc(&u->start, n, size[1], size[2], err), err);
	if (rc) {
		grid_free(&u->start);
		return rc;
	}
	grid_random_planes(&u->start, u->x0, density, seed);
	grid_keep_shape(&u->start, u->x0, size[0], shape);
	u->nx = size[0];
	return L3D_OK;
}

/* The input file, or stdin when path is NULL.  In a distributed run rank 0
 * alone opens it (only rank 0 has stdin); slab_io_read shares what it
 * finds. */
static int open_input(const char *path, FILE **f, l3d_err *err)
{
	*f = NULL;
	if (comm_rank() != 0)
		return L3D_OK;
	if (!path && isatty(STDIN_FILENO))
		return l3d_fail(err, L3D_ERR_USAGE,
				"no input: give a file, pipe a universe in, or use --random (see --help)");
	struct stat st;
	if ((path ? stat(path, &st) : fstat(STDIN_FILENO, &st)) == 0 && S_ISDIR(st.st_mode))
		return l3d_fail(err, L3D_ERR_NOINPUT, "%s: is a directory",
				path ? path : "(stdin)");
	*f = path ? fopen(path, "rb") : stdin;
	if (!*f)
		return l3d_fail(err, L3D_ERR_NOINPUT, "%s: cannot open: %s",
				path, strerror(errno));
	return L3D_OK;
}

static void close_input(universe_source *u)
{
	if (u->file && u->file != stdin)
		fclose(u->file);
	u->file = NULL;
}

static int read_slabs(universe_source *u, const char *path, const plane_place *place,
		      l3d_err *err)
{
#ifdef HAVE_MPI
	return slab_io_read(u->file, path, u->name, place, &u->start, &u->x0, &u->nx,
			    &u->meta, &u->format, err);
#else
	(void)u, (void)path, (void)place;
	return l3d_fail(err, L3D_ERR_RUNTIME, "internal error: ranks without MPI");
#endif
}

/* In one process, only the header is read here: the cells go on being
 * read in the background while the engine is set up (universe_engine). */
int universe_open(universe_source *u, const char *input, const plane_place *place,
		  l3d_err *err)
{
	bool use_stdin = !input || strcmp(input, "-") == 0;
	const char *path = use_stdin ? NULL : input;
	memset(u, 0, sizeof *u);
	u->name = use_stdin ? "(stdin)" : input;
	int rc = comm_agree(open_input(path, &u->file, err), err);
	if (!rc && !distributed()) {
		reader_init(&u->in, u->file, u->name);
		u->in.count = true;
		if (place)
			u->in.place = *place;
		rc = format_read_start(&u->in, &u->start, &u->meta, &u->format,
				       &u->reading, err);
		u->nx = u->start.nx;
	} else if (!rc) {
		rc = read_slabs(u, path, place, err);
	}
	if (!u->reading)
		close_input(u);
	return rc;
}

int universe_grow_even(universe_source *u, bool *grown, l3d_err *err)
{
	grid *g = &u->start, big;
	uint64_t d[3] = {g->nx, g->ny, g->nz}, by[3];
	*grown = false;
	for (int i = 0; i < 3; i++)
		by[i] = d[i] % 2;
	if (distributed() || !(by[0] | by[1] | by[2]))
		return L3D_OK;
	if (u->reading) {
		int rc = format_read_finish(u->reading, NULL, err);
		u->reading = NULL;
		close_input(u);
		if (rc)
			return rc;
	}
	int rc = grid_alloc(&big, d[0] + by[0], d[1] + by[1], d[2] + by[2], err);
	if (rc)
		return rc;
	big.generation = g->generation;
	for (uint64_t x = 0; x < d[0]; x++)
		for (uint64_t y = 0; y < d[1]; y++)
			for (uint64_t z = 0; z < d[2]; z++)
				if (grid_get(g, x, y, z))
					grid_set(&big, x + by[0], y + by[1], z + by[2], 1);
	grid_free(g);
	*g = big;
	u->nx = g->nx;
	*grown = true;
	return L3D_OK;
}

void universe_close(universe_source *u)
{
	if (u->reading) {
		l3d_err ignored;
		format_read_finish(u->reading, NULL, &ignored);
		u->reading = NULL;
	}
	close_input(u);
	grid_free(&u->start);
}

/* A universe read already (at random, or across ranks). */
static int engine_of_read(universe_source *u, const engine_opts *eo,
			  const rule *r, engine **out, uint64_t *population,
			  l3d_err *err)
{
	*population = comm_sum(grid_population(&u->start));
#ifdef HAVE_MPI
	if (distributed())
		return slab_engine_create(eo, &u->start, u->x0, u->nx, r, out, err);
#endif
	return engine_create(eo, &u->start, r, out, err);
}

/* While the cells of a single process's input are still coming, the
 * engine is set up meanwhile and takes the rows as they are read. */
static int engine_of_stream(universe_source *u, const engine_opts *eo,
			    const rule *r, int rc, const l3d_err *why,
			    engine **out, uint64_t *population, double *t_read,
			    l3d_err *err)
{
	row_progress *ready = format_read_progress(u->reading);
	l3d_err eerr = {0, ""};
	int erc = rc ? rc : engine_create_streamed(eo, &u->start, ready, r, out, &eerr);
	/* An engine that has every row saw the last one announced. */
	if (!erc)
		*t_read = ready->done_at;
	int rrc = format_read_finish(u->reading, population, err);
	u->reading = NULL;
	close_input(u);
	if (rrc) {
		engine_destroy(*out);
		*out = NULL;
		return rrc;
	}
	if (rc || erc) {
		*err = rc ? *why : eerr;
		return rc ? rc : erc;
	}
	return L3D_OK;
}

int universe_engine(universe_source *u, const engine_opts *eo, const rule *r,
		    int rc, const l3d_err *why, engine **out, uint64_t *population,
		    double *t_read, l3d_err *err)
{
	*out = NULL;
	*t_read = 0;
	if (u->reading) {
		rc = engine_of_stream(u, eo, r, rc, why, out, population, t_read, err);
	} else if (rc) {
		*err = *why;
	} else {
		rc = engine_of_read(u, eo, r, out, population, err);
	}
	/* The engine holds its own copy: drop ours so a large universe is in
	 * memory twice (engine buffers), not three times. */
	universe_close(u);
	return rc;
}

/* The engine's current universe: its own grid when it lives in host
 * memory (no copy), else read back into *tmp, which the caller frees. */
static int current_grid(engine *e, grid *tmp, grid **out, l3d_err *err)
{
	*out = engine_host_grid(e);
	if (*out)
		return L3D_OK;
	int rc = grid_alloc(tmp, e->nx, e->ny, e->nz, err);
	if (!rc)
		rc = engine_read(e, tmp, err);
	*out = tmp;
	return rc;
}

/* A writer's source for a universe outside host memory: the engine's
 * rows, fetched a chunk at a time. */
static int fetch_rows(void *ctx, uint64_t first, uint64_t n, uint64_t *buf,
		      const uint64_t **rows, l3d_err *err)
{
	*rows = buf;
	return engine_read_rows(ctx, first, n, buf, err);
}

/* A source that counts each row's live cells the first time it passes (a
 * writer may make two passes), for the population: on the thread that
 * takes the rows, beside the encoding, not in a pass of its own. */
typedef struct counted_rows {
	row_source of;
	uint64_t words, counted, population;
} counted_rows;

static int count_rows(void *ctx, uint64_t first, uint64_t n, uint64_t *buf,
		      const uint64_t **rows, l3d_err *err)
{
	counted_rows *s = ctx;
	int rc = s->of.rows(s->of.ctx, first, n, buf, rows, err);
	if (!rc && first == s->counted) {
		s->population += words_population(*rows, n * s->words);
		s->counted += n;
	}
	return rc;
}

/* The population of a universe in host memory, or on a device (summed
 * from its projection along x, made there): for a result of which only a
 * part is written. */
static int population_of(engine *e, const grid *g, uint64_t *population, l3d_err *err)
{
	if (g) {
		*population = grid_population(g);
		return L3D_OK;
	}
	grid dims = {.nx = e->nx, .ny = e->ny, .nz = e->nz};
	uint64_t w, h, sum = 0;
	grid_view_dims(&dims, 0, &w, &h);
	uint32_t *counts = malloc(w * h * sizeof *counts);
	if (!counts)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory counting the universe");
	int rc = engine_project(e, 0, counts, err);
	for (uint64_t i = 0; !rc && i < w * h; i++)
		sum += counts[i];
	free(counts);
	*population = sum;
	return rc;
}

/* One process.  A universe in host memory is written from there.  One on
 * a GPU comes a chunk of rows at a time, each downloaded while the chunk
 * before is encoded and written; RLE3 alone needs it whole first. */
static int write_whole(engine *e, const universe_dest *d, uint64_t *population, l3d_err *err)
{
	fmt_id f = d->format;
	uint64_t gen = d->generation;
	const run_stamp *stamp = d->stamp;
	grid tmp = {0}, *g = engine_host_grid(e);
	counted_rows counted = {{e->nx, e->ny, e->nz, gen, fetch_rows, e, stamp, .comments = NULL},
				(e->nz + 63) / 64, 0, 0};
	int rc = !g && f == FMT_RLE3 ? current_grid(e, &tmp, &g, err) : L3D_OK;
	if (!rc && g) {
		g->generation = gen;
		row_source_of_grid(&counted.of, g);
		counted.of.stamp = stamp;
	}
	counted.of.comments = d->comments;
	row_source src = counted.of;
	src.rows = count_rows;
	src.ctx = &counted;
	outfile out;
	if (!rc)
		rc = outfile_open_may(&out, d->path, d->may,
				      comm_tty_guard(format_is_binary(f)), err);
	if (!rc) {
		rc = format_write_view(out.f, out.name, f, &src, d->rule, d->view, err);
		rc = rc ? (outfile_abort(&out), rc) : outfile_commit(&out, err);
		if (d->kept && out.kept)
			*d->kept = true;
	}
	/* A part written counts only some of the rows. */
	bool part = d->view && d->view->box;
	if (!rc && population && part)
		rc = population_of(e, g, population, err);
	else if (!rc && population)
		*population = f == FMT_RLE3 ? grid_population(g) : counted.population;
	grid_free(&tmp);
	return rc;
}

#ifdef HAVE_MPI
/* Across ranks: every rank writes its own planes where the format allows
 * it (slab_io.h). */
static int write_slabs(engine *e, const universe_dest *d, uint64_t *population, l3d_err *err)
{
	grid slab;
	uint64_t x0;
	int rc = comm_agree(slab_engine_planes(e, &slab, &x0, err), err);
	if (rc)
		return rc;
	if (population)
		*population = comm_sum(grid_population(&slab));
	return slab_io_write(&slab, x0, e->nx, d, err);
}
#endif

int universe_let_go(engine *e, l3d_err *err)
{
	return distributed() ? L3D_OK : engine_let_go(e, err);
}

int universe_write(engine *e, const universe_dest *d, uint64_t *population, l3d_err *err)
{
#ifdef HAVE_MPI
	if (distributed())
		return write_slabs(e, d, population, err);
#endif
	return write_whole(e, d, population, err);
}

/* Across ranks: the slab engine's views are collective and land on rank
 * 0, which hands the picture to the ordinary snapshot writer; a render
 * gathers the whole universe there. */
static int snapshot_collective(engine *e, snapshot_opts *o,
			       uint64_t generation, char *path, size_t path_size,
			       l3d_err *err)
{
	bool project = o->kind == SNAP_PROJECTION, render = o->kind == SNAP_RENDER;
	grid whole = {.nx = e->nx, .ny = e->ny, .nz = e->nz};
	uint64_t w, h;
	grid_view_dims(&whole, o->axis, &w, &h);
	int rc = L3D_OK;
	void *view = NULL;
	if (comm_rank() == 0 && render)
		rc = grid_alloc(&whole, e->nx, e->ny, e->nz, err);
	else if (comm_rank() == 0 && !(view = malloc(w * h * (project ? sizeof(uint32_t) : 1))))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	rc = comm_agree(rc, err);
	if (!rc)
		rc = render ? engine_read(e, &whole, err)
		     : project ? engine_project(e, o->axis, view, err)
			       : engine_slice(e, o->axis, o->index, view, err);
	if (!rc && comm_rank() == 0)
		rc = snapshot_write_view(o, generation, &whole, view, path, path_size, err);
	free(view);
	if (render)
		grid_free(&whole);
	return comm_agree(rc, err);
}

int universe_snapshot(engine *e, snapshot_opts *o, uint64_t generation,
		      char *path, size_t path_size, l3d_err *err)
{
	if (distributed())
		return snapshot_collective(e, o, generation, path, path_size, err);
	return snapshot_start(e, o, generation, path, path_size, err);
}
