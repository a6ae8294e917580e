/* bandmemo.c - see bandmemo.h. */
#include "bandmemo.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct bandmemo {
	int refs;
	uint64_t width, height, rows, chunks;
	uint8_t *raw;            /* the picture's rows, 3 * width bytes each */
	pngw_band *band;         /* each band's compressed bytes */
	uint64_t kept;           /* bands whose bytes are in */
	bool short_of_memory;    /* a band could not be kept */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bandmemo *latest;

static uint64_t row_bytes(const bandmemo *m)
{
	return 3 * m->width;
}

/* Rows of band `chunk`. */
static uint64_t band_height(const bandmemo *m, uint64_t chunk)
{
	uint64_t left = m->height - chunk * m->rows;
	return left < m->rows ? left : m->rows;
}

static uint8_t *band_rows_at(const bandmemo *m, uint64_t chunk)
{
	return m->raw + chunk * m->rows * row_bytes(m);
}

/* Also of a memo whose band array could not be had (bandmemo_new). */
static void destroy(bandmemo *m)
{
	for (uint64_t c = 0; m->band && c < m->chunks; c++)
		pngw_band_free(&m->band[c]);
	free(m->band);
	free(m->raw);
	free(m);
}

bool bandmemo_is(const bandmemo *m, uint64_t width, uint64_t height, uint64_t rows)
{
	return m && m->width == width && m->height == height && m->rows == rows;
}

bandmemo *bandmemo_ref(bandmemo *m)
{
	pthread_mutex_lock(&lock);
	m->refs++;
	pthread_mutex_unlock(&lock);
	return m;
}

bandmemo *bandmemo_latest(uint64_t width, uint64_t height, uint64_t rows)
{
	pthread_mutex_lock(&lock);
	bandmemo *m = latest;
	if (bandmemo_is(m, width, height, rows))
		m->refs++;
	else
		m = NULL;
	pthread_mutex_unlock(&lock);
	return m;
}

bandmemo *bandmemo_new(uint64_t width, uint64_t height, uint64_t rows)
{
	if (!width || !height || !rows || 3 * width * height > BANDMEMO_MAX_BYTES)
		return NULL;
	bandmemo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	*m = (bandmemo){.refs = 1, .width = width, .height = height, .rows = rows,
			.chunks = (height + rows - 1) / rows};
	m->raw = malloc(3 * width * height);
	m->band = calloc(m->chunks, sizeof *m->band);
	if (!m->raw || !m->band) {
		destroy(m);
		return NULL;
	}
	return m;
}

const pngw_band *bandmemo_match(const bandmemo *m, uint64_t chunk, const uint8_t *px)
{
	if (!m || chunk >= m->chunks || !m->band[chunk].data)
		return NULL;
	size_t n = band_height(m, chunk) * row_bytes(m);
	return memcmp(px, band_rows_at(m, chunk), n) == 0 ? &m->band[chunk] : NULL;
}

const pngw_band *bandmemo_band(const bandmemo *m, uint64_t chunk)
{
	return m && chunk < m->chunks && m->band[chunk].data ? &m->band[chunk] : NULL;
}

void bandmemo_keep_rows(bandmemo *m, uint64_t chunk, const uint8_t *px)
{
	if (m && chunk < m->chunks)
		memcpy(band_rows_at(m, chunk), px, band_height(m, chunk) * row_bytes(m));
}

/* Band `chunk` of m is in (to->data set), or could not be kept. */
static void counted(bandmemo *m, const pngw_band *to)
{
	pthread_mutex_lock(&lock);
	if (to->data)
		m->kept++;
	else
		m->short_of_memory = true;
	pthread_mutex_unlock(&lock);
}

void bandmemo_keep_band(bandmemo *m, uint64_t chunk, pngw_band *b)
{
	if (!m || chunk >= m->chunks)
		return;
	pngw_band *to = &m->band[chunk];
	pngw_band_free(to);
	*to = *b;
	*b = (pngw_band){0};
	counted(m, to);
}

void bandmemo_keep_copy(bandmemo *m, uint64_t chunk, const pngw_band *b)
{
	if (!m || chunk >= m->chunks)
		return;
	pngw_band *to = &m->band[chunk];
	pngw_band_free(to);
	*to = *b;
	to->data = malloc(b->len ? b->len : 1);
	to->cap = to->data ? b->len : 0;
	if (to->data)
		memcpy(to->data, b->data, b->len);
	counted(m, to);
}

bool bandmemo_publish(bandmemo *m)
{
	if (!m)
		return false;
	pthread_mutex_lock(&lock);
	bandmemo *old = NULL;
	bool whole = m->kept == m->chunks && !m->short_of_memory;
	if (whole) {
		old = latest;
		latest = m;
		m->refs++;
	}
	pthread_mutex_unlock(&lock);
	bandmemo_release(old);
	return whole;
}

void bandmemo_release(bandmemo *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&lock);
	bool last = --m->refs == 0;
	pthread_mutex_unlock(&lock);
	if (last)
		destroy(m);
}

void bandmemo_forget(void)
{
	pthread_mutex_lock(&lock);
	bandmemo *old = latest;
	latest = NULL;
	pthread_mutex_unlock(&lock);
	bandmemo_release(old);
}

uint64_t bandmemo_bytes(uint64_t width, uint64_t height)
{
	uint64_t raw = 3 * width * height;
	/* the rows, and bands no larger than their scanlines (level 1 on
	 * incompressible rows adds about one byte in a thousand) */
	return raw > BANDMEMO_MAX_BYTES ? 0 : 2 * raw + raw / 16 + 4096;
}
