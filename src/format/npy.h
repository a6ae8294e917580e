/* npy.h - NumPy's .npy array, read and written: a byte a cell, C order,
 * shape (X, Y, Z), so a[x, y, z] is cell (x, y, z).  Written as version
 * 1.0 with descr '|u1'; read from versions 1.0, 2.0 and 3.0 with descr
 * uint8, bool or int8 (every element 0 or 1) in C order.  The file has no
 * generation (read as 0) and no rule.  Its row in format.c's table names
 * what is here. */
#ifndef LIFE3D_FORMAT_NPY_H
#define LIFE3D_FORMAT_NPY_H

#include "io.h"
#include "stream.h"

/* Detection: the magic "\x93NUMPY". */
bool npy_looks(const unsigned char *p, size_t n);

int npy_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
/* The header now, the cells on a stream (format.h: format_read_start).
 * A header that is no 3D array of bytes in C order is L3D_ERR_DATA with
 * what it holds and what to do in numpy ("save it as uint8 or bool"). */
int npy_read_start(reader *r, grid *g, universe_meta *meta,
		   format_stream **out, l3d_err *err);
/* The rule is not kept (format_caveats says so). */
int npy_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err);

#endif
