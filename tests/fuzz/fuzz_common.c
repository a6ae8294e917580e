/* fuzz_common.c - memory I/O and the checks every reader target shares. */
#include "fuzz.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A header can ask for a universe of gigabytes, which the readers may
 * rightly allocate when the machine has the memory.  Under AddressSanitizer
 * allocations above 32 MiB fail instead (the reader then reports "out of
 * memory", a path worth fuzzing too), so runs stay fast and a big request
 * is not mistaken for a crash (no lower: libFuzzer itself takes 20 MiB in
 * one piece).  Replay without ASan sets RLIMIT_AS instead. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=32";
}

void fuzz_require_at(int ok, const char *what, const char *file, int line)
{
	if (ok)
		return;
	fprintf(stderr, "%s:%d: fuzz_%s: %s\n", file, line, fuzz_target, what);
	abort();
}

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	fuzz_require(s != NULL, "out of memory copying the input");
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static bool padding_is_zero(const grid *g)
{
	uint64_t pad = ~grid_tail_mask(g);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			if (grid_row(g, x, y)[g->words - 1] & pad)
				return false;
	return true;
}

static bool grid_is_empty(const grid *g)
{
	return !g->bits && !g->nx && !g->ny && !g->nz && !g->words;
}

#define INPUT_NAME "input"

/* io_errors: the stream was made to fail, so L3D_ERR_IO is right too. */
static void check_failure(int rc, const grid *g, const l3d_err *err,
			  bool io_errors)
{
	fuzz_require(rc == L3D_ERR_DATA || rc == L3D_ERR_RUNTIME ||
		     (io_errors && rc == L3D_ERR_IO),
		     "a reader failed with an unexpected code");
	fuzz_require(err->code == rc, "l3d_err.code differs from the return code");
	fuzz_require(err->msg[0] != '\0', "a reader failed without a message");
	fuzz_require(strchr(err->msg, '\n') == NULL, "a message of several lines");
	/* Data and read errors name the input they come from. */
	fuzz_require(rc == L3D_ERR_RUNTIME ||
		     strncmp(err->msg, INPUT_NAME, strlen(INPUT_NAME)) == 0,
		     "an error that does not start with the input's name");
	fuzz_require(rc != L3D_ERR_IO || strstr(err->msg, "read error"),
		     "an I/O error that does not say so");
	fuzz_require(grid_is_empty(g), "a failed read left a grid behind");
}

static int read_stream(fuzz_reader_fn read, FILE *f, bool io_errors, grid *g,
		       universe_meta *meta, l3d_err *err)
{
	fuzz_require(f != NULL, "cannot open a memory stream");
	reader r;
	reader_init(&r, f, INPUT_NAME);
	memset(err, 0, sizeof *err);
	memset(meta, 0, sizeof *meta);
	int rc = read(&r, g, meta, err);
	fclose(f);
	if (rc != L3D_OK) {
		check_failure(rc, g, err, io_errors);
		return rc;
	}
	fuzz_require(g->bits != NULL && g->words == (g->nz + 63) / 64,
		     "a successful read left no grid or a wrong row length");
	fuzz_require(padding_is_zero(g), "padding bits above nz are set");
	fuzz_require(!meta->has_rule ||
		     !((meta->rule.birth | meta->rule.survive) & ~RULE_ALL_COUNTS),
		     "a rule with counts above 26");
	return rc;
}

int fuzz_read(fuzz_reader_fn read, const uint8_t *data, size_t size, grid *g,
	      universe_meta *meta, l3d_err *err)
{
	/* "r" never writes through the pointer. */
	FILE *f = fmemopen((void *)data, size, "r");
	return read_stream(read, f, false, g, meta, err);
}

/* A stream of the bytes that fails with EIO at offset fail_at. */
typedef struct failing {
	const uint8_t *data;
	size_t size, fail_at, pos;
} failing;

static ssize_t failing_read(void *cookie, char *buf, size_t n)
{
	failing *s = cookie;
	size_t end = s->size < s->fail_at ? s->size : s->fail_at;
	if (s->pos == end && end < s->size) {
		errno = EIO;
		return -1;
	}
	if (n > end - s->pos)
		n = end - s->pos;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

int fuzz_read_failing(fuzz_reader_fn read, const uint8_t *data, size_t size,
		      size_t fail_at, grid *g, universe_meta *meta, l3d_err *err)
{
	failing s = { data, size, fail_at, 0 };
	FILE *f = fopencookie(&s, "r", (cookie_io_functions_t){ .read = failing_read });
	return read_stream(read, f, true, g, meta, err);
}

void fuzz_write(fmt_id f, const grid *g, const universe_meta *meta,
		unsigned char **out, size_t *len)
{
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, len);
	fuzz_require(mem != NULL, "open_memstream failed");
	l3d_err err;
	const rule *r = meta && meta->has_rule ? &meta->rule : NULL;
	row_source src;
	row_source_of_grid(&src, g);
	src.stamp = meta && meta->stamp.run_id ? &meta->stamp : NULL;
	src.comments = meta ? meta->comments : NULL;
	int rc = f == FMT_RLE3 ? format_write(mem, "output", f, g, r, src.comments, &err)
			       : format_write_rows(mem, "output", f, &src, r, &err);
	fuzz_require(fclose(mem) == 0, "closing the memory stream failed");
	if (rc != L3D_OK)
		fprintf(stderr, "%s\n", err.msg);
	fuzz_require(rc == L3D_OK, "writing a universe just read failed");
	*out = (unsigned char *)buf;
}

void fuzz_rewrites_exactly(fmt_id f, const grid *g, const universe_meta *meta,
			   const uint8_t *data, size_t size)
{
	unsigned char *out;
	size_t len;
	fuzz_write(f, g, meta, &out, &len);
	fuzz_require(len == size && memcmp(out, data, size) == 0,
		     "the writer does not reproduce an accepted file");
	free(out);
}

void fuzz_roundtrip(fmt_id f, fuzz_reader_fn read, const grid *g,
		    const universe_meta *meta)
{
	if (grid_bytes(g) > FUZZ_ROUNDTRIP_BYTES)
		return;
	const rule *r = meta->has_rule ? &meta->rule : NULL;
	unsigned char *first;
	size_t first_len;
	fuzz_write(f, g, meta, &first, &first_len);
	grid back;
	universe_meta back_meta;
	l3d_err err;
	int rc = fuzz_read(read, first, first_len, &back, &back_meta, &err);
	if (rc != L3D_OK)
		fprintf(stderr, "%s\n", err.msg);
	fuzz_require(rc == L3D_OK, "cannot read back what the writer wrote");
	fuzz_require(grid_equal(g, &back), "read back a different universe");
	fuzz_require(g->generation == back.generation,
		     "read back a different generation");
	fuzz_require(!r || (back_meta.has_rule && rule_equal(r, &back_meta.rule)),
		     "read back a different rule");
	/* What was read back writes out the same bytes again. */
	fuzz_require(!format_keeps_comments(f) || !strcmp(meta->comments, back_meta.comments),
		     "read back different comments");
	fuzz_rewrites_exactly(f, &back, &back_meta, first, first_len);
	grid_free(&back);
	free(first);
}
