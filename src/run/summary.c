/* summary.c - see summary.h. */
#include "summary.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"

/* A string, or null.  Bytes that are not UTF-8 (a file name's) become
 * '?': JSON holds text. */
static json_t *text(const char *s)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	char *copy = strdup(s);
	for (char *c = copy; c && *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	j = copy ? json_string(copy) : NULL;
	free(copy);
	return j;
}

static json_t *number(uint64_t n)
{
	return json_integer((json_int_t)n);
}

static json_t *rate(double work, double seconds)
{
	return seconds > 0 ? json_real(work / seconds) : json_null();
}

static json_t *rule_of(const rule *r)
{
	char bs[128], golly[128];
	if (!r || rule_format(r, bs, sizeof bs) < 0 || rule_format_golly(r, golly, sizeof golly) < 0)
		return json_null();
	return json_pack("{s:s, s:s, s:s}", "rule", bs, "golly", golly,
			 "neighbourhood", rule_hood_name(r->hood));
}

static json_t *source_of(const run_summary *s)
{
	if (!s->random)
		return json_pack("{s:o}", "file", text(s->input && *s->input == '-' && !s->input[1]
							 ? "(stdin)" : s->input));
	return json_pack("{s:I, s:f, s:s}", "seed", (json_int_t)s->seed, "density", s->density,
			 "shape", s->random_shape ? s->random_shape : "fill");
}

static json_t *files_of(const run_summary *s)
{
	json_t *result = s->result ? json_pack("{s:s, s:s}", "path", s->result, "format",
						s->result_format ? s->result_format : "")
				   : json_null();
	return json_pack("{s:o, s:o, s:o, s:I}", "result", result, "log", text(s->log),
			 "checkpoint", text(s->checkpoint), "snapshots",
			 (json_int_t)s->snapshots);
}

static json_t *build(const run_summary *s)
{
	uint64_t steps = s->generation - s->first;
	double work = s->cells * (double)steps;
	json_t *size = s->sized ? json_pack("[I, I, I]", (json_int_t)s->size[0],
					    (json_int_t)s->size[1], (json_int_t)s->size[2])
				: json_null();
	json_t *leap = s->leapt ? json_pack("{s:I, s:I}", "period", (json_int_t)s->leap_period,
					   "from_generation", (json_int_t)s->leap_from)
				: json_null();
	const double *t = s->seconds;
	return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o,"
			 " s:{s:i, s:o}, s:i, s:{s:f, s:f, s:f, s:f, s:f}, s:o, s:o, s:o, s:o}",
			 "life3d", PACKAGE_VERSION, "status", s->status,
			 "reason", text(s->reason), "source", source_of(s), "size", size,
			 "rule", rule_of(s->sized ? s->rule : NULL),
			 "first_generation", (json_int_t)s->first,
			 "generation", (json_int_t)s->generation, "steps", (json_int_t)steps,
			 "population", s->counted ? number(s->population) : json_null(),
			 "engine", text(s->engine),
			 "threads", "count", s->threads, "from", text(s->threads_from),
			 "ranks", s->ranks,
			 "seconds", "input", t[0], "setup", t[1], "steps", t[2], "output", t[3],
			 "total", t[4],
			 "cell_updates_per_second", rate(work, t[4]),
			 "cell_updates_per_second_stepping", rate(work, s->stepping),
			 "leap", leap, "files", files_of(s));
}

int summary_write(const char *path, bool force, const run_summary *s, l3d_err *err)
{
	json_t *j = build(s);
	if (!j)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	outfile f;
	int rc = outfile_open(&f, path, force, false, err);
	if (!rc && (json_dumpf(j, f.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) != 0 ||
		    fputc('\n', f.f) == EOF)) {
		outfile_abort(&f);
		rc = l3d_fail(err, L3D_ERR_IO, "%s: write error", f.name);
	}
	if (!rc)
		rc = outfile_commit(&f, err);
	json_decref(j);
	return rc;
}
