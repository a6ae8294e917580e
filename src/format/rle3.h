/* rle3.h - Golly's RLE3 text format (.rle3), as Golly's 3D.lua reads and
 * writes it (life3d-formats(5)).  Read whole: the text is small next to
 * the universe it describes, and fills the grid out of row order. */
#ifndef LIFE3D_FORMAT_RLE3_H
#define LIFE3D_FORMAT_RLE3_H

#include "io.h"

int rle3_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int rle3_write(FILE *out, const char *name, const grid *g, const rule *r,
	       l3d_err *err);

#endif
