/* format.c - format names, detection, dispatch.
 *
 * Input may be a pipe, so nothing here seeks: detection looks at the first
 * bytes through the reader's look-ahead buffer, and the chosen format's
 * reader then consumes them as if they had never been peeked at. */
#include "format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export.h"
#include "hpcgame.h"
#include "native.h"
#include "rle3.h"

static const struct {
	fmt_id id;
	const char *name;
	bool binary, readable;
} format_table[] = {
	{ FMT_HPCGAME, "hpcgame", true, true },
	{ FMT_NATIVE, "l3d", true, true },
	{ FMT_RLE3, "rle3", false, true },
	{ FMT_VTK, "vtk", true, false },
	{ FMT_NPY, "npy", true, false },
};
#define FORMAT_COUNT (sizeof format_table / sizeof format_table[0])

static const struct {
	const char *ext;
	fmt_id id;
} extension_table[] = {
	{ "bin", FMT_HPCGAME }, { "hpc", FMT_HPCGAME }, { "dat", FMT_HPCGAME },
	{ "l3d", FMT_NATIVE },  { "rle3", FMT_RLE3 },   { "vtk", FMT_VTK },
	{ "npy", FMT_NPY },
};

fmt_id format_from_name(const char *name)
{
	if (!name)
		return FMT_NONE;
	if (strcasecmp(name, "native") == 0)
		return FMT_NATIVE;
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (strcasecmp(name, format_table[i].name) == 0)
			return format_table[i].id;
	return FMT_NONE;
}

const char *format_extension(const char *path)
{
	if (!path)
		return NULL;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return !dot || dot == base || !dot[1] ? NULL : dot + 1;
}

fmt_id format_from_path(const char *path)
{
	const char *ext = format_extension(path);
	if (!ext)
		return FMT_NONE;
	for (size_t i = 0; i < sizeof extension_table / sizeof extension_table[0]; i++)
		if (strcasecmp(ext, extension_table[i].ext) == 0)
			return extension_table[i].id;
	return FMT_NONE;
}

const char *format_extensions(void)
{
	return "hpcgame: .bin .hpc .dat, l3d: .l3d, rle3: .rle3, vtk: .vtk, npy: .npy";
}

/* Golly's 3D.lua: a cube of this many cells a side at least and at most. */
#define GOLLY_MIN_SIZE 3
#define GOLLY_MAX_SIZE 100

static void add_caveat(char *buf, size_t size, const char *text)
{
	size_t n = strlen(buf);
	snprintf(buf + n, size - n, "%s%s", n ? "; " : "", text);
}

static void golly_caveats(uint64_t nx, uint64_t ny, uint64_t nz, const rule *r,
			  char *buf, size_t size)
{
	char text[160];
	if (nx > GOLLY_MAX_SIZE || ny > GOLLY_MAX_SIZE || nz > GOLLY_MAX_SIZE) {
		snprintf(text, sizeof text, "Golly opens no universe over %d cells a side",
			 GOLLY_MAX_SIZE);
		add_caveat(buf, size, text);
	}
	if (nx < GOLLY_MIN_SIZE || ny < GOLLY_MIN_SIZE || nz < GOLLY_MIN_SIZE) {
		snprintf(text, sizeof text, "Golly opens no universe under %d cells a side",
			 GOLLY_MIN_SIZE);
		add_caveat(buf, size, text);
	}
	if (nx != ny || ny != nz) {
		snprintf(text, sizeof text, "Golly ignores box=%llu,%llu,%llu and runs the "
			 "pattern in a cube", (unsigned long long)nx,
			 (unsigned long long)ny, (unsigned long long)nz);
		add_caveat(buf, size, text);
	}
	if (r->birth & 1)
		add_caveat(buf, size, "Golly refuses a rule with birth on 0");
}

bool format_caveats(fmt_id f, uint64_t nx, uint64_t ny, uint64_t nz,
		    const rule *r, char *buf, size_t size)
{
	buf[0] = '\0';
	if (f == FMT_RLE3) {
		golly_caveats(nx, ny, nz, r, buf, size);
	} else if (f != FMT_NATIVE && !rule_equal(r, &rule_default)) {
		char text[128];
		rule_format(r, text, sizeof text);
		snprintf(buf, size, "the %s format stores no rule: the rule %s is not "
			 "kept (a run from this file uses %s); write .l3d or .rle3 "
			 "to keep it", format_name(f), text, RULE_DEFAULT_TEXT);
	}
	return buf[0] != '\0';
}

static int format_index(fmt_id f)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (format_table[i].id == f)
			return (int)i;
	return -1;
}

const char *format_name(fmt_id f)
{
	int i = format_index(f);
	return i < 0 ? "unknown" : format_table[i].name;
}

bool format_is_binary(fmt_id f)
{
	int i = format_index(f);
	return i >= 0 && format_table[i].binary;
}

bool format_can_read(fmt_id f)
{
	int i = format_index(f);
	return i >= 0 && format_table[i].readable;
}

/* ---- detection ---- */

static const unsigned char native_magic[8] = { 0x89, 'L', '3', 'D', '\r', '\n', 0x1a, '\n' };

static bool looks_native(const unsigned char *p, size_t n)
{
	/* A prefix of the magic counts, so a cut-off header is reported by
	 * the native reader as truncated rather than as an unknown format. */
	return memcmp(p, native_magic, n < 8 ? n : 8) == 0;
}

static bool looks_rle3(const unsigned char *p, size_t n)
{
	/* Golly only asks for "3D" at the start; the blank after it keeps an
	 * HPCGame edge length whose low bytes happen to be "3D" out. */
	return n >= 2 && p[0] == '3' && p[1] == 'D' &&
	       (n == 2 || p[2] == ' ' || p[2] == '\t' || p[2] == '\r' ||
		p[2] == '\n');
}

static bool looks_hpcgame(const unsigned char *p, size_t n)
{
	/* No size to compare with on a pipe: any edge below 2^32 passes here,
	 * and the reader checks the rest (limits, length, bytes 0/1). */
	return n >= 8 && le_get64(p) < ((uint64_t)1 << 32);
}

/* Compressed data, by its magic, so that it is named rather than taken
 * for an HPCGame file (gzip -n's first 8 bytes read as an edge below
 * 2^32) or called unknown.  No universe of an edge that short of 2^24
 * fits in memory, so an HPCGame file never begins like these. */
typedef struct packer {
	const char *name, *cat, *magic;
	size_t len;
} packer;

static const packer *compressed_as(const unsigned char *p, size_t n)
{
	static const packer kinds[] = {
		{"gzip", "zcat", "\x1f\x8b\x08", 3},
		{"zstd", "zstdcat", "\x28\xb5\x2f\xfd", 4},
		{"xz", "xzcat", "\xfd" "7zXZ\x00", 6},
		{"bzip2", "bzcat", "BZh", 3},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (n >= kinds[i].len && memcmp(p, kinds[i].magic, kinds[i].len) == 0)
			return &kinds[i];
	return NULL;
}

int format_detect(reader *r, fmt_id *out, l3d_err *err)
{
	const unsigned char *p;
	errno = 0;
	size_t n = reader_peek(r, &p);
	*out = FMT_NONE;
	if (ferror(r->f))
		return reader_error(r, err);
	if (n == 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: empty file", r->name);
	const packer *z = compressed_as(p, n);
	if (z)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: %s-compressed data: life3d reads universes uncompressed "
				"(%s FILE | life3d ...)", r->name, z->name, z->cat);
	if (looks_native(p, n))
		*out = FMT_NATIVE;
	else if (looks_rle3(p, n))
		*out = FMT_RLE3;
	else if (looks_hpcgame(p, n))
		*out = FMT_HPCGAME;
	else if (n >= 6 && memcmp(p, "\x93NUMPY", 6) == 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: NumPy files can be written but not read", r->name);
	else if (n >= 5 && memcmp(p, "# vtk", 5) == 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: VTK files can be written but not read", r->name);
	else
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: not a life3d universe (unknown format)", r->name);
	return L3D_OK;
}

/* RLE3 text is read at once: it is small next to the universe it
 * describes, and its reader fills the grid out of row order. */
static int rle3_read_start(reader *r, grid *g, universe_meta *meta,
			   format_stream **out, l3d_err *err)
{
	int rc = rle3_read(r, g, meta, err);
	return rc ? rc : format_stream_start(r, g, NULL, NULL, 0, NULL, out, err);
}

int format_read_start(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		      format_stream **out, l3d_err *err)
{
	fmt_id f;
	*out = NULL;
	memset(g, 0, sizeof *g);
	memset(meta, 0, sizeof *meta);
	int rc = format_detect(r, &f, err);
	if (detected)
		*detected = f;
	if (rc)
		return rc;
	switch (f) {
	case FMT_HPCGAME: return hpcgame_read_start(r, g, meta, out, err);
	case FMT_NATIVE: return native_read_start(r, g, meta, out, err);
	default: return rle3_read_start(r, g, meta, out, err);
	}
}

int format_read(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		l3d_err *err)
{
	format_stream *s;
	int rc = format_read_start(r, g, meta, detected, &s, err);
	return rc ? rc : format_read_finish(s, NULL, err);
}

int format_write(FILE *out, const char *name, fmt_id f, const grid *g,
		 const rule *r, l3d_err *err)
{
	if (f == FMT_RLE3)
		return rle3_write(out, name, g, r, err);
	row_source src;
	row_source_of_grid(&src, g);
	return format_write_rows(out, name, f, &src, r, err);
}

int format_write_rows(FILE *out, const char *name, fmt_id f,
		      const row_source *src, const rule *r, l3d_err *err)
{
	switch (f) {
	case FMT_HPCGAME: return hpcgame_write(out, name, src, err);
	case FMT_NATIVE: return native_write(out, name, src, r, err);
	case FMT_VTK: return vtk_write(out, name, src, err);
	case FMT_NPY: return npy_write(out, name, src, err);
	case FMT_RLE3:
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: RLE3 is written from a whole universe in memory",
				name);
	default:
		return l3d_fail(err, L3D_ERR_USAGE, "%s: no output format given",
				name);
	}
}
