/* rle3.h - Golly's RLE3 text format (.rle3), as Golly's 3D.lua reads and
 * writes it (life3d-formats(5)).  Read whole: the text is small next to
 * the universe it describes, and fills the grid out of row order.  Its row
 * in format.c's table names what is here. */
#ifndef LIFE3D_FORMAT_RLE3_H
#define LIFE3D_FORMAT_RLE3_H

#include "io.h"
#include "stream.h"

/* Detection: the first bytes are "3D" and a blank, as Golly asks. */
bool rle3_looks(const unsigned char *p, size_t n);

int rle3_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
/* rle3_read, then a stream that is done already (format.h:
 * format_read_start). */
int rle3_read_start(reader *r, grid *g, universe_meta *meta,
		    format_stream **out, l3d_err *err);
/* `comments`: universe_meta.comments' lines, written after the first line
 * as Golly writes them; NULL or "": none. */
int rle3_write(FILE *out, const char *name, const grid *g, const rule *r,
	       const char *comments, l3d_err *err);
/* rle3_write with the encoder named, for the tests: sparse (what
 * rle3_write does) writes a universe of few live cells from a sorted list
 * of them, falling back on reading every cell of the live box (sparse
 * false) when they are many or memory is short; both give the same
 * bytes. */
int rle3_write_by(FILE *out, const char *name, const grid *g, const rule *r,
		  const char *comments, bool sparse, l3d_err *err);

/* What Golly refuses or runs otherwise in a file of an nx*ny*nz universe
 * with rule r (a side over 100 or under 3, a box that is not a cube,
 * birth on 0), added to buf ("; " between them). */
void rle3_caveats(uint64_t nx, uint64_t ny, uint64_t nz, const rule *r,
		  char *buf, size_t size);

#endif
