/* command.c - `life3d census` (command.h). */
#include "command.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "base/clock.h"
#include "base/grid.h"
#include "base/outfile.h"
#include "base/pool.h"
#include "base/rule.h"
#include "census.h"
#include "format/format.h"
#include "haul.h"
#include "mpi/comm.h"
#include "soup.h"

/* ---- one soup as a universe ---- */

/* g in format f at path, whole or not at all. */
static int write_universe(const char *path, outfile_may may, fmt_id f, const grid *g,
			  const rule *r, l3d_err *err)
{
	outfile o;
	int rc = outfile_open_may(&o, path, may, format_is_binary(f), err);
	if (rc)
		return rc;
	rc = format_write(o.f, o.name, f, g, r, NULL, err);
	if (rc == L3D_OK)
		return outfile_commit(&o, err);
	outfile_abort(&o);
	return rc;
}

/* The file at path ('-': standard input) to read, *name for messages. */
static int open_input(const char *path, const char *mode, FILE **f, const char **name,
		      l3d_err *err)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	*name = in ? "(stdin)" : path;
	*f = NULL;
	if (!in && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return l3d_fail(err, L3D_ERR_NOINPUT, "%s: is a directory", path);
	*f = in ? stdin : fopen(path, mode);
	if (!*f)
		return l3d_fail(err, L3D_ERR_NOINPUT, "%s: cannot open: %s", path,
				strerror(errno));
	return L3D_OK;
}

static void close_input(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

/* Soup `index` at the centre of its census space, as the census steps it. */
static int soup_in_space(const char *root, uint64_t index, uint32_t side,
			 double density, grid *out, l3d_err *err)
{
	grid s = {0};
	uint32_t space = census_space(side), at = (space - side) / 2;
	int rc = soup_make(root, index, side, density, &s, err);
	if (rc == L3D_OK)
		rc = grid_alloc(out, space, space, space, err);
	for (uint64_t x = 0; rc == L3D_OK && x < side; x++)
		for (uint64_t y = 0; y < side; y++)
			for (uint64_t z = 0; z < side; z++)
				if (grid_get(&s, x, y, z))
					grid_set(out, x + at, y + at, z + at, 1);
	grid_free(&s);
	return rc;
}

static int write_soup(const census_args *a, const rule *r, l3d_err *err)
{
	char root[SOUP_ROOT_MAX + 1];
	uint64_t index;
	grid g = {0};
	int rc = soup_parse_name(a->soup, root, &index, err);
	fmt_id f = format_from_path(a->output);
	f = f == FMT_NONE || outfile_is_stdout(a->output) ? FMT_RLE3 : f;
	if (rc == L3D_OK)
		rc = soup_in_space(root, index, (uint32_t)a->side, a->density, &g, err);
	if (rc == L3D_OK)
		rc = write_universe(a->output, outfile_may_now(a->output, a->force), f, &g, r, err);
	grid_free(&g);
	return rc;
}

/* ---- the census ---- */

/* The haul to a->output, which may be what `may` says: what was there
 * when the census began (a device, a FIFO, a file -f replaces). */
static int write_haul(const census_args *a, outfile_may may, const haul *h,
		      const haul_head *head, l3d_err *err)
{
	outfile o;
	int rc = outfile_open_may(&o, a->output, may, false, err);
	if (rc)
		return rc;
	rc = haul_write(o.f, h, head, err);
	if (rc == L3D_OK)
		rc = outfile_commit(&o, err);
	else
		outfile_abort(&o);
	return rc;
}

/* The progress line on a terminal, redrawn twice a second. */
typedef struct progress {
	atomic_uint_fast64_t done;
	atomic_bool over;
	uint64_t soups;
	double t0;
	pthread_t thread;
	bool started;
} progress;

static void *draw_progress(void *arg)
{
	progress *p = arg;
	while (!atomic_load(&p->over)) {
		struct timespec nap = {0, 100 * 1000 * 1000};
		for (int i = 0; i < 5 && !atomic_load(&p->over); i++)
			nanosleep(&nap, NULL);
		uint64_t n = atomic_load(&p->done);
		double t = l3d_seconds() - p->t0;
		fprintf(stderr, "\rlife3d: census: %" PRIu64 " of %" PRIu64 " soups, %.0f soups/s\033[K",
			n, p->soups, t > 0 ? (double)n / t : 0.0);
	}
	fputs("\r\033[K", stderr);
	return NULL;
}

static void progress_start(progress *p, const census_args *a, bool alone)
{
	atomic_init(&p->done, 0);
	atomic_init(&p->over, false);
	p->soups = a->nfiles ? (uint64_t)a->nfiles : a->count;
	p->t0 = l3d_seconds();
	p->started = alone && !a->quiet && isatty(STDERR_FILENO) &&
		     pthread_create(&p->thread, NULL, draw_progress, p) == 0;
}

static void progress_end(progress *p)
{
	atomic_store(&p->over, true);
	if (p->started)
		pthread_join(p->thread, NULL);
}

static void say_done(const census_args *a, const census_cfg *c, const haul *h,
		     double seconds)
{
	if (!a->verbose)
		return;
	fprintf(stderr, "life3d: census: %" PRIu64 " soups in %.3f s, %.0f soups/s, %zu kinds of "
		"object, on %s\n", h->soups, seconds,
		seconds > 0 ? (double)h->soups / seconds : 0.0, h->n,
		census_on_gpu(c) ? "the GPU" : "the CPU");
}

/* The sides of the box of u's live cells (as they lie, not across the
 * torus's seams); false when none is alive. */
static bool live_box(const grid *u, uint64_t box[3])
{
	uint64_t lo[3] = {UINT64_MAX, UINT64_MAX, UINT64_MAX}, hi[3] = {0, 0, 0};
	for (uint64_t x = 0; x < u->nx; x++)
		for (uint64_t y = 0; y < u->ny; y++) {
			const uint64_t *row = grid_row(u, x, y);
			for (uint64_t w = 0; w < u->words; w++) {
				if (!row[w])
					continue;
				uint64_t v[3] = {x, y, w * 64 + (uint64_t)__builtin_ctzll(row[w])};
				uint64_t top = w * 64 + 63 - (uint64_t)__builtin_clzll(row[w]);
				for (int a = 0; a < 3; a++) {
					lo[a] = v[a] < lo[a] ? v[a] : lo[a];
					hi[a] = (a == 2 ? top : v[a]) > hi[a] ? (a == 2 ? top : v[a]) : hi[a];
				}
			}
		}
	for (int a = 0; a < 3; a++)
		box[a] = lo[a] == UINT64_MAX ? 0 : hi[a] - lo[a] + 1;
	return lo[0] != UINT64_MAX;
}

/* Each --soups FILE's universe into u[i]; its live cells must fit in a
 * soup's box. */
static int read_one(const char *path, uint64_t side, grid *u, l3d_err *err)
{
	const char *name;
	FILE *f;
	int rc = open_input(path, "rb", &f, &name, err);
	if (rc)
		return rc;
	reader r;
	universe_meta meta;
	fmt_id fmt;
	reader_init(&r, f, name);
	rc = format_read(&r, u, &meta, &fmt, err);
	close_input(f);
	uint64_t box[3];
	if (rc == L3D_OK && live_box(u, box) &&
	    (box[0] > side || box[1] > side || box[2] > side))
		rc = l3d_fail(err, L3D_ERR_DATA,
			      "%s: the live cells span %" PRIu64 "x%" PRIu64 "x%" PRIu64
			      ", more than the soups' --size %" PRIu64, name, box[0], box[1],
			      box[2], side);
	return rc;
}

static int read_files(const census_args *a, grid **out, l3d_err *err)
{
	grid *u = calloc((size_t)a->nfiles, sizeof *u);
	int rc = u ? L3D_OK : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	for (int i = 0; rc == L3D_OK && i < a->nfiles; i++)
		rc = read_one(a->files[i], a->side, &u[i], err);
	if (rc && u)
		for (int i = 0; i < a->nfiles; i++)
			grid_free(&u[i]);
	*out = rc ? (free(u), NULL) : u;
	return rc;
}

/* ---- objects met ---- */

typedef struct finds {
	const census_args *a;
	const rule *rule;
	bool files;
} finds;

/* DIR/CODE.rle3, or, for a code too long for a file name, its first 160
 * characters, '-' and the first 16 hex digits of its SHA-256. */
static int object_path(const char *dir, const char *code, char **out, l3d_err *err)
{
	char name[200];
	size_t n = strlen(code);
	if (n <= 160) {
		snprintf(name, sizeof name, "%s", code);
	} else {
		struct sha256_ctx ctx;
		uint8_t d[SHA256_DIGEST_SIZE];
		sha256_init(&ctx);
		sha256_update(&ctx, n, (const uint8_t *)code);
		sha256_digest(&ctx, sizeof d, d);
		int k = snprintf(name, sizeof name, "%.160s-", code);
		for (int i = 0; i < 8; i++)
			k += snprintf(name + k, sizeof name - (size_t)k, "%02x", d[i]);
	}
	if (asprintf(out, "%s/%s.rle3", dir, name) < 0)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	return L3D_OK;
}

/* The object's canonical phase as an RLE3 universe, 4 dead cells round it. */
static int write_object(const char *path, const census_name *n, const rule *r, l3d_err *err)
{
	int32_t side = 0;
	for (size_t i = 0; i < n->cells.n; i++) {
		const census_cell *c = &n->cells.c[i];
		int32_t m = c->x > c->y ? (c->x > c->z ? c->x : c->z) : (c->y > c->z ? c->y : c->z);
		side = m + 1 > side ? m + 1 : side;
	}
	grid g;
	int rc = grid_alloc(&g, (uint64_t)side + 8, (uint64_t)side + 8, (uint64_t)side + 8, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n->cells.n; i++)
		grid_set(&g, (uint64_t)n->cells.c[i].x + 4, (uint64_t)n->cells.c[i].y + 4,
			 (uint64_t)n->cells.c[i].z + 4, 1);
	rc = write_universe(path, outfile_may_force(false), FMT_RLE3, &g, r, err);
	grid_free(&g);
	return rc;
}

static void announce(const finds *f, const census_name *n, uint64_t soup)
{
	if (f->a->quiet || !(n->kind == 'q' || (n->kind == 'p' && n->period > 2)))
		return;
	char where[SOUP_ROOT_MAX + 32];
	if (f->files)
		snprintf(where, sizeof where, "#%" PRIu64, soup);
	else
		snprintf(where, sizeof where, "%s/%" PRIu64, f->a->root, soup);
	fprintf(stderr, "%slife3d: census: soup %s made %s, a new %s of period %d (%" PRIu64
		" cells, moving %d,%d,%d)\n", isatty(STDERR_FILENO) ? "\r\033[K" : "", where,
		n->code, n->kind == 'q' ? "ship" : "oscillator", n->period, n->population,
		n->d[0], n->d[1], n->d[2]);
}

static int on_found(void *ctx, const census_name *n, uint64_t soup, l3d_err *err)
{
	const finds *f = ctx;
	announce(f, n, soup);
	if (!f->a->objects)
		return L3D_OK;
	char *path;
	struct stat st;
	int rc = object_path(f->a->objects, n->code, &path, err);
	if (rc)
		return rc;
	if (lstat(path, &st) != 0)
		rc = write_object(path, n, f->rule, err);
	free(path);
	/* A name taken while the object was written (someone else's file,
	 * a link planted there) costs that file alone, not the census. */
	if (rc == L3D_ERR_CANTCREAT) {
		fprintf(stderr, "life3d: warning: %s; the census goes on\n", err->msg);
		rc = L3D_OK;
	}
	return rc;
}

static int objects_dir(const char *dir, l3d_err *err)
{
	struct stat st;
	if (stat(dir, &st) != 0)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot use as the objects' folder: %s",
				dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: not a directory (--objects)", dir);
	char *probe;
	if (asprintf(&probe, "%s/x.rle3", dir) < 0)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	int rc = outfile_check_place(probe, err);
	free(probe);
	return rc;
}

/* What heads the haul of the census c. */
static void census_head(const census_args *a, const census_cfg *c, const char *rule_text,
			haul_head *h)
{
	memset(h, 0, sizeof *h);
	snprintf(h->version, sizeof h->version, "%s", PACKAGE_VERSION);
	snprintf(h->rule, sizeof h->rule, "%s", rule_text);
	h->files = c->universes != NULL;
	if (h->files) {
		snprintf(h->soup, sizeof h->soup, "from files, each within %" PRIu32 "x%" PRIu32
			 "x%" PRIu32, c->side, c->side, c->side);
		snprintf(h->root, sizeof h->root, "(files: sample #I is the I-th, from 0)");
	} else {
		snprintf(h->soup, sizeof h->soup, "%" PRIu32 "x%" PRIu32 "x%" PRIu32 " density %.17g",
			 c->side, c->side, c->side, a->density);
		snprintf(h->root, sizeof h->root, "%s", a->root);
	}
	snprintf(h->bounds, sizeof h->bounds, "%" PRIu64 " generations, space %" PRIu32 "^3",
		 a->max_gens, census_space(c->side));
}

/* The census, its haul written; *done: the soups in it. */
/* ---- over MPI ranks: each its share of the soups, rank 0 the sum ---- */

/* The other ranks' hauls added to rank 0's h. */
static int gather(haul *h, const haul_head *head, l3d_err *err)
{
	char *text = NULL;
	size_t len = 0;
	void **all = NULL;
	size_t *lens = NULL;
	FILE *f = open_memstream(&text, &len);
	int rc = f ? haul_write(f, h, head, err) : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	if (f && fclose(f) != 0 && rc == L3D_OK)
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the haul");
	int grc = comm_gather_bytes(text ? text : "", text ? len : 0, &all, &lens, err);
	rc = rc ? rc : grc;
	for (int r = 1; all && r < comm_size(); r++) {
		haul part;
		haul_head hh;
		const char *what;
		char name[32];
		snprintf(name, sizeof name, "(rank %d's haul)", r);
		FILE *in = rc || !all[r] ? NULL : fmemopen(all[r], lens[r], "r");
		haul_init(&part);
		if (in) {
			rc = haul_read(in, name, &part, &hh, err);
			fclose(in);
			if (rc == L3D_OK && !haul_same_head(head, &hh, &what))
				rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: its %s differs", name, what);
			if (rc == L3D_OK)
				rc = haul_merge(h, &part, err);
		}
		haul_free(&part);
	}
	for (int r = 0; all && r < comm_size(); r++)
		free(all[r]);
	free(all);
	free(lens);
	free(text);
	return rc;
}

/* This rank's share of c's soups: the ranks split them as planes. */
static void my_share(census_cfg *c)
{
	uint64_t lo, n;
	comm_slab_of(c->soups, comm_size(), comm_rank(), &lo, &n);
	c->first += lo;
	c->soups = n;
}

/* The census, its haul written (by rank 0, the ranks' added); *sum: the
 * haul, whose soups and ranges the caller reads, freed by it. */
static int run_and_write(const census_args *a, outfile_may may, census_cfg *c,
			 const char *rule_text, haul *sum, l3d_err *err)
{
	double t0 = l3d_seconds();
	progress p;
	haul_head head;
	census_head(a, c, rule_text, &head);
	bool alone = comm_size() == 1;
	progress_start(&p, a, alone);
	c->done = &p.done;
	c->deadline = a->time > 0 ? t0 + a->time : 0;
	my_share(c);
	int rc = c->soups ? census_run(c, sum, err) : L3D_OK;
	progress_end(&p);
	rc = comm_agree(rc, err);
	if (rc == L3D_OK && !alone)
		rc = comm_agree(gather(sum, &head, err), err);
	if (rc == L3D_OK && comm_rank() == 0)
		rc = write_haul(a, may, sum, &head, err);
	rc = comm_agree(rc, err);
	if (rc == L3D_OK && comm_rank() == 0)
		say_done(a, c, sum, l3d_seconds() - t0);
	return rc;
}

static int stopped(const census_args *a, const haul *h, l3d_err *err)
{
	if (h->soups == 0)
		return l3d_fail(err, L3D_ERR_INTERRUPTED,
				"census stopped by a signal before its first soup was done: "
				"the haul holds none");
	if (h->ranges != 1 || h->range[0].lo != a->first)
		return l3d_fail(err, L3D_ERR_INTERRUPTED,
				"census stopped by a signal: the haul holds %" PRIu64 " soups, "
				"its '# soups' line says which; census the others with --first "
				"and --count, and add the hauls with --merge", h->soups);
	return l3d_fail(err, L3D_ERR_INTERRUPTED,
			"census stopped by a signal: the haul holds soups %" PRIu64
			" to %" PRIu64 "; go on with --first %" PRIu64,
			a->first, h->range[0].hi - 1, h->range[0].hi);
}

/* ---- --merge ---- */

static int read_haul(const char *path, haul *h, haul_head *head, l3d_err *err)
{
	const char *name;
	FILE *f;
	int rc = open_input(path, "r", &f, &name, err);
	if (rc == L3D_OK)
		rc = haul_read(f, name, h, head, err);
	close_input(f);
	return rc;
}

/* One more haul into sum, whose head is first's. */
static int add_haul(const char *path, const char *first, haul *sum,
		    const haul_head *head, l3d_err *err)
{
	haul h;
	haul_head hh;
	const char *what;
	haul_init(&h);
	int rc = read_haul(path, &h, &hh, err);
	if (rc == L3D_OK && !haul_same_head(head, &hh, &what))
		rc = l3d_fail(err, L3D_ERR_DATA,
			      "%s: its %s line differs from %s's: hauls add only when their "
			      "version, rule, soup, root and bounds are the same", path, what, first);
	if (rc == L3D_OK && head->files)
		rc = l3d_fail(err, L3D_ERR_DATA,
			      "%s: a haul of soups from files does not add to another "
			      "(its samples name files by their place)", first);
	if (rc == L3D_OK && haul_merge(sum, &h, err)) {
		rc = l3d_fail_keeping(err, L3D_ERR_DATA, err->msg,
				      "%s: %s (they are in an earlier haul)", path, err->msg);
	}
	haul_free(&h);
	return rc;
}

static int merge(const census_args *a, l3d_err *err)
{
	haul sum;
	haul_head head;
	haul_init(&sum);
	int rc = outfile_check(a->output, a->force, false, err);
	outfile_may may = outfile_may_now(a->output, a->force);
	if (rc == L3D_OK)
		rc = read_haul(a->hauls[0], &sum, &head, err);
	for (int i = 1; rc == L3D_OK && i < a->nhauls; i++)
		rc = add_haul(a->hauls[i], a->hauls[0], &sum, &head, err);
	if (rc == L3D_OK)
		rc = write_haul(a, may, &sum, &head, err);
	haul_free(&sum);
	return rc;
}

int census_command(const census_args *a, const engine_knobs *knobs,
		   volatile sig_atomic_t *stop, l3d_err *err)
{
	if (a->merge)
		return merge(a, err);
	rule r;
	char text[64];
	grid *files = NULL;
	int rc = rule_parse(a->rule, &r, err);
	if (rc == L3D_OK && rule_is_busyboxes(&r))
		rc = l3d_fail(err, L3D_ERR_USAGE, "census: rule '%s': a census is of rules of "
			      "counts; BusyBoxes moves every cell and keeps them all", a->rule);
	bool first = comm_rank() == 0;
	if (rc == L3D_OK && a->soup)
		return first ? write_soup(a, &r, err) : L3D_OK;
	if (rc == L3D_OK && a->nfiles && comm_size() > 1)
		rc = l3d_fail(err, L3D_ERR_USAGE, "census: --soups FILE runs in one process, not over ranks");
	/* A census may run for hours: a result it could not write is found
	 * out now. */
	if (rc == L3D_OK && first)
		rc = outfile_check(a->output, a->force, false, err);
	if (rc == L3D_OK && first && a->objects)
		rc = objects_dir(a->objects, err);
	if (rc == L3D_OK && a->nfiles)
		rc = read_files(a, &files, err);
	rc = comm_agree(rc, err);
	if (rc)
		return rc;
	rule_format(&r, text, sizeof text);
	/* --threads, else OMP_NUM_THREADS or SLURM_CPUS_PER_TASK, else the
	 * affinity mask, for the workers and every thread besides. */
	int threads = a->threads ? (int)a->threads : engine_knobs_threads(knobs).threads;
	cpu_budget_set(threads);
	census_cfg c = {.rule = r, .side = (uint32_t)a->side, .density = a->density,
			.root = a->root, .first = files ? 0 : a->first,
			.soups = files ? (uint64_t)a->nfiles : a->count,
			.max_gens = a->max_gens, .threads = threads,
			.knobs = knobs, .stop = stop, .universes = files,
			.engine = a->engine, .device = (int)a->device};
	/* Over ranks, rank 0 alone announces finds and writes objects. */
	finds f = {a, &r, files != NULL};
	c.found = first ? on_found : NULL;
	c.found_ctx = &f;
	c.device = a->device >= 0 ? (int)a->device : comm_local_rank();
	uint64_t asked = c.soups;
	haul sum;
	haul_init(&sum);
	rc = run_and_write(a, outfile_may_now(a->output, a->force), &c, text, &sum, err);
	for (int i = 0; files && i < a->nfiles; i++)
		grid_free(&files[i]);
	free(files);
	bool short_ = comm_any(sum.soups < c.soups) || (first && sum.soups < asked);
	if (rc == L3D_OK && short_ && *stop)
		rc = first ? stopped(a, &sum, err) : L3D_ERR_INTERRUPTED;
	haul_free(&sum);
	return rc;
}
