/* busyboxes.h - the engine of Golly's BusyBoxes rules (rule.h's family):
 * Fredkin and Miller's reversible six-phase rule, stepped as Golly steps
 * it (gui-wx/wxoverlay.cpp's Do3DNextGenBB, which 3D.lua calls).
 *
 * Generation g has phase g mod 6 (g counted as the universe's own
 * generation, the one an RLE3 file's gen= gives).  Phases 0, 2 and 4 move
 * the live cells whose x+y+z is even, 1, 3 and 5 the odd ones, each in a
 * plane through it: XY in phases 0 and 3, YZ in 1 and 4, XZ in 2 and 5.
 * Such a cell may swap with one of its four diagonal neighbours in the
 * plane.  A swap is possible when a live cell lies a knight's move from
 * both the cell and the diagonal site (two such cells, the activators) and
 * no other knight-move cell of either is live (twelve inhibitors).  The
 * cell moves when exactly one swap is possible and its site is empty;
 * every other cell stays.  Neighbours are read around the torus in both
 * forms; BusyBoxes ("mirror") refuses a move past a face of the universe,
 * BusyBoxesW wraps it around.  Each side must be even, as Golly asks
 * (run.c grows an odd one as 3D.lua does).  The population never changes.
 *
 * The CPU's engine steps on one thread over the live cells alone (what
 * Golly's patterns are made of); the GPU's (cuda/bbgpu.h) a thread a
 * word of the whole universe, from the same table. */
#ifndef LIFE3D_ENGINE_BUSYBOXES_H
#define LIFE3D_ENGINE_BUSYBOXES_H

#include "engine.h"
#include "base/bbtable.h"

/* The CPU's engine for `initial` under rule r, a BusyBoxes rule; the
 * rows come as engine_create_streamed says (ready NULL: all there).
 * L3D_ERR_USAGE for an odd side (busyboxes_check).  choose.c picks it or
 * the GPU's (cuda/bbgpu.h). */
int engine_busyboxes_create(const engine_opts *opts, const grid *initial,
			    row_progress *ready, const rule *r, engine **out,
			    l3d_err *err);

/* L3D_ERR_USAGE unless each side of g is even, as BusyBoxes asks. */
int busyboxes_check(const grid *g, l3d_err *err);

/* The 28 cells of a swap, worked out from their definition. */
void busyboxes_table(bb_table *t);

/* One generation of g (of generation `generation`, its phase) into out,
 * which has g's sizes; returns the cells that moved.  For the tests. */
uint64_t busyboxes_step(const grid *g, uint64_t generation, bool mirror, grid *out);

#endif
