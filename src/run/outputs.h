/* outputs.h - a run's files, decided and checked before the first step.
 *
 * Every path a run will write (the result, the log, the checkpoint, each
 * snapshot name it will produce, and the temporary names next to them) is
 * checked before any work is done, so that a doomed run fails in a second,
 * not after hours: exists without -f, a symbolic link, a directory that
 * cannot be written, a name too long, two outputs that are the same file, an
 * output that is the input.  A checkpoint replaces only a checkpoint of
 * the same run (its run stamp, format/io.h) or the file the run resumed
 * from.  Single-process calls; the run agrees on the outcome. */
#ifndef LIFE3D_RUN_OUTPUTS_H
#define LIFE3D_RUN_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/outfile.h"
#include "format/io.h"
#include "snapshot.h"

typedef struct run_outputs {
	const char *input;        /* a file, or NULL (stdin, --random) */
	bool input_stdin;         /* read from standard input */
	const char *result;       /* "-": standard output */
	const char *log;          /* NULL: none */
	const char *checkpoint;
	const char *summary;      /* NULL: none */
	const snapshot_opts *snap;
	uint64_t snap_every, first, last;   /* snapshots of these generations */
	bool snap_first;          /* and of the first one */
	const run_stamp *resume;  /* the input's stamp (run_id 0: none) */
	uint64_t run_id;
	bool force;
} run_outputs;

/* The checkpoint when --checkpoint is not given: RESULT.ckpt.l3d next to
 * a result file; for standard output or a device, a name of this run
 * alone, life3d-PID-TIME.ckpt.l3d (the time in seconds since 1970), in the
 * current directory, or in $TMPDIR (else /tmp) where that cannot be
 * written.  `pid` and `time` are the run's (the same on every rank);
 * *own says which of the two it is. */
int outputs_default_checkpoint(const char *result, long pid, long time,
			       char *buf, size_t size, bool *own, l3d_err *err);

/* Everything above; L3D_ERR_CANTCREAT for a path that cannot be written,
 * L3D_ERR_USAGE for two outputs that are one file or an output that is
 * the input.  Standard input and output count as the files they are
 * redirected from and to (`< in.l3d`, `> out.l3d`). */
int outputs_check(const run_outputs *r, l3d_err *err);

/* May the checkpoint at `path` be replaced now: nothing there, the run's
 * own (its stamp has run_id: the checkpoint a run resumed from is), or,
 * with force.force, the file force.only names (-f: the one there when the
 * run began; any, when its ino is 0); and nothing a checkpoint cannot
 * replace (a link, a directory, a FIFO of another user).
 * L3D_ERR_CANTCREAT otherwise.  *may is what the checkpoint's write may
 * replace: the file approved here and no other that takes its name
 * before the write (outfile_open_may). */
int outputs_checkpoint_usable(const char *path, uint64_t run_id, outfile_may force,
			      outfile_may *may, l3d_err *err);

/* A name beside `path` for a run whose checkpoint name was taken while it
 * ran: PATH less ".l3d", "-", `id` in 16 hex digits, ".l3d".  -1 when it
 * does not fit in `size`. */
int outputs_checkpoint_beside(const char *path, uint64_t id, char *buf, size_t size);

#endif
