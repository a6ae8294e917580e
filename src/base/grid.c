/* grid.c - the packed universe and the operations every engine shares. */
#include "grid.h"

#include "hostmem.h"
#include "pool.h"
#include "mix.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <string.h>

int grid_check_size(uint64_t nx, uint64_t ny, uint64_t nz, const char *what,
		    l3d_err *err)
{
	if (nx == 0 || ny == 0 || nz == 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: size %llux%llux%llu has an empty axis", what,
				(unsigned long long)nx, (unsigned long long)ny,
				(unsigned long long)nz);
	if (nx > GRID_MAX_EDGE || ny > GRID_MAX_EDGE || nz > GRID_MAX_EDGE)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: size %llux%llux%llu exceeds the largest edge %llu",
				what, (unsigned long long)nx, (unsigned long long)ny,
				(unsigned long long)nz,
				(unsigned long long)GRID_MAX_EDGE);
	size_t rows, words, bytes, cells;
	if (l3d_mul_size(nx, ny, &rows) || l3d_mul_size(rows, nz, &cells) ||
	    l3d_mul_size(rows, (nz + 63) / 64, &words) ||
	    l3d_mul_size(words, 8, &bytes) || bytes > (SIZE_MAX >> 2))
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: size %llux%llux%llu has too many cells", what,
				(unsigned long long)nx, (unsigned long long)ny,
				(unsigned long long)nz);
	return L3D_OK;
}

/* Large universes are aligned to and advised into 2 MiB pages: a step
 * streams the whole universe, and 4 KiB pages would cost a TLB miss every
 * few rows.  They are mapped straight from the kernel, whose new pages
 * are zero already: zeroing them here too took 20 ms at 1024^3, before
 * the GPU's start (src/engine/NOTES.md, "A GPU run's start and end, taken
 * apart"), and the pages are touched first by whoever fills them (the
 * input's reader, an engine's threads). */
#define HUGE_PAGE ((size_t)1 << 21)

/* Under AddressSanitizer every universe comes from its allocator instead,
 * so that it checks each access to one (it cannot see into a mapping of
 * our own) and its allocation limits hold for universes too: a fuzzed
 * 2D pattern 8 million cells wide must not get a 12 GiB universe. */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define MAP_UNIVERSES 0
#else
#define MAP_UNIVERSES 1
#endif

static bool mapped(size_t bytes)
{
	return MAP_UNIVERSES && bytes >= 2 * HUGE_PAGE;
}

static size_t rounded_bytes(size_t bytes)
{
	size_t align = mapped(bytes) ? HUGE_PAGE : 64;
	return (bytes + align - 1) & ~(align - 1);
}

/* `rounded` zeroed bytes at a 2 MiB boundary, or NULL. */
static void *map_zeroed(size_t rounded)
{
	char *p = mmap(NULL, rounded + HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	size_t head = (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
	if (head)
		munmap(p, head);
	munmap(p + head + rounded, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
	madvise(p + head, rounded, MADV_HUGEPAGE);
#endif
	return p + head;
}

static void *alloc_zeroed(size_t bytes)
{
	size_t rounded = rounded_bytes(bytes);
	if (mapped(bytes))
		return map_zeroed(rounded);
	void *p = aligned_alloc(64, rounded);
	return p ? memset(p, 0, rounded) : NULL;
}

int grid_alloc(grid *g, uint64_t nx, uint64_t ny, uint64_t nz, l3d_err *err)
{
	memset(g, 0, sizeof *g);
	int rc = grid_check_size(nx, ny, nz, "universe", err);
	if (rc)
		return rc;
	uint64_t words = (nz + 63) / 64;
	size_t bytes = (size_t)(nx * ny * words * 8);
	char what[96];
	snprintf(what, sizeof what, "a %llux%llux%llu universe", (unsigned long long)nx,
		 (unsigned long long)ny, (unsigned long long)nz);
	rc = host_memory_check(rounded_bytes(bytes), what, err);
	if (rc)
		return rc;
	void *p = alloc_zeroed(bytes);
	if (!p)
		return l3d_fail(err, L3D_ERR_RUNTIME,
				"out of memory: a %llux%llux%llu universe needs %zu bytes",
				(unsigned long long)nx, (unsigned long long)ny,
				(unsigned long long)nz, rounded_bytes(bytes));
	g->nx = nx;
	g->ny = ny;
	g->nz = nz;
	g->words = words;
	g->bits = p;
	return L3D_OK;
}

void grid_free(grid *g)
{
	if (g->bits && mapped(grid_bytes(g)))
		munmap(g->bits, rounded_bytes(grid_bytes(g)));
	else
		free(g->bits);
	memset(g, 0, sizeof *g);
}

uint64_t grid_cells(const grid *g)
{
	return g->nx * g->ny * g->nz;
}

size_t grid_bytes(const grid *g)
{
	return (size_t)(g->nx * g->ny * g->words * 8);
}

uint64_t grid_tail_mask(const grid *g)
{
	unsigned r = (unsigned)(g->nz & 63);
	return r ? (((uint64_t)1 << r) - 1) : ~(uint64_t)0;
}

/* Live cells in a word without the popcnt instruction: the portable
 * build's __builtin_popcountll is a call into libgcc for every word. */
static inline uint64_t word_population(uint64_t v)
{
	v -= (v >> 1) & 0x5555555555555555u;
	v = (v & 0x3333333333333333u) + ((v >> 2) & 0x3333333333333333u);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fu;
	return (v * 0x0101010101010101u) >> 56;
}

uint64_t words_population_portable(const uint64_t *w, uint64_t n)
{
	uint64_t live = 0;
	for (uint64_t i = 0; i < n; i++)
		live += word_population(w[i]);
	return live;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static uint64_t
words_population_popcnt(const uint64_t *w, uint64_t n)
{
	uint64_t live = 0;
	for (uint64_t i = 0; i < n; i++)
		live += (uint64_t)__builtin_popcountll(w[i]);
	return live;
}
#endif

/* Every population (the input's, each row written, a log line's on the
 * host) is counted here: with the popcnt instruction where the CPU has
 * it (1024^3 cells: 80 ms a word at a time through libgcc on the 2-core
 * build machine; src/engine/NOTES.md, "A GPU run's start and end, taken
 * apart"). */
uint64_t words_population(const uint64_t *w, uint64_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("popcnt"))
		return words_population_popcnt(w, n);
#endif
	return words_population_portable(w, n);
}

uint64_t grid_population(const grid *g)
{
	return words_population(g->bits, g->nx * g->ny * g->words);
}

bool grid_equal(const grid *a, const grid *b)
{
	return a->nx == b->nx && a->ny == b->ny && a->nz == b->nz &&
	       memcmp(a->bits, b->bits, grid_bytes(a)) == 0;
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the byte-per-cell packing below assumes a little-endian host");

/* Eight cells at a time: bytes 0/1 <-> bits, byte i <-> bit i.  The file
 * formats that store a byte per cell spend most of their time here, so it
 * works a word at a time instead of a byte at a time. */
static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;    /* little-endian hosts: byte i is bits 8i..8i+7 */
}

static inline uint8_t pack8(uint64_t bytes)
{
	/* Each 0/1 byte is shifted by the multiply so all eight land in the
	 * top byte, byte i in bit 56 + i; no carries, as every byte is 0/1. */
	return (uint8_t)((bytes * 0x0102040810204080ULL) >> 56);
}

static inline uint64_t unpack8(uint64_t bits)
{
	/* Copy the byte everywhere, keep bit i in byte i, then turn each
	 * non-zero byte into 1: adding 0x7f sets bit 7 exactly there. */
	uint64_t y = (bits * 0x0101010101010101ULL) & 0x8040201008040201ULL;
	return ((y + 0x7f7f7f7f7f7f7f7fULL) >> 7) & 0x0101010101010101ULL;
}

void row_unpack(const uint64_t *row, uint64_t nz, uint8_t *cells)
{
	uint64_t z = 0;
	for (; z + 8 <= nz; z += 8) {
		uint64_t v = unpack8((row[z >> 6] >> (z & 63)) & 0xff);
		memcpy(cells + z, &v, 8);
	}
	for (; z < nz; z++)
		cells[z] = (uint8_t)((row[z >> 6] >> (z & 63)) & 1u);
}

int row_pack(uint64_t *row, uint64_t nz, const uint8_t *cells)
{
	uint64_t bad = 0, z = 0;
	memset(row, 0, (nz + 63) / 64 * 8);
	for (; z + 8 <= nz; z += 8) {
		uint64_t v = load64(cells + z);
		bad |= v & 0xfefefefefefefefeULL;
		row[z >> 6] |= (uint64_t)pack8(v) << (z & 63);
	}
	for (; z < nz; z++) {
		bad |= cells[z] & ~1u;
		row[z >> 6] |= (uint64_t)(cells[z] & 1u) << (z & 63);
	}
	return bad ? -1 : 0;
}

void grid_row_unpack(const grid *g, uint64_t x, uint64_t y, uint8_t *cells)
{
	row_unpack(grid_row(g, x, y), g->nz, cells);
}

int grid_row_pack(grid *g, uint64_t x, uint64_t y, const uint8_t *cells)
{
	return row_pack(grid_row(g, x, y), g->nz, cells);
}

void grid_random(grid *g, double density, uint64_t seed)
{
	grid_random_planes(g, 0, density, seed);
}

typedef struct random_job {
	grid *g;
	uint64_t x0, from, to;     /* global plane offset; local planes [from, to) */
	uint64_t key, threshold;
	bool all;
	pthread_t thread;
} random_job;

static void *random_planes(void *arg)
{
	const random_job *j = arg;
	const grid *g = j->g;
	for (uint64_t x = j->from; x < j->to; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			uint64_t *row = grid_row(g, x, y);
			uint64_t base = j->key + ((j->x0 + x) * g->ny + y) * g->nz;
			for (uint64_t w = 0; w < g->words; w++) {
				uint64_t word = 0, z0 = w * 64;
				uint64_t n = g->nz - z0 < 64 ? g->nz - z0 : 64;
				for (uint64_t i = 0; i < n; i++) {
					uint64_t alive = (l3d_mix64(base + z0 + i) < j->threshold) | j->all;
					word |= alive << i;
				}
				row[w] = word;
			}
		}
	return NULL;
}

void grid_random_planes(grid *g, uint64_t x0, double density, uint64_t seed)
{
	/* Threshold t: alive iff hash < t, so P(alive) = t / 2^64.  density 1
	 * must make every cell alive, which needs the `all` flag. */
	random_job base = {.g = g, .x0 = x0, .all = density >= 1.0,
			   .key = l3d_mix64(seed ^ 0x6c69666533640000ULL)};
	if (density > 0.0 && !base.all)
		base.threshold = (uint64_t)(density * 18446744073709551616.0);
	/* Each cell's bit depends only on its index, so planes can be shared
	 * out among threads without changing a bit.  Small universes are not
	 * worth a thread. */
	int cores = cpu_count();
	uint64_t n = grid_cells(g) < (1u << 20) || cores < 2 ? 1 : (uint64_t)cores;
	n = n > g->nx ? g->nx : n > 64 ? 64 : n;
	random_job jobs[64];
	bool started[64] = {false};
	for (uint64_t i = 0; i < n; i++) {
		jobs[i] = base;
		jobs[i].from = g->nx * i / n;
		jobs[i].to = g->nx * (i + 1) / n;
		if (i > 0)
			started[i] = pthread_create(&jobs[i].thread, NULL,
						    random_planes, &jobs[i]) == 0;
	}
	for (uint64_t i = 0; i < n; i++)
		if (!started[i])
			random_planes(&jobs[i]);   /* the caller's share, or no thread */
	for (uint64_t i = 1; i < n; i++)
		if (started[i])
			pthread_join(jobs[i].thread, NULL);
}

typedef struct touch_job {
	char *from;
	size_t bytes;
	pthread_t thread;
} touch_job;

static void *touch_part(void *arg)
{
	const touch_job *j = arg;
	memset(j->from, 0, j->bytes);
	return NULL;
}

void grid_touch(grid *g)
{
	size_t bytes = grid_bytes(g);
	int cores = cpu_count();
	size_t n = !mapped(bytes) || cores < 2 ? 1 : cores > 64 ? 64 : (size_t)cores;
	touch_job jobs[64];
	bool started[64] = {false};
	for (size_t i = 0; i < n; i++) {
		size_t a = bytes * i / n, b = bytes * (i + 1) / n;
		jobs[i] = (touch_job){.from = (char *)g->bits + a, .bytes = b - a};
		if (i > 0)
			started[i] = pthread_create(&jobs[i].thread, NULL, touch_part,
						    &jobs[i]) == 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!started[i])
			touch_part(&jobs[i]);
	for (size_t i = 1; i < n; i++)
		if (started[i])
			pthread_join(jobs[i].thread, NULL);
}

void grid_view_dims(const grid *g, int axis, uint64_t *width, uint64_t *height)
{
	switch (axis) {
	case 0: *width = g->ny; *height = g->nz; break;
	case 1: *width = g->nx; *height = g->nz; break;
	default: *width = g->nx; *height = g->ny; break;
	}
}

void grid_project(const grid *g, int axis, uint32_t *counts)
{
	uint64_t w, h;
	grid_view_dims(g, axis, &w, &h);
	memset(counts, 0, (size_t)(w * h) * sizeof *counts);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			if (axis == 2) {
				counts[y * w + x] += (uint32_t)words_population(row, g->words);
				continue;
			}
			for (uint64_t z = 0; z < g->nz; z++)
				if ((row[z >> 6] >> (z & 63)) & 1u)
					counts[z * w + (axis == 0 ? y : x)]++;
		}
}

void grid_slice(const grid *g, int axis, uint64_t index, uint8_t *cells)
{
	uint64_t w, h;
	grid_view_dims(g, axis, &w, &h);
	for (uint64_t v = 0; v < h; v++)
		for (uint64_t u = 0; u < w; u++) {
			uint64_t x, y, z;
			switch (axis) {
			case 0: x = index; y = u; z = v; break;
			case 1: x = u; y = index; z = v; break;
			default: x = u; y = v; z = index; break;
			}
			cells[v * w + u] = (uint8_t)grid_get(g, x, y, z);
		}
}

/* ---- shapes of random universes ---- */

/* Golly's box on an axis of n cells: [lo, hi]. */
static void shape_box(uint64_t n, uint64_t *lo, uint64_t *hi)
{
	uint64_t m = n < 8 ? 0 : n / 8;
	*lo = m;
	*hi = n - 1 - m;
}

/* round(d * d) for d = i - (n - 1) / 2, in halves: (2i - n + 1)^2 / 4. */
static uint64_t round_sq(uint64_t i, uint64_t n)
{
	int64_t t = 2 * (int64_t)i - (int64_t)n + 1;   /* 2d */
	uint64_t q = (uint64_t)(t * t);                 /* 4 d^2 */
	return (q + 2) / 4;                             /* floor(d^2 + 1/2) */
}

/* Bits lo..hi (inclusive) of a row of `words` words kept, the rest cleared. */
static void keep_bits(uint64_t *row, uint64_t words, uint64_t lo, uint64_t hi)
{
	for (uint64_t w = 0; w < words; w++) {
		uint64_t first = w * 64, mask = 0;
		if (hi >= first && lo < first + 64) {
			uint64_t a = lo > first ? lo - first : 0;
			uint64_t b = hi < first + 63 ? hi - first : 63;
			mask = (b == 63 ? ~(uint64_t)0 : ((uint64_t)1 << (b + 1)) - 1) &
			       ~(((uint64_t)1 << a) - 1);
		}
		row[w] &= mask;
	}
}

void grid_keep_shape(grid *g, uint64_t x0, uint64_t nx, grid_shape shape)
{
	if (shape == GRID_FILL)
		return;
	uint64_t n[3] = {nx, g->ny, g->nz}, lo[3], hi[3], edge = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		shape_box(n[i], &lo[i], &hi[i]);
		edge = hi[i] - lo[i] + 1 < edge ? hi[i] - lo[i] + 1 : edge;
	}
	uint64_t rsq = (edge * edge + 2) / 4;           /* round((edge / 2)^2) */
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			uint64_t *row = grid_row(g, x, y), gx = x0 + x;
			uint64_t zlo = lo[2], zhi = hi[2];
			bool in = gx >= lo[0] && gx <= hi[0] && y >= lo[1] && y <= hi[1];
			if (in && shape == GRID_BALL) {
				uint64_t used = round_sq(gx, n[0]) + round_sq(y, n[1]);
				/* the cells of the row inside: an interval about the centre */
				while (zlo <= zhi && used + round_sq(zlo, n[2]) > rsq) {
					zlo++;
					zhi--;
				}
				in = zlo <= zhi && used <= rsq;
			}
			if (in)
				keep_bits(row, g->words, zlo, zhi);
			else
				memset(row, 0, (size_t)g->words * 8);
		}
}
