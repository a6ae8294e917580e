/* reference.c - see reference.h. */
#include "reference.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *cell(const ref_universe *u, uint64_t x, uint64_t y, uint64_t z)
{
	return &u->cells[(x * u->ny + y) * u->nz + z];
}

int ref_from_grid(ref_universe *u, const grid *g)
{
	u->nx = g->nx;
	u->ny = g->ny;
	u->nz = g->nz;
	u->cells = malloc(g->nx * g->ny * g->nz);
	if (!u->cells)
		return -1;
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			for (uint64_t z = 0; z < g->nz; z++)
				*cell(u, x, y, z) = (uint8_t)grid_get(g, x, y, z);
	return 0;
}

int ref_to_grid(const ref_universe *u, grid *g)
{
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			for (uint64_t z = 0; z < g->nz; z++)
				grid_set(g, x, y, z, *cell(u, x, y, z));
	return 0;
}

void ref_free(ref_universe *u)
{
	free(u->cells);
	u->cells = NULL;
}

/* The neighbourhoods written out offset by offset, as Golly defines them
 * (dx, dy, dz), independent of the code under test. */
static const int face[][3] = {
	{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
};
static const int corner[][3] = {
	{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1},
	{-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1},
};
static const int edge[][3] = {
	{1, 1, 0}, {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0},
	{1, 0, 1}, {1, 0, -1}, {-1, 0, 1}, {-1, 0, -1},
	{0, 1, 1}, {0, 1, -1}, {0, -1, 1}, {0, -1, -1},
};
static const int hex[][3] = {
	{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
	{0, 1, -1}, {0, -1, 1}, {1, 0, -1}, {-1, 0, 1}, {1, -1, 0}, {-1, 1, 0},
};

/* The offsets of r's neighbourhood; Moore: every offset of the 3x3x3 box
 * but (0,0,0). */
static unsigned offsets_of(const rule *r, int out[26][3])
{
	const int (*list)[3] = NULL;
	unsigned n = 0;
	switch (r->hood) {
	case RULE_FACE: list = face, n = 6; break;
	case RULE_CORNER: list = corner, n = 8; break;
	case RULE_EDGE: list = edge, n = 12; break;
	case RULE_HEX: list = hex, n = 12; break;
	default:
		for (int dx = -1; dx <= 1; dx++)
			for (int dy = -1; dy <= 1; dy++)
				for (int dz = -1; dz <= 1; dz++)
					if (dx || dy || dz) {
						out[n][0] = dx, out[n][1] = dy, out[n][2] = dz;
						n++;
					}
		return n;
	}
	memcpy(out, list, n * sizeof list[0]);
	return n;
}

void ref_step(ref_universe *u, const rule *r, uint64_t *population,
	      uint64_t *births, uint64_t *deaths)
{
	uint64_t n = u->nx * u->ny * u->nz, pop = 0, born = 0, died = 0;
	uint8_t *next = malloc(n);
	int off[26][3];
	unsigned noff = offsets_of(r, off);
	if (!next)
		abort();
	for (uint64_t x = 0; x < u->nx; x++)
		for (uint64_t y = 0; y < u->ny; y++)
			for (uint64_t z = 0; z < u->nz; z++) {
				/* On small boxes several offsets land on the
				 * same cell; each counts, exactly as the modulo
				 * definition says. */
				unsigned count = 0;
				for (unsigned i = 0; i < noff; i++) {
					uint64_t xx = (x + u->nx + (uint64_t)(int64_t)off[i][0]) % u->nx;
					uint64_t yy = (y + u->ny + (uint64_t)(int64_t)off[i][1]) % u->ny;
					uint64_t zz = (z + u->nz + (uint64_t)(int64_t)off[i][2]) % u->nz;
					count += *cell(u, xx, yy, zz);
				}
				uint8_t alive = *cell(u, x, y, z);
				uint8_t now = alive ? (uint8_t)((r->survive >> count) & 1u)
						    : (uint8_t)((r->birth >> count) & 1u);
				next[(x * u->ny + y) * u->nz + z] = now;
				pop += now;
				born += !alive && now;
				died += alive && !now;
			}
	memcpy(u->cells, next, n);
	free(next);
	if (population)
		*population = pop;
	if (births)
		*births = born;
	if (deaths)
		*deaths = died;
}
