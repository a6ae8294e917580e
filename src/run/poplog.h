/* poplog.h - the population log: TSV, one line per logged generation.
 *
 *   step	population	births	deaths
 *   0	4194304	0	0
 *
 * `step` is the generation; births and deaths are those of the step that
 * produced it (0 for the first line of a fresh run).  Every line is flushed
 * as written so `tail -f` and pipes see it live. */
#ifndef LIFE3D_RUN_POPLOG_H
#define LIFE3D_RUN_POPLOG_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/engine.h"

typedef struct poplog {
	FILE *f;
	const char *name;
} poplog;

/* "-" is stdout.  A new file gets the header line.  When `resume_gen` is
 * above 0 (a run resuming from a checkpoint) and `path` is an existing log,
 * the log is continued instead: lines after resume_gen (written after the
 * checkpoint by the run that was stopped) are cut off, *resumed is set and
 * *last_logged is the generation of the last line kept. */
int poplog_open(poplog *p, const char *path, bool force, uint64_t resume_gen,
		bool *resumed, uint64_t *last_logged, l3d_err *err);
int poplog_write(poplog *p, uint64_t generation, const engine_stats *s,
		 l3d_err *err);
int poplog_close(poplog *p, l3d_err *err);

#endif
