/* soup.h - the census's soups: soup i of a root R, which anyone can make
 * again from (R, i) alone.
 *
 * The soup's seed is the first 8 bytes, read big-endian, of the SHA-256
 * of the text "R/i" (i in decimal, without leading zeros; Nettle's
 * SHA-256).  The soup is then the universe of n x n x n cells that
 * `life3d --random N --seed SEED --density D` starts from (base/grid.h's
 * grid_random), so plain life3d and any tool that reads its output run it.
 *
 * A root is 1 to SOUP_ROOT_MAX bytes of printable ASCII without spaces
 * (a haul is tab-separated text, and a soup is named "R/i" in it). */
#ifndef LIFE3D_CENSUS_SOUP_H
#define LIFE3D_CENSUS_SOUP_H

#include <stdint.h>

#include "base/grid.h"
#include "base/status.h"

#define SOUP_ROOT_MAX 128

/* L3D_ERR_USAGE naming the root when it is not one. */
int soup_root_check(const char *root, l3d_err *err);

uint64_t soup_seed(const char *root, uint64_t index);

/* A soup's name "R/i" split at its last '/' into root[SOUP_ROOT_MAX + 1]
 * and *index.  L3D_ERR_USAGE when it is not one. */
int soup_parse_name(const char *name, char *root, uint64_t *index, l3d_err *err);

/* Soup i of root into out, allocated here (side^3 cells, generation 0). */
int soup_make(const char *root, uint64_t index, uint32_t side, double density,
	      grid *out, l3d_err *err);

#endif
