/* pipeline.c - see pipeline.h. */
#include "pipeline.h"

#include <pthread.h>
#include <stdbool.h>

#include "pool.h"

/* A thread per core: reading a file from the page cache is itself work
 * for a core, and more threads than cores only take turns (measured: two
 * threads on two cores beat three).  Eight keep up with any file one
 * thread can read or write. */
#define MAX_THREADS 8
#define SLOT_BUDGET ((uint64_t)64 << 20)

typedef enum job { JOB_WAIT, JOB_QUIT, JOB_PRODUCE, JOB_WORK, JOB_CONSUME } job;

typedef struct run {
	const pipeline *p;
	pthread_mutex_t lock;
	pthread_cond_t moved;    /* broadcast whenever a job ends */
	uint64_t produced;       /* chunks [0, produced) are produced */
	uint64_t taken;          /* chunks [0, taken) went to a worker */
	uint64_t consumed;       /* chunks [0, consumed) are consumed */
	uint64_t end;            /* chunks to run: all, or up to the first failure */
	bool producing, consuming;
	bool worked[PIPELINE_MAX_SLOTS];   /* the slot's chunk is through work */
	int rc;                  /* the failure of chunk `end`, if any */
	l3d_err err;
} run;

/* Under the lock: claim the next job.  The in-order stages come first:
 * one thread at a time can do them, and every chunk passes through them,
 * so they set the pace and must never wait for a thread. */
static job next_job(run *r, uint64_t *chunk)
{
	uint64_t slots = (uint64_t)r->p->slots;
	if (r->consumed >= r->end)
		return JOB_QUIT;
	if (!r->consuming && r->consumed < r->produced &&
	    r->worked[r->consumed % slots]) {
		r->consuming = true;
		*chunk = r->consumed;
		return JOB_CONSUME;
	}
	/* Chunk k may reuse its slot once chunk k - slots is consumed. */
	if (!r->producing && r->produced < r->end &&
	    r->produced - r->consumed < slots) {
		r->producing = true;
		*chunk = r->produced;
		return JOB_PRODUCE;
	}
	if (r->taken < r->produced && r->taken < r->end) {
		*chunk = r->taken++;
		return JOB_WORK;
	}
	return JOB_WAIT;
}

static int do_job(const pipeline *p, job j, uint64_t chunk, l3d_err *err)
{
	pipeline_stage stage = j == JOB_PRODUCE ? p->produce
			     : j == JOB_WORK ? p->work : p->consume;
	return stage ? stage(p->ctx, chunk, (int)(chunk % (uint64_t)p->slots), err)
		     : L3D_OK;
}

/* Under the lock: record the end of a job. */
static void finish_job(run *r, job j, uint64_t chunk, int rc, const l3d_err *err)
{
	uint64_t slot = chunk % (uint64_t)r->p->slots;
	/* A chunk past an earlier failure no longer matters; one before it
	 * fails first in stream order and so takes its place. */
	if (rc && chunk < r->end) {
		r->end = chunk;
		r->rc = rc;
		r->err = *err;
	}
	if (j == JOB_PRODUCE) {
		r->producing = false;
		r->produced += !rc;
	} else if (j == JOB_WORK) {
		r->worked[slot] = !rc;
	} else {
		r->consuming = false;
		r->worked[slot] = false;
		r->consumed += !rc;
	}
	pthread_cond_broadcast(&r->moved);
}

static void *run_jobs(void *arg)
{
	run *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		uint64_t chunk = 0;
		job j = next_job(r, &chunk);
		if (j == JOB_QUIT)
			break;
		if (j == JOB_WAIT) {
			pthread_cond_wait(&r->moved, &r->lock);
			continue;
		}
		pthread_mutex_unlock(&r->lock);
		l3d_err err = {0, ""};
		int rc = do_job(r->p, j, chunk, &err);
		pthread_mutex_lock(&r->lock);
		finish_job(r, j, chunk, rc, &err);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int pipeline_run(const pipeline *p, l3d_err *err)
{
	run r = {.p = p, .end = p->chunks};
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.moved, NULL);
	pthread_t helpers[PIPELINE_MAX_THREADS];
	int started = 0;
	for (int i = 1; i < p->threads && i < PIPELINE_MAX_THREADS; i++)
		if (pthread_create(&helpers[started], NULL, run_jobs, &r) == 0)
			started++;
	/* The caller works too; once it sees the end, the joins wait for the
	 * helpers' last jobs, so no stage runs after this returns. */
	run_jobs(&r);
	for (int i = 0; i < started; i++)
		pthread_join(helpers[i], NULL);
	pthread_cond_destroy(&r.moved);
	pthread_mutex_destroy(&r.lock);
	if (r.rc && err)
		*err = r.err;
	return r.rc;
}

int pipeline_threads(uint64_t chunks)
{
	/* Two at least: on one core, packing still fills the waits for a
	 * disk. */
	uint64_t n = (uint64_t)cpu_count();
	n = n < 2 ? 2 : n > MAX_THREADS ? MAX_THREADS : n;
	n = n > chunks ? chunks : n;
	return n < 1 ? 1 : (int)n;
}

int pipeline_slots(int threads, uint64_t chunks, uint64_t slot_bytes)
{
	uint64_t n = 2 * (uint64_t)threads;
	uint64_t fit = slot_bytes ? SLOT_BUDGET / slot_bytes : n;
	n = n > fit ? fit : n;
	n = n < 2 ? 2 : n;
	n = n > PIPELINE_MAX_SLOTS ? PIPELINE_MAX_SLOTS : n;
	n = n > chunks ? chunks : n;
	return n < 1 ? 1 : (int)n;
}
