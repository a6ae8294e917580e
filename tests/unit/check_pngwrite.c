/* check_pngwrite.c - PNGs compressed in bands: pictures of every awkward
 * shape (1x1, odd widths, one band or one a row, bands of the same row
 * repeated, a band too large for one IDAT chunk), encoded on several
 * threads in no particular order, put in order, then decoded by libpng's
 * reader and by zlib alone (which checks the stream's checksum) and
 * compared pixel for pixel; misuse and failing writes give errors.
 * The bands kept from one picture (bandmemo.h) are offered for another
 * of the same size only where its rows are the same bytes, and are then
 * the bytes that compressing those rows gives.
 * Helper threads never call ck_assert (Check's failures are not thread
 * safe): they keep their error, and the test asserts afterwards. */
#include <check.h>
#include <png.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check_run.h"
#include "run/bandmemo.h"
#include "run/pngwrite.h"

#define THREADS 4

/* A test picture: flat areas, rows repeated, rows that differ from the
 * one above in their last byte only, noise where `noisy`. */
typedef struct picture {
	uint32_t w, h;
	uint8_t *px;
} picture;

static picture make_picture(uint32_t w, uint32_t h, bool noisy)
{
	picture p = {w, h, malloc(3 * (size_t)w * h)};
	ck_assert_ptr_nonnull(p.px);
	uint32_t seed = w * 2654435761u ^ h;
	for (uint32_t y = 0; y < h; y++) {
		uint8_t *row = p.px + 3 * (size_t)w * y;
		if (y % 5 >= 3) {
			memcpy(row, row - 3 * (size_t)w, 3 * (size_t)w);
			row[3 * (size_t)w - 1] ^= y % 5 == 4 ? 0x55 : 0;
			continue;
		}
		for (size_t i = 0; i < 3 * (size_t)w; i++) {
			seed = seed * 1103515245u + 12345u;
			row[i] = noisy || i / 30 % 3 == 0 ? (uint8_t)(seed >> 16) : (uint8_t)(y * 7);
		}
	}
	return p;
}

/* ---- encoding: bands on several threads, put in order ---- */

typedef struct job {
	const picture *pic;
	uint32_t rows;           /* per band */
	uint32_t bands;
	bool repeat;             /* each band: its first row, `rows` times */
	pngw_band *band;
	int thread;
	int rc;
	l3d_err err;
} job;

/* Thread t encodes bands t, t + THREADS, ..., from the last one back. */
static void *encode_share(void *arg)
{
	job *j = arg;
	int64_t last = (int64_t)j->bands - 1;
	size_t stride = 3 * (size_t)j->pic->w;
	for (int64_t k = last - (last - j->thread) % THREADS; k >= 0 && !j->rc; k -= THREADS) {
		uint32_t first = (uint32_t)k * j->rows;
		uint32_t n = j->pic->h - first < j->rows ? j->pic->h - first : j->rows;
		j->rc = pngw_encode(j->pic->w, j->pic->px + first * stride, n,
				    j->repeat ? 0 : stride, k == last, &j->band[k], &j->err);
	}
	return NULL;
}

/* The picture as the bands give it (each band's first row repeated, for
 * `repeat`). */
static void expected(const picture *pic, uint32_t rows, bool repeat, uint8_t *out)
{
	size_t stride = 3 * (size_t)pic->w;
	for (uint32_t y = 0; y < pic->h; y++)
		memcpy(out + y * stride, pic->px + (repeat ? y - y % rows : y) * stride, stride);
}

static void encode(const picture *pic, uint32_t rows, bool repeat, pngw_band *band)
{
	uint32_t bands = (pic->h + rows - 1) / rows;
	job jobs[THREADS];
	pthread_t threads[THREADS];
	for (int t = 0; t < THREADS; t++) {
		jobs[t] = (job){.pic = pic, .rows = rows, .bands = bands, .repeat = repeat,
				.band = band, .thread = t};
		if (t < (int)bands)
			ck_assert_int_eq(pthread_create(&threads[t], NULL, encode_share, &jobs[t]), 0);
	}
	for (int t = 0; t < THREADS && t < (int)bands; t++) {
		pthread_join(threads[t], NULL);
		ck_assert_msg(jobs[t].rc == L3D_OK, "thread %d: %s", t, jobs[t].err.msg);
	}
}

/* Write the picture in bands of `rows` rows; the bytes of the file in
 * *data (*size). */
static void write_png(const picture *pic, uint32_t rows, bool repeat, char **data,
		      size_t *size)
{
	uint32_t bands = (pic->h + rows - 1) / rows;
	pngw_band *band = calloc(bands, sizeof *band);
	ck_assert_ptr_nonnull(band);
	encode(pic, rows, repeat, band);
	FILE *f = open_memstream(data, size);
	ck_assert_ptr_nonnull(f);
	pngw_note note = {.key = "Title", .text = "check_pngwrite"};
	l3d_err err = {0, ""};
	pngw *w;
	ck_assert_int_eq(pngw_begin(&w, f, "mem.png", pic->w, pic->h, &note, 1, &err), L3D_OK);
	for (uint32_t k = 0; k < bands; k++)
		ck_assert_msg(pngw_put(w, &band[k], &err) == L3D_OK, "%s", err.msg);
	ck_assert_msg(pngw_finish(w, &err) == L3D_OK, "%s", err.msg);
	pngw_free(w);
	ck_assert_int_eq(fclose(f), 0);
	for (uint32_t k = 0; k < bands; k++)
		pngw_band_free(&band[k]);
	free(band);
}

/* ---- decoding ---- */

typedef struct reader {
	const uint8_t *data;
	size_t size, at;
} reader;

static void read_mem(png_structp png, png_bytep out, png_size_t n)
{
	reader *r = png_get_io_ptr(png);
	if (n > r->size - r->at)
		png_error(png, "read past the end");
	memcpy(out, r->data + r->at, n);
	r->at += n;
}

/* libpng's reading of the file into px (w x h RGB); 0 when it decodes. */
static int decode(reader *r, uint32_t w, uint32_t h, uint8_t *px, char *title)
{
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	int rc = 1;
	if (setjmp(png_jmpbuf(png)) == 0) {
		png_set_read_fn(png, r, read_mem);
		png_read_info(png, info);
		if (png_get_image_width(png, info) == w && png_get_image_height(png, info) == h &&
		    png_get_color_type(png, info) == PNG_COLOR_TYPE_RGB &&
		    png_get_bit_depth(png, info) == 8) {
			for (uint32_t y = 0; y < h; y++)
				png_read_row(png, px + 3 * (size_t)w * y, NULL);
			png_read_end(png, info);
			png_textp text;
			int n = 0;
			png_get_text(png, info, &text, &n);
			snprintf(title, 64, "%s", n ? text[0].text : "");
			rc = r->at == r->size ? 0 : 2;
		}
	}
	png_destroy_read_struct(&png, &info, NULL);
	return rc;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* zlib alone on the IDAT chunks: one whole stream, its checksum right,
 * of h scanlines; *n_idat the chunks. */
static int inflate_idat(const uint8_t *data, size_t size, uint32_t w, uint32_t h,
			int *n_idat)
{
	size_t total = 0;
	uint8_t *z = malloc(size);
	*n_idat = 0;
	for (size_t at = 8; at + 12 <= size; at += 12 + be32(data + at)) {
		if (memcmp(data + at + 4, "IDAT", 4) == 0) {
			memcpy(z + total, data + at + 8, be32(data + at));
			total += be32(data + at);
			++*n_idat;
		}
	}
	uLongf raw = (uLongf)h * (1 + 3 * (uLongf)w), want = raw;
	uint8_t *out = malloc(raw + 1);
	int zr = uncompress(out, &raw, z, total);
	free(z);
	free(out);
	return zr == Z_OK && raw == want ? 0 : zr;
}

/* Encode in bands of `rows`, decode two ways, compare every pixel; the
 * IDAT chunks written. */
static int round_trip(uint32_t w, uint32_t h, uint32_t rows, bool repeat, bool noisy)
{
	picture pic = make_picture(w, h, noisy);
	char *data = NULL;
	size_t size = 0;
	write_png(&pic, rows, repeat, &data, &size);
	uint8_t *want = malloc(3 * (size_t)w * h), *got = calloc(3 * (size_t)w * h, 1);
	expected(&pic, rows, repeat, want);
	reader r = {(const uint8_t *)data, size, 0};
	char title[64] = "";
	ck_assert_msg(decode(&r, w, h, got, title) == 0, "%ux%u in bands of %u: libpng "
		      "cannot read it", w, h, rows);
	ck_assert_str_eq(title, "check_pngwrite");
	for (uint32_t y = 0; y < h; y++)
		ck_assert_msg(memcmp(got + 3 * (size_t)w * y, want + 3 * (size_t)w * y,
				     3 * (size_t)w) == 0,
			      "%ux%u in bands of %u%s: row %u differs", w, h, rows,
			      repeat ? " (repeated)" : "", y);
	int n_idat;
	ck_assert_int_eq(inflate_idat((const uint8_t *)data, size, w, h, &n_idat), 0);
	/* A band's chunks, and the checksum's. */
	ck_assert_int_ge(n_idat, (int)((h + rows - 1) / rows) + 1);
	free(want);
	free(got);
	free(data);
	free(pic.px);
	return n_idat;
}

START_TEST(one_pixel)
{
	round_trip(1, 1, 1, false, false);
	round_trip(1, 1, 1, true, true);
	round_trip(1, 1, 1000, false, true);
}
END_TEST

START_TEST(odd_shapes_and_band_counts)
{
	static const uint32_t shapes[][3] = {
		/* width, height, rows a band */
		{7, 13, 2}, {7, 13, 1}, {7, 13, 13}, {7, 13, 100}, {1, 50, 3},
		{333, 97, 10}, {333, 97, 96}, {2, 1000, 1}, {1001, 3, 2},
	};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
		for (int noisy = 0; noisy < 2; noisy++)
			round_trip(shapes[k][0], shapes[k][1], shapes[k][2], false, noisy);
}
END_TEST

/* Stride 0: a band of one row repeated. */
START_TEST(repeated_rows)
{
	round_trip(5, 40, 8, true, true);
	round_trip(331, 77, 7, true, false);
	round_trip(64, 9, 100, true, true);
}
END_TEST

/* Noise does not compress: a band of more than 4 MiB compressed spans
 * two IDAT chunks (then the checksum's). */
START_TEST(large_band)
{
	ck_assert_int_eq(round_trip(2000, 1500, 1500, false, true), 3);
	round_trip(2000, 1500, 7, false, true);
}
END_TEST

/* ---- misuse and failing writes ---- */

/* Begin, put the picture's bands (`bands` of them, or all), finish; the
 * first failure. */
static int try_write(FILE *f, uint32_t w, uint32_t h, uint32_t rows, uint32_t bands,
		     l3d_err *err)
{
	picture pic = make_picture(w, h, true);
	pngw *png;
	pngw_band b = {0};
	int rc = pngw_begin(&png, f, "test.png", w, h, NULL, 0, err);
	for (uint32_t y = 0, k = 0; y < h && k < bands && !rc; y += rows, k++) {
		uint32_t n = h - y < rows ? h - y : rows;
		rc = pngw_encode(w, pic.px + 3 * (size_t)w * y, n, 3 * (size_t)w, y + n == h,
				 &b, err);
		if (!rc)
			rc = pngw_put(png, &b, err);
	}
	if (!rc)
		rc = pngw_finish(png, err);
	pngw_free(png);
	pngw_band_free(&b);
	free(pic.px);
	return rc;
}

START_TEST(incomplete_picture_refused)
{
	FILE *f = tmpfile();
	l3d_err err = {0, ""};
	ck_assert_int_eq(try_write(f, 10, 10, 3, 2, &err), L3D_ERR_RUNTIME);
	ck_assert_ptr_nonnull(strstr(err.msg, "not complete"));
	fclose(f);
	/* A band past the last row. */
	f = tmpfile();
	pngw *png;
	pngw_band b = {0};
	uint8_t row[30] = {0};
	ck_assert_int_eq(pngw_begin(&png, f, "test.png", 10, 1, NULL, 0, &err), L3D_OK);
	ck_assert_int_eq(pngw_encode(10, row, 1, 0, true, &b, &err), L3D_OK);
	ck_assert_int_eq(pngw_put(png, &b, &err), L3D_OK);
	ck_assert_int_eq(pngw_put(png, &b, &err), L3D_ERR_RUNTIME);
	ck_assert_ptr_nonnull(strstr(err.msg, "more rows"));
	pngw_free(png);
	pngw_band_free(&b);
	fclose(f);
	ck_assert_int_eq(pngw_begin(&png, stdout, "test.png", 0, 5, NULL, 0, &err),
			 L3D_ERR_USAGE);
	ck_assert_ptr_null(png);
}
END_TEST

/* A full disk: seen while the bands are written (a large picture) or
 * when the file is flushed at the end (a small one). */
START_TEST(disk_full)
{
	static const uint32_t sizes[][3] = {{1, 1, 1}, {20, 20, 3}, {600, 500, 50}};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		FILE *f = fopen("/dev/full", "w");
		ck_assert_ptr_nonnull(f);
		l3d_err err = {0, ""};
		ck_assert_int_eq(try_write(f, sizes[k][0], sizes[k][1], sizes[k][2], UINT32_MAX,
					   &err), L3D_ERR_IO);
		/* The reason, as for every other write: not libpng's bare "Write
		 * Error". */
		ck_assert_msg(strstr(err.msg, "test.png: write error: No space left on device"),
			      "%s", err.msg);
		fclose(f);
	}
}
END_TEST

/* A pipe nobody reads any more (SIGPIPE ignored: the write fails with
 * EPIPE). */
START_TEST(closed_pipe)
{
	signal(SIGPIPE, SIG_IGN);
	for (uint32_t side = 1; side <= 700; side += 699) {
		int fd[2];
		ck_assert_int_eq(pipe(fd), 0);
		close(fd[0]);
		FILE *f = fdopen(fd[1], "w");
		l3d_err err = {0, ""};
		ck_assert_int_eq(try_write(f, side, side, 64, UINT32_MAX, &err), L3D_ERR_IO);
		fclose(f);
	}
}
END_TEST

/* ---- bands kept from one picture for the next ---- */

/* The picture's bands, encoded, kept in a new memo, which is published. */
static void keep_picture(const picture *pic, uint32_t rows, pngw_band *band)
{
	uint32_t bands = (pic->h + rows - 1) / rows;
	encode(pic, rows, false, band);
	bandmemo *m = bandmemo_new(pic->w, pic->h, rows);
	ck_assert_ptr_nonnull(m);
	for (uint32_t k = 0; k < bands; k++) {
		bandmemo_keep_rows(m, k, pic->px + (size_t)k * rows * 3 * pic->w);
		if (k % 2)
			bandmemo_keep_band(m, k, &band[k]);
		else
			bandmemo_keep_copy(m, k, &band[k]);
	}
	bandmemo_publish(m);
	bandmemo_release(m);
	for (uint32_t k = 0; k < bands; k++)
		pngw_band_free(&band[k]);
}

static bool same_band(const pngw_band *a, const pngw_band *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0 &&
	       a->adler == b->adler && a->raw == b->raw && a->last == b->last;
}

START_TEST(kept_bands_are_the_bytes_of_the_same_rows)
{
	enum { W = 97, H = 50, ROWS = 7, BANDS = (H + ROWS - 1) / ROWS };
	picture a = make_picture(W, H, _i == 1);
	pngw_band band[BANDS] = {{0}};
	keep_picture(&a, ROWS, band);
	/* The next picture: one byte changed in band 3, one in the last. */
	a.px[(3 * ROWS + 2) * 3 * W + 5] ^= 1;
	a.px[3 * W * H - 1] ^= 0x80;
	encode(&a, ROWS, false, band);
	bandmemo *m = bandmemo_latest(W, H, ROWS);
	ck_assert_ptr_nonnull(m);
	for (uint32_t k = 0; k < BANDS; k++) {
		const pngw_band *kept = bandmemo_match(m, k, a.px + (size_t)k * ROWS * 3 * W);
		if (k == 3 || k == BANDS - 1)
			ck_assert_msg(!kept, "band %u changed, yet offered", k);
		else
			ck_assert_msg(kept && same_band(kept, &band[k]),
				      "band %u: not offered, or not the bytes of its rows", k);
	}
	bandmemo_release(m);
	for (uint32_t k = 0; k < BANDS; k++)
		pngw_band_free(&band[k]);
	bandmemo_forget();
	ck_assert_ptr_null(bandmemo_latest(W, H, ROWS));
	free(a.px);
}
END_TEST

START_TEST(kept_bands_only_for_the_same_size)
{
	picture a = make_picture(40, 30, false);
	pngw_band band[5] = {{0}};
	keep_picture(&a, 6, band);
	ck_assert_ptr_null(bandmemo_latest(40, 31, 6));
	ck_assert_ptr_null(bandmemo_latest(41, 30, 6));
	ck_assert_ptr_null(bandmemo_latest(40, 30, 5));
	bandmemo *m = bandmemo_latest(40, 30, 6);
	ck_assert_ptr_nonnull(m);
	ck_assert(bandmemo_is(m, 40, 30, 6) && !bandmemo_is(m, 40, 30, 5));
	ck_assert_ptr_null(bandmemo_match(m, 5, a.px));
	ck_assert_ptr_nonnull(bandmemo_band(m, 4));
	ck_assert_ptr_null(bandmemo_band(m, 5));
	/* A memo missing a band is never the latest. */
	bandmemo *part = bandmemo_new(40, 30, 6);
	ck_assert_ptr_nonnull(part);
	encode(&a, 6, false, band);
	for (uint32_t k = 0; k < 4; k++) {
		bandmemo_keep_rows(part, k, a.px + (size_t)k * 6 * 3 * 40);
		bandmemo_keep_band(part, k, &band[k]);
	}
	ck_assert(!bandmemo_publish(part));
	bandmemo_release(part);
	bandmemo *still = bandmemo_latest(40, 30, 6);
	ck_assert_ptr_eq(still, m);
	bandmemo_release(still);
	bandmemo_release(m);
	pngw_band_free(&band[4]);
	/* Too large a picture is not kept. */
	ck_assert_ptr_null(bandmemo_new(BANDMEMO_MAX_BYTES / 3 + 1, 1, 1));
	ck_assert_uint_eq(bandmemo_bytes(BANDMEMO_MAX_BYTES / 3 + 1, 1), 0);
	ck_assert_uint_ge(bandmemo_bytes(40, 30), 2 * 3 * 40 * 30);
	bandmemo_forget();
	free(a.px);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pngwrite");
	TCase *tc = tcase_create("round trip");
	tcase_add_test(tc, one_pixel);
	tcase_add_test(tc, odd_shapes_and_band_counts);
	tcase_add_test(tc, repeated_rows);
	tcase_add_test(tc, large_band);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, incomplete_picture_refused);
	tcase_add_test(tc, disk_full);
	tcase_add_test(tc, closed_pipe);
	suite_add_tcase(s, tc);
	tc = tcase_create("bands kept");
	tcase_add_loop_test(tc, kept_bands_are_the_bytes_of_the_same_rows, 0, 2);
	tcase_add_test(tc, kept_bands_only_for_the_same_size);
	suite_add_tcase(s, tc);
	return run_suite(s, true) ? 1 : 0;
}
