/* npy.c - NumPy's .npy array (npy.h): the magic "\x93NUMPY", a version,
 * a header length (u16 in version 1.0, u32 in 2.0 and 3.0), a header that
 * is a Python dict literal
 *   {'descr': '|u1', 'fortran_order': False, 'shape': (X, Y, Z), }
 * padded with blanks and a newline, then the elements.  A byte a cell in
 * C order is the grid's row order (x slowest, z fastest), so the cells
 * move through buffers of whole rows, as HPCGame's do (stream.c). */
#include "npy.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_PREAMBLE 10          /* magic, version, u16 header length */
#define NPY_ALIGN 64
#define NPY_HEAD_MAX (1u << 20)  /* numpy writes a few hundred bytes */
#define NPY_CELLS "NumPy array"

bool npy_looks(const unsigned char *p, size_t n)
{
	return n >= 6 && memcmp(p, NPY_MAGIC, 6) == 0;
}

/* ---- the header: a dict of descr, fortran_order and shape ---- */

typedef struct npy_head {
	char descr[16];
	int fortran;             /* 1 True, 0 False, -1 not found */
	int dims;                /* -1: no shape found */
	uint64_t shape[3];
	uint64_t bytes;          /* the preamble and header: where the data begin */
} npy_head;

static const char *blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The value after key (quoted with ' or ") and its colon, or NULL. */
static const char *value_of(const char *text, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = text; (p = strpbrk(p, "'\"")) != NULL; p++)
		if (strncmp(p + 1, key, k) == 0 && p[k + 1] == *p) {
			const char *v = blanks(p + k + 2);
			return *v == ':' ? blanks(v + 1) : NULL;
		}
	return NULL;
}

/* A quoted type string of the characters numpy's descr uses. */
static bool descr_of(const char *v, char out[16])
{
	if (!v || (*v != '\'' && *v != '"'))
		return false;
	size_t n = strspn(v + 1, "<>|=?abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
	if (n == 0 || n >= 16 || v[n + 1] != *v)
		return false;
	memcpy(out, v + 1, n);
	out[n] = '\0';
	return true;
}

/* "(X, Y, Z)" with a trailing comma allowed: up to 3 dimensions kept,
 * every one counted; -1 where it is no tuple of whole numbers. */
static int shape_of(const char *v, uint64_t shape[3])
{
	if (!v || *v != '(')
		return -1;
	int dims = 0;
	v = blanks(v + 1);
	while (*v != ')') {
		size_t digits = strspn(v, "0123456789");
		if (!digits || digits > 19)
			return -1;
		unsigned long long x = strtoull(v, NULL, 10);
		if (dims < 3)
			shape[dims] = x;
		dims++;
		v = blanks(v + digits);
		if (*v == ',')
			v = blanks(v + 1);
		else if (*v != ')')
			return -1;
	}
	return dims;
}

static int parse_head(const char *name, const char *text, npy_head *h, l3d_err *err)
{
	const char *f = value_of(text, "fortran_order");
	h->fortran = !f ? -1 : strncmp(f, "True", 4) == 0 ? 1 : strncmp(f, "False", 5) == 0 ? 0 : -1;
	h->dims = shape_of(value_of(text, "shape"), h->shape);
	if (!descr_of(value_of(text, "descr"), h->descr) || h->fortran < 0 || h->dims < 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: the NumPy header is not a dict of descr, fortran_order and shape",
				name);
	const char *bytes[] = {"|u1", "u1", "<u1", ">u1", "=u1", "B", "|b1", "b1", "?",
			       "|i1", "i1", "<i1", ">i1", "=i1", "b", NULL};
	bool byte = false;
	for (const char **b = bytes; *b; b++)
		byte |= strcmp(h->descr, *b) == 0;
	if (!byte)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: a NumPy array of '%s' elements: life3d reads a byte a cell, "
				"0 or 1 (save it as uint8 or bool: a.astype(np.uint8))",
				name, h->descr);
	if (h->fortran)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: a NumPy array in Fortran order: life3d reads C order "
				"(save np.ascontiguousarray(a))", name);
	if (h->dims != 3)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: a NumPy array of %d dimension%s: life3d reads 3, shape (X, Y, Z)",
				name, h->dims, h->dims == 1 ? "" : "s");
	if (!h->shape[0] || !h->shape[1] || !h->shape[2])
		return l3d_fail(err, L3D_ERR_DATA, "%s: a NumPy array of shape (%llu, %llu, %llu) "
				"holds no cell", name, (unsigned long long)h->shape[0],
				(unsigned long long)h->shape[1], (unsigned long long)h->shape[2]);
	return L3D_OK;
}

static int short_cells(const char *name, uint64_t got, uint64_t total, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_DATA,
			"%s: truncated: expected %llu bytes of NumPy elements, got %llu", name,
			(unsigned long long)total, (unsigned long long)got);
}

/* The preamble and header, checked, then the file's length against the
 * shape (a short file is told before the memory for its claim is taken). */
static int read_head(reader *r, npy_head *h, l3d_err *err)
{
	unsigned char pre[NPY_PREAMBLE + 2];
	int rc = reader_header(r, pre, NPY_PREAMBLE, "NumPy", err);
	if (rc)
		return rc;
	unsigned major = pre[6], minor = pre[7];
	if ((major != 1 && major != 2 && major != 3) || minor != 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: NumPy format version %u.%u: life3d "
				"reads 1.0, 2.0 and 3.0", r->name, major, minor);
	uint64_t len = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
	h->bytes = NPY_PREAMBLE;
	if (major > 1) {
		rc = reader_header(r, pre + NPY_PREAMBLE, 2, "NumPy", err);
		if (rc)
			return rc;
		len |= (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
		h->bytes += 2;
	}
	if (len > NPY_HEAD_MAX)
		return l3d_fail(err, L3D_ERR_DATA, "%s: a NumPy header of %llu bytes "
				"(life3d reads up to %u)", r->name, (unsigned long long)len,
				NPY_HEAD_MAX);
	char *text = malloc(len + 1);
	if (!text)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", r->name);
	rc = reader_header(r, text, (size_t)len, "NumPy", err);
	text[rc ? 0 : len] = '\0';
	/* A NUL inside would end the text early: no dict of numpy's has one. */
	if (!rc && strlen(text) != len)
		rc = l3d_fail(err, L3D_ERR_DATA, "%s: a NUL byte in the NumPy header", r->name);
	if (!rc)
		rc = parse_head(r->name, text, h, err);
	free(text);
	h->bytes += len;
	uint64_t have, cells;
	if (!rc)
		rc = grid_check_size(h->shape[0], h->shape[1], h->shape[2], r->name, err);
	cells = rc ? 0 : h->shape[0] * h->shape[1] * h->shape[2];
	if (!rc && reader_short(r, h->bytes + cells, &have))
		rc = short_cells(r->name, have - h->bytes, cells, err);
	return rc;
}

/* ---- the elements ---- */

typedef struct npy_in {
	payload_in in;           /* first: the payload code hands it back */
	uint64_t ny, nz;
} npy_in;

/* The first element of the n that is no cell (0 or 1), by its index in
 * the array and its cell: the payload's `before` bytes come first. */
static int bad_cell(const npy_in *s, const unsigned char *buf, size_t n,
		    uint64_t before, l3d_err *err)
{
	size_t i = 0;
	while (i < n && buf[i] <= 1)
		i++;
	uint64_t at = before + i, row = at / s->nz;
	return l3d_fail(err, L3D_ERR_DATA,
			"%s: element %llu of the NumPy array, cell (%llu, %llu, %llu), is %u, not 0 or 1",
			s->in.r->name, (unsigned long long)at,
			(unsigned long long)(row / s->ny), (unsigned long long)(row % s->ny),
			(unsigned long long)(at % s->nz), i < n ? buf[i] : 0);
}

static int decode(payload_in *in, uint64_t first, uint64_t n,
		  const unsigned char *bytes, size_t len, uint64_t offset,
		  l3d_err *err)
{
	grid *g = in->g;
	uint64_t *rows = g->bits + first * g->words;
	for (uint64_t i = 0; i < n; i++)
		if (row_pack(rows + i * g->words, g->nz, bytes + i * g->nz) < 0)
			return bad_cell((const npy_in *)in, bytes, (size_t)(n * g->nz), offset, err);
	(void)len;
	return L3D_OK;
}

static int truncated(payload_in *in, uint64_t got, uint64_t total, l3d_err *err)
{
	return short_cells(in->r->name, got, total, err);
}

/* The stream's body: the elements, then nothing more. */
static int read_cells(void *ctx, row_progress *ready, l3d_err *err)
{
	payload_in *in = ctx;
	int rc = payload_read(in, ready, err);
	return rc ? rc : reader_expect_end(in->r, NPY_CELLS, err);
}

int npy_read_start(reader *r, grid *g, universe_meta *meta,
		   format_stream **out, l3d_err *err)
{
	npy_head h = {0};
	*out = NULL;
	memset(g, 0, sizeof *g);
	if (meta)
		meta->has_rule = false;
	int rc = read_head(r, &h, err);
	if (!rc)
		rc = reader_alloc(r, g, h.shape[0], h.shape[1], h.shape[2], err);
	if (rc)
		return rc;
	npy_in s = {.in = {.r = r, .g = g, .cell_bits = 8, .decode = decode,
			   .truncated = truncated},
		    .ny = h.shape[1], .nz = h.shape[2]};
	payload_place place = payload_place_of(r, 8);
	return format_stream_start(r, g, read_cells, &s, sizeof s, &place, out, err);
}

int npy_read(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	format_stream *s;
	int rc = npy_read_start(r, g, meta, &s, err);
	return rc ? rc : format_read_finish(s, NULL, err);
}

/* The header of an array of `descr` with this shape, padded as numpy
 * pads it; its length in *len. */
static void put_head(unsigned char head[256], size_t *len, const char *descr,
		     const uint64_t shape[3])
{
	char *dict = (char *)head + NPY_PREAMBLE;
	int n = snprintf(dict, 256 - NPY_PREAMBLE,
			 "{'descr': '%s', 'fortran_order': False, "
			 "'shape': (%llu, %llu, %llu), }", descr,
			 (unsigned long long)shape[0], (unsigned long long)shape[1],
			 (unsigned long long)shape[2]);
	/* Spaces, then the newline numpy requires as the header's last byte. */
	size_t total = ((size_t)n + NPY_PREAMBLE + 1 + NPY_ALIGN - 1) /
		       NPY_ALIGN * NPY_ALIGN;
	memset(dict + n, ' ', total - NPY_PREAMBLE - (size_t)n);
	head[total - 1] = '\n';
	memcpy(head, NPY_MAGIC "\x01\x00", 8);
	head[8] = (unsigned char)((total - NPY_PREAMBLE) & 0xff);
	head[9] = (unsigned char)((total - NPY_PREAMBLE) >> 8);
	*len = total;
}

/* --coarsen: float32 counts, little-endian, in C order. */
static int write_counts(FILE *out, const char *name, const row_source *src,
			l3d_err *err)
{
	float *c;
	uint64_t dims[3];
	unsigned char head[256];
	size_t len;
	int rc = coarse_counts(src, src->coarsen, &c, dims, err);
	if (rc)
		return rc;
	put_head(head, &len, "<f4", dims);
	rc = format_put(out, name, head, len, err);
	uint64_t n = dims[0] * dims[1] * dims[2];
	for (uint64_t i = 0; !rc && i < n; i++) {
		uint32_t u;
		memcpy(&u, &c[i], 4);
		le_put32(head, u);
		rc = format_put(out, name, head, 4, err);
	}
	free(c);
	return rc;
}

int npy_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err)
{
	(void)r;
	unsigned char head[256];
	size_t len;
	uint64_t shape[3] = {src->nx, src->ny, src->nz};
	int rc;
	if (src->coarsen) {
		rc = write_counts(out, name, src, err);
	} else {
		put_head(head, &len, "|u1", shape);
		rc = format_put(out, name, head, len, err);
		rc = rc ? rc : format_put_cells(out, name, src, err);
	}
	return rc ? rc : format_finish(out, name, err);
}
