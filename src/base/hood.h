/* hood.h - Golly's five 3D neighbourhoods, one row of one table each: its
 * number (rule_hood), the letter a rule ends in, its cells, its name and
 * its offsets (dx,dy,dz).  Nothing else numbers them.
 *
 * Plain C11 that is also CUDA C++, as render_pixel.h: rule.h includes it
 * for the host, kernels/kernels.h for the GPU kernels, so both count the
 * same neighbourhoods by the same numbers; under nvcc the table is
 * constexpr and kernels/cells.cuh gathers each neighbour at compile time
 * from the offsets here (hood_dx).  It needs nothing but the compiler.
 *
 *   Moore  the 26 offsets of {-1,0,1}^3 but (0,0,0)
 *   F      the 6 faces (also written V)
 *   C      the 8 corners (+-1,+-1,+-1)
 *   E      the 12 edges: exactly two coordinates non-0
 *   H      the 6 faces and (0,1,-1) (0,-1,1) (1,0,-1) (-1,0,1) (1,-1,0)
 *          (-1,1,0): Bays' hexahedral (face-centred cubic) neighbourhood,
 *          which is not mirror-symmetric
 * A rule names counts 0..cells of its neighbourhood (rule.h).
 *
 * A new neighbourhood touches these places, each for the reason given
 * (where starred, the build fails until it is done):
 *   src/base/hood.h         its number, after the others (.l3d files keep
 *                           it in 3 bits, format/native.c: never renumber,
 *                           8 at most), and its row: rule.c reads, writes
 *                           and checks rules from the row alone
 *   src/engine/cpu/kernel_hood.h  its branch in row_parts, beside and
 *                           parts_count, its HOOD_FN instances, its cases
 *                           in band_hood: the CPU kernels (that file's
 *                           opening comment says why they stay branches)
 *   kernels/step_kernels.cuh *  its HoodLanes block: the GPU's lanes kernel
 *                           (the kernel of a thread a word adds the row's
 *                           offsets, by bitsum.cuh's adder of 6, 8 or 12
 *                           words, and the host's dispatch goes over every
 *                           number here: cells.cuh)
 *   Makefile.am *           JIT_MODULES, 5 more: rule_jit.cu's modules
 *   src/cli/options.c       --help's letters
 *   tests/tools/reference.c the reference stepper's offsets, written out
 *                           apart from this table
 *   tests/unit/check_rule.c, check_engine.c, check_cuda.c  its size,
 *                           letter and rules (check_engine's random rules
 *                           take every neighbourhood already)
 *   tests/data/patterns/, tests/cli/cli_hoods.sh  an oscillator of its own
 *   man/life3d.1 (NEIGHBOURHOODS), man/life3d.conf.5 (rule),
 *   man/life3d-formats.5 (.l3d's bits, the Python reader), README.md
 *                           what users read of it */
#ifndef LIFE3D_BASE_HOOD_H
#define LIFE3D_BASE_HOOD_H

#ifdef __cplusplus
#define HOOD_TABLE constexpr
#define HOOD_ASSERT static_assert
#else
#define HOOD_TABLE static const
#define HOOD_ASSERT _Static_assert
#endif
#ifdef __CUDACC__
#define HOOD_FN static constexpr __host__ __device__ __forceinline__
#elif defined(__cplusplus)
#define HOOD_FN static constexpr inline
#else
#define HOOD_FN static inline
#endif

typedef enum rule_hood {
	RULE_MOORE = 0,
	RULE_FACE,
	RULE_CORNER,
	RULE_EDGE,
	RULE_HEX,
	RULE_HOODS
} rule_hood;

#define HOOD_MAX_CELLS 26

typedef struct hood_def {
	const char *suffix;     /* the letter a rule ends in ("" for Moore) */
	const char *also;       /* letters read as this one, never written */
	unsigned cells;         /* neighbours: the largest count */
	const char *name;       /* for messages */
	signed char offset[HOOD_MAX_CELLS][3];   /* (dx,dy,dz) of each cell */
} hood_def;

/* By rule_hood.  The offsets are in the order the GPU's kernel of a thread
 * a word adds them (cells.cuh), which its code depends on. */
HOOD_TABLE hood_def hood_table[] = {
	{"", "", 26, "Moore",
	 {{-1, -1, -1}, {-1, -1, 0}, {-1, -1, 1}, {-1, 0, -1}, {-1, 0, 0}, {-1, 0, 1},
	  {-1, 1, -1}, {-1, 1, 0}, {-1, 1, 1}, {0, -1, -1}, {0, -1, 0}, {0, -1, 1},
	  {0, 0, -1}, {0, 0, 1}, {0, 1, -1}, {0, 1, 0}, {0, 1, 1},
	  {1, -1, -1}, {1, -1, 0}, {1, -1, 1}, {1, 0, -1}, {1, 0, 0}, {1, 0, 1},
	  {1, 1, -1}, {1, 1, 0}, {1, 1, 1}}},
	{"F", "V", 6, "face",
	 {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}},
	{"C", "", 8, "corner",
	 {{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1},
	  {-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}}},
	{"E", "", 12, "edge",
	 {{1, 1, 0}, {1, -1, 0}, {-1, 1, 0}, {-1, -1, 0},
	  {1, 0, 1}, {1, 0, -1}, {-1, 0, 1}, {-1, 0, -1},
	  {0, 1, 1}, {0, 1, -1}, {0, -1, 1}, {0, -1, -1}}},
	{"H", "", 12, "hexahedral",
	 {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1},
	  {0, 1, -1}, {0, -1, 1}, {1, 0, -1}, {-1, 0, 1}, {1, -1, 0}, {-1, 1, 0}}},
};

HOOD_ASSERT(sizeof hood_table / sizeof hood_table[0] == RULE_HOODS,
	    "hood_table: one row a rule_hood, in its order");

/* A neighbourhood's cells, and coordinate axis (0 x, 1 y, 2 z) of its
 * offset i: constant expressions under nvcc. */
HOOD_FN unsigned hood_cells(int h)
{
	return hood_table[h].cells;
}

HOOD_FN int hood_dx(int h, int i, int axis)
{
	return hood_table[h].offset[i][axis];
}

#ifdef __cplusplus
/* Each row checked when C++ compiles it: its first `cells` offsets in
 * {-1,0,1}^3 but (0,0,0), no two alike, the rest (0,0,0). */
HOOD_FN bool hood_offset_ok(int h, int i)
{
	bool inside = (unsigned)i < hood_cells(h), zero = true, box = true;
	for (int a = 0; a < 3; a++) {
		zero = zero && hood_dx(h, i, a) == 0;
		box = box && hood_dx(h, i, a) >= -1 && hood_dx(h, i, a) <= 1;
	}
	for (int j = 0; inside && j < i; j++)
		if (hood_dx(h, i, 0) == hood_dx(h, j, 0) && hood_dx(h, i, 1) == hood_dx(h, j, 1) &&
		    hood_dx(h, i, 2) == hood_dx(h, j, 2))
			return false;
	return inside ? box && !zero : zero;
}

HOOD_FN bool hood_table_ok()
{
	for (int h = 0; h < RULE_HOODS; h++)
		for (int i = 0; i < HOOD_MAX_CELLS; i++)
			if (!hood_offset_ok(h, i))
				return false;
	return hood_cells(RULE_MOORE) == HOOD_MAX_CELLS;
}

HOOD_ASSERT(hood_table_ok(), "hood_table: offsets out of the box, repeated or missing");
#endif

#undef HOOD_TABLE
#undef HOOD_ASSERT
#undef HOOD_FN

#endif
