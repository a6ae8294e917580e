/* hostmem.c - see hostmem.h. */
#include "hostmem.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* First number in a file such as memory.max ("max" reads as unknown). */
static size_t read_number(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long v;
	size_t r = SIZE_MAX;
	if (f && fscanf(f, "%llu", &v) == 1)
		r = v < SIZE_MAX ? (size_t)v : SIZE_MAX;
	if (f)
		fclose(f);
	return r;
}

/* The kB figure of the line `key` (such as "VmSize:") of a /proc text
 * file, in bytes; SIZE_MAX when there is none. */
static size_t read_kib_field(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned long long kib;
	size_t r = SIZE_MAX, n = strlen(key);
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, key, n) == 0 && sscanf(line + n, "%llu", &kib) == 1) {
			r = kib < SIZE_MAX / 1024 ? (size_t)kib * 1024 : SIZE_MAX;
			break;
		}
	if (f)
		fclose(f);
	return r;
}

size_t host_meminfo_available(const char *proc)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/meminfo", proc);
	return read_kib_field(path, "MemAvailable:");
}

size_t host_rlimit_left(size_t limit, const char *proc, const char *field)
{
	char path[PATH_MAX];
	if (limit == SIZE_MAX)
		return SIZE_MAX;
	snprintf(path, sizeof path, "%s/self/status", proc);
	size_t used = read_kib_field(path, field);
	if (used == SIZE_MAX)     /* not known: the limit alone */
		used = 0;
	return limit > used ? limit - used : 0;
}

/* This process's cgroup, from PROC/self/cgroup, into path: the v1 line of
 * the memory controller ("4:memory:/PATH"), which is where the limits are
 * when there is one, else the v2 line ("0::/PATH").  *v1 says which. */
static bool own_cgroup(const char *proc, char *path, size_t size, bool *v1)
{
	char file[PATH_MAX], line[PATH_MAX + 64];
	snprintf(file, sizeof file, "%s/self/cgroup", proc);
	FILE *f = fopen(file, "r");
	bool found = false;
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *ctl = strchr(line, ':'), *at = ctl ? strchr(ctl + 1, ':') : NULL;
		if (!at || at[1] != '/')
			continue;
		*at = 0;
		bool memory = strcmp(ctl + 1, "memory") == 0 || strstr(ctl + 1, ",memory") ||
			      strncmp(ctl + 1, "memory,", 7) == 0;
		if (memory || (!found && ctl[1] == 0)) {
			snprintf(path, size, "%s", at + 1);
			*v1 = memory;
			found = true;
		}
		if (memory)
			break;
	}
	if (f)
		fclose(f);
	return found;
}

/* limit - usage of the cgroup at dir (files named as v1 or v2 names them),
 * SIZE_MAX when it has no limit ("max", or no files: the root). */
static size_t cgroup_dir_left(const char *dir, bool v1)
{
	char lim[PATH_MAX + 96], cur[PATH_MAX + 96];
	snprintf(lim, sizeof lim, "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
	snprintf(cur, sizeof cur, "%s/%s", dir, v1 ? "memory.usage_in_bytes" : "memory.current");
	size_t limit = read_number(lim), used = read_number(cur);
	if (limit == SIZE_MAX)
		return SIZE_MAX;
	if (used == SIZE_MAX)
		used = 0;
	return limit > used ? limit - used : 0;
}

size_t host_cgroup_left(const char *proc, const char *cgroup, char *which, size_t size)
{
	char own[PATH_MAX], dir[PATH_MAX + 64];
	bool v1 = false;
	size_t least = SIZE_MAX;
	if (which && size)
		*which = 0;
	if (!own_cgroup(proc, own, sizeof own, &v1))
		return SIZE_MAX;
	/* A parent's limit binds its children too: the least of them all,
	 * up to the root (which, in a container, is the container's). */
	for (;;) {
		snprintf(dir, sizeof dir, "%s%s%s", cgroup, v1 ? "/memory" : "",
			 strcmp(own, "/") == 0 ? "" : own);
		size_t left = cgroup_dir_left(dir, v1);
		if (left < least && which)
			snprintf(which, size, "%s of the cgroup %s",
				 v1 ? "memory.limit_in_bytes" : "memory.max", own);
		least = left < least ? left : least;
		char *slash = strrchr(own, '/');
		if (!slash || slash == own) {
			if (strcmp(own, "/") == 0)
				break;
			strcpy(own, "/");
		} else {
			*slash = 0;
		}
	}
	return least;
}

/* RLIMIT_AS or RLIMIT_DATA's soft limit; SIZE_MAX for none. */
static size_t rlimit_of(int resource)
{
	struct rlimit rl;
	if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= SIZE_MAX)
		return SIZE_MAX;
	return (size_t)rl.rlim_cur;
}

/* The limit `left` replaces *least when it is smaller, with its name. */
static void take_least(size_t left, const char *name, size_t *least, char *which,
		       size_t size)
{
	if (left >= *least)
		return;
	*least = left;
	if (which && size)
		snprintf(which, size, "%s", name);
}

/* The least of the limits of this process alone (rlimits), of those it
 * shares with others (the machine's MemAvailable, its cgroups), or both. */
static size_t limit_of(const char *proc, const char *cgroup, bool own, bool shared,
		       char *which, size_t size)
{
	char group[PATH_MAX + 32];
	size_t least = SIZE_MAX;
	if (which && size)
		*which = 0;
	if (shared)
		take_least(host_meminfo_available(proc), "MemAvailable", &least, which, size);
	if (own) {
		take_least(host_rlimit_left(rlimit_of(RLIMIT_AS), proc, "VmSize:"),
			   "ulimit -v, RLIMIT_AS", &least, which, size);
		take_least(host_rlimit_left(rlimit_of(RLIMIT_DATA), proc, "VmData:"),
			   "ulimit -d, RLIMIT_DATA", &least, which, size);
	}
	if (shared) {
		size_t left = host_cgroup_left(proc, cgroup, group, sizeof group);
		take_least(left, group, &least, which, size);
	}
	return least;
}

size_t host_memory_limit(const char *proc, const char *cgroup, char *which, size_t size)
{
	return limit_of(proc, cgroup, true, true, which, size);
}

size_t host_memory_available(void)
{
	return host_memory_limit("/proc", "/sys/fs/cgroup", NULL, 0);
}

/* glibc's: a thread's stack when RLIMIT_STACK is unlimited (x86-64), and
 * the address space each malloc arena reserves (HEAP_MAX_SIZE, 64-bit);
 * it makes no more than 8 arenas a core, beyond which threads share. */
#define STACK_WHEN_UNLIMITED ((size_t)2 << 20)
#define ARENA_BYTES ((size_t)64 << 20)

size_t host_thread_reserve(int threads, int allocating)
{
	struct rlimit rl;
	size_t stack = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
		       ? (size_t)rl.rlim_cur : STACK_WHEN_UNLIMITED;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t arenas = (size_t)allocating, most = 8 * (size_t)(cores > 0 ? cores : 1) - 1;
	arenas = arenas < most ? arenas : most;
	return (size_t)threads * stack + arenas * ARENA_BYTES;
}

static double mib(size_t bytes)
{
	return (double)bytes / 1048576.0;
}

int host_memory_check_reserve(size_t bytes, size_t reserve, const char *what, l3d_err *err)
{
	char which[PATH_MAX + 32];
	size_t avail = host_memory_limit("/proc", "/sys/fs/cgroup", which, sizeof which);
	if (bytes > avail)
		return l3d_fail(err, L3D_ERR_RUNTIME,
				"%s needs %.1f MiB of memory; only %.1f MiB is available (%s)",
				what, mib(bytes), mib(avail), which);
	size_t space = host_rlimit_left(rlimit_of(RLIMIT_AS), "/proc", "VmSize:");
	if (space == SIZE_MAX || bytes + reserve <= space)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_RUNTIME,
			"%s needs %.1f MiB of memory and %.1f MiB of address space for "
			"its threads' stacks and malloc arenas; only %.1f MiB is available "
			"(ulimit -v, RLIMIT_AS)", what, mib(bytes), mib(reserve), mib(space));
}

int host_memory_check(size_t bytes, const char *what, l3d_err *err)
{
	return host_memory_check_reserve(bytes, 0, what, err);
}

int host_memory_check_shared(size_t own, size_t all, const char *what, l3d_err *err)
{
	char which[PATH_MAX + 32];
	size_t mine = limit_of("/proc", "/sys/fs/cgroup", true, false, which, sizeof which);
	size_t need = own;
	if (own <= mine) {
		mine = limit_of("/proc", "/sys/fs/cgroup", false, true, which, sizeof which);
		need = all;
	}
	if (need <= mine)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_RUNTIME,
			"%s needs %.1f MiB of memory; only %.1f MiB is available (%s)",
			what, mib(need), mib(mine), which);
}
