/* io.h - what every format's reader and writer share: the forward-only
 * reader (input may be a pipe: nothing seeks), what a file says besides
 * its cells, a universe handed out a run of rows at a time, checked writes,
 * and little-endian fields.  For the format modules and their callers. */
#ifndef LIFE3D_FORMAT_IO_H
#define LIFE3D_FORMAT_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/grid.h"
#include "base/rule.h"

/* Where a 2D pattern (Golly's 2D RLE) goes in the 3D universe: into the
 * plane across `axis` (0 x, 1 y, 2 z: the XY plane) at `index` along it
 * (-1: the middle, Golly's N/2), and onto the plane after it too when
 * `twice` (a 2D Life pattern doubled, which B6/S567 runs as Life). */
typedef struct plane_place {
	int axis;
	int64_t index;
	bool twice;
} plane_place;

/* A forward-only byte source with a small look-ahead for detection. */
typedef struct reader {
	FILE *f;
	const char *name;          /* for messages: the path, or "(stdin)" */
	unsigned char peek[64];
	size_t npeek, ppos;        /* look-ahead bytes and read position in it */
	uint64_t offset;           /* bytes consumed so far */
	int64_t size;              /* bytes a regular file holds from where
				    * reading began; -1 for a pipe */
	int64_t start;             /* the file offset where reading began; -1
				    * for a pipe */
	bool count;                /* a stream read from it counts the live
				    * cells on its own thread once they are
				    * all in (format_read_finish) */
	plane_place place;         /* for a 2D pattern; reader_init: the XY
				    * plane in the middle, once */
} reader;

void reader_init(reader *r, FILE *f, const char *name);
/* Read up to n bytes; returns the count, short only at end of file or on a
 * read error (then ferror(r->f) is set). */
size_t reader_read(reader *r, void *buf, size_t n);
/* Fill the look-ahead with up to sizeof peek bytes without consuming them. */
size_t reader_peek(reader *r, const unsigned char **bytes);
/* true when no byte is left (reads ahead one byte if needed). */
bool reader_at_eof(reader *r);

/* Before allocating for a header's claim: true when the input is a
 * regular file shorter than `total` bytes in all (header included), with
 * its length in *have.  Always false for a pipe, whose length is known only
 * at its end. */
bool reader_short(const reader *r, uint64_t total, uint64_t *have);

/* grid_alloc for a reader: a universe too large for memory is reported
 * with the name of the file that asked for it. */
int reader_alloc(reader *r, grid *g, uint64_t nx, uint64_t ny, uint64_t nz,
		 l3d_err *err);

/* L3D_ERR_IO "<name>: read error: <errno's reason>", after a failed read. */
int reader_error(reader *r, l3d_err *err);
/* reader_read that turns a read error into L3D_ERR_IO
 * ("<name>: read error: <reason>"); *got says how many bytes came. */
int reader_fill(reader *r, void *buf, size_t n, size_t *got, l3d_err *err);
/* Read a fixed-size header of n bytes; L3D_ERR_DATA "<name>: empty file"
 * (nothing read from the input at all)
 * or "<name>: truncated <what> header (K of n bytes)" when it is short. */
int reader_header(reader *r, void *buf, size_t n, const char *what,
		  l3d_err *err);
/* L3D_ERR_DATA "<name>: trailing garbage after the <what>" unless the input
 * ends here. */
int reader_expect_end(reader *r, const char *what, l3d_err *err);
/* The same, at once, for a regular file that holds more than `total`
 * bytes from where reading began (the error names offset `total`). */
int reader_expect_size(const reader *r, uint64_t total, const char *what,
		       l3d_err *err);
/* fwrite / fputs that report a short write as L3D_ERR_IO. */
int format_put(FILE *out, const char *name, const void *buf, size_t n,
	       l3d_err *err);
int format_puts(FILE *out, const char *name, const char *s, l3d_err *err);
/* fflush and ferror: the last check of every writer. */
int format_finish(FILE *out, const char *name, l3d_err *err);

/* Which run a checkpoint belongs to (.l3d files only; life3d-formats(5)):
 * the run's identifier, and the length and CRC-32 of its population log
 * when the checkpoint was taken, so that a resumed run continues only its
 * own log. */
typedef struct run_stamp {
	uint64_t run_id;           /* 0: no stamp */
	uint64_t log_bytes;        /* 0: no log file to continue */
	uint32_t log_crc;
} run_stamp;

/* The most bytes of comments a universe keeps (META_COMMENTS_MAX less
 * one: the NUL). */
#define META_COMMENTS_MAX 16384

/* What a file says besides its cells.  has_rule is set by formats that
 * carry a rule (native, RLE3); stamp.run_id by checkpoints; comments by
 * the formats that keep them (RLE3, 2D RLE, .l3d). */
typedef struct universe_meta {
	bool has_rule;
	rule rule;
	/* RLE3 without size= or box=: the universe is Golly's 100^3 grid, as
	   Golly reads it, or, when the pattern does not fit there, the
	   pattern's own box. */
	enum { SIZE_GIVEN, SIZE_GOLLY_GRID, SIZE_PATTERN_BOX } sizeless;
	char assumed[256];       /* RLE3: what was read as Golly reads it where
				    the file left something out or wrong
				    ("no version= (read as version 1)";
				    "; " between); empty: nothing */
	char placed[256];        /* a 2D pattern: where it went and its rule
				    ("a 2D pattern with rule B3/S23, in the
				    plane z=50"); empty: a 3D universe */
	bool life2d;             /* and its rule is Conway's Life, B3/S23 */
	char comments[META_COMMENTS_MAX];   /* Golly's comment lines, each
				    starting with '#' and ending in '\n', in
				    the file's order ("#N Glider\n#O ...\n") */
	bool comments_cut;       /* some did not fit and were left out */
	run_stamp stamp;
} universe_meta;

/* What part of a universe a writer writes, and how (--box, --coarsen):
 * the cells of the box from corner lo to corner hi, both included, when
 * `box` (else all of them), as they are, or, when coarsen is above 0, as
 * the live cells in each coarsen^3 block of them (the last blocks along an
 * axis hold what is left of it), for the formats that can hold counts
 * (format_can_coarsen). */
typedef struct out_view {
	bool box;
	uint64_t lo[3], hi[3];
	uint64_t coarsen;
} out_view;

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
	const run_stamp *stamp;    /* written by .l3d (a checkpoint); or NULL */
	const char *comments;      /* universe_meta.comments' lines, written by
				      .l3d; or NULL */
	const grid *whole;         /* the universe in memory these rows are,
				      when they are one (row_source_of_grid);
				      or NULL */
	/* Set by format_write_rows for the writer: where cell (0, 0, 0) of
	   these rows lies in the universe written (a --box's corner), and
	   the block side of counts wanted (0: cells). */
	uint64_t origin[3];
	uint64_t coarsen;
} row_source;

/* Append one comment line (its '#' first, no '\n') to m->comments; false
 * (and m->comments_cut) when it does not fit. */
bool meta_add_comment(universe_meta *m, const char *line);

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
