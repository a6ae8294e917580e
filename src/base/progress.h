/* progress.h - the rows of a universe becoming ready while it is filled in.
 *
 * A file is read into an allocated grid on one thread while an engine on
 * another takes the rows already read (the CUDA engine copies them to the
 * device), so the transfer overlaps the reading instead of following it.
 * Rows are counted in grid order (row x * ny + y), so the first k rows are
 * the first k * words words of the grid, one contiguous block.
 *
 * The filler announces how many rows are done, in order, and finally
 * either all of them or a failure; followers wait for rows with a
 * condition variable (no polling).  The failure's message stays with the
 * filler: a follower learns only that no more rows will come.
 *
 * A filler that can also read cells out of order (a regular file, at
 * offsets) may offer a corner reader, so that a follower who wants only
 * the cells near the origin (the sample of engine choice) need not wait
 * for whole planes of rows. */
#ifndef LIFE3D_BASE_PROGRESS_H
#define LIFE3D_BASE_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "grid.h"
#include "status.h"

typedef struct row_progress {
	pthread_mutex_t lock;
	pthread_cond_t moved;
	uint64_t total;          /* rows in the universe */
	uint64_t ready;          /* rows [0, ready) hold their cells */
	bool failed;             /* the filler gave up: no more rows will come */
	double done_at;          /* l3d_seconds() when the last row came (clock.h) */
	/* corner(corner_ctx, cube): see row_progress_corner; NULL: none.  Set
	 * by the filler before any follower looks. */
	int (*corner)(void *ctx, grid *cube);
	void *corner_ctx;
} row_progress;

void row_progress_init(row_progress *p, uint64_t total);
void row_progress_destroy(row_progress *p);

/* Filler: rows [0, ready) are done (ready never goes down). */
void row_progress_publish(row_progress *p, uint64_t ready);
/* Filler: no more rows will come. */
void row_progress_fail(row_progress *p);

/* Wait until `want` rows are ready (want is capped at the total).  Returns
 * 0 with *ready the rows ready now (at least want), or -1 when the filler
 * failed before that many rows came. */
int row_progress_wait(row_progress *p, uint64_t want, uint64_t *ready);

/* Fill `cube` (allocated; rows of one word, nz <= 64; no side longer
 * than the universe's) with the universe's cells at its origin, from
 * wherever the filler can read them now, ready or not.  Returns 0, or -1
 * when the filler offers no corner reader or it could not read them (then
 * wait for the rows).  Safe beside the filler. */
int row_progress_corner(row_progress *p, grid *cube);

/* Hand every row to take(ctx, first, n, err) as the rows become ready,
 * in order, in runs of at least `batch` rows (except the last), so that a
 * taker with a cost per call (a device copy) is not called for every few
 * rows.  p NULL: all `total` rows are ready, one call.  Returns take's
 * error, or L3D_ERR_RUNTIME ("<what>: the universe's rows stopped coming")
 * when the filler failed; the filler has the reason. */
typedef int (*row_taker)(void *ctx, uint64_t first, uint64_t n, l3d_err *err);
int row_progress_follow(row_progress *p, uint64_t total, uint64_t batch,
			row_taker take, void *ctx, const char *what, l3d_err *err);

#endif
