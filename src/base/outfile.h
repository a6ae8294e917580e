/* outfile.h - writing a result file so that no partial or clobbered file
 * is ever left behind.
 *
 * A regular file is written to a temporary file in the same directory and
 * renamed over the target only after a successful flush and fsync; on any
 * error the temporary is removed and an existing target stays untouched.
 * "-" is stdout.  Devices and FIFOs (/dev/null, a named pipe) are written
 * in place: there is nothing to clobber. */
#ifndef LIFE3D_BASE_OUTFILE_H
#define LIFE3D_BASE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "status.h"

typedef struct outfile {
	FILE *f;
	const char *path;      /* as given; "-" for stdout */
	const char *name;      /* for messages: the path or "(stdout)" */
	char *tmp;             /* temporary path, NULL when written in place */
	bool force;            /* may replace a file that exists at commit */
} outfile;

/* Can we write `path`?  Refuses an existing regular file without `force`
 * and binary data to a terminal without `force` (L3D_ERR_CANTCREAT), and a
 * missing directory (L3D_ERR_CANTCREAT).  Run before long work starts so a
 * doomed run fails in a second, not after hours. */
int outfile_check(const char *path, bool force, bool binary, l3d_err *err);

int outfile_open(outfile *o, const char *path, bool force, bool binary,
		 l3d_err *err);
/* Flush, sync and move into place.  L3D_ERR_IO on any failure (the
 * temporary is removed).  Without force, a file that appeared at the path
 * while the temporary was written is never replaced: L3D_ERR_CANTCREAT,
 * and the temporary is kept, under the name the message gives.  With
 * force, a replaced file's mode (and, for root, its owner) carry over. */
int outfile_commit(outfile *o, l3d_err *err);
/* Drop whatever was written (no-op after commit). */
void outfile_abort(outfile *o);

/* Have the system start writing to disk what has reached f's file so far,
 * without waiting for it.  A writer that calls this every few MiB leaves
 * the fsync of outfile_commit() little to wait for, since the disk works
 * while the rest is still being produced.  Nothing for streams that are
 * not regular files (pipes, terminals, memory); errors are left for the
 * writes and the commit to report. */
void outfile_writeback(FILE *f);

/* Remove every temporary still open; safe to call from a signal handler. */
void outfile_abort_all(void);

bool outfile_is_stdout(const char *path);

#endif
