/* format.c - the table of formats: names, detection, dispatch.
 *
 * A format is its file (hpcgame.c, native.c, rle3.c, rle2.c, npy.c, export.c) and its row
 * here; everything else that names or lists formats asks this table.
 * Input may be a pipe, so nothing here seeks: detection looks at the first
 * bytes through the reader's look-ahead buffer, and the chosen format's
 * reader then consumes them as if they had never been peeked at. */
#include "format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "export.h"
#include "hpcgame.h"
#include "native.h"
#include "npy.h"
#include "rle2.h"
#include "rle3.h"
#include "view.h"
#include "vtkxml.h"

typedef int (*read_fn)(reader *r, grid *g, universe_meta *meta,
		       format_stream **out, l3d_err *err);
typedef int (*write_grid_fn)(FILE *out, const char *name, const grid *g,
			     const rule *r, const char *comments, l3d_err *err);
typedef int (*write_rows_fn)(FILE *out, const char *name, const row_source *src,
			     const rule *r, l3d_err *err);
typedef void (*caveats_fn)(uint64_t nx, uint64_t ny, uint64_t nz, const rule *r,
			   char *buf, size_t size);

typedef struct format_desc {
	fmt_id id;
	const char *name;          /* --format's word, format_name() */
	const char *alias;         /* one more word --format takes, or NULL */
	const char *exts[4];       /* file name extensions, NULL-ended */
	const char *title;         /* --help's name of a format read */
	const char *kind;          /* in messages: "NumPy files can be ..." */
	bool binary;               /* no writing it to a terminal */
	bool keeps_rule;
	bool keeps_comments;
	/* Detection by the first bytes; `magic`: by a magic of its own, so
	 * tried before the formats that have none (HPCGame's edge). */
	bool (*looks)(const unsigned char *p, size_t n);
	bool magic;
	read_fn read;              /* NULL: written only */
	write_grid_fn write_grid;  /* from a whole universe in memory (RLE3) */
	write_rows_fn write_rows;  /* from a row source */
	caveats_fn caveats;        /* what another program makes of a file */
	const format_fixed *fixed; /* cells at fixed offsets (fixed.h) */
	bool coarsens;             /* can hold counts (--coarsen) */
	fmt_id written_as;         /* a format read only: the one its universe
				      is written in when no other is named */
} format_desc;

static const format_desc formats[] = {
	{.id = FMT_HPCGAME, .name = "hpcgame", .exts = {"bin", "hpc", "dat"},
	 .title = "HPCGame binary", .kind = "HPCGame", .binary = true,
	 .looks = hpcgame_looks, .read = hpcgame_read_start,
	 .write_rows = hpcgame_write, .fixed = &hpcgame_fixed},
	{.id = FMT_NATIVE, .name = "l3d", .alias = "native", .exts = {"l3d"},
	 .title = "life3d .l3d", .kind = ".l3d", .binary = true, .keeps_rule = true,
	 .keeps_comments = true,
	 .looks = native_looks, .magic = true, .read = native_read_start,
	 .write_rows = native_write, .fixed = &native_fixed},
	{.id = FMT_RLE3, .name = "rle3", .exts = {"rle3"}, .title = "Golly RLE3",
	 .kind = "RLE3", .keeps_rule = true, .keeps_comments = true,
	 .looks = rle3_looks, .magic = true,
	 .read = rle3_read_start, .write_grid = rle3_write, .caveats = rle3_caveats},
	{.id = FMT_RLE, .name = "rle", .exts = {"rle"}, .title = "Golly 2D RLE",
	 .kind = "2D RLE", .looks = rle2_looks, .magic = true, .read = rle2_read_start,
	 .written_as = FMT_RLE3},
	{.id = FMT_VTK, .name = "vtk", .exts = {"vtk"}, .title = "VTK legacy",
	 .kind = "VTK", .binary = true, .looks = vtk_looks, .magic = true,
	 .write_rows = vtk_write},
	{.id = FMT_NPY, .name = "npy", .exts = {"npy"}, .title = "NumPy .npy",
	 .kind = "NumPy", .binary = true, .looks = npy_looks, .magic = true,
	 .read = npy_read_start, .write_rows = npy_write, .coarsens = true},
	{.id = FMT_VTI, .name = "vti", .exts = {"vti"}, .title = "VTK XML image",
	 .kind = "VTK XML image", .binary = true, .keeps_rule = true,
	 .looks = vti_looks, .magic = true, .write_rows = vti_write, .coarsens = true},
	{.id = FMT_VTP, .name = "vtp", .exts = {"vtp"}, .title = "VTK XML points",
	 .kind = "VTK XML points", .binary = true, .keeps_rule = true,
	 .looks = vtp_looks, .magic = true, .write_rows = vtp_write},
};
#define FORMAT_COUNT (sizeof formats / sizeof formats[0])

static const format_desc *desc_of(fmt_id f)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (formats[i].id == f)
			return &formats[i];
	return NULL;
}

static bool writable(const format_desc *d)
{
	return d->write_grid || d->write_rows;
}

/* ---- names ---- */

/* d's own spelling of `word` (its name or alias, in any case), or NULL. */
static const char *word_of(const format_desc *d, const char *word)
{
	if (strcasecmp(word, d->name) == 0)
		return d->name;
	return d->alias && strcasecmp(word, d->alias) == 0 ? d->alias : NULL;
}

fmt_id format_from_name(const char *name)
{
	for (size_t i = 0; name && i < FORMAT_COUNT; i++)
		if (word_of(&formats[i], name))
			return formats[i].id;
	return FMT_NONE;
}

const char *format_word(const char *word)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (writable(&formats[i]) && word_of(&formats[i], word))
			return word_of(&formats[i], word);
	return NULL;
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
	for (size_t i = 0; ext && i < FORMAT_COUNT; i++)
		for (const char *const *e = formats[i].exts; *e; e++)
			if (strcasecmp(ext, *e) == 0)
				return formats[i].id;
	return FMT_NONE;
}

const char *format_name(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d ? d->name : "unknown";
}

bool format_is_binary(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d && d->binary;
}

bool format_can_read(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d && d->read;
}

bool format_can_write(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d && writable(d);
}

bool format_keeps_comments(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d && d->keeps_comments;
}

fmt_id format_output_of(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d && !writable(d) && d->written_as ? d->written_as : f;
}

const format_fixed *format_fixed_of(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d ? d->fixed : NULL;
}

/* ---- lists ---- */

/* Text appended to buf (of size bytes, cut short where it is full):
 * `sep` first unless buf is empty. */
static void add(char *buf, size_t size, const char *sep, const char *text)
{
	size_t n = strlen(buf);
	if (n < size)
		snprintf(buf + n, size - n, "%s%s", n ? sep : "", text);
}

const char *format_choices(char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (writable(&formats[i])) {
			add(buf, size, "|", formats[i].name);
			if (formats[i].alias)
				add(buf, size, "|", formats[i].alias);
		}
	return buf;
}

const char *format_writes(char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (writable(&formats[i]))
			add(buf, size, ", ", formats[i].name);
	return buf;
}

const char *format_reads(char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (formats[i].read)
			add(buf, size, ", ", formats[i].title);
	return buf;
}

const char *format_extensions(char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < FORMAT_COUNT; i++) {
		if (!writable(&formats[i]))
			continue;
		add(buf, size, ", ", formats[i].name);
		add(buf, size, "", ":");
		for (const char *const *e = formats[i].exts; *e; e++) {
			add(buf, size, "", " .");
			add(buf, size, "", *e);
		}
	}
	return buf;
}

const char *format_fixed_kinds(char *buf, size_t size)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		n += formats[i].fixed != NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < FORMAT_COUNT; i++) {
		if (!formats[i].fixed)
			continue;
		k++;
		add(buf, size, k == n ? " and " : ", ", formats[i].kind);
	}
	return buf;
}

/* ---- what a file loses ---- */

bool format_caveats(fmt_id f, uint64_t nx, uint64_t ny, uint64_t nz,
		    const rule *r, char *buf, size_t size)
{
	const format_desc *d = desc_of(f);
	buf[0] = '\0';
	if (d && d->caveats)
		d->caveats(nx, ny, nz, r, buf, size);
	if ((!d || !d->keeps_rule) && !rule_equal(r, &rule_default)) {
		char text[128];
		rule_format(r, text, sizeof text);
		snprintf(buf, size, "the %s format stores no rule: the rule %s is not "
			 "kept (a run from this file uses %s); write .l3d or .rle3 "
			 "to keep it", format_name(f), text, RULE_DEFAULT_TEXT);
	}
	return buf[0] != '\0';
}

/* ---- detection ---- */

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

/* The format the first n bytes begin: those with a magic first. */
static const format_desc *looks_like(const unsigned char *p, size_t n)
{
	for (int magic = 1; magic >= 0; magic--)
		for (size_t i = 0; i < FORMAT_COUNT; i++)
			if (formats[i].magic == magic && formats[i].looks(p, n))
				return &formats[i];
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
	const format_desc *d = looks_like(p, n);
	if (!d)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: not a life3d universe (unknown format)", r->name);
	if (!d->read)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: %s files can be written but not read", r->name,
				d->kind);
	*out = d->id;
	return L3D_OK;
}

/* ---- reading and writing ---- */

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
	return rc ? rc : desc_of(f)->read(r, g, meta, out, err);
}

int format_read(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		l3d_err *err)
{
	format_stream *s;
	int rc = format_read_start(r, g, meta, detected, &s, err);
	return rc ? rc : format_read_finish(s, NULL, err);
}

int format_write(FILE *out, const char *name, fmt_id f, const grid *g,
		 const rule *r, const char *comments, l3d_err *err)
{
	const format_desc *d = desc_of(f);
	if (d && d->write_grid)
		return d->write_grid(out, name, g, r, comments, err);
	row_source src;
	row_source_of_grid(&src, g);
	src.comments = comments;
	return format_write_rows(out, name, f, &src, r, err);
}

bool format_can_coarsen(fmt_id f)
{
	const format_desc *d = desc_of(f);
	return d && d->coarsens;
}

int format_view_check(fmt_id f, const out_view *v, const uint64_t size[3],
		      l3d_err *err)
{
	static const char axis[3] = {'x', 'y', 'z'};
	uint64_t n[3] = {size[0], size[1], size[2]};
	for (int a = 0; v && v->box && a < 3; a++) {
		if (v->lo[a] > v->hi[a] || v->hi[a] >= size[a])
			return l3d_fail(err, L3D_ERR_USAGE,
					"--box: %c %" PRIu64 "..%" PRIu64 " is not inside the "
					"%" PRIu64 "x%" PRIu64 "x%" PRIu64 " universe (%c 0..%"
					PRIu64 ")", axis[a], v->lo[a], v->hi[a], size[0],
					size[1], size[2], axis[a], size[a] - 1);
		n[a] = v->hi[a] - v->lo[a] + 1;
	}
	if (v && v->coarsen && !format_can_coarsen(f)) {
		char list[128] = "";
		for (size_t i = 0; i < FORMAT_COUNT; i++) {
			char ext[16];
			snprintf(ext, sizeof ext, ".%s", formats[i].exts[0]);
			if (formats[i].coarsens)
				add(list, sizeof list, " or ", ext);
		}
		return l3d_fail(err, L3D_ERR_USAGE,
				"--coarsen: the %s format holds cells, not counts of them "
				"(write %s)", format_name(f), list);
	}
	if (f == FMT_HPCGAME && (n[0] != n[1] || n[1] != n[2]))
		return l3d_fail(err, L3D_ERR_USAGE,
				"the HPCGame format holds only cubes; this %s is %" PRIu64
				"x%" PRIu64 "x%" PRIu64 " (choose another --format)",
				v && v->box ? "box" : "universe", n[0], n[1], n[2]);
	return L3D_OK;
}

uint64_t format_view_bytes(fmt_id f, const out_view *v, const uint64_t size[3])
{
	uint64_t n[3] = {size[0], size[1], size[2]};
	for (int a = 0; v && v->box && a < 3; a++)
		n[a] = v->hi[a] - v->lo[a] + 1;
	uint64_t cells = n[0] * n[1] * n[2];
	if (v && v->coarsen) {
		uint64_t counts = coarse_bytes(n, v->coarsen);
		return counts + (f == FMT_VTI ? vti_bytes(0) + counts : 0);
	}
	if (f == FMT_VTI)
		return vti_bytes(cells);
	if (v && v->box && desc_of(f) && desc_of(f)->write_grid) {
		grid g = {.nx = n[0], .ny = n[1], .nz = n[2], .words = (n[2] + 63) / 64};
		return grid_bytes(&g);
	}
	return 0;
}

/* A writer that needs the universe whole (RLE3) gets it, in memory. */
static int write_grid_of(FILE *out, const char *name, const format_desc *d,
			 const row_source *src, const rule *r, l3d_err *err)
{
	if (src->whole)
		return d->write_grid(out, name, src->whole, r, src->comments, err);
	grid g = {0};
	int rc = rows_to_grid(src, &g, err);
	rc = rc ? rc : d->write_grid(out, name, &g, r, src->comments, err);
	grid_free(&g);
	return rc;
}

int format_write_view(FILE *out, const char *name, fmt_id f, const row_source *src,
		      const rule *r, const out_view *view, l3d_err *err)
{
	const format_desc *d = desc_of(f);
	if (!d || !view || (!view->box && !view->coarsen))
		return d && d->write_grid ? write_grid_of(out, name, d, src, r, err)
					  : format_write_rows(out, name, f, src, r, err);
	uint64_t size[3] = {src->nx, src->ny, src->nz};
	int rc = format_view_check(f, view, size, err);
	row_source part = *src;
	crop_rows *crop = NULL;
	if (!rc && view->box)
		rc = crop_open(&part, &crop, src, view->lo, view->hi, err);
	part.coarsen = view->coarsen;
	if (!rc)
		rc = d->write_grid ? write_grid_of(out, name, d, &part, r, err)
				   : d->write_rows(out, name, &part, r, err);
	crop_free(crop);
	return rc;
}

int format_write_rows(FILE *out, const char *name, fmt_id f,
		      const row_source *src, const rule *r, l3d_err *err)
{
	const format_desc *d = desc_of(f);
	if (!d)
		return l3d_fail(err, L3D_ERR_USAGE, "%s: no output format given",
				name);
	if (!d->write_rows)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: %s is written from a whole universe in memory",
				name, d->kind);
	return d->write_rows(out, name, src, r, err);
}
