/* kernels.h - the CUDA kernels' C interface (the only header src/ sees). */
#ifndef LIFE3D_KERNELS_H
#define LIFE3D_KERNELS_H
#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable devices, 0 on any error (no driver, no device). */
int l3dk_device_count(void);

#ifdef __cplusplus
}
#endif
#endif
