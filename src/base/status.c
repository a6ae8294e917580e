/* status.c - the error record. */
#include "status.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Copy a message, writing control bytes as \n, \t or \xHH: messages
 * quote file names and input text, and must stay one line on a terminal
 * whatever those contain. */
static void copy_escaped(char *dst, size_t size, const char *src)
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
}

int l3d_fail(l3d_err *err, int code, const char *fmt, ...)
{
	if (err) {
		char raw[sizeof err->msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(raw, sizeof raw, fmt, ap);
		va_end(ap);
		copy_escaped(err->msg, sizeof err->msg, raw);
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
