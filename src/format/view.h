/* view.h - a part of a universe, or a coarser look at it, for the
 * writers (out_view in io.h: --box and --coarsen).  For format.c and the
 * writers that take counts; callers use format_write_rows. */
#ifndef LIFE3D_FORMAT_VIEW_H
#define LIFE3D_FORMAT_VIEW_H

#include "io.h"

/* A row source that hands out the box lo..hi (both included, inside the
 * universe) of `in`, with its origin at lo; crop_free() when done.  Its
 * rows come from `in`'s in increasing order, so a writer's pass over it
 * is one pass over `in`. */
typedef struct crop_rows crop_rows;
int crop_open(row_source *out, crop_rows **ctx, const row_source *in,
	      const uint64_t lo[3], const uint64_t hi[3], l3d_err *err);
void crop_free(crop_rows *c);

/* One pass over src's rows in order, fn called for each (x, y) with its
 * words; the first status fn returns that is not L3D_OK ends the pass and
 * is returned. */
typedef int (*row_fn)(void *ctx, uint64_t x, uint64_t y, const uint64_t *row,
		      l3d_err *err);
int rows_pass(const row_source *src, row_fn fn, void *ctx, l3d_err *err);

/* The live cells of each k^3 block of src (k >= 1), as floats in x, y, z
 * order (z fastest), into *counts (malloc'd; the caller frees it), with
 * the blocks along each axis in dims (ceil(n / k)).  One pass over src. */
int coarse_counts(const row_source *src, uint64_t k, float **counts,
		  uint64_t dims[3], l3d_err *err);

/* The bytes coarse_counts holds for a universe of `size` in blocks of k. */
uint64_t coarse_bytes(const uint64_t size[3], uint64_t k);

/* The universe's rows as a grid of their own (for a writer that needs it
 * whole: RLE3); grid_free() it. */
int rows_to_grid(const row_source *src, grid *g, l3d_err *err);

#endif
