/* failio.c - makes one of life3d's output calls fail, for the shell test
 * cli_faults.sh: an LD_PRELOAD library that stands in for the C library's
 * write, pwrite, fsync, close, fclose, fflush, fwrite, rename, renameat,
 * renameat2, link, linkat and mprotect, and (built with -DFAILIO_ALLOC, as
 * failalloc.so) for its allocations, and passes every call on except the
 * ones it is told to fail.
 *
 *   FAILIO_FN     the function whose calls fail (one of the above; malloc
 *                 stands for malloc, calloc, realloc, aligned_alloc and
 *                 posix_memalign, counted together, which fail with ENOMEM)
 *   FAILIO_AT     the first call that fails, counted from 1 (default 1)
 *   FAILIO_ONCE   set: that call alone fails; unset: it and every later one
 *   FAILIO_ERRNO  the errno they fail with (default EIO)
 *   FAILIO_COUNT  a file to which the number of calls of FAILIO_FN is
 *                 written when the process exits
 *
 * A failing call does nothing and returns the function's error value, as
 * the kernel does for a write or a rename that fails; close and fclose
 * close first (Linux releases the descriptor even when close reports an
 * error).  Standard error is never failed, so that the message gets out.
 * Calls of other threads count too, in the order they arrive. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static atomic_long calls;

/* Whether this call of fn is one to fail; errno set when it is. */
static int fails(const char *fn)
{
	const char *want = getenv("FAILIO_FN");
	if (!want || strcmp(want, fn) != 0)
		return 0;
	const char *at = getenv("FAILIO_AT"), *e = getenv("FAILIO_ERRNO");
	long first = at ? atol(at) : 1, k = atomic_fetch_add(&calls, 1) + 1;
	if (k < first || (getenv("FAILIO_ONCE") && k != first))
		return 0;
	errno = e ? atoi(e) : EIO;
	return 1;
}

#define REAL(fn) \
	static __typeof__(fn) *real; \
	if (!real) \
		real = (__typeof__(fn) *)dlsym(RTLD_NEXT, #fn)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write);
	return fd != STDERR_FILENO && fails("write") ? -1 : real(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t at)
{
	REAL(pwrite);
	return fails("pwrite") ? -1 : real(fd, buf, n, at);
}

int fsync(int fd)
{
	REAL(fsync);
	return fails("fsync") ? -1 : real(fd);
}

int close(int fd)
{
	REAL(close);
	int rc = real(fd);
	return fd != STDERR_FILENO && fails("close") ? -1 : rc;
}

int fclose(FILE *f)
{
	REAL(fclose);
	int is_stderr = f == stderr, rc = real(f);
	return !is_stderr && fails("fclose") ? EOF : rc;
}

int fflush(FILE *f)
{
	REAL(fflush);
	return f && f != stderr && fails("fflush") ? EOF : real(f);
}

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
	REAL(fwrite);
	return f != stderr && fails("fwrite") ? 0 : real(buf, size, n, f);
}

int rename(const char *from, const char *to)
{
	REAL(rename);
	return fails("rename") ? -1 : real(from, to);
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned flags)
{
	REAL(renameat2);
	return fails("renameat2") ? -1 : real(fromdir, from, todir, to, flags);
}

int link(const char *from, const char *to)
{
	REAL(link);
	return fails("link") ? -1 : real(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to)
{
	REAL(renameat);
	return fails("renameat") ? -1 : real(fromdir, from, todir, to);
}

int linkat(int fromdir, const char *from, int todir, const char *to, int flags)
{
	REAL(linkat);
	return fails("linkat") ? -1 : real(fromdir, from, todir, to, flags);
}

int mprotect(void *at, size_t n, int prot)
{
	REAL(mprotect);
	return fails("mprotect") ? -1 : real(at, n, prot);
}

#ifdef FAILIO_ALLOC
/* Built so (failalloc.so) it stands in for the allocator too: a library
 * of its own, since a sanitizer's runtime, which has its own allocator,
 * cannot run under it. */
/* The allocations go to glibc's own functions, not through dlsym, which
 * itself allocates. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

/* Allocations fail only once main has begun: the static initializers of
 * libraries linked in (the CUDA runtime's) allocate before main and do
 * not check, and they are not life3d's code. */
static atomic_int in_main;

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int counted_main(int argc, char **argv, char **envp)
{
	atomic_store(&in_main, 1);
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	int (*start)(main_fn, int, char **, void (*)(void), void (*)(void),
		     void (*)(void), void *) =
		(int (*)(main_fn, int, char **, void (*)(void), void (*)(void),
			 void (*)(void), void *))dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return start(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}

static int alloc_fails(void)
{
	if (!atomic_load(&in_main) || !fails("malloc"))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return alloc_fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return alloc_fails() ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	if (alloc_fails())
		return ENOMEM;
	*out = __libc_memalign(align, n);
	return *out ? 0 : ENOMEM;
}
#endif

__attribute__((destructor)) static void count(void)
{
	const char *path = getenv("FAILIO_COUNT");
	if (!path)
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%ld\n", atomic_load(&calls));
		REAL(fclose);      /* not counted */
		real(f);
	}
}
