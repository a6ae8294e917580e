/* format_hpcgame.c - the HPCGame 2024 universe: u64 M, u64 T, M^3 bytes.
 *
 * Bytes 0-7 hold the edge M and bytes 8-15 the generation T, both
 * little-endian; then one byte per cell, 0 or 1, cell (x, y, z) at
 * x*M*M + y*M + z.  That order is the grid's row order, so the cells stream
 * through a buffer of whole (x, y) rows and no M^3 copy ever exists
 * (format_put_cells in format.c does the same for writing).  The
 * contest's judge compares outputs byte for byte, so the writer must be
 * exact. */
#include "format.h"

#include <stdlib.h>
#include <string.h>

#define HPCGAME_HEADER 16
/* Rows per read or write: about 1 MiB of cells, and at least one row. */
#define CHUNK_BYTES ((size_t)1 << 20)

static size_t rows_per_chunk(uint64_t m)
{
	size_t k = CHUNK_BYTES / m;
	return k ? k : 1;
}

static int read_header(reader *r, uint64_t *m, uint64_t *t, l3d_err *err)
{
	unsigned char h[HPCGAME_HEADER];
	int rc = reader_header(r, h, sizeof h, "HPCGame", err);
	if (rc)
		return rc;
	*m = le_get64(h);
	*t = le_get64(h + 8);
	if (*m == 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: HPCGame edge length M is 0",
				r->name);
	rc = grid_check_size(*m, *m, *m, r->name, err);
	if (rc)
		return rc;
	uint64_t cells;
	if (__builtin_mul_overflow(*m, *m, &cells) ||
	    __builtin_mul_overflow(cells, *m, &cells))
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: HPCGame edge length %llu: M^3 overflows",
				r->name, (unsigned long long)*m);
	return L3D_OK;
}

/* The offending byte of a chunk that grid_row_pack refused. */
static int bad_cell(reader *r, const uint8_t *buf, size_t n, uint64_t before,
		    l3d_err *err)
{
	size_t i = 0;
	while (i < n && buf[i] <= 1)
		i++;
	return l3d_fail(err, L3D_ERR_DATA,
			"%s: byte 0x%02x at offset %llu is not a cell (0 or 1)",
			r->name, i < n ? buf[i] : 0,
			(unsigned long long)(HPCGAME_HEADER + before + i));
}

static int read_cells(reader *r, grid *g, uint8_t *buf, l3d_err *err)
{
	uint64_t m = g->nz, rows = g->nx * g->ny, total = rows * m, done = 0;
	size_t chunk = rows_per_chunk(m);
	for (uint64_t row = 0; row < rows; row += chunk) {
		size_t k = rows - row < chunk ? (size_t)(rows - row) : chunk;
		size_t need = k * (size_t)m, got;
		int rc = reader_fill(r, buf, need, &got, err);
		if (rc)
			return rc;
		if (got < need)
			return l3d_fail(err, L3D_ERR_DATA,
					"%s: truncated: expected %llu bytes of cells, got %llu",
					r->name, (unsigned long long)total,
					(unsigned long long)(done + got));
		for (size_t i = 0; i < k; i++) {
			uint64_t x = (row + i) / m, y = (row + i) % m;
			if (grid_row_pack(g, x, y, buf + i * m) < 0)
				return bad_cell(r, buf, need, done, err);
		}
		done += got;
	}
	return L3D_OK;
}

int hpcgame_read(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	uint64_t m = 0, t = 0;
	memset(g, 0, sizeof *g);
	if (meta)
		meta->has_rule = false;
	int rc = read_header(r, &m, &t, err);
	if (rc)
		return rc;
	rc = reader_alloc(r, g, m, m, m, err);
	if (rc)
		return rc;
	g->generation = t;
	uint8_t *buf = malloc(rows_per_chunk(m) * m);
	if (!buf)
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", r->name);
	if (!rc)
		rc = read_cells(r, g, buf, err);
	if (!rc)
		rc = reader_expect_end(r, "HPCGame cells", err);
	free(buf);
	if (rc)
		grid_free(g);
	return rc;
}

int hpcgame_write(FILE *out, const char *name, const grid *g, l3d_err *err)
{
	if (g->nx != g->ny || g->ny != g->nz)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: HPCGame format needs a cube, not %llux%llux%llu",
				name, (unsigned long long)g->nx,
				(unsigned long long)g->ny, (unsigned long long)g->nz);
	unsigned char h[HPCGAME_HEADER];
	le_put64(h, g->nz);
	le_put64(h + 8, g->generation);
	int rc = format_put(out, name, h, sizeof h, err);
	if (!rc)
		rc = format_put_cells(out, name, g, err);
	return rc ? rc : format_finish(out, name, err);
}
