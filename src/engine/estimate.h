/* estimate.h - how long the CPU engine should take a run, before it runs.
 *
 * With activity skipping the CPU engine's time depends on the universe:
 * a settling soup costs a fraction of stepping every cell, a chaotic rule
 * all of it.  `--engine auto` needs the figure before it starts a GPU
 * (choose.c), so it is estimated from a sample: a cube of at most
 * SAMPLE_EDGE cells a side, cut from the universe's corner at the origin
 * (read from the file at offsets where it can be, else from the first
 * planes once they are in) as a torus of its own, is stepped on one thread with skipping for up to
 * SAMPLE_STEPS of the run's steps.  The share of its tiles it stepped,
 * times the run's dense time, times what a skipped-around tile costs
 * beside a dense one, is the estimate; a sample that stays busy is taken
 * to stay so, and stops as soon as that says enough.  It is a guess about
 * the rest of the universe (a pattern away from the sample's corner is
 * not seen), and only ever decides where a run goes, never what it
 * computes. */
#ifndef LIFE3D_ENGINE_ESTIMATE_H
#define LIFE3D_ENGINE_ESTIMATE_H

#include <stddef.h>

#include "engine.h"

/* Seconds the CPU engine made with opts should take for opts->work cell
 * updates, stepping every cell at engine_cpu_rate(); infinite when opts
 * names a vector path it cannot take. */
double estimate_dense_seconds(const engine_opts *opts);

/* The least that estimate_skipping_seconds() can say for the run of
 * opts (opts->work and opts->steps), whatever the universe: what a sample
 * that settled at once would give.  0 when the steps are unknown. */
double estimate_least_seconds(const engine_opts *opts);

/* The same run (opts->work over opts->steps) with activity skipping,
 * from a sample of `initial`, whose rows are announced through `ready`
 * (NULL when all are there; row_progress_corner, else it waits for the
 * sample's).  The dense figure
 * when the steps are unknown or LIFE3D_SKIP=0.  Stops early, returning a figure of at
 * least `enough`, once the sample shows the run will take that long.
 * Writes a line on what was measured to why (for -v).  Returns a negative
 * figure when no sample can be stepped (memory, threads): no estimate. */
double estimate_skipping_seconds(const engine_opts *opts, const grid *initial,
				 row_progress *ready, const rule *r, double enough,
				 char *why, size_t why_size);

#endif
