/* hpcgame.h - the HPCGame 2024 universe: u64 M, u64 T, then M^3 bytes,
 * each 0 or 1, cell (x, y, z) at byte x*M*M + y*M + z.  Its row in
 * format.c's table names what is here. */
#ifndef LIFE3D_FORMAT_HPCGAME_H
#define LIFE3D_FORMAT_HPCGAME_H

#include "fixed.h"
#include "io.h"
#include "stream.h"

/* Detection: the first bytes could begin such a file (an edge below
 * 2^32: the format has no magic). */
bool hpcgame_looks(const unsigned char *p, size_t n);

int hpcgame_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
/* The header now, the cells on a stream (format.h: format_read_start). */
int hpcgame_read_start(reader *r, grid *g, universe_meta *meta,
		       format_stream **out, l3d_err *err);
/* The rule is not kept (format_caveats says so). */
int hpcgame_write(FILE *out, const char *name, const row_source *src,
		  const rule *r, l3d_err *err);

/* The header and rows, for readers and writers at offsets (fixed.h). */
extern const format_fixed hpcgame_fixed;

#endif
