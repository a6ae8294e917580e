/* outfile.c - see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries currently open, so a signal can remove them.  A handful is
 * plenty: the universe, a snapshot and a checkpoint at most at once. */
#define MAX_OPEN 8
static char *volatile open_tmps[MAX_OPEN];

static pthread_mutex_t tmps_lock = PTHREAD_MUTEX_INITIALIZER;

/* Snapshots are written on a thread of their own, so the list is locked;
 * the signal handler only reads it (a name just removed is harmless). */
static void track(char *tmp, bool add)
{
	pthread_mutex_lock(&tmps_lock);
	for (int i = 0; i < MAX_OPEN; i++)
		if (add ? open_tmps[i] == NULL : open_tmps[i] == tmp) {
			open_tmps[i] = add ? tmp : NULL;
			break;
		}
	pthread_mutex_unlock(&tmps_lock);
}

void outfile_abort_all(void)
{
	for (int i = 0; i < MAX_OPEN; i++)
		if (open_tmps[i])
			unlink(open_tmps[i]);
}

bool outfile_is_stdout(const char *path)
{
	return path == NULL || strcmp(path, "-") == 0;
}

static bool is_regular_or_missing(const char *path, bool *exists)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*exists = false;
		return true;
	}
	*exists = true;
	return S_ISREG(st.st_mode);
}

static int check_dir(const char *path, l3d_err *err)
{
	char *copy = strdup(path);
	if (!copy)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	char *slash = strrchr(copy, '/');
	const char *dir = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
	int rc = L3D_OK;
	struct stat st;
	/* access() on a file says EACCES (no search permission): say what
	 * is wrong instead. */
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: '%s' is not a directory",
			      path, dir);
	else if (access(dir, W_OK | X_OK) != 0)
		rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot write to directory '%s': %s",
			      path, dir, strerror(errno));
	free(copy);
	return rc;
}

int outfile_check(const char *path, bool force, bool binary, l3d_err *err)
{
	if (outfile_is_stdout(path)) {
		if (binary && !force && isatty(STDOUT_FILENO))
			return l3d_fail(err, L3D_ERR_CANTCREAT,
					"(stdout): is a terminal; refusing to write a binary universe there (use -o FILE, a pipe, or -f)");
		return L3D_OK;
	}
	bool exists;
	if (!is_regular_or_missing(path, &exists))
		return L3D_OK;          /* device or FIFO: written in place */
	if (exists && !force)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: already exists; not overwritten (use -f to overwrite)",
				path);
	return check_dir(path, err);
}

/* mkstemp makes 0600.  A new result gets the usual umask mode; one that
 * replaces a file (-f) keeps that file's mode, and, when root writes it,
 * its owner, so -f never widens who may read a file or takes it over. */
static void keep_mode(int fd, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		if (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) != 0)
			return;      /* stays 0600 rather than widen it */
		fchmod(fd, st.st_mode & 0777);
		return;
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
}

/* rename() without replacing what is there: a file that appeared at the
 * path after outfile_check() is someone else's.  Where the file system
 * has no RENAME_NOREPLACE, link() gives the same guarantee. */
static int rename_new(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (link(from, to) != 0)
		return -1;
	unlink(from);
	return 0;
}

int outfile_open(outfile *o, const char *path, bool force, bool binary,
		 l3d_err *err)
{
	memset(o, 0, sizeof *o);
	int rc = outfile_check(path, force, binary, err);
	if (rc)
		return rc;
	o->path = path ? path : "-";
	if (outfile_is_stdout(path)) {
		o->f = stdout;
		o->name = "(stdout)";
		return L3D_OK;
	}
	o->name = path;
	bool exists;
	if (!is_regular_or_missing(path, &exists)) {
		o->f = fopen(path, "wb");
		if (!o->f)
			return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s",
					path, strerror(errno));
		return L3D_OK;
	}
	size_t n = strlen(path) + 16;
	o->tmp = malloc(n);
	if (!o->tmp)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	snprintf(o->tmp, n, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot create: %s",
			      path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return rc;
	}
	track(o->tmp, true);
	o->force = force;
	keep_mode(fd, path);
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: %s", path, strerror(errno));
		close(fd);
		outfile_abort(o);
		return rc;
	}
	return L3D_OK;
}

/* Someone created the path while the result was being written: keep
 * both, and say where the result is. */
static int appeared(outfile *o, l3d_err *err)
{
	int rc = l3d_fail(err, L3D_ERR_CANTCREAT,
			  "%s: created by someone else while life3d wrote it; not "
			  "overwritten (use -f to overwrite); the result is in %s",
			  o->name, o->tmp);
	track(o->tmp, false);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

int outfile_commit(outfile *o, l3d_err *err)
{
	int rc = L3D_OK;
	if (o->f == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = l3d_fail(err, L3D_ERR_IO, "(stdout): write error: %s",
				      strerror(errno));
		o->f = NULL;
		return rc;
	}
	if (fflush(o->f) != 0 || ferror(o->f) ||
	    (o->tmp && fsync(fileno(o->f)) != 0))
		rc = l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", o->name,
			      strerror(errno));
	if (fclose(o->f) != 0 && !rc)
		rc = l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", o->name,
			      strerror(errno));
	o->f = NULL;
	if (!rc && o->tmp &&
	    (o->force ? rename(o->tmp, o->path) : rename_new(o->tmp, o->path)) != 0) {
		if (errno == EEXIST)
			return appeared(o, err);
		rc = l3d_fail(err, L3D_ERR_IO, "%s: cannot rename into place: %s",
			      o->name, strerror(errno));
	}
	if (rc) {
		outfile_abort(o);
		return rc;
	}
	if (o->tmp) {
		track(o->tmp, false);
		free(o->tmp);
		o->tmp = NULL;
	}
	return L3D_OK;
}

void outfile_abort(outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		track(o->tmp, false);
		free(o->tmp);
		o->tmp = NULL;
	}
}

void outfile_writeback(FILE *f)
{
#ifdef SYNC_FILE_RANGE_WRITE
	/* No fflush: a failure there would surface later with a stale errno;
	 * what is still in f's buffer goes with the next call. */
	struct stat st;
	int fd = fileno(f);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	off_t end = lseek(fd, 0, SEEK_CUR);
	if (end > 0)
		sync_file_range(fd, 0, end, SYNC_FILE_RANGE_WRITE);
#else
	(void)f;
#endif
}
