/* mix.h - one 64-bit mixer for the tree: splitmix64's finaliser, a
 * bijection with good avalanche, cheap enough to call once a cell.  The
 * random soups (grid_random) draw from it, and the universe's hash for
 * leaps (engine/cpu/skip.c) mixes each word with it.  Changing it changes
 * every --random universe: the tests' expected results with them. */
#ifndef LIFE3D_BASE_MIX_H
#define LIFE3D_BASE_MIX_H

#include <stdint.h>

static inline uint64_t l3d_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
