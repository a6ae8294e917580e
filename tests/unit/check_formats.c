/* check_formats.c - every universe format: round trips, exact layouts,
 * detection by content, and one test per malformed input. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check_run.h"
#include "format/export.h"
#include "format/fixed.h"
#include "format/format.h"
#include "format/hpcgame.h"
#include "format/native.h"
#include "format/rle3.h"
#include "l3d_fixture.h"

/* ---- helpers ---- */

static FILE *input_of(const void *bytes, size_t n)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	if (n)
		ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
	rewind(f);
	return f;
}

/* Write g in format f and return the bytes (malloc'd). */
static unsigned char *written(fmt_id f, const grid *g, const rule *r, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	ck_assert_ptr_nonnull(out);
	l3d_err err = { 0 };
	int rc = format_write(out, "out.test", f, g, r, NULL, &err);
	ck_assert_msg(rc == L3D_OK, "write %s: %s", format_name(f), err.msg);
	fclose(out);
	return (unsigned char *)buf;
}

/* Read bytes with format_read; returns the code, fills err. */
static int read_bytes(const void *bytes, size_t n, const char *name, grid *g,
		      universe_meta *meta, fmt_id *found, l3d_err *err)
{
	FILE *f = input_of(bytes, n);
	reader r;
	reader_init(&r, f, name);
	int rc = format_read(&r, g, meta, found, err);
	fclose(f);
	return rc;
}

static int read_text(const char *text, grid *g, universe_meta *meta, l3d_err *err)
{
	fmt_id found;
	return read_bytes(text, strlen(text), "pattern.rle3", g, meta, &found, err);
}

/* The read must fail with `code`, and the message must name the input and
 * contain `what`. */
static void expect_failure(const void *bytes, size_t n, int code, const char *what)
{
	grid g;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	int rc = read_bytes(bytes, n, "bad.input", &g, &meta, &found, &err);
	ck_assert_msg(rc == code, "expected code %d for '%s', got %d (%s)", code,
		      what, rc, err.msg);
	ck_assert_int_eq(err.code, code);
	ck_assert_msg(strstr(err.msg, "bad.input"), "message without name: %s", err.msg);
	ck_assert_msg(strstr(err.msg, what), "'%s' not in: %s", what, err.msg);
	ck_assert_ptr_null(g.bits);
}

static void random_grid(grid *g, uint64_t x, uint64_t y, uint64_t z,
			double density, uint64_t seed)
{
	l3d_err err;
	ck_assert_int_eq(grid_alloc(g, x, y, z, &err), L3D_OK);
	grid_random(g, density, seed);
	g->generation = seed * 1000003u;
}

static void round_trip(fmt_id f, uint64_t x, uint64_t y, uint64_t z,
		       double density, uint64_t seed, const rule *r)
{
	grid a, b;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	size_t len;
	random_grid(&a, x, y, z, density, seed);
	unsigned char *bytes = written(f, &a, r, &len);
	int rc = read_bytes(bytes, len, "trip", &b, &meta, &found, &err);
	ck_assert_msg(rc == L3D_OK, "%s %llux%llux%llu: %s", format_name(f),
		      (unsigned long long)x, (unsigned long long)y,
		      (unsigned long long)z, err.msg);
	ck_assert_int_eq(found, f);
	ck_assert_msg(grid_equal(&a, &b), "%s %llux%llux%llu: cells differ",
		      format_name(f), (unsigned long long)x,
		      (unsigned long long)y, (unsigned long long)z);
	ck_assert_uint_eq(b.generation, a.generation);
	if (r) {
		ck_assert(meta.has_rule);
		ck_assert(rule_equal(&meta.rule, r));
	}
	grid_free(&a);
	grid_free(&b);
	free(bytes);
}

static const uint64_t sizes[][3] = {
	{ 1, 1, 1 }, { 3, 5, 7 }, { 65, 2, 130 }, { 2, 64, 64 }, { 7, 1, 129 },
	{ 1, 9, 1 }, { 33, 17, 65 },
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static const rule some_rules[] = {
	{ .birth = 1u << 6, .survive = 7u << 5 },              /* B6/S567 */
	{ .birth = (1u << 5) | (1u << 8), .survive = (1u << 4) | (1u << 7) },
	{ .birth = 1u << 26, .survive = 0 },
	{ .birth = 0x5555555 & RULE_ALL_COUNTS, .survive = 1u << 0 },
};

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static const char *srcdir(void)
{
	const char *s = getenv("SRCDIR");
	return s ? s : ".";
}

/* ---- names ---- */

START_TEST(test_names)
{
	ck_assert_int_eq(format_from_name("hpcgame"), FMT_HPCGAME);
	ck_assert_int_eq(format_from_name("native"), FMT_NATIVE);
	ck_assert_int_eq(format_from_name("l3d"), FMT_NATIVE);
	ck_assert_int_eq(format_from_name("rle3"), FMT_RLE3);
	ck_assert_int_eq(format_from_name("vtk"), FMT_VTK);
	ck_assert_int_eq(format_from_name("npy"), FMT_NPY);
	ck_assert_int_eq(format_from_name("png"), FMT_NONE);
	ck_assert_int_eq(format_from_path("a/b/u.bin"), FMT_HPCGAME);
	ck_assert_int_eq(format_from_path("u.hpc"), FMT_HPCGAME);
	ck_assert_int_eq(format_from_path("u.DAT"), FMT_HPCGAME);
	ck_assert_int_eq(format_from_path("u.l3d"), FMT_NATIVE);
	ck_assert_int_eq(format_from_path("x.y/u.rle3"), FMT_RLE3);
	ck_assert_int_eq(format_from_path("u.vtk"), FMT_VTK);
	ck_assert_int_eq(format_from_path("u.npy"), FMT_NPY);
	ck_assert_int_eq(format_from_path("x.rle3/u"), FMT_NONE);
	ck_assert_int_eq(format_from_path(".bin"), FMT_NONE);
	ck_assert_int_eq(format_from_path("-"), FMT_NONE);
	ck_assert_str_eq(format_name(FMT_NATIVE), "l3d");
	ck_assert_str_eq(format_name(FMT_HPCGAME), "hpcgame");
	ck_assert(format_can_read(FMT_RLE3) && !format_can_read(FMT_VTK));
	ck_assert(!format_can_read(FMT_VTK) && format_can_read(FMT_NPY) && format_can_read(FMT_HPCGAME));
	ck_assert(format_is_binary(FMT_NATIVE) && !format_is_binary(FMT_RLE3));
	/* 2D RLE is read only, and what is read from it is written as RLE3. */
	ck_assert(format_can_read(FMT_RLE) && !format_can_write(FMT_RLE));
	ck_assert(format_output_of(FMT_RLE) == FMT_RLE3 && format_output_of(FMT_NPY) == FMT_NPY);
	for (fmt_id f = FMT_HPCGAME; f <= FMT_NPY; f++)
		ck_assert_int_eq(format_from_name(format_name(f)), f);
}
END_TEST

/* Every list of formats is made from the one table: these are the texts
 * --help, --format and the messages showed when they were written out. */
START_TEST(test_lists)
{
	char buf[256];
	ck_assert_str_eq(format_choices(buf, sizeof buf), "hpcgame|l3d|native|rle3|vtk|npy|vti|vtp");
	ck_assert_str_eq(format_writes(buf, sizeof buf), "hpcgame, l3d, rle3, vtk, npy, vti, vtp");
	ck_assert_str_eq(format_reads(buf, sizeof buf),
			 "HPCGame binary, life3d .l3d, Golly RLE3, Golly 2D RLE, NumPy .npy");
	ck_assert_str_eq(format_extensions(buf, sizeof buf),
			 "hpcgame: .bin .hpc .dat, l3d: .l3d, rle3: .rle3, vtk: .vtk, npy: .npy, vti: .vti, vtp: .vtp");
	ck_assert_str_eq(format_fixed_kinds(buf, sizeof buf), "HPCGame and .l3d");
	ck_assert_str_eq(format_word("NATIVE"), "native");
	ck_assert_str_eq(format_word("Rle3"), "rle3");
	ck_assert_ptr_null(format_word("png"));
	ck_assert_ptr_null(format_word(""));
	ck_assert_str_eq(format_choices(buf, 12), "hpcgame|l3d");
	ck_assert_ptr_null(format_fixed_of(FMT_RLE3));
	ck_assert_ptr_eq(format_fixed_of(FMT_NATIVE), &native_fixed);
}
END_TEST

/* ---- the formats at fixed offsets ---- */

/* The n bits at p moved `lead` bits on, into out (zeroed first). */
static void shifted(const unsigned char *p, uint64_t n, unsigned lead,
		    unsigned char *out, size_t size)
{
	memset(out, 0, size);
	for (uint64_t b = 0; b < n; b++)
		out[(b + lead) / 8] |= (unsigned char)((p[b / 8] >> (b % 8) & 1) << ((b + lead) % 8));
}

/* The rows of g coded at every bit a chunk may begin at are the payload
 * the format's writer makes, moved by that many bits, and decode back to
 * g; the header made from g's fields is the writer's. */
static void check_fixed(fmt_id f, uint64_t nx, uint64_t ny, uint64_t nz)
{
	const format_fixed *fx = format_fixed_of(f);
	grid g, back;
	ck_assert_int_eq(grid_alloc(&g, nx, ny, nz, NULL), L3D_OK);
	ck_assert_int_eq(grid_alloc(&back, nx, ny, nz, NULL), L3D_OK);
	grid_random(&g, 0.5, nz);
	g.generation = 9;
	size_t len;
	unsigned char *file = written(f, &g, &rule_default, &len);
	unsigned char head[FIXED_HEAD_MAX];
	fixed_head h = {.nx = nx, .ny = ny, .nz = nz, .generation = 9,
			.meta = {.rule = rule_default}};
	size_t hb = fx->put_head(head, &h);
	uint64_t cells = nx * ny * nz, bits = cells * fx->cell_bits;
	ck_assert_uint_eq(len, hb + fixed_payload_bytes(fx, cells));
	if (fx->crc)
		h.crc = (uint32_t)crc32(0, file + hb, (uInt)(len - hb));
	fx->put_head(head, &h);
	ck_assert_mem_eq(head, file, hb);
	unsigned char *buf = malloc(len + 1 + PAYLOAD_SLACK), *want = malloc(len + 1);
	for (unsigned lead = 0; lead < 8; lead += fx->cell_bits) {
		fx->encode(g.bits, nx * ny, nz, lead, buf);
		shifted(file + hb, bits, lead, want, len + 1);
		ck_assert_mem_eq(buf, want, (lead + bits + 7) / 8);
		l3d_err err = {0};
		ck_assert_int_eq(fx->decode(buf, lead, nx * ny, nz, back.bits, "t", 0, &err),
				 L3D_OK);
		ck_assert(grid_equal(&g, &back));
	}
	free(buf);
	free(want);
	free(file);
	grid_free(&g);
	grid_free(&back);
}

START_TEST(test_fixed_codecs)
{
	static const uint64_t sides[] = {1, 3, 5, 8, 13, 63, 64, 65, 70, 129};
	for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
		uint64_t n = sides[i];
		check_fixed(FMT_NATIVE, 3, 2, n);
		check_fixed(FMT_NATIVE, 1, 1, n);
		if (n <= 65)
			check_fixed(FMT_HPCGAME, n, n, n);
	}
}
END_TEST

/* ---- the reader ---- */

START_TEST(test_reader_peek_then_read)
{
	unsigned char data[200];
	for (int i = 0; i < 200; i++)
		data[i] = (unsigned char)(i * 7);
	FILE *f = input_of(data, sizeof data);
	reader r;
	reader_init(&r, f, "peek");
	const unsigned char *p;
	ck_assert_uint_eq(reader_peek(&r, &p), 64);
	ck_assert_mem_eq(p, data, 64);
	unsigned char out[200];
	ck_assert_uint_eq(reader_read(&r, out, 10), 10);
	ck_assert_uint_eq(reader_peek(&r, &p), 64);      /* refilled after consuming */
	ck_assert_mem_eq(p, data + 10, 64);
	ck_assert_uint_eq(reader_read(&r, out + 10, 190), 190);
	ck_assert_mem_eq(out, data, 200);
	ck_assert_uint_eq(r.offset, 200);
	ck_assert(reader_at_eof(&r));
	ck_assert_uint_eq(reader_read(&r, out, 5), 0);
	fclose(f);
}
END_TEST

START_TEST(test_reader_at_eof_keeps_byte)
{
	FILE *f = input_of("ab", 2);
	reader r;
	reader_init(&r, f, "eof");
	char c[2];
	ck_assert_uint_eq(reader_read(&r, c, 1), 1);
	ck_assert(!reader_at_eof(&r));
	ck_assert_uint_eq(reader_read(&r, c + 1, 1), 1);
	ck_assert_mem_eq(c, "ab", 2);
	ck_assert(reader_at_eof(&r));
	fclose(f);
}
END_TEST

START_TEST(test_read_error_is_io)
{
	/* A stream open only for writing fails every read with EBADF. */
	FILE *f = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(f);
	reader r;
	reader_init(&r, f, "unreadable");
	grid g;
	universe_meta meta;
	l3d_err err = { 0 };
	ck_assert_int_eq(format_read(&r, &g, &meta, NULL, &err), L3D_ERR_IO);
	ck_assert(strstr(err.msg, "unreadable: read error"));
	fclose(f);
}
END_TEST

/* ---- HPCGame ---- */

START_TEST(test_hpcgame_round_trip)
{
	static const uint64_t edges[] = { 1, 2, 3, 5, 17, 64, 65, 130 };
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		uint64_t m = edges[i];
		round_trip(FMT_HPCGAME, m, m, m, 0.3, 11 + i, NULL);
		grid g;
		size_t len;
		random_grid(&g, m, m, m, 0.5, i);
		free(written(FMT_HPCGAME, &g, NULL, &len));
		ck_assert_uint_eq(len, 16 + m * m * m);
		grid_free(&g);
	}
}
END_TEST

/* A 3^3 universe built by hand, byte by byte. */
static void hand_built(unsigned char *b, uint64_t gen)
{
	memset(b, 0, 16 + 27);
	put_le64(b, 3);
	put_le64(b + 8, gen);
	b[16 + 0 * 9 + 0 * 3 + 1] = 1;            /* (0,0,1) */
	b[16 + 1 * 9 + 2 * 3 + 0] = 1;            /* (1,2,0) */
	b[16 + 2 * 9 + 1 * 3 + 2] = 1;            /* (2,1,2) */
	b[16 + 2 * 9 + 2 * 3 + 2] = 1;            /* (2,2,2) */
}

START_TEST(test_hpcgame_layout)
{
	unsigned char bytes[16 + 27];
	hand_built(bytes, 0x0102030405060708ull);
	grid g;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	ck_assert_int_eq(read_bytes(bytes, sizeof bytes, "hand.bin", &g, &meta,
				    &found, &err), L3D_OK);
	ck_assert_int_eq(found, FMT_HPCGAME);
	ck_assert(!meta.has_rule);
	ck_assert_uint_eq(g.nx, 3);
	ck_assert_uint_eq(g.generation, 0x0102030405060708ull);
	ck_assert_uint_eq(grid_population(&g), 4);
	ck_assert(grid_get(&g, 0, 0, 1) && grid_get(&g, 1, 2, 0));
	ck_assert(grid_get(&g, 2, 1, 2) && grid_get(&g, 2, 2, 2));

	/* And the writer produces exactly the same bytes. */
	grid w;
	ck_assert_int_eq(grid_alloc(&w, 3, 3, 3, &err), L3D_OK);
	grid_set(&w, 0, 0, 1, 1);
	grid_set(&w, 1, 2, 0, 1);
	grid_set(&w, 2, 1, 2, 1);
	grid_set(&w, 2, 2, 2, 1);
	w.generation = 0x0102030405060708ull;
	size_t len;
	unsigned char *out = written(FMT_HPCGAME, &w, NULL, &len);
	ck_assert_uint_eq(len, sizeof bytes);
	ck_assert_mem_eq(out, bytes, sizeof bytes);
	free(out);
	grid_free(&w);
	grid_free(&g);
}
END_TEST

START_TEST(test_hpcgame_needs_cube)
{
	grid g;
	l3d_err err = { 0 };
	random_grid(&g, 3, 3, 4, 0.5, 1);
	FILE *out = fopen("/dev/null", "w");
	ck_assert_int_eq(format_write(out, "cube.bin", FMT_HPCGAME, &g, NULL, NULL, &err),
			 L3D_ERR_USAGE);
	ck_assert(strstr(err.msg, "cube.bin") && strstr(err.msg, "needs a cube"));
	fclose(out);
	grid_free(&g);
}
END_TEST

START_TEST(test_hpcgame_errors)
{
	unsigned char b[16 + 27 + 1];
	hand_built(b, 0);
	/* Detection needs 8 bytes; hpcgame_read itself names the short header. */
	expect_failure(b, 10, L3D_ERR_DATA, "truncated HPCGame header (10 of 16");
	expect_failure(b, 0, L3D_ERR_DATA, "empty file");
	expect_failure(b, 16 + 20, L3D_ERR_DATA, "expected 27 bytes of cells, got 20");
	expect_failure(b, 16, L3D_ERR_DATA, "expected 27 bytes of cells, got 0");
	b[16 + 27] = 0;
	expect_failure(b, sizeof b, L3D_ERR_DATA, "trailing garbage");
	b[16 + 5] = 2;
	expect_failure(b, 16 + 27, L3D_ERR_DATA, "byte 0x02 at offset 21");
	b[16 + 5] = 0;
	put_le64(b, 0);
	expect_failure(b, 16 + 27, L3D_ERR_DATA, "M is 0");
	put_le64(b, GRID_MAX_EDGE + 1);
	expect_failure(b, 16 + 27, L3D_ERR_DATA, "exceeds the largest edge");
	put_le64(b, 2642246);                    /* M^3 just over 2^64 */
	expect_failure(b, 16 + 27, L3D_ERR_DATA, "has too many cells");

	FILE *f = input_of(b, 5);
	reader r;
	reader_init(&r, f, "short.bin");
	grid g;
	l3d_err err = { 0 };
	ck_assert_int_eq(hpcgame_read(&r, &g, NULL, &err), L3D_ERR_DATA);
	ck_assert(strstr(err.msg, "short.bin: truncated HPCGame header (5 of 16"));
	fclose(f);
}
END_TEST

/* ---- native .l3d ---- */

START_TEST(test_native_round_trip)
{
	for (size_t i = 0; i < NSIZES; i++)
		for (size_t k = 0; k < 4; k++)
			round_trip(FMT_NATIVE, sizes[i][0], sizes[i][1], sizes[i][2],
				   0.1 + 0.25 * (double)k, 100 * i + k, &some_rules[k]);
	/* Over 1 MiB of payload: several buffer refills, rows not byte aligned. */
	round_trip(FMT_NATIVE, 210, 211, 213, 0.5, 77, &rule_default);
}
END_TEST

START_TEST(test_native_layout)
{
	grid g;
	random_grid(&g, 3, 5, 7, 0.5, 9);
	g.generation = 0x1122334455667788ull;
	size_t len;
	unsigned char *b = written(FMT_NATIVE, &g, &some_rules[1], &len);
	ck_assert_uint_eq(len, 64 + 14);                 /* ceil(105 / 8) */
	ck_assert_mem_eq(b, "\x89L3D\r\n\x1a\n", 8);
	ck_assert_uint_eq(get_le32(b + 8), 1);
	ck_assert_uint_eq(get_le32(b + 12), 64);
	ck_assert_uint_eq(get_le64(b + 16), 3);
	ck_assert_uint_eq(get_le64(b + 24), 5);
	ck_assert_uint_eq(get_le64(b + 32), 7);
	ck_assert_uint_eq(get_le64(b + 40), 0x1122334455667788ull);
	ck_assert_uint_eq(get_le32(b + 48), some_rules[1].birth);
	ck_assert_uint_eq(get_le32(b + 52), some_rules[1].survive);
	ck_assert_uint_eq(get_le32(b + 56), crc32(0, b + 64, 14));
	ck_assert_uint_eq(get_le32(b + 60), crc32(0, b, 60));
	/* The bitstream, cell by cell. */
	unsigned char expect[14] = { 0 };
	uint64_t i = 0;
	for (uint64_t x = 0; x < 3; x++)
		for (uint64_t y = 0; y < 5; y++)
			for (uint64_t z = 0; z < 7; z++, i++)
				if (grid_get(&g, x, y, z))
					expect[i / 8] |= (unsigned char)(1u << (i % 8));
	ck_assert_mem_eq(b + 64, expect, 14);
	free(b);
	grid_free(&g);
}
END_TEST

/* A checkpoint's run stamp: 32 bytes after the 64, read back as written;
 * a damaged stamp is refused. */
START_TEST(test_native_stamp)
{
	grid g, back;
	random_grid(&g, 5, 3, 70, 0.5, 4);
	run_stamp st = {0x0123456789abcdefull, 4242, 0xdeadbeef}, got_st;
	row_source src;
	row_source_of_grid(&src, &g);
	src.stamp = &st;
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	l3d_err err = { 0 };
	ck_assert_int_eq(format_write_rows(out, "ck.test", FMT_NATIVE, &src, &rule_default, &err), L3D_OK);
	fclose(out);
	unsigned char *b = (unsigned char *)buf;
	ck_assert_uint_eq(len, 96 + (5 * 3 * 70 + 7) / 8);
	ck_assert_uint_eq(get_le32(b + 12), 96);
	ck_assert_uint_eq(get_le64(b + 64), st.run_id);
	ck_assert_uint_eq(get_le32(b + 92), crc32(0, b + 64, 28));
	universe_meta meta;
	fmt_id found;
	ck_assert_int_eq(read_bytes(b, len, "ck.test", &back, &meta, &found, &err), L3D_OK);
	ck_assert(grid_equal(&g, &back));
	got_st = meta.stamp;
	ck_assert_uint_eq(got_st.run_id, st.run_id);
	ck_assert_uint_eq(got_st.log_bytes, st.log_bytes);
	ck_assert_uint_eq(got_st.log_crc, st.log_crc);
	grid_free(&back);
	/* A checkpoint cut after its 64 bytes is short of its stamp, not empty. */
	ck_assert_int_eq(read_bytes(b, 64, "ck.test", &back, &meta, &found, &err), L3D_ERR_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated .l3d run stamp header (0 of 32"));
	b[70] ^= 1;
	ck_assert_int_eq(read_bytes(b, len, "ck.test", &back, &meta, &found, &err), L3D_ERR_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad run stamp CRC"));
	/* The stamp's zero bytes not zero, under a CRC that matches them:
	 * damaged all the same. */
	b[70] ^= 1;
	b[87] = 0x40;
	put_le32(b + 92, (uint32_t)crc32(0, b + 64, 28));
	ck_assert_int_eq(read_bytes(b, len, "ck.test", &back, &meta, &found, &err), L3D_ERR_DATA);
	ck_assert_ptr_nonnull(strstr(err.msg, "ck.test: bad run stamp (bytes 84 to 91 are not zero)"));
	free(buf);
	grid_free(&g);
}
END_TEST

/* Comment lines: kept by RLE3 where Golly keeps them (read wherever they
 * stand, written after the first line), and by .l3d in a version 2 block
 * before the stamp; a file without them is version 1, byte for byte. */
static const char golly_comments[] = "#N Name\n#O Someone, 25 December 2018\n#C inside\n";

static unsigned char *written_with(fmt_id f, const grid *g, const char *comments,
				   const run_stamp *st, size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	l3d_err err = { 0 };
	row_source src;
	row_source_of_grid(&src, g);
	src.stamp = st;
	src.comments = comments;
	int rc = f == FMT_RLE3 ? format_write(out, "c.test", f, g, NULL, comments, &err)
			       : format_write_rows(out, "c.test", f, &src, NULL, &err);
	ck_assert_msg(rc == L3D_OK, "%s", err.msg);
	fclose(out);
	return (unsigned char *)buf;
}

START_TEST(test_comments_kept)
{
	grid g, back;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	static const char text[] =
		"3D version=1 size=4\n#N Name\n#O Someone, 25 December 2018\n"
		"x=1 y=1 z=1 rule=3D5..7/6\n#C inside\no!\n";
	ck_assert_int_eq(read_text(text, &g, &meta, &err), L3D_OK);
	ck_assert_str_eq(meta.comments, golly_comments);
	size_t len;
	unsigned char *b = written_with(FMT_RLE3, &g, meta.comments, NULL, &len);
	ck_assert_str_eq((char *)b, "3D version=1 size=4\n#N Name\n#O Someone, 25 December 2018\n"
			 "#C inside\nx=1 y=1 z=1 rule=3D5..7/6\no!\n");
	free(b);
	/* .l3d, with and without a stamp */
	run_stamp st = {77, 0, 0}, none = {0, 0, 0};
	for (int stamped = 0; stamped < 2; stamped++) {
		b = written_with(FMT_NATIVE, &g, golly_comments, stamped ? &st : &none, &len);
		size_t n = strlen(golly_comments), block = 8 + (n + 7) / 8 * 8;
		ck_assert_uint_eq(get_le32(b + 8), 2);
		ck_assert_uint_eq(get_le32(b + 12), 64 + block + (stamped ? 32 : 0));
		ck_assert_uint_eq(get_le32(b + 64), n);
		ck_assert_uint_eq(get_le32(b + 68), crc32(0, (const unsigned char *)golly_comments, (uInt)n));
		ck_assert(memcmp(b + 72, golly_comments, n) == 0);
		ck_assert_int_eq(read_bytes(b, len, "c.l3d", &back, &meta, &found, &err), L3D_OK);
		ck_assert_str_eq(meta.comments, golly_comments);
		ck_assert_uint_eq(meta.stamp.run_id, stamped ? 77 : 0);
		ck_assert(grid_equal(&g, &back));
		grid_free(&back);
		/* the stamp after the comments, found on its own */
		FILE *f = input_of(b, len);
		run_stamp got;
		ck_assert(native_file_stamp(fileno(f), &got) == (stamped != 0));
		ck_assert_uint_eq(got.run_id, stamped ? 77 : 0);
		fclose(f);
		/* damage: the text's CRC, a line without '#', a length past the header */
		b[75] ^= 1;
		expect_failure(b, len, L3D_ERR_DATA, "bad comments CRC");
		b[75] ^= 1;
		b[72] = 'N';
		put_le32(b + 68, (uint32_t)crc32(0, b + 72, (uInt)n));
		expect_failure(b, len, L3D_ERR_DATA, "bad comments block (not lines that start with '#'");
		put_le32(b + 64, 4000);
		expect_failure(b, len, L3D_ERR_DATA, "bad comments block (4000 bytes of text");
		expect_failure(b, 70, L3D_ERR_DATA, "truncated .l3d comments header (6 of 8");
		free(b);
	}
	/* no comments: version 1, as before */
	b = written_with(FMT_NATIVE, &g, "", NULL, &len);
	ck_assert_uint_eq(get_le32(b + 8), 1);
	ck_assert_uint_eq(get_le32(b + 12), 64);
	free(b);
	grid_free(&g);
	/* Golly's 2D RLE: its comments, but not #CXRLE's */
	static const char flat[] = "#CXRLE Pos=0,0 Gen=3\n#N Glider\nx = 1, y = 1\n#C after\no!\n";
	ck_assert_int_eq(read_bytes(flat, strlen(flat), "g.rle", &g, &meta, &found, &err), L3D_OK);
	ck_assert_str_eq(meta.comments, "#N Glider\n#C after\n");
	ck_assert_uint_eq(g.generation, 3);
	grid_free(&g);
}
END_TEST

/* More comments than a universe keeps: the lines that fit, and a flag. */
START_TEST(test_comments_cut)
{
	size_t lines = META_COMMENTS_MAX / 100 + 10, len = 0;
	char *text = malloc(lines * 100 + 200);
	len += (size_t)sprintf(text, "3D size=3\n");
	for (size_t i = 0; i < lines; i++)
		len += (size_t)sprintf(text + len, "#C %096zu\n", i);
	sprintf(text + len, "x=1 y=1 z=1 rule=3D5..7/6\no!\n");
	grid g;
	universe_meta meta;
	l3d_err err = { 0 };
	ck_assert_int_eq(read_text(text, &g, &meta, &err), L3D_OK);
	ck_assert(meta.comments_cut);
	size_t kept = strlen(meta.comments);
	ck_assert_uint_lt(kept, META_COMMENTS_MAX);
	ck_assert_uint_eq(kept % 100, 0);                /* whole lines */
	ck_assert_uint_gt(kept, META_COMMENTS_MAX - 100);
	grid_free(&g);
	free(text);
}
END_TEST

START_TEST(test_native_errors)
{
	grid g;
	random_grid(&g, 3, 5, 7, 0.5, 9);
	size_t len;
	unsigned char *good = written(FMT_NATIVE, &g, NULL, &len);
	unsigned char *b = malloc(len + 1);
	grid_free(&g);

#define RESET() memcpy(b, good, len)
	expect_failure(good, 40, L3D_ERR_DATA, "truncated .l3d header (40 of 64");
	expect_failure(good, 70, L3D_ERR_DATA, "expected 14 bytes, got 6");
	RESET();
	b[len] = 'x';
	expect_failure(b, len + 1, L3D_ERR_DATA, "trailing garbage");
	RESET();
	put_le32(b + 8, 3);
	reseal_l3d(b, len);
	expect_failure(b, len, L3D_ERR_DATA, "unsupported .l3d version 3 (this life3d reads versions 1 and 2)");
	RESET();
	put_le32(b + 8, 2);                    /* version 2 has a comments block */
	reseal_l3d(b, len);
	expect_failure(b, len, L3D_ERR_DATA, "bad header size 64 (a version 2 header");
	RESET();
	b[20] ^= 1;
	expect_failure(b, len, L3D_ERR_DATA, "bad header CRC");
	RESET();
	put_le64(b + 24, 0);
	reseal_l3d(b, len);
	expect_failure(b, len, L3D_ERR_DATA, "empty axis");
	RESET();
	put_le32(b + 52, 1u << 27);
	reseal_l3d(b, len);
	expect_failure(b, len, L3D_ERR_DATA, "bad rule masks");
	RESET();
	b[64 + 3] ^= 0x10;
	expect_failure(b, len, L3D_ERR_DATA, "bad payload CRC");
	RESET();
	b[len - 1] |= 0x80;                    /* 105 cells: bit 7 of byte 13 is pad */
	reseal_l3d(b, len);
	expect_failure(b, len, L3D_ERR_DATA, "nonzero pad bits");
	RESET();
	put_le32(b + 12, 80);
	reseal_l3d(b, len);
	expect_failure(b, len, L3D_ERR_DATA, "bad header size");
	RESET();
	b[3] = 'X';
	FILE *f = input_of(b, len);
	reader r;
	reader_init(&r, f, "magic.l3d");
	l3d_err err = { 0 };
	ck_assert_int_eq(native_read(&r, &g, NULL, &err), L3D_ERR_DATA);
	ck_assert(strstr(err.msg, "magic.l3d: bad magic"));
	fclose(f);
#undef RESET
	free(b);
	free(good);
}
END_TEST

/* ---- Golly RLE3 ---- */

/* Golly's example, decoded by hand: (x, y, z) inside its x=2 y=4 z=4 box. */
static const int spaceship[][3] = {
	{ 1, 1, 0 }, { 1, 2, 0 },
	{ 1, 0, 1 }, { 1, 1, 1 }, { 1, 2, 1 }, { 0, 3, 1 }, { 1, 3, 1 },
	{ 0, 0, 2 }, { 1, 0, 2 }, { 1, 1, 2 }, { 1, 2, 2 }, { 1, 3, 2 },
	{ 1, 1, 3 }, { 1, 2, 3 },
};

static void check_spaceship(const grid *g, const universe_meta *meta)
{
	size_t n = sizeof spaceship / sizeof spaceship[0];
	ck_assert_uint_eq(g->nx, 40);
	ck_assert_uint_eq(g->ny, 40);
	ck_assert_uint_eq(g->nz, 40);
	ck_assert_uint_eq(grid_population(g), n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(grid_get(g, 19 + spaceship[i][0], 18 + spaceship[i][1],
				       18 + spaceship[i][2]), "cell %zu missing", i);
	ck_assert(meta->has_rule);
	rule r = { .birth = (1u << 5) | (1u << 8), .survive = (1u << 4) | (1u << 7) };
	ck_assert(rule_equal(&meta->rule, &r));
	ck_assert_uint_eq(g->generation, 0);
}

static const char golly_text[] =
	"3D version=1 size=40 pos=19,18,18\n"
	"# A 10c/10 orthogonal spaceship.\n"
	"x=2 y=4 z=4 rule=3D4,7/5,8\n"
	"$bo$bo/bo$bo$bo$oo/oo$bo$bo$bo/$bo$bo!\n";

START_TEST(test_rle3_golly_example)
{
	grid g;
	universe_meta meta;
	l3d_err err = { 0 };
	ck_assert_int_eq(read_text(golly_text, &g, &meta, &err), L3D_OK);
	check_spaceship(&g, &meta);

	/* Golly's writer gives this very text back, less the comment. */
	size_t len;
	char *out = (char *)written(FMT_RLE3, &g, &meta.rule, &len);
	ck_assert_str_eq(out, "3D version=1 size=40 pos=19,18,18\n"
			      "x=2 y=4 z=4 rule=3D4,7/5,8\n"
			      "$bo$bo/bo$bo$bo$oo/oo$bo$bo$bo/$bo$bo!\n");
	free(out);
	grid_free(&g);
}
END_TEST

START_TEST(test_rle3_fixture_file_and_pipe)
{
	char path[4096], cmd[4200];
	snprintf(path, sizeof path, "%s/tests/data/golly-spaceship.rle3", srcdir());
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s: %s (set SRCDIR)", path, strerror(errno));
	grid g;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	reader r;
	reader_init(&r, f, path);
	ck_assert_int_eq(format_read(&r, &g, &meta, &found, &err), L3D_OK);
	ck_assert_int_eq(found, FMT_RLE3);
	check_spaceship(&g, &meta);
	grid_free(&g);
	fclose(f);

	snprintf(cmd, sizeof cmd, "cat '%s'", path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	reader_init(&r, f, "(stdin)");
	ck_assert_int_eq(format_read(&r, &g, &meta, &found, &err), L3D_OK);
	check_spaceship(&g, &meta);
	grid_free(&g);
	pclose(f);
}
END_TEST

START_TEST(test_rle3_round_trip)
{
	for (size_t i = 0; i < NSIZES; i++)
		for (size_t k = 0; k < 4; k++)
			round_trip(FMT_RLE3, sizes[i][0], sizes[i][1], sizes[i][2],
				   k == 3 ? 1.0 : 0.05 + 0.3 * (double)k, 7 * i + k,
				   &some_rules[k]);
	round_trip(FMT_RLE3, 40, 40, 40, 0.0, 3, &rule_default);   /* empty */
	round_trip(FMT_RLE3, 3, 4, 5, 0.0, 3, &rule_default);
}
END_TEST

START_TEST(test_rle3_writer_shape)
{
	grid g;
	random_grid(&g, 30, 20, 10, 0.5, 5);
	size_t len;
	char *out = (char *)written(FMT_RLE3, &g, &rule_default, &len);
	ck_assert(strncmp(out, "3D version=1 size=30 box=30,20,10 gen=5000015\n"
			       "x=30 y=20 z=10 rule=3D5..7/6\n", 75) == 0);
	for (char *line = out; *line; line = strchr(line, '\n') + 1)
		ck_assert_int_le(strcspn(line, "\n"), 90);
	ck_assert_str_eq(out + len - 2, "!\n");
	free(out);
	grid_free(&g);

	ck_assert_int_eq(grid_alloc(&g, 4, 4, 4, &(l3d_err){ 0 }), L3D_OK);
	out = (char *)written(FMT_RLE3, &g, &rule_default, &len);
	ck_assert_str_eq(out, "3D version=1 size=4\nx=0 y=0 z=0 rule=3D5..7/6\n!\n");
	free(out);
	grid_set(&g, 1, 1, 1, 1);
	grid_set(&g, 3, 2, 3, 1);
	out = (char *)written(FMT_RLE3, &g, &rule_default, &len);
	ck_assert_str_eq(out, "3D version=1 size=4 pos=1,1,1\n"
			      "x=3 y=2 z=3 rule=3D5..7/6\no//$bbo!\n");
	free(out);
	grid_free(&g);
}
END_TEST

/* rle3_write_by's encoder, into a malloc'd string. */
static char *rle3_by(const grid *g, bool sparse)
{
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(out);
	l3d_err err = { 0 };
	ck_assert_int_eq(rle3_write_by(out, "out.rle3", g, &rule_default, NULL, sparse, &err), L3D_OK);
	fclose(out);
	return buf;
}

/* The writer from a sorted list of live cells gives the bytes of the one
 * that reads every cell of the live box: odd sizes, few cells (the list's
 * case), lines and planes of runs, cells on every face of the box. */
START_TEST(test_rle3_sparse_writer)
{
	static const uint64_t shapes[][3] = { { 1, 1, 1 }, { 3, 5, 7 }, { 67, 3, 130 },
					      { 9, 70, 65 }, { 130, 66, 3 }, { 200, 1, 1 } };
	for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		for (int k = 0; k < 6; k++) {
			grid g;
			double d = k < 4 ? 0.0005 * (1 << (2 * k)) : k == 4 ? 0.3 : 1.0;
			random_grid(&g, shapes[i][0], shapes[i][1], shapes[i][2], d, 11 * i + k);
			if (k == 0) {        /* a run along x across the whole box */
				for (uint64_t x = 0; x < g.nx; x++)
					grid_set(&g, x, g.ny - 1, g.nz - 1, 1);
				grid_set(&g, 0, 0, 0, 1);
			}
			char *a = rle3_by(&g, true), *b = rle3_by(&g, false);
			ck_assert_msg(strcmp(a, b) == 0, "%llux%llux%llu density %g:\n%s\nagainst\n%s",
				      (unsigned long long)g.nx, (unsigned long long)g.ny,
				      (unsigned long long)g.nz, d, a, b);
			free(a);
			free(b);
			grid_free(&g);
		}
}
END_TEST

START_TEST(test_rle3_box_size_pos)
{
	grid g;
	universe_meta meta;
	l3d_err err = { 0 };
	/* box= wins over size=. */
	ck_assert_int_eq(read_text("3D version=1 size=9 box=4,5,6 pos=1,2,3 odd=key\n"
				   "x=2 y=1 z=1 rule=B6/S567\n2o!\n", &g, &meta, &err),
			 L3D_OK);
	ck_assert_uint_eq(g.nx, 4);
	ck_assert_uint_eq(g.ny, 5);
	ck_assert_uint_eq(g.nz, 6);
	ck_assert_uint_eq(grid_population(&g), 2);
	ck_assert(grid_get(&g, 1, 2, 3) && grid_get(&g, 2, 2, 3));
	ck_assert(rule_equal(&meta.rule, &rule_default));
	grid_free(&g);
	/* Neither: Golly's 100^3 grid, where the pattern fits after pos. */
	ck_assert_int_eq(read_text("3D version=1 gen=12 pos=97,98,99\nx=3 y=2 z=1 rule=3D5..7/6\n"
				   "bbo$o!\n", &g, &meta, &err), L3D_OK);
	ck_assert_uint_eq(g.nx, 100);
	ck_assert_uint_eq(g.ny, 100);
	ck_assert_uint_eq(g.nz, 100);
	ck_assert_int_eq(meta.sizeless, SIZE_GOLLY_GRID);
	ck_assert_uint_eq(g.generation, 12);
	ck_assert(grid_get(&g, 99, 98, 99) && grid_get(&g, 97, 99, 99));
	ck_assert_uint_eq(grid_population(&g), 2);
	grid_free(&g);
	/* An empty pattern: Golly's grid too. */
	ck_assert_int_eq(read_text("3D version=1\nx=0 y=0 z=0 rule=3D5..7/6\n!\n",
				   &g, &meta, &err), L3D_OK);
	ck_assert_uint_eq(g.nx * g.ny * g.nz, 1000000);
	ck_assert_uint_eq(grid_population(&g), 0);
	grid_free(&g);
	/* Past Golly's grid: the pattern's own box, after pos. */
	ck_assert_int_eq(read_text("3D version=1 pos=98,0,0\nx=3 y=2 z=1 rule=3D5..7/6\n"
				   "bbo$o!\n", &g, &meta, &err), L3D_OK);
	ck_assert_uint_eq(g.nx, 101);
	ck_assert_uint_eq(g.ny, 2);
	ck_assert_uint_eq(g.nz, 1);
	ck_assert_int_eq(meta.sizeless, SIZE_PATTERN_BOX);
	ck_assert(grid_get(&g, 100, 0, 0) && grid_get(&g, 98, 1, 0));
	ck_assert_uint_eq(grid_population(&g), 2);
	grid_free(&g);
	/* size= only: a cube. */
	ck_assert_int_eq(read_text("3D version=1 size=5\nx=1 y=1 z=1 rule=B6/S567\no!\n",
				   &g, &meta, &err), L3D_OK);
	ck_assert_uint_eq(g.nx * g.ny * g.nz, 125);
	grid_free(&g);
}
END_TEST

START_TEST(test_rle3_comments_and_line_ends)
{
	static const char *const variants[] = {
		"3D version=1 size=40 pos=19,18,18\r\n#N spaceship\r\n#C two\r\n"
		"\r\nx=2 y=4 z=4 rule=3D4,7/5,8\r\n$bo$bo/bo$bo$bo$oo/\r\n"
		"# a comment between data lines\r\noo$bo$bo$bo/$bo$bo!\r\n",
		"3D version=1 size=40 pos=19,18,18\nx=2 y=4 z=4 rule=3D4,7/5,8\n"
		"#C a comment right after the x= line\n$bo$bo/bo$bo$bo$oo/oo$bo$bo$bo/$bo$bo!",
		"3D version=1 size=40 pos=19,18,18\r#O someone\rx=2 y=4 z=4 "
		"rule=3D4,7/5,8\r$bo$bo/bo$b\ro$bo$oo/oo$bo$bo$bo/$bo$bo!",
		"3D gen=0 pos=19,18,18 version=1 size=40\n\n\n"
		"x=2 y=4 z=4 rule=B5,8/S4,7\n$bo$bo/bo$bo$bo$2o/2o$bo$bo$bo/$bo$bo!trailing",
	};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		grid g;
		universe_meta meta;
		l3d_err err = { 0 };
		ck_assert_msg(read_text(variants[i], &g, &meta, &err) == L3D_OK,
			      "variant %zu: %s", i, err.msg);
		check_spaceship(&g, &meta);
		grid_free(&g);
	}
}
END_TEST

static void expect_rle3_failure(const char *text, const char *what)
{
	expect_failure(text, strlen(text), L3D_ERR_DATA, what);
}

/* What Golly reads and life3d read too, with what was assumed said in
 * meta.assumed: no version=, a first line of just 3D, no closing '!', a
 * negative gen=, a pos= of two numbers, size=0, a size= of no number and
 * live cells beyond the x= y= z= box (but in the universe). */
START_TEST(test_rle3_golly_leniency)
{
	static const struct {
		const char *text, *assumed;
		uint64_t side, gen, x, y, z;   /* the universe's side, the cell */
	} cases[] = {
		{ "3D size=4\nx=1 y=1 z=1 rule=B6/S567\no!\n",
		  "no version= (read as version 1)", 4, 0, 0, 0, 0 },
		{ "3D\nx=1 y=1 z=1 rule=B6/S567\no!\n", "no version= (read as version 1)", 100, 0, 0, 0, 0 },
		{ "3D version=1 size=4\nx=2 y=1 z=1 rule=B6/S567\nbo\n",
		  "no '!' at the end (read to the end, as Golly does)", 4, 0, 1, 0, 0 },
		{ "3D version=1 size=5 gen=-3\nx=1 y=1 z=1 rule=B6/S567\no!",
		  "gen=-3 (read as 0)", 5, 0, 0, 0, 0 },
		{ "3D version=1 size=5 pos=2,3\nx=1 y=1 z=1 rule=B6/S567\no!",
		  "pos=2,3 (z read as 0)", 5, 0, 2, 3, 0 },
		{ "3D version=1 size=0\nx=1 y=1 z=1 rule=B6/S567\no!", "size=0 (read as 3)", 3, 0, 0, 0, 0 },
		{ "3D version=1 size=-7\nx=1 y=1 z=1 rule=B6/S567\no!", "size=-7 (read as 3)", 3, 0, 0, 0, 0 },
		{ "3D version=1 size=abc pos=50,50,50\nx=1 y=1 z=1 rule=B6/S567\no!",
		  "size=abc (read as 100)", 100, 0, 50, 50, 50 },
		{ "3D gen=-1 size=4\nx=1 y=1 z=1 rule=B6/S567\no",
		  "gen=-1 (read as 0); no version= (read as version 1); no '!' at the end "
		  "(read to the end, as Golly does)", 4, 0, 0, 0, 0 },
		{ "3D version=1 size=4 gen=7\nx=1 y=1 z=1 rule=B6/S567\no!", "", 4, 7, 0, 0, 0 },
		{ "3D version=1 size=4 pos=1,1,1\n#C no x= line\nbbo!",
		  "no 'x=W y=H z=D rule=R' line (read with rule 3D5..7/6, as Golly does)",
		  4, 0, 2, 0, 0 },
		{ "3D version=1 size=4\nx=1 y=1 z=1 rule=B6/S567\nbbbo!",
		  "live cells beyond the x= y= z= box (read where they lie, as Golly does)",
		  4, 0, 3, 0, 0 },
		{ "3D version=1 size=4 pos=1,1,1\nx=1 y=1 z=1 rule=B6/S567\n$$o!",
		  "live cells beyond the x= y= z= box (read where they lie, as Golly does)",
		  4, 0, 1, 3, 1 },
		{ "3D version=1 size=4\nx=2 y=2 z=1 rule=B6/S567\n/2$o",
		  "live cells beyond the x= y= z= box (read where they lie, as Golly does); "
		  "no '!' at the end (read to the end, as Golly does)", 4, 0, 0, 2, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		grid g;
		universe_meta meta;
		l3d_err err = { 0 };
		ck_assert_msg(read_text(cases[i].text, &g, &meta, &err) == L3D_OK, "case %zu: %s", i,
			      err.msg);
		ck_assert_str_eq(meta.assumed, cases[i].assumed);
		ck_assert_uint_eq(g.nx, cases[i].side);
		ck_assert_uint_eq(g.nz, cases[i].side);
		ck_assert_uint_eq(g.generation, cases[i].gen);
		ck_assert_uint_eq(grid_population(&g), 1);
		ck_assert(grid_get(&g, cases[i].x, cases[i].y, cases[i].z));
		grid_free(&g);
	}
}
END_TEST

START_TEST(test_rle3_errors)
{
	expect_rle3_failure("3D version=2 size=4\nx=1 y=1 z=1 rule=B6/S567\no!\n",
			    "bad.input:1: unsupported RLE3 version '2'");
	expect_rle3_failure("3D version=1 size=4\nx=2 y=1 z=1 rule=B6/S567\n"
			    "o\nbxo!\n", "bad.input:4:2: 'x' is not RLE3 data");
	expect_rle3_failure("3D version=1 size=4\r\n\r\nx=2 y=1 z=1 rule=B6/S567\r\n"
			    "ob\r\n\r\nb o!\r\n", "bad.input:6:2: ' ' is not RLE3");
	expect_rle3_failure("3D version=1 size=4\nx=2 y=1 z=1 rule=B6/S567\no\x01!",
			    "bad.input:3:2: byte 0x01");
	expect_rle3_failure("3D version=1 size=4\nx=2 y=1 z=1 rule=B6/S567\n5o!\n",
			    "bad.input:3:2: 'o' puts a cell outside the universe");
	expect_rle3_failure("3D version=1 size=4\nx=2 y=1 z=1 rule=B6/S567\n4$o!\n",
			    "bad.input:3:3: 'o' puts a cell outside the universe");
	expect_rle3_failure("3D version=1 size=4 pos=0,0,3\nx=2 y=1 z=1 rule=B6/S567\n/o!\n",
			    "outside the universe");
	expect_rle3_failure("3D version=1 size=2\nx=2 y=1 z=1 rule=B6/S567\nbbo!\n",
			    "outside the universe");
	expect_rle3_failure("3D version=1 size=4 pos=3,0,0\nx=2 y=1 z=1 rule=B6/S567\no!\n",
			    "bad.input:2: the 2x1x1 pattern at pos=3,0,0 does not fit in the 4x4x4 universe");
	expect_rle3_failure("3D version=1 size=4\nx=5 y=1 z=1 rule=B6/S567\no!\n",
			    "does not fit");
	expect_rle3_failure("3D version=1 size=4\nx=2, y=1, z=1, rule=B6/S567\no!\n",
			    "bad.input:2: 'x=2,': expected a whole number below 2^64 "
			    "(the line is 'x=W y=H z=D rule=R', blanks between)");
	expect_rle3_failure("3D version=1 size=4\nx=2 y=-1 z=1 rule=B6/S567\no!\n",
			    "bad.input:2: 'y=-1': expected a whole number");
	expect_rle3_failure("3D version=1 size=4\nx=2 y=1 z=18446744073709551616 rule=B6/S567\no!\n",
			    "bad.input:2: 'z=18446744073709551616': expected a whole number below 2^64");
	/* Not an x= line, so data, as Golly reads it. */
	expect_rle3_failure("3D version=1 size=4\ny=2 x=1 z=1 rule=B6/S567\no!\n",
			    "bad.input:2:1: 'y' is not RLE3 data");

	expect_rle3_failure("3D version=1 size=4\nx=1 y=1 z=1 rule=3D5..7/6F\no!\n",
			    "bad.input:2: rule '3D5..7/6F'");

	expect_rle3_failure("3D version=1 size=4 pos=1\nx=1 y=1 z=1 rule=B6/S567\no!\n",
			    "bad value in 'pos=1'");
	expect_rle3_failure("3D version=1 size=4 pos=1,,2\nx=1 y=1 z=1 rule=B6/S567\no!\n",
			    "bad value in 'pos=1,,2'");
	expect_rle3_failure("3D version=1 size=4 gen=-x\nx=1 y=1 z=1 rule=B6/S567\no!\n",
			    "bad value in 'gen=-x'");
	expect_rle3_failure("3D version=1 size=4\nx=1 y=1 z=1 rule=B6/S567\n"
			    "99999999999o!\n", "run count too large");

	FILE *f = input_of("3E version=1\n", 13);
	reader r;
	reader_init(&r, f, "not.rle3");
	grid g;
	l3d_err err = { 0 };
	ck_assert_int_eq(rle3_read(&r, &g, NULL, &err), L3D_ERR_DATA);
	ck_assert(strstr(err.msg, "not.rle3:1: not RLE3"));
	fclose(f);
}
END_TEST

/* ---- detection ---- */

START_TEST(test_detect_by_content)
{
	grid g, back;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	size_t len;
	random_grid(&g, 5, 5, 5, 0.4, 3);
	for (fmt_id f = FMT_HPCGAME; f <= FMT_RLE3; f++) {
		unsigned char *b = written(f, &g, &rule_default, &len);
		/* Names lie: every format is saved as "universe.bin". */
		ck_assert_int_eq(read_bytes(b, len, "universe.bin", &back, &meta,
					    &found, &err), L3D_OK);
		ck_assert_int_eq(found, f);
		ck_assert(grid_equal(&g, &back));
		grid_free(&back);
		free(b);
	}
	grid_free(&g);
	expect_failure("hello, world, this is text\n", 27, L3D_ERR_DATA,
		       "not a life3d universe (unknown format)");
	expect_failure("abc", 3, L3D_ERR_DATA, "unknown format");
	expect_failure("\x93NUMPY\x01\x00", 8, L3D_ERR_DATA, "truncated NumPy header");
	expect_failure("# vtk DataFile", 14, L3D_ERR_DATA, "written but not read");
	/* Text in Golly's 2D RLE, and text that is not: a configuration
	 * file's comment, Golly's Life 1.06, an HPCGame edge of 35 ('#'). */
	static const char *const rle2[] = {
		"#N Glider\nx = 3, y = 3\nbo$2bo$3o!\n", "\n\nx=3,y=3\n3o!", "x = 0, y = 0\n",
		"#C\n3o!", "#CXRLE Pos=0,0\nx = 1, y = 1\no!", "bo$2bo$3o!\n", "3o", "o!",
	};
	for (size_t i = 0; i < sizeof rle2 / sizeof rle2[0]; i++) {
		ck_assert_msg(read_bytes(rle2[i], strlen(rle2[i]), "p.rle", &back, &meta,
					 &found, &err) == L3D_OK && found == FMT_RLE,
			      "not read as 2D RLE: '%s' (%s)", rle2[i], err.msg);
		grid_free(&back);
	}
	static const char *const not_rle2[] = {
		"# a configuration\nsteps = 3;\n", "#Life 1.06\n0 0\n", "#P 0 0\n*\n",
		"#MCell\n", "#Nightly\n", "xyz\n", "bob\n", "b$o\n",
	};
	for (size_t i = 0; i < sizeof not_rle2 / sizeof not_rle2[0]; i++)
		expect_failure(not_rle2[i], strlen(not_rle2[i]), L3D_ERR_DATA, "unknown format");
	expect_failure("#\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16, L3D_ERR_DATA,
		       "bad.input: truncated");
	/* gzip -n's first 8 bytes would read as an HPCGame edge below 2^32. */
	expect_failure("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10, L3D_ERR_DATA,
		       "gzip-compressed data: life3d reads universes uncompressed (zcat FILE");
	expect_failure("\x28\xb5\x2f\xfd\x24\x10\x81\0", 8, L3D_ERR_DATA,
		       "zstd-compressed data");
	expect_failure("\xfd" "7zXZ\0\0\x04", 8, L3D_ERR_DATA, "xz-compressed data");
	expect_failure("BZh91AY&SY", 10, L3D_ERR_DATA, "bzip2-compressed data");
	expect_failure("\x89L3D\r", 5, L3D_ERR_DATA, "truncated .l3d header");
}
END_TEST

START_TEST(test_hpcgame_through_pipe)
{
	/* Over 1 MiB of cells: several chunks, each a pipe read. */
	grid g, back;
	universe_meta meta;
	fmt_id found;
	l3d_err err = { 0 };
	random_grid(&g, 130, 130, 130, 0.5, 8);
	char path[] = "/tmp/check_formats_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *out = fdopen(fd, "wb");
	ck_assert_int_eq(format_write(out, path, FMT_HPCGAME, &g, NULL, NULL, &err), L3D_OK);
	fclose(out);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "cat %s", path);
	FILE *in = popen(cmd, "r");
	reader r;
	reader_init(&r, in, "(stdin)");
	ck_assert_int_eq(format_read(&r, &back, &meta, &found, &err), L3D_OK);
	ck_assert_int_eq(found, FMT_HPCGAME);
	ck_assert(grid_equal(&g, &back));
	ck_assert_uint_eq(back.generation, g.generation);
	pclose(in);
	remove(path);
	grid_free(&g);
	grid_free(&back);
}
END_TEST

/* ---- exports ---- */

static void expect_cells(const unsigned char *p, const grid *g)
{
	uint64_t i = 0;
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			for (uint64_t z = 0; z < g->nz; z++, i++)
				ck_assert_uint_eq(p[i], (unsigned)grid_get(g, x, y, z));
}

/* VTK's voxel (i, j, k), i fastest, is cell (x, y, z) = (k, j, Z-1-i):
 * a quarter turn about y, not the mirror image the exchange of x and z
 * alone would give. */
static void expect_voxels(const unsigned char *p, const grid *g)
{
	uint64_t ni = g->nz, nj = g->ny, nk = g->nx;
	for (uint64_t k = 0; k < nk; k++)
		for (uint64_t j = 0; j < nj; j++)
			for (uint64_t i = 0; i < ni; i++)
				ck_assert_uint_eq(p[(k * nj + j) * ni + i],
						  (unsigned)grid_get(g, k, j, g->nz - 1 - i));
}

/* The map from cells to voxels keeps a pattern's hand: the determinant of
 * its matrix, columns the images of x, y and z, is +1. */
START_TEST(test_vtk_rotation)
{
	grid g;
	random_grid(&g, 2, 3, 4, 0.0, 1);
	int e[3][3];     /* e[a] = voxel (i, j, k) step for a step along axis a */
	for (int a = 0; a < 3; a++) {
		uint64_t c0[3] = {0, 0, 1}, c1[3] = {0, 0, 1};
		c1[a] += 1;
		uint64_t v0[3] = {g.nz - 1 - c0[2], c0[1], c0[0]};
		uint64_t v1[3] = {g.nz - 1 - c1[2], c1[1], c1[0]};
		for (int b = 0; b < 3; b++)
			e[a][b] = (int)(v1[b] - v0[b]);
		/* and the writer puts the cell there */
		grid_set(&g, c1[0], c1[1], c1[2], 1);
		size_t len;
		unsigned char *b = written(FMT_VTK, &g, NULL, &len);
		const unsigned char *cells = b + len - 1 - 24;
		ck_assert_uint_eq(cells[(v1[2] * g.ny + v1[1]) * g.nz + v1[0]], 1);
		free(b);
		grid_set(&g, c1[0], c1[1], c1[2], 0);
	}
	int det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
		  e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
		  e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
	ck_assert_int_eq(det, 1);
	grid_free(&g);
}
END_TEST

START_TEST(test_vtk)
{
	grid g;
	random_grid(&g, 3, 5, 7, 0.5, 2);
	size_t len;
	unsigned char *b = written(FMT_VTK, &g, NULL, &len);
	static const char head[] =
		"# vtk DataFile Version 3.0\n"
		"life3d universe, generation 2000006\n"
		"BINARY\n"
		"DATASET STRUCTURED_POINTS\n"
		"DIMENSIONS 8 6 4\n"
		"ORIGIN 0 0 0\n"
		"SPACING 1 1 1\n"
		"CELL_DATA 105\n"
		"SCALARS alive unsigned_char 1\n"
		"LOOKUP_TABLE default\n";
	size_t h = sizeof head - 1;
	ck_assert_uint_eq(len, h + 105 + 1);
	ck_assert_mem_eq(b, head, h);
	expect_voxels(b + h, &g);
	ck_assert_uint_eq(b[len - 1], '\n');
	free(b);
	grid_free(&g);
}
END_TEST

START_TEST(test_npy)
{
	grid g;
	random_grid(&g, 3, 5, 7, 0.5, 4);
	size_t len;
	unsigned char *b = written(FMT_NPY, &g, NULL, &len);
	ck_assert_mem_eq(b, "\x93NUMPY\x01\x00", 8);
	size_t hlen = b[8] | (size_t)b[9] << 8;
	ck_assert_uint_eq((10 + hlen) % 64, 0);
	ck_assert_uint_eq(len, 10 + hlen + 105);
	const char *dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 5, 7), }";
	ck_assert_mem_eq(b + 10, dict, strlen(dict));
	for (size_t i = 10 + strlen(dict); i < 10 + hlen - 1; i++)
		ck_assert_uint_eq(b[i], ' ');
	ck_assert_uint_eq(b[10 + hlen - 1], '\n');
	expect_cells(b + 10 + hlen, &g);
	free(b);
	grid_free(&g);
}
END_TEST

/* ---- write errors ---- */

START_TEST(test_write_errors)
{
	FILE *full = fopen("/dev/full", "w");
	if (!full)
		return;                  /* no /dev/full here: nothing to test */
	grid g;
	random_grid(&g, 8, 8, 8, 0.5, 1);
	for (fmt_id f = FMT_HPCGAME; f <= FMT_NPY; f++) {
		l3d_err err = { 0 };
		if (!format_can_write(f))
			continue;
		clearerr(full);
		ck_assert_int_eq(format_write(full, "full.out", f, &g, &rule_default, NULL, &err),
				 L3D_ERR_IO);
		ck_assert_msg(strstr(err.msg, "full.out: write error: "), "%s", err.msg);
	}
	l3d_err err = { 0 };
	ck_assert_int_eq(format_write(full, "x", FMT_NONE, &g, NULL, NULL, &err), L3D_ERR_USAGE);
	fclose(full);
	grid_free(&g);
}
END_TEST

static Suite *formats_suite(void)
{
	Suite *s = suite_create("formats");
	TCase *t = tcase_create("names");
	tcase_add_test(t, test_names);
	tcase_add_test(t, test_lists);
	tcase_add_test(t, test_reader_peek_then_read);
	tcase_add_test(t, test_reader_at_eof_keeps_byte);
	tcase_add_test(t, test_read_error_is_io);
	tcase_add_test(t, test_detect_by_content);
	suite_add_tcase(s, t);

	t = tcase_create("fixed");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_fixed_codecs);
	suite_add_tcase(s, t);

	t = tcase_create("hpcgame");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_hpcgame_round_trip);
	tcase_add_test(t, test_hpcgame_layout);
	tcase_add_test(t, test_hpcgame_needs_cube);
	tcase_add_test(t, test_hpcgame_errors);
	tcase_add_test(t, test_hpcgame_through_pipe);
	suite_add_tcase(s, t);

	t = tcase_create("native");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_native_round_trip);
	tcase_add_test(t, test_native_layout);
	tcase_add_test(t, test_native_stamp);
	tcase_add_test(t, test_native_errors);
	tcase_add_test(t, test_comments_kept);
	tcase_add_test(t, test_comments_cut);
	suite_add_tcase(s, t);

	t = tcase_create("rle3");
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_rle3_golly_example);
	tcase_add_test(t, test_rle3_fixture_file_and_pipe);
	tcase_add_test(t, test_rle3_round_trip);
	tcase_add_test(t, test_rle3_writer_shape);
	tcase_add_test(t, test_rle3_sparse_writer);
	tcase_add_test(t, test_rle3_golly_leniency);
	tcase_add_test(t, test_rle3_box_size_pos);
	tcase_add_test(t, test_rle3_comments_and_line_ends);
	tcase_add_test(t, test_rle3_errors);
	suite_add_tcase(s, t);

	t = tcase_create("exports");
	tcase_add_test(t, test_vtk);
	tcase_add_test(t, test_vtk_rotation);
	tcase_add_test(t, test_npy);
	tcase_add_test(t, test_write_errors);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return run_suite(formats_suite(), true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
