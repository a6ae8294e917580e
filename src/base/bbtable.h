/* bbtable.h - the cells one BusyBoxes swap reads, as a table: plain C11
 * that is also CUDA C++ (as hood.h), so that the CPU engine
 * (engine/busyboxes.c, which derives it) and the GPU's kernel
 * (kernels/busyboxes.cu, which is given it) step from one table.
 *
 * In the plane of a phase, a moving cell at (0,0) may swap with one of
 * its 4 diagonal sites; each swap has 2 activators (knight's moves of both
 * the cell and the site) and 12 inhibitors (of one of them alone): 28
 * distinct cells of a 7x7 square in all, off[i] = (along a, along b). */
#ifndef LIFE3D_BASE_BBTABLE_H
#define LIFE3D_BASE_BBTABLE_H

#include <stdint.h>

#define BB_SITES 28

typedef struct bb_table {
	int8_t off[BB_SITES][2];
	int8_t n;                  /* cells in off[]: BB_SITES once made */
	int8_t diagonal[4];        /* indices into off[] of each swap's ... */
	int8_t activator[4][2];
	int8_t inhibitor[4][12];
} bb_table;

#ifdef __CUDACC__
#define BB_FN static __host__ __device__ __forceinline__
#else
#define BB_FN static inline
#endif

/* The swap a cell makes, given which of the table's cells are live (bit
 * i: off[i]): the index into off[] of its diagonal site, or -1 when it
 * stays (no possible swap, two or more, or the site is not empty).  A
 * swap is possible when an activator is live and no inhibitor is. */
BB_FN int bb_swap_of(const bb_table *t, uint32_t live)
{
	int swaps = 0, which = 0;
	for (int s = 0; s < 4 && swaps < 2; s++) {
		int possible = (live >> t->activator[s][0] & 1) || (live >> t->activator[s][1] & 1);
		for (int k = 0; k < 12 && possible; k++)
			possible = !(live >> t->inhibitor[s][k] & 1);
		if (possible) {
			swaps++;
			which = s;
		}
	}
	if (swaps != 1 || (live >> t->diagonal[which] & 1))
		return -1;
	return t->diagonal[which];
}

#endif
