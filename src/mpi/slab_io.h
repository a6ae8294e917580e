/* slab_io.h - reading and writing a universe from every rank at once
 * (built with MPI only).
 *
 * HPCGame and .l3d files on a file system every rank sees are read and
 * written in parallel with MPI-IO, each rank its own planes, so no rank
 * holds the whole universe.  Anything else (stdin, RLE3, VTK, NumPy) goes
 * through rank 0, which must then hold the universe.  Every function is
 * collective and returns the same status on every rank. */
#ifndef LIFE3D_MPI_SLAB_IO_H
#define LIFE3D_MPI_SLAB_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "base/grid.h"
#include "base/outfile.h"
#include "base/rule.h"
#include "format/format.h"

/* Read this rank's planes into *slab (allocated here): [*x0, *x0 +
 * slab->nx) of a universe of *nx planes.  Rank 0 passes the open input
 * `f` (the others NULL); `path` is the file name every rank can open, NULL
 * for stdin; `name` names the input in messages; `place` says where a
 * 2D pattern goes (io.h; NULL: reader_init's). */
int slab_io_read(FILE *f, const char *path, const char *name,
		 const plane_place *place, grid *slab, uint64_t *x0, uint64_t *nx,
		 universe_meta *meta, fmt_id *format, l3d_err *err);

/* Write the universe whose planes [x0, x0 + slab->nx) this rank holds
 * (nx planes in all) as d says (a checkpoint's stamp: only rank 0's
 * counts).  L3D_ERR_USAGE when a format that rank 0 writes alone does not
 * fit in its memory. */
int slab_io_write(const grid *slab, uint64_t x0, uint64_t nx, const universe_dest *d,
		  l3d_err *err);

#endif
