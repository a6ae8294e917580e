/* outfile.h - writing a result file so that no partial or clobbered file
 * is ever left behind.
 *
 * A regular file is written to a temporary file in the same directory,
 * ".NAME.life3d-PID-XXXXXX.tmp", and renamed over the target only after a
 * successful flush and fsync; on any error the temporary is removed and an
 * existing target stays untouched.  "-" and "/dev/stdout" are stdout.  No
 * output follows a symbolic link at its name, nor one that another user
 * planted in a shared directory anywhere on its way (pathwalk.h): the
 * directory is reached one component at a time and held open, and the
 * temporary is made, renamed and removed in it.  A FIFO or character device (/dev/null, a
 * named pipe) is written in place when it belongs to the user or to root:
 * there is nothing to clobber; one of another user, a socket, a block
 * device or a directory is refused. */
#ifndef LIFE3D_BASE_OUTFILE_H
#define LIFE3D_BASE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "status.h"

typedef struct outfile {
	FILE *f;
	const char *path;      /* as given; "-" for stdout */
	const char *name;      /* for messages: the path or "(stdout)" */
	char *tmp;             /* temporary path, NULL when written in place */
	const char *tmp_name;  /* its last component (in tmp) */
	const char *base;      /* path's last component (in path) */
	int dir;               /* the directory both are in, while tmp is set */
	bool force;            /* may replace the file there at open */
	bool kept;             /* commit failed, but the whole file is kept
				  under the name its message gives */
	bool was;              /* force: a regular file was there at open, */
	dev_t was_dev;         /* this one */
	ino_t was_ino;
} outfile;

/* A file by its identity; ino 0: none. */
typedef struct outfile_id {
	dev_t dev;
	ino_t ino;
} outfile_id;

/* Which regular file at its path an output may replace.  Without force,
 * none.  With force, the one there when the output is opened; or, when
 * only.ino is not 0, that file alone (one the caller checked earlier):
 * another that took the name since is kept, and the output is put beside
 * it, as without force. */
typedef struct outfile_may {
	bool force;
	outfile_id only;
	bool stream;     /* a FIFO or device of ours was there at the check,
			    and may be written (without force, one found
			    only at open is a place taken: the result goes
			    beside it) */
} outfile_may;

static inline outfile_may outfile_may_force(bool force)
{
	return (outfile_may){force, {0, 0}, false};
}

/* outfile_may_force(force), with .stream set when a FIFO or device of
 * ours is at `path` now: for a caller checking the path before its work
 * begins, to open it when that is done. */
outfile_may outfile_may_now(const char *path, bool force);

/* What is at an output path, seen without following a link. */
typedef enum outfile_kind {
	OUTFILE_STDOUT,          /* "-" or "/dev/stdout" */
	OUTFILE_NEW,             /* nothing yet */
	OUTFILE_EXISTS,          /* a regular file (only with force) */
	OUTFILE_STREAM           /* a FIFO or character device of ours */
} outfile_kind;

/* Classify `path`.  L3D_ERR_CANTCREAT for a closed standard output, a
 * regular file without `force`, a symbolic link, a directory, a socket, a
 * block device, a FIFO or device of another user, a path that meets
 * another user's link in a shared directory on its way (directly or
 * through links of one's own), or a path that cannot be looked at. */
int outfile_inspect(const char *path, bool force, outfile_kind *kind,
		    l3d_err *err);

/* Can a file be created at `path`: its directory writable, and its name
 * short enough for the temporary name next to it (L3D_ERR_CANTCREAT). */
int outfile_check_place(const char *path, l3d_err *err);

/* Can we write `path`?  outfile_inspect, binary data to a terminal
 * (standard output, or a terminal device named) without `force`, then outfile_check_place for a file to be created or replaced
 * (L3D_ERR_CANTCREAT).  Run before long work starts so a doomed run fails
 * in a second, not after hours. */
int outfile_check(const char *path, bool force, bool binary, l3d_err *err);

/* A new, empty file in place of the regular file at `path` (force, for a
 * file written in place, such as a log): made beside it with its mode
 * (and, for root, its owner), locked with flock(2), and renamed over it,
 * so that a hard link to the old file keeps the old bytes.  *fd is open
 * for writing.  L3D_ERR_CANTCREAT when it cannot be made or renamed. */
int outfile_fresh(const char *path, int *fd, l3d_err *err);

/* open(2) a FIFO or device found by outfile_inspect with `flags`, never
 * through a link, and only if it is still one of ours once open.  The open
 * itself never waits (O_NONBLOCK, cleared once it is checked); a FIFO
 * without a reader is tried again until one comes, while it stays a FIFO
 * of ours: outfile_waiting_for_reader() says so meanwhile. */
int outfile_open_stream(const char *path, int flags, int *fd, l3d_err *err);

/* open(2) the file at `path` with flags (and mode, for O_CREAT), never
 * through a link at its name nor through one another user planted on its
 * way: for a file written in place (a log).  L3D_ERR_CANTCREAT with the
 * reason when it cannot be opened. */
int outfile_open_in_place(const char *path, int flags, mode_t mode, int *fd,
			  l3d_err *err);

/* Whether outfile_open_stream is waiting now (for a FIFO's reader, which
 * may never come); safe to call from a signal handler. */
bool outfile_waiting_for_reader(void);

/* Check the path as outfile_check does and open the temporary (or the
 * stream, or stdout).  Anything at the path this output may not replace
 * (without force, a file; with or without it, a link, a directory, a
 * socket; without force, a FIFO or device where the caller saw none) is
 * not an error here: the caller checked the path before its work began,
 * so it appeared since, and outfile_commit keeps the result beside it,
 * never writing through it. */
int outfile_open(outfile *o, const char *path, bool force, bool binary,
		 l3d_err *err);
/* outfile_open, replacing what `may` allows. */
int outfile_open_may(outfile *o, const char *path, outfile_may may, bool binary,
		     l3d_err *err);
/* Flush, sync and move into place.  L3D_ERR_IO on a write failure (the
 * temporary is removed).  A file that appeared at the path while the
 * temporary was written is never replaced, with or without force (which
 * replaces only the file that was there at outfile_open: the two are
 * swapped with RENAME_EXCHANGE and swapped back if what came out is not
 * that one): L3D_ERR_CANTCREAT, and the temporary is kept, under the name
 * the message gives; so it is when the rename itself fails (an immutable
 * file).  With force, a replaced file's mode (and, for root, its owner)
 * carry over. */
int outfile_commit(outfile *o, l3d_err *err);
/* The open temporary's path with no link in it (its directory as the
 * system names it), into buf, for other processes to open (MPI ranks):
 * the textual o->tmp may pass through links that could be made to lead
 * elsewhere.  o->tmp itself when the system cannot say; -1 when it does
 * not fit. */
int outfile_tmp_real_path(const outfile *o, char *buf, size_t size);

/* Remove the temporaries of `path` that this process kept (outfile_commit
 * says when), for a caller that writes the same data elsewhere instead. */
void outfile_remove_kept(const char *path);

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

/* Standard output was closed when the program started (>&-; main holds
 * it on /dev/null): outfile_inspect refuses it then. */
void outfile_mark_stdout_closed(void);
bool outfile_stdout_is_closed(void);

#endif
