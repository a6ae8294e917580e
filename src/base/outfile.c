/* outfile.c - see outfile.h. */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries currently open, so a signal can remove them.  A handful is
 * plenty: the universe, a snapshot and a checkpoint at most at once. */
#define MAX_OPEN 8
static char *volatile open_tmps[MAX_OPEN];

static pthread_mutex_t tmps_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set while outfile_open_stream is in open(2). */
static volatile sig_atomic_t opening_stream;

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
	return path == NULL || strcmp(path, "-") == 0 ||
	       strcmp(path, "/dev/stdout") == 0;
}

/* A FIFO or character device is written in place when it is the user's
 * own or the system's (/dev/null, a terminal): one that another user
 * planted at an output path is not a place to pour a universe into. */
static bool stream_of_ours(const struct stat *st)
{
	return (S_ISFIFO(st->st_mode) || S_ISCHR(st->st_mode)) &&
	       (st->st_uid == 0 || st->st_uid == geteuid());
}

static const char *kind_of(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a directory"
	     : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	     : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
	     : "not a regular file";
}

/* The directory part of path ("." for a bare name) in buf. */
static const char *dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	size_t n = (size_t)(slash - path);
	if (n >= size)
		n = size - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return buf;
}

/* Is the link at `link` (n bytes of it) one planted in a shared
 * directory: a sticky, world-writable one (/tmp, scratch) where the link
 * is neither ours nor the directory owner's?  The rule the kernel's
 * protected_symlinks applies, which not every system turns on. */
static bool planted(const char *link, size_t n, const struct stat *st)
{
	char dir[PATH_MAX];
	struct stat ds;
	size_t d = n;
	while (d > 0 && link[d - 1] != '/')
		d--;
	snprintf(dir, sizeof dir, "%.*s", d ? (int)d : 1, d ? link : ".");
	return st->st_uid != geteuid() && stat(dir, &ds) == 0 &&
	       (ds.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) &&
	       st->st_uid != ds.st_uid;
}

/* The first directory of path (a prefix ending before a '/') that is a
 * symbolic link planted in a shared directory, into buf; NULL when there
 * is none.  Such a link is a way for another user to steer a run's files
 * to where they chose. */
static const char *foreign_link(const char *path, char *buf, size_t size)
{
	for (const char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		struct stat st;
		size_t n = (size_t)(slash - path);
		if (n >= size)
			return NULL;
		memcpy(buf, path, n);
		buf[n] = '\0';
		if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode) && planted(buf, n, &st))
			return buf;
	}
	return NULL;
}

static bool stdout_closed;

void outfile_mark_stdout_closed(void)
{
	stdout_closed = true;
}

bool outfile_stdout_is_closed(void)
{
	return stdout_closed;
}

int outfile_inspect(const char *path, bool force, outfile_kind *kind,
		    l3d_err *err)
{
	struct stat st;
	char lbuf[PATH_MAX];
	*kind = OUTFILE_NEW;
	if (outfile_is_stdout(path)) {
		*kind = OUTFILE_STDOUT;
		return stdout_closed ? l3d_fail(err, L3D_ERR_CANTCREAT,
						"(stdout): standard output is closed; "
						"nothing can be written there")
				     : L3D_OK;
	}
	if (*path && foreign_link(path, lbuf, sizeof lbuf))
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: '%s' is another user's symbolic link in a shared "
				"directory; life3d does not write through it (name the "
				"directory itself)", path, lbuf);
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return L3D_OK;
		if (errno == ENOTDIR) {
			char dbuf[PATH_MAX];
			return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: '%s' is not a directory",
					path, dir_of(path, dbuf, sizeof dbuf));
		}
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot create: %s",
				path, strerror(errno));
	}
	if (S_ISREG(st.st_mode)) {
		*kind = OUTFILE_EXISTS;
		if (!force)
			return l3d_fail(err, L3D_ERR_CANTCREAT,
					"%s: already exists; not overwritten (use -f to overwrite)",
					path);
		return L3D_OK;
	}
	if (stream_of_ours(&st)) {
		*kind = OUTFILE_STREAM;
		return L3D_OK;
	}
	if (S_ISLNK(st.st_mode))
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: is a symbolic link; life3d does not write through links "
				"(name the file itself)", path);
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: is %s of another user; not written", path,
				kind_of(st.st_mode));
	return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: is %s; not written", path,
			kind_of(st.st_mode));
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* ".NAME.life3d-PID-XXXXXX.tmp" next to NAME: who left it, and for what. */
static int tmp_name(const char *path, char *buf, size_t size)
{
	const char *base = base_of(path);
	int n = snprintf(buf, size, "%.*s.%s.life3d-%ld-XXXXXX.tmp",
			 (int)(base - path), path, base, (long)getpid());
	return n < 0 || (size_t)n >= size ? -1 : n;
}

/* A new temporary beside path, its name in buf; -1 and errno on failure. */
static int make_tmp(const char *path, char *buf, size_t size)
{
	if (tmp_name(path, buf, size) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkostemps(buf, 4, O_CLOEXEC);
}

void outfile_remove_kept(const char *path)
{
	char pattern[PATH_MAX + 64];
	glob_t g;
	int n = tmp_name(path, pattern, sizeof pattern);
	if (n < 10)
		return;
	memcpy(pattern + n - 10, "??????.tmp", 10);
	if (glob(pattern, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		unlink(g.gl_pathv[i]);
	globfree(&g);
}

int outfile_check_place(const char *path, l3d_err *err)
{
	char dbuf[PATH_MAX], tmp[PATH_MAX + 64];
	const char *dir = dir_of(path, dbuf, sizeof dbuf);
	struct stat st;
	/* access() on a file says EACCES (no search permission): say what
	 * is wrong instead. */
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: '%s' is not a directory",
				path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: cannot write to directory '%s': %s", path, dir,
				strerror(errno));
	long max = pathconf(dir, _PC_NAME_MAX);
	size_t extra = (size_t)tmp_name("", tmp, sizeof tmp);
	size_t base = strlen(base_of(path));
	if (max <= 0)
		max = NAME_MAX;
	if (tmp_name(path, tmp, sizeof tmp) < 0 || strlen(path) + extra >= PATH_MAX ||
	    base + extra > (size_t)max)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: name too long: its temporary file needs %zu characters "
				"more (%ld at most in '%s')", path, extra, max, dir);
	return L3D_OK;
}

/* Is the character device at path a terminal (/dev/tty, a pts)?  Opened
 * to ask, without waiting and without becoming the controlling terminal. */
static bool terminal_device(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0 || !S_ISCHR(st.st_mode))
		return false;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool tty = isatty(fd);
	close(fd);
	return tty;
}

int outfile_check(const char *path, bool force, bool binary, l3d_err *err)
{
	outfile_kind kind;
	int rc = outfile_inspect(path, force, &kind, err);
	if (!rc && kind == OUTFILE_STREAM && binary && !force && terminal_device(path))
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: is a terminal; refusing to write a binary universe there "
				"(name a file, a pipe, or use -f)", path);
	if (rc || kind == OUTFILE_STREAM)
		return rc;
	if (kind == OUTFILE_STDOUT) {
		if (binary && !force && isatty(STDOUT_FILENO))
			return l3d_fail(err, L3D_ERR_CANTCREAT,
					"(stdout): is a terminal; refusing to write a binary universe there (use -o FILE, a pipe, or -f)");
		return L3D_OK;
	}
	return outfile_check_place(path, err);
}

/* mkstemp makes 0600.  A new result gets the usual umask mode; one that
 * replaces a file (-f) keeps that file's mode, and, when root writes it,
 * its owner, so -f never widens who may read a file or takes it over.
 * Without -f nothing is replaced (a file that appears at the path keeps
 * the result beside it), so nothing is taken from what is there. */
static void keep_mode(int fd, const struct stat *was)
{
	if (was) {
		if (geteuid() == 0 && fchown(fd, was->st_uid, was->st_gid) != 0)
			return;      /* stays 0600 rather than widen it */
		fchmod(fd, was->st_mode & 0777);
		return;
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
}

/* The regular file at `path` now, in *st; false if there is none. */
static bool regular_at(const char *path, struct stat *st)
{
	return lstat(path, st) == 0 && S_ISREG(st->st_mode);
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

int outfile_fresh(const char *path, int *fd, l3d_err *err)
{
	char tmp[PATH_MAX + 64];
	*fd = make_tmp(path, tmp, sizeof tmp);
	if (*fd < 0)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot create: %s", path,
				strerror(errno));
	struct stat st;
	keep_mode(*fd, regular_at(path, &st) ? &st : NULL);
	flock(*fd, LOCK_EX | LOCK_NB);
	if (rename(tmp, path) != 0) {
		int rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot replace: %s", path,
				  strerror(errno));
		close(*fd);
		*fd = -1;
		unlink(tmp);
		return rc;
	}
	return L3D_OK;
}

int outfile_open_stream(const char *path, int flags, int *fd, l3d_err *err)
{
	struct stat st;
	opening_stream = 1;
	*fd = open(path, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	opening_stream = 0;
	if (*fd < 0)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s",
				path, strerror(errno));
	/* Whatever is there now, not what was there when it was checked. */
	if (fstat(*fd, &st) != 0 || !stream_of_ours(&st)) {
		close(*fd);
		*fd = -1;
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: changed while life3d opened it; not written", path);
	}
	return L3D_OK;
}

bool outfile_waiting_for_reader(void)
{
	return opening_stream != 0;
}

static int open_stream(outfile *o, const char *path, l3d_err *err)
{
	int fd;
	int rc = outfile_open_stream(path, O_WRONLY, &fd, err);
	if (rc)
		return rc;
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		close(fd);
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: %s", path, strerror(errno));
	}
	return L3D_OK;
}

/* The file a forced output replaces (o->was): the one at the path now,
 * unless the caller named another (only), which then stays the only one
 * put_in_place replaces.  Its mode (and owner) carry over to fd. */
static void record_was(outfile *o, int fd, const char *path, outfile_id only)
{
	struct stat st;
	bool there = o->force && regular_at(path, &st);
	bool same = there && (!only.ino || (st.st_dev == only.dev && st.st_ino == only.ino));
	keep_mode(fd, same ? &st : NULL);
	o->was = same || (o->force && only.ino);
	o->was_dev = same ? st.st_dev : only.dev;
	o->was_ino = same ? st.st_ino : only.ino;
}

static int open_tmp(outfile *o, const char *path, outfile_id only, l3d_err *err)
{
	size_t n = strlen(path) + 64;
	o->tmp = malloc(n);
	if (!o->tmp)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	int fd = make_tmp(path, o->tmp, n);
	if (fd < 0) {
		int rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot create: %s",
				  path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return rc;
	}
	track(o->tmp, true);
	record_was(o, fd, path, only);
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		int rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: %s", path, strerror(errno));
		close(fd);
		outfile_abort(o);
		return rc;
	}
	return L3D_OK;
}

int outfile_open(outfile *o, const char *path, bool force, bool binary,
		 l3d_err *err)
{
	return outfile_open_may(o, path, outfile_may_force(force), binary, err);
}

int outfile_open_may(outfile *o, const char *path, outfile_may may, bool binary,
		     l3d_err *err)
{
	const bool force = may.force;
	memset(o, 0, sizeof *o);
	outfile_kind kind;
	struct stat st;
	char lbuf[PATH_MAX];
	int rc = outfile_check(path, force, binary, err);
	/* Something there now that this output may not replace (without
	 * force, anything: a file, a link; with `only`, anything but a
	 * regular file, which put_in_place checks), though the run checked the
	 * path before it began, appeared since: the result is still written,
	 * beside it, and outfile_commit, which never replaces it, says where
	 * (appeared), rather than lose it.  Never through another user's
	 * directory link. */
	bool there = !outfile_is_stdout(path) && lstat(path, &st) == 0;
	bool appeared = there &&
			(may.only.ino ? !S_ISREG(st.st_mode) : !force && rc == L3D_ERR_CANTCREAT) &&
			!foreign_link(path, lbuf, sizeof lbuf);
	if (appeared)
		rc = outfile_check_place(path, err), kind = OUTFILE_EXISTS;
	else if (!rc)
		rc = outfile_inspect(path, true, &kind, err);
	if (rc)
		return rc;
	o->path = path ? path : "-";
	o->force = force;
	if (kind == OUTFILE_STDOUT) {
		o->f = stdout;
		o->name = "(stdout)";
		return L3D_OK;
	}
	o->name = path;
	return kind == OUTFILE_STREAM ? open_stream(o, path, err)
				      : open_tmp(o, path, may.only, err);
}
/* Someone created the path while the result was being written: keep
 * both, and say where the result is. */
static int appeared(outfile *o, l3d_err *err)
{
	int rc = l3d_fail(err, L3D_ERR_CANTCREAT,
			  "%s: created by someone else while life3d wrote it; not "
			  "overwritten%s; the result is in %s", o->name,
			  o->force ? "" : " (use -f to overwrite)", o->tmp);
	track(o->tmp, false);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

/* The result is written and synced but cannot take its name (an
 * immutable file, a directory that changed): keep it, and say where. */
static int kept_aside(outfile *o, l3d_err *err)
{
	int rc = l3d_fail(err, L3D_ERR_CANTCREAT,
			  "%s: cannot rename into place: %s; the result is in %s",
			  o->name, strerror(errno), o->tmp);
	track(o->tmp, false);
	free(o->tmp);
	o->tmp = NULL;
	return rc;
}

/* The temporary to its name, replacing only the file that was there at
 * open (force), else nothing: EEXIST when something else is there. */
static int put_in_place(outfile *o)
{
	if (!o->was)
		return rename_new(o->tmp, o->path);
	/* From here the name may hold the old file: a signal must not
	 * remove it. */
	track(o->tmp, false);
	if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE) != 0) {
		if (errno == ENOENT)         /* it went away meanwhile */
			return rename_new(o->tmp, o->path);
		if (errno == EINVAL || errno == ENOSYS)   /* no exchange here */
			return rename(o->tmp, o->path);
		return -1;
	}
	struct stat st;
	if (lstat(o->tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == o->was_dev &&
	    st.st_ino == o->was_ino) {
		unlink(o->tmp);
		return 0;
	}
	/* Not the file that was there: it goes back, the result aside. */
	renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE);
	errno = EEXIST;
	return -1;
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
	if (!rc && o->tmp && put_in_place(o) != 0) {
		if (errno == EEXIST)
			return appeared(o, err);
		return kept_aside(o, err);
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
