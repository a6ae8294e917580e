/* bandmemo.h - the bands of the last picture, kept, so that the next
 * picture of the same size compresses only the bands that changed.
 *
 * pngw_encode() makes a band's bytes from its scanlines alone (a band
 * starts with an empty dictionary and with no row above it), so a band
 * whose rows are the same bytes as the same band of an earlier picture of
 * the same size (width, height, rows a band) compresses to the same bytes,
 * which can be put again instead.  A universe that is still or repeats
 * with period 2, or the still parts of one, then costs its pictures no
 * compression, and the files are the same bytes as without the memo.
 *
 * A memo holds a picture's scanlines and each band's compressed bytes.
 * One is the latest (bandmemo_latest); a picture being written builds its
 * own (bandmemo_new, then each band's rows and bytes as they are made) and
 * makes it the latest once every band is in (bandmemo_publish).  Memos are
 * shared by reference: each call that gives one gives a reference, to be
 * handed back with bandmemo_release.  All of it is thread-safe, the bands
 * of one memo being kept from several threads at once. */
#ifndef LIFE3D_RUN_BANDMEMO_H
#define LIFE3D_RUN_BANDMEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "pngwrite.h"

/* Pictures of more scanline bytes than this are not kept. */
#define BANDMEMO_MAX_BYTES ((uint64_t)32 << 20)

typedef struct bandmemo bandmemo;

/* The latest memo if it is of a width x height picture in bands of `rows`
 * rows, with a reference; else NULL. */
bandmemo *bandmemo_latest(uint64_t width, uint64_t height, uint64_t rows);

/* An empty memo for such a picture, with a reference; NULL when the
 * picture is over BANDMEMO_MAX_BYTES or memory is short (the picture is
 * then written without one). */
bandmemo *bandmemo_new(uint64_t width, uint64_t height, uint64_t rows);

/* Band `chunk` of m, if m holds it and its rows were the bytes at px
 * (the band's rows, 3 * width bytes each, one after the other); else
 * NULL. */
const pngw_band *bandmemo_match(const bandmemo *m, uint64_t chunk, const uint8_t *px);

/* Band `chunk` of m whatever its rows, for a picture known to be the same
 * as m's (NULL: m does not hold it). */
const pngw_band *bandmemo_band(const bandmemo *m, uint64_t chunk);

/* Is m of a width x height picture in bands of `rows` rows? */
bool bandmemo_is(const bandmemo *m, uint64_t width, uint64_t height, uint64_t rows);

/* Another reference to m. */
bandmemo *bandmemo_ref(bandmemo *m);

/* Keep band `chunk`'s rows (px, as above) in m. */
void bandmemo_keep_rows(bandmemo *m, uint64_t chunk, const uint8_t *px);

/* Keep band `chunk`'s compressed bytes in m (NULL: nothing is kept):
 * b's buffer, taken (*b is left empty), or a copy of b's bytes.  When
 * memory is short for the copy, m is never published. */
void bandmemo_keep_band(bandmemo *m, uint64_t chunk, pngw_band *b);
void bandmemo_keep_copy(bandmemo *m, uint64_t chunk, const pngw_band *b);

/* m, every band kept, becomes the latest (an incomplete m does not: then
 * false). */
bool bandmemo_publish(bandmemo *m);

/* Hand back a reference; NULL is fine. */
void bandmemo_release(bandmemo *m);

/* No memo is the latest any more (at the end of a run). */
void bandmemo_forget(void);

/* The memory a memo of a width x height picture may take: its scanlines
 * and their compressed bytes (0 when it is not kept). */
uint64_t bandmemo_bytes(uint64_t width, uint64_t height);

#endif
