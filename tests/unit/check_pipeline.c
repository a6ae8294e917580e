/* check_pipeline.c - the chunked, threaded I/O.
 *
 * The pipeline (order of the stages, slots, which failure wins), the row
 * progress, the binary payloads read and written a chunk at a time (every
 * awkward size, byte for byte against a reference encoding, errors in the
 * middle of a stream, pipes fed in odd pieces), and engines that take a
 * universe while it is read and give it back a run of rows at a time.
 * Helper threads never call ck_assert (Check's failures are not thread
 * safe): they note what went wrong, and the test asserts afterwards. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check_run.h"
#include "engine/choose.h"
#include "format/export.h"
#include "format/format.h"
#include "format/hpcgame.h"
#include "format/native.h"
#include "format/rle3.h"
#include "base/pipeline.h"
#include "base/progress.h"
#include "l3d_fixture.h"

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
	nanosleep(&ts, NULL);
}

/* What a helper thread found wrong: the first complaint is kept. */
typedef struct complaint {
	pthread_mutex_t lock;
	char why[200];
} complaint;

static void complain(complaint *c, const char *why, uint64_t chunk)
{
	pthread_mutex_lock(&c->lock);
	if (!c->why[0])
		snprintf(c->why, sizeof c->why, "%s (chunk %llu)", why,
			 (unsigned long long)chunk);
	pthread_mutex_unlock(&c->lock);
}

/* ---- the pipeline ---- */

#define NONE UINT64_MAX

/* A stream that checks what each stage sees and fails where told. */
typedef struct trace {
	uint64_t chunks;
	int slots;
	uint64_t fail_produce, fail_work, fail_work2, fail_consume;
	uint64_t slow_work, slowish_work;     /* work of 50 ms, of 10 ms */
	uint64_t produced, consumed;          /* kept by the in-order stages */
	int64_t slot_chunk[PIPELINE_MAX_SLOTS];
	uint64_t value[PIPELINE_MAX_SLOTS];
	atomic_int producing, consuming;
	atomic_uint_fast64_t worked;
	complaint c;
} trace;

static int t_produce(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	trace *t = ctx;
	if (atomic_fetch_add(&t->producing, 1) != 0)
		complain(&t->c, "two producers at once", k);
	if (k != t->produced)
		complain(&t->c, "produced out of order", k);
	if (slot != (int)(k % (uint64_t)t->slots))
		complain(&t->c, "chunk in the wrong slot", k);
	if (t->slot_chunk[slot] != -1)
		complain(&t->c, "slot reused before its chunk was consumed", k);
	t->slot_chunk[slot] = (int64_t)k;
	t->value[slot] = 3 * k;
	t->produced++;
	atomic_fetch_sub(&t->producing, 1);
	if (k == t->fail_produce)
		return l3d_fail(err, L3D_ERR_IO, "produce %llu", (unsigned long long)k);
	return L3D_OK;
}

static int t_work(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	trace *t = ctx;
	if (t->slot_chunk[slot] != (int64_t)k || t->value[slot] != 3 * k)
		complain(&t->c, "work saw another chunk's slot", k);
	if (k == t->slow_work)
		nap_ms(50);
	if (k == t->slowish_work)
		nap_ms(10);
	t->value[slot] = 3 * k + 1;
	atomic_fetch_add(&t->worked, 1);
	if (k == t->fail_work || k == t->fail_work2)
		return l3d_fail(err, L3D_ERR_DATA, "work %llu", (unsigned long long)k);
	return L3D_OK;
}

static int t_consume(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	trace *t = ctx;
	if (atomic_fetch_add(&t->consuming, 1) != 0)
		complain(&t->c, "two consumers at once", k);
	if (k != t->consumed)
		complain(&t->c, "consumed out of order", k);
	if (t->slot_chunk[slot] != (int64_t)k || t->value[slot] != 3 * k + 1)
		complain(&t->c, "consumed before its work was done", k);
	t->slot_chunk[slot] = -1;
	t->consumed++;
	atomic_fetch_sub(&t->consuming, 1);
	if (k == t->fail_consume)
		return l3d_fail(err, L3D_ERR_RUNTIME, "consume %llu", (unsigned long long)k);
	return L3D_OK;
}

static int run_trace(trace *t, uint64_t chunks, int slots, int threads, l3d_err *err)
{
	t->chunks = chunks;
	t->slots = slots;
	t->produced = t->consumed = 0;
	atomic_store(&t->worked, 0);
	for (int i = 0; i < PIPELINE_MAX_SLOTS; i++)
		t->slot_chunk[i] = -1;
	pthread_mutex_init(&t->c.lock, NULL);
	t->c.why[0] = '\0';
	pipeline p = {t_produce, t_work, t_consume, t, chunks, slots, threads};
	int rc = pipeline_run(&p, err);
	pthread_mutex_destroy(&t->c.lock);
	ck_assert_msg(!t->c.why[0], "%d threads, %d slots: %s", threads, slots, t->c.why);
	return rc;
}

static trace no_failure(void)
{
	trace t = {.fail_produce = NONE, .fail_work = NONE, .fail_work2 = NONE,
		   .fail_consume = NONE, .slow_work = NONE, .slowish_work = NONE};
	return t;
}

START_TEST(test_pipeline_order)
{
	static const int threads[] = {1, 2, 3, 8};
	static const int slots[] = {1, 2, 3, 5, PIPELINE_MAX_SLOTS};
	static const uint64_t chunks[] = {0, 1, 2, 7, 300};
	for (size_t i = 0; i < sizeof threads / sizeof *threads; i++)
		for (size_t j = 0; j < sizeof slots / sizeof *slots; j++)
			for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
				trace t = no_failure();
				l3d_err err = {0, ""};
				ck_assert_int_eq(run_trace(&t, chunks[k], slots[j],
							   threads[i], &err), L3D_OK);
				ck_assert_uint_eq(t.produced, chunks[k]);
				ck_assert_uint_eq(atomic_load(&t.worked), chunks[k]);
				ck_assert_uint_eq(t.consumed, chunks[k]);
			}
}
END_TEST

/* Failures: the first chunk in stream order decides, and nothing after
 * it is consumed. */
START_TEST(test_pipeline_failures)
{
	for (int threads = 1; threads <= 4; threads++) {
		trace t = no_failure();
		l3d_err err = {0, ""};
		t.fail_produce = 40;
		ck_assert_int_eq(run_trace(&t, 100, 4, threads, &err), L3D_ERR_IO);
		ck_assert_str_eq(err.msg, "produce 40");
		ck_assert_uint_eq(t.consumed, 40);

		t = no_failure();
		t.fail_work = 40;
		ck_assert_int_eq(run_trace(&t, 100, 4, threads, &err), L3D_ERR_DATA);
		ck_assert_str_eq(err.msg, "work 40");
		ck_assert_uint_eq(t.consumed, 40);

		t = no_failure();
		t.fail_consume = 40;
		ck_assert_int_eq(run_trace(&t, 100, 4, threads, &err), L3D_ERR_RUNTIME);
		ck_assert_str_eq(err.msg, "consume 40");
		ck_assert_uint_eq(t.consumed, 41);

		t = no_failure();
		t.fail_produce = 40;
		t.fail_work = 60;
		ck_assert_int_eq(run_trace(&t, 100, 8, threads, &err), L3D_ERR_IO);
		ck_assert_str_eq(err.msg, "produce 40");

		t = no_failure();
		t.fail_produce = 0;
		ck_assert_int_eq(run_trace(&t, 100, 8, threads, &err), L3D_ERR_IO);
		ck_assert_uint_eq(t.consumed, 0);
		ck_assert_uint_eq(atomic_load(&t.worked), 0);

		/* Chunk 30 fails late, after chunk 31 has failed: 30 wins. */
		t = no_failure();
		t.fail_work = 30;
		t.slow_work = 30;
		t.fail_work2 = 31;
		ck_assert_int_eq(run_trace(&t, 100, 8, threads, &err), L3D_ERR_DATA);
		ck_assert_str_eq(err.msg, "work 30");
		ck_assert_uint_eq(t.consumed, 30);

		/* Chunk 31, begun before chunk 30 failed, fails after it: 30
		 * still. */
		t = no_failure();
		t.fail_work = 30;
		t.slowish_work = 30;
		t.slow_work = 31;
		t.fail_work2 = 31;
		ck_assert_int_eq(run_trace(&t, 100, 8, threads, &err), L3D_ERR_DATA);
		ck_assert_str_eq(err.msg, "work 30");
		ck_assert_uint_eq(t.consumed, 30);
	}
}
END_TEST

static int count_produce(void *ctx, uint64_t k, int slot, l3d_err *err)
{
	atomic_fetch_add((atomic_uint_fast64_t *)ctx, k + 1);
	return L3D_OK;
}

START_TEST(test_pipeline_optional_stages)
{
	atomic_uint_fast64_t sum = 0;
	pipeline p = {count_produce, NULL, NULL, &sum, 1000, 3, 3};
	ck_assert_int_eq(pipeline_run(&p, NULL), L3D_OK);
	ck_assert_uint_eq(atomic_load(&sum), 1000 * 1001 / 2);
	ck_assert_int_ge(pipeline_threads(1000), 2);
	ck_assert_int_eq(pipeline_threads(1), 1);
	ck_assert_int_eq(pipeline_slots(4, 1000, 1 << 20), 8);
	ck_assert_int_eq(pipeline_slots(4, 3, 1 << 20), 3);
	ck_assert_int_eq(pipeline_slots(4, 1000, (uint64_t)40 << 20), 2);
}
END_TEST

/* ---- the row progress ---- */

typedef struct taken {
	uint64_t next, calls, batch, total;
	bool bad;
} taken;

static int take(void *ctx, uint64_t first, uint64_t n, l3d_err *err)
{
	taken *t = ctx;
	/* In order, without gaps, in runs of at least a batch but the last. */
	if (first != t->next || n == 0 || (n < t->batch && first + n != t->total))
		t->bad = true;
	t->next = first + n;
	t->calls++;
	return L3D_OK;
}

typedef struct publisher {
	row_progress *p;
	uint64_t upto, step;
	bool fail;
} publisher;

static void *publish(void *arg)
{
	publisher *pub = arg;
	for (uint64_t n = 0; n < pub->upto;) {
		n = n + pub->step < pub->upto ? n + pub->step : pub->upto;
		row_progress_publish(pub->p, n);
		if (n % 21 == 0)
			nap_ms(1);
	}
	if (pub->fail)
		row_progress_fail(pub->p);
	return NULL;
}

START_TEST(test_progress_follow)
{
	l3d_err err = {0, ""};
	taken t = {0, 0, 1, 500, false};
	ck_assert_int_eq(row_progress_follow(NULL, 500, 10, take, &t, "x", &err), L3D_OK);
	ck_assert(t.next == 500 && t.calls == 1 && !t.bad);

	row_progress p;
	row_progress_init(&p, 500);
	publisher pub = {&p, 500, 7, false};
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, publish, &pub), 0);
	t = (taken){0, 0, 10, 500, false};
	ck_assert_int_eq(row_progress_follow(&p, 500, 10, take, &t, "x", &err), L3D_OK);
	pthread_join(th, NULL);
	ck_assert(t.next == 500 && !t.bad);
	ck_assert(p.done_at > 0);
	uint64_t ready;
	ck_assert_int_eq(row_progress_wait(&p, 600, &ready), 0);
	ck_assert_uint_eq(ready, 500);
	row_progress_destroy(&p);

	/* A filler that fails: the rows before it are taken, then an error. */
	row_progress_init(&p, 500);
	pub = (publisher){&p, 250, 7, true};
	ck_assert_int_eq(pthread_create(&th, NULL, publish, &pub), 0);
	t = (taken){0, 0, 10, 500, false};
	ck_assert_int_eq(row_progress_follow(&p, 500, 10, take, &t, "engine 'x'", &err),
			 L3D_ERR_RUNTIME);
	pthread_join(th, NULL);
	ck_assert(strstr(err.msg, "engine 'x': the universe's rows stopped coming"));
	ck_assert(!t.bad && t.next <= 250 && t.next >= 240);
	ck_assert_int_eq(row_progress_wait(&p, 250, &ready), 0);
	ck_assert_int_eq(row_progress_wait(&p, 251, &ready), -1);
	row_progress_destroy(&p);
}
END_TEST

/* ---- payloads: helpers ---- */

static void random_grid(grid *g, uint64_t x, uint64_t y, uint64_t z, uint64_t seed)
{
	ck_assert_int_eq(grid_alloc(g, x, y, z, NULL), L3D_OK);
	grid_random(g, 0.4, seed);
	g->generation = seed * 7919;
}

static unsigned char *written(fmt_id f, const grid *g, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	l3d_err err = {0, ""};
	ck_assert_int_eq(format_write(out, "out", f, g, &rule_default, NULL, &err), L3D_OK);
	fclose(out);
	return (unsigned char *)buf;
}

/* The files as the formats define them, cell by cell. */
static unsigned char *reference(fmt_id f, const grid *g, size_t *len)
{
	uint64_t cells = grid_cells(g), i = 0;
	size_t head = f == FMT_HPCGAME ? 16 : NATIVE_HEADER_BYTES;
	size_t body = f == FMT_HPCGAME ? (size_t)cells : (size_t)(cells + 7) / 8;
	unsigned char *b = calloc(1, head + body);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			for (uint64_t z = 0; z < g->nz; z++, i++) {
				unsigned v = (unsigned)grid_get(g, x, y, z);
				if (f == FMT_HPCGAME)
					b[head + i] = (unsigned char)v;
				else
					b[head + i / 8] |= (unsigned char)(v << (i % 8));
			}
	if (f == FMT_HPCGAME) {
		le_put64(b, g->nx);
		le_put64(b + 8, g->generation);
	} else {
		native_header nh = {g->nx, g->ny, g->nz, g->generation, rule_default,
				    (uint32_t)crc32(0, b + head, (uInt)body), 0, 0};
		native_build_header(b, &nh);
	}
	*len = head + body;
	return b;
}

static int read_from(FILE *f, const char *name, grid *g, l3d_err *err)
{
	reader r;
	universe_meta meta;
	reader_init(&r, f, name);
	int rc = format_read(&r, g, &meta, NULL, err);
	fclose(f);
	return rc;
}

static int read_mem(const unsigned char *b, size_t len, grid *g, l3d_err *err)
{
	return read_from(fmemopen((void *)b, len, "r"), "mem.in", g, err);
}

/* ---- payloads: every size, byte for byte ---- */

static const uint64_t shapes[][3] = {
	{1, 1, 1}, {1, 1, 9}, {1, 9, 1}, {3, 5, 7}, {2, 64, 64}, {7, 1, 129},
	{65, 2, 130}, {17, 33, 1000},
	/* several chunks: rows that end inside a byte, inside a word */
	{5, 700, 2999}, {3, 1025, 4096}, {1, 2, (1 << 21) + 5},
};

static void check_shape(fmt_id f, const uint64_t s[3], uint64_t seed)
{
	grid g, back;
	size_t len, ref_len;
	l3d_err err = {0, ""};
	random_grid(&g, s[0], s[1], s[2], seed);
	unsigned char *b = written(f, &g, &len);
	unsigned char *ref = reference(f, &g, &ref_len);
	ck_assert_msg(len == ref_len && memcmp(b, ref, len) == 0,
		      "%s %llux%llux%llu: not the reference bytes", format_name(f),
		      (unsigned long long)s[0], (unsigned long long)s[1],
		      (unsigned long long)s[2]);
	ck_assert_msg(read_mem(b, len, &back, &err) == L3D_OK, "%s", err.msg);
	ck_assert(grid_equal(&g, &back));
	ck_assert_uint_eq(back.generation, g.generation);
	grid_free(&back);
	free(b);
	free(ref);
	grid_free(&g);
}

START_TEST(test_native_every_shape)
{
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		check_shape(FMT_NATIVE, shapes[i], i + 1);
}
END_TEST

START_TEST(test_hpcgame_every_edge)
{
	static const uint64_t edges[] = {1, 2, 7, 8, 63, 64, 65, 129, 130, 203};
	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
		uint64_t s[3] = {edges[i], edges[i], edges[i]};
		check_shape(FMT_HPCGAME, s, i + 1);
	}
}
END_TEST

/* VTK and NumPy share the byte-per-cell payload: their cells end the file
 * (VTK: but for a newline, and with each row reversed: z runs down). */
START_TEST(test_exports_several_chunks)
{
	grid g;
	random_grid(&g, 5, 700, 2999, 3);
	size_t len, ref_len;
	unsigned char *ref = reference(FMT_HPCGAME, &g, &ref_len);
	size_t cells = ref_len - 16;
	unsigned char *b = written(FMT_NPY, &g, &len);
	ck_assert(len > cells && memcmp(b + len - cells, ref + 16, cells) == 0);
	free(b);
	b = written(FMT_VTK, &g, &len);
	for (unsigned char *row = ref + 16; row < ref + 16 + cells; row += g.nz)
		for (uint64_t a = 0, z = g.nz - 1; a < z; a++, z--) {
			unsigned char t = row[a];
			row[a] = row[z];
			row[z] = t;
		}
	ck_assert(len > cells + 1 && memcmp(b + len - cells - 1, ref + 16, cells) == 0);
	free(b);
	free(ref);
	grid_free(&g);
}
END_TEST

/* ---- payloads: errors in the middle ---- */

static void expect_read_error(const unsigned char *b, size_t len, int code,
			      const char *what)
{
	grid g;
	l3d_err err = {0, ""};
	int rc = read_mem(b, len, &g, &err);
	ck_assert_msg(rc == code, "expected %d for '%s', got %d: %s", code, what, rc,
		      err.msg);
	ck_assert_msg(strstr(err.msg, what), "'%s' not in: %s", what, err.msg);
	ck_assert_ptr_null(g.bits);
}

/* m = 130: chunks of 8065 rows, 1048450 bytes; three of them. */
START_TEST(test_hpcgame_errors_mid_stream)
{
	const uint64_t m = 130, cb = (1 << 20) / m * m, total = m * m * m;
	grid g;
	random_grid(&g, m, m, m, 5);
	size_t len;
	unsigned char *good = written(FMT_HPCGAME, &g, &len);
	unsigned char *b = malloc(len + 1);
	char what[128];
#define RESET() memcpy(b, good, len)
	RESET();
	b[16 + cb + 12345] = 7;
	snprintf(what, sizeof what, "byte 0x07 at offset %llu",
		 (unsigned long long)(16 + cb + 12345));
	expect_read_error(b, len, L3D_ERR_DATA, what);
	/* and a later chunk cut short does not hide it */
	expect_read_error(b, 16 + 2 * cb + 10, L3D_ERR_DATA, what);
	/* the first bad byte of the first bad chunk */
	b[16 + 2 * cb + 5] = 9;
	b[16 + cb + 99999] = 8;
	expect_read_error(b, len, L3D_ERR_DATA, what);
	RESET();
	b[16 + cb - 1] = 2;             /* the last byte of chunk 0 */
	b[16 + 2 * cb] = 3;
	snprintf(what, sizeof what, "byte 0x02 at offset %llu",
		 (unsigned long long)(16 + cb - 1));
	expect_read_error(b, len, L3D_ERR_DATA, what);
	/* a chunk cut short is truncated, whatever its bytes */
	RESET();
	b[16 + 2 * cb + 5] = 9;
	snprintf(what, sizeof what, "expected %llu bytes of cells, got %llu",
		 (unsigned long long)total, (unsigned long long)(2 * cb + 100));
	expect_read_error(b, 16 + 2 * cb + 100, L3D_ERR_DATA, what);
	RESET();
	snprintf(what, sizeof what, "expected %llu bytes of cells, got %llu",
		 (unsigned long long)total, (unsigned long long)cb);
	expect_read_error(b, 16 + cb, L3D_ERR_DATA, what);
	b[len] = 0;
	snprintf(what, sizeof what,
		 "trailing garbage after the HPCGame cells (at offset %llu)",
		 (unsigned long long)len);
	expect_read_error(b, len + 1, L3D_ERR_DATA, what);
#undef RESET
	free(b);
	free(good);
	grid_free(&g);
}
END_TEST

/* 5x700x2999: 1312063 payload bytes in two chunks, rows not byte aligned. */
START_TEST(test_native_errors_mid_stream)
{
	grid g;
	random_grid(&g, 5, 700, 2999, 6);
	size_t len;
	unsigned char *good = written(FMT_NATIVE, &g, &len);
	unsigned char *b = malloc(len + 1);
	char what[128];
	uint64_t payload = len - 64;
	ck_assert_uint_eq(payload, (5 * 700 * 2999 + 7) / 8);
#define RESET() memcpy(b, good, len)
	snprintf(what, sizeof what, "truncated payload: expected %llu bytes, got %llu",
		 (unsigned long long)payload, (unsigned long long)(payload - 1000));
	expect_read_error(good, len - 1000, L3D_ERR_DATA, what);
	RESET();
	b[64 + payload - 200] ^= 0x10;
	expect_read_error(b, len, L3D_ERR_DATA, "bad payload CRC");
	RESET();
	/* 10496500 cells: the last byte holds 4 cells and 4 pad bits */
	b[len - 1] |= 0x40;
	reseal_l3d(b, len);
	expect_read_error(b, len, L3D_ERR_DATA, "nonzero pad bits");
	RESET();
	b[len] = 'x';
	expect_read_error(b, len + 1, L3D_ERR_DATA, "trailing garbage");
#undef RESET
	free(b);
	free(good);
	grid_free(&g);
}
END_TEST

/* A stream that fails with `code` once `at` bytes have passed. */
typedef struct failing {
	unsigned char *data;
	size_t size, at, pos;
	int code;
} failing;

static ssize_t failing_read(void *cookie, char *buf, size_t n)
{
	failing *s = cookie;
	size_t end = s->size < s->at ? s->size : s->at;
	if (s->pos == end && end < s->size) {
		errno = s->code;
		return -1;
	}
	n = n > end - s->pos ? end - s->pos : n;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

static ssize_t failing_write(void *cookie, const char *buf, size_t n)
{
	failing *s = cookie;
	if (s->pos >= s->at) {
		errno = s->code;
		return -1;
	}
	n = n > s->at - s->pos ? s->at - s->pos : n;
	s->pos += n;
	return (ssize_t)n;
}

START_TEST(test_io_errors_mid_stream)
{
	grid g, back;
	random_grid(&g, 130, 130, 130, 7);
	size_t len;
	unsigned char *b = written(FMT_HPCGAME, &g, &len);
	failing s = {b, len, 1500000, 0, EIO};
	FILE *f = fopencookie(&s, "r", (cookie_io_functions_t){.read = failing_read});
	l3d_err err = {0, ""};
	ck_assert_int_eq(read_from(f, "eio.in", &back, &err), L3D_ERR_IO);
	ck_assert_msg(strstr(err.msg, "eio.in: read error: Input/output error"), "%s",
		      err.msg);
	ck_assert_ptr_null(back.bits);
	free(b);
	for (fmt_id fmt = FMT_HPCGAME; fmt <= FMT_NPY; fmt++) {
		if (fmt == FMT_RLE3 || !format_can_write(fmt))
			continue;
		/* in the second of three chunks; the .l3d file has but one */
		s = (failing){NULL, 0, fmt == FMT_NATIVE ? 200000 : 1500000, 0, ENOSPC};
		f = fopencookie(&s, "w", (cookie_io_functions_t){.write = failing_write});
		ck_assert_msg(format_write(f, "full.out", fmt, &g, NULL, NULL, &err) == L3D_ERR_IO,
			      "%s: not an I/O error", format_name(fmt));
		/* (glibc does not keep a cookie's errno: the reason varies) */
		ck_assert_msg(strstr(err.msg, "full.out: write error: "),
			      "%s: %s", format_name(fmt), err.msg);
		fclose(f);
	}
	grid_free(&g);
}
END_TEST

/* ---- pipes fed in odd pieces ---- */

typedef struct feeder {
	int fd;
	const unsigned char *bytes;
	size_t len, piece;
} feeder;

static void *feed(void *arg)
{
	feeder *f = arg;
	for (size_t at = 0, n = 0; at < f->len; at += n) {
		n = f->len - at < f->piece ? f->len - at : f->piece;
		if (write(f->fd, f->bytes + at, n) != (ssize_t)n)
			break;           /* the reader stopped early */
		if (at / f->piece % 64 == 0)
			nap_ms(1);
	}
	close(f->fd);
	return NULL;
}

/* A FILE reading the bytes from a pipe, written on a thread of its own. */
static FILE *piped(const unsigned char *bytes, size_t len, size_t piece,
		   feeder *fd, pthread_t *th)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	*fd = (feeder){p[1], bytes, len, piece};
	ck_assert_int_eq(pthread_create(th, NULL, feed, fd), 0);
	return fdopen(p[0], "rb");
}

START_TEST(test_pipes)
{
	static const uint64_t cases[][3] = {{5, 700, 2999}, {130, 130, 130}, {1, 1, 1}};
	for (size_t i = 0; i < 3; i++) {
		fmt_id f = i == 1 ? FMT_HPCGAME : FMT_NATIVE;
		grid g, back;
		random_grid(&g, cases[i][0], cases[i][1], cases[i][2], 10 + i);
		size_t len;
		unsigned char *b = written(f, &g, &len);
		feeder fd;
		pthread_t th;
		l3d_err err = {0, ""};
		FILE *in = piped(b, len, 4093, &fd, &th);
		ck_assert_msg(read_from(in, "(stdin)", &back, &err) == L3D_OK, "%s", err.msg);
		pthread_join(th, NULL);
		ck_assert(grid_equal(&g, &back));
		grid_free(&back);
		/* cut short on a pipe */
		in = piped(b, len - 3, 65536, &fd, &th);
		ck_assert_int_eq(read_from(in, "(stdin)", &back, &err), L3D_ERR_DATA);
		pthread_join(th, NULL);
		ck_assert_msg(strstr(err.msg, "(stdin): truncated"), "%s", err.msg);
		free(b);
		grid_free(&g);
	}
}
END_TEST

/* The population a stream's finish gives: counted by the reading thread
 * when the reader asks (reader.count), else by the finish; the same
 * either way, for each format that streams and for RLE3, which does not. */
START_TEST(test_stream_counts_cells)
{
	static const fmt_id fmts[] = {FMT_HPCGAME, FMT_NATIVE, FMT_RLE3};
	for (size_t i = 0; i < 6; i++) {
		grid g, back;
		random_grid(&g, 40 + i, 40 + i, 40 + i, 40 + i);
		size_t len;
		unsigned char *b = written(fmts[i % 3], &g, &len);
		FILE *in = fmemopen(b, len, "rb");
		reader r;
		universe_meta meta;
		format_stream *s;
		l3d_err err = {0, ""};
		reader_init(&r, in, "count.in");
		r.count = i < 3;
		ck_assert_int_eq(format_read_start(&r, &back, &meta, NULL, &s, &err), L3D_OK);
		uint64_t population = 0;
		ck_assert_msg(format_read_finish(s, &population, &err) == L3D_OK, "%s", err.msg);
		ck_assert_uint_ne(population, 0);
		ck_assert_uint_eq(population, grid_population(&g));
		ck_assert(grid_equal(&g, &back));
		fclose(in);
		free(b);
		grid_free(&back);
		grid_free(&g);
	}
}
END_TEST

/* ---- the sample's corner, read at offsets ---- */

static uint64_t edge64(uint64_t n)
{
	return n < 64 ? n : 64;
}

/* Read g, written as f after `skip` other bytes of a regular file (or
 * through a pipe), and ask the stream for the cube at its origin as the
 * sample of engine choice does; returns what row_progress_corner said.
 * The stream's own reading must be unchanged. */
static int corner_of(fmt_id f, const grid *g, long skip, bool pipe, grid *cube)
{
	size_t len;
	unsigned char *b = written(f, g, &len);
	feeder fd;
	pthread_t th;
	FILE *file = pipe ? piped(b, len, 65536, &fd, &th) : tmpfile();
	ck_assert_ptr_nonnull(file);
	if (!pipe) {
		for (long i = 0; i < skip; i++)
			fputc('#', file);
		ck_assert_uint_eq(fwrite(b, 1, len, file), len);
		ck_assert_int_eq(fflush(file), 0);
		ck_assert_int_eq(fseek(file, skip, SEEK_SET), 0);
	}
	reader r;
	universe_meta meta;
	format_stream *s;
	grid in;
	l3d_err err = {0, ""};
	reader_init(&r, file, "corner.in");
	ck_assert_int_eq(format_read_start(&r, &in, &meta, NULL, &s, &err), L3D_OK);
	ck_assert_int_eq(grid_alloc(cube, edge64(g->nx), edge64(g->ny), edge64(g->nz), NULL),
			 L3D_OK);
	memset(cube->bits, 0xa5, grid_cells(cube) / cube->nz * 8);
	int rc = row_progress_corner(format_read_progress(s), cube);
	ck_assert_msg(format_read_finish(s, NULL, &err) == L3D_OK, "%s", err.msg);
	if (pipe)
		pthread_join(th, NULL);
	ck_assert(grid_equal(g, &in));
	grid_free(&in);
	fclose(file);
	free(b);
	return rc;
}

static bool is_corner_of(const grid *cube, const grid *g)
{
	uint64_t mask = grid_tail_mask(cube);
	for (uint64_t x = 0; x < cube->nx; x++)
		for (uint64_t y = 0; y < cube->ny; y++)
			if (grid_row(cube, x, y)[0] != (grid_row(g, x, y)[0] & mask))
				return false;
	return true;
}

START_TEST(test_corner_at_offsets)
{
	/* shape, format, bytes before the file; then whether the corner can
	 * be read at offsets (rows of whole bytes, a regular file) */
	static const struct {
		uint64_t n[3];
		fmt_id f;
		long skip;
		bool pipe, at_offsets;
	} cases[] = {
		{{130, 130, 130}, FMT_HPCGAME, 0, false, true},
		{{130, 130, 130}, FMT_HPCGAME, 13, false, true},
		{{37, 37, 37}, FMT_HPCGAME, 0, false, true},
		{{70, 90, 72}, FMT_NATIVE, 0, false, true},
		{{20, 30, 24}, FMT_NATIVE, 7, false, true},
		{{3, 200, 136}, FMT_NATIVE, 0, false, true},
		{{33, 33, 33}, FMT_NATIVE, 0, false, false},
		{{130, 130, 130}, FMT_HPCGAME, 0, true, false},
		{{20, 20, 24}, FMT_RLE3, 0, false, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		grid g, cube;
		random_grid(&g, cases[i].n[0], cases[i].n[1], cases[i].n[2], 40 + i);
		int rc = corner_of(cases[i].f, &g, cases[i].skip, cases[i].pipe, &cube);
		ck_assert_msg(rc == (cases[i].at_offsets ? 0 : -1), "case %zu: %d", i, rc);
		ck_assert_msg(rc || is_corner_of(&cube, &g), "case %zu", i);
		grid_free(&cube);
		grid_free(&g);
	}
}
END_TEST

/* A byte that is not a cell in the corner: no corner, and the stream's
 * own error as before. */
START_TEST(test_corner_with_a_bad_byte)
{
	grid g, in, cube;
	random_grid(&g, 70, 70, 70, 50);
	size_t len;
	unsigned char *b = written(FMT_HPCGAME, &g, &len);
	b[16 + 70 * 70 * 2 + 70 * 3 + 5] = 2;
	FILE *file = tmpfile();
	ck_assert_uint_eq(fwrite(b, 1, len, file), len);
	rewind(file);
	reader r;
	universe_meta meta;
	format_stream *s;
	l3d_err err = {0, ""};
	reader_init(&r, file, "bad.in");
	ck_assert_int_eq(format_read_start(&r, &in, &meta, NULL, &s, &err), L3D_OK);
	ck_assert_int_eq(grid_alloc(&cube, 64, 64, 64, NULL), L3D_OK);
	ck_assert_int_eq(row_progress_corner(format_read_progress(s), &cube), -1);
	ck_assert_int_eq(format_read_finish(s, NULL, &err), L3D_ERR_DATA);
	ck_assert_msg(strstr(err.msg, "is not a cell"), "%s", err.msg);
	grid_free(&cube);
	grid_free(&g);
	fclose(file);
	free(b);
}
END_TEST

/* ---- engines fed while the file is read ---- */

/* A follower that checks every row against the universe as it is announced. */
typedef struct checker {
	const grid *want, *got;
	bool bad;
} checker;

static int check_rows(void *ctx, uint64_t first, uint64_t n, l3d_err *err)
{
	checker *c = ctx;
	size_t row = (size_t)c->want->words * 8;
	if (memcmp(c->want->bits + first * c->want->words,
		   c->got->bits + first * c->got->words, (size_t)n * row) != 0)
		c->bad = true;
	return L3D_OK;
}

typedef struct follower {
	row_progress *p;
	checker c;
	uint64_t rows;
	int rc;
} follower;

static void *follow(void *arg)
{
	follower *f = arg;
	f->rc = row_progress_follow(f->p, f->rows, 1, check_rows, &f->c, "check", NULL);
	return NULL;
}

START_TEST(test_engine_takes_rows_as_read)
{
	grid g, in;
	random_grid(&g, 130, 130, 130, 12);
	size_t len;
	unsigned char *b = written(FMT_HPCGAME, &g, &len);
	feeder fd;
	pthread_t th, fth;
	FILE *f = piped(b, len, 8191, &fd, &th);
	reader r;
	universe_meta meta;
	format_stream *s;
	l3d_err err = {0, ""};
	reader_init(&r, f, "(stdin)");
	ck_assert_int_eq(format_read_start(&r, &in, &meta, NULL, &s, &err), L3D_OK);
	ck_assert_uint_eq(in.generation, g.generation);
	follower fl = {format_read_progress(s), {&g, &in, false}, 130 * 130, -1};
	ck_assert_int_eq(pthread_create(&fth, NULL, follow, &fl), 0);
	engine_opts o = {.kind = "cpu", .threads = 2, .device = -1};
	engine *e = NULL;
	ck_assert_int_eq(engine_create_streamed(&o, &in, format_read_progress(s),
						&rule_default, &e, &err), L3D_OK);
	pthread_join(fth, NULL);
	ck_assert_int_eq(format_read_finish(s, NULL, &err), L3D_OK);
	pthread_join(th, NULL);
	fclose(f);
	ck_assert(fl.rc == L3D_OK && !fl.c.bad);
	grid_free(&in);
	/* and back, a run of rows at a time */
	uint64_t *rows = malloc(1000 * g.words * 8);
	for (uint64_t first = 0; first < 130 * 130; first += 1000) {
		uint64_t n = 130 * 130 - first < 1000 ? 130 * 130 - first : 1000;
		ck_assert_int_eq(engine_read_rows(e, first, n, rows, &err), L3D_OK);
		ck_assert(memcmp(rows, g.bits + first * g.words, n * g.words * 8) == 0);
	}
	free(rows);
	engine_destroy(e);
	free(b);
	grid_free(&g);
}
END_TEST

/* A file that fails half way: the engine gives up, the reader's error is
 * the one to report.  One that fails after the last row (trailing bytes):
 * the engine has it all, and the reader still fails. */
START_TEST(test_engine_and_failing_input)
{
	grid g, in;
	random_grid(&g, 130, 130, 130, 13);
	size_t len;
	unsigned char *b = written(FMT_HPCGAME, &g, &len);
	for (int trailing = 0; trailing < 2; trailing++) {
		unsigned char *copy = malloc(len + 1);
		memcpy(copy, b, len);
		copy[len] = 1;
		FILE *f = fmemopen(copy, trailing ? len + 1 : len / 2, "r");
		reader r;
		universe_meta meta;
		format_stream *s;
		l3d_err err = {0, ""}, eerr = {0, ""};
		reader_init(&r, f, "half.bin");
		ck_assert_int_eq(format_read_start(&r, &in, &meta, NULL, &s, &err), L3D_OK);
		engine_opts o = {.kind = "auto", .threads = 1, .device = -1};
		engine *e = NULL;
		int erc = engine_create_streamed(&o, &in, format_read_progress(s),
						 &rule_default, &e, &eerr);
		ck_assert_int_eq(format_read_finish(s, NULL, &err), L3D_ERR_DATA);
		ck_assert_ptr_null(in.bits);
		ck_assert_msg(strstr(err.msg, trailing ? "half.bin: trailing garbage"
						       : "half.bin: truncated"), "%s", err.msg);
		ck_assert_int_eq(erc, trailing ? L3D_OK : L3D_ERR_RUNTIME);
		ck_assert(trailing ? e != NULL : e == NULL);
		engine_destroy(e);
		fclose(f);
		free(copy);
	}
	free(b);
	grid_free(&g);
}
END_TEST

/* A source that copies rows out of an engine, as a GPU's would, and
 * checks it is called one thread at a time, in order within a pass. */
typedef struct engine_source {
	engine *e;
	uint64_t next;
	int passes;
	atomic_int inside;
	bool bad;
} engine_source;

static int copy_rows(void *ctx, uint64_t first, uint64_t n, uint64_t *buf,
		     const uint64_t **rows, l3d_err *err)
{
	engine_source *s = ctx;
	if (atomic_fetch_add(&s->inside, 1) != 0)
		s->bad = true;
	if (first == 0)
		s->passes++;
	else if (first != s->next)
		s->bad = true;
	s->next = first + n;
	int rc = engine_read_rows(s->e, first, n, buf, err);
	*rows = buf;
	atomic_fetch_sub(&s->inside, 1);
	return rc;
}

START_TEST(test_write_from_engine_rows)
{
	static const uint64_t cases[][3] = {{5, 700, 2999}, {129, 129, 129}, {3, 5, 7}};
	for (size_t i = 0; i < 3; i++) {
		grid g;
		random_grid(&g, cases[i][0], cases[i][1], cases[i][2], 20 + i);
		engine_opts o = {.kind = "cpu", .threads = 1, .device = -1};
		engine *e;
		l3d_err err = {0, ""};
		ck_assert_int_eq(engine_create(&o, &g, &rule_default, &e, &err), L3D_OK);
		for (fmt_id f = FMT_HPCGAME; f <= FMT_NPY; f++) {
			if (f == FMT_RLE3 || !format_can_write(f) || (f == FMT_HPCGAME && i != 1))
				continue;
			engine_source es = {e, 0, 0, 0, false};
			row_source src = {g.nx, g.ny, g.nz, g.generation, copy_rows, &es, NULL, NULL};
			char *buf = NULL;
			size_t len, want_len;
			FILE *out = open_memstream(&buf, &len);
			ck_assert_int_eq(format_write_rows(out, "out", f, &src, &rule_default,
							   &err), L3D_OK);
			fclose(out);
			unsigned char *want = written(f, &g, &want_len);
			ck_assert(len == want_len && memcmp(buf, want, len) == 0);
			ck_assert(!es.bad);
			ck_assert_int_eq(es.passes, f == FMT_NATIVE ? 2 : 1);
			free(want);
			free(buf);
		}
		row_source src;
		row_source_of_grid(&src, &g);
		FILE *out = fopen("/dev/null", "w");
		ck_assert_int_eq(format_write_rows(out, "x.rle3", FMT_RLE3, &src, NULL, &err),
				 L3D_ERR_USAGE);
		fclose(out);
		engine_destroy(e);
		grid_free(&g);
	}
}
END_TEST

START_TEST(test_rle3_stream_is_complete)
{
	static const char text[] = "3D version=1 size=4\nx=1 y=1 z=1 rule=3D5..7/6\no!\n";
	FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
	reader r;
	grid g;
	universe_meta meta;
	format_stream *s;
	fmt_id found;
	l3d_err err = {0, ""};
	uint64_t ready;
	reader_init(&r, f, "x.rle3");
	ck_assert_int_eq(format_read_start(&r, &g, &meta, &found, &s, &err), L3D_OK);
	ck_assert_int_eq(found, FMT_RLE3);
	ck_assert_int_eq(row_progress_wait(format_read_progress(s), 16, &ready), 0);
	ck_assert_uint_eq(ready, 16);
	ck_assert_int_eq(format_read_finish(s, NULL, &err), L3D_OK);
	ck_assert_uint_eq(grid_population(&g), 1);
	grid_free(&g);
	fclose(f);
}
END_TEST

static Suite *pipeline_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *t = tcase_create("pipeline");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_pipeline_order);
	tcase_add_test(t, test_pipeline_failures);
	tcase_add_test(t, test_pipeline_optional_stages);
	tcase_add_test(t, test_progress_follow);
	suite_add_tcase(s, t);
	t = tcase_create("payloads");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_native_every_shape);
	tcase_add_test(t, test_hpcgame_every_edge);
	tcase_add_test(t, test_exports_several_chunks);
	tcase_add_test(t, test_hpcgame_errors_mid_stream);
	tcase_add_test(t, test_native_errors_mid_stream);
	tcase_add_test(t, test_io_errors_mid_stream);
	tcase_add_test(t, test_pipes);
	tcase_add_test(t, test_stream_counts_cells);
	tcase_add_test(t, test_corner_at_offsets);
	tcase_add_test(t, test_corner_with_a_bad_byte);
	suite_add_tcase(s, t);
	t = tcase_create("engines");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_engine_takes_rows_as_read);
	tcase_add_test(t, test_engine_and_failing_input);
	tcase_add_test(t, test_write_from_engine_rows);
	tcase_add_test(t, test_rle3_stream_is_complete);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	/* A pipe whose reader stopped early fails the feeder's write (EPIPE)
	 * instead of killing the test. */
	signal(SIGPIPE, SIG_IGN);
	return run_suite(pipeline_suite(), true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
