/* pace.h - how a GPU engine steps: the overrides of LIFE3D_CUDA_TUNE, the
 * words -v says of the plan's rule, and when to step by tiles
 * (kernels/tiles.cu) and when densely.
 *
 * Shared by the single-GPU engine (cuda.c) and the GPU slab backend of the
 * distributed mode (mpi/backend_cuda.c).  The pace of tile steps: the
 * first two steps of an engine are dense; then two steps over every tile
 * start the lists, and from there each step advances the tiles its list
 * names.  When a list holds more than TILE_BUSY of the tiles, the engine
 * steps densely for a gap (64 steps, four times as many each time that
 * goes on, up to 4096) and then starts the lists again.  A step of every
 * tile costs six or seven dense steps (measured: kernels/NOTES.md,
 * "Activity skipping on the GPU"), so lists pay up to some 8% of the
 * tiles, and a look at a busy universe is made rarely.  CUDA builds
 * only. */
#ifndef LIFE3D_ENGINE_CUDA_PACE_H
#define LIFE3D_ENGINE_CUDA_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/kernels.h"

/* LIFE3D_CUDA_TUNE's text ("fuse=2,warps=8,tiles=1,tilez=8"; NULL: none)
 * into t, its keys those of engine/knobs.h (which checked the text); keys
 * missing are 0 (choose). */
void cuda_tuning(const char *text, l3dk_tuning *t);

/* How a plan applies its rule, for -v: ", rule compiled in" when the driver
 * compiled it into the kernels, ", rule as parameters (WHY)" when that was
 * tried and failed, nothing otherwise; written into out (size bytes). */
void cuda_describe_rule(const l3dk_plan *p, char *out, size_t size);

#define TILE_BUSY 0.08

typedef struct tile_pace {
	bool always;            /* lists however long (LIFE3D_CUDA_TUNE tiles=1) */
	bool on;                /* the lists are running */
	int fresh;              /* steps over every tile still to come */
	uint64_t dense_left;    /* dense steps before the lists start */
	uint64_t gap;           /* ... the next time they are too long */
	uint64_t dense_steps, tile_steps;
} tile_pace;

/* Two dense steps to come. */
void tile_pace_init(tile_pace *p, bool always);

/* The lists start: two steps over every tile to come. */
void tile_pace_start(tile_pace *p);

/* A list of `size` tiles of `count` (size > 0) is next: whether it is
 * worth stepping (else p->on is false, dense steps for the gap). */
bool tile_pace_judge(tile_pace *p, uint32_t size, uint64_t count);

/* After `n` steps taken as p says (dense when !p->on), counted. */
void tile_pace_count(tile_pace *p, uint64_t n);

/* The share of the tiles stepped over every step so far, of `count`
 * tiles, `stepped` of them by tile steps. */
double tile_pace_share(const tile_pace *p, uint64_t count, double stepped);

#endif
