/* format.h - universe file formats: names, detection and dispatch.
 *
 * Each format lives in its own file (hpcgame.c, native.c, rle3.c,
 * export.c) on top of the shared reader and writer helpers (io.h) and
 * payload streams (stream.h); the rest of the program reaches them through
 * the functions below.  Readers take a `reader`, which may wrap a pipe:
 * they never seek.  Input formats are recognised by content, never by the
 * file name. */
#ifndef LIFE3D_FORMAT_H
#define LIFE3D_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/grid.h"
#include "base/rule.h"
#include "io.h"
#include "stream.h"

typedef enum fmt_id {
	FMT_NONE = 0,
	FMT_HPCGAME,     /* HPCGame 2024 binary: u64 M, u64 T, M^3 bytes 0/1 */
	FMT_NATIVE,      /* life3d packed .l3d: header, 1 bit/cell, CRC-32 */
	FMT_RLE3,        /* Golly RLE3 text (.rle3) */
	FMT_VTK,         /* VTK legacy STRUCTURED_POINTS (write only) */
	FMT_NPY          /* NumPy .npy uint8 (write only) */
} fmt_id;

/* "hpcgame", "l3d" (also "native"), "rle3", "vtk", "npy"; FMT_NONE if unknown. */
fmt_id format_from_name(const char *name);
/* By extension, in any case: .bin/.hpc/.dat -> hpcgame, .l3d, .rle3,
 * .vtk, .npy. */
fmt_id format_from_path(const char *path);
/* The extension of path's last component ("gz" for "a/out.npy.gz"), or
 * NULL when it has none ("out", ".hidden", "/dev/null"). */
const char *format_extension(const char *path);
/* "hpcgame: .bin .hpc .dat, l3d: .l3d, ...": for messages. */
const char *format_extensions(void);
const char *format_name(fmt_id f);
bool format_is_binary(fmt_id f);
bool format_can_read(fmt_id f);

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

/* Write in format f.  `name` names the destination for messages.  Write
 * errors (short write, ENOSPC, EIO) give L3D_ERR_IO; a universe the format
 * cannot hold (HPCGame needs a cube) gives L3D_ERR_USAGE. */
int format_write(FILE *out, const char *name, fmt_id f, const grid *g,
		 const rule *r, l3d_err *err);

/* format_write from a row source: every format but RLE3, which needs the
 * whole universe at once (L3D_ERR_USAGE). */
int format_write_rows(FILE *out, const char *name, fmt_id f,
		      const row_source *src, const rule *r, l3d_err *err);

#endif
