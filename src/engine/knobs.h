/* knobs.h - the engines' tuning knobs as values: every variable of
 * life3d(1)'s ENVIRONMENT that the core obeys (LIFE3D_SKIP, LIFE3D_LEAP*,
 * LIFE3D_SIMD,
 * LIFE3D_CPU_*, LIFE3D_CUDA_*, LIFE3D_HALO*, LIFE3D_DRIVER_GPUS, the
 * CUDA driver's CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, and the
 * thread counts of OpenMP and Slurm, OMP_NUM_THREADS and
 * SLURM_CPUS_PER_TASK).
 *
 * The core reads no environment.  The program's edge calls
 * engine_knobs_read() once at start-up with a lookup (getenv), which
 * checks every value against one table and fills an engine_knobs; the
 * result travels down in engine_opts.knobs.  A NULL there, or a zeroed
 * struct, is every default.  Results never depend on the knobs: they are
 * for measurements, and for tests that reach paths small universes would
 * not.  Strings point into what the lookup returned (the environment);
 * they are NULL when a variable is unset, and for all but the free texts
 * (LIFE3D_DRIVER_GPUS, CUDA's two: CUDA_VISIBLE_DEVICES= hides every
 * GPU, and the thread counts, which knobs_threads reads) when it is empty, as a number or flag that is empty is unset. */
#ifndef LIFE3D_ENGINE_KNOBS_H
#define LIFE3D_ENGINE_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef struct engine_knobs {
	bool dense;               /* LIFE3D_SKIP=0: step every cell, compress
	                             every band of every snapshot */
	bool no_leap;             /* LIFE3D_LEAP=0: no leap over a universe
	                             that repeats (but period 2's, which is
	                             skipping's own) */
	uint64_t leap_hash_bits;  /* LIFE3D_LEAP_HASH_BITS: keep this many
	                             bits of the universe's hash, so that
	                             tests meet collisions; 0 = all 64 */
	const char *simd;         /* LIFE3D_SIMD: auto, avx512, avx2, portable */
	uint64_t cpu_tile;        /* LIFE3D_CPU_TILE: rows a tile; 0 = by cache */
	int cpu_stream;           /* LIFE3D_CPU_STREAM: 1 always, -1 never
	                             write around the caches; 0 = by size */
	bool rule_table;          /* LIFE3D_CPU_RULE_CODE=0: a rule is read from
	                             a table, never compiled */
	const char *launch;       /* LIFE3D_CUDA_LAUNCH: plain, graph or pdl */
	const char *cuda_tune;    /* LIFE3D_CUDA_TUNE: key=value,... */
	uint64_t halo_depth;      /* LIFE3D_HALO_DEPTH; 0 = chosen */
	const char *halo;         /* LIFE3D_HALO: auto, nccl, mpi, staged */
	const char *driver_gpus;  /* LIFE3D_DRIVER_GPUS: the driver's GPU list */
	const char *cuda_visible; /* CUDA_VISIBLE_DEVICES as the process began */
	const char *device_order; /* CUDA_DEVICE_ORDER */
	const char *omp_threads;  /* OMP_NUM_THREADS */
	const char *slurm_cpus;   /* SLURM_CPUS_PER_TASK */
} engine_knobs;

/* LIFE3D_CUDA_TUNE's keys, in the order of the fields of l3dk_tuning that
 * engine/cuda/pace.c sets from them, NULL-ended. */
#define ENGINE_TUNE_KEYS 9
extern const char *const engine_tune_keys[ENGINE_TUNE_KEYS + 1];

/* Fill k from get(NAME) for every variable of the table.  A value the
 * table does not allow (empty counts as unset) is L3D_ERR_USAGE with one
 * line, e.g. "LIFE3D_SKIP: 'yes' is not 0 or 1"; words are taken in any
 * case and stored as the table spells them.  LIFE3D_MPI_STAGING, no
 * longer read, is refused with the variable that replaced it. */
int engine_knobs_read(engine_knobs *k, char *(*get)(const char *name),
		      l3d_err *err);

/* The table's variable names, for the manual's test: the i-th, or NULL
 * past the last. */
const char *engine_knob_name(size_t i);

/* The bits of a universe's hash that leaps keep (LIFE3D_LEAP_HASH_BITS;
 * all 64 by default), for the engines that hash. */
uint64_t engine_leap_hash_mask(const engine_knobs *k);

/* How many CPU threads a run keeps busy when --threads leaves it open, as
 * HPC codes decide it: OMP_NUM_THREADS (the first of a list, as OpenMP
 * reads "4,2"), else SLURM_CPUS_PER_TASK, each a whole number from 1 to
 * 4096.  threads is 0 where neither gives one (then the CPUs of the
 * affinity mask: cpu_count); from names the variable that gave it.  A
 * value that is no such number is passed over (ignored names it, and
 * ignored_value its text, for a warning): the variables are set for other
 * programs of a job too, which read them as they will. */
typedef struct knobs_threads {
	int threads;
	const char *from;
	const char *ignored, *ignored_value;
} knobs_threads;
knobs_threads engine_knobs_threads(const engine_knobs *k);

/* k, or the defaults when k is NULL. */
const engine_knobs *engine_knobs_or_default(const engine_knobs *k);

#endif
