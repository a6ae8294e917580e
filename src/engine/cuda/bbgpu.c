/* bbgpu.c - see bbgpu.h.  Two device buffers, the current universe and
 * the next; a step is a launch a generation (each clears the next buffer
 * and ORs every cell in where it ends) and, for the step's counts, a
 * population pass over the last. */
#include "bbgpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HAVE_CUDA

int engine_bbgpu_create(const engine_opts *opts, const grid *initial,
			row_progress *ready, const rule *r, engine **out, l3d_err *err)
{
	(void)opts, (void)initial, (void)ready, (void)r;
	*out = NULL;
	return l3d_fail(err, L3D_ERR_UNAVAILABLE,
			"engine 'cuda' is not built in (configure --with-cuda)");
}

#else /* HAVE_CUDA */

#include "device.h"
#include "runtime.h"
#include "engine/busyboxes.h"
#include "kernels/kernels.h"

typedef struct bbgpu {
	engine head;
	int device;
	cudaStream_t stream;
	uint64_t *buf[2];          /* buf[cur] holds the universe */
	int cur;
	l3dk_counts *d_counts;
	size_t bytes;
	uint64_t generation;       /* of buf[cur]: its phase is this mod 6 */
	bool mirror;
	bb_table table;
	char desc[160];
} bbgpu;

static int bbgpu_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	bbgpu *b = (bbgpu *)e;
	CUDA_TRY(cudaSetDevice(b->device), "cudaSetDevice");
	CUDA_TRY(cudaMemsetAsync(b->d_counts, 0, sizeof *b->d_counts, b->stream), "cudaMemset");
	if (!steps)
		CUDA_TRY(l3dk_busyboxes_population(b->buf[b->cur], b->bytes / 8, b->d_counts,
						   b->stream), "counting the population");
	for (uint64_t i = 0; i < steps; i++) {
		bool last = i + 1 == steps;
		CUDA_TRY(l3dk_busyboxes_step(b->buf[b->cur], b->buf[!b->cur], e->nx, e->ny, e->nz,
					     &b->table, (unsigned)(b->generation % 6), b->mirror,
					     last ? b->d_counts : NULL, b->stream),
			 "stepping BusyBoxes");
		b->cur = !b->cur;
		b->generation++;
	}
	l3dk_counts c = {0, 0, 0};
	CUDA_TRY(cudaMemcpyAsync(&c, b->d_counts, sizeof c, cudaMemcpyDeviceToHost, b->stream),
		 "reading the counts");
	CUDA_TRY(cudaStreamSynchronize(b->stream), "stepping BusyBoxes");
	if (stats) {
		stats->population = c.population;
		stats->births = stats->deaths = c.births;
	}
	return L3D_OK;
}

static int bbgpu_read(engine *e, grid *out, l3d_err *err)
{
	bbgpu *b = (bbgpu *)e;
	CUDA_TRY(cudaSetDevice(b->device), "cudaSetDevice");
	CUDA_TRY(cudaMemcpyAsync(out->bits, b->buf[b->cur], b->bytes, cudaMemcpyDeviceToHost,
				 b->stream), "reading the universe back");
	CUDA_TRY(cudaStreamSynchronize(b->stream), "reading the universe back");
	return L3D_OK;
}

static int upload(bbgpu *b, const grid *u, l3d_err *err)
{
	CUDA_TRY(cudaMemcpyAsync(b->buf[b->cur], u->bits, b->bytes, cudaMemcpyHostToDevice,
				 b->stream), "uploading the universe");
	CUDA_TRY(cudaStreamSynchronize(b->stream), "uploading the universe");
	b->generation = u->generation;
	return L3D_OK;
}

static int bbgpu_load(engine *e, const grid *u, l3d_err *err)
{
	bbgpu *b = (bbgpu *)e;
	if (u->nx != e->nx || u->ny != e->ny || u->nz != e->nz)
		return l3d_fail(err, L3D_ERR_USAGE, "engine_load: a universe of other sizes");
	CUDA_TRY(cudaSetDevice(b->device), "cudaSetDevice");
	return upload(b, u, err);
}

static const char *bbgpu_describe(const engine *e)
{
	return ((const bbgpu *)e)->desc;
}

static void bbgpu_destroy(engine *e)
{
	bbgpu *b = (bbgpu *)e;
	cudaSetDevice(b->device);
	for (int i = 0; i < 2; i++)
		cudaFree(b->buf[i]);
	cudaFree(b->d_counts);
	if (b->stream)
		cudaStreamDestroy(b->stream);
	free(b);
}

static const engine_ops bbgpu_ops = {
	.name = "cuda/busyboxes",
	.step = bbgpu_step,
	.read = bbgpu_read,
	.load = bbgpu_load,
	.describe = bbgpu_describe,
	.destroy = bbgpu_destroy,
};

static int open_device(bbgpu *b, const grid *initial, row_progress *ready, l3d_err *err)
{
	struct cudaDeviceProp p;
	CUDA_TRY(cudaSetDevice(b->device), "cudaSetDevice");
	CUDA_TRY(cudaGetDeviceProperties(&p, b->device), "cudaGetDeviceProperties");
	snprintf(b->desc, sizeof b->desc, "cuda/%.100s busyboxes", p.name);
	char what[96];
	snprintf(what, sizeof what, "a %llux%llux%llu universe",
		 (unsigned long long)initial->nx, (unsigned long long)initial->ny,
		 (unsigned long long)initial->nz);
	int rc = cuda_memory_check(2.0 * (double)b->bytes, what, p.name, err);
	if (rc)
		return rc;
	uint64_t rows = initial->nx * initial->ny, got = rows;
	if (ready && (row_progress_wait(ready, rows, &got) || got < rows))
		return l3d_fail(err, L3D_ERR_RUNTIME, "the universe's rows did not all come");
	CUDA_TRY(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking),
		 "cudaStreamCreate");
	for (int i = 0; i < 2; i++)
		CUDA_TRY(cudaMalloc((void **)&b->buf[i], b->bytes), "allocating the universe");
	CUDA_TRY(cudaMalloc((void **)&b->d_counts, sizeof *b->d_counts), "cudaMalloc");
	return upload(b, initial, err);
}

int engine_bbgpu_create(const engine_opts *opts, const grid *initial,
			row_progress *ready, const rule *r, engine **out, l3d_err *err)
{
	int device;
	*out = NULL;
	int rc = busyboxes_check(initial, err);
	if (!rc)
		rc = cuda_pick_device(opts, 0, &device, err);
	if (rc)
		return rc;
	bbgpu *b = calloc(1, sizeof *b);
	if (!b)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the BusyBoxes engine");
	b->head = (engine){.ops = &bbgpu_ops, .nx = initial->nx, .ny = initial->ny,
			   .nz = initial->nz, .rule = *r};
	b->device = device;
	b->bytes = grid_bytes(initial);
	b->mirror = r->family == RULE_BUSYBOXES;
	busyboxes_table(&b->table);
	rc = open_device(b, initial, ready, err);
	if (rc) {
		bbgpu_destroy(&b->head);
		return rc;
	}
	*out = &b->head;
	return L3D_OK;
}

#endif /* HAVE_CUDA */
