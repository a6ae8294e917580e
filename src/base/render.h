/* render.h - a 3D picture of the universe: live cells as shaded cubes in an
 * orthographic view from an oblique direction, the box's edges drawn.
 *
 * render_setup() turns the view (two angles, the box, pixels per cell)
 * into a render_view of integers, once, on the host; it is the only place
 * that uses floating point.  render_rows() fills rows of the picture from
 * the packed universe (grid.h) and that render_view alone, in integer
 * arithmetic, one pixel independent of every other: any split of the rows
 * among threads gives the same bytes, and so does the GPU
 * (kernels/render.cu), which draws each pixel with the same code
 * (render_pixel.h, where render_view is defined).
 *
 * Geometry.  Cell (x, y, z) is the unit cube [x, x+1) x [y, y+1) x [z, z+1);
 * z is up.  The camera looks at the box's centre from azimuth `az` (degrees
 * from the x axis towards y, about z) and elevation `el` (degrees above
 * the x-y plane); between 0 and 90 each (the default 30, 25) the three
 * faces x = X, y = Y and z = Z of the box are in view, z pointing up the
 * picture.  Each pixel casts one ray through its centre, along which an
 * integer 3D DDA (Amanatides and Woo, with exact cross-multiplied
 * comparisons) walks the cells to the first live one.
 *
 * Shading.  The face the ray entered the cell through gets a brightness
 * of its own (a light from above, on the viewer's left), and depth cueing
 * colours the cell by its depth with colormap.h's map: the nearest cells
 * yellow, the farthest blue.  The edges of the box are light grey lines;
 * the three that meet at the far corner are drawn only where no cell hides
 * them.  Empty space is a dark grey. */
#ifndef LIFE3D_BASE_RENDER_H
#define LIFE3D_BASE_RENDER_H

#include <stdint.h>

#include "grid.h"
#include "render_pixel.h"
#include "status.h"

/* Default angles, in degrees. */
#define RENDER_AZIMUTH 30.0
#define RENDER_ELEVATION 25.0

/* Picture size for the box seen from (az, el) at `scale` pixels per cell:
 * the box's outline and a margin.  Angles in degrees. */
void render_size(uint64_t nx, uint64_t ny, uint64_t nz, double az, double el,
		 uint64_t scale, uint64_t *width, uint64_t *height);

/* The view of an nx x ny x nz box; the picture is render_size()'s.  The
 * caller has checked the size (at most 2^31 - 1 pixels a side).  Every
 * byte of *v is set, padding included: views of the same arguments are
 * equal under memcmp. */
void render_setup(render_view *v, uint64_t nx, uint64_t ny, uint64_t nz,
		  double az, double el, uint64_t scale);

/* Rows [first, first + n) of the picture into rgb (3 bytes a pixel,
 * v->width pixels a row).  g has the view's sizes. */
void render_rows(const render_view *v, const grid *g, uint32_t first,
		 uint32_t n, uint8_t *rgb);

/* The whole picture, the same bytes as render_rows(), drawn from the live
 * cells (render_pixel.h, "cell by cell") on `threads` threads (at most
 * RENDER_MAX_THREADS): much faster than render_rows() when live cells are
 * few (up to about render_max_live(v)), much slower when they are many.
 * rgb holds v->width x v->height pixels.  Needs 8 bytes a pixel of memory
 * (L3D_ERR_RUNTIME without them); a universe too large for its keys is
 * drawn by render_rows(). */
#define RENDER_MAX_THREADS 256
int render_cells(const render_view *v, const grid *g, int threads, uint8_t *rgb,
		 l3d_err *err);

#endif
