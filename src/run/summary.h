/* summary.h - the run told as one JSON object (--summary FILE), for a
 * Slurm epilogue, a notebook or jq: what ran, how it ended, how long each
 * phase took and what was written.  Written at the end of every run that
 * got as far as its options, failed or not, by rank 0 alone, atomically
 * (base/outfile.h) or to standard output; life3d(1) SUMMARY documents
 * every field.  The text is made by Jansson, not by hand. */
#ifndef LIFE3D_RUN_SUMMARY_H
#define LIFE3D_RUN_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rule.h"
#include "base/status.h"

typedef struct run_summary {
	int status;                  /* the exit status */
	const char *reason;          /* its message; NULL for status 0 */
	const char *input;           /* a path, "-" (stdin), or NULL (--random) */
	bool random;
	uint64_t seed;
	double density;
	const char *random_shape;
	bool sized;                  /* the universe was read: size, rule */
	uint64_t size[3];
	const rule *rule;
	uint64_t first, generation;  /* where the run began and got to */
	bool counted;                /* population holds the last generation's */
	uint64_t population;
	const char *engine;          /* engine_describe; NULL: none made */
	int threads;                 /* 0: the affinity mask's */
	const char *threads_from;
	int ranks;
	double seconds[5];           /* input, engine set-up, steps and
	                                events, output, in all */
	double stepping;             /* seconds the engine stepped */
	double cells;                /* cells a generation, for the rates */
	bool leapt;
	uint64_t leap_period, leap_from;
	const char *result, *result_format;   /* NULL: none written */
	const char *log;
	const char *checkpoint;      /* the last one this run wrote; NULL: none */
	uint64_t snapshots;          /* pictures written */
} run_summary;

/* Write s to `path` ("-": standard output) as one JSON object and a
 * newline, replacing a file there only with force (checked before the
 * run by outfile_check).  L3D_ERR_IO or L3D_ERR_CANTCREAT on failure. */
int summary_write(const char *path, bool force, const run_summary *s, l3d_err *err);

#endif
