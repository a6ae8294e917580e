/* rule.h - outer-totalistic rules on the 26-cell Moore neighbourhood.
 *
 * A rule is two sets of neighbour counts (0..26): a dead cell with a count
 * in `birth` becomes alive, a live cell with a count in `survive` stays
 * alive; every other cell is dead in the next generation.  Bit k of a mask
 * stands for count k. */
#ifndef LIFE3D_BASE_RULE_H
#define LIFE3D_BASE_RULE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define RULE_MAX_COUNT 26
#define RULE_ALL_COUNTS ((UINT32_C(1) << (RULE_MAX_COUNT + 1)) - 1)

typedef struct rule {
	uint32_t birth;
	uint32_t survive;
} rule;

/* B6/S567, the 3D Game of Life (Bays' 5766). */
#define RULE_DEFAULT_TEXT "B6/S567"
extern const rule rule_default;

/* Parse any of the accepted notations:
 *   B/S      "B6/S567", "b6/s567", "B3,6/S3..8", "B6/S5-7", "B/S" (empty sets),
 *            "S567/B6" (either order)
 *   Bays     "5766": four numbers El Eu Fl Fu = survive El..Eu, birth Fl..Fu
 *            (one digit each; "El,Eu,Fl,Fu" with commas for counts over 9)
 *   Golly    "3D5..7/6" = 3D<survive>/<birth>, comma lists and a..b ranges;
 *            only the Moore neighbourhood (no suffix) is accepted.
 * On error returns L3D_ERR_USAGE with a message that quotes the text and
 * points at the offending position, e.g.
 *   rule 'B6/S5x7': unexpected 'x' at column 6 (expected a count 0..26) */
int rule_parse(const char *text, rule *out, l3d_err *err);

/* Canonical B/S text: counts in increasing order, runs of three or more as
 * ranges "a..b" only when a count over 9 is present, otherwise plain digits:
 * "B6/S567", "B3,6/S3..8" style for counts >= 10.  Returns the length
 * that would have been written (like snprintf). */
int rule_format(const rule *r, char *buf, size_t size);

/* Golly's form "3D5..7/6" (survive first, then birth). */
int rule_format_golly(const rule *r, char *buf, size_t size);

int rule_equal(const rule *a, const rule *b);

#endif
