/* fuzz_detect.c - format detection and dispatch (format_read).
 *
 * Whatever format_read decides, the chosen reader alone must decide the
 * same on the same bytes: detection only peeks, it never consumes.  The
 * same input then comes through a stream that fails half way, for the
 * read-error paths of the detector and of every reader. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

const char fuzz_target[] = "detect";

static int read_detected(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	return format_read(r, g, meta, NULL, err);
}

static fuzz_reader_fn reader_of(fmt_id f)
{
	switch (f) {
	case FMT_HPCGAME: return hpcgame_read;
	case FMT_NATIVE: return native_read;
	case FMT_RLE3: return rle3_read;
	case FMT_RLE: return rle2_read;
	case FMT_NPY: return npy_read;
	default: return NULL;
	}
}

/* Names and extensions: the same bytes as a format name and a path. */
static void check_names(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	fmt_id by_name = format_from_name(text);
	fuzz_require(by_name == FMT_NONE ||
		     format_from_name(format_name(by_name)) == by_name,
		     "format_name does not name its format");
	format_from_path(text);
	free(text);
}

static fmt_id detect(const uint8_t *data, size_t size, int *rc)
{
	FILE *f = fmemopen((void *)data, size, "r");
	fuzz_require(f != NULL, "fmemopen failed");
	reader r;
	reader_init(&r, f, "input");
	fmt_id detected;
	l3d_err err;
	*rc = format_detect(&r, &detected, &err);
	fclose(f);
	return detected;
}

/* The chosen reader alone decides as format_read did. */
static void check_dispatch(const uint8_t *data, size_t size, fmt_id f, int rc,
			   const grid *g, const universe_meta *meta)
{
	fuzz_require(format_can_read(f), "detected a format it cannot read");
	grid alone;
	universe_meta alone_meta;
	l3d_err err;
	int alone_rc = fuzz_read(reader_of(f), data, size, &alone, &alone_meta, &err);
	fuzz_require(rc == alone_rc, "format_read and the format's reader disagree");
	if (rc != L3D_OK)
		return;
	fuzz_require(grid_equal(g, &alone) && g->generation == alone.generation,
		     "format_read and the format's reader read different universes");
	fuzz_require(meta->has_rule == alone_meta.has_rule &&
		     (!meta->has_rule || rule_equal(&meta->rule, &alone_meta.rule)),
		     "format_read and the format's reader read different rules");
	grid_free(&alone);
}

/* A read error half way is reported as one, or the rest was not needed:
 * it never yields a universe that the whole input does not. */
static void check_read_error(const uint8_t *data, size_t size, int rc,
			     const grid *g)
{
	grid cut;
	universe_meta meta;
	l3d_err err;
	if (fuzz_read_failing(read_detected, data, size, size / 2, &cut, &meta,
			      &err) != L3D_OK)
		return;
	fuzz_require(rc == L3D_OK && grid_equal(g, &cut) &&
		     g->generation == cut.generation,
		     "a read error gave a universe the whole input does not");
	grid_free(&cut);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_names(data, size);
	int detect_rc;
	fmt_id f = detect(data, size, &detect_rc);
	grid g;
	universe_meta meta;
	l3d_err err;
	int rc = fuzz_read(read_detected, data, size, &g, &meta, &err);
	if (detect_rc != L3D_OK)
		fuzz_require(rc == detect_rc, "format_read and format_detect disagree");
	else
		check_dispatch(data, size, f, rc, &g, &meta);
	check_read_error(data, size, rc, &g);
	grid_free(&g);
	return 0;
}
