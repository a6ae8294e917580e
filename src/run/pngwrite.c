/* pngwrite.c - see pngwrite.h. */
#include "pngwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* IDAT chunks are cut at this size: well under what any reader takes, and
 * large enough that a band is one chunk or two. */
#define IDAT_MAX ((size_t)4 << 20)

struct pngw {
	png_structp png;
	png_infop info;
	FILE *out;
	const char *name;
	uint64_t raw;              /* bytes of scanlines the picture has */
	uint64_t put;              /* of them, put so far */
	uint32_t adler;            /* of those put */
	bool ended;                /* the last band was put */
	char msg[200];             /* libpng's last error */
	int write_errno;           /* errno of a failed write (libpng's
	                              "Write Error"), else 0 */
};

static void on_png_error(png_structp png, png_const_charp msg)
{
	pngw *w = png_get_error_ptr(png);
	int e = errno;
	snprintf(w->msg, sizeof w->msg, "%s", msg);
	/* libpng's own writer says "Write Error" when fwrite came short; the
	 * reason (a full disk) is in errno. */
	w->write_errno = w->out && ferror(w->out) && strcmp(msg, "Write Error") == 0 ? e : 0;
	png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static int failed(pngw *w, l3d_err *err)
{
	if (w->write_errno)
		return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", w->name,
				strerror(w->write_errno));
	/* libpng says "Out of memory", "Insufficient memory ...", "text
	 * chunk: out of memory": memory, not the disk. */
	if (strcasestr(w->msg, "memory"))
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory writing the "
				"picture (%s)", w->name, w->msg);
	return l3d_fail(err, L3D_ERR_IO, "%s: PNG write error: %s", w->name, w->msg);
}

static void header(pngw *w, FILE *out, uint32_t width, uint32_t height,
		   const pngw_note *notes, int n_notes)
{
	png_init_io(w->png, out);
	png_set_IHDR(w->png, w->info, width, height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_text text[16];
	int n = n_notes < 16 ? n_notes : 16;
	for (int i = 0; i < n; i++)
		text[i] = (png_text){.compression = PNG_TEXT_COMPRESSION_NONE,
				     .key = (png_charp)notes[i].key,
				     .text = (png_charp)notes[i].text};
	if (n)
		png_set_text(w->png, w->info, text, n);
	png_write_info(w->png, w->info);
}

int pngw_begin(pngw **out_w, FILE *out, const char *name,
		    uint32_t width, uint32_t height, const pngw_note *notes,
		    int n_notes, l3d_err *err)
{
	*out_w = NULL;
	if (width > PNGW_MAX_EDGE || height > PNGW_MAX_EDGE || !width || !height ||
	    (uint64_t)width * height > PNGW_MAX_PIXELS)
		return l3d_fail(err, L3D_ERR_USAGE, "%s: a %ux%u picture is more than PNG "
				"readers take (%u pixels a side, %" PRIu64 " in all)", name,
				width, height, PNGW_MAX_EDGE, PNGW_MAX_PIXELS);
	pngw *w = calloc(1, sizeof *w);
	if (w)
		w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_png_error,
						 on_png_warning);
	if (w && w->png)
		w->info = png_create_info_struct(w->png);
	if (!w || !w->info) {
		pngw_free(w);
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", name);
	}
	w->name = name;
	w->out = out;
	w->raw = (uint64_t)height * (1 + 3 * (uint64_t)width);
	w->adler = (uint32_t)adler32(0, NULL, 0);
	*out_w = w;
	if (setjmp(png_jmpbuf(w->png)))
		return failed(w, err);
	header(w, out, width, height, notes, n_notes);
	return L3D_OK;
}

/* ---- the text of a PNG already written ---- */

/* Each of want's notes is in f's text: its key with its text, or, for a
 * want[i] whose text is empty, its key with any text, which is put there. */
static bool notes_in(FILE *f, pngw_note *want, int n)
{
	png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	bool all = false;
	if (info && !setjmp(png_jmpbuf(png))) {
		png_init_io(png, f);
		png_read_info(png, info);
		png_textp text;
		int count = 0, found = 0;
		png_get_text(png, info, &text, &count);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < count; j++)
				if (strcmp(text[j].key, want[i].key) == 0 &&
				    (!want[i].text[0] || strcmp(text[j].text, want[i].text) == 0)) {
					if (!want[i].text[0])
						snprintf(want[i].text, sizeof want[i].text, "%s",
							 text[j].text);
					found++;
					break;
				}
		all = found == n;
	}
	png_destroy_read_struct(png ? &png : NULL, info ? &info : NULL, NULL);
	return all;
}

bool pngw_has_notes(const char *path, pngw_note *want, int n)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
	if (!f) {
		close(fd);
		return false;
	}
	bool all = notes_in(f, want, n);
	fclose(f);
	return all;
}

/* ---- a band, compressed ---- */

/* Room for at least `need` more bytes after b->len. */
static int reserve(pngw_band *b, size_t need)
{
	if (b->cap - b->len >= need)
		return 0;
	size_t cap = b->len + need;
	cap = cap < 2 * b->cap ? 2 * b->cap : cap;
	uint8_t *data = realloc(b->data, cap);
	if (!data)
		return -1;
	b->data = data;
	b->cap = cap;
	return 0;
}

/* Run deflate on what z holds with `flush`, growing b's buffer while
 * deflate fills it (a full buffer is the only reason it stops early). */
static int pump(z_stream *z, pngw_band *b, int flush)
{
	do {
		if (reserve(b, 1))
			return Z_MEM_ERROR;
		size_t room = b->cap - b->len;
		z->next_out = b->data + b->len;
		z->avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
		int zr = deflate(z, flush);
		b->len = (size_t)(z->next_out - b->data);
		if (zr == Z_STREAM_ERROR)
			return zr;
	} while (!z->avail_out);
	return Z_OK;
}

/* Bytes of scanlines, counted in the band's checksum and compressed. */
static int feed(z_stream *z, pngw_band *b, const uint8_t *data, size_t n)
{
	b->adler = (uint32_t)adler32(b->adler, data, (uInt)n);
	z->next_in = (Bytef *)data;
	z->avail_in = (uInt)n;
	return pump(z, b, Z_NO_FLUSH);
}

/* One scanline: a row equal to the one above it is sent as filter Up, all
 * zeros (a projection repeats each row `scale` times: level 1 seldom
 * finds a match 3 * width bytes back, and zeros cost next to nothing);
 * any other row as filter None, the row itself. */
static int scanline(z_stream *z, pngw_band *b, const uint8_t *row, const uint8_t *above,
		    size_t bytes)
{
	static const uint8_t zeros[4096];
	bool up = above && (above == row || memcmp(above, row, bytes) == 0);
	const uint8_t filter = up ? 2 : 0;
	int zr = feed(z, b, &filter, 1);
	if (!up)
		return zr ? zr : feed(z, b, row, bytes);
	for (size_t at = 0; at < bytes && !zr; at += sizeof zeros)
		zr = feed(z, b, zeros, bytes - at < sizeof zeros ? bytes - at : sizeof zeros);
	return zr;
}

static int deflate_rows(z_stream *z, pngw_band *b, uint32_t width, const uint8_t *rows,
			uint32_t n, size_t stride)
{
	int zr = reserve(b, deflateBound(z, b->raw) + 16) ? Z_MEM_ERROR : Z_OK;
	for (uint32_t i = 0; i < n && !zr; i++)
		zr = scanline(z, b, rows + i * stride, i ? rows + (i - 1) * stride : NULL,
			      3 * (size_t)width);
	/* A sync flush ends a band on a byte boundary with no final block,
	 * so the next band's bytes simply follow it. */
	return zr ? zr : pump(z, b, b->last ? Z_FINISH : Z_SYNC_FLUSH);
}

int pngw_encode(uint32_t width, const uint8_t *rows, uint32_t n, size_t stride,
		bool last, pngw_band *b, l3d_err *err)
{
	b->len = 0;
	b->raw = (uint64_t)n * (1 + 3 * (uint64_t)width);
	b->adler = (uint32_t)adler32(0, NULL, 0);
	b->last = last;
	z_stream z = {0};
	int zr = deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	if (zr == Z_OK) {
		zr = deflate_rows(&z, b, width, rows, n, stride);
		deflateEnd(&z);
	}
	if (zr == Z_MEM_ERROR)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory compressing a picture");
	if (zr != Z_OK)
		return l3d_fail(err, L3D_ERR_RUNTIME, "zlib error %d compressing a picture", zr);
	return L3D_OK;
}

/* ---- the stream, in order ---- */

/* One IDAT chunk: `head` (n_head bytes) then `data` (n bytes). */
static void idat(pngw *w, const uint8_t *head, size_t n_head, const uint8_t *data,
		 size_t n)
{
	png_write_chunk_start(w->png, (png_const_bytep)"IDAT", (png_uint_32)(n_head + n));
	png_write_chunk_data(w->png, head, n_head);
	png_write_chunk_data(w->png, data, n);
	png_write_chunk_end(w->png);
}

int pngw_put(pngw *w, const pngw_band *b, l3d_err *err)
{
	if (w->ended || b->raw > w->raw - w->put)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: more rows than the picture has",
				w->name);
	if (setjmp(png_jmpbuf(w->png)))
		return failed(w, err);
	/* The zlib header: deflate with a 32 KiB window, the fastest level. */
	static const uint8_t zlib_header[2] = {0x78, 0x01};
	size_t head = w->put ? 0 : sizeof zlib_header, at = 0;
	do {
		size_t n = b->len - at < IDAT_MAX ? b->len - at : IDAT_MAX;
		idat(w, zlib_header, head, b->data + at, n);
		at += n;
		head = 0;
	} while (at < b->len);
	w->adler = (uint32_t)adler32_combine(w->adler, b->adler, (z_off_t)b->raw);
	w->put += b->raw;
	w->ended = b->last;
	return L3D_OK;
}

int pngw_finish(pngw *w, l3d_err *err)
{
	if (w->put != w->raw || !w->ended)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: the picture is not complete",
				w->name);
	if (setjmp(png_jmpbuf(w->png)))
		return failed(w, err);
	uint8_t sum[4] = {(uint8_t)(w->adler >> 24), (uint8_t)(w->adler >> 16),
			  (uint8_t)(w->adler >> 8), (uint8_t)w->adler};
	idat(w, sum, sizeof sum, NULL, 0);
	png_write_chunk(w->png, (png_const_bytep)"IEND", NULL, 0);
	if (fflush(w->out) != 0 || ferror(w->out))
		return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", w->name,
				strerror(errno));
	return L3D_OK;
}

void pngw_free(pngw *w)
{
	if (!w)
		return;
	png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
	free(w);
}

void pngw_band_free(pngw_band *b)
{
	free(b->data);
	*b = (pngw_band){0};
}
