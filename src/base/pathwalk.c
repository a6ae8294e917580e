/* pathwalk.c - see pathwalk.h. */
#include "pathwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As the kernel: a path that meets more links than this is a loop. */
#define MAX_LINKS 40

/* What is left to walk: a list of components ("a/b/../c"), of which the
 * last `orig` bytes are the caller's own text, after its component walked
 * last (a link's target is put in front of what follows the link). */
typedef struct walk {
	char rest[2 * PATH_MAX];
	size_t at, len;     /* rest[at..len) is left */
	size_t orig;        /* of which the caller's, at the end */
	int links;
} walk;

/* A link that another user planted in a shared directory `dir`: the
 * directory is sticky and world-writable, and the link is neither the
 * user's nor the directory owner's. */
static bool planted(const struct stat *link, const struct stat *dir)
{
	return (dir->st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH) &&
	       link->st_uid != geteuid() && link->st_uid != dir->st_uid;
}

/* The next component of w into name (NAME_MAX+1 bytes); false at the end
 * or for one too long (errno ENAMETOOLONG). */
static bool next_name(walk *w, char *name)
{
	while (w->at < w->len && w->rest[w->at] == '/')
		w->at++;
	size_t start = w->at;
	while (w->at < w->len && w->rest[w->at] != '/')
		w->at++;
	size_t n = w->at - start;
	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;
		return false;
	}
	memcpy(name, w->rest + start, n);
	name[n] = '\0';
	return n > 0;
}

/* Put the link's target in front of what is left.  An absolute target
 * starts again at the root (*cur replaced). */
static int put_target(walk *w, int *cur, const char *target, size_t n)
{
	size_t left = w->len - w->at;
	if (++w->links > MAX_LINKS)
		return errno = ELOOP, -1;
	if (n + 1 + left >= sizeof w->rest)
		return errno = ENAMETOOLONG, -1;
	memmove(w->rest + n + 1, w->rest + w->at, left);
	memcpy(w->rest, target, n);
	w->rest[n] = '/';
	w->at = 0;
	w->len = n + 1 + left;
	if (target[0] == '/') {
		int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			return -1;
		close(*cur);
		*cur = root;
	}
	return 0;
}

/* Which link, for the message: the caller's own prefix through it when
 * it is one of the caller's components, else the caller's component that
 * led to it and its name. */
static void name_link(const char *path, size_t dlen, const walk *w, bool own,
		      const char *name, char *why, size_t size)
{
	size_t through = dlen - w->orig;
	while (through > 0 && path[through - 1] == '/')
		through--;
	if (own)
		snprintf(why, size, "'%.*s' is", (int)through, path);
	else
		snprintf(why, size, "'%.*s' leads through '%s',", (int)through, path, name);
}

/* One step from *cur into `name`: a directory (entered) or a link
 * (followed, or refused as planted). */
static path_walk step(const char *path, size_t dlen, walk *w, int *cur,
		      const char *name, bool own, char *why, size_t size)
{
	struct stat st, ds;
	if (fstatat(*cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return PATH_WALK_ERRNO;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		if (fstat(*cur, &ds) != 0)
			return PATH_WALK_ERRNO;
		if (planted(&st, &ds)) {
			name_link(path, dlen, w, own, name, why, size);
			return PATH_WALK_PLANTED;
		}
		ssize_t n = readlinkat(*cur, name, target, sizeof target);
		if (n <= 0 || (size_t)n >= sizeof target)
			return errno = n < 0 ? errno : ENAMETOOLONG, PATH_WALK_ERRNO;
		return put_target(w, cur, target, (size_t)n) ? PATH_WALK_ERRNO : PATH_WALK_OK;
	}
	if (!S_ISDIR(st.st_mode))
		return errno = ENOTDIR, PATH_WALK_ERRNO;
	int fd = openat(*cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* It became a link since: walk it again, as one. */
		if ((errno == ENOTDIR || errno == ELOOP) && w->links < MAX_LINKS) {
			w->links++;
			w->at -= strlen(name);
			if (own)
				w->orig = w->len - w->at;
			return PATH_WALK_OK;
		}
		return PATH_WALK_ERRNO;
	}
	close(*cur);
	*cur = fd;
	return PATH_WALK_OK;
}

path_walk path_dir_open(const char *path, path_dir *d, char *why, size_t size)
{
	walk w;
	memset(&w, 0, sizeof w);
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	d->fd = -1;
	d->base = path + dlen;
	if (dlen >= sizeof w.rest)
		return errno = ENAMETOOLONG, PATH_WALK_ERRNO;
	memcpy(w.rest, path, dlen);
	w.len = w.orig = dlen;
	int cur = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return PATH_WALK_ERRNO;
	char name[NAME_MAX + 1];
	path_walk r = PATH_WALK_OK;
	for (;;) {
		bool own = w.len - w.at <= w.orig;
		errno = 0;
		if (!next_name(&w, name)) {
			if (errno)
				r = PATH_WALK_ERRNO;
			break;
		}
		if (own)
			w.orig = w.len - w.at;
		if (strcmp(name, ".") == 0)
			continue;
		r = step(path, dlen, &w, &cur, name, own, why, size);
		if (r != PATH_WALK_OK)
			break;
	}
	if (r != PATH_WALK_OK) {
		int saved = errno;
		close(cur);
		errno = saved;
		return r;
	}
	d->fd = cur;
	return PATH_WALK_OK;
}

void path_dir_close(path_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
