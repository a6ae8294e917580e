/* view.c - see view.h. */
#include "view.h"

#include <stdlib.h>
#include <string.h>

/* Rows taken from the source a run at a time: about 1 MiB of words. */
#define CHUNK_WORDS ((uint64_t)1 << 17)

struct crop_rows {
	row_source in;
	uint64_t lo[3], n[3];
	uint64_t in_words, out_words;
	uint64_t *tmp;             /* room for tmp_rows of the source's rows */
	uint64_t tmp_rows;
};

/* 64 cells of a row from cell `bit` on (fewer at the row's end). */
static uint64_t bits_at(const uint64_t *row, uint64_t words, uint64_t bit)
{
	uint64_t i = bit >> 6, sh = bit & 63;
	uint64_t v = row[i] >> sh;
	if (sh && i + 1 < words)
		v |= row[i + 1] << (64 - sh);
	return v;
}

static void crop_row(const crop_rows *c, const uint64_t *in, uint64_t *out)
{
	for (uint64_t w = 0; w < c->out_words; w++)
		out[w] = bits_at(in, c->in_words, c->lo[2] + 64 * w);
	if (c->n[2] % 64)
		out[c->out_words - 1] &= ((uint64_t)1 << (c->n[2] % 64)) - 1;
}

static int tmp_room(crop_rows *c, uint64_t rows, l3d_err *err)
{
	if (rows <= c->tmp_rows)
		return L3D_OK;
	uint64_t *t = realloc(c->tmp, rows * c->in_words * sizeof *t);
	if (!t)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory cropping the universe");
	c->tmp = t;
	c->tmp_rows = rows;
	return L3D_OK;
}

/* Output rows (ox, oy) of one plane ox are a run of the source's rows. */
static int crop_fetch(void *ctx, uint64_t first, uint64_t n, uint64_t *buf,
		      const uint64_t **rows, l3d_err *err)
{
	crop_rows *c = ctx;
	*rows = buf;
	for (uint64_t i = 0; i < n;) {
		uint64_t r = first + i, ox = r / c->n[1], oy = r % c->n[1];
		uint64_t run = c->n[1] - oy < n - i ? c->n[1] - oy : n - i;
		uint64_t from = (c->lo[0] + ox) * c->in.ny + c->lo[1] + oy;
		const uint64_t *got;
		int rc = tmp_room(c, run, err);
		rc = rc ? rc : c->in.rows(c->in.ctx, from, run, c->tmp, &got, err);
		if (rc)
			return rc;
		for (uint64_t j = 0; j < run; j++)
			crop_row(c, got + j * c->in_words, buf + (i + j) * c->out_words);
		i += run;
	}
	return L3D_OK;
}

int crop_open(row_source *out, crop_rows **ctx, const row_source *in,
	      const uint64_t lo[3], const uint64_t hi[3], l3d_err *err)
{
	crop_rows *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory cropping the universe");
	c->in = *in;
	for (int a = 0; a < 3; a++) {
		c->lo[a] = lo[a];
		c->n[a] = hi[a] - lo[a] + 1;
	}
	c->in_words = (in->nz + 63) / 64;
	c->out_words = (c->n[2] + 63) / 64;
	*out = *in;
	out->nx = c->n[0];
	out->ny = c->n[1];
	out->nz = c->n[2];
	out->rows = crop_fetch;
	out->ctx = c;
	out->whole = NULL;
	for (int a = 0; a < 3; a++)
		out->origin[a] = in->origin[a] + lo[a];
	*ctx = c;
	return L3D_OK;
}

void crop_free(crop_rows *c)
{
	if (c)
		free(c->tmp);
	free(c);
}

/* The live cells of row `row` from cell a to cell b - 1. */
static uint64_t count_range(const uint64_t *row, uint64_t a, uint64_t b)
{
	uint64_t n = 0;
	while (a < b) {
		uint64_t take = b - a < 64 - (a & 63) ? b - a : 64 - (a & 63);
		uint64_t v = row[a >> 6] >> (a & 63);
		if (take < 64)
			v &= ((uint64_t)1 << take) - 1;
		n += (uint64_t)__builtin_popcountll(v);
		a += take;
	}
	return n;
}

int rows_pass(const row_source *src, row_fn fn, void *ctx, l3d_err *err)
{
	uint64_t words = (src->nz + 63) / 64, rows = src->nx * src->ny;
	uint64_t chunk = CHUNK_WORDS / words ? CHUNK_WORDS / words : 1;
	if (chunk > rows)
		chunk = rows;
	uint64_t *buf = malloc(chunk * words * sizeof *buf);
	int rc = buf ? L3D_OK : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory reading the universe");
	for (uint64_t first = 0; !rc && first < rows; first += chunk) {
		uint64_t n = rows - first < chunk ? rows - first : chunk;
		const uint64_t *got;
		rc = src->rows(src->ctx, first, n, buf, &got, err);
		for (uint64_t i = 0; !rc && i < n; i++)
			rc = fn(ctx, (first + i) / src->ny, (first + i) % src->ny,
				got + i * words, err);
	}
	free(buf);
	return rc;
}

typedef struct coarse {
	float *c;
	uint64_t k, nz, dims[3];
} coarse;

static int count_row(void *ctx, uint64_t x, uint64_t y, const uint64_t *row,
		     l3d_err *err)
{
	(void)err;
	coarse *s = ctx;
	float *blocks = s->c + ((x / s->k) * s->dims[1] + y / s->k) * s->dims[2];
	for (uint64_t z = 0, b = 0; z < s->nz; z += s->k, b++)
		blocks[b] += (float)count_range(row, z, z + s->k < s->nz ? z + s->k : s->nz);
	return L3D_OK;
}

uint64_t coarse_bytes(const uint64_t size[3], uint64_t k)
{
	uint64_t n = sizeof(float);
	for (int a = 0; a < 3; a++)
		n *= (size[a] + k - 1) / k;
	return n;
}

int coarse_counts(const row_source *src, uint64_t k, float **counts,
		  uint64_t dims[3], l3d_err *err)
{
	uint64_t size[3] = {src->nx, src->ny, src->nz};
	coarse s = {.k = k, .nz = src->nz};
	for (int a = 0; a < 3; a++)
		dims[a] = s.dims[a] = (size[a] + k - 1) / k;
	s.c = calloc(dims[0] * dims[1] * dims[2], sizeof *s.c);
	int rc = s.c ? rows_pass(src, count_row, &s, err)
		     : l3d_fail(err, L3D_ERR_RUNTIME,
				"out of memory counting the universe's blocks");
	if (rc)
		free(s.c);
	*counts = rc ? NULL : s.c;
	return rc;
}

int rows_to_grid(const row_source *src, grid *g, l3d_err *err)
{
	int rc = grid_alloc(g, src->nx, src->ny, src->nz, err);
	uint64_t rows = src->nx * src->ny, words = g->words;
	uint64_t chunk = CHUNK_WORDS / words ? CHUNK_WORDS / words : 1;
	for (uint64_t first = 0; !rc && first < rows; first += chunk) {
		uint64_t n = rows - first < chunk ? rows - first : chunk;
		uint64_t *to = g->bits + first * words;
		const uint64_t *got;
		rc = src->rows(src->ctx, first, n, to, &got, err);
		if (!rc && got != to)
			memcpy(to, got, n * words * sizeof *to);
	}
	if (rc)
		grid_free(g);
	else
		g->generation = src->generation;
	return rc;
}
