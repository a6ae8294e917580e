/* options.c - the option table, defaults and value parsing shared by the
 * command line and the configuration file. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grid.h"
#include "base/rule.h"
#include "format/format.h"

#define F(field) offsetof(options, field)
#define U64MAX 18446744073709551615.0

const opt_desc option_table[OPT_COUNT] = {
	{OPT_OUTPUT, "output", 'o', OT_STRING, F(output), "FILE", NULL, 0, 0, true,
	 "write the final universe to FILE ('-' = stdout, the default)"},
	{OPT_FORCE, "force", 'f', OT_FLAG, F(force), NULL, NULL, 0, 0, true,
	 "overwrite existing outputs (result, log, snapshots); binary to a terminal"},
	{OPT_STEPS, "steps", 'n', OT_UINT, F(steps), "N", NULL, 0, U64MAX, true,
	 "run N steps (default 0)"},
	{OPT_UNTIL, "until", 0, OT_UINT, F(until), "T", NULL, 0, U64MAX, true,
	 "run until generation T (instead of --steps)"},
	{OPT_RULE, "rule", 'r', OT_STRING, F(rule), "RULE", NULL, 0, 0, true,
	 "rule as B/S (B6/S567), Bays (5766) or Golly (3D5..7/6), ending in F (or V), C, E or H "
	 "for another neighbourhood (3D3/3H), or Golly's BusyBoxes or BusyBoxesW; default: "
	 "the input's, else B6/S567"},
	{OPT_CONFIG, "config", 'c', OT_STRING, F(config), "FILE", NULL, 0, 0, false,
	 "read settings from the libconfig file FILE (repeatable: in order)"},
	{OPT_ENGINE, "engine", 0, OT_CHOICE, F(engine), "NAME", "auto|cpu|cuda", 0, 0, true,
	 "auto (CUDA when a GPU is present, else CPU), cpu or cuda"},
	{OPT_THREADS, "threads", 0, OT_INT, F(threads), "N", NULL, 0, 4096, true,
	 "CPU threads (default 0: OMP_NUM_THREADS, else SLURM_CPUS_PER_TASK, else every CPU allowed)"},
	{OPT_DEVICE, "device", 0, OT_INT, F(device), "N", NULL, -1, 1024, true,
	 "CUDA device index (default: the first visible one)"},
	{OPT_SIMD, "simd", 0, OT_CHOICE, F(simd), "PATH", "auto|avx512|avx2|portable", 0, 0, true,
	 "CPU vector path (default auto; also $LIFE3D_SIMD)"},
	{OPT_FORMAT, "format", 0, OT_CHOICE, F(format), "NAME", NULL, 0, 0, true,
	 "output format (default: from the output name, else the input's)"},
	{OPT_BOX, "box", 0, OT_STRING, F(box), "X0,Y0,Z0:X1,Y1,Z1", NULL, 0, 0, true,
	 "write only the cells from corner X0,Y0,Z0 to X1,Y1,Z1 (both included) of the "
	 "final universe"},
	{OPT_COARSEN, "coarsen", 0, OT_UINT, F(coarsen), "K", NULL, 1, 256, true,
	 "write the live cells of each KxKxK block (.vti and .npy) instead of the cells"},
	{OPT_RANDOM, "random", 0, OT_STRING, F(random), "X[xYxZ]", NULL, 0, 0, true,
	 "start from a seeded random universe of this size instead of INPUT"},
	{OPT_DENSITY, "density", 0, OT_DOUBLE, F(density), "D", NULL, 0, 1, true,
	 "fraction of live cells for --random (default 0.25)"},
	{OPT_RANDOM_SHAPE, "random-shape", 0, OT_CHOICE, F(random_shape), "SHAPE", "fill|box|sphere", 0, 0, true,
	 "what --random fills, as Golly's 3D.lua: all (fill, the default), a central box "
	 "(an eighth of each side left empty around it) or the ball in that box"},
	{OPT_SEED, "seed", 0, OT_UINT, F(seed), "S", NULL, 0, U64MAX, true,
	 "seed for --random (default 1)"},
	{OPT_RANDOM_RULE, "random-rule", 0, OT_STRING, F(random_rule), "RULE", NULL, 0, 0, true,
	 "the rule a random universe carries, as a file carries its own (default B6/S567)"},
	{OPT_PLANE, "plane", 0, OT_CHOICE, F(plane), "PLANE", "xy|xz|yz", 0, 0, true,
	 "the plane a 2D pattern (Golly's .rle) is read into, as Golly's 3D.lua pastes one "
	 "(default xy)"},
	{OPT_PLANE_INDEX, "plane-index", 0, OT_INT, F(plane_index), "I", NULL, -1, 16777215, true,
	 "where that plane lies along the third axis (default: the middle)"},
	{OPT_DOUBLE, "double", 0, OT_FLAG, F(twice), NULL, NULL, 0, 0, true,
	 "put a 2D pattern on the next plane too, where B6/S567 runs it as Conway's Life"},
	{OPT_COMMENT, "comment", 0, OT_STRING, F(comment), "TEXT", NULL, 0, 0, true,
	 "add the comment line '#C TEXT' (TEXT itself when it starts with '#') to those the "
	 "input has, which RLE3 and .l3d results and checkpoints keep"},
	{OPT_QUIET, "quiet", 'q', OT_FLAG, F(quiet), NULL, NULL, 0, 0, true,
	 "no progress and no summary on stderr"},
	{OPT_VERBOSE, "verbose", 'v', OT_FLAG, F(verbose), NULL, NULL, 0, 0, true,
	 "say more on stderr (engine, files written, time of each phase)"},
	{OPT_LOG, "log", 0, OT_STRING, F(log), "FILE", NULL, 0, 0, true,
	 "write the population log (TSV) to FILE ('-' = stdout)"},
	{OPT_LOG_EVERY, "log-every", 0, OT_UINT, F(log_every), "K", NULL, 1, U64MAX, true,
	 "log every K steps (default 1)"},
	{OPT_SUMMARY, "summary", 0, OT_STRING, F(summary), "FILE", NULL, 0, 0, true,
	 "write a JSON summary of the run to FILE at its end, failed or not ('-' = stdout)"},
	{OPT_SNAPSHOT_EVERY, "snapshot-every", 0, OT_UINT, F(snapshot_every), "K", NULL, 0, U64MAX, true,
	 "write a PNG snapshot every K steps (default 0 = none)"},
	{OPT_SNAPSHOT_PREFIX, "snapshot-prefix", 0, OT_STRING, F(snapshot_prefix), "PATH", NULL, 0, 0, true,
	 "snapshot file names start with PATH (default 'snapshot-')"},
	{OPT_SNAPSHOT_KIND, "snapshot-kind", 0, OT_CHOICE, F(snapshot_kind), "KIND", "projection|slice|render", 0, 0, true,
	 "projection (live cells counted along an axis, the default), slice or render (3D)"},
	{OPT_SLICE_AXIS, "slice-axis", 0, OT_CHOICE, F(slice_axis), "AXIS", "x|y|z", 0, 0, true,
	 "axis a snapshot looks along (default z)"},
	{OPT_SLICE_INDEX, "slice-index", 0, OT_INT, F(slice_index), "I", NULL, -1, 16777215, true,
	 "plane shown by a slice snapshot (default: the middle)"},
	{OPT_SNAPSHOT_SCALE, "snapshot-scale", 0, OT_UINT, F(snapshot_scale), "S", NULL, 1, 1000000, true,
	 "draw each cell S pixels wide (default: from --snapshot-size)"},
	{OPT_SNAPSHOT_SIZE, "snapshot-size", 0, OT_UINT, F(snapshot_size), "N", NULL, 1, 1000000, true,
	 "enlarge snapshots to at least N pixels on the long side (default 512)"},
	{OPT_SNAPSHOT_MAX, "snapshot-max", 0, OT_UINT, F(snapshot_max), "N|auto", "auto", 1, U64MAX, true,
	 "projections: the count drawn yellow (default auto: the largest count of the "
	 "first picture, kept for the run)"},
	{OPT_SNAPSHOT_SCALING, "snapshot-scaling", 0, OT_CHOICE, F(snapshot_scaling), "SCALE",
	 "linear|log", 0, 0, true,
	 "projections: counts coloured in proportion (linear, the default) or to their logarithms"},
	{OPT_SNAPSHOT_VIEW, "snapshot-view", 0, OT_STRING, F(snapshot_view), "AZ,EL", NULL, 0, 0, true,
	 "render: azimuth and elevation of the view, degrees (default 30,25)"},
	{OPT_CHECKPOINT, "checkpoint", 0, OT_STRING, F(checkpoint), "FILE", NULL, 0, 0, true,
	 "checkpoint file (native format; default: OUTPUT.ckpt.l3d, or life3d-PID-TIME.ckpt.l3d for stdout or a device)"},
	{OPT_CHECKPOINT_EVERY, "checkpoint-every", 0, OT_UINT, F(checkpoint_every), "K", NULL, 0, U64MAX, true,
	 "write a checkpoint every K steps (default 0 = only when stopped)"},
	{OPT_CHECKPOINT_INTERVAL, "checkpoint-interval", 0, OT_DOUBLE, F(checkpoint_interval), "SECONDS", NULL, 0, 1e9, true,
	 "write a checkpoint every SECONDS of wall time (default 900; 0 = off)"},
	{OPT_MAX_TIME, "max-time", 0, OT_STRING, F(max_time), "DURATION", NULL, 0, 0, true,
	 "stop cleanly with a checkpoint after DURATION (" OPTION_DURATIONS ")"},
	{OPT_INPUT, "input", 0, OT_STRING, F(input), "FILE", NULL, 0, 0, true,
	 "read the universe from FILE (same as the INPUT operand)"},
	{OPT_HELP, "help", 'h', OT_FLAG, F(help), NULL, NULL, 0, 0, false,
	 "show this help and exit"},
	{OPT_VERSION, "version", 'V', OT_FLAG, F(version), NULL, NULL, 0, 0, false,
	 "show version, built-in engines and visible GPUs, and exit"},
};

void options_init(options *o)
{
	memset(o, 0, sizeof *o);
	o->rule = "B6/S567";
	o->engine = "auto";
	o->simd = "auto";
	o->density = 0.25;
	o->random_shape = "fill";
	o->seed = 1;
	o->plane = "xy";
	o->plane_index = -1;
	o->log_every = 1;
	o->snapshot_prefix = "snapshot-";
	o->snapshot_kind = "projection";
	o->slice_axis = "z";
	o->slice_index = -1;
	o->device = -1;
	o->snapshot_size = 512;
	o->snapshot_view = "30,25";
	o->snapshot_scaling = "linear";
	o->checkpoint_interval = OPTION_CHECKPOINT_INTERVAL;
}

const opt_desc *option_by_name(const char *name)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (strcmp(option_table[i].name, name) == 0)
			return &option_table[i];
	return NULL;
}

const char *option_key(const opt_desc *d, char *buf, size_t size)
{
	size_t i = 0;
	for (; d->name[i] && i + 1 < size; i++)
		buf[i] = d->name[i] == '-' ? '_' : d->name[i];
	buf[i] = '\0';
	return buf;
}

const opt_desc *option_by_key(const char *key)
{
	char buf[64];
	for (int i = 0; i < OPT_COUNT; i++)
		if (option_table[i].config_key &&
		    strcmp(option_key(&option_table[i], buf, sizeof buf), key) == 0)
			return &option_table[i];
	return NULL;
}

static void *field(options *o, const opt_desc *d)
{
	return (char *)o + d->offset;
}

const char *option_choices(const opt_desc *d, char *buf, size_t size)
{
	return d->id == OPT_FORMAT ? format_choices(buf, size) : d->choices;
}

/* The word of the '|'-separated choices that `word` names, in any case
 * (--format RLE3 is rle3, as a .RLE3 extension is), as a string that
 * lives as long as the program; NULL if none.  Every choice word must be
 * in `words` (check_config tries each in upper case); the formats' are
 * the format table's. */
static const char *choice_of(const opt_desc *d, const char *word)
{
	static const char *const words[] = {
		"auto", "cpu", "cuda", "avx512", "avx2", "portable", "projection",
		"slice", "render", "x", "y", "z", "fill", "box", "sphere", "xy", "xz", "yz",
		"linear", "log",
	};
	if (d->id == OPT_FORMAT)
		return format_word(word);
	size_t n = strlen(word);
	for (const char *p = d->choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && strncasecmp(p, word, n) == 0) {
			for (size_t i = 0; i < sizeof words / sizeof *words; i++)
				if (strcasecmp(words[i], word) == 0)
					return words[i];
			return word;
		}
		if (!bar)
			break;
		p = bar + 1;
	}
	return NULL;
}

static int out_of_range(const opt_desc *d, const char *where, const char *text,
			l3d_err *err)
{
	if (d->max >= U64MAX && d->type == OT_UINT && d->choices)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: '%s' is neither a whole number >= %.0f nor %s", where,
				text, d->min, d->choices);
	if (d->max >= U64MAX)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: '%s' is not a whole number >= %.0f", where,
				text, d->min);
	if (d->type == OT_DOUBLE)
		return l3d_fail(err, L3D_ERR_USAGE, "%s: '%s' is not a number from %g to %g",
				where, text, d->min, d->max);
	return l3d_fail(err, L3D_ERR_USAGE, "%s: '%s' is not a whole number from %.0f to %.0f",
			where, text, d->min, d->max);
}

int option_too_large(const opt_desc *d, const char *where, const char *text,
		     l3d_err *err)
{
	if (d->max >= U64MAX)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: '%s' is too large (at most 18446744073709551615)",
				where, text);
	return out_of_range(d, where, text, err);
}

int option_size(const char *text, uint64_t n[3], const char *where, l3d_err *err)
{
	char *end;
	const char *p = text;
	int k = 0;
	for (; k < 3; k++) {
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		n[k] = strtoull(p, &end, 10);
		if (errno)
			break;
		p = end;
		if (*p != 'x' && *p != 'X')
			break;
		p++;
	}
	if (*p || (k != 0 && k != 2))
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: '%s' is not a size (N or XxYxZ)", where, text);
	if (k == 0)
		n[1] = n[2] = n[0];
	return grid_check_size(n[0], n[1], n[2], where, err) ? L3D_ERR_USAGE : L3D_OK;
}

/* "A,B,C" into v; the end, or NULL when it is not that. */
static const char *three(const char *p, uint64_t v[3])
{
	for (int k = 0; k < 3; k++) {
		char *end;
		if (*p < '0' || *p > '9')
			return NULL;
		errno = 0;
		v[k] = strtoull(p, &end, 10);
		if (errno || (k < 2 && *end != ','))
			return NULL;
		p = end + (k < 2);
	}
	return p;
}

int option_box(const char *text, uint64_t lo[3], uint64_t hi[3], const char *where,
	       l3d_err *err)
{
	const char *p = three(text, lo);
	p = p && *p == ':' ? three(p + 1, hi) : NULL;
	if (!p || *p)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: '%s' is not X0,Y0,Z0:X1,Y1,Z1 (two corners, e.g. "
				"0,0,0:63,63,63)", where, text);
	for (int a = 0; a < 3; a++)
		if (lo[a] > hi[a])
			return l3d_fail(err, L3D_ERR_USAGE,
					"%s: '%s': the first corner's %c is past the second's",
					where, text, "xyz"[a]);
	return L3D_OK;
}

/* Digits with at most one '.' among them (no sign, blank, exponent or
 * hex, which strtod would take), as a number; -1 when there are none. */
static double plain_number(const char *p, char **end)
{
	const char *q = p;
	bool dot = false, digit = false;
	for (; isdigit((unsigned char)*q) || (*q == '.' && !dot); q++) {
		dot |= *q == '.';
		digit |= *q != '.';
	}
	*end = (char *)(digit ? q : p);
	/* strtod may read on past q (an exponent, hex): the caller then finds
	 * no unit at *end and refuses the text, so the value is not used. */
	return digit ? strtod(p, NULL) : -1;
}

/* plain_number with an optional '-' in front. */
static double signed_number(const char *p, char **end)
{
	const bool minus = *p == '-';
	double v = plain_number(p + minus, end);
	if (*end == p + minus) {
		*end = (char *)p;
		return 0;
	}
	return minus ? -v : v;
}

int option_view(const char *text, double *azimuth, double *elevation,
		const char *where, l3d_err *err)
{
	char *mid, *end = NULL;
	double az = signed_number(text, &mid), el = 0;
	bool ok = mid != text && *mid == ',';
	if (ok) {
		el = signed_number(mid + 1, &end);
		ok = end != mid + 1 && !*end && fabs(az) <= 360 && fabs(el) <= 90;
	}
	if (!ok)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: '%s' is not AZ,EL (degrees: azimuth -360 to 360, "
				"elevation -90 to 90; e.g. 30,25)", where, text);
	*azimuth = az + 0.0;            /* -0 is 0 */
	*elevation = el + 0.0;
	return L3D_OK;
}

double option_duration(const char *text)
{
	char *end;
	double v = plain_number(text, &end);
	if (end == text || v < 0 || !isfinite(v))
		return -1;
	if (*end == ':') {              /* H:MM:SS or M:SS */
		double parts[3] = {v, 0, 0};
		int n = 1;
		while (*end == ':' && n < 3) {
			const char *p = end + 1;
			parts[n++] = plain_number(p, &end);
			if (end == p || parts[n - 1] < 0 || parts[n - 1] >= 60)
				return -1;
		}
		if (*end)
			return -1;
		return n == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2]
			      : parts[0] * 60 + parts[1];
	}
	double unit = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60
		    : !strcmp(end, "h") ? 3600 : !strcmp(end, "d") ? 86400 : -1;
	return unit < 0 ? -1 : v * unit;
}

/* What a string option's value must be, checked when it is given. */
static int check_text(options *o, const opt_desc *d, const char *text,
		      const char *where, l3d_err *err)
{
	uint64_t n[3], box_hi[3];
	double az, el;
	rule r;
	l3d_err rerr;
	switch (d->id) {
	case OPT_RANDOM:
		return option_size(text, n, where, err);
	case OPT_SNAPSHOT_VIEW:
		return option_view(text, &az, &el, where, err);
	case OPT_BOX:
		return option_box(text, n, box_hi, where, err);
	case OPT_RANDOM_RULE:      /* checked even when no random universe uses it */
		if (rule_parse(text, &r, &rerr))
			return l3d_fail(err, L3D_ERR_USAGE, "%s: %s", where, rerr.msg);
		return L3D_OK;
	case OPT_MAX_TIME:
		if (option_duration(text) <= 0)
			return l3d_fail(err, L3D_ERR_USAGE,
					"%s: '%s' is not a duration (" OPTION_DURATIONS ")",
					where, text);
		return L3D_OK;
	case OPT_COMMENT:
		for (const char *c = text; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				return l3d_fail(err, L3D_ERR_USAGE, "%s: a control character "
						"(byte 0x%02x) in the text: a comment is one line",
						where, (unsigned)(unsigned char)*c);
		if (strlen(text) > OPTION_COMMENT_MAX)
			return l3d_fail(err, L3D_ERR_USAGE, "%s: %zu bytes: a comment is "
					"at most %d", where, strlen(text), OPTION_COMMENT_MAX);
		return L3D_OK;
	case OPT_CONFIG:
		if (o->nconfigs == OPT_MAX_CONFIGS)
			return l3d_fail(err, L3D_ERR_USAGE, "%s: more than %d files",
					where, OPT_MAX_CONFIGS);
		o->configs[o->nconfigs++] = text;
		return L3D_OK;
	default:
		return L3D_OK;
	}
}

int option_set_text(options *o, const opt_desc *d, const char *text,
		    opt_origin origin, const char *where, l3d_err *err)
{
	char *end;
	switch (d->type) {
	case OT_FLAG:
		return option_set_flag(o, d, true, origin);
	case OT_STRING: {
		if (!*text && d->id != OPT_RULE)
			return l3d_fail(err, L3D_ERR_USAGE, "%s: empty value", where);
		int rc = check_text(o, d, text, where, err);
		if (rc)
			return rc;
		*(const char **)field(o, d) = text;
		break;
	}
	case OT_CHOICE: {
		const char *word = choice_of(d, text);
		char list[128];
		if (!word)
			return l3d_fail(err, L3D_ERR_USAGE,
					"%s: '%s' is not one of %s", where, text,
					option_choices(d, list, sizeof list));
		*(const char **)field(o, d) = word;
		break;
	}
	case OT_UINT: {
		if (d->choices && strcasecmp(text, d->choices) == 0) {
			*(uint64_t *)field(o, d) = 0;
			break;
		}
		if (*text == '-' || *text == '+' || *text == '\0' || *text == ' ')
			return out_of_range(d, where, text, err);
		errno = 0;
		unsigned long long v = strtoull(text, &end, 10);
		if (errno == ERANGE && !*end)
			return option_too_large(d, where, text, err);
		if (errno || *end || (double)v < d->min || (double)v > d->max)
			return out_of_range(d, where, text, err);
		*(uint64_t *)field(o, d) = v;
		break;
	}
	case OT_INT: {
		errno = 0;
		long long v = strtoll(text, &end, 10);
		if (errno || *end || !*text || (double)v < d->min ||
		    (double)v > d->max)
			return out_of_range(d, where, text, err);
		*(int64_t *)field(o, d) = v;
		break;
	}
	case OT_DOUBLE: {
		errno = 0;
		double v = strtod(text, &end);
		if (errno || *end || !*text || !isfinite(v) || v < d->min ||
		    v > d->max)
			return out_of_range(d, where, text, err);
		*(double *)field(o, d) = v;
		break;
	}
	}
	o->origin[d->id] = origin;
	return L3D_OK;
}

int option_set_uint(options *o, const opt_desc *d, long long v,
		    opt_origin origin, const char *where, l3d_err *err)
{
	char text[32];
	snprintf(text, sizeof text, "%lld", v);
	if (d->type == OT_DOUBLE)
		return option_set_double(o, d, (double)v, origin, where, err);
	if (d->type == OT_UINT) {
		if (v < 0 || (double)v < d->min || (double)v > d->max)
			return out_of_range(d, where, text, err);
		*(uint64_t *)field(o, d) = (uint64_t)v;
	} else if (d->type == OT_INT) {
		if ((double)v < d->min || (double)v > d->max)
			return out_of_range(d, where, text, err);
		*(int64_t *)field(o, d) = v;
	} else {
		return l3d_fail(err, L3D_ERR_USAGE, "%s: wrong type (expected %s)",
				where, d->type == OT_FLAG ? "true or false" : "a string");
	}
	o->origin[d->id] = origin;
	return L3D_OK;
}

int option_set_double(options *o, const opt_desc *d, double v,
		      opt_origin origin, const char *where, l3d_err *err)
{
	char text[64];
	snprintf(text, sizeof text, "%g", v);
	if (d->type != OT_DOUBLE)
		return l3d_fail(err, L3D_ERR_USAGE, "%s: wrong type (expected %s)",
				where,
				d->type == OT_UINT || d->type == OT_INT ? "an integer"
				: d->type == OT_FLAG ? "true or false" : "a string");
	if (!isfinite(v) || v < d->min || v > d->max)
		return out_of_range(d, where, text, err);
	*(double *)field(o, d) = v;
	o->origin[d->id] = origin;
	return L3D_OK;
}

int option_set_flag(options *o, const opt_desc *d, bool v, opt_origin origin)
{
	*(bool *)field(o, d) = v;
	o->origin[d->id] = origin;
	return L3D_OK;
}
