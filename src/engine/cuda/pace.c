/* pace.c - LIFE3D_CUDA_TUNE and the pace of tile steps (see pace.h). */
#include "pace.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/knobs.h"

enum { TILE_GAP_FIRST = 64, TILE_GAP_MOST = 4096 };

/* The fields LIFE3D_CUDA_TUNE's keys set, in engine_tune_keys' order. */
static const size_t tuning_fields[] = {
	offsetof(l3dk_tuning, fuse),  offsetof(l3dk_tuning, warps),   offsetof(l3dk_tuning, chunk),
	offsetof(l3dk_tuning, words), offsetof(l3dk_tuning, generic), offsetof(l3dk_tuning, tiles),
	offsetof(l3dk_tuning, tilez), offsetof(l3dk_tuning, params),  offsetof(l3dk_tuning, regs),
};
_Static_assert(sizeof tuning_fields / sizeof *tuning_fields == ENGINE_TUNE_KEYS,
	       "a field for every key of LIFE3D_CUDA_TUNE");

void cuda_tuning(const char *s, l3dk_tuning *t)
{
	memset(t, 0, sizeof *t);
	while (s && *s) {
		char key[16];
		int value, used = 0;
		if (sscanf(s, "%15[a-z]=%d%n", key, &value, &used) == 2)
			for (size_t i = 0; i < sizeof tuning_fields / sizeof *tuning_fields; i++)
				if (!strcmp(key, engine_tune_keys[i]))
					*(int *)((char *)t + tuning_fields[i]) = value;
		const char *comma = strchr(s, ',');
		s = comma ? comma + 1 : NULL;
	}
}

void cuda_describe_rule(const l3dk_plan *p, char *out, size_t size)
{
	if (p->jit[0])
		snprintf(out, size, ", rule compiled in");
	else if (p->jit_error != cudaSuccess)
		snprintf(out, size, ", rule as parameters (%s)", cudaGetErrorString(p->jit_error));
	else if (size)
		*out = 0;
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
