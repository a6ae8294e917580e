/* pngwrite.h - an 8-bit RGB PNG compressed in bands on several threads,
 * with text chunks, libpng's errors turned into l3d_err values.
 *
 * The picture's rows are cut into bands of whole rows.  pngw_encode()
 * turns a band into scanlines and compresses them as raw deflate ending
 * on a byte boundary; it touches no libpng state, so bands may be encoded
 * on any threads at once, in any order.  pngw_put() writes them in order,
 * as IDAT chunks of one zlib stream: the zlib header before the first
 * band, the checksum (combined from the bands') after the last, written
 * by pngw_finish().  The header and text chunks come from libpng
 * (pngw_begin()), and so does every chunk's framing.
 *
 * A scanline is filter None, the row itself, or when the row is the same
 * as the one above it in its band, filter Up, all zeros; compression is
 * zlib's level 1.  On life3d's pictures (flat areas, rows repeated by a
 * scale) that is smaller than libpng's adaptive filters at level 3 (a
 * render about 40% smaller, a scaled projection within a few per cent)
 * and several times faster.  A band starts with an empty dictionary: one
 * of 64 KiB makes its part of the file about 5% larger than in one
 * piece, one of 256 KiB about 1%.
 *
 * Each call that uses libpng catches its longjmp on its own stack, so the
 * bands of one picture may be put from different threads, one call at a
 * time, in order.  Pictures are at most PNGW_MAX_EDGE pixels a side:
 * libpng's default user limit, which it applies when writing and which
 * readers built on it apply when reading; and at most PNGW_MAX_PIXELS in
 * all (2^27: 384 MiB of RGB, a second or two to encode), the area at
 * which common readers start to refuse a picture as a decompression bomb,
 * and which keeps the picture a stop lets finish short. */
#ifndef LIFE3D_RUN_PNGWRITE_H
#define LIFE3D_RUN_PNGWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h"

#define PNGW_MAX_EDGE 1000000u
#define PNGW_MAX_PIXELS ((uint64_t)1 << 27)

typedef struct pngw pngw;

typedef struct pngw_note {
	const char *key;        /* a PNG keyword: 1 to 79 Latin-1 letters */
	char text[160];
} pngw_note;

/* A band of rows, compressed.  Zero it before its first use; its buffer
 * is kept for the next band encoded into it, until pngw_band_free(). */
typedef struct pngw_band {
	uint8_t *data;          /* raw deflate */
	size_t len, cap;
	uint32_t adler;         /* adler32 of the scanlines */
	uint64_t raw;           /* bytes of scanlines: rows x (1 + 3 width) */
	bool last;              /* ends the stream */
} pngw_band;

/* Start a width x height picture on `out` (`name` for messages), its
 * notes in tEXt chunks before the pixels. */
int pngw_begin(pngw **w, FILE *out, const char *name,
		    uint32_t width, uint32_t height, const pngw_note *notes,
		    int n_notes, l3d_err *err);

/* Is the file at path (a regular file, not through a link) a PNG whose
 * text chunks hold each of the n notes, key and text exactly (a note of
 * empty text: its key with any text, which is put in the note)? */
bool pngw_has_notes(const char *path, pngw_note *want, int n);

/* Compress n rows of 3 * width bytes each, `stride` bytes apart (0: the
 * same row n times), into b; `last` for the band holding the picture's
 * last row.  Thread-safe. */
int pngw_encode(uint32_t width, const uint8_t *rows, uint32_t n, size_t stride,
		bool last, pngw_band *b, l3d_err *err);

/* Write the next band; bands go in the picture's order, from top to
 * bottom, one call at a time. */
int pngw_put(pngw *w, const pngw_band *b, l3d_err *err);

/* After the last band: the checksum and IEND, flushed to the file.  Fails
 * when the bands put were not the whole picture. */
int pngw_finish(pngw *w, l3d_err *err);

/* Free everything, finished or not; NULL is fine. */
void pngw_free(pngw *w);
void pngw_band_free(pngw_band *b);

#endif
