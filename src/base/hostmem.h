/* hostmem.h - how much memory this process may still take, read from
 * what the host says (/proc, the cgroup file system, rlimits), and the
 * checks a run makes with it before its first step.  The readers take
 * the directories they read, so that tests can give them files of their
 * own; nothing here reads the environment. */
#ifndef LIFE3D_BASE_HOSTMEM_H
#define LIFE3D_BASE_HOSTMEM_H

#include <stddef.h>

#include "status.h"

/* Bytes this process can still take: the least of the system's
 * MemAvailable; RLIMIT_AS and RLIMIT_DATA (ulimit -v, -d), each less what
 * is mapped already (VmSize, VmData); and the limit less the usage of the
 * process's own cgroup and of each cgroup above it (Slurm jobs,
 * containers), v1 or v2.  SIZE_MAX where nothing is known.  The readers
 * take the directories they read (proc: "/proc", cgroup:
 * "/sys/fs/cgroup"), so that tests can give them files of their own. */
size_t host_memory_available(void);
/* L3D_ERR_RUNTIME, with the amounts and the limit that binds, when
 * `bytes` will not fit. */
int host_memory_check(size_t bytes, const char *what, l3d_err *err);
/* The same for processes that share the machine (ranks of one node):
 * `own` bytes of this one against its own limits (rlimits), `all` of
 * them together against the ones they share (MemAvailable, cgroups). */
int host_memory_check_shared(size_t own, size_t all, const char *what, l3d_err *err);
/* The same with `reserve` bytes of address space set aside, which only
 * RLIMIT_AS counts (host_thread_reserve). */
int host_memory_check_reserve(size_t bytes, size_t reserve, const char *what, l3d_err *err);
/* The address space `threads` threads started with the default stack
 * take, `allocating` of them with a malloc arena of their own: ulimit -v
 * counts it all although little of it is ever touched, and what one
 * thread's arena takes early, a large allocation misses later. */
size_t host_thread_reserve(int threads, int allocating);
/* host_memory_available() read under proc and cgroup, with the name of
 * the limit that gave it into which ("" when none did). */
size_t host_memory_limit(const char *proc, const char *cgroup, char *which, size_t size);
/* MemAvailable of PROC/meminfo. */
size_t host_meminfo_available(const char *proc);
/* An rlimit (SIZE_MAX: none) less what the `field` line of
 * PROC/self/status ("VmSize:", "VmData:") says is used; 0 past it. */
size_t host_rlimit_left(size_t limit, const char *proc, const char *field);
/* The least limit less usage from the cgroup PROC/self/cgroup names up to
 * the root, under CGROUP (v2) or CGROUP/memory (v1), with which one into
 * `which` (may be NULL). */
size_t host_cgroup_left(const char *proc, const char *cgroup, char *which, size_t size);

#endif
