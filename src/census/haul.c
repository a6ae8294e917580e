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
	free(h->range);
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
	if (found && (e->kind != like->kind || e->period != like->period ||
		      e->population != like->population || memcmp(e->d, like->d, sizeof e->d)))
		return l3d_fail(err, L3D_ERR_DATA,
				"object %.40s: two hauls give it different kinds, periods, "
				"populations or displacements", like->code);
	e->count += like->count;
	for (int k = 0; k < like->samples; k++)
		add_sample(e, like->sample[k]);
	return L3D_OK;
}

int haul_add_range(haul *h, uint64_t lo, uint64_t hi, l3d_err *err)
{
	size_t at = 0;
	while (at < h->ranges && h->range[at].hi <= lo)
		at++;
	if (at < h->ranges && h->range[at].lo < hi)
		return l3d_fail(err, L3D_ERR_DATA,
				"soups %" PRIu64 " to %" PRIu64 " would be counted twice",
				lo > h->range[at].lo ? lo : h->range[at].lo,
				(hi < h->range[at].hi ? hi : h->range[at].hi) - 1);
	if (h->ranges == h->range_cap) {
		size_t cap = h->range_cap ? 2 * h->range_cap : 8;
		haul_range *r = realloc(h->range, cap * sizeof *r);
		if (!r)
			return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the haul");
		h->range = r;
		h->range_cap = cap;
	}
	memmove(h->range + at + 1, h->range + at, (h->ranges - at) * sizeof *h->range);
	h->range[at] = (haul_range){lo, hi};
	h->ranges++;
	/* Neighbours that meet become one. */
	for (size_t i = at > 0 ? at - 1 : 0; i + 1 < h->ranges;) {
		if (h->range[i].hi == h->range[i + 1].lo) {
			h->range[i].hi = h->range[i + 1].hi;
			memmove(h->range + i + 1, h->range + i + 2,
				(h->ranges - i - 2) * sizeof *h->range);
			h->ranges--;
		} else if (i > at) {
			break;
		} else {
			i++;
		}
	}
	return L3D_OK;
}

int haul_merge(haul *into, const haul *from, l3d_err *err)
{
	for (size_t i = 0; i < from->ranges; i++) {
		int rc = haul_add_range(into, from->range[i].lo, from->range[i].hi, err);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < from->n; i++) {
		int rc = haul_add(into, &from->e[i], err);
		if (rc)
			return rc;
	}
	into->soups += from->soups;
	return L3D_OK;
}
