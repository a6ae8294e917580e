/* engine_cuda.c - the CUDA engine's host side. */
#include "config.h"
#include "engine.h"

#include <stdio.h>

#ifdef HAVE_CUDA
#include "../kernels/kernels.h"
int engine_cuda_device_count(void)
{
	return l3dk_device_count();
}
#else
int engine_cuda_device_count(void)
{
	return 0;
}
#endif

int engine_cuda_describe_devices(char *buf, size_t size)
{
	return snprintf(buf, size, "%d", engine_cuda_device_count());
}

int engine_cuda_create(const engine_opts *opts, const grid *initial,
		       const rule *r, engine **out, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda' is not available in this build");
}
