/* rle2.h - Golly's 2D RLE (.rle), read into a plane of a 3D universe as
 * Golly's 3D.lua pastes a 2D pattern: the live cells' box centred in the
 * plane, its top row at the largest coordinate (Golly's y points up),
 * the plane in the middle of Golly's 100^3 grid (life3d-formats(5)).
 * Which plane, and whether the pattern goes onto the next plane too, is
 * the reader's `place` (io.h).  Read only: a universe is written in 3D
 * formats.  Its row in format.c's table names what is here. */
#ifndef LIFE3D_FORMAT_RLE2_H
#define LIFE3D_FORMAT_RLE2_H

#include "io.h"
#include "stream.h"

/* Detection: text whose first line (after blank ones) is a comment line
 * of Golly's ("#N Glider", "#C ...", "#CXRLE ..."; not "# text", nor
 * Golly's other formats' "#Life", "#P"), an 'x = ' header, or run data
 * alone ("bo$2bo$3o!"). */
bool rle2_looks(const unsigned char *p, size_t n);

/* The whole file, then a stream that is done already (format.h:
 * format_read_start).  The rule of the file is a 2D rule: meta->has_rule
 * stays false, and meta->placed says where the pattern went and what its
 * rule is. */
int rle2_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
int rle2_read_start(reader *r, grid *g, universe_meta *meta,
		    format_stream **out, l3d_err *err);

#endif
