/* status.c - the error record. */
#include "status.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The message formatted whole, however long (a rule or a path quoted in
 * it may be thousands of bytes), and escaped: in *heap when memory allows,
 * else cut at the end of `room`. */
static size_t format_escaped(char *room, size_t size, char **heap, const char *fmt,
			     va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int len = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	char *raw = len >= 0 ? malloc((size_t)len + 1) : NULL;
	*heap = raw ? malloc(4 * (size_t)len + 6) : NULL;
	if (!*heap) {
		free(raw);
		char cut[L3D_MSG_ROOM];
		vsnprintf(cut, sizeof cut, fmt, ap);
		return copy_escaped(room, size, cut);
	}
	vsnprintf(raw, (size_t)len + 1, fmt, ap);
	size_t n = copy_escaped(*heap, 4 * (size_t)len + 6, raw);
	free(raw);
	return n;
}

int l3d_fail(l3d_err *err, int code, const char *fmt, ...)
{
	if (err) {
		char room[L3D_MSG_ROOM], *heap;
		va_list ap;
		va_start(ap, fmt);
		size_t n = format_escaped(room, sizeof room, &heap, fmt, ap);
		va_end(ap);
		shorten(err->msg, sizeof err->msg, heap ? heap : room, n);
		free(heap);
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
