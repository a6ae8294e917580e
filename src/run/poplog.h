/* poplog.h - the population log: TSV, one line per logged generation,
 * after comment lines that say what the run was (the caller's `about`):
 *
 *   # life3d 0.1.0 population log
 *   # rule: B6/S567 (Golly: 3D5..7/6)
 *   ...
 *   step	population	births	deaths
 *   0	4194304	0	0
 *
 * `step` is the generation; births and deaths are those of the step that
 * produced it (0 for the first line of a fresh run).  Every line is flushed
 * as written so `tail -f` and pipes see it live.
 *
 * The log is written in place, never through a symbolic link; with force
 * a fresh file takes an existing log's name (outfile_fresh), so a hard
 * link to the old one keeps its bytes.  A run resumed from a checkpoint
 * continues the log only when the log is the one the checkpoint names (its
 * length and CRC-32 when the checkpoint was taken, io.h's run_stamp).
 *
 * After a write error the log is cut to its whole lines and held until
 * poplog_resolve: kept, when a checkpoint of the generation reached records
 * those lines (so that resuming from it continues the log), or put back as
 * it was before the run (a log the run created or replaced removed, a
 * replaced log's old lines having gone when the run began; a continued one
 * given its old bytes back).  poplog_close puts back a log left held. */
#ifndef LIFE3D_RUN_POPLOG_H
#define LIFE3D_RUN_POPLOG_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "engine/engine.h"
#include "format/io.h"

typedef enum poplog_mode {
	POPLOG_STDOUT,           /* "-" */
	POPLOG_STREAM,           /* a FIFO or device of ours, in place */
	POPLOG_CREATE,           /* a new file */
	POPLOG_REPLACE,          /* an existing file, with force */
	POPLOG_CONTINUE          /* the resumed run's own log */
} poplog_mode;

typedef struct poplog {
	FILE *f;
	const char *name;        /* for messages */
	const char *path;
	poplog_mode mode;
	uint64_t bytes;          /* in the file so far (all flushed) */
	uint32_t crc;            /* CRC-32 of those bytes */
	uint64_t kept;           /* CONTINUE: the length it was cut to */
	char *tail;              /* CONTINUE: the bytes cut off, for a restore */
	size_t tail_len;
	dev_t dev;
	ino_t ino;
	bool broken;             /* a write failed; not yet resolved */
	int held;                /* broken: the file, open (-1: none) */
	bool gone;               /* put back after a write error */
} poplog;

/* What poplog_open would do with `path`, without touching it; `resume` is
 * the stamp of the checkpoint the run resumes from (run_id 0: a fresh
 * run).  L3D_ERR_CANTCREAT for an existing file that is not the resumed
 * run's log (without force), and whatever outfile_inspect refuses. */
int poplog_check(const char *path, bool force, const run_stamp *resume,
		 poplog_mode *mode, l3d_err *err);

/* Which log a run opens: path ("-": stdout), force, the stamp of the
 * checkpoint the run resumes from (poplog_check), and the comment lines a
 * new log begins with (each "# ...\n"; NULL: none). */
typedef struct poplog_spec {
	const char *path;
	bool force;
	const run_stamp *resume;
	const char *about;
} poplog_spec;

/* Open the log.  A new, replaced or streamed log gets the comment lines
 * and the header line; a continued one (which has its own) is cut back to
 * what the checkpoint saw, and *last_logged is the generation of its last
 * line (0 for none).  *resumed says which. */
int poplog_open(poplog *p, const poplog_spec *s, bool *resumed, uint64_t *last_logged,
		l3d_err *err);
int poplog_write(poplog *p, uint64_t generation, const engine_stats *s,
		 l3d_err *err);
/* What identifies the log now (its whole lines, also once closed or
 * broken), for a checkpoint's stamp: *bytes 0 when there is no file to
 * continue (stdout, a stream, a log put back). */
void poplog_identity(const poplog *p, uint64_t *bytes, uint32_t *crc);
/* After a write error: keep the log's whole lines (a checkpoint records
 * them) or put it back as it was before the run.  Nothing otherwise. */
void poplog_resolve(poplog *p, bool keep);
int poplog_close(poplog *p, l3d_err *err);

#endif
