/* pathwalk.h - the directory that holds an output path's last component,
 * reached one component at a time, never through a link another user
 * planted in a shared directory.
 *
 * The rule is the kernel's protected_symlinks, which not every system
 * turns on, applied by life3d to every symbolic link met on the way,
 * nested ones included (one's own link that leads through another's): in
 * a sticky, world-writable directory (/tmp, scratch) a link is followed
 * only when it belongs to the user or to the directory's owner.  The
 * directory is held open (O_PATH), so an output created, renamed or
 * removed relative to it stays there whatever the path's links are made
 * to name afterwards.  The last component itself is never followed: it
 * is left to the caller (outfile.h). */
#ifndef LIFE3D_BASE_PATHWALK_H
#define LIFE3D_BASE_PATHWALK_H

#include <stddef.h>

typedef struct path_dir {
	int fd;             /* the directory, O_PATH; -1 when not open */
	const char *base;   /* path's last component (points into path) */
} path_dir;

typedef enum path_walk {
	PATH_WALK_OK,
	PATH_WALK_ERRNO,    /* errno says why: ENOENT, ENOTDIR, EACCES, ELOOP... */
	PATH_WALK_PLANTED   /* `why` names the planted link, as "'L' is" or
			       "'P' leads through 'L',", followed by the
			       caller's "another user's symbolic link..." */
} path_walk;

/* Open the directory of `path` into *d (the current directory for a bare
 * name).  On PATH_WALK_PLANTED, why[0..size) says which link; on any
 * failure d->fd is -1. */
path_walk path_dir_open(const char *path, path_dir *d, char *why, size_t size);

void path_dir_close(path_dir *d);

#endif
