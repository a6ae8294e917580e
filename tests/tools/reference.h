/* reference.h - the slow, obviously-correct stepper every engine is checked
 * against.  One byte per cell, the torus by the modulo definition, no
 * cleverness: if this and an engine disagree, the engine is wrong. */
#ifndef LIFE3D_REFERENCE_H
#define LIFE3D_REFERENCE_H

#include <stdint.h>

#include "base/grid.h"
#include "base/rule.h"

typedef struct ref_universe {
	uint64_t nx, ny, nz;
	uint8_t *cells;            /* cells[(x * ny + y) * nz + z] = 0 or 1 */
} ref_universe;

int ref_from_grid(ref_universe *u, const grid *g);
int ref_to_grid(const ref_universe *u, grid *g);    /* g already allocated */
void ref_free(ref_universe *u);
/* One generation; births/deaths/population of the new generation. */
void ref_step(ref_universe *u, const rule *r, uint64_t *population,
	      uint64_t *births, uint64_t *deaths);
/* One generation of Golly's BusyBoxes, the universe being of generation
 * `generation` (its phase), from Golly's own table of the 28 cells
 * (wxoverlay.cpp's Do3DNextGenBB), every cell visited: mirror refuses a
 * move past a face, else it wraps.  *moved gets the cells that moved. */
void ref_step_busyboxes(ref_universe *u, uint64_t generation, int mirror,
			uint64_t *moved);

#endif
