/* textscan.h - the character scanner of the text formats (RLE3, 2D RLE):
 * one character at a time from a reader, CR, LF and CRLF each read as one
 * '\n', with the line and column of the character last returned for
 * messages ("name:line:col: ..."), and the header lines read whole.
 * Read errors end the input and are kept in `rc` (io.h's reader_fill). */
#ifndef LIFE3D_FORMAT_TEXTSCAN_H
#define LIFE3D_FORMAT_TEXTSCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "io.h"

/* The longest header or comment line read whole, its NUL included. */
#define SCAN_LINE_CAP 4096

typedef struct scanner {
	reader *r;
	unsigned char buf[4096];
	size_t len, pos;
	bool done, after_cr, at_line_start;
	uint64_t line, col;      /* of the character last returned */
	l3d_err *err;
	int rc;                  /* a read error ended the input */
} scanner;

void scan_init(scanner *s, reader *r, l3d_err *err);
/* The next character; -1 at the end of the input (or a read error: rc). */
int scan_getc(scanner *s);
/* Up to and including the end of the line. */
void scan_skip_line(scanner *s);
/* The rest of a line into buf (SCAN_LINE_CAP bytes), `first` being its
 * first character; L3D_ERR_DATA for a NUL in it or a line too long. */
int scan_line(scanner *s, int first, char *buf, l3d_err *err);
/* A comment line, `first` being its first character: as much of it as
 * fits in cap bytes (NUL included) into buf, the rest skipped; NUL bytes
 * are dropped.  True when some of it did not fit. */
bool scan_comment(scanner *s, int first, char *buf, size_t cap);
/* L3D_ERR_DATA "name:line:col: 'c' <why>" at the character last returned
 * (a byte that is not printable is written in hex). */
int scan_error(const scanner *s, int c, const char *why, l3d_err *err);

#endif
