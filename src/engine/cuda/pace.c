/* pace.c - LIFE3D_CUDA_TUNE and the pace of tile steps (see pace.h). */
#include "pace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TILE_GAP_FIRST = 64, TILE_GAP_MOST = 4096 };

void cuda_tuning(l3dk_tuning *t)
{
	memset(t, 0, sizeof *t);
	const char *s = getenv("LIFE3D_CUDA_TUNE");
	while (s && *s) {
		char key[16];
		int value, used = 0;
		if (sscanf(s, "%15[a-z]=%d%n", key, &value, &used) == 2) {
			if (!strcmp(key, "fuse"))
				t->fuse = value;
			else if (!strcmp(key, "warps"))
				t->warps = value;
			else if (!strcmp(key, "chunk"))
				t->chunk = value;
			else if (!strcmp(key, "words"))
				t->words = value;
			else if (!strcmp(key, "generic"))
				t->generic = value;
			else if (!strcmp(key, "tiles"))
				t->tiles = value;
			else if (!strcmp(key, "tilez"))
				t->tilez = value;
		}
		const char *comma = strchr(s, ',');
		s = comma ? comma + 1 : NULL;
	}
}

void tile_pace_init(tile_pace *p, bool always)
{
	*p = (tile_pace){.always = always, .dense_left = 2, .gap = TILE_GAP_FIRST};
}

void tile_pace_start(tile_pace *p)
{
	p->on = true;
	p->fresh = 2;
}

bool tile_pace_judge(tile_pace *p, uint32_t size, uint64_t count)
{
	if (p->always || size <= TILE_BUSY * (double)count) {
		p->gap = TILE_GAP_FIRST;
		return true;
	}
	p->on = false;
	p->dense_left = p->gap;
	p->gap = p->gap < TILE_GAP_MOST ? 4 * p->gap : TILE_GAP_MOST;
	return false;
}

void tile_pace_count(tile_pace *p, uint64_t n)
{
	if (p->on) {
		p->tile_steps += n;
		return;
	}
	p->dense_left -= n < p->dense_left ? n : p->dense_left;
	p->dense_steps += n;
}

double tile_pace_share(const tile_pace *p, uint64_t count, double stepped)
{
	double all = (double)(p->dense_steps + p->tile_steps) * (double)count;
	return all > 0 ? (stepped + (double)p->dense_steps * (double)count) / all : 0;
}
