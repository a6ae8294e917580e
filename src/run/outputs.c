/* outputs.c - see outputs.h. */
#include "outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "format/native.h"

int outputs_default_checkpoint(const char *result, long pid, long time,
			       char *buf, size_t size, bool *own, l3d_err *err)
{
	outfile_kind kind = OUTFILE_STDOUT;
	if (!outfile_is_stdout(result) && outfile_inspect(result, true, &kind, NULL))
		kind = OUTFILE_NEW;      /* refused later, as the result */
	int n;
	*own = kind == OUTFILE_STDOUT || kind == OUTFILE_STREAM;
	if (!*own) {
		n = snprintf(buf, size, "%s.ckpt.l3d", result);
	} else {
		const char *tmp = getenv("TMPDIR");
		const char *dir = access(".", W_OK | X_OK) == 0 ? NULL
				: tmp && *tmp ? tmp : "/tmp";
		n = snprintf(buf, size, "%s%slife3d-%ld-%ld.ckpt.l3d", dir ? dir : "",
			     dir ? "/" : "", pid, time);
	}
	if (n < 0 || (size_t)n >= size)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s.ckpt.l3d: name too long", result);
	return L3D_OK;
}

/* ---- names ---- */

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The real directory of path (its last component need not exist). */
static bool real_dir(const char *path, char out[PATH_MAX])
{
	char dir[PATH_MAX];
	size_t n = (size_t)(base_of(path) - path);
	if (n >= sizeof dir)
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return realpath(n ? dir : ".", out) != NULL;
}

/* One file: the same inode where both exist, else the same name in the
 * same directory. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea && eb)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char da[PATH_MAX], db[PATH_MAX];
	return !ea && !eb && strcmp(base_of(a), base_of(b)) == 0 &&
	       real_dir(a, da) && real_dir(b, db) && strcmp(da, db) == 0;
}

/* ---- snapshots ---- */

static bool snap_generation(const run_outputs *r, uint64_t g)
{
	return (g == r->first && r->snap_first) || (g > r->first && g <= r->last && g % r->snap_every == 0);
}

/* Is the file name `name` in the prefix's directory one this run's
 * snapshots will take (PREFIX, the generation in at least `digits`
 * digits, ".png"), and which generation (*gen)? */
static bool snap_name_gen(const run_outputs *r, const char *name, uint64_t *gen)
{
	const char *pb = base_of(r->snap->prefix);
	size_t lp = strlen(pb), ln = strlen(name);
	if (ln < lp + 5 || strncmp(name, pb, lp) != 0 || strcmp(name + ln - 4, ".png") != 0)
		return false;
	const char *d = name + lp;
	size_t nd = ln - lp - 4;
	if (nd < r->snap->digits || nd > 20 || (nd > r->snap->digits && d[0] == '0'))
		return false;
	for (size_t i = 0; i < nd; i++)
		if (d[i] < '0' || d[i] > '9')
			return false;
	errno = 0;
	uint64_t g = strtoull(d, NULL, 10);
	*gen = g;
	return errno == 0 && snap_generation(r, g);
}

static bool snap_name(const run_outputs *r, const char *name)
{
	uint64_t g;
	return snap_name_gen(r, name, &g);
}

static bool is_snapshot_path(const run_outputs *r, const char *path)
{
	char dp[PATH_MAX], ds[PATH_MAX];
	return r->snap_every && snap_name(r, base_of(path)) && real_dir(path, dp) &&
	       real_dir(r->snap->prefix, ds) && strcmp(dp, ds) == 0;
}

/* Every name the snapshots will take: the longest must fit, and none may
 * be there already (without force) or be a link. */
static int check_snapshots(const run_outputs *r, l3d_err *err)
{
	char path[PATH_MAX + 64];
	int n = snapshot_name(r->snap, r->last, path, sizeof path);
	if (n < 0 || (size_t)n >= PATH_MAX)
		return l3d_fail(err, L3D_ERR_CANTCREAT, "%s: name too long", r->snap->prefix);
	outfile_kind kind;
	/* Through another user's link to a directory, as for every output. */
	int rc = outfile_inspect(path, true, &kind, err);
	if (!rc)
		rc = outfile_check_place(path, err);
	size_t dl = (size_t)(base_of(r->snap->prefix) - r->snap->prefix);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%.*s", (int)dl, r->snap->prefix);
	DIR *d = rc ? NULL : opendir(dl ? dir : ".");
	struct dirent *e;
	while (!rc && d && (e = readdir(d)) != NULL) {
		uint64_t g;
		if (!snap_name_gen(r, e->d_name, &g))
			continue;
		snprintf(path, sizeof path, "%.*s%s", (int)dl, r->snap->prefix, e->d_name);
		rc = outfile_inspect(path, snapshot_may_replace(r->snap, path, g), &kind, err);
	}
	if (d)
		closedir(d);
	return rc;
}

/* ---- the checkpoint ---- */

/* The checkpoint at `path` may be replaced: nothing there (*may: a new
 * file only), a stream of ours, this run's own checkpoint, or with
 * force.force the file force.only names (any, when its ino is 0).  *may
 * names the file checked, so that a write replaces that one alone
 * (L3D_ERR_CANTCREAT, the message ending in `hint`). */
static int checkpoint_ours(const char *path, uint64_t run_id, outfile_may force,
			   const char *hint, outfile_may *may, l3d_err *err)
{
	struct stat st;
	*may = outfile_may_force(false);
	if (lstat(path, &st) != 0)
		return L3D_OK;
	if (!S_ISREG(st.st_mode)) {         /* a stream (outfile_inspect) */
		*may = outfile_may_force(true);
		return L3D_OK;
	}
	run_stamp stamp;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) != 0) {
		close(fd);
		fd = -1;
	}
	outfile_id id = {st.st_dev, st.st_ino};
	bool forced = force.force && (!force.only.ino || (force.only.dev == id.dev &&
							   force.only.ino == id.ino));
	bool ours = forced || (fd >= 0 && S_ISREG(st.st_mode) &&
			       native_file_stamp(fd, &stamp) && stamp.run_id == run_id);
	if (fd >= 0)
		close(fd);
	if (!ours)
		return l3d_fail(err, L3D_ERR_CANTCREAT,
				"%s: exists and is not a checkpoint of this run; not overwritten%s",
				path, hint);
	*may = (outfile_may){true, id, false};
	return L3D_OK;
}

int outputs_checkpoint_usable(const char *path, uint64_t run_id, outfile_may force,
			      outfile_may *may, l3d_err *err)
{
	outfile_kind kind;
	int rc = outfile_inspect(path, true, &kind, err);
	return rc ? rc : checkpoint_ours(path, run_id, force, "", may, err);
}

int outputs_checkpoint_beside(const char *path, uint64_t id, char *buf, size_t size)
{
	size_t n = strlen(path);
	if (n >= 4 && strcmp(path + n - 4, ".l3d") == 0)
		n -= 4;
	int k = snprintf(buf, size, "%.*s-%016" PRIx64 ".l3d", (int)n, path, id);
	return k < 0 || (size_t)k >= size ? -1 : 0;
}

static int check_checkpoint(const run_outputs *r, l3d_err *err)
{
	outfile_kind kind;
	int rc = outfile_inspect(r->checkpoint, true, &kind, err);
	if (!rc && kind == OUTFILE_STDOUT)
		rc = l3d_fail(err, L3D_ERR_USAGE,
			      "--checkpoint: a checkpoint is a file, not standard output");
	if (!rc && kind == OUTFILE_STREAM)     /* a terminal, without -f */
		rc = outfile_check(r->checkpoint, r->force, true, err);
	if (rc || kind == OUTFILE_STREAM)
		return rc;
	outfile_may may;
	rc = checkpoint_ours(r->checkpoint, r->run_id, outfile_may_force(r->force),
			     " (resume from it, or use -f to overwrite)", &may, err);
	return rc ? rc : outfile_check_place(r->checkpoint, err);
}

/* ---- one file, two uses ---- */

static bool is_file(const char *path)
{
	return path && !outfile_is_stdout(path);
}

static int conflict(const char *a, const char *what_a, const char *b,
		    const char *what_b, l3d_err *err)
{
	if (!is_file(a) || !is_file(b) || !same_file(a, b))
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_USAGE, "%s and %s name the same file (%s)",
			what_a, what_b, a);
}

/* The regular file standard input or output (fd) is redirected from or
 * to, by its name under /proc; NULL for anything else (a pipe, a
 * terminal, /dev/null) or where the name does not lead back to it. */
static const char *fd_file(int fd, char buf[PATH_MAX])
{
	char link[32];
	struct stat by_fd, by_name;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, PATH_MAX - 1);
	if (n <= 0 || fstat(fd, &by_fd) != 0 || !S_ISREG(by_fd.st_mode))
		return NULL;
	buf[n] = '\0';
	if (stat(buf, &by_name) != 0 || by_name.st_dev != by_fd.st_dev ||
	    by_name.st_ino != by_fd.st_ino)
		return NULL;
	return buf;
}

static int check_distinct(const run_outputs *r, l3d_err *err)
{
	char in[PATH_MAX], out[PATH_MAX];
	const char *names[] = {r->result, r->log, r->checkpoint, r->summary, r->input};
	const char *what[] = {"-o", "--log", "--checkpoint", "--summary", "the input"};
	if (!is_file(r->result) && (names[0] = fd_file(STDOUT_FILENO, out)))
		what[0] = "standard output";
	if (r->input_stdin && (names[4] = fd_file(STDIN_FILENO, in)))
		what[4] = "standard input";
	int rc = L3D_OK;
	for (int i = 0; i < 4 && !rc; i++)
		for (int j = i + 1; j < 5 && !rc; j++)
			/* -f -o INPUT replaces the input once it is read; a
			 * checkpoint replaces the one the run resumed from. */
			if (j < 4 || i == 1 || i == 3)
				rc = conflict(names[i], what[i], names[j], what[j], err);
	for (int i = 0; i < 5 && !rc; i++)
		if (is_file(names[i]) && is_snapshot_path(r, names[i]))
			rc = l3d_fail(err, L3D_ERR_USAGE,
				      "%s and the snapshots name the same file (%s)",
				      what[i], names[i]);
	return rc;
}

int outputs_check(const run_outputs *r, l3d_err *err)
{
	int rc = check_distinct(r, err);
	if (!rc)
		rc = check_checkpoint(r, err);
	if (!rc && r->snap_every)
		rc = check_snapshots(r, err);
	return rc;
}
