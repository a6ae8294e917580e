/* kernels.h - the CUDA kernels' C interface (the only header src/ sees).
 *
 * The device keeps the universe in grid layout (grid.h): rows of 64-bit
 * words, z packed, padding bits above nz zero.  The kernels read it as
 * rows of w32 = 2 * words 32-bit words (little-endian, so the same bits),
 * which makes upload and read-back plain copies.
 *
 * Stepping: a plan (l3dk_plan_make) picks the kernel for a box and a rule:
 *   fused   - Moore (M) rows of at most 32 warp lanes (nz <= 4096): each
 *             block owns a tile of y rows and a chunk of x planes and
 *             marches along x, advancing `fuse` generations per pass over
 *             memory (temporal blocking; halo rows recomputed, z-sums
 *             shared in shared memory);
 *   hood    - the F, C, E and H neighbourhoods on rows of the same limit:
 *             lanes of 2 or 4 words, one generation a launch
 *             (step_hood_lanes);
 *   generic - any box and neighbourhood: one thread per 32-bit word, one
 *             generation a launch (rows too long for lanes, or tuning's
 *             generic=1).
 * A rule other than B6/S567 is a tree of multiplexers over the count
 * whose leaves are kernel parameters; on compute capability 9.0 and later
 * the plan also has the driver compile the one-generation kernel with the
 * rule as constants (rule_jit.cu), which folds the tree away.  The driver
 * keeps what it compiled in its cache (CUDA_CACHE_PATH), so a rule's first
 * run pays for it.
 * Tiles (tiles.cu): steps that advance only the tiles whose neighbourhood
 * changed, for activity skipping.
 * Views (views.cu, render.cu) read the universe and write a picture's
 * data, on whatever stream they are given.
 * Every launch is asynchronous on the given stream; errors are returned as
 * cudaError_t and nothing is printed. */
#ifndef LIFE3D_KERNELS_H
#define LIFE3D_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/bbtable.h"
#include "base/hood.h"

#ifdef __cplusplus
extern "C" {
#endif

#define L3DK_MAX_FUSE 3

/* FUSED: Moore, rows that fit a warp; HOOD: F, C, E or H, rows that fit a
 * warp; GENERIC: a thread a word (longer rows, or forced by tuning). */
enum l3dk_path { L3DK_PATH_FUSED = 0, L3DK_PATH_GENERIC = 1, L3DK_PATH_HOOD = 2 };
/* ANY: a tree over all five bits of S; LOW: no live cell for S >= 16, a
 * tree over four bits; CONST: the rule compiled in at run time. */
enum l3dk_rule_kind {
	L3DK_RULE_B6S567 = 0, L3DK_RULE_ANY = 1, L3DK_RULE_LOW = 2, L3DK_RULE_CONST = 3
};

/* Device-side counters filled by a step with stats and by l3dk_population. */
typedef struct l3dk_counts {
	unsigned long long population, births, deaths;
} l3dk_counts;

/* Geometry of a fused launch advancing k generations. */
typedef struct l3dk_launch {
	uint32_t rows;          /* rows per block, halo included */
	uint32_t out_rows;      /* rows per block written: rows - 2(k-1) */
	uint32_t chunk;         /* x planes per block */
	uint32_t blocks_x, blocks_y, threads;
	uint64_t slots;         /* blocks the device runs at once */
	size_t smem;            /* dynamic shared memory bytes */
} l3dk_launch;

/* Overrides for experiments and tests; 0 = choose. */
typedef struct l3dk_tuning {
	int fuse;               /* generations per launch, 1..L3DK_MAX_FUSE */
	int warps;              /* warps per block */
	int chunk;              /* x planes per block */
	int words;              /* 32-bit words per lane: 2 or 4 */
	int generic;            /* 1: force the generic kernel */
	int tiles;              /* 1: step by tiles however many are active */
	int tilez;              /* 32-bit words of z a tile (L3DK_TILE_Z) */
	int params;             /* 1: the rule as kernel parameters, never
				 * compiled in at run time */
	int regs;               /* most registers a thread of the kernels
				 * compiled at run time */
} l3dk_tuning;

typedef struct l3dk_plan {
	uint32_t nx, ny, nz, w32;    /* box; w32 = 32-bit words per row */
	uint32_t wl, bl;             /* last valid word of a row, its top bit */
	int exact;                   /* nz == 32 * w32: no padding bits */
	int path;                    /* enum l3dk_path */
	int rule_kind;               /* enum l3dk_rule_kind */
	uint32_t birth, survive;     /* rule masks (bit k: count k) */
	rule_hood hood;              /* base/hood.h's number */
	int g;                       /* 32-bit words per lane (fused) */
	uint32_t lpr, rpw;           /* lanes per row, rows per warp (fused) */
	int fuse;                    /* generations per full launch */
	l3dk_launch cfg[L3DK_MAX_FUSE + 1];   /* by generations, 1..fuse */
	/* The one-generation kernel (fused, or the F/C/E/H one) with the rule
	 * compiled in, without and with counters; NULL: none (B6/S567, which
	 * has its own, or no compiler in the driver, or tuning's params). */
	const void *jit[2];
	cudaError_t jit_error;       /* why jit is NULL, if it was tried */
} l3dk_plan;

/* Number of usable devices, 0 on any error (no driver, no device). */
int l3dk_device_count(void);

/* Choose kernels and launch shapes for a box on the current device and
 * set their shared-memory limits.  Call with the device already set, from
 * one thread at a time (the rule's compiled kernels are kept for the
 * process).  A rule that cannot be compiled in is not an error: jit is
 * NULL and jit_error says why. */
cudaError_t l3dk_plan_make(l3dk_plan *p, uint64_t nx, uint64_t ny,
			   uint64_t nz, uint32_t birth, uint32_t survive,
			   rule_hood hood, const l3dk_tuning *tune);

/* Advance `gens` generations (1..p->fuse; the generic path takes 1) from
 * src into dst (distinct buffers of the universe's size).  With counts
 * non-NULL, add the population, births and deaths of the last generation
 * to *counts (device memory).  pdl: launch with programmatic stream
 * serialization (compute capability >= 9.0 only). */
cudaError_t l3dk_step(const l3dk_plan *p, const void *src, void *dst,
		      int gens, l3dk_counts *counts, int pdl, cudaStream_t s);

/* One generation of an open box of nx planes (nx at most the plan's; the
 * plan gives the plane's shape and the rule): src and dst point at plane 0
 * of device buffers where planes -1 and nx of src are halos, read as they
 * are instead of wrapping round.  This steps one rank's slab.  Counts and
 * pdl as in l3dk_step. */
cudaError_t l3dk_step_open(const l3dk_plan *p, const void *src, void *dst,
			   uint64_t nx, l3dk_counts *counts, int pdl, cudaStream_t s);

/* Add the population of a universe to counts->population. */
cudaError_t l3dk_population(const l3dk_plan *p, const void *bits,
			    l3dk_counts *counts, cudaStream_t s);

/* Universe a against b (both of the plan's box): adds to counts the
 * population of a, the cells alive in a and not in b (births, if b came
 * just before a) and the cells alive in b and not in a (deaths). */
cudaError_t l3dk_compare(const l3dk_plan *p, const void *a, const void *b,
			 l3dk_counts *counts, cudaStream_t s);

/* Activity skipping (tiles.cu): steps that advance only the tiles whose
 * neighbourhood changed, bit for bit what l3dk_step gives.  The tiles
 * cover `planes` planes of the plan's plane shape (at most the plan's nx):
 * the torus (planes = nx, open 0), or an open box whose planes -1 and
 * `planes` are halos in memory, as l3dk_step_open reads them (one rank's
 * slab).  A tile is L3DK_TILE_X planes x ty rows x tz 32-bit words of z.
 * The device memory of l3dk_tiles_make's `bytes` holds three lists of
 * tiles (with their sizes and marks) used in turn, each tile's counts of
 * the last generation in each of the two buffers, and for an open box a
 * copy of each buffer's two halo planes.
 *
 * A run of tile steps: l3dk_tiles_reset; then two steps over every tile
 * (l3dk_tiles_all for list r, l3dk_tiles_step reading list r, then the same
 * for r + 1: the first makes the buffer being written hold the generation
 * two back, the second compares with it); then l3dk_tiles_step reading
 * lists r + 2, r + 3, ... (mod 3), each step from the buffer the last one
 * wrote into the other, `out` the index (0, 1) of the buffer written;
 * `all` says that list r is every tile (a kernel that takes a tile a warp,
 * faster when there are that many; one a block otherwise).
 * *size[r] is the number of tiles the step reading list r will advance.
 * In an open box, each tile step from buffer b (its halos in place) is
 * preceded by l3dk_tiles_halos for the list it reads: the halos against
 * those kept from two generations back, the tiles next to a change listed
 * (with wake; not before a step of every tile), the copies refreshed.
 * l3dk_tiles_counts adds the population, births and deaths of the
 * generation last written into buffer b to counts. */
#define L3DK_TILE_X 8
#define L3DK_TILE_Z 4       /* 32-bit words of z a tile by default (2..32) */

typedef struct l3dk_tile_counts {
	uint32_t population, births, deaths;
} l3dk_tile_counts;

typedef struct l3dk_tiles {
	uint32_t planes;             /* planes covered */
	int open;                    /* 1: an open box (halos), 0: the torus */
	uint64_t plane;              /* 32-bit words a plane */
	uint32_t ty, tz;             /* rows and 32-bit words of z a tile */
	uint32_t nx, ny, nz;         /* tiles along x, y, z */
	uint64_t count;              /* tiles in all */
	uint32_t blocks;             /* blocks of a tile step: one a tile */
	uint32_t march_blocks;       /* ... of every tile: one a warp */
	void *base;                  /* the device memory (l3dk_tiles_place) */
	unsigned long long *stepped; /* tiles advanced, summed over the steps */
	uint32_t *size[3], *list[3], *mark[3];
	l3dk_tile_counts *counts[2];
	uint32_t *kept[2];           /* open: each buffer's halos, low and high */
} l3dk_tiles;

cudaError_t l3dk_tiles_make(const l3dk_plan *p, uint64_t planes, int open, int words,
			    l3dk_tiles *t, size_t *bytes);
void l3dk_tiles_place(l3dk_tiles *t, void *mem);
cudaError_t l3dk_tiles_reset(const l3dk_tiles *t, cudaStream_t s);
cudaError_t l3dk_tiles_all(const l3dk_tiles *t, int r, int pdl, cudaStream_t s);
cudaError_t l3dk_tiles_step(const l3dk_plan *p, const l3dk_tiles *t, int r,
			    const void *src, void *dst, int out, int all, int pdl,
			    cudaStream_t s);
cudaError_t l3dk_tiles_halos(const l3dk_plan *p, const l3dk_tiles *t, int r,
			     const void *src, int b, int wake, int pdl, cudaStream_t s);
cudaError_t l3dk_tiles_counts(const l3dk_tiles *t, int b, l3dk_counts *counts,
			      int pdl, cudaStream_t s);

/* Views, with the meaning of grid_project and grid_slice (grid.h);
 * counts and cells are device buffers of width * height entries. */
cudaError_t l3dk_project(const l3dk_plan *p, const void *bits, int axis,
			 uint32_t *counts, cudaStream_t s);
cudaError_t l3dk_slice(const l3dk_plan *p, const void *bits, int axis,
		       uint64_t index, uint8_t *cells, cudaStream_t s);

/* The 3D render of base/render.h, byte for byte render_rows()'s: the view
 * v (render_setup's, for the plan's box; host memory, read before this
 * returns) drawn from bits into rgb, a device buffer of v->width *
 * v->height pixels of 3 bytes.  With scratch, a device buffer of at least
 * l3dk_render_scratch(v) bytes (0: none is of use), a sparse universe is
 * drawn cell by cell, much faster; without, every pixel's ray is walked.
 * The scratch keeps what depends on the view alone from one call to the
 * next: `prepared` says that the last l3dk_render or l3dk_render_prepare
 * given this scratch was for the same view (equal bytes) and succeeded;
 * 0 always works.  cudaErrorInvalidValue for a view of another box or of
 * no pixels.  l3dk_render_prepare queues only that per-view part, so that
 * a run can pay for it before its first step. */
struct render_view;
size_t l3dk_render_scratch(const struct render_view *v);
cudaError_t l3dk_render(const l3dk_plan *p, const void *bits,
			const struct render_view *v, uint8_t *rgb, void *scratch,
			size_t scratch_bytes, int prepared, cudaStream_t s);
cudaError_t l3dk_render_prepare(const struct render_view *v, void *scratch,
				size_t scratch_bytes, cudaStream_t s);

/* The census's soups (census.cu): n spaces of 64^3 cells, one after
 * another in grid layout at boxes (64 x 64 rows of one word each), each
 * stepped `gens` generations of the Moore rule (birth, survive) (no birth
 * on 0), then ends[i] filled with what the census judges a chunk's end by
 * (src/census/census.h): population, census_hash, and whether a live cell
 * is within `edge` cells of a face. */
typedef struct l3dk_census_end {
	unsigned long long population, hash;
	unsigned edge, pad;
} l3dk_census_end;

cudaError_t l3dk_census_chunk(uint64_t *boxes, unsigned n, uint32_t birth, uint32_t survive,
			      unsigned gens, unsigned edge, l3dk_census_end *ends,
			      cudaStream_t stream);

/* One generation of a BusyBoxes rule (busyboxes.cu): cur (nx x ny x nz,
 * grid layout) into next, which it clears first; phase is the
 * generation mod 6, mirror nonzero for BusyBoxes (no move past a face),
 * zero for BusyBoxesW.  counts, when not NULL (and zeroed by the caller),
 * gets the cells that moved in births and next's population. */
cudaError_t l3dk_busyboxes_step(const uint64_t *cur, uint64_t *next, uint64_t nx,
				uint64_t ny, uint64_t nz, const bb_table *table,
				unsigned phase, int mirror, l3dk_counts *counts,
				cudaStream_t s);
/* Adds the population of the `words` 64-bit words at g to counts. */
cudaError_t l3dk_busyboxes_population(const uint64_t *g, uint64_t words,
				      l3dk_counts *counts, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
