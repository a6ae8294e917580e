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

/* Golly's 28 cells in the phase's plane, numbered as Golly numbers them:
 * 0-3 the diagonal sites of the four swaps, 4-11 the knight's moves of
 * the cell, 12-27 further ones; then each swap's 2 activators and 12
 * inhibitors by those numbers. */
static const int bb_off[28][2] = {
	{1, 1}, {-1, 1}, {-1, -1}, {1, -1},
	{2, -1}, {2, 1}, {1, 2}, {-1, 2}, {-2, 1}, {-2, -1}, {-1, -2}, {1, -2},
	{-2, -3}, {0, -3}, {2, -3}, {-3, -2}, {3, -2}, {0, -1}, {-3, 0}, {-1, 0},
	{1, 0}, {3, 0}, {0, 1}, {-3, 2}, {3, 2}, {-2, 3}, {0, 3}, {2, 3},
};
static const int bb_act[4][2] = {{4, 7}, {6, 9}, {8, 11}, {5, 10}};
static const int bb_inh[4][12] = {
	{17, 24, 21, 26, 19, 27, 6, 9, 8, 11, 5, 10},
	{17, 23, 18, 26, 20, 25, 4, 7, 8, 11, 5, 10},
	{15, 22, 13, 18, 12, 20, 4, 7, 6, 9, 5, 10},
	{19, 14, 13, 21, 16, 22, 4, 7, 6, 9, 8, 11},
};

void ref_step_busyboxes(ref_universe *u, uint64_t generation, int mirror,
			uint64_t *moved)
{
	uint64_t n = u->nx * u->ny * u->nz, dims[3] = {u->nx, u->ny, u->nz}, count = 0;
	int phase = (int)(generation % 6);
	/* phases 0 and 3: XY; 1 and 4: YZ; 2 and 5: XZ */
	int a_axis = phase % 3 == 1 ? 1 : 0, b_axis = phase % 3 == 0 ? 1 : 2;
	uint8_t *next = calloc(n, 1);
	if (!next)
		abort();
	for (uint64_t x = 0; x < u->nx; x++)
		for (uint64_t y = 0; y < u->ny; y++)
			for (uint64_t z = 0; z < u->nz; z++) {
				if (!*cell(u, x, y, z))
					continue;
				uint64_t at[3] = {x, y, z}, to[3] = {x, y, z};
				int val[28], swaps = 0, which = -1;
				if ((int)((x + y + z) % 2) == phase % 2) {
					for (int i = 0; i < 28; i++) {
						uint64_t p[3] = {x, y, z};
						p[a_axis] = (at[a_axis] + 4 * dims[a_axis] + (uint64_t)(int64_t)bb_off[i][0]) % dims[a_axis];
						p[b_axis] = (at[b_axis] + 4 * dims[b_axis] + (uint64_t)(int64_t)bb_off[i][1]) % dims[b_axis];
						val[i] = *cell(u, p[0], p[1], p[2]);
					}
					for (int s = 0; s < 4; s++) {
						int ok = val[bb_act[s][0]] || val[bb_act[s][1]];
						for (int k = 0; k < 12; k++)
							ok = ok && !val[bb_inh[s][k]];
						if (ok) {
							swaps++;
							which = s;
						}
					}
				}
				if (swaps == 1 && !val[which]) {
					int64_t na = (int64_t)at[a_axis] + bb_off[which][0];
					int64_t nb = (int64_t)at[b_axis] + bb_off[which][1];
					int outside = na < 0 || nb < 0 || na >= (int64_t)dims[a_axis] ||
						      nb >= (int64_t)dims[b_axis];
					if (!(mirror && outside)) {
						to[a_axis] = (uint64_t)((na + (int64_t)dims[a_axis]) % (int64_t)dims[a_axis]);
						to[b_axis] = (uint64_t)((nb + (int64_t)dims[b_axis]) % (int64_t)dims[b_axis]);
						count++;
					}
				}
				next[(to[0] * u->ny + to[1]) * u->nz + to[2]] = 1;
			}
	memcpy(u->cells, next, n);
	free(next);
	if (moved)
		*moved = count;
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
