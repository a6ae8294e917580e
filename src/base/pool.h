/* pool.h - a persistent pool of threads for the CPU engine.
 *
 * Created once per engine, not per step: a step at M = 256 takes well
 * under a millisecond, so waking threads must cost microseconds.  Workers
 * spin briefly for the next wake-up before sleeping on a condition
 * variable, which keeps back-to-back steps cheap without burning a core
 * between calls. */
#ifndef LIFE3D_BASE_POOL_H
#define LIFE3D_BASE_POOL_H

#include "status.h"

typedef struct cpu_pool cpu_pool;

/* Job body: called once per thread with its index 0..threads-1. */
typedef void (*cpu_task)(void *arg, int thread);

/* A pool of `threads` threads counting the caller (threads - 1 are
 * created, numbered 1 .. threads - 1). */
int cpu_pool_create(int threads, cpu_pool **out, l3d_err *err);
/* Have every worker run task(arg, t) and return at once, without waiting
 * for them: the caller works alongside and learns by its own means when
 * the work is done, so a worker the system holds back delays nothing it
 * has not started.  A worker busy with an earlier call runs the task when
 * it is free; one that misses several calls runs the latest once. */
void cpu_pool_wake(cpu_pool *p, cpu_task task, void *arg);
/* Stops and joins the workers (each finishes the task it is running). */
void cpu_pool_destroy(cpu_pool *p);

/* The threads this process keeps busy at once (at least 1): the budget
 * last set with cpu_budget_set, else the online CPUs it may run on (its
 * affinity mask: taskset, a batch system's binding).  Every part that
 * starts threads of its own (the random fill, first touch, the file
 * pipelines, pictures, the census) sizes itself by it. */
int cpu_count(void);
/* The run's thread count, set by the program's edge once, before any
 * thread is started (--threads, OMP_NUM_THREADS, SLURM_CPUS_PER_TASK);
 * 0 goes back to the affinity mask.  Like the mask itself, it belongs to
 * the process. */
void cpu_budget_set(int threads);

#endif
