/* outfile.c - see outfile.h. */
#include "outfile.h"

#include "pathwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <fnmatch.h>
#include <dirent.h>
#include <sys/random.h>
#include <time.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries currently open, so a signal can remove them: each by its
 * directory (held open) and name, as it was made.  A handful is plenty:
 * the universe, a snapshot and a checkpoint at most at once. */
#define MAX_OPEN 8
static struct {
	volatile int dir;
	const char *volatile name;
} open_tmps[MAX_OPEN];

static pthread_mutex_t tmps_lock = PTHREAD_MUTEX_INITIALIZER;

/* Set while outfile_open_stream waits for a FIFO's reader. */
static volatile sig_atomic_t opening_stream;

/* Snapshots are written on a thread of their own, so the list is locked;
 * the signal handler only reads it (a name just removed is harmless). */
static void track(int dir, const char *name, bool add)
{
	pthread_mutex_lock(&tmps_lock);
	for (int i = 0; i < MAX_OPEN; i++)
		if (add ? open_tmps[i].name == NULL : open_tmps[i].name == name) {
			open_tmps[i].dir = dir;
			open_tmps[i].name = add ? name : NULL;
			break;
		}
	pthread_mutex_unlock(&tmps_lock);
}

void outfile_abort_all(void)
{
	for (int i = 0; i < MAX_OPEN; i++)
		if (open_tmps[i].name)
			unlinkat(open_tmps[i].dir, open_tmps[i].name, 0);
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

/* The directory of path, held open (pathwalk.h), into *d.  With
 * missing_ok, a directory that does not exist is no error here (d->fd is
 * -1): outfile_check_place says so.  L3D_ERR_CANTCREAT otherwise, for a
 * link another user planted on the way, or with the system's reason. */
static int reach(const char *path, path_dir *d, bool missing_ok, l3d_err *err)
{
	char why[2 * PATH_MAX], dbuf[PATH_MAX];
	path_walk w = path_dir_open(path, d, why, sizeof why);
	int e = errno;
	if (w == PATH_WALK_OK || (missing_ok && w == PATH_WALK_ERRNO && e == ENOENT))
		return L3D_OK;
	if (w == PATH_WALK_PLANTED)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: %s another user's symbolic link in a shared "
				"directory; life3d does not write through it (name the "
				"directory itself)", path, why);
	const char *dir = dir_of(path, dbuf, sizeof dbuf);
	if (e == ENOTDIR)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: '%s' is not a directory",
				path, dir);
	return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot write to directory '%s': %s",
			path, dir, strerror(e));
}

/* What is at d's name, not following a link ("dir/": the directory). */
static int stat_at(const path_dir *d, struct stat *st)
{
	return *d->base ? fstatat(d->fd, d->base, st, AT_SYMLINK_NOFOLLOW)
			: fstat(d->fd, st);
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

/* What is at d's name, for outfile_inspect. */
static int classify(const char *path, const path_dir *d, bool force,
		    outfile_kind *kind, l3d_err *err)
{
	struct stat st;
	if (stat_at(d, &st) != 0) {
		if (errno == ENOENT)
			return L3D_OK;
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

int outfile_inspect(const char *path, bool force, outfile_kind *kind,
		    l3d_err *err)
{
	*kind = OUTFILE_NEW;
	if (outfile_is_stdout(path)) {
		*kind = OUTFILE_STDOUT;
		return stdout_closed ? l3d_fail(err, L3D_ERR_CANTCREAT,
						"(stdout): standard output is closed; "
						"nothing can be written there")
				     : L3D_OK;
	}
	path_dir d;
	int rc = reach(path, &d, true, err);
	if (!rc && d.fd >= 0)
		rc = classify(path, &d, force, kind, err);
	path_dir_close(&d);
	return rc;
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

/* Six characters for a temporary's name: from the system's random
 * source, else from the clock (the O_EXCL of make_tmp is the guard; the
 * name only has to be hard to guess). */
static void fill_random(char *x)
{
	static const char set[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		unsigned long v = (unsigned long)t.tv_nsec * 2654435761u ^ (unsigned long)t.tv_sec;
		for (int i = 0; i < 6; i++, v >>= 5)
			r[i] = (unsigned char)v;
	}
	for (int i = 0; i < 6; i++)
		x[i] = set[r[i] % (sizeof set - 1)];
}

/* A new temporary beside path in d, its name (as path is written) in buf;
 * -1 and errno on failure. */
static int make_tmp(const path_dir *d, const char *path, char *buf, size_t size)
{
	int n = tmp_name(path, buf, size);
	if (n < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	const char *name = buf + (d->base - path);
	for (int tries = 0; tries < 100; tries++) {
		fill_random(buf + n - 10);
		int fd = openat(d->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
				O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int outfile_tmp_real_path(const outfile *o, char *buf, size_t size)
{
	char proc[64], dir[PATH_MAX];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->dir);
	ssize_t n = readlink(proc, dir, sizeof dir - 1);
	int k = n > 0 && dir[0] == '/'
		? snprintf(buf, size, "%.*s/%s", (int)n, dir, o->tmp_name)
		: snprintf(buf, size, "%s", o->tmp);
	return k < 0 || (size_t)k >= size ? -1 : 0;
}

void outfile_remove_kept(const char *path)
{
	char pattern[PATH_MAX + 64];
	path_dir d;
	int n = tmp_name(path, pattern, sizeof pattern);
	if (n < 10 || reach(path, &d, false, NULL))
		return;
	memcpy(pattern + n - 10, "??????.tmp", 10);
	const char *name = pattern + (d.base - path);
	int fd = openat(d.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	while (dir && (e = readdir(dir)) != NULL)
		if (fnmatch(name, e->d_name, FNM_PERIOD) == 0)
			unlinkat(d.fd, e->d_name, 0);
	if (dir)
		closedir(dir);
	else if (fd >= 0)
		close(fd);
	path_dir_close(&d);
}

int outfile_check_place(const char *path, l3d_err *err)
{
	char dbuf[PATH_MAX], tmp[PATH_MAX + 64];
	const char *dir = dir_of(path, dbuf, sizeof dbuf);
	path_dir d;
	int rc = reach(path, &d, false, err);
	if (rc)
		return rc;
	if (faccessat(d.fd, ".", W_OK | X_OK, 0) != 0) {
		rc = l3d_fail(err, L3D_ERR_CANTCREAT,
			      "%s: cannot write to directory '%s': %s", path, dir,
			      strerror(errno));
		path_dir_close(&d);
		return rc;
	}
	long max = fpathconf(d.fd, _PC_NAME_MAX);
	path_dir_close(&d);
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
	path_dir d;
	if (reach(path, &d, false, NULL))
		return false;
	int fd = stat_at(&d, &st) == 0 && S_ISCHR(st.st_mode)
		 ? openat(d.fd, d.base, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
		 : -1;
	path_dir_close(&d);
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

outfile_may outfile_may_now(const char *path, bool force)
{
	outfile_kind kind;
	outfile_may may = outfile_may_force(force);
	may.stream = !outfile_is_stdout(path) &&
		     outfile_inspect(path, true, &kind, NULL) == L3D_OK &&
		     kind == OUTFILE_STREAM;
	return may;
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

/* The regular file at d's name now, in *st; false if there is none. */
static bool regular_at(const path_dir *d, struct stat *st)
{
	return stat_at(d, st) == 0 && S_ISREG(st->st_mode);
}

/* rename() within d without replacing what is there: a file that
 * appeared at the path after outfile_check() is someone else's.  Where
 * the file system has no RENAME_NOREPLACE, link() gives the same
 * guarantee. */
static int rename_new(int dir, const char *from, const char *to)
{
	if (renameat2(dir, from, dir, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (linkat(dir, from, dir, to, 0) != 0)
		return -1;
	unlinkat(dir, from, 0);
	return 0;
}

int outfile_fresh(const char *path, int *fd, l3d_err *err)
{
	char tmp[PATH_MAX + 64];
	path_dir d;
	int rc = reach(path, &d, false, err);
	if (rc)
		return rc;
	*fd = make_tmp(&d, path, tmp, sizeof tmp);
	const char *name = tmp + (d.base - path);
	if (*fd < 0) {
		rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot create: %s", path,
			      strerror(errno));
		path_dir_close(&d);
		return rc;
	}
	struct stat st;
	keep_mode(*fd, regular_at(&d, &st) ? &st : NULL);
	flock(*fd, LOCK_EX | LOCK_NB);
	if (renameat(d.fd, name, d.fd, d.base) != 0) {
		rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot replace: %s", path,
			      strerror(errno));
		close(*fd);
		*fd = -1;
		unlinkat(d.fd, name, 0);
	}
	path_dir_close(&d);
	return rc;
}

/* Open d's name with flags and O_NONBLOCK, so that nothing the name holds
 * by then can leave the open waiting: a FIFO without a reader (ENXIO) is
 * tried again a few times a second while it is still a FIFO of ours,
 * outfile_waiting_for_reader() saying so meanwhile. */
static int open_nonblocking(const path_dir *d, int flags)
{
	static const struct timespec pause = {0, 20 * 1000 * 1000};
	for (;;) {
		struct stat st;
		int fd = openat(d->fd, d->base, flags | O_NONBLOCK | O_NOFOLLOW |
				O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != ENXIO)
			return fd;
		if (stat_at(d, &st) != 0 || !S_ISFIFO(st.st_mode) || !stream_of_ours(&st)) {
			errno = ENXIO;
			return -1;
		}
		opening_stream = 1;
		nanosleep(&pause, NULL);
		opening_stream = 0;
	}
}

int outfile_open_stream(const char *path, int flags, int *fd, l3d_err *err)
{
	struct stat st;
	path_dir d;
	int rc = reach(path, &d, false, err);
	if (rc)
		return rc;
	*fd = open_nonblocking(&d, flags);
	path_dir_close(&d);
	if (*fd < 0)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s",
				path, strerror(errno));
	/* Whatever is there now, not what was there when it was checked. */
	int fl = fcntl(*fd, F_GETFL);
	if (fstat(*fd, &st) != 0 || !stream_of_ours(&st) || fl < 0 ||
	    fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		close(*fd);
		*fd = -1;
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: changed while life3d opened it; not written", path);
	}
	return L3D_OK;
}

int outfile_open_in_place(const char *path, int flags, mode_t mode, int *fd,
			  l3d_err *err)
{
	path_dir d;
	*fd = -1;
	int rc = reach(path, &d, false, err);
	if (rc)
		return rc;
	*fd = openat(d.fd, d.base, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
	int e = errno;
	path_dir_close(&d);
	if (*fd < 0)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot open: %s", path,
				strerror(e));
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
static void record_was(outfile *o, int fd, const path_dir *d, outfile_id only)
{
	struct stat st;
	bool there = o->force && regular_at(d, &st);
	bool same = there && (!only.ino || (st.st_dev == only.dev && st.st_ino == only.ino));
	keep_mode(fd, same ? &st : NULL);
	o->was = same || (o->force && only.ino);
	o->was_dev = same ? st.st_dev : only.dev;
	o->was_ino = same ? st.st_ino : only.ino;
}

/* The outfile's temporary goes: its directory closed, its name untracked
 * (and removed, with `remove`). */
static void drop_tmp(outfile *o, bool remove)
{
	if (remove)
		unlinkat(o->dir, o->tmp_name, 0);
	track(o->dir, o->tmp_name, false);
	close(o->dir);
	free(o->tmp);
	o->tmp = NULL;
	o->tmp_name = NULL;
	o->dir = -1;
}

static int open_tmp(outfile *o, path_dir *d, const char *path, outfile_id only,
		    l3d_err *err)
{
	size_t n = strlen(path) + 64;
	o->tmp = malloc(n);
	if (!o->tmp)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	int fd = make_tmp(d, path, o->tmp, n);
	if (fd < 0) {
		int rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: cannot create: %s",
				  path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		return rc;
	}
	/* The directory stays open with the temporary, for its rename. */
	record_was(o, fd, d, only);
	o->dir = d->fd;
	o->base = d->base;
	o->tmp_name = o->tmp + (d->base - path);
	d->fd = -1;
	track(o->dir, o->tmp_name, true);
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

/* Whether what is at d's name now may be written or replaced as `may`
 * allows: nothing there; a regular file, with force; a stream of ours,
 * where the caller saw one when it checked, or with force to whatever is
 * there (not to one file alone).  Anything else
 * (a file without force, a link, a directory, a FIFO made since) appeared
 * after the caller's check: the result goes beside it. */
static bool appeared_at(const path_dir *d, outfile_may may, bool *stream)
{
	struct stat st;
	*stream = false;
	if (stat_at(d, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode))
		return !may.force;
	*stream = stream_of_ours(&st) && (may.stream || (may.force && !may.only.ino));
	return !*stream;
}

int outfile_open_may(outfile *o, const char *path, outfile_may may, bool binary,
		     l3d_err *err)
{
	memset(o, 0, sizeof *o);
	o->dir = -1;
	o->path = path ? path : "-";
	o->force = may.force;
	if (outfile_is_stdout(path)) {
		int rc = outfile_check(path, may.force, binary, err);
		if (!rc) {
			o->f = stdout;
			o->name = "(stdout)";
		}
		return rc;
	}
	/* Something there now that this output may not replace, though the
	 * caller checked the path before its work began, appeared since: the
	 * result is still written, beside it, and outfile_commit, which never
	 * replaces it, says where, rather than lose it.  Never through
	 * another user's link on the way, and never into a FIFO or device
	 * that was not there when the caller checked (without force). */
	path_dir d;
	bool stream;
	int rc = reach(path, &d, false, err);
	if (!rc && !appeared_at(&d, may, &stream) && stream && binary && !may.force)
		rc = outfile_check(path, false, binary, err);
	else if (!rc && !stream)
		rc = outfile_check_place(path, err);
	if (rc) {
		path_dir_close(&d);
		return rc;
	}
	o->name = path;
	if (stream) {
		path_dir_close(&d);
		return open_stream(o, path, err);
	}
	rc = open_tmp(o, &d, path, may.only, err);
	path_dir_close(&d);
	return rc;
}
/* Someone created the path while the result was being written: keep
 * both, and say where the result is. */
static int appeared(outfile *o, l3d_err *err)
{
	int rc = l3d_fail(err, L3D_ERR_CANTCREAT,
			  "%s: created by someone else while life3d wrote it; not "
			  "overwritten%s; the result is in %s", o->name,
			  o->force ? "" : " (use -f to overwrite)", o->tmp);
	o->kept = true;
	drop_tmp(o, false);
	return rc;
}

/* The result is written and synced but cannot take its name (an
 * immutable file, a directory that changed): keep it, and say where. */
static int kept_aside(outfile *o, l3d_err *err)
{
	int rc = l3d_fail(err, L3D_ERR_CANTCREAT,
			  "%s: cannot rename into place: %s; the result is in %s",
			  o->name, strerror(errno), o->tmp);
	o->kept = true;
	drop_tmp(o, false);
	return rc;
}

/* The temporary to its name, replacing only the file that was there at
 * open (force), else nothing: EEXIST when something else is there. */
static int put_in_place(outfile *o)
{
	if (!o->was)
		return rename_new(o->dir, o->tmp_name, o->base);
	/* From here the name may hold the old file: a signal must not
	 * remove it. */
	track(o->dir, o->tmp_name, false);
	if (renameat2(o->dir, o->tmp_name, o->dir, o->base, RENAME_EXCHANGE) != 0) {
		if (errno == ENOENT)         /* it went away meanwhile */
			return rename_new(o->dir, o->tmp_name, o->base);
		if (errno == EINVAL || errno == ENOSYS)   /* no exchange here */
			return renameat(o->dir, o->tmp_name, o->dir, o->base);
		return -1;
	}
	struct stat st;
	if (fstatat(o->dir, o->tmp_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_dev == o->was_dev && st.st_ino == o->was_ino) {
		unlinkat(o->dir, o->tmp_name, 0);
		return 0;
	}
	/* Not the file that was there: it goes back, the result aside. */
	renameat2(o->dir, o->tmp_name, o->dir, o->base, RENAME_EXCHANGE);
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
	if (o->tmp)
		drop_tmp(o, false);
	return L3D_OK;
}

void outfile_abort(outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		drop_tmp(o, true);
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
