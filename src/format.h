/* format.h - universe file formats: detection and dispatch.
 *
 * Each format lives in its own file (format_hpcgame.c, format_native.c,
 * format_rle3.c, format_export.c) and talks to the rest of the program only
 * through the functions below.  Readers take a `reader`, which may wrap a
 * pipe: they never seek.  Input formats are recognised by content, never by
 * the file name. */
#ifndef LIFE3D_FORMAT_H
#define LIFE3D_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "grid.h"
#include "rule.h"

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
/* By extension: .bin/.hpc/.dat -> hpcgame, .l3d, .rle3, .vtk, .npy. */
fmt_id format_from_path(const char *path);
const char *format_name(fmt_id f);
bool format_is_binary(fmt_id f);
bool format_can_read(fmt_id f);

/* A forward-only byte source with a small look-ahead for detection. */
typedef struct reader {
	FILE *f;
	const char *name;          /* for messages: the path, or "(stdin)" */
	unsigned char peek[64];
	size_t npeek, ppos;        /* look-ahead bytes and read position in it */
	uint64_t offset;           /* bytes consumed so far */
} reader;

void reader_init(reader *r, FILE *f, const char *name);
/* Read up to n bytes; returns the count, short only at end of file or on a
 * read error (then ferror(r->f) is set). */
size_t reader_read(reader *r, void *buf, size_t n);
/* Fill the look-ahead with up to sizeof peek bytes without consuming them. */
size_t reader_peek(reader *r, const unsigned char **bytes);
/* true when no byte is left (reads ahead one byte if needed). */
bool reader_at_eof(reader *r);

/* What a file says besides its cells.  has_rule is set by formats that
 * carry a rule (native, RLE3). */
typedef struct universe_meta {
	bool has_rule;
	rule rule;
} universe_meta;

/* Detect the format from the first bytes.  L3D_ERR_DATA if none matches
 * ("(stdin): not a life3d universe (unknown format)"). */
int format_detect(reader *r, fmt_id *out, l3d_err *err);

/* Detect and read.  On success *g is allocated and holds the universe and
 * its generation.  Any error leaves *g empty. */
int format_read(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		l3d_err *err);

/* Write in format f.  `name` names the destination for messages.  Write
 * errors (short write, ENOSPC, EIO) give L3D_ERR_IO; a universe the format
 * cannot hold (HPCGame needs a cube) gives L3D_ERR_USAGE. */
int format_write(FILE *out, const char *name, fmt_id f, const grid *g,
		 const rule *r, l3d_err *err);

/* Per-format entry points, used by format.c's dispatch and by tests. */
int hpcgame_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int hpcgame_write(FILE *out, const char *name, const grid *g, l3d_err *err);
int native_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int native_write(FILE *out, const char *name, const grid *g, const rule *r,
		 l3d_err *err);
int rle3_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int rle3_write(FILE *out, const char *name, const grid *g, const rule *r,
	       l3d_err *err);
int vtk_write(FILE *out, const char *name, const grid *g, l3d_err *err);

/* grid_alloc for a reader: a universe too large for memory is reported
 * with the name of the file that asked for it. */
int reader_alloc(reader *r, grid *g, uint64_t nx, uint64_t ny, uint64_t nz,
		 l3d_err *err);

/* The native header, for readers and writers that handle the payload
 * themselves (the MPI-IO slab code). */
#define NATIVE_HEADER_BYTES 64
typedef struct native_header {
	uint64_t nx, ny, nz, generation;
	rule rule;
	uint32_t payload_crc;
} native_header;
void native_build_header(unsigned char h[NATIVE_HEADER_BYTES], const native_header *nh);
/* Checks magic, version, size, header CRC, rule masks and sizes. */
int native_parse_header(const char *name, const unsigned char h[NATIVE_HEADER_BYTES],
			native_header *nh, l3d_err *err);
int npy_write(FILE *out, const char *name, const grid *g, l3d_err *err);

/* Helpers shared by the format modules (not for other callers). */

/* reader_read that turns a read error into L3D_ERR_IO
 * ("<name>: read error: <reason>"); *got says how many bytes came. */
int reader_fill(reader *r, void *buf, size_t n, size_t *got, l3d_err *err);
/* Read a fixed-size header of n bytes; L3D_ERR_DATA "<name>: empty file"
 * or "<name>: truncated <what> header (K of n bytes)" when it is short. */
int reader_header(reader *r, void *buf, size_t n, const char *what,
		  l3d_err *err);
/* L3D_ERR_DATA "<name>: trailing garbage after the <what>" unless the input
 * ends here. */
int reader_expect_end(reader *r, const char *what, l3d_err *err);
/* fwrite / fputs that report a short write as L3D_ERR_IO. */
int format_put(FILE *out, const char *name, const void *buf, size_t n,
	       l3d_err *err);
int format_puts(FILE *out, const char *name, const char *s, l3d_err *err);
/* All cells as bytes 0/1 in x, y, z order (z fastest), a few rows at a
 * time: the payload of HPCGame, VTK and NumPy files. */
int format_put_cells(FILE *out, const char *name, const grid *g, l3d_err *err);
/* fflush and ferror: the last check of every writer. */
int format_finish(FILE *out, const char *name, l3d_err *err);

/* Files fix their byte order: little-endian everywhere. */
static inline uint64_t le_get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}
static inline uint32_t le_get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline void le_put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}
static inline void le_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

#endif
