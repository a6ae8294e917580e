/* visible.h - the GPUs the CUDA driver will see, read before it is asked.
 *
 * The driver sets up every GPU a process may see before its first context
 * exists, about 0.26 s a GPU beyond the first on a 2-GPU H200 machine
 * (src/engine/NOTES.md, "auto on a node of two GPUs").  A process that
 * steps on one GPU can name that one alone in CUDA_VISIBLE_DEVICES before
 * its first CUDA call, and pay for one.  Only what is certain to name the
 * same GPU is offered: an entry of the list the user gave, or, with no
 * list, the index itself where the driver's order is known (every GPU the
 * same model, or CUDA_DEVICE_ORDER PCI_BUS_ID, and none excluded).  Pure
 * functions of what they are given, so tests can feed them a made-up
 * driver; choose.c applies them. */
#ifndef LIFE3D_ENGINE_VISIBLE_H
#define LIFE3D_ENGINE_VISIBLE_H

#include <stdbool.h>
#include <stddef.h>

/* The GPUs a CUDA driver sets up when a process first asks for one, each
 * beyond the first adding to a GPU run's start (auto weighs that): the
 * driver's device nodes nvidia0, nvidia1, ... in dev_dir ("/dev"), or as
 * many as `visible` (CUDA_VISIBLE_DEVICES, NULL when unset) lists,
 * whichever is fewer; 0 when dev_dir cannot be read. */
int engine_gpus_to_set_up(const char *dev_dir, const char *visible);

/* What CUDA_VISIBLE_DEVICES should say so that CUDA device `device` (as
 * numbered under `visible`, NULL when unset) is the only one: true with
 * that entry in entry[size] when it is certain and names fewer GPUs than
 * now, else false.  With a list: its entry `device`, when that and every
 * entry before it is a GPU index, a GPU- or MIG- UUID (a bad entry hides
 * the rest, so the numbering would differ).  Without one: "device", when
 * gpus_dir (the driver's "/proc/driver/nvidia/gpus") has more than
 * `device` GPUs, none excluded, and `order` (CUDA_DEVICE_ORDER) is
 * PCI_BUS_ID or they are all one model (then CUDA's order is the
 * driver's). */
bool engine_one_gpu(const char *visible, const char *order, const char *gpus_dir,
		    int device, char *entry, size_t size);

#endif
