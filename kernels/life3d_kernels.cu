/* life3d_kernels.cu - CUDA kernels for life3d. */
#include <cuda_runtime.h>
#include "kernels.h"

extern "C" int l3dk_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess)
		return 0;
	return n;
}
