/* poplog.c - see poplog.h. */
#include "poplog.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/outfile.h"

static const char header[] = "step\tpopulation\tbirths\tdeaths\n";

/* The first `n` bytes of an open log, read whole (a log is small). */
static char *read_prefix(int fd, uint64_t n)
{
	char *buf = malloc(n + 1);
	size_t got = 0;
	while (buf && got < n) {
		ssize_t k = pread(fd, buf + got, n - got, (off_t)got);
		if (k <= 0 && !(k < 0 && errno == EINTR)) {
			free(buf);
			return NULL;
		}
		got += k > 0 ? (size_t)k : 0;
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* Is fd's file the log the stamp names: at least as long, and the same
 * bytes up to its length? */
static bool is_stamped_log(int fd, const run_stamp *st)
{
	struct stat s;
	if (!st->log_bytes || fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) ||
	    (uint64_t)s.st_size < st->log_bytes || st->log_bytes > ((uint64_t)1 << 32))
		return false;
	char *buf = read_prefix(fd, st->log_bytes);
	bool yes = buf && (uint32_t)crc32(0, (const Bytef *)buf, (uInt)st->log_bytes) ==
			  st->log_crc;
	free(buf);
	return yes;
}

static bool continues(const char *path, const run_stamp *resume)
{
	if (!resume || !resume->log_bytes)
		return false;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool yes = fd >= 0 && is_stamped_log(fd, resume);
	if (fd >= 0)
		close(fd);
	return yes;
}

int poplog_check(const char *path, bool force, const run_stamp *resume,
		 poplog_mode *mode, l3d_err *err)
{
	outfile_kind kind;
	int rc = outfile_inspect(path, true, &kind, err);
	if (rc)
		return rc;
	*mode = kind == OUTFILE_STDOUT ? POPLOG_STDOUT
	      : kind == OUTFILE_STREAM ? POPLOG_STREAM
	      : kind == OUTFILE_NEW ? POPLOG_CREATE
	      : continues(path, resume) ? POPLOG_CONTINUE : POPLOG_REPLACE;
	if (*mode == POPLOG_CREATE)
		return outfile_check_place(path, err);
	if (*mode != POPLOG_REPLACE || force)
		return L3D_OK;
	if (resume && resume->run_id)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: not the log of the run that wrote the checkpoint; not "
				"continued or overwritten (use -f to start it afresh)", path);
	return l3d_fail(err, L3D_ERR_CANTCREAT,
			"%s: already exists; not overwritten (use -f to overwrite)", path);
}

/* The last generation logged in the kept bytes (0 for none). */
static uint64_t last_step(const char *buf, size_t n)
{
	size_t i = n > 0 ? n - 1 : 0;
	while (i > 0 && buf[i - 1] != '\n')
		i--;
	if (i == 0)
		return 0;        /* only the header (and comment lines) */
	return strtoull(buf + i, NULL, 10);
}

/* Cut a continued log back to the stamp's length, keeping what is cut in
 * memory, so that a failure can put it back. */
static int cut_back(poplog *p, int fd, const run_stamp *st, uint64_t *last,
		    l3d_err *err)
{
	struct stat s;
	char *kept = fstat(fd, &s) == 0 ? read_prefix(fd, (uint64_t)s.st_size) : NULL;
	if (!kept)
		return l3d_fail(err, L3D_ERR_IO, "%s: cannot read the log: %s",
				p->name, strerror(errno ? errno : EIO));
	p->kept = st->log_bytes;
	p->tail_len = (size_t)((uint64_t)s.st_size - st->log_bytes);
	p->tail = malloc(p->tail_len + 1);
	if (p->tail)
		memcpy(p->tail, kept + p->kept, p->tail_len);
	*last = last_step(kept, p->kept);
	free(kept);
	if (!p->tail)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	if (ftruncate(fd, (off_t)p->kept) != 0 || lseek(fd, 0, SEEK_END) < 0)
		return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", p->name,
				strerror(errno));
	p->bytes = st->log_bytes;
	p->crc = st->log_crc;
	return L3D_OK;
}

/* open(2) a regular file at path, never through a link, and take its
 * lock.  The log is written in place: two runs on one log (overlapping
 * cron jobs with -f) would mix their lines.  The second is refused, before
 * it touches the file.  (A file system without locks goes unguarded.) */
static int open_locked(const char *path, int flags, int *fd, struct stat *s,
		       l3d_err *err)
{
	int rc = outfile_open_in_place(path, flags, 0666, fd, err);
	if (rc)
		return rc;
	if (fstat(*fd, s) != 0 || !S_ISREG(s->st_mode))
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: changed while life3d opened it; not written", path);
	if (flock(*fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: in use as the log of another run; not written", path);
	return L3D_OK;
}

/* -f over an existing log (open at *fd and locked; *s its status): a
 * fresh file takes its name, so that a hard link to the old one is not
 * written through.  *fd and *s are the new file's after. */
static int replace_fd(const char *path, int *fd, struct stat *s, l3d_err *err)
{
	struct stat now;
	int old = *fd;
	int rc = lstat(path, &now) == 0 && now.st_dev == s->st_dev && now.st_ino == s->st_ino
			 ? outfile_fresh(path, fd, err)
			 : l3d_fail(err, L3D_ERR_CANTCREAT,
				    "%s: changed while life3d opened it; not written", path);
	close(old);
	if (rc)
		*fd = -1;
	else if (fstat(*fd, s) != 0)
		rc = l3d_fail(err, L3D_ERR_IO, "%s: %s", path, strerror(errno));
	return rc;
}

static int open_fd(poplog *p, const char *path, int *fd, l3d_err *err)
{
	static const int flags[] = {
		[POPLOG_CREATE] = O_WRONLY | O_CREAT | O_EXCL,
		[POPLOG_REPLACE] = O_RDONLY | O_NONBLOCK,
		[POPLOG_CONTINUE] = O_RDWR,
	};
	if (p->mode == POPLOG_STREAM)
		return outfile_open_stream(path, O_WRONLY, fd, err);
	struct stat s;
	int rc = open_locked(path, flags[p->mode], fd, &s, err);
	if (!rc && p->mode == POPLOG_REPLACE)
		rc = replace_fd(path, fd, &s, err);
	if (!rc) {
		p->dev = s.st_dev;
		p->ino = s.st_ino;
	}
	return rc;
}

/* Everything written goes through here, so the CRC is of the file's
 * bytes. */
static int put(poplog *p, const char *text, size_t n, l3d_err *err);

/* The header line of a new log: a log that cannot take even that is put
 * back at once (the run has nothing to keep). */
static int start(poplog *p, const char *about, l3d_err *err)
{
	int rc = about ? put(p, about, strlen(about), err) : L3D_OK;
	rc = rc ? rc : put(p, header, strlen(header), err);
	if (rc)
		poplog_resolve(p, false);
	return rc;
}

int poplog_open(poplog *p, const poplog_spec *s, bool *resumed, uint64_t *last_logged,
		l3d_err *err)
{
	const char *path = s->path;
	const run_stamp *resume = s->resume;
	memset(p, 0, sizeof *p);
	*resumed = false;
	*last_logged = 0;
	p->crc = (uint32_t)crc32(0, NULL, 0);
	int rc = poplog_check(path, s->force, resume, &p->mode, err);
	if (rc)
		return rc;
	if (p->mode == POPLOG_STDOUT) {
		p->f = stdout;
		p->name = "(stdout)";
		return start(p, s->about, err);
	}
	p->name = path;
	p->path = path;
	int fd = -1;
	rc = open_fd(p, path, &fd, err);
	if (!rc && p->mode == POPLOG_CONTINUE)
		rc = cut_back(p, fd, resume, last_logged, err);
	if (!rc && !(p->f = fdopen(fd, p->mode == POPLOG_CONTINUE ? "r+" : "w")))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: %s", path, strerror(errno));
	if (rc) {
		if (fd >= 0)
			close(fd);
		if (p->mode == POPLOG_CREATE)
			unlink(path);
		free(p->tail);
		p->tail = NULL;
		return rc;
	}
	*resumed = p->mode == POPLOG_CONTINUE;
	if (*resumed)
		return fseek(p->f, 0, SEEK_END) == 0 ? L3D_OK
		       : l3d_fail(err, L3D_ERR_IO, "%s: %s", path, strerror(errno));
	return start(p, s->about, err);
}

/* After a write error: the stream closed, its file (when it is one) held
 * open and cut to the whole lines written (p->bytes), until
 * poplog_resolve keeps it or puts it back. */
static void settle(poplog *p)
{
	int fd = p->path ? dup(fileno(p->f)) : -1;
	if (p->f != stdout)
		fclose(p->f);
	p->f = NULL;
	p->broken = true;
	p->held = -1;
	struct stat s;
	if (fd >= 0 && fstat(fd, &s) == 0 && s.st_dev == p->dev && s.st_ino == p->ino) {
		(void)!ftruncate(fd, (off_t)p->bytes);
		p->held = fd;
	} else if (fd >= 0) {
		close(fd);
	}
}

/* The held file as it was before the run: a continued log back to its old
 * bytes, one the run created or replaced removed. */
static void restore(poplog *p)
{
	struct stat now;
	if (p->mode == POPLOG_CONTINUE) {
		if (ftruncate(p->held, (off_t)p->kept) == 0 && p->tail_len)
			(void)!pwrite(p->held, p->tail, p->tail_len, (off_t)p->kept);
	} else if (lstat(p->path, &now) == 0 && now.st_dev == p->dev &&
		   now.st_ino == p->ino) {
		unlink(p->path);
	}
}

void poplog_resolve(poplog *p, bool keep)
{
	if (!p->broken)
		return;
	if (p->held >= 0) {
		if (!keep)
			restore(p);
		close(p->held);
	}
	p->gone = !keep;
	p->broken = false;
	p->held = -1;
	free(p->tail);
	p->tail = NULL;
}

static int write_error(poplog *p, int e, l3d_err *err)
{
	int rc = l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", p->name,
			  strerror(e ? e : EIO));
	settle(p);
	return rc;
}

static int put(poplog *p, const char *text, size_t n, l3d_err *err)
{
	errno = 0;
	if (fwrite(text, 1, n, p->f) != n || fflush(p->f) != 0)
		return write_error(p, errno, err);
	p->bytes += n;
	p->crc = (uint32_t)crc32(p->crc, (const Bytef *)text, (uInt)n);
	return L3D_OK;
}

int poplog_write(poplog *p, uint64_t generation, const engine_stats *s,
		 l3d_err *err)
{
	char line[128];
	int n = snprintf(line, sizeof line, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			 generation, s->population, s->births, s->deaths);
	return put(p, line, (size_t)n, err);
}

void poplog_identity(const poplog *p, uint64_t *bytes, uint32_t *crc)
{
	bool file = p->path && p->mode != POPLOG_STREAM && !p->gone;
	*bytes = file ? p->bytes : 0;
	*crc = file ? p->crc : 0;
}

int poplog_close(poplog *p, l3d_err *err)
{
	poplog_resolve(p, false);
	if (!p->f)
		return L3D_OK;
	errno = 0;
	if (fflush(p->f) != 0 || ferror(p->f))
		return write_error(p, errno, err);
	int e = 0;
	if (p->f != stdout && fclose(p->f) != 0)
		e = errno ? errno : EIO;
	p->f = NULL;
	free(p->tail);
	p->tail = NULL;
	return e ? l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", p->name,
			    strerror(e)) : L3D_OK;
}
