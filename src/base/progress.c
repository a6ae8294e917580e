/* progress.c - see progress.h. */
#include "progress.h"

#include "clock.h"

void row_progress_init(row_progress *p, uint64_t total)
{
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->moved, NULL);
	p->total = total;
	p->ready = 0;
	p->failed = false;
	p->done_at = 0;
	p->corner = NULL;
	p->corner_ctx = NULL;
}

void row_progress_destroy(row_progress *p)
{
	pthread_cond_destroy(&p->moved);
	pthread_mutex_destroy(&p->lock);
}

void row_progress_publish(row_progress *p, uint64_t ready)
{
	pthread_mutex_lock(&p->lock);
	if (ready > p->total)
		ready = p->total;
	if (ready > p->ready) {
		p->ready = ready;
		if (ready == p->total)
			p->done_at = l3d_seconds();
		pthread_cond_broadcast(&p->moved);
	}
	pthread_mutex_unlock(&p->lock);
}

void row_progress_fail(row_progress *p)
{
	pthread_mutex_lock(&p->lock);
	p->failed = true;
	pthread_cond_broadcast(&p->moved);
	pthread_mutex_unlock(&p->lock);
}

int row_progress_wait(row_progress *p, uint64_t want, uint64_t *ready)
{
	pthread_mutex_lock(&p->lock);
	if (want > p->total)
		want = p->total;
	/* Rows that came before a failure are still good to take. */
	while (p->ready < want && !p->failed)
		pthread_cond_wait(&p->moved, &p->lock);
	*ready = p->ready;
	pthread_mutex_unlock(&p->lock);
	return *ready >= want ? 0 : -1;
}

int row_progress_corner(row_progress *p, grid *cube)
{
	return p->corner ? p->corner(p->corner_ctx, cube) : -1;
}

int row_progress_follow(row_progress *p, uint64_t total, uint64_t batch,
			row_taker take, void *ctx, const char *what, l3d_err *err)
{
	if (!p)
		return take(ctx, 0, total, err);
	if (batch < 1)
		batch = 1;
	for (uint64_t taken = 0, ready; taken < total; taken = ready) {
		uint64_t want = total - taken < batch ? total : taken + batch;
		if (row_progress_wait(p, want, &ready))
			return l3d_fail(err, L3D_ERR_RUNTIME,
					"%s: the universe's rows stopped coming", what);
		int rc = take(ctx, taken, ready - taken, err);
		if (rc)
			return rc;
	}
	return L3D_OK;
}
