/* grid.h - the universe in memory: 1 bit per cell, z packed into words.
 *
 * A universe is a box of nx * ny * nz cells on a torus.  Cell (x, y, z) is
 * bit (z % 64) of word  (x * ny + y) * words + z / 64  of `bits`, where
 * `words` = ceil(nz / 64).  Each (x, y) row is therefore a run of 64-bit
 * words, z fastest, matching the HPCGame byte layout (x slowest, z fastest)
 * so every reader and writer streams rows in file order.
 *
 * Invariant: the padding bits above nz in the last word of every row are
 * zero.  Engines may rely on it and must preserve it.  The layout is the
 * same on every host (words are native uint64_t; files fix their own byte
 * order). */
#ifndef LIFE3D_BASE_GRID_H
#define LIFE3D_BASE_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Largest edge accepted: keeps x*ny+y and z/64 indices well inside 64 bits
 * and every per-axis buffer allocatable. */
#define GRID_MAX_EDGE ((uint64_t)1 << 24)

typedef struct grid {
	uint64_t nx, ny, nz;
	uint64_t words;          /* words per (x, y) row = ceil(nz / 64) */
	uint64_t generation;     /* generation of this universe */
	uint64_t *bits;          /* nx * ny * words words, 64-byte aligned */
} grid;

/* Check sizes (each 1..GRID_MAX_EDGE, total cells and bytes representable)
 * without allocating.  `what` names the file or option for the message. */
int grid_check_size(uint64_t nx, uint64_t ny, uint64_t nz, const char *what,
		    l3d_err *err);

/* Allocate a zeroed universe, 64-byte aligned; from 4 MiB on, mapped
 * from the kernel at a 2 MiB boundary, in huge pages where it may.  On
 * failure *g is left empty.  grid_free() tells the two kinds apart by
 * the sizes, so a grid's sizes must not change while it holds cells. */
int grid_alloc(grid *g, uint64_t nx, uint64_t ny, uint64_t nz, l3d_err *err);
void grid_free(grid *g);
/* Write zeros over a freshly allocated g on a thread a core, so that the
 * kernel clears its new pages in parallel now, not one fault at a time
 * for whoever writes first (a device's copy into it: 20 ms at 1024^3). */
void grid_touch(grid *g);

static inline uint64_t *grid_row(const grid *g, uint64_t x, uint64_t y)
{
	return g->bits + (x * g->ny + y) * g->words;
}
static inline int grid_get(const grid *g, uint64_t x, uint64_t y, uint64_t z)
{
	return (int)((grid_row(g, x, y)[z >> 6] >> (z & 63)) & 1u);
}
static inline void grid_set(grid *g, uint64_t x, uint64_t y, uint64_t z, int v)
{
	uint64_t *w = &grid_row(g, x, y)[z >> 6];
	uint64_t m = (uint64_t)1 << (z & 63);
	*w = v ? (*w | m) : (*w & ~m);
}

uint64_t grid_cells(const grid *g);
size_t grid_bytes(const grid *g);          /* size of `bits` in bytes */
uint64_t grid_population(const grid *g);
/* Live cells in n words of packed rows (a chunk of a universe): with the
 * popcnt instruction where the CPU has it, else as the portable count,
 * which tests call directly. */
uint64_t words_population(const uint64_t *w, uint64_t n);
uint64_t words_population_portable(const uint64_t *w, uint64_t n);
bool grid_equal(const grid *a, const grid *b);   /* same sizes and cells */

/* Mask of the valid bits in the last word of a row. */
uint64_t grid_tail_mask(const grid *g);

/* Unpack one row to bytes 0/1 (nz of them) and pack it back; pack returns
 * -1 if a byte is neither 0 nor 1. */
void grid_row_unpack(const grid *g, uint64_t x, uint64_t y, uint8_t *cells);
int grid_row_pack(grid *g, uint64_t x, uint64_t y, const uint8_t *cells);
/* The same for a row of nz cells given by its words, wherever it lives (a
 * chunk of rows fetched from an engine). */
void row_unpack(const uint64_t *row, uint64_t nz, uint8_t *cells);
int row_pack(uint64_t *row, uint64_t nz, const uint8_t *cells);

/* Seeded random universe: every cell is alive with probability `density`,
 * decided by a counter-based hash of (seed, cell index), so the bits do
 * not depend on engine, thread count or platform. */
void grid_random(grid *g, double density, uint64_t seed);
/* The same universe's planes x0 .. x0 + g->nx - 1 only (g holds a slab of
 * a universe with g's ny and nz), bit for bit as grid_random makes them. */
void grid_random_planes(grid *g, uint64_t x0, double density, uint64_t seed);

/* The shapes a random universe fills, as Golly's 3D.lua's random fill:
 * all of it; a central box, leaving floor(n / 8) cells empty at each end
 * of every axis of n cells (none when n < 8); or the ball in that box:
 * centred at (n - 1) / 2 on each axis, of radius r half the box's
 * shortest edge, holding the cells whose offsets d from the centre have
 * round(dx^2) + round(dy^2) + round(dz^2) <= round(r^2) (Golly's test on
 * its cube). */
typedef enum grid_shape { GRID_FILL, GRID_BOX, GRID_BALL } grid_shape;
/* Clear the cells of g outside the shape: g holds planes x0 .. x0 +
 * g->nx - 1 of a universe of nx planes (g's ny and nz). */
void grid_keep_shape(grid *g, uint64_t x0, uint64_t nx, grid_shape shape);

/* Views used by snapshots.  Axis 0 = x, 1 = y, 2 = z.  The image plane of
 * axis a spans the other two axes (u, v) in order: x -> (y, z),
 * y -> (x, z), z -> (x, y); u runs along the image width.  */
void grid_view_dims(const grid *g, int axis, uint64_t *width, uint64_t *height);
/* counts[v * width + u] = live cells along the axis. */
void grid_project(const grid *g, int axis, uint32_t *counts);
/* cells[v * width + u] = 0/1 at the given index along the axis. */
void grid_slice(const grid *g, int axis, uint64_t index, uint8_t *cells);

#endif
