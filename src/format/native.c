/* native.c - life3d's own format (.l3d): one bit per cell, CRC-32.
 *
 * A 64-byte little-endian header, then the cells as one continuous
 * bitstream in x, y, z order (z fastest), cell i in bit i%8 of byte i/8.
 * life3d-formats(5) documents every byte.  The payload CRC sits in the
 * header, and output may be a pipe, so the writer makes two passes over the
 * universe: one to compute the CRC, one to write.  Both directions move a
 * chunk of rows at a time through the payload pipeline (stream.c),
 * whose chunks start on a byte, so each one is encoded or decoded on its
 * own, on any thread: a 2048^3 universe has a 1 GiB payload.  The
 * header and the bitstream are coded here once, for this file's reader
 * and writer and for those at offsets (native_fixed), whose chunks may
 * begin inside a byte. */
#include "native.h"

#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define NATIVE_HEADER NATIVE_HEADER_BYTES
#define NATIVE_PAYLOAD ".l3d payload"
#define NATIVE_VERSION 1
/* Version 2: a comments block follows the 64 bytes (life3d-formats(5)). */
#define NATIVE_VERSION_COMMENTS 2
#define NATIVE_COMMENTS_HEAD 8
/* The neighbourhood (rule_hood) sits in the top three bits of the birth
 * word, above the counts: 0 there is Moore, as in every older file. */
#define NATIVE_HOOD_SHIFT 29
#define NATIVE_HOOD_MASK (UINT32_C(7) << NATIVE_HOOD_SHIFT)
/* The same three bits hold Golly's BusyBoxes rules, after the five
 * neighbourhoods, with no counts. */
#define NATIVE_BUSYBOXES 5
#define NATIVE_BUSYBOXES_WRAP 6
_Static_assert(RULE_HOODS <= NATIVE_BUSYBOXES, "a neighbourhood's number is BusyBoxes'");

static uint32_t hood_code(const rule *r)
{
	return r->family == RULE_BUSYBOXES ? NATIVE_BUSYBOXES
	       : r->family == RULE_BUSYBOXES_WRAP ? NATIVE_BUSYBOXES_WRAP : r->hood;
}

static const unsigned char native_magic[8] = { 0x89, 'L', '3', 'D', '\r', '\n', 0x1a, '\n' };

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "rows of whole words are taken as the bitstream's bytes as they are");

bool native_looks(const unsigned char *p, size_t n)
{
	/* A prefix of the magic counts, so a cut-off header is reported by
	 * the reader as truncated rather than as an unknown format. */
	return memcmp(p, native_magic, n < 8 ? n : 8) == 0;
}

/* ---- the bitstream of a chunk of rows ---- */

typedef struct bitbuf {
	unsigned char *p;
	uint64_t acc;            /* bits not yet stored, low bits first */
	unsigned nacc;
} bitbuf;

/* Append the low k bits (1..64) of `bits`; the bits above k must be 0. */
static inline void put_bits(bitbuf *b, uint64_t bits, unsigned k)
{
	b->acc |= bits << b->nacc;
	if (b->nacc + k < 64) {
		b->nacc += k;
		return;
	}
	memcpy(b->p, &b->acc, 8);
	b->p += 8;
	b->acc = b->nacc ? bits >> (64 - b->nacc) : 0;
	b->nacc = b->nacc + k - 64;
}

/* The valid bits of a row's last word. */
static uint64_t tail_mask(uint64_t nz)
{
	return nz % 64 ? ((uint64_t)1 << (nz % 64)) - 1 : ~(uint64_t)0;
}

static void encode_rows(const uint64_t *rows, uint64_t n, uint64_t nz,
			unsigned lead, unsigned char *buf)
{
	uint64_t words = (nz + 63) / 64, tail = tail_mask(nz);
	unsigned last = (unsigned)(nz - (words - 1) * 64);
	bitbuf b = {buf, 0, lead};
	for (uint64_t i = 0; i < n; i++, rows += words) {
		for (uint64_t w = 0; w + 1 < words; w++)
			put_bits(&b, rows[w], 64);
		put_bits(&b, rows[words - 1] & tail, last);
	}
	/* The last byte may end in pad bits. */
	for (unsigned i = 0; i < (b.nacc + 7) / 8; i++)
		*b.p++ = (unsigned char)(b.acc >> (8 * i));
}

/* The 64 bits of the stream from bit `at` on (bytes past the chunk's end
 * are read from its buffer's slack and belong to no row). */
static inline uint64_t bits_at(const unsigned char *p, uint64_t at)
{
	uint64_t v;
	unsigned s = (unsigned)(at & 7);
	p += at >> 3;
	memcpy(&v, p, 8);
	return s ? (v >> s) | ((uint64_t)p[8] << (64 - s)) : v;
}

static int decode_rows(const unsigned char *buf, unsigned lead, uint64_t n,
		       uint64_t nz, uint64_t *rows, const char *name,
		       uint64_t offset, l3d_err *err)
{
	uint64_t words = (nz + 63) / 64, tail = tail_mask(nz);
	for (uint64_t i = 0, at = lead; i < n; i++, at += nz, rows += words) {
		for (uint64_t w = 0; w < words; w++)
			rows[w] = bits_at(buf, at + 64 * w);
		rows[words - 1] &= tail;
	}
	return L3D_OK;
}

/* ---- writing ---- */

void native_build_header(unsigned char h[NATIVE_HEADER_BYTES], const native_header *nh)
{
	memset(h, 0, NATIVE_HEADER);
	memcpy(h, native_magic, sizeof native_magic);
	le_put32(h + 8, nh->version ? nh->version : NATIVE_VERSION);
	le_put32(h + 12, nh->header_bytes ? nh->header_bytes : NATIVE_HEADER);
	le_put64(h + 16, nh->nx);
	le_put64(h + 24, nh->ny);
	le_put64(h + 32, nh->nz);
	le_put64(h + 40, nh->generation);
	le_put32(h + 48, (nh->rule.birth & RULE_ALL_COUNTS) |
			     hood_code(&nh->rule) << NATIVE_HOOD_SHIFT);
	le_put32(h + 52, nh->rule.survive);
	le_put32(h + 56, nh->payload_crc);
	le_put32(h + 60, (uint32_t)crc32(0, h, 60));
}

static void build_stamp(unsigned char s[NATIVE_STAMP_BYTES], const run_stamp *st)
{
	memset(s, 0, NATIVE_STAMP_BYTES);
	le_put64(s, st->run_id);
	le_put64(s + 8, st->log_bytes);
	le_put32(s + 16, st->log_crc);
	le_put32(s + 28, (uint32_t)crc32(0, s, 28));
}

static int parse_stamp(const char *name, const unsigned char s[NATIVE_STAMP_BYTES],
		       run_stamp *st, l3d_err *err)
{
	uint32_t stored = le_get32(s + 28), computed = (uint32_t)crc32(0, s, 28);
	if (stored != computed)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad run stamp CRC (stored %08lx, computed %08lx)",
				name, (unsigned long)stored, (unsigned long)computed);
	static const unsigned char zero[8];
	if (memcmp(s + 20, zero, sizeof zero) != 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad run stamp (bytes 84 to 91 are not zero)", name);
	st->run_id = le_get64(s);
	st->log_bytes = le_get64(s + 8);
	st->log_crc = le_get32(s + 16);
	if (st->run_id == 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: run stamp without a run", name);
	return L3D_OK;
}

/* The comments block of text: its length, its CRC-32 and the text, with
 * zeros to a multiple of 8 bytes; returns its length (0: no text). */
static size_t put_comments(unsigned char *out, const char *text)
{
	size_t n = strlen(text);
	if (!n)
		return 0;
	size_t padded = (n + 7) / 8 * 8;
	le_put32(out, (uint32_t)n);
	le_put32(out + 4, (uint32_t)crc32(0, (const unsigned char *)text, (uInt)n));
	memcpy(out + NATIVE_COMMENTS_HEAD, text, n);
	memset(out + NATIVE_COMMENTS_HEAD + n, 0, padded - n);
	return NATIVE_COMMENTS_HEAD + padded;
}

/* The header of h: 64 bytes, then (version 2) its comments block, then
 * its run stamp if it has one. */
static size_t put_head(unsigned char out[FIXED_HEAD_MAX], fixed_head *h)
{
	bool stamped = h->meta.stamp.run_id != 0;
	size_t notes = put_comments(out + NATIVE_HEADER, h->meta.comments);
	native_header nh = {h->nx, h->ny, h->nz, h->generation, h->meta.rule, h->crc,
			    (uint32_t)(NATIVE_HEADER + notes + (stamped ? NATIVE_STAMP_BYTES : 0)),
			    notes ? NATIVE_VERSION_COMMENTS : NATIVE_VERSION};
	native_build_header(out, &nh);
	if (stamped)
		build_stamp(out + NATIVE_HEADER + notes, &h->meta.stamp);
	return h->bytes = nh.header_bytes;
}

static const unsigned char *encode(const payload_out *o, const uint64_t *rows,
				   uint64_t n, unsigned char *buf)
{
	/* Rows of whole words are their own bitstream. */
	if (o->src->nz % 64 == 0)
		return (const unsigned char *)rows;
	encode_rows(rows, n, o->src->nz, 0, buf);
	return buf;
}

int native_write(FILE *out, const char *name, const row_source *src,
		 const rule *r, l3d_err *err)
{
	payload_out o = {.name = name, .src = src, .cell_bits = 1,
			 .want_crc = true, .encode = encode};
	int rc = payload_write(&o, err);        /* pass 1: the CRC only */
	unsigned char h[FIXED_HEAD_MAX];
	fixed_head fh = {src->nx, src->ny, src->nz, src->generation,
			 {.rule = r ? *r : rule_default,
			  .stamp = src->stamp ? *src->stamp : (run_stamp){0}},
			 .crc = o.crc};
	snprintf(fh.meta.comments, sizeof fh.meta.comments, "%s",
		 src->comments ? src->comments : "");
	size_t n = put_head(h, &fh);
	if (!rc)
		rc = format_put(out, name, h, n, err);
	if (!rc) {
		o.out = out;
		o.want_crc = false;
		rc = payload_write(&o, err);
	}
	return rc ? rc : format_finish(out, name, err);
}

/* ---- reading ---- */

/* Counts within the neighbourhood's range, and a neighbourhood known. */
static int check_rule(const char *name, rule *r, l3d_err *err)
{
	if (r->hood == NATIVE_BUSYBOXES || r->hood == NATIVE_BUSYBOXES_WRAP) {
		r->family = r->hood == NATIVE_BUSYBOXES ? RULE_BUSYBOXES : RULE_BUSYBOXES_WRAP;
		r->hood = RULE_MOORE;
		if (r->birth | r->survive)
			return l3d_fail(err, L3D_ERR_DATA, "%s: bad rule masks B=%08lx S=%08lx "
					"(BusyBoxes has no counts)", name,
					(unsigned long)r->birth, (unsigned long)r->survive);
		return L3D_OK;
	}
	if (r->hood >= RULE_HOODS)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: unknown neighbourhood %lu in the rule (this life3d "
				"knows 0..%d)", name, (unsigned long)r->hood, RULE_HOODS - 1);
	unsigned max = rule_hood_max((rule_hood)r->hood);
	uint32_t allowed = (UINT32_C(1) << (max + 1)) - 1;
	if ((r->birth | r->survive) & ~allowed)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad rule masks B=%08lx S=%08lx (counts above %u)",
				name, (unsigned long)r->birth, (unsigned long)r->survive, max);
	return L3D_OK;
}

static int parse_header(const char *name, const unsigned char h[NATIVE_HEADER_BYTES],
			native_header *out, l3d_err *err)
{
	if (memcmp(h, native_magic, sizeof native_magic) != 0)
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad magic (not an .l3d file)", name);
	uint32_t version = le_get32(h + 8), size = le_get32(h + 12);
	if (version != NATIVE_VERSION && version != NATIVE_VERSION_COMMENTS)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: unsupported .l3d version %lu (this life3d reads versions 1 "
				"and 2)", name, (unsigned long)version);
	if (version == NATIVE_VERSION && size != NATIVE_HEADER &&
	    size != NATIVE_HEADER + NATIVE_STAMP_BYTES)
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad header size %lu (expected 64 or 96)",
				name, (unsigned long)size);
	if (version == NATIVE_VERSION_COMMENTS &&
	    (size % 8 || size < NATIVE_HEADER + NATIVE_COMMENTS_HEAD + 8 || size > FIXED_HEAD_MAX))
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad header size %lu (a version 2 "
				"header is a multiple of 8 bytes from 80 to %d)", name,
				(unsigned long)size, (int)FIXED_HEAD_MAX);
	uint32_t stored = le_get32(h + 60), computed = (uint32_t)crc32(0, h, 60);
	if (stored != computed)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad header CRC (stored %08lx, computed %08lx)",
				name, (unsigned long)stored, (unsigned long)computed);
	out->nx = le_get64(h + 16);
	out->ny = le_get64(h + 24);
	out->nz = le_get64(h + 32);
	out->generation = le_get64(h + 40);
	uint32_t birth = le_get32(h + 48);
	out->rule.birth = birth & ~NATIVE_HOOD_MASK;
	out->rule.survive = le_get32(h + 52);
	out->rule.hood = birth >> NATIVE_HOOD_SHIFT;
	out->payload_crc = le_get32(h + 56);
	out->header_bytes = size;
	out->version = version;
	int rc = check_rule(name, &out->rule, err);
	return rc ? rc : grid_check_size(out->nx, out->ny, out->nz, name, err);
}

/* The length of a comments block from its first 8 bytes. */
static uint64_t comments_block(const unsigned char b[NATIVE_COMMENTS_HEAD])
{
	return NATIVE_COMMENTS_HEAD + ((uint64_t)le_get32(b) + 7) / 8 * 8;
}

bool native_file_stamp(int fd, run_stamp *st)
{
	unsigned char h[NATIVE_HEADER], s[NATIVE_STAMP_BYTES], b[NATIVE_COMMENTS_HEAD];
	native_header nh;
	uint64_t at = NATIVE_HEADER;
	memset(st, 0, sizeof *st);
	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h ||
	    parse_header("", h, &nh, NULL) != L3D_OK)
		return false;
	if (nh.version == NATIVE_VERSION_COMMENTS) {
		if (pread(fd, b, sizeof b, NATIVE_HEADER) != (ssize_t)sizeof b)
			return false;
		at += comments_block(b);
	}
	if (nh.header_bytes != at + NATIVE_STAMP_BYTES ||
	    pread(fd, s, sizeof s, (off_t)at) != (ssize_t)sizeof s)
		return false;
	return parse_stamp("", s, st, NULL) == L3D_OK;
}

/* Comment lines as life3d writes them: each starts with '#' and ends in
 * '\n', and none holds a NUL. */
static bool comment_lines(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (text[i] == '\0' || ((i == 0 || text[i - 1] == '\n') && text[i] != '#'))
			return false;
	return n && text[n - 1] == '\n';
}

/* A version 2 header's comments block, into fh->meta.comments; the
 * header's length left for the stamp in *rest. */
static int read_comments(reader *r, fixed_head *fh, uint64_t *rest, l3d_err *err)
{
	unsigned char b[NATIVE_COMMENTS_HEAD], pad[8];
	int rc = reader_header(r, b, sizeof b, ".l3d comments", err);
	if (rc)
		return rc;
	uint64_t n = le_get32(b), block = comments_block(b);
	uint32_t stored = le_get32(b + 4);
	if (n == 0 || n >= META_COMMENTS_MAX || NATIVE_HEADER + block > fh->bytes ||
	    (fh->bytes - NATIVE_HEADER - block != 0 &&
	     fh->bytes - NATIVE_HEADER - block != NATIVE_STAMP_BYTES))
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad comments block (%llu bytes of "
				"text in a %llu-byte header; at most %d)", r->name,
				(unsigned long long)n, (unsigned long long)fh->bytes,
				META_COMMENTS_MAX - 1);
	char *text = fh->meta.comments;
	size_t padding = (size_t)(block - NATIVE_COMMENTS_HEAD - n);
	rc = reader_header(r, text, (size_t)n, ".l3d comments", err);
	if (!rc && padding)
		rc = reader_header(r, pad, padding, ".l3d comments", err);
	if (rc)
		return rc;
	text[n] = '\0';
	static const unsigned char zero[8];
	uint32_t computed = (uint32_t)crc32(0, (const unsigned char *)text, (uInt)n);
	if (stored != computed)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s: bad comments CRC (stored %08lx, computed %08lx)", r->name,
				(unsigned long)stored, (unsigned long)computed);
	if ((padding && memcmp(pad, zero, padding)) || !comment_lines(text, (size_t)n))
		return l3d_fail(err, L3D_ERR_DATA, "%s: bad comments block (not lines that "
				"start with '#', then zeros)", r->name);
	*rest = fh->bytes - NATIVE_HEADER - block;
	return L3D_OK;
}

static int short_payload(const char *name, uint64_t got, uint64_t total,
			 l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_DATA,
			"%s: truncated payload: expected %llu bytes, got %llu", name,
			(unsigned long long)total, (unsigned long long)got);
}

/* The header, the stamp of a checkpoint, and the file's length checked
 * against the payload the header claims before its memory is taken. */
static int read_head(reader *r, fixed_head *fh, l3d_err *err)
{
	unsigned char h[NATIVE_HEADER];
	native_header nh = {0};
	int rc = reader_header(r, h, sizeof h, ".l3d", err);
	if (!rc)
		rc = parse_header(r->name, h, &nh, err);
	*fh = (fixed_head){nh.nx, nh.ny, nh.nz, nh.generation,
			   {.has_rule = true, .rule = nh.rule}, nh.payload_crc,
			   nh.header_bytes};
	uint64_t rest = rc ? 0 : nh.header_bytes - NATIVE_HEADER;
	if (!rc && nh.version == NATIVE_VERSION_COMMENTS)
		rc = read_comments(r, fh, &rest, err);
	if (!rc && rest) {
		rc = reader_header(r, h, NATIVE_STAMP_BYTES, ".l3d run stamp", err);
		if (!rc)
			rc = parse_stamp(r->name, h, &fh->meta.stamp, err);
	}
	uint64_t payload = fixed_payload_bytes(&native_fixed, nh.nx * nh.ny * nh.nz);
	uint64_t have;
	if (!rc && reader_short(r, nh.header_bytes + payload, &have))
		rc = short_payload(r->name, have - nh.header_bytes, payload, err);
	return rc;
}

const format_fixed native_fixed = {
	.cell_bits = 1, .crc = true, .payload = NATIVE_PAYLOAD,
	.read_head = read_head, .put_head = put_head, .fits = NULL,
	.encode = encode_rows, .decode = decode_rows,
};

typedef struct native_in {
	payload_in in;           /* first: the hooks get a pointer to it */
	uint32_t stored_crc;
	unsigned char last;      /* the payload's last byte */
	unsigned used;           /* its bits that hold cells (0: all) */
} native_in;

static int decode(payload_in *in, uint64_t first, uint64_t n,
		  const unsigned char *bytes, size_t len, uint64_t offset,
		  l3d_err *err)
{
	grid *g = in->g;
	int rc = decode_rows(bytes, 0, n, g->nz, g->bits + first * g->words,
			     in->r->name, offset, err);
	/* Noted here, checked once the CRC is found good (a bad CRC says
	 * more about a file than its pad bits do). */
	if (first + n == g->nx * g->ny) {
		((native_in *)in)->last = bytes[len - 1];
		((native_in *)in)->used = (unsigned)(n * g->nz % 8);
	}
	return rc;
}

static int truncated(payload_in *in, uint64_t got, uint64_t total, l3d_err *err)
{
	return short_payload(in->r->name, got, total, err);
}

/* The stream's body: the payload, its CRC, its pad bits, then nothing. */
static int read_cells(void *ctx, row_progress *ready, l3d_err *err)
{
	native_in *n = ctx;
	reader *r = n->in.r;
	int rc = payload_read(&n->in, ready, err);
	if (!rc)
		rc = fixed_check_crc(r->name, n->stored_crc, n->in.crc, err);
	if (!rc)
		rc = fixed_check_pad(r->name, n->last, n->used, err);
	return rc ? rc : reader_expect_end(r, NATIVE_PAYLOAD, err);
}

int native_read_start(reader *r, grid *g, universe_meta *meta,
		      format_stream **out, l3d_err *err)
{
	fixed_head h;
	*out = NULL;
	memset(g, 0, sizeof *g);
	int rc = read_head(r, &h, err);
	if (!rc)
		rc = reader_alloc(r, g, h.nx, h.ny, h.nz, err);
	if (rc)
		return rc;
	g->generation = h.generation;
	if (meta) {
		meta->has_rule = true;
		meta->rule = h.meta.rule;
		meta->stamp = h.meta.stamp;
		memcpy(meta->comments, h.meta.comments, sizeof meta->comments);
	}
	native_in n = {{.r = r, .g = g, .cell_bits = 1, .want_crc = true,
			.decode = decode, .truncated = truncated},
		       h.crc, 0, 0};
	payload_place place = payload_place_of(r, 1);
	return format_stream_start(r, g, read_cells, &n, sizeof n, &place, out, err);
}

int native_read(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	format_stream *s;
	int rc = native_read_start(r, g, meta, &s, err);
	return rc ? rc : format_read_finish(s, NULL, err);
}
