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

/* Online CPUs this process may run on (at least 1). */
int cpu_count(void);

#endif
