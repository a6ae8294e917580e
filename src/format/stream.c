/* stream.c - the payloads of the binary formats, a chunk of rows at
 * a time through a pipeline, and reading on a thread of its own.
 *
 * Reading: one thread at a time reads chunk k from the file (in order: the
 * input may be a pipe) while other threads decode the chunks before it
 * into the grid; the rows of each chunk are announced in order once it is
 * decoded, so an engine can take them while the rest is still read.
 * Writing: one thread at a time fetches chunk k's rows (a pointer into a
 * host grid, or a download from the GPU) while others encode the chunks
 * before it, and one writes the encoded chunks to the file in order.  The
 * CRC-32 of a payload is computed per chunk, in parallel, and the pieces
 * joined in order with crc32_combine. */
#include "stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/outfile.h"
#include "base/pipeline.h"

/* About 1 MiB of the file per chunk: a read or write call then costs
 * little beyond its bytes, and a chunk is still in the cache when the
 * next stage takes it up.  The HPCGame reader's messages depend on it (a
 * file cut short is reported as truncated unless a whole chunk before the
 * cut holds a bad byte), as they did when it read one chunk after the
 * other. */
#define CHUNK_BYTES ((uint64_t)1 << 20)
/* Written bytes between two calls of outfile_writeback. */
#define WRITEBACK_BYTES ((uint64_t)8 << 20)

/* How a payload is cut into chunks. */
typedef struct layout {
	uint64_t rows, per_chunk, chunks;   /* rows in all, per full chunk */
	uint64_t bytes, chunk_bytes;        /* bytes in all, per full chunk */
	uint64_t row_bytes;                 /* of a row in grid layout */
} layout;

static void layout_of(layout *l, uint64_t nx, uint64_t ny, uint64_t nz,
		      unsigned cell_bits)
{
	uint64_t row_bits = nz * cell_bits;
	/* Rows of a fractional number of bytes come 8 to a chunk's step,
	 * so that every chunk starts on a byte. */
	uint64_t align = row_bits % 8 ? 8 : 1;
	l->rows = nx * ny;
	l->row_bytes = (nz + 63) / 64 * 8;
	/* About CHUNK_BYTES of the file, and of the grid (short rows of a
	 * bitstream take far more room in the grid than in the file). */
	uint64_t per = CHUNK_BYTES * 8 / row_bits, in_grid = CHUNK_BYTES / l->row_bytes;
	per = (per < in_grid ? per : in_grid) / align * align;
	per = per < align ? align : per;
	l->per_chunk = per < l->rows ? per : l->rows;
	l->chunks = (l->rows + l->per_chunk - 1) / l->per_chunk;
	l->chunk_bytes = (l->per_chunk * row_bits + 7) / 8;
	l->bytes = (l->rows * row_bits + 7) / 8;
}

static uint64_t chunk_rows(const layout *l, uint64_t k)
{
	uint64_t first = k * l->per_chunk;
	return l->rows - first < l->per_chunk ? l->rows - first : l->per_chunk;
}

static size_t chunk_len(const layout *l, uint64_t k)
{
	uint64_t left = l->bytes - k * l->chunk_bytes;
	return (size_t)(left < l->chunk_bytes ? left : l->chunk_bytes);
}

static void free_all(void **p, int n)
{
	for (int i = 0; i < n; i++) {
		free(p[i]);
		p[i] = NULL;
	}
}

/* n buffers of `bytes` each, zeroed (decoders may read the slack). */
static bool alloc_all(void **p, int n, size_t bytes)
{
	for (int i = 0; i < n; i++)
		if (!(p[i] = calloc(1, bytes))) {
			free_all(p, i);
			return false;
		}
	return true;
}

/* ---- reading ---- */

typedef struct in_run {
	payload_in *in;
	row_progress *ready;
	layout l;
	void *buf[PIPELINE_MAX_SLOTS];
	uint32_t crc[PIPELINE_MAX_SLOTS];
} in_run;

static int in_produce(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	in_run *s = ctx;
	size_t need = chunk_len(&s->l, k), got;
	int rc = reader_fill(s->in->r, s->buf[slot], need, &got, err);
	if (!rc && got < need)
		rc = s->in->truncated(s->in, k * s->l.chunk_bytes + got, s->l.bytes, err);
	return rc;
}

static int in_work(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	in_run *s = ctx;
	size_t len = chunk_len(&s->l, k);
	int rc = s->in->decode(s->in, k * s->l.per_chunk, chunk_rows(&s->l, k),
			       s->buf[slot], len, k * s->l.chunk_bytes, err);
	if (!rc && s->in->want_crc)
		s->crc[slot] = (uint32_t)crc32(0, s->buf[slot], (uInt)len);
	return rc;
}

static int in_consume(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	in_run *s = ctx;
	if (s->in->want_crc)
		s->in->crc = (uint32_t)crc32_combine(s->in->crc, s->crc[slot],
						     (z_off_t)chunk_len(&s->l, k));
	if (s->ready)
		row_progress_publish(s->ready, k * s->l.per_chunk + chunk_rows(&s->l, k));
	return L3D_OK;
}

int payload_read(payload_in *in, row_progress *ready, l3d_err *err)
{
	in_run s = {.in = in, .ready = ready};
	layout_of(&s.l, in->g->nx, in->g->ny, in->g->nz, in->cell_bits);
	in->crc = 0;
	pipeline p = {in_produce, in_work, in_consume, &s, s.l.chunks, 1, 1};
	p.threads = pipeline_threads(s.l.chunks);
	p.slots = pipeline_slots(p.threads, s.l.chunks, s.l.chunk_bytes + PAYLOAD_SLACK);
	if (!alloc_all(s.buf, p.slots, (size_t)s.l.chunk_bytes + PAYLOAD_SLACK))
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", in->r->name);
	int rc = pipeline_run(&p, err);
	free_all(s.buf, p.slots);
	return rc;
}

/* ---- the corner of a payload, read at offsets ---- */

payload_place payload_place_of(const reader *r, unsigned cell_bits)
{
	payload_place p = {-1, -1, cell_bits};
	if (r->start >= 0 && r->f) {
		p.fd = fileno(r->f);
		p.at = r->start + (int64_t)r->offset;
	}
	return p;
}

/* n bytes at `at`, all of them, or false. */
static bool pread_all(int fd, unsigned char *buf, size_t n, int64_t at)
{
	while (n > 0) {
		ssize_t k = pread(fd, buf, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		buf += k, n -= (size_t)k, at += k;
	}
	return true;
}

/* The first cube->nz cells of a row from its bytes: one word. */
static int corner_row(const payload_place *p, const unsigned char *bytes,
		      uint64_t *row, uint64_t nz, uint64_t mask)
{
	if (p->cell_bits == 8)
		return row_pack(row, nz, bytes) < 0 ? -1 : 0;
	uint64_t w = 0;
	for (uint64_t i = 0; i < (nz + 7) / 8; i++)
		w |= (uint64_t)bytes[i] << (8 * i);
	*row = w & mask;
	return 0;
}

/* row_progress's corner reader for the payload at p of universe g: for
 * each of the cube's planes, one read of the span from its first row to
 * the first cells of its last. */
static int place_corner(const payload_place *p, const grid *g, grid *cube)
{
	uint64_t row_bits = g->nz * p->cell_bits;
	if (p->at < 0 || row_bits % 8 || cube->nz > 64 || cube->ny > g->ny ||
	    cube->nz > g->nz)
		return -1;
	uint64_t row = row_bits / 8, take = (cube->nz * p->cell_bits + 7) / 8;
	size_t span = (size_t)((cube->ny - 1) * row + take);
	unsigned char *buf = malloc(span);
	int rc = buf ? 0 : -1;
	uint64_t mask = grid_tail_mask(cube);
	for (uint64_t x = 0; !rc && x < cube->nx; x++) {
		if (!pread_all(p->fd, buf, span, p->at + (int64_t)(x * g->ny * row)))
			rc = -1;
		for (uint64_t y = 0; !rc && y < cube->ny; y++)
			rc = corner_row(p, buf + y * row, grid_row(cube, x, y), cube->nz,
					mask);
	}
	free(buf);
	return rc;
}

/* ---- reading on a thread of its own ---- */

struct format_stream {
	grid *g;
	row_progress ready;
	payload_place place;
	read_body body;
	void *ctx;
	pthread_t thread;
	bool threaded, count, counted;
	uint64_t population;
	int rc;
	l3d_err err;
};

static int stream_corner(void *ctx, grid *cube)
{
	const format_stream *s = ctx;
	return place_corner(&s->place, s->g, cube);
}

static void *stream_main(void *arg)
{
	format_stream *s = arg;
	s->rc = s->body(s->ctx, &s->ready, &s->err);
	/* Whoever waits for rows must not wait for ever. */
	if (s->rc)
		row_progress_fail(&s->ready);
	/* Once the rows are in, this thread is idle while a GPU engine is
	 * still being set up: 20 ms at 1024^3 off the run's path. */
	if (!s->rc && s->count) {
		s->population = grid_population(s->g);
		s->counted = true;
	}
	return NULL;
}

int format_stream_start(reader *r, grid *g, read_body body, const void *ctx,
			size_t ctx_size, const payload_place *place,
			format_stream **out, l3d_err *err)
{
	format_stream *s = calloc(1, sizeof *s);
	void *copy = ctx_size ? malloc(ctx_size) : NULL;
	*out = NULL;
	if (!s || (ctx_size && !copy)) {
		free(s);
		free(copy);
		grid_free(g);
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", r->name);
	}
	if (copy)
		memcpy(copy, ctx, ctx_size);
	s->g = g;
	s->body = body;
	s->ctx = copy;
	s->count = r->count;
	row_progress_init(&s->ready, g->nx * g->ny);
	if (place && place->at >= 0) {
		s->place = *place;
		s->ready.corner = stream_corner;
		s->ready.corner_ctx = s;
	}
	if (!body)
		row_progress_publish(&s->ready, g->nx * g->ny);
	else if (pthread_create(&s->thread, NULL, stream_main, s) == 0)
		s->threaded = true;
	else
		stream_main(s);
	*out = s;
	return L3D_OK;
}

row_progress *format_read_progress(format_stream *s)
{
	return &s->ready;
}

int format_read_finish(format_stream *s, uint64_t *population, l3d_err *err)
{
	if (s->threaded)
		pthread_join(s->thread, NULL);
	int rc = s->rc;
	if (rc) {
		if (err)
			*err = s->err;
		grid_free(s->g);
	} else if (population) {
		*population = s->counted ? s->population : grid_population(s->g);
	}
	row_progress_destroy(&s->ready);
	free(s->ctx);
	free(s);
	return rc;
}

/* ---- writing ---- */

typedef struct out_run {
	payload_out *o;
	layout l;
	void *rows_buf[PIPELINE_MAX_SLOTS];      /* for sources that copy */
	void *bytes_buf[PIPELINE_MAX_SLOTS];     /* for encoders that copy */
	const uint64_t *rows[PIPELINE_MAX_SLOTS];
	const unsigned char *bytes[PIPELINE_MAX_SLOTS];
	uint32_t crc[PIPELINE_MAX_SLOTS];
	uint64_t unsynced;                       /* bytes since the last writeback */
} out_run;

static int out_produce(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	out_run *s = ctx;
	const row_source *src = s->o->src;
	return src->rows(src->ctx, k * s->l.per_chunk, chunk_rows(&s->l, k),
			 s->rows_buf[slot], &s->rows[slot], err);
}

static int out_work(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	out_run *s = ctx;
	s->bytes[slot] = s->o->encode(s->o, s->rows[slot], chunk_rows(&s->l, k),
				      s->bytes_buf[slot]);
	if (s->o->want_crc)
		s->crc[slot] = (uint32_t)crc32(0, s->bytes[slot],
					       (uInt)chunk_len(&s->l, k));
	return L3D_OK;
}

static int out_consume(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	out_run *s = ctx;
	payload_out *o = s->o;
	size_t len = chunk_len(&s->l, k);
	if (o->want_crc)
		o->crc = (uint32_t)crc32_combine(o->crc, s->crc[slot], (z_off_t)len);
	if (!o->out)
		return L3D_OK;
	/* The disk starts on each few MiB while the next are encoded, rather
	 * than on all of them at the final fsync. */
	if ((s->unsynced += len) >= WRITEBACK_BYTES) {
		outfile_writeback(o->out);
		s->unsynced = 0;
	}
	return format_put(o->out, o->name, s->bytes[slot], len, err);
}

int payload_write(payload_out *o, l3d_err *err)
{
	out_run s = {.o = o};
	const row_source *src = o->src;
	layout_of(&s.l, src->nx, src->ny, src->nz, o->cell_bits);
	o->crc = 0;
	size_t rows_bytes = (size_t)(s.l.per_chunk * s.l.row_bytes);
	size_t bytes = (size_t)s.l.chunk_bytes + PAYLOAD_SLACK;
	pipeline p = {out_produce, out_work, out_consume, &s, s.l.chunks, 1, 1};
	p.threads = pipeline_threads(s.l.chunks);
	p.slots = pipeline_slots(p.threads, s.l.chunks, rows_bytes + bytes);
	int rc = L3D_OK;
	if (!alloc_all(s.rows_buf, p.slots, rows_bytes) ||
	    !alloc_all(s.bytes_buf, p.slots, bytes))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", o->name);
	if (!rc)
		rc = pipeline_run(&p, err);
	free_all(s.rows_buf, p.slots);
	free_all(s.bytes_buf, p.slots);
	return rc;
}

static int grid_rows(void *ctx, uint64_t first, uint64_t n, uint64_t *buf,
		     const uint64_t **rows, l3d_err *err)
{
	const grid *g = ctx;
	*rows = g->bits + first * g->words;
	return L3D_OK;
}

void row_source_of_grid(row_source *s, const grid *g)
{
	*s = (row_source){g->nx, g->ny, g->nz, g->generation, grid_rows, (void *)g, NULL, NULL,
			  .whole = g};
}

void rows_to_cells(const uint64_t *rows, uint64_t n, uint64_t nz,
		   unsigned char *cells)
{
	uint64_t words = (nz + 63) / 64;
	for (uint64_t i = 0; i < n; i++)
		row_unpack(rows + i * words, nz, cells + i * nz);
}

static const unsigned char *encode_bytes(const payload_out *o, const uint64_t *rows,
					 uint64_t n, unsigned char *buf)
{
	rows_to_cells(rows, n, o->src->nz, buf);
	return buf;
}

static const unsigned char *encode_bytes_z_reversed(const payload_out *o,
						    const uint64_t *rows, uint64_t n,
						    unsigned char *buf)
{
	uint64_t nz = o->src->nz;
	encode_bytes(o, rows, n, buf);
	for (unsigned char *row = buf; row < buf + n * nz; row += nz)
		for (uint64_t a = 0, b = nz - 1; a < b; a++, b--) {
			unsigned char t = row[a];
			row[a] = row[b];
			row[b] = t;
		}
	return buf;
}

int format_put_cells_z_reversed(FILE *out, const char *name,
				const row_source *src, l3d_err *err)
{
	payload_out o = {.out = out, .name = name, .src = src, .cell_bits = 8,
			 .encode = encode_bytes_z_reversed};
	return payload_write(&o, err);
}

int format_put_cells(FILE *out, const char *name, const row_source *src,
		     l3d_err *err)
{
	payload_out o = {.out = out, .name = name, .src = src, .cell_bits = 8,
			 .encode = encode_bytes};
	return payload_write(&o, err);
}
