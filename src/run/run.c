/* run.c - see run.h. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/hostmem.h"
#include "base/outfile.h"
#include "base/pipeline.h"
#include "base/pool.h"
#include "engine/choose.h"
#include "mpi/comm.h"
#include "outputs.h"
#include "poplog.h"
#include "summary.h"
#include "universe.h"

/* Where the run is, for the signal handlers: while the input is read
 * there is nothing to save, and once the last step is done the result is
 * written to the end. */
enum { PHASE_INPUT, PHASE_STEPS, PHASE_OUTPUT };
static volatile sig_atomic_t stop_signal, checkpoint_requested, phase, result_written;
/* A stop abandons the snapshot being developed only while the run steps:
 * once the last step is done, the last picture is finished too. */
static volatile sig_atomic_t picture_stop;

bool run_request_stop(int signo)
{
	if (phase == PHASE_INPUT)
		return true;
	stop_signal = signo;
	if (phase == PHASE_STEPS)
		picture_stop = 1;
	return false;
}

void run_request_checkpoint(void)
{
	checkpoint_requested = 1;
}

bool run_result_written(void)
{
	return result_written;
}

/* Everything decided before the first step. */
typedef struct plan {
	universe_source src;    /* the initial universe, until the engine has it */
	rule rule;
	fmt_id out_format;
	out_view view;          /* --box and --coarsen: the result's part */
	bool viewed;            /* either was given */
	outfile_may out_may;    /* what the result may replace or write into:
				 * as the path was when the run began */
	uint64_t first, last;   /* generations */
	uint64_t log_every, snap_every;
	snapshot_opts snap;
	uint64_t snap_bytes;    /* what the snapshots hold (snapshot_fit) */
	double cells;
	uint64_t ckpt_every;
	double ckpt_interval, max_time;   /* seconds; 0 = off */
	char ckpt_path[4096];
	outfile_id ckpt_was;    /* the file at ckpt_path when the run began
				 * (ino 0: none), which -f lets it replace */
	run_stamp resume;       /* the input's, when it is a checkpoint */
	uint64_t run_id;        /* the input's, or new */
	double t_read;          /* when the input's last row came (0: not known) */
	bool random;            /* the universe is --random's, not a file's */
	bool snap_first;        /* a snapshot of the first generation too */
	bool rule_given;        /* by -r or the config, not the default */
	engine_opts eo;
	rule eo_rule;           /* eo.rule: the rule the run will step */
	const char *threads_from;   /* what set eo.threads (choose_threads) */
	bool summary;           /* --summary's path was checked: write it */
	bool sized;             /* the size and the rule are known */
	uint64_t size[3];       /* the universe's, once sized */
} plan;

/* The engine's set-up starts once the work is known (universe_warm_up):
 * it overlaps making or reading the cells.  own: the rule the input
 * carries, or NULL; it is the run's unless one was given (rule_from_input). */
static void warm_up(plan *p, uint64_t nx, uint64_t ny, uint64_t nz, const rule *own)
{
	p->eo.steps = (double)(p->last - p->first);
	p->eo.work = (double)nx * (double)ny * (double)nz * p->eo.steps;
	p->eo_rule = own && !p->rule_given ? *own : p->rule;
	p->eo.rule = &p->eo_rule;
	p->eo.ny = ny;
	p->eo.nz = nz;
	universe_warm_up(&p->eo);
}

/* A random universe; with --random-rule it carries that rule, as a file
 * carries its own (so a given rule replaces it, and says so). */
static int load_random(const options *o, plan *p, l3d_err *err)
{
	uint64_t n[3];
	rule carried;
	int rc = option_size(o->random, n, "--random", err);
	if (!rc && o->random_rule)
		rc = rule_parse(o->random_rule, &carried, err);
	if (!rc)
		warm_up(p, n[0], n[1], n[2], o->random_rule ? &carried : NULL);
	if (!rc)
		rc = universe_random(&p->src, n, o->density, o->seed,
				     !strcmp(o->random_shape, "box")      ? GRID_BOX
				     : !strcmp(o->random_shape, "sphere") ? GRID_BALL
									  : GRID_FILL, err);
	if (!rc && o->random_rule) {
		p->src.meta.rule = carried;
		p->src.meta.has_rule = true;
	}
	return rc;
}

/* The output is a device other than standard output (/dev/null): no
 * file is kept, and no one opens it in Golly or ParaView. */
static bool output_is_device(const char *path)
{
	struct stat st;
	return path && !outfile_is_stdout(path) && stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

/* What the output loses, or what Golly would make of it: said before the
 * run, not refused (a VTK file of a B5/S45 run is still worth having);
 * not for a device such as /dev/null. */
static void warn_caveats(const options *o, const plan *p)
{
	char text[512];
	if (o->quiet || output_is_device(o->output) || !format_caveats(p->out_format, p->src.nx, p->src.start.ny,
					p->src.start.nz, &p->rule, text, sizeof text))
		return;
	fprintf(stderr, "life3d: warning: %s: %s\n",
		outfile_is_stdout(o->output) ? "(stdout)" : o->output, text);
}

/* An RLE3 file read as Golly reads it where it left something out or
 * wrong: one line saying what was assumed. */
static void warn_assumed(const options *o, const plan *p)
{
	if (o->quiet || !p->src.meta.assumed[0])
		return;
	fprintf(stderr, "life3d: warning: %s: read as Golly reads it: %s\n", p->src.name,
		p->src.meta.assumed);
}

static void warn_sizeless(const options *o, const plan *p)
{
	if (o->quiet || p->src.meta.sizeless == SIZE_GIVEN)
		return;
	if (p->src.meta.sizeless == SIZE_GOLLY_GRID)
		fprintf(stderr, "life3d: warning: %s has no size=: the universe is "
			"Golly's grid, %" PRIu64 "x%" PRIu64 "x%" PRIu64 ", as Golly reads "
			"it; add size=N to its first line to say which\n", p->src.name,
			p->src.nx, p->src.start.ny, p->src.start.nz);
	else
		fprintf(stderr, "life3d: warning: %s has no size= and its pattern "
			"does not fit Golly's grid: the universe is the pattern's %" PRIu64
			"x%" PRIu64 "x%" PRIu64 " box, wrapped around; add size=N to its "
			"first line to say which\n", p->src.name, p->src.nx,
			p->src.start.ny, p->src.start.nz);
}

/* A 2D pattern: where it went, and what its rule comes to in 3D.  On two
 * planes a cell counts its 2D neighbours twice and itself once, so
 * B6/S567 is B3/S23 there, as long as the planes beside stay empty: a
 * cell there counts the 3x3 square beside it, born at 6. */
static void note_placed(const options *o, const plan *p)
{
	const universe_meta *m = &p->src.meta;
	if (o->quiet || !m->placed[0])
		return;
	char rule_text[160], then[256];
	rule_format(&p->rule, rule_text, sizeof rule_text);
	bool b6 = rule_equal(&p->rule, &rule_default);
	if (m->life2d && o->twice && b6)
		snprintf(then, sizeof then, "; B6/S567 runs it as Conway's Life while "
			 "no 3x3 square of it holds 6 live cells");
	else if (m->life2d && o->twice)
		snprintf(then, sizeof then, "; the rule is %s (B6/S567 would run it as "
			 "Conway's Life)", rule_text);
	else if (m->life2d)
		snprintf(then, sizeof then, "; the rule is %s (on two planes, --double, "
			 "B6/S567 runs it as Conway's Life)", rule_text);
	else
		snprintf(then, sizeof then, "; the rule is %s: a 2D rule does not carry "
			 "into 3D", rule_text);
	fprintf(stderr, "life3d: %s: %s%s\n", p->src.name, m->placed, then);
}

/* BusyBoxes runs in one process, on even sides: an odd one grows as Golly
 * grows it, and a warning says so. */
static int busyboxes_sizes(const options *o, plan *p, l3d_err *err)
{
	if (!rule_is_busyboxes(&p->rule))
		return L3D_OK;
	if (comm_size() > 1)
		return l3d_fail(err, L3D_ERR_USAGE, "BusyBoxes rules do not run across MPI "
				"ranks: run one process");
	uint64_t was[3] = {p->src.nx, p->src.start.ny, p->src.start.nz};
	bool grown;
	int rc = universe_grow_even(&p->src, &grown, err);
	if (!rc && grown && !o->quiet)
		fprintf(stderr, "life3d: warning: %s: BusyBoxes needs even sides: the "
			"%" PRIu64 "x%" PRIu64 "x%" PRIu64 " universe grows to %" PRIu64 "x%"
			PRIu64 "x%" PRIu64 " and its cells move by one along each odd side, "
			"as Golly's 3D.lua grows its grid\n", p->src.name, was[0], was[1], was[2],
			p->src.nx, p->src.start.ny, p->src.start.nz);
	return rc;
}

/* --comment: one more line among the universe's comments, unless it is
 * there already (a run resumed from its checkpoint, with the same
 * options). */
static int add_comment(const options *o, plan *p, l3d_err *err)
{
	char line[OPTION_COMMENT_MAX + 8], *c = p->src.meta.comments;
	if (!o->comment)
		return L3D_OK;
	snprintf(line, sizeof line, "%s%s", o->comment[0] == '#' ? "" : "#C ", o->comment);
	for (size_t n = strlen(line); (c = strstr(c, line)); c += n)
		if ((c == p->src.meta.comments || c[-1] == '\n') && c[n] == '\n')
			return L3D_OK;
	if (!meta_add_comment(&p->src.meta, line))
		return l3d_fail(err, L3D_ERR_USAGE, "--comment: no room: the comments of "
				"%s fill the %d bytes a universe keeps", p->src.name,
				META_COMMENTS_MAX - 1);
	return L3D_OK;
}

/* Comments that will not reach the result: cut at the input, or a format
 * without room for them. */
static void warn_comments(const options *o, const plan *p)
{
	const char *c = p->src.meta.comments;
	if (o->quiet)
		return;
	if (p->src.meta.comments_cut)
		fprintf(stderr, "life3d: warning: %s: comments past %d bytes are left out "
			"(a universe keeps at most %d)\n", p->src.name, META_COMMENTS_MAX - 1,
			META_COMMENTS_MAX - 1);
	if (!*c || format_keeps_comments(p->out_format) || output_is_device(o->output))
		return;
	size_t lines = 0;
	for (; *c; c++)
		lines += *c == '\n';
	fprintf(stderr, "life3d: warning: %s: the %s format keeps no comments (%zu line%s "
		"not written; RLE3 and .l3d keep them)\n",
		outfile_is_stdout(o->output) ? "(stdout)" : o->output,
		format_name(p->out_format), lines, lines == 1 ? "" : "s");
}

/* --plane, --plane-index and --double given for a universe that is not a
 * 2D pattern do nothing: say so. */
static void warn_unplaced(const options *o, const plan *p)
{
	static const opt_id ids[] = {OPT_PLANE, OPT_PLANE_INDEX, OPT_DOUBLE};
	if (o->quiet || p->src.meta.placed[0])
		return;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (o->origin[ids[i]] == ORIGIN_CLI) {
			fprintf(stderr, "life3d: warning: --%s places a 2D pattern; %s is "
				"a 3D universe\n", option_table[ids[i]].name, p->src.name);
			return;
		}
}

/* An output name with an extension that names no format would get the
 * input's format under a misleading name (out.npy.gz written as .l3d). */
static int check_extension(const options *o, l3d_err *err)
{
	const char *ext = format_extension(o->output);
	char known[256];
	if (o->format || outfile_is_stdout(o->output) || !ext ||
	    format_from_path(o->output) != FMT_NONE)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_USAGE,
			"%s: '.%s' names no format (%s); give --format to write "
			"it under this name", o->output, ext,
			format_extensions(known, sizeof known));
}

static int choose_format(const options *o, plan *p, l3d_err *err)
{
	if (o->format)
		p->out_format = format_from_name(o->format);
	else if (!outfile_is_stdout(o->output) &&
		 format_from_path(o->output) != FMT_NONE)
		p->out_format = format_from_path(o->output);
	else
		p->out_format = format_output_of(p->src.format);
	if (!format_can_write(p->out_format))
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: life3d reads the %s format but does not write it "
				"(name a 3D format: .rle3, .l3d, ..., or give --format)",
				outfile_is_stdout(o->output) ? "(stdout)" : o->output,
				format_name(p->out_format));
	p->view.coarsen = o->coarsen;
	if (o->box)
		p->view.box = !option_box(o->box, p->view.lo, p->view.hi, "--box", err);
	p->viewed = o->box || o->coarsen;
	uint64_t size[3] = {p->src.nx, p->src.start.ny, p->src.start.nz};
	int rc = format_view_check(p->out_format, &p->view, size, err);
	if (rc)
		return rc;
	p->out_may = outfile_may_now(o->output, o->force);
	return outfile_check(o->output, o->force,
			     comm_tty_guard(format_is_binary(p->out_format)), err);
}

/* Options a and b were both given in one place: on the command line (a
 * usage error, naming them na and nb) or in configuration files (an error
 * of the files, naming them and the keys ka and kb). */
static int not_both(const options *o, opt_id a, opt_id b, const char *na, const char *nb,
		    const char *ka, const char *kb, l3d_err *err)
{
	if (o->origin[a] != ORIGIN_CONFIG)
		return l3d_fail(err, L3D_ERR_USAGE, "give %s or %s, not both", na, nb);
	return l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: %s and %s:%d: %s: give one, not both",
			o->source[a], o->source_line[a], ka, o->source[b],
			o->source_line[b], kb);
}

static int choose_steps(const options *o, plan *p, l3d_err *err)
{
	p->first = p->src.start.generation;
	opt_origin so = o->origin[OPT_STEPS], uo = o->origin[OPT_UNTIL];
	if (so && so == uo)
		return not_both(o, OPT_STEPS, OPT_UNTIL, "steps", "until", "steps", "until", err);
	bool until = uo > so;     /* the command line overrides the file */
	if (!until) {
		if (o->steps > UINT64_MAX - p->first)
			return l3d_fail(err, L3D_ERR_USAGE,
					"--steps %" PRIu64 ": %s is at generation %" PRIu64
					", and generations stop at %" PRIu64 " (at most %" PRIu64
					" more steps)", o->steps, p->src.name, p->first,
					UINT64_MAX, UINT64_MAX - p->first);
		p->last = p->first + o->steps;
		return L3D_OK;
	}
	if (o->until < p->first)
		return l3d_fail(err, L3D_ERR_USAGE,
				"--until %" PRIu64 ": %s is already at generation %" PRIu64,
				o->until, p->src.name, p->first);
	p->last = o->until;
	return L3D_OK;
}

static unsigned digits(uint64_t v)
{
	unsigned n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static snapshot_kind kind_of(const char *name)
{
	return strcmp(name, "slice") == 0 ? SNAP_SLICE
	       : strcmp(name, "render") == 0 ? SNAP_RENDER : SNAP_PROJECTION;
}

/* Pixels per cell and the colour scale: the picture's size is known
 * before the first step, and refused then if it cannot be written; what
 * its buffers take is counted with the rest (check_memory). */
static int size_snapshots(const options *o, plan *p, l3d_err *err)
{
	snapshot_opts *s = &p->snap;
	opt_origin so = o->origin[OPT_SNAPSHOT_SCALE], zo = o->origin[OPT_SNAPSHOT_SIZE];
	if (so && so == zo)
		return not_both(o, OPT_SNAPSHOT_SCALE, OPT_SNAPSHOT_SIZE, "snapshot-scale",
				"snapshot-size", "snapshot_scale", "snapshot_size", err);
	s->scale = so > zo ? o->snapshot_scale : 0;
	s->max = o->snapshot_max;      /* 0: auto, from the first picture */
	/* A resumed run's auto: the stopped run's, from its picture of the
	 * checkpoint's generation or one of the 16 due before it, or of
	 * generation 0. */
	uint64_t k = o->snapshot_every, g = k ? p->first / k * k : 0;
	if (!s->max && s->kind == SNAP_PROJECTION && s->resumed && k && comm_rank() == 0) {
		s->max = snapshot_series_max(s, p->first);
		for (int i = 0; i < 16 && !s->max; i++, g -= k) {
			s->max = snapshot_series_max(s, g);
			if (g < k)
				break;
		}
		if (!s->max)
			s->max = snapshot_series_max(s, 0);
	}
	s->log = strcmp(o->snapshot_scaling, "log") == 0;
	int rc = option_view(o->snapshot_view, &s->azimuth, &s->elevation, "--snapshot-view", err);
	if (rc || !p->snap_every)      /* no pictures: no size to refuse */
		return rc;
	const uint64_t n[3] = {p->src.nx, p->src.start.ny, p->src.start.nz};
	return snapshot_fit(s, n, o->snapshot_size, &p->snap_bytes, err);
}

/* What the run will hold at once, beyond what it holds now: counted
 * before the first step, so that a run that cannot go to its end is
 * refused before it starts, not killed or failed half-way. */
typedef struct memory_use {
	uint64_t engine;     /* the engine's host memory (engine_host_bytes):
				the CPU engine's two buffers and its tiles,
				or a GPU engine's pinned staging */
	uint64_t tiles;      /* of which the tiles */
	bool cpu;            /* the engine is surely the CPU's */
	uint64_t universe;   /* one universe's bits (grid_bytes) */
	uint64_t pictures;   /* snapshot_fit: views, bands, memos, zlib */
	uint64_t writing;    /* a checkpoint's or the result's chunks */
	uint64_t held;       /* the input's universe, let go once the
				engine has its copy (universe_engine) */
	/* Address space that threads take, which ulimit -v counts: the CPU
	 * engine's workers (1 MiB stacks, pool.c's WORKER_STACK), a writer's
	 * helpers (pipeline_threads) and the pictures' (snapshot_threads,
	 * with an arena each: host_thread_reserve). */
	uint64_t threads, pictures_threads;
} memory_use;

/* The chunks a writer stages (format/stream.c, payload_write): two slots
 * a thread (pipeline_slots), each of at most 1 MiB of grid and 1 MiB of
 * file; for a small universe, no more than its chunks, about twice the
 * universe. */
#define WRITE_SLOT_BYTES ((uint64_t)2 << 20)

static void count_memory(const plan *p, memory_use *m)
{
	grid dims = {.nx = p->src.nx, .ny = p->src.start.ny, .nz = p->src.start.nz,
		     .words = (p->src.start.nz + 63) / 64};
	uint64_t universe = grid_bytes(&dims);
	m->engine = engine_host_bytes(&p->eo, dims.nx, dims.ny, dims.nz, &m->tiles, &m->cpu);
	m->pictures = p->snap_every ? p->snap_bytes : 0;
	uint64_t slots = 2 * (uint64_t)pipeline_threads(UINT64_MAX) * WRITE_SLOT_BYTES;
	m->writing = 2 * universe + 64 < slots ? 2 * universe + 64 : slots;
	uint64_t size[3] = {dims.nx, dims.ny, dims.nz};
	m->writing += format_view_bytes(p->out_format, p->viewed ? &p->view : NULL, size);
	m->universe = universe;
	m->held = p->src.start.bits ? grid_bytes(&p->src.start) : 0;
	int workers = p->eo.threads > 0 ? p->eo.threads : cpu_count();
	m->threads = host_thread_reserve(pipeline_threads(UINT64_MAX) - 1, 0) +
		     (m->cpu ? (uint64_t)(workers - 1) << 20 : 0);
	m->pictures_threads = p->snap_every ? host_thread_reserve(snapshot_threads(&p->snap),
								  snapshot_threads(&p->snap)) : 0;
}

static double mib(uint64_t bytes)
{
	return (double)bytes / 1048576.0;
}

/* Refused with the figures: out of memory (status 1) when the run does
 * not fit even without its pictures, else for the pictures (status 64,
 * as a picture too large is: the options can make them smaller).  A
 * distributed run's slabs, halos and tiles are counted by its own engine
 * as it is made (slab_engine.c); rank 0 counts the pictures it takes and
 * the whole universe it gathers for a result of a format without a fixed
 * layout, or of a --box or --coarsen (slab_io.c), with what its writer
 * holds. */
static int check_memory(const options *o, plan *p, l3d_err *err)
{
	bool gathers = o->output && (!format_fixed_of(p->out_format) || p->viewed);
	if (comm_size() > 1 && (comm_rank() != 0 || (!p->snap_every && !gathers)))
		return L3D_OK;
	memory_use m = {0};
	count_memory(p, &m);
	if (comm_size() > 1) {
		m.engine = m.held = m.threads = 0;
		uint64_t size[3] = {p->src.nx, p->src.start.ny, p->src.start.nz};
		m.writing = gathers ? m.universe + format_view_bytes(p->out_format, p->viewed ? &p->view : NULL, size)
				    : 0;
		p->eo.host_later = m.pictures + m.writing;    /* for the slab engine's check */
	}
	uint64_t base = m.engine + m.writing, need = base + m.pictures;
	base = base > m.held ? base - m.held : 0;
	need = need > m.held ? need - m.held : 0;
	char engine[96], what[640];
	if (comm_size() > 1)
		snprintf(engine, sizeof engine, "rank 0's slab counted as its engine is made");
	else if (m.cpu)
		snprintf(engine, sizeof engine, "the CPU engine's buffers %.1f MiB and tiles "
			 "%.1f MiB", mib(m.engine - m.tiles), mib(m.tiles));
	else
		snprintf(engine, sizeof engine, "the GPU engine's staging %.1f MiB",
			 mib(m.engine));
	snprintf(what, sizeof what, "%s: a run of its %" PRIu64 "x%" PRIu64 "x%" PRIu64
		 " universe (%s, %s snapshots %.1f MiB, writing %.1f MiB, less the input's "
		 "%.1f MiB let go before the first step)", p->src.name, p->src.nx,
		 p->src.start.ny, p->src.start.nz, engine,
		 p->snap_every ? o->snapshot_kind : "no", mib(m.pictures), mib(m.writing),
		 mib(m.held));
	int rc = host_memory_check_reserve((size_t)base, (size_t)m.threads, what, err);
	if (rc || host_memory_check_reserve((size_t)need, (size_t)(m.threads + m.pictures_threads),
					    what, err) == L3D_OK)
		return rc;
	return l3d_fail_keeping(err, L3D_ERR_USAGE, err->msg, "%s (snapshots: lower "
				"--snapshot-size, --snapshot-scale or --threads)", err->msg);
}

static int choose_snapshots(const options *o, plan *p, l3d_err *err)
{
	snapshot_opts *s = &p->snap;
	s->prefix = o->snapshot_prefix;
	s->kind = kind_of(o->snapshot_kind);
	s->axis = o->slice_axis[0] - 'x';
	s->force = o->force;
	s->resumed = p->resume.run_id != 0;
	s->resumed_at = p->first;
	s->threads = p->eo.threads;
	s->stop = &picture_stop;
	rule_format(&p->rule, s->rule, sizeof s->rule);
	s->digits = digits(p->last) > 6 ? digits(p->last) : 6;
	uint64_t len = s->axis == 0 ? p->src.nx : s->axis == 1 ? p->src.start.ny : p->src.start.nz;
	bool fits = o->slice_index < 0 || (uint64_t)o->slice_index < len;
	if (!fits && o->snapshot_every && s->kind == SNAP_SLICE)
		return l3d_fail(err, L3D_ERR_USAGE,
				"--slice-index %" PRId64 ": the %s axis has only %" PRIu64 " planes",
				o->slice_index, o->slice_axis, len);
	s->index = o->slice_index >= 0 && fits ? (uint64_t)o->slice_index : len / 2;
	p->snap_every = o->snapshot_every;
	p->log_every = o->log_every;
	return size_snapshots(o, p, err);
}

static uint64_t agreed_random(void);

/* Rank 0's name on every rank.  A name of this run alone (life3d-PID-TIME)
 * that something holds already was taken by someone who guessed it: the
 * run takes a fresh name beside it, as it does when its name is taken
 * later (checkpoint_place). */
static int default_checkpoint(const options *o, plan *p, l3d_err *err)
{
	bool own;
	struct stat st;
	int rc = outputs_default_checkpoint(o->output, (long)comm_max(getpid() * (comm_rank() == 0)),
					    (long)comm_max((double)time(NULL)), p->ckpt_path,
					    sizeof p->ckpt_path, &own, err);
	if (rc || !own || !comm_any(comm_rank() == 0 && lstat(p->ckpt_path, &st) == 0))
		return rc;
	char taken[sizeof p->ckpt_path];
	memcpy(taken, p->ckpt_path, sizeof taken);
	if (outputs_checkpoint_beside(taken, agreed_random(), p->ckpt_path, sizeof p->ckpt_path))
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: name too long", taken);
	return L3D_OK;
}

static int choose_checkpoints(const options *o, plan *p, l3d_err *err)
{
	p->ckpt_every = o->checkpoint_every;
	p->ckpt_interval = o->checkpoint_interval;
	if (o->max_time) {
		p->max_time = option_duration(o->max_time);
		if (p->max_time <= 0)
			return l3d_fail(err, L3D_ERR_USAGE,
					"--max-time: '%s' is not a duration (" OPTION_DURATIONS ")",
					o->max_time);
	}
	if (!o->checkpoint)
		return default_checkpoint(o, p, err);
	int n = snprintf(p->ckpt_path, sizeof p->ckpt_path, "%s", o->checkpoint);
	if (n < 0 || (size_t)n >= sizeof p->ckpt_path)
		return l3d_fail(err, L3D_ERR_USAGE, "--checkpoint: path too long");
	return L3D_OK;
}

/* The run's identity: a resumed run's is its checkpoint's; a new run draws
 * one, the same on every rank. */
/* A random number, rank 0's on every rank (collective). */
static uint64_t agreed_random(void)
{
	uint64_t id = 0;
	if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id)
		id = (uint64_t)time(NULL) << 24 ^ (uint64_t)getpid() ^ (uint64_t)clock();
	return comm_bcast(id);
}

static uint64_t choose_run_id(const plan *p)
{
	if (p->resume.run_id)
		return p->resume.run_id;
	uint64_t id = agreed_random();
	return id ? id : 1;
}

/* Whether generation g's picture exists under a name of any width: a run
 * that ends at another generation pads its numbers to another width. */
static bool picture_exists(const snapshot_opts *s, uint64_t g)
{
	snapshot_opts o = *s;
	for (o.digits = 6; o.digits <= 20; o.digits++) {
		char path[PATH_MAX + 64];
		struct stat st;
		snapshot_name(&o, g, path, sizeof path);
		if (lstat(path, &st) == 0 || errno != ENOENT)
			return true;
	}
	return false;
}

/* A new run pictures its first generation.  A resumed run does when that
 * generation is due and its picture is missing: the run it continues was
 * stopped while drawing it (the same answer on every rank). */
static bool first_picture(const plan *p)
{
	if (!p->snap_every || !p->resume.run_id)
		return p->snap_every != 0;
	if (p->first % p->snap_every != 0)
		return false;
	return comm_any(comm_rank() == 0 && !picture_exists(&p->snap, p->first));
}

/* Every output path, before the first step (outputs.h); the log is rank
 * 0's alone. */
static int check_outputs(const options *o, plan *p, l3d_err *err)
{
	run_outputs r = {
		.input = p->random || outfile_is_stdout(o->input) ? NULL : o->input,
		.input_stdin = !p->random && outfile_is_stdout(o->input),
		.result = o->output ? o->output : "-", .log = o->log,
		.checkpoint = p->ckpt_path, .summary = o->summary,
		.snap = &p->snap, .snap_every = p->snap_every,
		.first = p->first, .last = p->last, .snap_first = p->snap_first,
		.resume = &p->resume,
		.run_id = p->run_id, .force = o->force};
	int rc = outputs_check(&r, err);
	struct stat st;
	if (!rc && o->force && lstat(p->ckpt_path, &st) == 0 && S_ISREG(st.st_mode)) {
		p->ckpt_was = (outfile_id){st.st_dev, st.st_ino};
	}
	poplog_mode mode;
	if (!rc && o->log && comm_rank() == 0)
		rc = poplog_check(o->log, o->force, &p->resume, &mode, err);
	return rc;
}

/* --random or INPUT: the command line wins over a config file, as for
 * every other setting (an INPUT operand beats the file's random); both
 * given in the same place are an error. */
static int choose_source(const options *o, bool *random, l3d_err *err)
{
	opt_origin ro = o->origin[OPT_RANDOM], io = o->origin[OPT_INPUT];
	*random = o->random && (!o->input || ro > io);
	if (o->random && o->input && ro == io)
		return not_both(o, OPT_INPUT, OPT_RANDOM, "INPUT", "--random", "input", "random", err);
	return L3D_OK;
}

/* The input's own rule is used unless a rule was given; a given rule that
 * differs from the input's replaces it, and the user is told. */
static void rule_from_input(const options *o, plan *p, bool rule_given)
{
	const rule *mine = &p->src.meta.rule;
	if (!rule_given) {
		p->rule = *mine;
		return;
	}
	if (o->quiet || rule_equal(mine, &p->rule))
		return;
	char given[128], stored[128];
	rule_format(&p->rule, given, sizeof given);
	rule_format(mine, stored, sizeof stored);
	opt_origin ro = o->origin[OPT_RANDOM_RULE];
	const char *whose = !p->random ? "stored in "
			    : ro == ORIGIN_CLI ? "given by --random-rule"
			    : ro == ORIGIN_CONFIG ? "given by random_rule in "
						  : "of the random universe";
	const char *where = !p->random ? p->src.name
			    : ro == ORIGIN_CONFIG ? o->source[OPT_RANDOM_RULE] : "";
	fprintf(stderr, "life3d: rule %s (from %s) replaces the rule %s %s%s\n",
		given, o->origin[OPT_RULE] == ORIGIN_CLI ? "the command line" : o->source[OPT_RULE],
		stored, whose, where);
}

/* --summary's place, before anything else can fail: a run that fails
 * later still says so there.  Standard output takes it only when it takes
 * nothing else. */
static int check_summary(const options *o, plan *p, l3d_err *err)
{
	if (!o->summary)
		return L3D_OK;
	bool out = outfile_is_stdout(o->summary);
	if (out && (outfile_is_stdout(o->output) || (o->log && outfile_is_stdout(o->log))))
		return l3d_fail(err, L3D_ERR_USAGE, "--summary - and the %s both go to stdout; "
				"give -o FILE%s", outfile_is_stdout(o->output) ? "universe" : "log",
				outfile_is_stdout(o->output) ? "" : " or --log FILE");
	int rc = comm_rank() == 0 ? outfile_check(o->summary, o->force, false, err) : L3D_OK;
	rc = comm_agree(rc, err);
	p->summary = rc == L3D_OK;
	return rc;
}

static int prepare(const options *o, plan *p, l3d_err *err)
{
	bool rule_given = o->origin[OPT_RULE] != ORIGIN_DEFAULT;
	p->rule_given = rule_given;
	int rc = check_summary(o, p, err);
	if (rc)
		return rc;
	rc = rule_parse(rule_given ? o->rule : RULE_DEFAULT_TEXT, &p->rule, err);
	if (rc)
		return rc;
	if (o->log && outfile_is_stdout(o->log) && outfile_is_stdout(o->output))
		return l3d_fail(err, L3D_ERR_USAGE,
				"--log - and the universe both go to stdout; give -o FILE");
	rc = check_extension(o, err);
	if (rc)
		return rc;
	rc = choose_source(o, &p->random, err);
	if (!rc && p->random) {
		rc = choose_steps(o, p, err);      /* from generation 0 */
		rc = rc ? rc : load_random(o, p, err);
	} else if (!rc) {
		plane_place place = {.axis = !strcmp(o->plane, "yz") ? 0 : !strcmp(o->plane, "xz") ? 1 : 2,
				     .index = o->plane_index, .twice = o->twice};
		rc = universe_open(&p->src, o->input, &place, err);
		rc = rc ? rc : choose_steps(o, p, err);
		if (!rc)
			warm_up(p, p->src.nx, p->src.start.ny, p->src.start.nz,
				p->src.meta.has_rule ? &p->src.meta.rule : NULL);
	}
	if (rc)
		return rc;
	if (p->src.meta.has_rule)
		rule_from_input(o, p, rule_given);
	rc = busyboxes_sizes(o, p, err);
	if (rc)
		return rc;
	p->sized = true;
	p->size[0] = p->src.nx, p->size[1] = p->src.start.ny, p->size[2] = p->src.start.nz;
	warn_assumed(o, p);
	warn_sizeless(o, p);
	note_placed(o, p);
	warn_unplaced(o, p);
	rc = add_comment(o, p, err);
	if (rc)
		return rc;
	p->resume = p->src.meta.stamp;
	p->run_id = choose_run_id(p);
	rc = choose_format(o, p, err);
	if (!rc)
		warn_caveats(o, p);
	if (!rc)
		warn_comments(o, p);
	if (!rc)
		rc = choose_snapshots(o, p, err);
	if (!rc)
		rc = choose_checkpoints(o, p, err);
	if (!rc)
		rc = check_memory(o, p, err);
	rc = comm_agree(rc, err);     /* first_picture is collective */
	if (!rc)
		p->snap_first = first_picture(p);
	if (!rc)
		rc = check_outputs(o, p, err);
	return comm_agree(rc, err);
}

/* The state of the stepping loop. */
typedef struct loop {
	engine *e;
	poplog log;
	bool logging;
	uint64_t gen;
	double t0, t_steps, last_progress, last_ckpt, ckpt_cost, chunk_cost;
	bool progress;
	uint64_t chunk;          /* steps per engine call, adapted to ~0.1 s */
	uint64_t population;     /* at the last generation counted */
	const char *ckpt;        /* where checkpoints go: the plan's path, or */
	char ckpt_beside[4200];  /* a name beside it, once that was taken */
	const char *ckpt_written;   /* the last checkpoint written, or NULL */
	snapshot_opts snap;      /* the plan's, with --snapshot-max auto's
	                            count once the first picture fixed it */
} loop;

/* Next generation after g that is a multiple of k (k = 0: never). */
/* The first multiple of k after g; UINT64_MAX when there is none (k 0, or
 * past the last generation), which due() tells from a multiple. */
static uint64_t next_multiple(uint64_t g, uint64_t k)
{
	if (k == 0)
		return UINT64_MAX;
	uint64_t n = (g / k + 1) * k;
	return n < g ? UINT64_MAX : n;
}

/* Is generation g one that every k asks for (never, for k 0)? */
static bool due(uint64_t g, uint64_t k)
{
	return k != 0 && g % k == 0;
}

static void show_progress(loop *l, const plan *p, bool final)
{
	double t = l3d_seconds();
	if (!l->progress || (!final && t - l->last_progress < 0.25))
		return;
	l->last_progress = t;
	if (final) {
		fputs("\r\033[K", stderr);
		return;
	}
	double done = (double)(l->gen - p->first), total = (double)(p->last - p->first);
	double rate = l->t_steps > 0 ? done * p->cells / l->t_steps : 0;
	fprintf(stderr, "\r\033[Kgeneration %" PRIu64 "/%" PRIu64 " (%.0f%%)  %.3g cell updates/s",
		l->gen, p->last, 100.0 * done / total, rate);
	/* From the steps timed alone (not the start-up), once a few are. */
	if (done >= 4 && l->t_steps > 0)
		fprintf(stderr, "  ETA %.0f s", (total - done) * l->t_steps / done);
}

/* -f lets the checkpoint replace the file that was at its name when the
 * run began, and nothing that took the name since (another run's). */
static outfile_may forced(const loop *l, const plan *p)
{
	return (outfile_may){p->ckpt_was.ino && l->ckpt == p->ckpt_path, p->ckpt_was, false};
}

/* Where the checkpoint goes.  Something not this run's that took its name
 * while the run went on (another run's or user's file, a link, a FIFO) is
 * not replaced, and the run's state is not lost for it either: once, the
 * checkpoints move to a fresh name beside it (a new random number, so it
 * cannot be guessed and taken in turn), said on standard error.  *may:
 * what the write may replace there, the file checked here alone. */
static int checkpoint_place(loop *l, const plan *p, outfile_may *may, l3d_err *err)
{
	l3d_err why = {0, ""};
	*may = outfile_may_force(false);
	int rc = comm_rank() != 0 ? L3D_OK
		 : outputs_checkpoint_usable(l->ckpt, p->run_id, forced(l, p), may, &why);
	if (!comm_any(rc != L3D_OK))
		return L3D_OK;
	if (l->ckpt != p->ckpt_path)
		return comm_agree(l3d_fail(err, rc ? rc : L3D_ERR_CANTCREAT, "%s",
					   why.msg), err);
	if (outputs_checkpoint_beside(p->ckpt_path, agreed_random(), l->ckpt_beside,
				      sizeof l->ckpt_beside) != 0)
		return comm_agree(l3d_fail(err, rc ? rc : L3D_ERR_CANTCREAT, "%s",
					   why.msg), err);
	l->ckpt = l->ckpt_beside;
	*may = outfile_may_force(false);
	if (comm_rank() == 0)
		fprintf(stderr, "life3d: warning: %s; checkpoints of this run go to %s\n",
			why.msg, l->ckpt);
	return L3D_OK;
}

/* Write the current universe, atomically, in the native format, stamped
 * with the run and its log.  A checkpoint replaces the previous one of the
 * same run: that is its purpose; a file put there meanwhile by anyone else
 * is not replaced (checkpoint_place). */
static int write_checkpoint(loop *l, const plan *p, const options *o, l3d_err *err)
{
	double t = l3d_seconds();
	run_stamp stamp = {p->run_id, 0, 0};
	if (l->logging && comm_rank() == 0)
		poplog_identity(&l->log, &stamp.log_bytes, &stamp.log_crc);
	int rc;
	for (int tries = 0;; tries++) {
		outfile_may may;      /* the file checkpoint_place approved */
		rc = checkpoint_place(l, p, &may, err);
		universe_dest d = {l->ckpt, may, FMT_NATIVE, &p->rule, l->gen, &stamp, NULL,
				   p->src.meta.comments, NULL};
		if (!rc)
			rc = universe_write(l->e, &d, NULL, err);
		/* Taken while it was written: once more, beside it
		 * (checkpoint_place), without the copy kept at the old name. */
		if (tries || comm_agree(rc, err) != L3D_ERR_CANTCREAT || l->ckpt != p->ckpt_path)
			break;
		if (comm_rank() == 0)
			outfile_remove_kept(l->ckpt);
	}
	l->last_ckpt = l3d_seconds();
	l->ckpt_cost = l->last_ckpt - t;
	if (!rc)
		l->ckpt_written = l->ckpt;
	if (!rc && o->verbose)
		fprintf(stderr, "life3d: checkpoint at generation %" PRIu64 " in %s\n",
			l->gen, l->ckpt);
	return rc;
}

/* Output events due at the current generation. */
static int emit(loop *l, const plan *p, const engine_stats *st, bool log_due,
		bool snap_due, const options *o, l3d_err *err)
{
	int rc = L3D_OK;
	if (l->logging && log_due && comm_rank() == 0)
		rc = poplog_write(&l->log, l->gen, st, err);
	rc = comm_agree(rc, err);
	if (!rc && snap_due) {
		char path[4096];
		rc = universe_snapshot(l->e, &l->snap, l->gen, path, sizeof path, err);
		if (!rc && o->verbose)
			fprintf(stderr, "life3d: snapshot %s\n", path);
	}
	return rc;
}

/* The message of a run stopped by a signal or --max-time (rc), naming
 * where its checkpoint is. */
static int stopped(const loop *l, int rc, int signo, l3d_err *err)
{
	if (rc == L3D_ERR_INTERRUPTED)
		return l3d_fail(err, rc, "interrupted by signal %d at generation %" PRIu64
				"; checkpoint in %s", signo, l->gen, l->ckpt);
	return l3d_fail(err, rc, "stopped by --max-time at generation %" PRIu64
			"; resume with the checkpoint %s as input", l->gen, l->ckpt);
}

/* Should the run stop now?  A signal, or --max-time about to run out: stop
 * while there is still time for one more chunk and the checkpoint. */
static int stop_reason(const loop *l, const plan *p, l3d_err *err)
{
	if (stop_signal)
		return stopped(l, L3D_ERR_INTERRUPTED, (int)stop_signal, err);
	double margin = 2 * l->chunk_cost + 1.5 * l->ckpt_cost + 0.05;
	if (p->max_time > 0 && l3d_seconds() - l->t0 + margin >= p->max_time)
		return stopped(l, L3D_ERR_STOPPED, 0, err);
	return L3D_OK;
}

static bool checkpoint_due(const loop *l, const plan *p)
{
	return checkpoint_requested ||
	       (p->ckpt_every && l->gen % p->ckpt_every == 0) ||
	       (p->ckpt_interval > 0 && l3d_seconds() - l->last_ckpt >= p->ckpt_interval);
}

/* One engine call towards the next event; adapts the chunk length. */
static int advance(loop *l, const plan *p, engine_stats *st, bool *logged,
		   bool *snapped, l3d_err *err)
{
	uint64_t log_at = l->logging ? next_multiple(l->gen, p->log_every) : UINT64_MAX;
	uint64_t snap_at = next_multiple(l->gen, p->snap_every);
	uint64_t target = p->last;
	uint64_t ckpt_at = next_multiple(l->gen, p->ckpt_every);
	target = log_at < target ? log_at : target;
	target = snap_at < target ? snap_at : target;
	target = ckpt_at < target ? ckpt_at : target;
	uint64_t n = target - l->gen < l->chunk ? target - l->gen : l->chunk;
	*logged = l->logging && l->gen + n == log_at && due(log_at, p->log_every);
	*snapped = l->gen + n == snap_at && due(snap_at, p->snap_every);
	double t = l3d_seconds();
	int rc = engine_step(l->e, n, *logged ? st : NULL, err);
	/* Ranks must agree on the chunk length: adapt it to the slowest. */
	double dt = comm_max(l3d_seconds() - t);
	l->t_steps += dt;
	l->chunk_cost = dt;
	l->gen += n;
	/* Keep each engine call short enough that progress, signals and time
	 * limits are seen a few times a second, long enough that call
	 * overhead stays negligible. */
	if (dt < 0.05 && n == l->chunk && l->chunk < ((uint64_t)1 << 62))
		l->chunk *= 2;
	else if (dt > 0.4 && l->chunk > 1)
		l->chunk /= 2;
	if (*logged)
		l->population = st->population;
	return rc;
}

/* Stop for `rc` (a stop_reason(), or a picture abandoned for a signal):
 * write the checkpoint, then say where it went (checkpoint_place may have
 * moved it).  Collective: the signal is the one some rank received. */
static int stop_here(loop *l, const plan *p, const options *o, int rc, l3d_err *err)
{
	int signo = (int)comm_max((double)stop_signal);
	int crc = write_checkpoint(l, p, o, err);
	return crc ? crc : stopped(l, rc, signo, err);
}

/* A snapshot abandoned for a signal (its encoding stops between rows)
 * stops the run as the signal would have.  The status is one every rank
 * agreed on (the signal may have reached rank 0 alone). */
static int abandoned(loop *l, const plan *p, const options *o, int rc, l3d_err *err)
{
	if (rc != L3D_ERR_INTERRUPTED)
		return rc;
	return stop_here(l, p, o, rc, err);
}

/* An output failed (rc) while the universe of generation l->gen is still
 * here: a full disk, a reader gone, a snapshot's place taken or its
 * memory.  For an I/O error, and for a picture or result (`unmade`) that
 * could not be created or ran out of memory (the run counted its memory
 * before the first step, check_memory, but what the host has left may
 * shrink meanwhile),
 * the universe goes to the checkpoint, as a stopped run's does, and the
 * message says where.  A log that failed keeps its whole lines when the
 * checkpoint records them, else is put back as it was (poplog_resolve).
 * Collective. */
static int keep_generation(loop *l, const plan *p, const options *o, int rc,
			   bool unmade, l3d_err *err)
{
	rc = comm_agree(rc, err);
	l3d_err ck = {0, ""};
	bool keeps = rc == L3D_ERR_IO ||
		     (unmade && (rc == L3D_ERR_CANTCREAT || rc == L3D_ERR_RUNTIME));
	int crc = rc && keeps ? write_checkpoint(l, p, o, &ck) : L3D_ERR_RUNTIME;
	bool kept = crc == L3D_OK;
	/* A checkpoint kept aside (it could not take its name) that the
	 * message will not name goes. */
	if (comm_rank() == 0 && crc == L3D_ERR_CANTCREAT)
		outfile_remove_kept(l->ckpt);
	if (l->logging && comm_rank() == 0)
		poplog_resolve(&l->log, kept);
	if (!kept)
		return rc;
	return l3d_fail_keeping(err, rc, err->msg,
				"%s; generation %" PRIu64 " is kept in the checkpoint %s",
				err->msg, l->gen, l->ckpt);
}

/* The events due after a step: one whose output failed keeps the
 * generation reached (keep_generation; the status is one every rank
 * agreed on, as abandoned's). */
static int events(loop *l, const plan *p, const engine_stats *st, bool logged,
		  bool snapped, const options *o, l3d_err *err)
{
	int rc = abandoned(l, p, o, emit(l, p, st, logged, snapped, o, err), err);
	return rc ? keep_generation(l, p, o, rc, true, err) : rc;
}

/* Across ranks, once the last step is done, a signal no longer stops the
 * run: the last picture is encoded by its taking (universe_snapshot),
 * with no earlier one in flight, and is finished in full.  In one process
 * taking it may wait for an earlier picture, which a signal still
 * abandons, so there the phase moves on once it is taken (step_loop). */
static void last_step_done(const loop *l, const plan *p)
{
	if (l->gen == p->last && comm_size() > 1)
		phase = PHASE_OUTPUT;
}

static int step_loop(loop *l, const plan *p, const options *o, bool log_first,
		     l3d_err *err)
{
	engine_stats st = {l->population, 0, 0};
	last_step_done(l, p);
	int rc = emit(l, p, &st, log_first, p->snap_first, o, err);
	rc = abandoned(l, p, o, rc, err);
	while (!rc && l->gen < p->last) {
		rc = comm_agree(stop_reason(l, p, err), err);
		if (rc)
			return stop_here(l, p, o, rc, err);
		bool logged, snapped;
		rc = advance(l, p, &st, &logged, &snapped, err);
		if (!rc)
			last_step_done(l, p);
		if (!rc && (logged || snapped))
			rc = events(l, p, &st, logged, snapped, o, err);
		/* The last picture is on its way (taking it may have waited for
		 * an earlier one, which a signal abandons): from here a signal
		 * no longer stops the run, as once the loop is left. */
		if (!rc && l->gen == p->last)
			phase = PHASE_OUTPUT;
		if (!rc && l->gen < p->last && comm_any(checkpoint_due(l, p))) {
			checkpoint_requested = 0;
			rc = write_checkpoint(l, p, o, err);
		}
		show_progress(l, p, false);
	}
	/* The last steps may still be running on a device: their time is
	 * stepping time. */
	double t = l3d_seconds();
	if (!rc)
		rc = engine_finish(l->e, err);
	l->t_steps += l3d_seconds() - t;
	show_progress(l, p, true);
	return rc;
}

/* Write the final universe; the population for the summary line is
 * counted from what is written.  In a run without snapshots nothing can
 * still need the device, so a GPU engine lets it go first and the
 * driver's teardown overlaps the writing (universe_let_go).  A result
 * that could not be written goes to the checkpoint, as on a full disk;
 * one that is written whole but could not take its name (*kept, agreed
 * by every rank) is kept under the name the message gives instead. */
static int write_result(loop *l, const plan *p, const options *o, bool *kept,
			l3d_err *err)
{
	int rc = p->snap_every || p->snap_first ? L3D_OK : universe_let_go(l->e, err);
	universe_dest d = {o->output, p->out_may, p->out_format, &p->rule, p->last, NULL,
			   kept, p->src.meta.comments, p->viewed ? &p->view : NULL};
	rc = rc ? rc : universe_write(l->e, &d, &l->population, err);
	*kept = comm_any(*kept);
	return rc;
}

static void summary(const loop *l, const plan *p, const options *o)
{
	if (o->quiet)
		return;
	uint64_t steps = p->last - p->first;
	double wall = l3d_seconds() - l->t0, work = p->cells * (double)steps;
	char text[128];
	rule_format(&p->rule, text, sizeof text);
	fprintf(stderr,
		"life3d: %" PRIu64 " step%s to generation %" PRIu64 ", population %" PRIu64
		", rule %s, %.3f s, %.3g cell updates/s (stepping alone %.3g), engine %s\n",
		steps, steps == 1 ? "" : "s", p->last, l->population, text, wall,
		wall > 0 ? work / wall : 0, l->t_steps > 0 ? work / l->t_steps : 0,
		engine_describe(l->e));
}

static void say_engine(const plan *p, const engine *e)
{
	char text[128];
	rule_format(&p->rule, text, sizeof text);
	fprintf(stderr, "life3d: %s, %" PRIu64 "x%" PRIu64 "x%" PRIu64
		", rule %s, engine %s\n", p->src.name, e->nx, e->ny, e->nz,
		text, engine_describe(e));
	if (*engine_auto_reason())
		fprintf(stderr, "life3d: auto: %s\n", engine_auto_reason());
	if (*engine_gpu_named())
		fprintf(stderr, "life3d: CUDA_VISIBLE_DEVICES=%s: the driver sets up that GPU alone\n",
			engine_gpu_named());
}

/* One comment line of the log's head, its control characters shown as
 * '?' (an input's name may hold a newline). */
static void about_line(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n + 2 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n - 1, fmt, ap);
	va_end(ap);
	for (char *c = buf + n; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	strcat(buf, "\n");
}

/* What a new log says of its run before the header (poplog.h): life3d's
 * version, the rule, the universe, where it came from. */
static void log_about(const plan *p, const options *o, char *buf, size_t size)
{
	char text[128], golly[128];
	rule_format(&p->rule, text, sizeof text);
	rule_format_golly(&p->rule, golly, sizeof golly);
	buf[0] = '\0';
	about_line(buf, size, "# life3d %s population log", PACKAGE_VERSION);
	about_line(buf, size, "# rule: %s (Golly: %s)", text, golly);
	about_line(buf, size, "# universe: %" PRIu64 "x%" PRIu64 "x%" PRIu64, p->size[0],
		   p->size[1], p->size[2]);
	if (p->random)
		about_line(buf, size, "# start: --random %s, seed %" PRIu64 ", density %g, %s",
			   o->random, o->seed, o->density, o->random_shape);
	else
		about_line(buf, size, "# start: %s (%s), generation %" PRIu64, p->src.name,
			   format_name(p->src.format), p->first);
}

/* Open the log.  A run that resumes from a checkpoint (input generation
 * above 0) continues an existing log instead of starting a new one. */
static int open_log(loop *l, const plan *p, const options *o, bool *log_first,
		    l3d_err *err)
{
	*log_first = true;
	if (!o->log)
		return L3D_OK;
	bool resumed = false;
	uint64_t last_logged = 0;
	char about[8192];
	log_about(p, o, about, sizeof about);
	poplog_spec spec = {o->log, o->force, &p->resume, about};
	int rc = comm_rank() != 0 ? L3D_OK
		 : poplog_open(&l->log, &spec, &resumed, &last_logged, err);
	rc = comm_agree(rc, err);
	l->logging = rc == L3D_OK;
	/* A log the checkpoint had lines of, gone (or mistyped): say so. */
	if (l->logging && l->log.mode == POPLOG_CREATE && p->resume.log_bytes && !o->quiet)
		fprintf(stderr, "life3d: warning: %s: the checkpoint continues a log of %" PRIu64
			" bytes, not found here; this log starts at generation %" PRIu64 "\n",
			o->log, p->resume.log_bytes, p->first);
	/* Continue exactly as the uninterrupted run would have logged. */
	if (resumed)
		*log_first = last_logged < p->first && p->first % p->log_every == 0;
	return rc;
}

/* -v: how many pictures repeated an earlier one, and how many of their
 * bands were the same as an earlier picture's, put again rather than
 * compressed (snapshot_tally). */
static void say_bands(void)
{
	snapshot_counts c;
	snapshot_tally(&c);
	if (c.pictures)
		fprintf(stderr, "life3d: snapshots: %" PRIu64 " pictures, %" PRIu64
			" of them the same as an earlier one (nothing drawn); %" PRIu64
			" bands, %" PRIu64 " of them kept from an earlier picture (not compressed)\n",
			c.pictures, c.repeated, c.bands, c.kept);
}

/* The leap the engine made, once the steps are done (engine_leap_found):
 * the universe of generation *from came back *period generations later. */
static bool leap_of(const loop *l, const plan *p, uint64_t *from, uint64_t *period)
{
	uint64_t after;
	if (!l->e || !engine_leap_found(l->e, &after, period))
		return false;
	*from = p->first + after - *period;
	return true;
}

/* -v: the period a leap was found with. */
static void say_period(const loop *l, const plan *p)
{
	uint64_t from, period;
	if (leap_of(l, p, &from, &period))
		fprintf(stderr, "life3d: period %" PRIu64 " found: the universe of generation %"
			PRIu64 " came back at generation %" PRIu64 "; later steps leapt\n", period,
			from, from + period);
}

/* The CPU threads of the run (knobs.h: engine_knobs_threads), for the
 * engine and, through cpu_budget_set, every thread started besides; 0
 * leaves the affinity mask to decide (and over ranks that were not bound,
 * each rank's share of the node).  -v says where the number came from. */
static int choose_threads(const options *o, const engine_knobs *knobs, const char **from)
{
	knobs_threads t = engine_knobs_threads(knobs);
	if (o->threads > 0)
		t = (knobs_threads){(int)o->threads, "--threads", NULL, NULL};
	if (t.ignored && !o->quiet)
		fprintf(stderr, "life3d: warning: %s: '%s' is not a whole number of threads "
			"from 1 to 4096; passed over\n", t.ignored, t.ignored_value);
	cpu_budget_set(t.threads);
	*from = t.threads ? t.from : "the affinity mask";
	if (!o->verbose)
		return t.threads;
	if (t.threads)
		fprintf(stderr, "life3d: %d CPU thread%s, from %s\n", t.threads,
			t.threads == 1 ? "" : "s", t.from);
	else
		fprintf(stderr, "life3d: CPU threads: the %d CPU%s of the affinity mask\n",
			cpu_count(), cpu_count() == 1 ? "" : "s");
	return t.threads;
}

/* --summary (summary.h), at the end of the run, with its status rc and
 * message err; t: when the input, the engine's set-up, the steps and the
 * output ended.  A summary that cannot be written fails a run that had
 * not failed; a failed run keeps its own status. */
static int write_summary(const loop *l, const plan *p, const options *o, const double t[4],
			 int rc, l3d_err *err)
{
	snapshot_counts c;
	snapshot_tally(&c);
	const char *out = o->output ? o->output : "-";
	run_summary s = {
		.status = rc, .reason = rc ? err->msg : NULL,
		.input = p->random ? NULL : o->input ? o->input : "-", .random = p->random,
		.seed = o->seed, .density = o->density, .random_shape = o->random_shape,
		.sized = p->sized, .size = {p->size[0], p->size[1], p->size[2]},
		.rule = &p->rule, .first = p->first, .generation = l->e ? l->gen : p->first,
		.counted = l->e && !rc, .population = l->population,
		.engine = l->e ? engine_describe(l->e) : NULL,
		.threads = p->eo.threads ? p->eo.threads : cpu_count(),
		.threads_from = p->threads_from, .ranks = comm_size(),
		.seconds = {t[0] - l->t0, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[3] - l->t0},
		.stepping = l->t_steps, .cells = p->cells,
		.result = result_written ? (outfile_is_stdout(out) ? "(stdout)" : out) : NULL,
		.result_format = format_name(p->out_format),
		.log = l->logging ? o->log : NULL, .checkpoint = l->ckpt_written,
		.snapshots = c.pictures};
	s.leapt = leap_of(l, p, &s.leap_from, &s.leap_period);
	l3d_err why = {0, ""};
	int src = summary_write(o->summary, o->force, &s, &why);
	if (src && !rc)
		*err = why;
	return rc ? rc : src;
}

int run(const options *o, const engine_knobs *knobs, l3d_err *err)
{
	/* Rank 0 alone reports; the other ranks work as if quiet. */
	options quiet;
	if (comm_rank() != 0) {
		quiet = *o;
		quiet.quiet = true;
		quiet.verbose = false;
		o = &quiet;
	}
	loop l = {.t0 = l3d_seconds(), .chunk = 1};
	l.last_ckpt = l.t0;
	plan p = {0};
	l.ckpt = p.ckpt_path;
	bool log_first = true;
	p.eo = (engine_opts){o->engine, choose_threads(o, knobs, &p.threads_from), (int)o->device,
			     o->simd, 0, 0, NULL, 0, 0, knobs, 0};
	p.snap.every_band = engine_knobs_of(&p.eo)->dense;
	l3d_err why = {0, ""};
	int rc = prepare(o, &p, &why);
	double t_input = l3d_seconds();
	p.cells = (double)p.src.nx * (double)(p.src.start.ny * p.src.start.nz);
	rc = universe_engine(&p.src, &p.eo, &p.rule, rc, &why, &l.e, &l.population,
			     &p.t_read, err);
	if (!rc && p.snap_every)
		rc = comm_agree(snapshot_prepare(l.e, &p.snap, err), err);
	l.snap = p.snap;
	double t_engine = l3d_seconds();
	/* Read in the background: the input ended when its last row came,
	 * and what the engine needed after that is its set-up time. */
	if (p.t_read > 0)
		t_input = p.t_read;
	phase = PHASE_STEPS;
	if (!rc && o->verbose)
		say_engine(&p, l.e);
	if (!rc)
		rc = open_log(&l, &p, o, &log_first, err);
	l.gen = p.first;
	l.progress = !o->quiet && isatty(STDERR_FILENO);
	if (!rc)
		rc = step_loop(&l, &p, o, log_first, err);
	if (!rc && o->verbose)
		say_period(&l, &p);
	if (!rc)
		phase = PHASE_OUTPUT;
	/* The last snapshot may still be being developed: the result is
	 * written meanwhile, unless a stop reached the picture (then the run
	 * ends as a stopped run does, with a checkpoint).  Only rank 0 takes
	 * pictures; every rank makes the same collective calls either way. */
	bool develop_later = !rc && !picture_stop;
	int last_picture = L3D_OK;
	if (!develop_later) {
		int src = snapshot_wait(rc ? NULL : err);
		if (!rc)
			last_picture = abandoned(&l, &p, o, src, err);
	}
	rc = comm_agree(rc, err);
	if (!rc)
		rc = l.gen > p.first ? keep_generation(&l, &p, o, last_picture,
						       true, err)
				     : comm_agree(last_picture, err);
	if (l.logging) {
		int lrc = poplog_close(&l.log, rc ? NULL : err);
		if (!rc)
			rc = keep_generation(&l, &p, o, lrc, false, err);
		/* A log whose close failed after the run had failed already
		 * (nothing kept it) is put back. */
		poplog_resolve(&l.log, false);
		if (!rc && o->verbose && comm_rank() == 0)
			fprintf(stderr, "life3d: log %s\n", o->log);
	}
	rc = comm_agree(rc, err);
	double t_steps = l3d_seconds();
	if (!rc) {
		bool kept = false;
		int wrc = write_result(&l, &p, o, &kept, err);
		rc = keep_generation(&l, &p, o, wrc, !kept, err);
	}
	result_written = !rc;
	if (!rc && o->verbose && comm_rank() == 0)
		fprintf(stderr, "life3d: result %s (%s)\n",
			outfile_is_stdout(o->output) ? "(stdout)" : o->output,
			format_name(p.out_format));
	int src = develop_later ? snapshot_wait(rc ? NULL : err) : L3D_OK;
	rc = comm_agree(rc ? rc : src, err);
	if (!rc && o->verbose)
		fprintf(stderr, "life3d: input %.3f s, engine set-up %.3f s, steps and "
			"events %.3f s, output %.3f s\n", t_input - l.t0,
			t_engine - t_input, t_steps - t_engine, l3d_seconds() - t_steps);
	if (!rc && o->verbose)
		say_bands();
	if (!rc)
		summary(&l, &p, o);
	double t_end[4] = {t_input, t_engine, t_steps, l3d_seconds()};
	if (p.summary && comm_rank() == 0)
		rc = write_summary(&l, &p, o, t_end, rc, err);
	engine_destroy(l.e);
	engine_leave();
	return rc;
}
