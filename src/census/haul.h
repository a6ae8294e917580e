/* haul.h - what a census found: each object's code, its kind, period,
 * population, displacement, how many were seen and the first soups that
 * made it; written as tab-separated text (life3d-census(1), HAUL FORMAT).
 *
 * Hauls add: counts sum and each object keeps the lowest-numbered soups
 * among its samples, so the haul of a census does not depend on the
 * order in which its soups were done (threads), nor on how its soups were
 * shared out; each haul says which soups it holds, and no soup is added
 * twice.  A haul read back (haul_read) is the one written, so hauls made
 * on different days or machines add up (--merge). */
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

/* Soups lo .. hi - 1. */
typedef struct haul_range {
	uint64_t lo, hi;
} haul_range;

typedef struct haul {
	haul_entry *e;            /* sorted by code */
	size_t n, cap;
	uint64_t soups;           /* soups done */
	haul_range *range;        /* the soups' numbers: sorted, apart */
	size_t ranges, range_cap;
} haul;

/* What makes a haul's soups and their fate, as its header says it: two
 * hauls add only when these are the same. */
typedef struct haul_head {
	char version[32];         /* life3d's */
	char rule[64];
	char soup[96];            /* "16x16x16 density 0.25" */
	char root[160];
	char bounds[96];          /* "10000 generations, space 64^3" */
	bool files;               /* soups from files: samples are "#I", the
				     I-th file (from 0), and root is unused */
} haul_head;

void haul_init(haul *h);
void haul_free(haul *h);
/* One more of `like` (its code, kind, period, population, displacement),
 * seen `like->count` times in the soups of like->sample. */
int haul_add(haul *h, const haul_entry *like, l3d_err *err);
/* Soups lo .. hi - 1 are in h: L3D_ERR_DATA when some were already. */
int haul_add_range(haul *h, uint64_t lo, uint64_t hi, l3d_err *err);
/* from added to into: its objects and its soups' ranges (L3D_ERR_DATA when
 * a soup would be counted twice). */
int haul_merge(haul *into, const haul *from, l3d_err *err);
/* A haul written by haul_write, from in (named `name` in messages), into
 * h (haul_init'ed) and *head.  L3D_ERR_DATA "NAME:LINE: ..." for anything
 * else, L3D_ERR_IO for a read error. */
int haul_read(FILE *in, const char *name, haul *h, haul_head *head, l3d_err *err);
/* The kind's word in a haul ("still", "oscillator", "ship", "unsettled"). */
const char *haul_kind_word(int kind);
/* The haul as text, most common first; ferror(out) tells of a write
 * failure, the code returned of a lack of memory. */
int haul_write(FILE *out, const haul *h, const haul_head *head, l3d_err *err);
/* Whether a and b make the same soups and judge them alike; when not,
 * *what names the first line that differs ("rule", ...). */
bool haul_same_head(const haul_head *a, const haul_head *b, const char **what);

#endif
