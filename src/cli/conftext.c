/* conftext.c - see conftext.h. */
#include "conftext.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int read_all(FILE *f, const char *path, char **out, size_t *len,
		    l3d_err *err)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap || n > CONFTEXT_MAX_BYTES)
			break;
		char *grown = realloc(buf, 2 * cap + 1);
		if (!grown) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = grown;
		cap *= 2;
	}
	if (!buf)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	if (ferror(f) || n > CONFTEXT_MAX_BYTES) {
		free(buf);
		if (n > CONFTEXT_MAX_BYTES)
			return l3d_fail(err, L3D_ERR_CONFIG,
					"%s: over %zu KiB: not a configuration file", path,
					CONFTEXT_MAX_BYTES >> 10);
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return l3d_fail(err, L3D_ERR_CONFIG, "%s: waits for data: "
					"not a file that ends", path);
		return l3d_fail(err, L3D_ERR_IO, "%s: read error: %s", path,
				strerror(errno));
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return L3D_OK;
}

static int line_of(const char *text, const char *p)
{
	int line = 1;
	for (; text < p; text++)
		line += *text == '\n';
	return line;
}

/* Skip blanks and comments, counting lines; return where a token starts,
 * or the slash-star of a comment that is never closed. */
static const char *skip_gap(const char *p, int *line)
{
	for (;;) {
		if (*p == '\n') {
			(*line)++;
			p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' ||
			   *p == '\v') {
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			if (!end)
				return p;
			for (; p < end + 2; p++)
				*line += *p == '\n';
		} else {
			return p;
		}
	}
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '*' || c == '-' ||
	       c == '+' || c == '.';
}

/* The end of the token at p: a string, a word or one character. */
static const char *token_end(const char *p, int *line)
{
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			*line += *p == '\n';
		}
		return *p ? p + 1 : p;
	}
	if (word_char(*p)) {
		while (word_char(*p))
			p++;
		return p;
	}
	return p + 1;
}

/* Only blanks between the start of p's line and p (libconfig's "^"). */
static bool starts_line(const char *text, const char *p)
{
	while (p > text && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	return p == text || p[-1] == '\n';
}

/* An @include line at p: record it and blank it in the parse copy.
 * Returns the end of the directive, or NULL on error. */
static const char *take_include(conftext *t, const char *path, const char *p,
				int line, l3d_err *err)
{
	const char *q = p + 8;
	while (*q == ' ' || *q == '\t')
		q++;
	const char *name = ++q;
	while (*q && *q != '"' && *q != '\n')
		q++;
	size_t n = (size_t)(q - name);
	if (*q != '"' || n == 0) {
		l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: @include needs a file name in "
			 "double quotes", path, line);
		return NULL;
	}
	if (n >= sizeof t->inc[0].name) {
		l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: @include: a file name of %zu "
			 "bytes is too long (at most %zu)", path, line, n,
			 sizeof t->inc[0].name - 1);
		return NULL;
	}
	if (t->ninc == CONFTEXT_MAX_INCLUDES) {
		l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: more than %d @include lines",
			 path, line, CONFTEXT_MAX_INCLUDES);
		return NULL;
	}
	conf_include *inc = &t->inc[t->ninc++];
	inc->line = line;
	memcpy(inc->name, name, n);
	inc->name[n] = '\0';
	memset(t->parse + (p - t->text), ' ', (size_t)(q + 1 - p));
	return q + 1;
}

static bool is_include(const char *p)
{
	return strncmp(p, "@include", 8) == 0 && (p[8] == ' ' || p[8] == '\t');
}

static int find_includes(conftext *t, const char *path, l3d_err *err)
{
	int line = 1;
	const char *p = skip_gap(t->text, &line);
	while (*p) {
		if (p[0] == '/' && p[1] == '*')
			return l3d_fail(err, L3D_ERR_CONFIG,
					"%s:%d: a comment that is never closed (no '*/' after "
					"this '/*'): the rest of the file would be ignored",
					path, line);
		if (*p == '@' && is_include(p) && starts_line(t->text, p)) {
			const char *q = p + 8;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '"') {
				p = take_include(t, path, p, line, err);
				if (!p)
					return L3D_ERR_CONFIG;
				p = skip_gap(p, &line);
				continue;
			}
		}
		p = skip_gap(token_end(p, &line), &line);
	}
	return L3D_OK;
}

int conftext_read(FILE *f, const char *path, conftext *t, l3d_err *err)
{
	size_t len = 0;
	memset(t, 0, sizeof *t);
	int rc = read_all(f, path, &t->text, &len, err);
	if (rc)
		return rc;
	t->len = len;
	const char *nul = memchr(t->text, '\0', len);
	if (nul) {
		rc = l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: a NUL byte: not a text file",
			      path, line_of(t->text, nul));
	} else if (!(t->parse = strdup(t->text))) {
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	} else {
		rc = find_includes(t, path, err);
	}
	if (rc)
		conftext_free(t);
	return rc;
}

int conftext_value(const conftext *t, int line, const char *key, char *buf,
		   size_t size)
{
	size_t klen = strlen(key);
	int at = 1;
	const char *p = skip_gap(t->parse, &at);
	while (*p && at <= line) {
		int start = at;
		const char *end = token_end(p, &at);
		const char *next = skip_gap(end, &at);
		if (start == line && (size_t)(end - p) == klen &&
		    memcmp(p, key, klen) == 0 && (*next == '=' || *next == ':')) {
			const char *v = skip_gap(next + 1, &at), *e = v;
			while (word_char(*e))
				e++;
			size_t n = (size_t)(e - v);
			if (n == 0 || n >= size)
				return -1;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return 0;
		}
		p = next;
	}
	return -1;
}

void conftext_free(conftext *t)
{
	free(t->text);
	free(t->parse);
	t->text = t->parse = NULL;
}
