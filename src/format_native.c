/* format_native.c - life3d's own format (.l3d): one bit per cell, CRC-32.
 *
 * A 64-byte little-endian header, then the cells as one continuous
 * bitstream in x, y, z order (z fastest), cell i in bit i%8 of byte i/8.
 * life3d-formats(5) documents every byte.  The payload CRC sits in the
 * header, and output may be a pipe, so the writer makes two passes over the
 * grid: one to compute the CRC, one to write.  Both directions stream
 * through a 1 MiB buffer: a 2048^3 universe has a 1 GiB payload. */
#include "format.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define NATIVE_HEADER NATIVE_HEADER_BYTES
#define NATIVE_VERSION 1
/* A multiple of 8: the bitstream moves in whole 64-bit words. */
#define CHUNK_BYTES ((size_t)1 << 20)

static const unsigned char native_magic[8] = { 0x89, 'L', '3', 'D', '\r', '\n', 0x1a, '\n' };

/* ---- writing ---- */

typedef struct bitsink {
	unsigned char *buf;
	size_t len;
	uint64_t acc;            /* bits not yet stored, low bits first */
	unsigned nacc;
	uint32_t crc;
	FILE *out;               /* NULL: compute the CRC only */
	const char *name;
	l3d_err *err;
} bitsink;

static int sink_flush(bitsink *s)
{
	s->crc = (uint32_t)crc32(s->crc, s->buf, (uInt)s->len);
	int rc = s->out ? format_put(s->out, s->name, s->buf, s->len, s->err)
			: L3D_OK;
	s->len = 0;
	return rc;
}

/* Append the low k bits (1..64) of `bits`; the bits above k must be 0. */
static int sink_bits(bitsink *s, uint64_t bits, unsigned k)
{
	s->acc |= bits << s->nacc;
	if (s->nacc + k < 64) {
		s->nacc += k;
		return L3D_OK;
	}
	le_put64(s->buf + s->len, s->acc);
	s->len += 8;
	s->acc = s->nacc ? bits >> (64 - s->nacc) : 0;
	s->nacc = s->nacc + k - 64;
	return s->len == CHUNK_BYTES ? sink_flush(s) : L3D_OK;
}

static int sink_payload(bitsink *s, const grid *g)
{
	uint64_t tail = grid_tail_mask(g);
	unsigned last = (unsigned)(g->nz - (g->words - 1) * 64);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			int rc = L3D_OK;
			for (uint64_t w = 0; w + 1 < g->words && !rc; w++)
				rc = sink_bits(s, row[w], 64);
			if (!rc)
				rc = sink_bits(s, row[g->words - 1] & tail, last);
			if (rc)
				return rc;
		}
	/* The last partial byte; the buffer always has room (flushed when full). */
	for (unsigned i = 0; i < (s->nacc + 7) / 8; i++)
		s->buf[s->len++] = (unsigned char)(s->acc >> (8 * i));
	return sink_flush(s);
}

void native_build_header(unsigned char h[NATIVE_HEADER_BYTES], const native_header *nh)
{
	memset(h, 0, NATIVE_HEADER);
	memcpy(h, native_magic, sizeof native_magic);
	le_put32(h + 8, NATIVE_VERSION);
	le_put32(h + 12, NATIVE_HEADER);
	le_put64(h + 16, nh->nx);
	le_put64(h + 24, nh->ny);
	le_put64(h + 32, nh->nz);
	le_put64(h + 40, nh->generation);
	le_put32(h + 48, nh->rule.birth);
	le_put32(h + 52, nh->rule.survive);
	le_put32(h + 56, nh->payload_crc);
	le_put32(h + 60, (uint32_t)crc32(0, h, 60));
}

int native_write(FILE *out, const char *name, const grid *g, const rule *r,
		 l3d_err *err)
{
	bitsink s = { .name = name, .err = err };
	s.buf = malloc(CHUNK_BYTES);
	if (!s.buf)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", name);
	int rc = sink_payload(&s, g);           /* pass 1: the CRC only */
	unsigned char h[NATIVE_HEADER];
	native_header nh = {g->nx, g->ny, g->nz, g->generation,
			    r ? *r : rule_default, s.crc};
	native_build_header(h, &nh);
	if (!rc)
		rc = format_put(out, name, h, sizeof h, err);
	if (!rc) {
		s = (bitsink){ .buf = s.buf, .out = out, .name = name, .err = err };
		rc = sink_payload(&s, g);
	}
	free(s.buf);
	return rc ? rc : format_finish(out, name, err);
}

/* ---- reading ---- */

int native_parse_header(const char *name, const unsigned char h[NATIVE_HEADER_BYTES],
			native_header *out, l3d_err *err)
{
	if (memcmp(h, native_magic, sizeof native_magic) != 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad magic (not an .l3d file)", name);
	uint32_t version = le_get32(h + 8), size = le_get32(h + 12);
	if (version != NATIVE_VERSION)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: unsupported .l3d version %lu (this life3d reads version 1)",
				name, (unsigned long)version);
	if (size != NATIVE_HEADER)
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad header size %lu (expected 64)",
				name, (unsigned long)size);
	uint32_t stored = le_get32(h + 60), computed = (uint32_t)crc32(0, h, 60);
	if (stored != computed)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad header CRC (stored %08lx, computed %08lx)",
				name, (unsigned long)stored, (unsigned long)computed);
	out->nx = le_get64(h + 16);
	out->ny = le_get64(h + 24);
	out->nz = le_get64(h + 32);
	out->generation = le_get64(h + 40);
	out->rule.birth = le_get32(h + 48);
	out->rule.survive = le_get32(h + 52);
	out->payload_crc = le_get32(h + 56);
	if ((out->rule.birth | out->rule.survive) & ~RULE_ALL_COUNTS)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad rule masks B=%08lx S=%08lx (counts above 26)",
				name, (unsigned long)out->rule.birth,
				(unsigned long)out->rule.survive);
	return grid_check_size(out->nx, out->ny, out->nz, name, err);
}

static int read_header(reader *r, native_header *nh, l3d_err *err)
{
	unsigned char h[NATIVE_HEADER];
	int rc = reader_header(r, h, sizeof h, ".l3d", err);
	return rc ? rc : native_parse_header(r->name, h, nh, err);
}

typedef struct bitsrc {
	reader *r;
	unsigned char *buf;
	size_t len, pos;
	uint64_t total, left;    /* payload bytes in all, and not yet read */
	uint64_t acc;            /* bits fetched but not yet taken */
	unsigned nacc;
	uint32_t crc;
	l3d_err *err;
} bitsrc;

static int src_refill(bitsrc *s)
{
	size_t want = s->left < CHUNK_BYTES ? (size_t)s->left : CHUNK_BYTES, got;
	int rc = reader_fill(s->r, s->buf, want, &got, s->err);
	if (rc)
		return rc;
	if (got < want || want == 0)
		return l3d_fail(s->err, L3D_ERR_DATA,
				"%s: truncated payload: expected %llu bytes, got %llu",
				s->r->name, (unsigned long long)s->total,
				(unsigned long long)(s->total - s->left + got));
	s->crc = (uint32_t)crc32(s->crc, s->buf, (uInt)got);
	s->left -= got;
	/* Zeros past the end of the payload let the last word be whole. */
	size_t padded = (got + 7) & ~(size_t)7;
	memset(s->buf + got, 0, padded - got);
	s->len = padded;
	s->pos = 0;
	return L3D_OK;
}

/* Take the next k bits (1..64). */
static int src_bits(bitsrc *s, unsigned k, uint64_t *out)
{
	uint64_t mask = k == 64 ? ~(uint64_t)0 : ((uint64_t)1 << k) - 1;
	if (s->nacc >= k) {
		*out = s->acc & mask;
		s->acc = k == 64 ? 0 : s->acc >> k;
		s->nacc -= k;
		return L3D_OK;
	}
	if (s->pos == s->len) {
		int rc = src_refill(s);
		if (rc)
			return rc;
	}
	uint64_t w = le_get64(s->buf + s->pos);
	s->pos += 8;
	unsigned from_w = k - s->nacc;          /* 1..64 bits come from w */
	*out = (s->acc | (w << s->nacc)) & mask;
	s->acc = from_w == 64 ? 0 : w >> from_w;
	s->nacc = 64 - from_w;
	return L3D_OK;
}

static int read_payload(bitsrc *s, grid *g)
{
	unsigned last = (unsigned)(g->nz - (g->words - 1) * 64);
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			uint64_t *row = grid_row(g, x, y);
			int rc = L3D_OK;
			for (uint64_t w = 0; w + 1 < g->words && !rc; w++)
				rc = src_bits(s, 64, &row[w]);
			if (!rc)
				rc = src_bits(s, last, &row[g->words - 1]);
			if (rc)
				return rc;
		}
	return L3D_OK;
}

static int read_cells(reader *r, grid *g, uint32_t expect_crc, l3d_err *err)
{
	uint64_t bits;
	if (__builtin_mul_overflow(g->nx, g->ny, &bits) ||
	    __builtin_mul_overflow(bits, g->nz, &bits))
		return l3d_fail(err, L3D_ERR_DATA, "%s: too many cells", r->name);
	bitsrc s = { .r = r, .err = err };
	s.total = s.left = bits / 8 + (bits % 8 != 0);
	s.buf = malloc(CHUNK_BYTES);
	if (!s.buf)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", r->name);
	int rc = read_payload(&s, g);
	free(s.buf);
	if (rc)
		return rc;
	if (s.crc != expect_crc)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad payload CRC (stored %08lx, computed %08lx)",
				r->name, (unsigned long)expect_crc, (unsigned long)s.crc);
	/* What is left of the last word: the pad bits, then our zeros. */
	if (s.acc != 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: nonzero pad bits after the last cell", r->name);
	return reader_expect_end(r, ".l3d payload", err);
}

int native_read(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	native_header nh = { 0 };
	memset(g, 0, sizeof *g);
	int rc = read_header(r, &nh, err);
	if (!rc)
		rc = reader_alloc(r, g, nh.nx, nh.ny, nh.nz, err);
	if (rc)
		return rc;
	g->generation = nh.generation;
	rc = read_cells(r, g, nh.payload_crc, err);
	if (rc) {
		grid_free(g);
		return rc;
	}
	if (meta) {
		meta->has_rule = true;
		meta->rule = nh.rule;
	}
	return L3D_OK;
}
