/* device.c - see device.h. */
#include "device.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#ifndef HAVE_CUDA

int cuda_device_count(void)
{
	return 0;
}

int cuda_describe_devices(char *buf, size_t size)
{
	return snprintf(buf, size, "none (engine 'cuda' is not built in)");
}

void cuda_warm_up(int device)
{
	(void)device;
}

bool cuda_warming(void)
{
	return false;
}

void cuda_settle(void)
{
}

void cuda_leave(void)
{
}

bool cuda_left_behind(void)
{
	return false;
}

bool cuda_narrow(const char *entry, int device)
{
	(void)entry, (void)device;
	return false;
}

int cuda_pick_device(const engine_opts *opts, int offset, int *device, l3d_err *err)
{
	(void)opts, (void)offset, (void)device;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda' is not built in (configure --with-cuda)");
}

#else /* HAVE_CUDA */

#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "kernels/kernels.h"
#include "runtime.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Whether a CUDA call has been made (cuda_narrow comes too late then), and
 * the device this process narrowed the driver's view to, with the entry
 * that names it (-1: not narrowed). */
static bool touched;
static int narrowed = -1;
static char narrowed_entry[64];

bool cuda_narrow(const char *entry, int device)
{
	if (touched || narrowed >= 0 || setenv("CUDA_VISIBLE_DEVICES", entry, 1) != 0)
		return false;
	narrowed = device;
	snprintf(narrowed_entry, sizeof narrowed_entry, "%s", entry);
	return true;
}

/* The driver's number for device d as the process was started: 0 for the
 * one it narrowed to, and none for any other then. */
static int ordinal(int d)
{
	if (narrowed < 0)
		return d;
	return d == narrowed ? 0 : INT_MAX;
}

int cuda_fail(l3d_err *err, cudaError_t e, const char *what)
{
	return l3d_fail(err, L3D_ERR_RUNTIME, "engine 'cuda': %s: %s", what,
			cudaGetErrorString(e));
}

/* 0 with the number of visible devices, or -1 with the reason there is
 * none (no driver, a driver older than the runtime, no device). */
static int probe_devices(int *count, char *why, size_t size)
{
	int n = 0, driver = 0, runtime = 0;
	touched = true;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
	    driver > 0 && cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
		snprintf(why, size,
			 "the NVIDIA driver supports CUDA %d.%d but this program needs %d.%d "
			 "(update the driver)",
			 driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
		return -1;
	}
	if (e == cudaErrorInsufficientDriver && driver == 0) {
		/* The runtime reports a missing libcuda as an old driver. */
		snprintf(why, size, "no NVIDIA driver is installed");
		return -1;
	}
	/* The driver maps every GPU's memory into the address space at its
	 * start: under ulimit -v it fails as out of memory. */
	struct rlimit as;
	if (e == cudaErrorMemoryAllocation && getrlimit(RLIMIT_AS, &as) == 0 &&
	    as.rlim_cur != RLIM_INFINITY) {
		snprintf(why, size, "the CUDA driver cannot start under a limit of %.0f MiB of "
			 "address space (ulimit -v, RLIMIT_AS): it maps the GPUs' memory into "
			 "it; lift the limit (a memory limit is a cgroup's job)",
			 (double)as.rlim_cur / 1048576.0);
		return -1;
	}
	if (e != cudaSuccess) {
		snprintf(why, size, "no CUDA device (cudaGetDeviceCount: %s)",
			 cudaGetErrorString(e));
		return -1;
	}
	if (n < 1) {
		snprintf(why, size, "no CUDA device (cudaGetDeviceCount: none visible)");
		return -1;
	}
	*count = n;
	return 0;
}

int cuda_device_count(void)
{
	touched = true;
	return l3dk_device_count();
}

int cuda_describe_devices(char *buf, size_t size)
{
	char why[256];
	int n = 0, len = 0;
	if (size)
		buf[0] = '\0';
	if (probe_devices(&n, why, sizeof why))
		return snprintf(buf, size, "none (%s)", why);
	for (int d = 0; d < n; d++) {
		struct cudaDeviceProp p;
		size_t at = (size_t)len < size ? (size_t)len : size;
		if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
			len += snprintf(buf + at, size - at, "%s%d: (unreadable)", d ? "\n" : "", d);
		else
			len += snprintf(buf + at, size - at, "%s%d: %s (cc %d.%d, %.1f GiB)",
					d ? "\n" : "", d, p.name, p.major, p.minor,
					(double)p.totalGlobalMem / GIB);
	}
	return len;
}

int cuda_pick_device(const engine_opts *opts, int offset, int *device, l3d_err *err)
{
	char why[256];
	int n = 0;
	int first = opts && opts->device >= 0 ? opts->device : 0;
	if (probe_devices(&n, why, sizeof why)) {
		if (narrowed >= 0 && first == narrowed)
			return l3d_fail(err, L3D_ERR_USAGE,
					"engine 'cuda': no device %d (CUDA_VISIBLE_DEVICES=%s, set "
					"to name it alone, names no GPU)",
					first, narrowed_entry);
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "engine 'cuda': %s", why);
	}
	if (ordinal(first) >= n)
		return l3d_fail(err, L3D_ERR_USAGE,
				"engine 'cuda': no device %d (%d visible)", first, n);
	*device = (ordinal(first) + offset) % n;
	return L3D_OK;
}

int cuda_memory_check(double need, const char *what, const char *name, l3d_err *err)
{
	size_t free_b = 0, total_b = 0;
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
	need += 64.0 * 1024 * 1024;
	if (need <= (double)free_b)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda': %s needs %.2f GiB of device memory "
			"but %s has %.2f GiB free (of %.2f GiB)",
			what, need / GIB, name, (double)free_b / GIB, (double)total_b / GIB);
}

/* Context creation, on a thread of its own while the input is read.  The
 * primary context it creates is the one the engine later uses; failures
 * are left for engine_cuda_create() to find and report. */
static pthread_t warm_thread;
static bool warm_running, left_behind;
static atomic_bool warm_finished;
static int warm_device;

static void *warm(void *arg)
{
	(void)arg;
	int n = 0;
	if (cudaGetDeviceCount(&n) == cudaSuccess && warm_device < n &&
	    cudaSetDevice(warm_device) == cudaSuccess)
		cudaFree(NULL);
	atomic_store(&warm_finished, true);
	return NULL;
}

void cuda_warm_up(int device)
{
	if (warm_running)
		return;
	touched = true;
	warm_device = ordinal(device);
	atomic_store(&warm_finished, false);
	warm_running = pthread_create(&warm_thread, NULL, warm, NULL) == 0;
}

bool cuda_warming(void)
{
	return warm_running && !atomic_load(&warm_finished);
}

void cuda_settle(void)
{
	if (warm_running)
		pthread_join(warm_thread, NULL);
	warm_running = false;
}

void cuda_leave(void)
{
	if (!cuda_warming()) {
		cuda_settle();
		return;
	}
	pthread_detach(warm_thread);
	warm_running = false;
	left_behind = true;
}

bool cuda_left_behind(void)
{
	return left_behind;
}

#endif /* HAVE_CUDA */
