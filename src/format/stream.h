/* stream.h - the cells of a file moving through a pipeline of threads:
 * a stream that reads them on a thread of its own while the universe is
 * already in use, and the payloads of the binary formats (HPCGame, .l3d),
 * read and written a chunk of rows at a time with the encoding spread over
 * several threads.  For the format modules; callers use format.h. */
#ifndef LIFE3D_FORMAT_STREAM_H
#define LIFE3D_FORMAT_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/progress.h"
#include "io.h"

/* A universe's cells being read (format.h: format_read_start).
 * format_read_progress() announces their rows as they are done;
 * format_read_finish() waits for the end and returns the reader's status,
 * with the live cells in *population (NULL: not wanted), counted by the
 * reading thread when its reader asked for that (reader.count), else
 * there; on failure the grid is freed. */
typedef struct format_stream format_stream;
row_progress *format_read_progress(format_stream *s);
int format_read_finish(format_stream *s, uint64_t *population, l3d_err *err);

/* A source that hands out g's own rows, without copying. */
void row_source_of_grid(row_source *s, const grid *g);
/* n rows of nz cells in grid layout ((nz + 63) / 64 words a row) as
 * n * nz bytes 0/1. */
void rows_to_cells(const uint64_t *rows, uint64_t n, uint64_t nz,
		   unsigned char *cells);
/* All cells as bytes 0/1 in x, y, z order (z fastest), a chunk of rows
 * at a time: the payload of HPCGame, VTK and NumPy files. */
int format_put_cells(FILE *out, const char *name, const row_source *src,
		     l3d_err *err);
/* The same with each row reversed (z from nz-1 down to 0): VTK's voxels,
 * so that its axes are a rotation of life3d's (export.c). */
int format_put_cells_z_reversed(FILE *out, const char *name,
				const row_source *src, l3d_err *err);

/* ---- payloads ----
 * The cells of the binary formats: every row in order, nz cells of
 * cell_bits bits each (8: a byte per cell; 1: a bitstream, cell i in bit
 * i % 8 of byte i / 8), rows back to back.  They move through a pipeline
 * (pipeline.h) a chunk of whole rows, about 1 MiB of the file, at a time:
 * while one thread reads or writes a chunk, others decode or encode the
 * chunks around it.  Chunks start on a byte boundary, and their buffers
 * have PAYLOAD_SLACK bytes more, for codecs that read and write whole
 * words (fixed.h). */
#define PAYLOAD_SLACK 16

typedef struct payload_in payload_in;
struct payload_in {
	reader *r;
	grid *g;                 /* allocated: its rows are filled in */
	unsigned cell_bits;      /* 8 or 1 */
	bool want_crc;
	uint32_t crc;            /* the payload's CRC-32 once read, if want_crc */
	/* Rows [first, first + n) from their `len` bytes, which begin at
	 * byte `offset` of the payload; the buffer has PAYLOAD_SLACK
	 * readable bytes more.  Runs on several threads at once, each on its own rows. */
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

/* Where a payload of cell_bits a cell begins: r's current offset, for
 * reading the first cells of its rows at offsets while the stream reads
 * it in order.  at < 0: r is not a regular file. */
typedef struct payload_place {
	int fd;
	int64_t at;
	unsigned cell_bits;
} payload_place;
payload_place payload_place_of(const reader *r, unsigned cell_bits);

/* The stream of a format's *_read_start: body(ctx, ready, err) reads the
 * cells into g, announcing rows in `ready`, on a thread of its own (or at
 * once where no thread can be had); the stream ends with body's status.
 * ctx is copied (ctx_size bytes) and kept until the stream is finished.
 * body NULL: g is complete already.  place (may be NULL): where the
 * payload lies, so that the stream's followers may read the cells at the
 * universe's origin before their rows come (row_progress_corner), where
 * the file is regular and each row begins on a byte.  Fails only for want
 * of memory, reported against r, and then frees g. */
typedef int (*read_body)(void *ctx, row_progress *ready, l3d_err *err);
int format_stream_start(reader *r, grid *g, read_body body, const void *ctx,
			size_t ctx_size, const payload_place *place,
			format_stream **out, l3d_err *err);

typedef struct payload_out payload_out;
struct payload_out {
	FILE *out;               /* NULL: compute the CRC only */
	const char *name;
	const row_source *src;
	unsigned cell_bits;      /* 8 or 1 */
	bool want_crc;
	uint32_t crc;            /* the payload's CRC-32 once written, if want_crc */
	/* Rows [.., + n) as payload bytes: buf (room for them and
	 * PAYLOAD_SLACK bytes more) filled in, or the rows themselves where
	 * they already are those bytes.  Runs on several threads at once. */
	const unsigned char *(*encode)(const payload_out *o, const uint64_t *rows,
				       uint64_t n, unsigned char *buf);
};
int payload_write(payload_out *o, l3d_err *err);
#endif
