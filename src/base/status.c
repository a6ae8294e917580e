/* status.c - the error record. */
#include "status.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Copy a message, writing control bytes as \n, \t or \xHH: messages
 * quote file names and input text, and must stay one line on a terminal
 * whatever those contain.  Returns the length written. */
static size_t copy_escaped(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	for (; *src && n + 5 < size; src++) {
		unsigned char c = (unsigned char)*src;
		if (c >= 0x20 && c != 0x7f)
			dst[n++] = (char)c;
		else if (c == '\n' || c == '\t')
			n += (size_t)snprintf(dst + n, size - n, "\\%c", c == '\n' ? 'n' : 't');
		else
			n += (size_t)snprintf(dst + n, size - n, "\\x%02x", c);
	}
	dst[n] = '\0';
	return n;
}

/* A message too long for the record loses its middle, not its end: the
 * file it names comes first and the reason last, and a long path must not
 * hide the reason. */
#define HEAD 160
static void shorten(char *dst, size_t size, const char *src, size_t len)
{
	static const char gap[] = "...";
	if (len < size) {
		memcpy(dst, src, len + 1);
		return;
	}
	size_t tail = size - 1 - HEAD - (sizeof gap - 1);
	memcpy(dst, src, HEAD);
	memcpy(dst + HEAD, gap, sizeof gap - 1);
	memcpy(dst + HEAD + sizeof gap - 1, src + len - tail, tail + 1);
}

int l3d_fail(l3d_err *err, int code, const char *fmt, ...)
{
	if (err) {
		char raw[L3D_MSG_ROOM], escaped[L3D_MSG_ROOM];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(raw, sizeof raw, fmt, ap);
		va_end(ap);
		size_t n = copy_escaped(escaped, sizeof escaped, raw);
		shorten(err->msg, sizeof err->msg, escaped, n);
		err->code = code;
	}
	return code;
}

int l3d_mul_size(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a)
		return -1;
	*out = a * b;
	return 0;
}
