/* colormap.h - the colours of life3d's pictures.
 *
 * One perceptually uniform map, matplotlib's viridis (its 256 entries,
 * each channel rounded to a byte): dark violet through blue and green to
 * yellow, with lightness rising all the way, so that a value reads the
 * same in colour and in a grey print.  Snapshots show an
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

/* The same on a log scale: 1 .. max run from entry 0 to 255 in proportion
 * to their logarithms (rounded), so that counts a few times apart are as
 * far apart anywhere on the scale. */
unsigned colormap_index_log(uint64_t count, uint64_t max);

#endif
