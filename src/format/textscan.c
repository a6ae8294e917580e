/* textscan.c - see textscan.h. */
#include "textscan.h"

#include <ctype.h>
#include <string.h>

void scan_init(scanner *s, reader *r, l3d_err *err)
{
	memset(s, 0, sizeof *s);
	s->r = r;
	s->err = err;
	s->at_line_start = true;
}

/* The next character, CR, LF and CRLF each read as one '\n'; -1 at end. */
int scan_getc(scanner *s)
{
	for (;;) {
		if (s->pos == s->len) {
			size_t got = 0;
			if (!s->done)
				s->rc = reader_fill(s->r, s->buf, sizeof s->buf, &got, s->err);
			if (got == 0) {
				s->done = true;
				return -1;
			}
			s->len = got;
			s->pos = 0;
		}
		int c = s->buf[s->pos++];
		bool second_half_of_crlf = c == '\n' && s->after_cr;
		s->after_cr = c == '\r';
		if (second_half_of_crlf)
			continue;
		if (c == '\r')
			c = '\n';
		if (s->at_line_start) {
			s->line++;
			s->col = 0;
		}
		s->col++;
		s->at_line_start = c == '\n';
		return c;
	}
}

void scan_skip_line(scanner *s)
{
	int c;
	while ((c = scan_getc(s)) != -1 && c != '\n')
		;
}

/* Read the rest of a line, `first` being its first character. */
int scan_line(scanner *s, int first, char *buf, l3d_err *err)
{
	size_t n = 0;
	uint64_t line = s->line;
	for (int c = first; c != -1 && c != '\n'; c = scan_getc(s)) {
		/* A NUL would end the line for the string functions after. */
		if (c == '\0')
			return l3d_fail(err, L3D_ERR_DATA, "%s:%llu:%llu: byte 0x00 "
					"in a header line", s->r->name,
					(unsigned long long)line, (unsigned long long)s->col);
		if (n + 1 == SCAN_LINE_CAP)
			return l3d_fail(err, L3D_ERR_DATA, "%s:%llu: line too long",
					s->r->name, (unsigned long long)line);
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return s->rc;
}

bool scan_comment(scanner *s, int first, char *buf, size_t cap)
{
	size_t n = 0;
	bool cut = false;
	for (int c = first; c != -1 && c != '\n'; c = scan_getc(s)) {
		if (c == '\0')
			continue;
		if (n + 1 < cap)
			buf[n++] = (char)c;
		else
			cut = true;
	}
	buf[n] = '\0';
	return cut;
}

int scan_error(const scanner *s, int c, const char *why, l3d_err *err)
{
	if (isprint(c))
		return l3d_fail(err, L3D_ERR_DATA, "%s:%llu:%llu: '%c' %s",
				s->r->name, (unsigned long long)s->line,
				(unsigned long long)s->col, c, why);
	return l3d_fail(err, L3D_ERR_DATA, "%s:%llu:%llu: byte 0x%02x %s",
			s->r->name, (unsigned long long)s->line,
			(unsigned long long)s->col, (unsigned)c, why);
}
