/* colormap.h - the colours of life3d's pictures.
 *
 * One perceptually uniform map, close to matplotlib's viridis: dark violet
 * through blue and green to yellow, with lightness rising all the way, so
 * that a value reads the same in colour and in a grey print.  It is the
 * straight-line interpolation (in sRGB, integers only) of ten control
 * points, viridis at 0, 1/9, ..., 1:
 *
 *   #440154 #482878 #3E4A89 #31688E #26828E
 *   #1F9E89 #35B779 #6DCD59 #B4DE2C #FDE725
 *
 * Entry i of 256 lies at i * 9 / 255 along the points.  Snapshots show an
 * empty line or cell in black, which no entry is, so 0 stays apart from
 * 1. */
#ifndef LIFE3D_BASE_COLORMAP_H
#define LIFE3D_BASE_COLORMAP_H

#include <stdint.h>

/* Entry i (0..255) of the map as r, g, b. */
void colormap_rgb(unsigned i, uint8_t rgb[3]);

/* The entry for a count: 0 is not in the map (callers draw it black);
 * 1 .. max run from entry 0 to 255 in proportion (rounded), and counts
 * above max stay at 255.  max >= 1. */
unsigned colormap_index(uint64_t count, uint64_t max);

#endif
