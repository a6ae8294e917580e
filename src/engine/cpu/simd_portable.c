/* simd_portable.c - the kernel on plain 64-bit words: any CPU, built
 * by any compiler with GNU C extensions.  64 cells per operation; the
 * baseline the SIMD paths are checked and timed against. */
#include "kernel.h"

#include <string.h>

#include "kernel_w1.h"

cpu_band_fn cpu_band_portable(unsigned vl)
{
	return band_w1;
}
