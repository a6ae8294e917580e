/* format.h - universe file formats: names, detection and dispatch.
 *
 * Each format lives in its own file (hpcgame.c, native.c, rle3.c,
 * rle2.c, npy.c, export.c, vtkxml.c) on top of the shared reader and writer helpers (io.h) and
 * payload streams (stream.h), and has one row in format.c's table: its
 * names, extensions, detection, reader and writer, what it keeps.  The
 * rest of the program reaches them through the functions below, and every
 * list of formats it shows (--help, --format's words, messages) is made
 * from that table.  Readers take a `reader`, which may wrap a pipe: they
 * never seek.  Input formats are recognised by content, never by the
 * file name. */
#ifndef LIFE3D_FORMAT_H
#define LIFE3D_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/grid.h"
#include "base/outfile.h"
#include "base/rule.h"
#include "fixed.h"
#include "io.h"
#include "stream.h"

typedef enum fmt_id {
	FMT_NONE = 0,
	FMT_HPCGAME,     /* HPCGame 2024 binary: u64 M, u64 T, M^3 bytes 0/1 */
	FMT_NATIVE,      /* life3d packed .l3d: header, 1 bit/cell, CRC-32 */
	FMT_RLE3,        /* Golly RLE3 text (.rle3) */
	FMT_RLE,         /* Golly 2D RLE (.rle), into a plane (read only) */
	FMT_VTK,         /* VTK legacy STRUCTURED_POINTS (write only) */
	FMT_NPY,         /* NumPy .npy: a byte a cell, C order */
	FMT_VTI,         /* VTK XML image data, zlib (write only) */
	FMT_VTP          /* VTK XML poly data: live cells as points (write only) */
} fmt_id;

/* Where and how a universe is written (run/universe.h, mpi/slab_io.h): to
 * `path` atomically (base/outfile.h), replacing what `may` allows there,
 * in `format`, recording `rule`, `generation` and, where the format keeps
 * them, the comment lines `comments` (universe_meta's; NULL: none), and in
 * a .l3d file `stamp` when it is not NULL (a checkpoint). */
typedef struct universe_dest {
	const char *path;
	outfile_may may;
	fmt_id format;
	const rule *rule;
	uint64_t generation;
	const run_stamp *stamp;
	bool *kept;        /* when not NULL: set when the write failed but
			      the file is kept under the name the message
			      gives (outfile.kept) */
	const char *comments;
	const out_view *view;  /* the part written and how (NULL: every cell) */
} universe_dest;

/* "hpcgame", "l3d" (also "native"), "rle3", "vtk", "npy", "vti", "vtp", in any case;
 * FMT_NONE if unknown. */
fmt_id format_from_name(const char *name);
/* The word of the table that `word` spells in any case ("native" for
 * "NATIVE"), among those format_choices() lists; NULL if none. */
const char *format_word(const char *word);
/* By extension, in any case: .bin/.hpc/.dat -> hpcgame, .l3d, .rle3,
 * .rle (2D, read only), .vtk, .npy, .vti, .vtp. */
fmt_id format_from_path(const char *path);
/* The extension of path's last component ("gz" for "a/out.npy.gz"), or
 * NULL when it has none ("out", ".hidden", "/dev/null"). */
const char *format_extension(const char *path);
const char *format_name(fmt_id f);
bool format_is_binary(fmt_id f);
bool format_can_read(fmt_id f);
bool format_can_write(fmt_id f);
/* A file of format f keeps the universe's comment lines (RLE3, .l3d). */
bool format_keeps_comments(fmt_id f);
/* The format a universe read in f is written in when nothing names one:
 * f itself, or for a format read only (2D RLE) its 3D kin (RLE3). */
fmt_id format_output_of(fmt_id f);

/* Lists made from the table, in its order, into buf (returned):
 *   format_choices     "hpcgame|l3d|native|rle3|vtk|npy|vti|vtp": every word
 *                      --format takes, aliases after their format's name
 *   format_writes      "hpcgame, l3d, rle3, vtk, npy, vti, vtp": the output formats
 *   format_reads       "HPCGame binary, life3d .l3d, Golly RLE3, Golly 2D
 *                      RLE": those recognised in input, by their titles
 *   format_extensions  "hpcgame: .bin .hpc .dat, l3d: .l3d, ...": the
 *                      output formats' extensions, for messages
 *   format_fixed_kinds "HPCGame and .l3d": the formats at fixed offsets
 *                      (fixed.h) */
const char *format_choices(char *buf, size_t size);
const char *format_writes(char *buf, size_t size);
const char *format_reads(char *buf, size_t size);
const char *format_extensions(char *buf, size_t size);
const char *format_fixed_kinds(char *buf, size_t size);

/* The header and row codec of a format whose cells lie at fixed offsets
 * (HPCGame, .l3d: fixed.h); NULL for the others. */
const format_fixed *format_fixed_of(fmt_id f);

/* What a file of format f written from an nx*ny*nz universe with rule r
 * loses, or what Golly would make of it (a format without a rule when r is
 * not B6/S567; for RLE3, what Golly refuses or runs otherwise: a side over
 * 100, a box that is not a cube, birth on 0).  Fills buf with one line
 * and returns true when there is something to say. */
bool format_caveats(fmt_id f, uint64_t nx, uint64_t ny, uint64_t nz,
		    const rule *r, char *buf, size_t size);

/* Detect the format from the first bytes.  L3D_ERR_DATA if none matches
 * ("(stdin): not a life3d universe (unknown format)"). */
int format_detect(reader *r, fmt_id *out, l3d_err *err);

/* Detect and read.  On success *g is allocated and holds the universe and
 * its generation.  Any error leaves *g empty. */
int format_read(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		l3d_err *err);

/* format_read in two halves, so the universe can be used while its cells
 * are still coming (an engine copies the rows read so far to the GPU).
 * format_read_start() detects the format, reads the header and allocates
 * *g with its sizes and generation (and fills *meta); the cells are then
 * read on a thread of its own, and format_read_progress() announces their
 * rows as they are done.  Errors up to there (detection, header, memory)
 * come from format_read_start(), with no stream.  format_read_finish()
 * waits for the end and returns what format_read() would have; on failure
 * *g is freed, so call it once nothing waits on the progress any more.  r
 * and its FILE must stay open until then. */
int format_read_start(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		      format_stream **out, l3d_err *err);

/* Write in format f, with the comment lines `comments` (universe_meta's;
 * NULL: none) where f keeps them (format_keeps_comments).  `name` names
 * the destination for messages.  Write errors (short write, ENOSPC, EIO)
 * give L3D_ERR_IO; a universe the format cannot hold (HPCGame needs a
 * cube) gives L3D_ERR_USAGE. */
int format_write(FILE *out, const char *name, fmt_id f, const grid *g,
		 const rule *r, const char *comments, l3d_err *err);

/* format_write from a row source (its comments: src->comments): every
 * format but RLE3, which needs the whole universe at once
 * (L3D_ERR_USAGE). */
int format_write_rows(FILE *out, const char *name, fmt_id f,
		      const row_source *src, const rule *r, l3d_err *err);

/* The formats that hold counts of cells (--coarsen): .vti and .npy. */
bool format_can_coarsen(fmt_id f);

/* Whether a universe of `size` can be written in f as v says (NULL: all
 * of it): a box inside the universe, counts only where f holds them, an
 * HPCGame file only of a cube (L3D_ERR_USAGE, naming what is wrong). */
int format_view_check(fmt_id f, const out_view *v, const uint64_t size[3],
		      l3d_err *err);

/* The host memory a writer of format f holds, beyond the rows it streams,
 * for v's part of a universe of `size` (NULL: all of it): a .vti's
 * compressed arrays, --coarsen's counts, a box made whole for RLE3. */
uint64_t format_view_bytes(fmt_id f, const out_view *v, const uint64_t size[3]);

/* Write v's part and kind of src's universe (NULL: every cell) in format
 * f, any format: one that needs the universe whole (RLE3) gets it in
 * memory (src->whole, when the rows are a grid's, else a copy).  A VTK XML
 * file places a box at its place in the universe; the other formats
 * write it as a universe of its own. */
int format_write_view(FILE *out, const char *name, fmt_id f, const row_source *src,
		      const rule *r, const out_view *view, l3d_err *err);

#endif
