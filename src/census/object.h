/* object.h - the census's objects: sets of cells, their connected
 * components, the symmetries of a neighbourhood and the canonical code
 * that names an object whatever its position, orientation or phase.
 *
 * Cells are int32 (x, y, z) in unbounded space.  Rules and stepping are
 * not part of this module: it works on sets of cells that the caller has
 * found (a still life, or the `period` consecutive generations of an
 * oscillator or spaceship).
 *
 * Rules of the module:
 *   - A cellset is sorted when its cells are in (x, y, z) lexicographic
 *     order without repeats (cellset_sort); functions that need it say so.
 *   - Two cells belong to one object when their difference is in N or in
 *     N+N (N: the neighbourhood's offsets, hood.h; N+N: the sums of two,
 *     but (0,0,0)), so that cells a dead cell's birth could join count as
 *     one object.  N+N lacks N itself for the face neighbourhood, hence
 *     both.
 *   - The symmetries of a neighbourhood are the integer matrices mapping
 *     its offsets onto themselves; an object is named up to them and up to
 *     translation.  A code is, as apgsearch's: "x" kind number "_" X "x" Y
 *     "x" Z "_" hex, e.g. xs8_2x2x2_ff (census_code says how it is made).
 *   - Library code: nothing is printed, nothing exits; a function that
 *     can fail returns an l3d_status and fills its l3d_err. */
#ifndef LIFE3D_CENSUS_OBJECT_H
#define LIFE3D_CENSUS_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hood.h"
#include "base/status.h"

typedef struct census_cell {
	int32_t x, y, z;
} census_cell;

typedef struct cellset {
	census_cell *c;
	size_t n, cap;
} cellset;

/* An empty set; free gives its memory back and leaves it empty; clear
 * empties it and keeps the memory. */
void cellset_init(cellset *s);
void cellset_free(cellset *s);
void cellset_clear(cellset *s);

/* Append a cell (L3D_ERR_RUNTIME when out of memory; s is unchanged). */
int cellset_push(cellset *s, int32_t x, int32_t y, int32_t z, l3d_err *err);

/* Sort into (x, y, z) order and drop repeated cells. */
void cellset_sort(cellset *s);

/* Move every cell by d; L3D_ERR_DATA, s unchanged, when a cell would
 * leave the int32 range.  Order, hence sortedness, is kept. */
int cellset_translate(cellset *s, const int d[3], l3d_err *err);

/* True when b is a moved by some d (both sorted), d then set to it
 * (b = a + d; (0,0,0) for two empty sets).  A move beyond int's range
 * counts as false. */
bool cellset_same_shape(const cellset *a, const cellset *b, int d[3]);

/* Connected components of sorted s under `hood` (joined: a difference in
 * N or N+N, see above).  label[i] (s->n of them, the caller's) gets the
 * component of cell i, numbered 0..count-1 in the order of their first
 * cells in s.  Union-find over a binary search of s: no memory is taken.
 * Fails (L3D_ERR_DATA) only for a set of more than UINT32_MAX cells or a
 * neighbourhood out of range. */
int cellset_components(const cellset *s, rule_hood hood, uint32_t *label,
		       size_t *count, l3d_err *err);

/* The symmetries of a neighbourhood: every 3x3 integer matrix mapping its
 * offset set one to one onto itself, in a fixed order, the identity
 * first.  48 at most: every finite group of integer 3x3 matrices is. */
#define CENSUS_GROUP_MAX 48

typedef struct census_group {
	int n;
	int8_t m[CENSUS_GROUP_MAX][3][3];   /* m[k][row][column] */
} census_group;

/* Moore, F, C and E give the 48 signed permutations; H 48 as well, the
 * face-centred cubic lattice's point group in H's skewed coordinates,
 * which lacks the mirror x -> -x and holds matrices that are no signed
 * permutation.  A neighbourhood out of range gets the Moore group. */
void census_group_of(rule_hood hood, census_group *g);

/* Largest box, in cells, of a canonical phase: its code has a quarter as
 * many hex digits.  A larger object is L3D_ERR_DATA. */
#define CENSUS_MAX_BOX ((uint64_t)1 << 24)

typedef struct census_name {
	char *code;            /* e.g. "xs8_2x2x2_ff"; heap, census_name_free */
	int kind;              /* 's' still life, 'p' oscillator, 'q' spaceship */
	int period;
	uint64_t population;   /* of the canonical phase */
	int d[3];              /* displacement per period, canonically turned */
	cellset cells;         /* canonical phase: min corner (0,0,0), sorted */
} census_name;

/* Name an object: its `period` phases (each without repeated cells, in
 * any order of cells and at any position), its displacement d per period
 * ((0,0,0) unless a spaceship) and the group g of its rule's
 * neighbourhood.  Every phase under every element of g is moved to a min
 * corner (0,0,0), giving a box X x Y x Z whose cell (x, y, z) is bit
 * ((x*Y)+y)*Z+z; its ceil(X*Y*Z/4) hex digits hold 4 bits each, digit k
 * bits 4k..4k+3 (bit 4k worth 1).  The smallest (X, Y, Z), compared in
 * that order, and then the smallest hex string (strcmp) is the canonical
 * one.  kind is 's' for period 1 and d = 0, 'q' for d != 0, else 'p'; the
 * code's number is the population for 's', the period otherwise.  d is
 * reported turned by the chosen element.
 * *out need not be initialised and is overwritten, its old contents not
 * freed; on failure it holds nothing, and census_name_free is safe on it
 * either way.  Errors: L3D_ERR_DATA for no phase, an empty phase, a box
 * over CENSUS_MAX_BOX or a turned d beyond int; L3D_ERR_RUNTIME for out
 * of memory. */
int census_code(const cellset *phases, int period, const int d[3],
		const census_group *g, census_name *out, l3d_err *err);

void census_name_free(census_name *nm);

#endif
