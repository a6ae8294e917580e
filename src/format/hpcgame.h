/* hpcgame.h - the HPCGame 2024 universe: u64 M, u64 T, then M^3 bytes,
 * each 0 or 1, cell (x, y, z) at byte x*M*M + y*M + z. */
#ifndef LIFE3D_FORMAT_HPCGAME_H
#define LIFE3D_FORMAT_HPCGAME_H

#include "io.h"
#include "stream.h"

#define HPCGAME_HEADER_BYTES 16

/* The header's edge M and generation T, checked (M above 0, M^3 cells
 * within the limits of grid.h), with `name` in messages: L3D_ERR_DATA or
 * L3D_ERR_USAGE as grid_check_size says.  Every reader of the format,
 * streamed or at offsets (mpi/slab_io.c), parses it here. */
int hpcgame_parse_header(const char *name, const unsigned char h[HPCGAME_HEADER_BYTES],
			 uint64_t *m, uint64_t *t, l3d_err *err);

int hpcgame_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
/* The header now, the cells on a stream (format.h: format_read_start). */
int hpcgame_read_start(reader *r, grid *g, universe_meta *meta,
		       format_stream **out, l3d_err *err);
int hpcgame_write(FILE *out, const char *name, const row_source *src,
		  l3d_err *err);

#endif
