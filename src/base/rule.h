/* rule.h - outer-totalistic rules on Golly's five 3D neighbourhoods.
 *
 * A rule is a neighbourhood and two sets of neighbour counts: a dead cell
 * with a count in `birth` becomes alive, a live cell with a count in
 * `survive` stays alive; every other cell is dead in the next generation.
 * Bit k of a mask stands for count k.  The neighbourhoods, their letters
 * and offsets are hood.h's: Moore (no letter, counts 0..26), F (also
 * written V, 0..6), C (0..8), E (0..12) and H (0..12). */
#ifndef LIFE3D_BASE_RULE_H
#define LIFE3D_BASE_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "hood.h"
#include "status.h"

#define RULE_MAX_COUNT HOOD_MAX_CELLS
#define RULE_ALL_COUNTS ((UINT32_C(1) << (RULE_MAX_COUNT + 1)) - 1)

/* The rule families: outer-totalistic counts, or Golly's BusyBoxes, Fredkin
 * and Miller's reversible six-phase rule (engine/busyboxes.h), whose moves
 * past the universe's faces are refused ("mirror", Golly's BB) or wrap
 * around (Golly's BBW).  A BusyBoxes rule has no counts: birth, survive
 * and hood are 0. */
typedef enum rule_family {
	RULE_COUNTS = 0,
	RULE_BUSYBOXES,
	RULE_BUSYBOXES_WRAP
} rule_family;

typedef struct rule {
	uint32_t birth;
	uint32_t survive;
	uint32_t hood;          /* a rule_hood; 0 (Moore) when left out */
	uint32_t family;        /* a rule_family; 0 (counts) when left out */
} rule;

/* r is one of Golly's BusyBoxes rules (either boundary). */
static inline int rule_is_busyboxes(const rule *r)
{
	return r->family == RULE_BUSYBOXES || r->family == RULE_BUSYBOXES_WRAP;
}

/* hood.h's table, for any h (one out of range is Moore).  The largest
 * count of a neighbourhood: 26, 6, 8, 12, 12. */
unsigned rule_hood_max(rule_hood h);

/* Golly's suffix letter ("" for Moore, "F", "C", "E", "H") and a name for
 * messages ("Moore", "face", "corner", "edge", "hexahedral"). */
const char *rule_hood_suffix(rule_hood h);
const char *rule_hood_name(rule_hood h);

/* The offsets of a neighbourhood: fills up to 26 (dx,dy,dz) triples and
 * returns how many. */
unsigned rule_hood_offsets(rule_hood h, int offsets[26][3]);

/* B6/S567, the 3D Game of Life (Bays' 5766). */
#define RULE_DEFAULT_TEXT "B6/S567"
extern const rule rule_default;

/* Parse any of the accepted notations, case-insensitive:
 *   B/S      "B6/S567", "b6/s567", "B3,6/S3..8", "B6/S5-7", "B/S" (empty sets),
 *            "S567/B6" (either order)
 *   Bays     "5766": four numbers El Eu Fl Fu = survive El..Eu, birth Fl..Fu
 *            (one digit each; "El,Eu,Fl,Fu" with commas for counts over 9)
 *   Golly    "3D5..7/6" = 3D<survive>/<birth>, comma lists and a..b ranges;
 *            Golly has no birth on 0, so neither has this notation.
 * A neighbourhood letter F, V, C, E or H may end any of them ("3D3/3H",
 * "B3/S3H"); none means Moore.  Counts above the neighbourhood's largest
 * are refused.  Golly's BusyBoxes rules, BusyBoxes or BB (refused moves
 * at the faces) and BusyBoxesW or BBW (wrapped), in any case, are that
 * family with no counts.  On error returns L3D_ERR_USAGE with a message
 * that quotes the text and points at the offending position, e.g.
 *   rule 'B6/S5x7': unexpected 'x' at column 6 (expected a count 0..26) */
int rule_parse(const char *text, rule *out, l3d_err *err);

/* Canonical B/S text ("BusyBoxes", "BusyBoxesW" for that family): counts
 * in increasing order, runs of three or more as
 * ranges "a..b" only when a count over 9 is present, otherwise plain digits:
 * "B6/S567", "B3,6/S3..8" style for counts >= 10; then the neighbourhood's
 * letter ("B3/S3H").  Returns the length that would have been written
 * (like snprintf). */
int rule_format(const rule *r, char *buf, size_t size);

/* Golly's canonical form "3D5..7/6", "3D3/3H" (survive first, then birth,
 * runs of two as "a,b", longer runs as "a..b", then the letter).  A rule
 * with birth on 0 has no Golly form and is written in B/S form; BusyBoxes
 * as Golly names it ("BusyBoxes", "BusyBoxesW"). */
int rule_format_golly(const rule *r, char *buf, size_t size);

int rule_equal(const rule *a, const rule *b);

#endif
