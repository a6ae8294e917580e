/* haul.h - what a census found: each object's code, its kind, period,
 * population, displacement, how many were seen and the first soups that
 * made it; written as tab-separated text (life3d-census(1), HAUL FORMAT).
 *
 * Hauls add: counts sum and each object keeps the lowest-numbered soups
 * among its samples, so the haul of a census does not depend on the
 * order in which its soups were done (threads), nor on how its soups were
 * shared out. */
#ifndef LIFE3D_CENSUS_HAUL_H
#define LIFE3D_CENSUS_HAUL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h"

#define HAUL_SAMPLES 3

typedef struct haul_entry {
	char *code;
	int kind;                 /* 's', 'p', 'q', or 'z' for a soup's class */
	int period;               /* 0 for 'z' */
	uint64_t population;
	int d[3];                 /* displacement per period */
	uint64_t count;
	uint64_t sample[HAUL_SAMPLES];   /* soup numbers, lowest first */
	int samples;
} haul_entry;

typedef struct haul {
	haul_entry *e;            /* sorted by code */
	size_t n, cap;
	uint64_t soups;           /* soups done */
} haul;

/* What heads a haul: everything that makes its soups and their fate. */
typedef struct haul_head {
	const char *version, *rule, *root;
	bool files;               /* soups from files: samples are "#I", the
				     I-th file (from 0), and root is unused */
	uint32_t side;
	double density;
	uint64_t first;           /* the first soup's number */
	uint64_t max_gens;
	uint32_t space;           /* the side of the space a soup grows in */
} haul_head;

void haul_init(haul *h);
void haul_free(haul *h);
/* One more of `like` (its code, kind, period, population, displacement),
 * seen `like->count` times in the soups of like->sample. */
int haul_add(haul *h, const haul_entry *like, l3d_err *err);
int haul_merge(haul *into, const haul *from, l3d_err *err);
/* The kind's word in a haul ("still", "oscillator", "ship", "unsettled"). */
const char *haul_kind_word(int kind);
/* The haul as text, most common first; ferror(out) tells of a write
 * failure, the code returned of a lack of memory. */
int haul_write(FILE *out, const haul *h, const haul_head *head, l3d_err *err);

#endif
