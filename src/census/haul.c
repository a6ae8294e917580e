/* haul.c - the census's tally (haul.h). */
#include "haul.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void haul_init(haul *h)
{
	memset(h, 0, sizeof *h);
}

void haul_free(haul *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->e[i].code);
	free(h->e);
	haul_init(h);
}

/* The index of code, or where it would go (*found false). */
static size_t find(const haul *h, const char *code, bool *found)
{
	size_t lo = 0, hi = h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->e[mid].code, code);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static int insert(haul *h, size_t at, const haul_entry *like, l3d_err *err)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		haul_entry *e = realloc(h->e, cap * sizeof *e);
		if (!e)
			return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the haul");
		h->e = e;
		h->cap = cap;
	}
	haul_entry fresh = *like;
	fresh.code = strdup(like->code);
	if (!fresh.code)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the haul");
	fresh.count = 0;
	fresh.samples = 0;
	memmove(h->e + at + 1, h->e + at, (h->n - at) * sizeof *h->e);
	h->e[at] = fresh;
	h->n++;
	return L3D_OK;
}

/* Soup s among the lowest HAUL_SAMPLES of e, kept in order. */
static void add_sample(haul_entry *e, uint64_t s)
{
	int i = e->samples;
	for (int k = 0; k < e->samples; k++)
		if (e->sample[k] == s)
			return;
	if (i == HAUL_SAMPLES) {
		if (s > e->sample[HAUL_SAMPLES - 1])
			return;
		i--;
	} else {
		e->samples++;
	}
	for (; i > 0 && e->sample[i - 1] > s; i--)
		e->sample[i] = e->sample[i - 1];
	e->sample[i] = s;
}

int haul_add(haul *h, const haul_entry *like, l3d_err *err)
{
	bool found;
	size_t at = find(h, like->code, &found);
	if (!found) {
		int rc = insert(h, at, like, err);
		if (rc)
			return rc;
	}
	haul_entry *e = &h->e[at];
	e->count += like->count;
	for (int k = 0; k < like->samples; k++)
		add_sample(e, like->sample[k]);
	return L3D_OK;
}

int haul_merge(haul *into, const haul *from, l3d_err *err)
{
	for (size_t i = 0; i < from->n; i++) {
		int rc = haul_add(into, &from->e[i], err);
		if (rc)
			return rc;
	}
	into->soups += from->soups;
	return L3D_OK;
}

const char *haul_kind_word(int kind)
{
	switch (kind) {
	case 's': return "still";
	case 'p': return "oscillator";
	case 'q': return "ship";
	default: return "unsettled";
	}
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

static void write_head(FILE *out, const haul *h, const haul_head *head)
{
	fprintf(out, "# life3d census %s\n", head->version);
	fprintf(out, "# rule\t%s\n", head->rule);
	if (head->files)
		fprintf(out, "# soup\tfrom files, each within %" PRIu32 "x%" PRIu32 "x%" PRIu32 "\n",
			head->side, head->side, head->side);
	else
		fprintf(out, "# soup\t%" PRIu32 "x%" PRIu32 "x%" PRIu32 " density %.17g\n",
			head->side, head->side, head->side, head->density);
	if (head->files)
		fputs("# root\t(files: sample #I is the I-th, from 0)\n", out);
	else
		fprintf(out, "# root\t%s\n", head->root);
	fprintf(out, "# soups\t%" PRIu64 " from %" PRIu64 "\n", h->soups, head->first);
	fprintf(out, "# bounds\t%" PRIu64 " generations, space %" PRIu32 "^3\n",
		head->max_gens, head->space);
	fputs("code\tkind\tperiod\tpopulation\tdisplacement\tcount\tsamples\n", out);
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
