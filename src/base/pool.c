/* pool.c - see pool.h. */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Spins before sleeping or yielding: about 0.2 ms (a pause is some 50 ns
 * on current x86 cores), longer than the gap between two steps of one
 * engine_step call, short enough that a thread waiting on another that
 * the system has descheduled soon gives its core away. */
#define SPIN_LIMIT 4000

/* Worker threads' stacks.  The kernels keep their state in vectors and
 * the ring, in frames of a few KiB.  AddressSanitizer gives every
 * variable of every inlined kernel instance a slot of its own with red
 * zones around it: a kernel function's frame there is up to 0.3 MiB
 * (src/engine/cpu/NOTES.md, "The compiled rule's own instances; the rows
 * before carried"), and grows with the instances it holds. */
#if defined(__SANITIZE_ADDRESS__)
#define WORKER_STACK ((size_t)16 << 20)
#else
#define WORKER_STACK ((size_t)1 << 20)
#endif

struct cpu_pool {
	int threads;
	pthread_t *ids;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* set before each bump of epoch, read after it: a worker that sees
	 * the new epoch sees them, without taking the lock (fifteen threads
	 * queueing on it made every wake-up cost more than a small step) */
	_Atomic(cpu_task) task;
	_Atomic(void *) arg;
	_Atomic unsigned long epoch;   /* bumped for each wake-up */
	_Atomic int quit;
	int sleepers;                  /* under lock */
	struct worker_arg { cpu_pool *pool; int index; } *args;
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Wait until the epoch moves past `seen`; spin first, then sleep. */
static unsigned long wait_epoch(cpu_pool *p, unsigned long seen)
{
	for (int i = 0; i < SPIN_LIMIT; i++) {
		unsigned long e = atomic_load_explicit(&p->epoch, memory_order_acquire);
		if (e != seen)
			return e;
		relax();
	}
	pthread_mutex_lock(&p->lock);
	p->sleepers++;
	unsigned long e;
	while ((e = atomic_load_explicit(&p->epoch, memory_order_acquire)) == seen)
		pthread_cond_wait(&p->wake, &p->lock);
	p->sleepers--;
	pthread_mutex_unlock(&p->lock);
	return e;
}

static void *worker(void *v)
{
	struct worker_arg *w = v;
	cpu_pool *p = w->pool;
	unsigned long seen = 0;
	for (;;) {
		seen = wait_epoch(p, seen);
		if (atomic_load(&p->quit))
			return NULL;
		cpu_task task = atomic_load_explicit(&p->task, memory_order_relaxed);
		void *arg = atomic_load_explicit(&p->arg, memory_order_relaxed);
		task(arg, w->index);
	}
}

static void bump(cpu_pool *p)
{
	atomic_fetch_add_explicit(&p->epoch, 1, memory_order_release);
	if (p->sleepers)
		pthread_cond_broadcast(&p->wake);
}

void cpu_pool_wake(cpu_pool *p, cpu_task task, void *arg)
{
	if (p->threads == 1)
		return;
	pthread_mutex_lock(&p->lock);
	atomic_store_explicit(&p->task, task, memory_order_relaxed);
	atomic_store_explicit(&p->arg, arg, memory_order_relaxed);
	bump(p);
	pthread_mutex_unlock(&p->lock);
}

static int spawn(cpu_pool *p, l3d_err *err)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	int rc = 0;
	for (int i = 1; i < p->threads && !rc; i++) {
		p->args[i] = (struct worker_arg){p, i};
		rc = pthread_create(&p->ids[i], &attr, worker, &p->args[i]);
		if (rc)
			p->threads = i;    /* destroy joins only those started */
	}
	pthread_attr_destroy(&attr);
	if (rc)
		return l3d_fail(err, L3D_ERR_RUNTIME, "cannot start CPU thread: %s",
				strerror(rc));
	return L3D_OK;
}

int cpu_pool_create(int threads, cpu_pool **out, l3d_err *err)
{
	*out = NULL;
	cpu_pool *p = calloc(1, sizeof *p);
	if (p) {
		p->ids = calloc((size_t)threads, sizeof *p->ids);
		p->args = calloc((size_t)threads, sizeof *p->args);
	}
	if (!p || !p->ids || !p->args) {
		if (p) {
			free(p->ids);
			free(p->args);
		}
		free(p);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for %d CPU thread%s",
				threads, threads == 1 ? "" : "s");
	}
	p->threads = threads;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	int rc = spawn(p, err);
	if (rc) {
		cpu_pool_destroy(p);
		return rc;
	}
	*out = p;
	return L3D_OK;
}

void cpu_pool_destroy(cpu_pool *p)
{
	if (!p)
		return;
	atomic_store(&p->quit, 1);
	pthread_mutex_lock(&p->lock);
	bump(p);
	pthread_mutex_unlock(&p->lock);
	for (int i = 1; i < p->threads; i++)
		pthread_join(p->ids[i], NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	free(p->ids);
	free(p->args);
	free(p);
}

static int budget;

void cpu_budget_set(int threads)
{
	budget = threads > 0 ? threads : 0;
}

int cpu_count(void)
{
	if (budget)
		return budget;
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
#endif
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
