/* io.c - see io.h. */
#include "io.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

bool meta_add_comment(universe_meta *m, const char *line)
{
	size_t have = strlen(m->comments), n = strlen(line);
	if (have + n + 1 >= sizeof m->comments) {
		m->comments_cut = true;
		return false;
	}
	memcpy(m->comments + have, line, n);
	m->comments[have + n] = '\n';
	m->comments[have + n + 1] = '\0';
	return true;
}

/* ---- the reader ---- */

void reader_init(reader *r, FILE *f, const char *name)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	r->name = name;
	r->size = -1;
	r->start = -1;
	r->place = (plane_place){.axis = 2, .index = -1, .twice = false};
	struct stat st;
	off_t at = f ? ftello(f) : -1;
	if (f && at >= 0 && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= at) {
		r->size = (int64_t)(st.st_size - at);
		r->start = (int64_t)at;
	}
}

bool reader_short(const reader *r, uint64_t total, uint64_t *have)
{
	*have = r->size < 0 ? 0 : (uint64_t)r->size;
	return r->size >= 0 && (uint64_t)r->size < total;
}

size_t reader_read(reader *r, void *buf, size_t n)
{
	unsigned char *out = buf;
	size_t got = 0;
	if (r->ppos < r->npeek) {
		size_t k = r->npeek - r->ppos;
		if (k > n)
			k = n;
		memcpy(out, r->peek + r->ppos, k);
		r->ppos += k;
		got = k;
	}
	if (got < n)
		got += fread(out + got, 1, n - got, r->f);
	r->offset += got;
	return got;
}

size_t reader_peek(reader *r, const unsigned char **bytes)
{
	size_t have = r->npeek - r->ppos;
	memmove(r->peek, r->peek + r->ppos, have);
	r->ppos = 0;
	r->npeek = have;
	/* fread keeps reading a pipe until it has the count or meets EOF, so
	 * one call fills the look-ahead. */
	if (have < sizeof r->peek && !feof(r->f) && !ferror(r->f))
		r->npeek += fread(r->peek + have, 1, sizeof r->peek - have, r->f);
	*bytes = r->peek;
	return r->npeek;
}

bool reader_at_eof(reader *r)
{
	if (r->ppos < r->npeek)
		return false;
	r->ppos = 0;
	r->npeek = fread(r->peek, 1, 1, r->f);
	return r->npeek == 0;
}

int reader_error(reader *r, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_IO, "%s: read error: %s", r->name,
			strerror(errno ? errno : EIO));
}

int reader_fill(reader *r, void *buf, size_t n, size_t *got, l3d_err *err)
{
	errno = 0;
	*got = reader_read(r, buf, n);
	if (*got < n && ferror(r->f))
		return reader_error(r, err);
	return L3D_OK;
}

int reader_header(reader *r, void *buf, size_t n, const char *what,
		  l3d_err *err)
{
	size_t got;
	int rc = reader_fill(r, buf, n, &got, err);
	if (rc)
		return rc;
	if (got == 0 && r->offset == 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: empty file", r->name);
	if (got < n)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: truncated %s header (%zu of %zu bytes)", r->name,
				what, got, n);
	return L3D_OK;
}

static int trailing(const reader *r, const char *what, uint64_t at, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_DATA,
			"%s: trailing garbage after the %s (at offset %llu)",
			r->name, what, (unsigned long long)at);
}

int reader_expect_end(reader *r, const char *what, l3d_err *err)
{
	errno = 0;
	if (reader_at_eof(r))
		return ferror(r->f) ? reader_error(r, err) : L3D_OK;
	return trailing(r, what, r->offset, err);
}

int reader_expect_size(const reader *r, uint64_t total, const char *what,
		       l3d_err *err)
{
	if (r->size < 0 || (uint64_t)r->size <= total)
		return L3D_OK;
	return trailing(r, what, total, err);
}

/* ---- writing helpers ---- */

static int write_error(const char *name, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", name,
			strerror(errno ? errno : EIO));
}

int format_put(FILE *out, const char *name, const void *buf, size_t n,
	       l3d_err *err)
{
	errno = 0;
	if (n && fwrite(buf, 1, n, out) != n)
		return write_error(name, err);
	return L3D_OK;
}

int format_puts(FILE *out, const char *name, const char *s, l3d_err *err)
{
	return format_put(out, name, s, strlen(s), err);
}

int format_finish(FILE *out, const char *name, l3d_err *err)
{
	errno = 0;
	if (fflush(out) != 0 || ferror(out))
		return write_error(name, err);
	return L3D_OK;
}

int reader_alloc(reader *r, grid *g, uint64_t nx, uint64_t ny, uint64_t nz,
		 l3d_err *err)
{
	l3d_err inner = {0, ""};
	int rc = grid_alloc(g, nx, ny, nz, &inner);
	return rc ? l3d_fail(err, rc, "%s: %s", r->name, inner.msg) : L3D_OK;
}
