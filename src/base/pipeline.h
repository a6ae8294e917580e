/* pipeline.h - a stream of chunks through three stages on a few threads.
 *
 * Reading a file into a grid and writing a grid to a file are both a run
 * of chunks through three stages: `produce` (read the file, download from
 * the GPU), which must take the chunks one at a time and in order; `work`
 * (pack or unpack the cells), which may run on several chunks at once; and
 * `consume` (announce the rows, write the file), one at a time and in
 * order again.  Done one chunk after the other, the file waits while the
 * cells are packed and the packing waits for the file; here the caller and
 * a few helper threads each take whichever job is ready, so the file is
 * read or written without pause while the other chunks are packed.
 *
 * A chunk stays in one of `slots` buffers from production to consumption
 * (chunk k in slot k % slots); that bounds the memory in flight, and the
 * producer waits (on a condition variable) when every slot is taken.
 *
 * Failure: the error is that of the first chunk, in stream order, whose
 * stage failed, as if the chunks had been handled one after the other.
 * Nothing is started for the chunks after a failed one, but the chunks
 * before it still run, and a failure of theirs takes precedence. */
#ifndef LIFE3D_BASE_PIPELINE_H
#define LIFE3D_BASE_PIPELINE_H

#include <stdint.h>

#include "status.h"

#define PIPELINE_MAX_SLOTS 32
#define PIPELINE_MAX_THREADS 64

/* A stage's job: chunk `chunk`, held in slot `slot`. */
typedef int (*pipeline_stage)(void *ctx, uint64_t chunk, int slot, l3d_err *err);

typedef struct pipeline {
	pipeline_stage produce;  /* in order, one at a time */
	pipeline_stage work;     /* any order, several at once; may be NULL */
	pipeline_stage consume;  /* in order, one at a time; may be NULL */
	void *ctx;
	uint64_t chunks;
	int slots;               /* 1 .. PIPELINE_MAX_SLOTS */
	int threads;             /* in all, the caller's included (1 to
	                            PIPELINE_MAX_THREADS; file I/O wants
	                            pipeline_threads(), work for every core
	                            more) */
} pipeline;

/* Run every chunk through the stages; returns when all is done (no stage
 * is running any more), with the first failure in stream order.  When
 * helper threads cannot be started, the caller does all the work. */
int pipeline_run(const pipeline *p, l3d_err *err);

/* Threads worth running for `chunks` chunks: one per core (two at least,
 * eight at most), never more than the chunks. */
int pipeline_threads(uint64_t chunks);

/* Slots for `threads` threads when a slot takes `slot_bytes` of memory:
 * two per thread so no thread waits for a buffer, fewer when that would
 * take more than 64 MiB, never more than the chunks; at least 1. */
int pipeline_slots(int threads, uint64_t chunks, uint64_t slot_bytes);

#endif
