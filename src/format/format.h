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

#include "base/grid.h"
#include "base/progress.h"
#include "base/rule.h"

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
typedef struct format_stream format_stream;
int format_read_start(reader *r, grid *g, universe_meta *meta, fmt_id *detected,
		      format_stream **out, l3d_err *err);
row_progress *format_read_progress(format_stream *s);
int format_read_finish(format_stream *s, l3d_err *err);

/* Write in format f.  `name` names the destination for messages.  Write
 * errors (short write, ENOSPC, EIO) give L3D_ERR_IO; a universe the format
 * cannot hold (HPCGame needs a cube) gives L3D_ERR_USAGE. */
int format_write(FILE *out, const char *name, fmt_id f, const grid *g,
		 const rule *r, l3d_err *err);

/* A universe that a writer takes a run of rows at a time, so it need not
 * be in host memory all at once: a GPU's universe is downloaded a chunk at
 * a time while the chunk before is encoded and written. */
typedef struct row_source {
	uint64_t nx, ny, nz, generation;
	/* Rows [first, first + n) (row x * ny + y) in grid layout: *rows
	 * points either into the source's own memory or to buf (room for n
	 * rows), filled in.  Called by one thread at a time, not always the
	 * same one; `first` increases within each pass over the universe. */
	int (*rows)(void *ctx, uint64_t first, uint64_t n, uint64_t *buf,
		    const uint64_t **rows, l3d_err *err);
	void *ctx;
} row_source;

/* A source that hands out g's own rows, without copying. */
void row_source_of_grid(row_source *s, const grid *g);
/* format_write from a row source: every format but RLE3, which needs the
 * whole universe at once (L3D_ERR_USAGE). */
int format_write_rows(FILE *out, const char *name, fmt_id f,
		      const row_source *src, const rule *r, l3d_err *err);

/* Per-format entry points, used by format.c's dispatch and by tests. */
int hpcgame_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int hpcgame_read_start(reader *r, grid *g, universe_meta *meta,
		       format_stream **out, l3d_err *err);
int hpcgame_write(FILE *out, const char *name, const row_source *src,
		  l3d_err *err);
int native_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int native_read_start(reader *r, grid *g, universe_meta *meta,
		      format_stream **out, l3d_err *err);
int native_write(FILE *out, const char *name, const row_source *src,
		 const rule *r, l3d_err *err);
int rle3_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int rle3_write(FILE *out, const char *name, const grid *g, const rule *r,
	       l3d_err *err);
int vtk_write(FILE *out, const char *name, const row_source *src, l3d_err *err);

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
int npy_write(FILE *out, const char *name, const row_source *src, l3d_err *err);

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
/* All cells as bytes 0/1 in x, y, z order (z fastest), a chunk of rows
 * at a time: the payload of HPCGame, VTK and NumPy files. */
int format_put_cells(FILE *out, const char *name, const row_source *src,
		     l3d_err *err);

/* ---- payloads (format_stream.c) ----
 * The cells of the binary formats: every row in order, nz cells of
 * cell_bits bits each (8: a byte per cell; 1: a bitstream, cell i in bit
 * i % 8 of byte i / 8), rows back to back.  They move through a pipeline
 * (pipeline.h) a chunk of whole rows, about 1 MiB of the file, at a time:
 * while one thread reads or writes a chunk, others decode or encode the
 * chunks around it.  Chunks start on a byte boundary. */

typedef struct payload_in payload_in;
struct payload_in {
	reader *r;
	grid *g;                 /* allocated: its rows are filled in */
	unsigned cell_bits;      /* 8 or 1 */
	bool want_crc;
	uint32_t crc;            /* the payload's CRC-32 once read, if want_crc */
	/* Rows [first, first + n) from their `len` bytes, which begin at
	 * byte `offset` of the payload; the buffer has 16 readable bytes
	 * more.  Runs on several threads at once, each on its own rows. */
	int (*decode)(payload_in *in, uint64_t first, uint64_t n,
		      const unsigned char *bytes, size_t len, uint64_t offset,
		      l3d_err *err);
	/* The error for a payload that ends after `got` of its `total` bytes. */
	int (*truncated)(payload_in *in, uint64_t got, uint64_t total,
			 l3d_err *err);
};
/* Read the payload into in->g, announcing its rows in `ready` (may be
 * NULL) as they are done, in order.  A chunk that ends early is reported
 * as truncated before its bytes are decoded, and a chunk's error comes
 * before those of every later chunk, as when reading one chunk after the
 * other. */
int payload_read(payload_in *in, row_progress *ready, l3d_err *err);

/* The stream of a format's *_read_start: body(ctx, ready, err) reads the
 * cells into g, announcing rows in `ready`, on a thread of its own (or at
 * once where no thread can be had); the stream ends with body's status.
 * ctx is copied (ctx_size bytes) and kept until the stream is finished.
 * body NULL: g is complete already.  Fails only for want of memory,
 * reported against r, and then frees g. */
typedef int (*read_body)(void *ctx, row_progress *ready, l3d_err *err);
int format_stream_start(reader *r, grid *g, read_body body, const void *ctx,
			size_t ctx_size, format_stream **out, l3d_err *err);

typedef struct payload_out payload_out;
struct payload_out {
	FILE *out;               /* NULL: compute the CRC only */
	const char *name;
	const row_source *src;
	unsigned cell_bits;      /* 8 or 1 */
	bool want_crc;
	uint32_t crc;            /* the payload's CRC-32 once written, if want_crc */
	/* Rows [.., + n) as payload bytes: buf (room for them and 16 bytes
	 * more) filled in, or the rows themselves where they already are
	 * those bytes.  Runs on several threads at once. */
	const unsigned char *(*encode)(const payload_out *o, const uint64_t *rows,
				       uint64_t n, unsigned char *buf);
};
int payload_write(payload_out *o, l3d_err *err);
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
