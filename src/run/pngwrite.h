/* pngwrite.h - an 8-bit RGB PNG written a few rows at a time, with text
 * chunks, libpng's errors turned into l3d_err values.
 *
 * Each call catches libpng's longjmp on its own stack, so the rows of one
 * picture may be written from different threads, one call at a time, in
 * order.  Pictures are at most PNGW_MAX_EDGE pixels a side: libpng's
 * default user limit, which it applies when writing and which readers
 * built on it apply when reading. */
#ifndef LIFE3D_RUN_PNGWRITE_H
#define LIFE3D_RUN_PNGWRITE_H

#include <stdint.h>
#include <stdio.h>

#include "base/status.h"

#define PNGW_MAX_EDGE 1000000u

typedef struct pngw pngw;

typedef struct pngw_note {
	const char *key;        /* a PNG keyword: 1 to 79 Latin-1 letters */
	char text[160];
} pngw_note;

/* Start a width x height picture on `out` (`name` for messages), its
 * notes in tEXt chunks before the pixels. */
int pngw_begin(pngw **w, FILE *out, const char *name,
		    uint32_t width, uint32_t height, const pngw_note *notes,
		    int n_notes, l3d_err *err);
/* n rows of 3 * width bytes each, `stride` bytes apart (0: the same row n
 * times). */
int pngw_rows(pngw *w, const uint8_t *rows, uint32_t n,
		   size_t stride, l3d_err *err);
/* After the last row. */
int pngw_finish(pngw *w, l3d_err *err);
/* Frees everything, finished or not; NULL is fine. */
void pngw_free(pngw *w);

#endif
