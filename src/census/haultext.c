/* haultext.c - a haul as text, written and read back (haul.h;
 * life3d-census(1), HAUL FORMAT). */
#include "haul.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "code\tkind\tperiod\tpopulation\tdisplacement\tcount\tsamples"

static const char *const kind_words[] = {"still", "oscillator", "ship", "unsettled"};
static const char kind_letters[] = "spqz";

const char *haul_kind_word(int kind)
{
	const char *at = strchr(kind_letters, kind);
	return kind_words[at && kind ? at - kind_letters : 3];
}

/* Most common first; among equals, by code. */
static int by_count(const void *a, const void *b)
{
	const haul_entry *x = *(const haul_entry *const *)a;
	const haul_entry *y = *(const haul_entry *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->code, y->code);
}

static void write_soups(FILE *out, const haul *h, const haul_head *head)
{
	fprintf(out, "# soups\t%" PRIu64, h->soups);
	if (head->files) {
		fputs(" files\n", out);
		return;
	}
	for (size_t i = 0; i < h->ranges; i++)
		fprintf(out, "%s%" PRIu64 "-%" PRIu64, i ? "," : " in ", h->range[i].lo,
			h->range[i].hi - 1);
	fputc('\n', out);
}

static void write_head(FILE *out, const haul *h, const haul_head *head)
{
	fprintf(out, "# life3d census %s\n", head->version);
	fprintf(out, "# rule\t%s\n", head->rule);
	fprintf(out, "# soup\t%s\n", head->soup);
	fprintf(out, "# root\t%s\n", head->root);
	write_soups(out, h, head);
	fprintf(out, "# bounds\t%s\n", head->bounds);
	fputs(HEADER "\n", out);
}

int haul_write(FILE *out, const haul *h, const haul_head *head, l3d_err *err)
{
	const haul_entry **order = malloc((h->n ? h->n : 1) * sizeof *order);
	if (!order)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the haul");
	for (size_t i = 0; i < h->n; i++)
		order[i] = &h->e[i];
	qsort(order, h->n, sizeof *order, by_count);
	write_head(out, h, head);
	for (size_t i = 0; i < h->n; i++) {
		const haul_entry *e = order[i];
		fprintf(out, "%s\t%s\t%d\t%" PRIu64 "\t%d,%d,%d\t%" PRIu64 "\t", e->code,
			haul_kind_word(e->kind), e->period, e->population, e->d[0],
			e->d[1], e->d[2], e->count);
		for (int k = 0; k < e->samples; k++)
			fprintf(out, "%s%s%s%" PRIu64, k ? " " : "",
				head->files ? "#" : head->root, head->files ? "" : "/",
				e->sample[k]);
		fputc('\n', out);
	}
	free(order);
	return L3D_OK;
}

bool haul_same_head(const haul_head *a, const haul_head *b, const char **what)
{
	*what = strcmp(a->version, b->version) ? "version"
		: strcmp(a->rule, b->rule)      ? "rule"
		: strcmp(a->soup, b->soup)      ? "soup"
		: strcmp(a->root, b->root)      ? "root"
		: strcmp(a->bounds, b->bounds)  ? "bounds"
		: a->files != b->files          ? "soups"
						: NULL;
	return *what == NULL;
}

/* ---- reading ---- */

typedef struct text {
	FILE *in;
	const char *name;
	char *line;
	size_t cap;
	uint64_t lineno;
} text;

/* The next line without its '\n'; false at the end (or on a read
 * error: ferror). */
static bool next_line(text *t)
{
	ssize_t n = getline(&t->line, &t->cap, t->in);
	if (n < 0)
		return false;
	t->lineno++;
	if (n > 0 && t->line[n - 1] == '\n')
		t->line[n - 1] = '\0';
	return true;
}

static int bad(text *t, const char *what, l3d_err *err)
{
	if (ferror(t->in))
		return l3d_fail(err, L3D_ERR_IO, "%s: read error: %s", t->name, strerror(errno));
	return l3d_fail(err, L3D_ERR_DATA, "%s:%" PRIu64 ": %s", t->name, t->lineno, what);
}

/* err's message again, with the file and line in front. */
static int again(text *t, l3d_err *err)
{
	return l3d_fail_keeping(err, L3D_ERR_DATA, err->msg, "%s:%" PRIu64 ": %s", t->name,
				t->lineno, err->msg);
}

/* "# KEY\tVALUE" into value[size]. */
static int head_line(text *t, const char *key, char *value, size_t size, l3d_err *err)
{
	char want[24];
	snprintf(want, sizeof want, "# %s\t", key);
	size_t n = strlen(want);
	if (!next_line(t) || strncmp(t->line, want, n) || strlen(t->line + n) >= size) {
		char what[64];
		snprintf(what, sizeof what, "expected the haul's '# %s' line", key);
		return bad(t, what, err);
	}
	strcpy(value, t->line + n);
	return L3D_OK;
}

static bool u64_of(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (s == end)
		return false;
	for (; s < end; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* "N files" or "N in A-B,C-D..." */
static int read_soups(text *t, haul *h, haul_head *head, l3d_err *err)
{
	char v[4096];
	int rc = head_line(t, "soups", v, sizeof v, err);
	if (rc)
		return rc;
	char *sp = strchr(v, ' ');
	uint64_t total = 0, sum = 0;
	if (!sp || !u64_of(v, sp, &total))
		return bad(t, "expected '# soups\tN in FIRST-LAST,...' or 'N files'", err);
	head->files = !strcmp(sp, " files");
	if (head->files) {
		h->soups = total;
		return L3D_OK;
	}
	if (strncmp(sp, " in ", 4))
		return bad(t, "expected '# soups\tN in FIRST-LAST,...'", err);
	for (char *p = sp + 4; rc == L3D_OK && *p;) {
		char *dash = strchr(p, '-'), *end = dash ? dash + strcspn(dash, ",") : NULL;
		uint64_t lo, hi;
		if (!dash || !u64_of(p, dash, &lo) || !u64_of(dash + 1, end, &hi) || hi < lo ||
		    hi == UINT64_MAX)
			return bad(t, "a range of soups is not FIRST-LAST", err);
		rc = haul_add_range(h, lo, hi + 1, err);
		sum += hi + 1 - lo;
		p = *end ? end + 1 : end;
	}
	if (rc)
		return again(t, err);
	if (sum != total)
		return bad(t, "the ranges do not hold the number of soups it gives", err);
	h->soups = total;
	return L3D_OK;
}

static int read_head(text *t, haul *h, haul_head *head, l3d_err *err)
{
	static const char first[] = "# life3d census ";
	if (!next_line(t) || strncmp(t->line, first, sizeof first - 1) ||
	    strlen(t->line) - (sizeof first - 1) >= sizeof head->version)
		return ferror(t->in) ? bad(t, "", err)
				     : l3d_fail(err, L3D_ERR_DATA,
						"%s: not a life3d census haul (it must begin "
						"'# life3d census VERSION')", t->name);
	strcpy(head->version, t->line + sizeof first - 1);
	int rc = head_line(t, "rule", head->rule, sizeof head->rule, err);
	if (rc == L3D_OK)
		rc = head_line(t, "soup", head->soup, sizeof head->soup, err);
	if (rc == L3D_OK)
		rc = head_line(t, "root", head->root, sizeof head->root, err);
	if (rc == L3D_OK)
		rc = read_soups(t, h, head, err);
	if (rc == L3D_OK)
		rc = head_line(t, "bounds", head->bounds, sizeof head->bounds, err);
	if (rc == L3D_OK && (!next_line(t) || strcmp(t->line, HEADER)))
		rc = bad(t, "expected the haul's column names", err);
	return rc;
}

/* Samples "ROOT/I ..." (or "#I ...") into e. */
static bool read_samples(char *s, const haul_head *head, haul_entry *e)
{
	size_t rn = strlen(head->root);
	e->samples = 0;
	for (char *tok = strtok(s, " "); tok; tok = strtok(NULL, " ")) {
		const char *num = head->files ? (tok[0] == '#' ? tok + 1 : NULL)
			: (!strncmp(tok, head->root, rn) && tok[rn] == '/' ? tok + rn + 1 : NULL);
		if (!num || e->samples == HAUL_SAMPLES ||
		    !u64_of(num, num + strlen(num), &e->sample[e->samples]) ||
		    (e->samples && e->sample[e->samples] <= e->sample[e->samples - 1]))
			return false;
		e->samples++;
	}
	return e->samples > 0;
}

static int read_entry(text *t, haul *h, const haul_head *head, l3d_err *err)
{
	char *f[7];
	char *s = t->line;
	for (int i = 0; i < 7; i++) {
		f[i] = s;
		s = i < 6 ? strchr(s, '\t') : NULL;
		if (i < 6 && !s)
			return bad(t, "expected 7 fields, tab-separated", err);
		if (s)
			*s++ = '\0';
	}
	haul_entry e = {.code = f[0]};
	const char *kind = NULL;
	for (int k = 0; k < 4 && !kind; k++)
		kind = strcmp(f[1], kind_words[k]) ? NULL : kind_words[k];
	uint64_t period;
	char tail;
	int d[3];
	bool ok = f[0][0] && kind && u64_of(f[2], f[2] + strlen(f[2]), &period) &&
		  period <= INT32_MAX && u64_of(f[3], f[3] + strlen(f[3]), &e.population) &&
		  sscanf(f[4], "%d,%d,%d%c", &d[0], &d[1], &d[2], &tail) == 3 &&
		  u64_of(f[5], f[5] + strlen(f[5]), &e.count) && e.count > 0 &&
		  read_samples(f[6], head, &e);
	if (!ok)
		return bad(t, "not an object's line (code, kind, period, population, "
			      "displacement, count, samples)", err);
	for (int k = 0; k < 4; k++)
		if (kind == kind_words[k])
			e.kind = kind_letters[k];
	e.period = (int)period;
	memcpy(e.d, d, sizeof d);
	size_t before = h->n;
	int rc = haul_add(h, &e, err);
	if (rc == L3D_OK && h->n == before)
		return bad(t, "an object listed twice", err);
	return rc ? again(t, err) : L3D_OK;
}

int haul_read(FILE *in, const char *name, haul *h, haul_head *head, l3d_err *err)
{
	text t = {.in = in, .name = name};
	memset(head, 0, sizeof *head);
	int rc = read_head(&t, h, head, err);
	while (rc == L3D_OK && next_line(&t))
		rc = read_entry(&t, h, head, err);
	if (rc == L3D_OK && ferror(in))
		rc = bad(&t, "", err);
	free(t.line);
	return rc;
}
