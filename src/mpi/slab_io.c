/* slab_io.c - see slab_io.h: a universe read and written by every rank.
 *
 * The formats at fixed offsets (format/fixed.h) hold the cells in x, y, z
 * order, so a rank's slab is one contiguous stretch of the payload: every
 * rank reads or writes its own stretch with collective MPI-IO, in rounds
 * of a few MiB, and no rank ever holds more than its slab.  Two things
 * need care where a cell is less than a byte (a bit, in .l3d):
 *  - a slab that starts at a bit index that is not a multiple of 8 shares
 *    its first byte with the rank before (with tiny planes, a byte may
 *    even span several ranks).  A byte belongs to the rank that holds its
 *    first bit; every rank sends the bits it has in a byte it does not own
 *    (its "head") to all, and the owner ORs them in before writing;
 *  - a header that holds the CRC-32 of the whole payload: each rank
 *    computes the CRC of the bytes it owns, and rank 0 joins them in rank
 *    order with crc32_combine.
 * Targets that cannot be written at offsets (stdout, a pipe, a device) get
 * the same bytes in file order, relayed through rank 0.  Input that cannot
 * be read at offsets (stdin) and formats without a fixed layout (RLE3; the
 * exports VTK and NumPy on output) pass through rank 0 whole.
 *
 * Every byte of a file is the format's business: headers are read,
 * checked and made, and rows turned into bytes and back, by the format's
 * own code (format_fixed_of), so the files and messages are those of one
 * process; what is here is where the bytes go. */
#include "slab_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/hostmem.h"
#include "base/outfile.h"
#include "comm.h"
#include "format/fixed.h"

#define CHUNK_BYTES ((uint64_t)4 << 20)


enum { TAG_RELAY = 200 };

/* ---- where a rank's cells lie in the file ---- */

typedef struct layout {
	const format_fixed *fx;
	uint64_t header;          /* bytes before the payload */
	uint64_t ny, nz;
	uint64_t rows;            /* this rank's (x, y) rows */
	uint64_t rows_per_chunk, chunks;
	uint64_t base, stride;    /* payload byte of chunk 0; bytes between chunks */
	unsigned lead;            /* bits of the first byte before our first cell */
} layout;

static void layout_init(layout *L, const format_fixed *fx, uint64_t header,
			uint64_t x0, uint64_t n, uint64_t ny, uint64_t nz)
{
	uint64_t bits = fx->cell_bits, first = x0 * ny * nz * bits;
	uint64_t k = CHUNK_BYTES / nz;
	k = k ? k : 1;
	/* Chunks of 8k / bits rows are k * nz bytes, so every chunk starts
	 * `lead` bits into a byte, like the first. */
	*L = (layout){.fx = fx, .header = header, .ny = ny, .nz = nz,
		      .rows = n * ny, .rows_per_chunk = 8 * k / bits,
		      .base = first / 8, .stride = k * nz,
		      .lead = (unsigned)(first % 8)};
	L->chunks = (L->rows + L->rows_per_chunk - 1) / L->rows_per_chunk;
}

/* Chunk j: its first row, its number of rows, the payload bytes it spans. */
static void chunk_span(const layout *L, uint64_t j, uint64_t *row, uint64_t *rows,
		       uint64_t *off, size_t *len)
{
	*row = j * L->rows_per_chunk;
	*rows = L->rows - *row < L->rows_per_chunk ? L->rows - *row : L->rows_per_chunk;
	*off = L->base + j * L->stride;
	*len = (size_t)((L->lead + *rows * L->nz * L->fx->cell_bits + 7) / 8);
}

/* A chunk's buffer, with the room the row codecs read and write past it. */
static unsigned char *chunk_buffer(const layout *L)
{
	return calloc(L->stride + 1 + PAYLOAD_SLACK, 1);
}

/* The bytes [*start, *end) of chunk j (of len bytes) that this rank owns.
 * A first byte shared with the previous rank is not ours; a byte shared
 * between two of our chunks counts in the first (reading) or is held back
 * until the second has filled it (writing). */
static void owned(const layout *L, uint64_t j, size_t len, bool writing,
		  size_t *start, size_t *end)
{
	bool shared = L->lead != 0;
	*start = shared && (j == 0 || !writing) ? 1 : 0;
	*end = shared && writing && j + 1 < L->chunks ? len - 1 : len;
	if (*start > *end)
		*start = *end;
}

/* ---- cells to bytes and back, by the format ---- */

static void encode_chunk(const layout *L, const grid *g, uint64_t j,
			 unsigned char *buf)
{
	uint64_t row, rows, off;
	size_t len;
	chunk_span(L, j, &row, &rows, &off, &len);
	L->fx->encode(g->bits + row * g->words, rows, L->nz, L->lead, buf);
}

static int decode_chunk(const layout *L, grid *g, uint64_t j,
			const unsigned char *buf, const char *name, l3d_err *err)
{
	uint64_t row, rows, off;
	size_t len;
	chunk_span(L, j, &row, &rows, &off, &len);
	return L->fx->decode(buf, L->lead, rows, L->nz, g->bits + row * g->words,
			     name, off, err);
}

/* ---- bits: the bytes shared between ranks, and the CRC ---- */

typedef struct head {
	uint64_t index, value;    /* payload byte and our bits in it; UINT64_MAX: none */
} head;

/* Our first byte, as the rows that reach into it make it (in buf). */
static head head_of(const layout *L, const grid *g, unsigned char *buf)
{
	head h = {UINT64_MAX, 0};
	if (L->lead == 0 || L->rows == 0)
		return h;
	uint64_t n = (8 - L->lead + L->nz - 1) / L->nz;
	L->fx->encode(g->bits, n < L->rows ? n : L->rows, L->nz, L->lead, buf);
	h.index = L->base;
	h.value = buf[0];
	return h;
}

/* The bits later ranks hold in our last byte.  `all` has room for a
 * head per rank; buf for a chunk. */
static unsigned char tail_bits(const layout *L, const grid *g, unsigned char *buf,
			       head *all)
{
	head mine = head_of(L, g, buf);
	MPI_Allgather(&mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, comm_world);
	uint64_t row, rows, off;
	size_t len;
	unsigned char bits = 0;
	if (L->chunks) {
		chunk_span(L, L->chunks - 1, &row, &rows, &off, &len);
		for (int r = comm_rank() + 1; r < comm_size(); r++)
			if (all[r].index == off + len - 1)
				bits |= (unsigned char)all[r].value;
	}
	return bits;
}

/* Rank 0 joins the ranks' CRCs of the bytes they own, in file order
 * (`all`: two words per rank, used on rank 0). */
static uint32_t combine_crcs(uint32_t crc, uint64_t bytes, uint64_t *all)
{
	uint64_t mine[2] = {crc, bytes};
	MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, comm_world);
	uLong total = crc32(0, NULL, 0);
	for (int r = 0; comm_rank() == 0 && r < comm_size(); r++)
		total = crc32_combine(total, (uLong)all[2 * r], (z_off_t)all[2 * r + 1]);
	return (uint32_t)total;
}

/* ---- headers ---- */

typedef struct source {
	fmt_id fmt;
	fixed_head head;          /* sizes, generation, rule, stamp, ...: every
				   * rank's, as rank 0 read them */
	bool whole;               /* rank 0 read it all */
	uint64_t size;            /* of the file, as rank 0 sees it */
} source;

/* Rank 0: what the input is.  Files at fixed offsets that can be read at
 * offsets: just the header, and the file's length checked, as it will not
 * be read to its end; anything else is read whole into *whole. */
static int probe(FILE *f, const char *path, const char *name,
		 const plane_place *place, source *s, grid *whole, l3d_err *err)
{
	reader r;
	reader_init(&r, f, name);
	if (place)
		r.place = *place;
	fmt_id id;
	int rc = format_detect(&r, &id, err);
	struct stat st;
	bool seekable = path && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	const format_fixed *fx = format_fixed_of(id);
	if (!rc && seekable && fx) {
		*s = (source){.fmt = id, .size = (uint64_t)st.st_size};
		rc = fx->read_head(&r, &s->head, err);
		return rc ? rc : fixed_expect_size(&r, fx, &s->head, err);
	}
	universe_meta meta = {0};
	if (!rc)
		rc = format_read(&r, whole, &meta, &id, err);
	*s = (source){.fmt = id, .head = {whole->nx, whole->ny, whole->nz,
					  whole->generation, meta},
		      .whole = true};
	return rc;
}

/* ---- reading ---- */

/* MPI_File_open hangs in Open MPI when it fails on some ranks only (a
 * path that one node does not see), so every rank first looks for the
 * file itself, and all agree, before the collective open.  `size`, when
 * not UINT64_MAX, is the length rank 0 saw: a different one means another
 * file of the same name, on a disk the nodes do not share. */
static int open_file(const char *path, const char *name, int amode, int code,
		     uint64_t size, MPI_File *fh, l3d_err *err)
{
	struct stat st;
	int rc = L3D_OK;
	*fh = MPI_FILE_NULL;
	if (stat(path, &st) != 0 || access(path, amode == MPI_MODE_RDONLY ? R_OK : W_OK) != 0)
		rc = l3d_fail(err, code, "%s: cannot open: %s (every rank must see the file)",
			      name, strerror(errno));
	else if (size != UINT64_MAX && (uint64_t)st.st_size != size)
		rc = l3d_fail(err, code,
			      "%s: %llu bytes here but %llu on rank 0: not the same file (every rank must see the same file system)",
			      name, (unsigned long long)st.st_size, (unsigned long long)size);
	rc = comm_agree(rc, err);
	if (rc)
		return rc;
	char what[4200];
	snprintf(what, sizeof what, "%s: cannot open", name);
	int mrc = MPI_File_open(comm_world, path, amode, MPI_INFO_NULL, fh);
	if (mrc != MPI_SUCCESS)
		*fh = MPI_FILE_NULL;
	return comm_agree(mrc == MPI_SUCCESS ? L3D_OK : comm_mpi_fail(mrc, code, what, err), err);
}

static int read_error(int mrc, const char *name, l3d_err *err)
{
	char what[4200];
	snprintf(what, sizeof what, "%s: read error", name);
	return comm_mpi_fail(mrc, L3D_ERR_IO, what, err);
}

/* All ranks read their chunks in rounds (collective calls need everyone,
 * so a rank with fewer chunks reads nothing in the last rounds). */
static int read_rounds(MPI_File fh, const layout *L, grid *g, unsigned char *buf,
		       const char *name, uint32_t *crc, uint64_t *owned_bytes,
		       l3d_err *err)
{
	uint64_t rounds = L->chunks;
	MPI_Allreduce(&L->chunks, &rounds, 1, MPI_UINT64_T, MPI_MAX, comm_world);
	int rc = L3D_OK;
	for (uint64_t j = 0; j < rounds; j++) {
		uint64_t row, rows = 0, off = 0;
		size_t len = 0, start, end;
		if (j < L->chunks)
			chunk_span(L, j, &row, &rows, &off, &len);
		MPI_Status st;
		int got = 0, mrc = MPI_File_read_at_all(fh, (MPI_Offset)(L->header + off),
							buf, (int)len, MPI_BYTE, &st);
		if (mrc == MPI_SUCCESS)
			MPI_Get_count(&st, MPI_BYTE, &got);
		if (!rc && mrc != MPI_SUCCESS)
			rc = read_error(mrc, name, err);
		else if (!rc && (size_t)got != len)
			rc = l3d_fail(err, L3D_ERR_IO, "%s: read error: short read", name);
		if (rc || j >= L->chunks)
			continue;
		rc = decode_chunk(L, g, j, buf, name, err);
		owned(L, j, len, false, &start, &end);
		*crc = (uint32_t)crc32(*crc, buf + start, (uInt)(end - start));
		*owned_bytes += end - start;
		/* The bits after the last cell of the file must be zero. */
		unsigned used = (unsigned)((L->lead + rows * L->nz * L->fx->cell_bits) % 8);
		if (!rc && j + 1 == L->chunks && comm_rank() == comm_size() - 1)
			rc = fixed_check_pad(name, buf[len - 1], used, err);
	}
	return rc;
}

static int read_at_offsets(const char *path, const char *name, const source *s,
			   grid *slab, uint64_t x0, l3d_err *err)
{
	layout L;
	const format_fixed *fx = format_fixed_of(s->fmt);
	layout_init(&L, fx, s->head.bytes, x0, slab->nx, s->head.ny, s->head.nz);
	MPI_File fh = MPI_FILE_NULL;
	unsigned char *buf = chunk_buffer(&L);
	uint64_t *peers = malloc(16 * (size_t)comm_size());
	int rc = buf && peers ? L3D_OK
		 : l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", name);
	rc = comm_agree(rc, err);
	if (!rc)
		rc = open_file(path, name, MPI_MODE_RDONLY, L3D_ERR_NOINPUT, s->size, &fh, err);
	uint32_t crc = (uint32_t)crc32(0, NULL, 0);
	uint64_t bytes = 0;
	if (!rc)
		rc = read_rounds(fh, &L, slab, buf, name, &crc, &bytes, err);
	if (fh != MPI_FILE_NULL)
		MPI_File_close(&fh);
	free(buf);
	rc = comm_agree(rc, err);
	if (!rc && fx->crc)
		crc = combine_crcs(crc, bytes, peers);
	free(peers);
	if (rc || !fx->crc)
		return rc;
	if (comm_rank() == 0)
		rc = fixed_check_crc(name, s->head.crc, crc, err);
	return comm_agree(rc, err);
}

int slab_io_read(FILE *f, const char *path, const char *name,
		 const plane_place *place, grid *slab, uint64_t *x0, uint64_t *nx,
		 universe_meta *meta, fmt_id *format, l3d_err *err)
{
	source s = {0};
	grid whole = {0};
	memset(slab, 0, sizeof *slab);
	memset(meta, 0, sizeof *meta);
	int rc = comm_rank() == 0 ? probe(f, path, name, place, &s, &whole, err) : L3D_OK;
	rc = comm_agree(rc, err);
	uint64_t n = 0;
	if (!rc) {
		MPI_Bcast(&s, (int)sizeof s, MPI_BYTE, 0, comm_world);
		rc = comm_split(s.head.nx, name, x0, &n, err);
	}
	if (!rc)
		rc = comm_agree(grid_alloc(slab, n, s.head.ny, s.head.nz, err), err);
	if (!rc && s.whole)
		comm_scatter_slabs(&whole, slab);
	else if (!rc)
		rc = read_at_offsets(path, name, &s, slab, *x0, err);
	grid_free(&whole);
	*format = s.fmt;
	if (rc) {
		grid_free(slab);
		return rc;
	}
	slab->generation = s.head.generation;
	*nx = s.head.nx;
	*meta = s.head.meta;
	return L3D_OK;
}

/* ---- writing ---- */

/* Where the bytes go: a file every rank writes at offsets, or rank 0's
 * stream, which the other ranks' bytes reach in file order. */
typedef struct target {
	MPI_File fh;              /* MPI_FILE_NULL: relay */
	FILE *f;                  /* rank 0, relay */
	const char *name;
} target;

/* One pass over this rank's chunks; with `t` NULL it computes the CRC of
 * the owned bytes only. */
typedef struct writer {
	const layout *L;
	const grid *g;
	unsigned char *buf, carry, tail;
	uint32_t crc;
	uint64_t bytes;
	uint64_t *peers;          /* two words per rank */
} writer;

/* Chunk j ready in w->buf; *start and *end bound the bytes to write. */
static void next_chunk(writer *w, uint64_t j, uint64_t *off, size_t *start,
		       size_t *end)
{
	const layout *L = w->L;
	uint64_t row, rows;
	size_t len;
	chunk_span(L, j, &row, &rows, off, &len);
	encode_chunk(L, w->g, j, w->buf);
	if (L->lead && j > 0)
		w->buf[0] |= w->carry;
	if (j + 1 == L->chunks)
		w->buf[len - 1] |= w->tail;
	else if (L->lead)
		w->carry = w->buf[len - 1];
	owned(L, j, len, true, start, end);
	w->crc = (uint32_t)crc32(w->crc, w->buf + *start, (uInt)(*end - *start));
	w->bytes += *end - *start;
}

/* An MPI-IO call (`call`) failed: its library's words, which for an I/O
 * error may be no more than MPI_ERR_OTHER, and which call it was. */
static int write_error(int mrc, const char *call, const char *name, l3d_err *err)
{
	char what[4200];
	snprintf(what, sizeof what, "%s: write error in %s", name, call);
	return comm_mpi_fail(mrc, L3D_ERR_IO, what, err);
}

/* A write at an offset: an error, or fewer bytes than asked (MPI-IO
 * reports a short write on a full disk as a success), is a write error. */
static int check_write(int mrc, const char *call, MPI_Status *st, size_t want,
		       const char *name, l3d_err *err)
{
	if (mrc != MPI_SUCCESS)
		return write_error(mrc, call, name, err);
	int got = 0;
	MPI_Get_count(st, MPI_BYTE, &got);
	if (got >= 0 && (size_t)got == want)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_IO,
			"%s: write error: %d of %zu bytes written (is the disk full?)",
			name, got, want);
}

static int write_rounds(writer *w, const target *t, l3d_err *err)
{
	uint64_t rounds = w->L->chunks;
	MPI_Allreduce(&w->L->chunks, &rounds, 1, MPI_UINT64_T, MPI_MAX, comm_world);
	int rc = L3D_OK;
	for (uint64_t j = 0; j < rounds; j++) {
		uint64_t off = 0;
		size_t start = 0, end = 0;
		if (j < w->L->chunks)
			next_chunk(w, j, &off, &start, &end);
		MPI_Status st;
		int mrc = MPI_File_write_at_all(t->fh,
						(MPI_Offset)(w->L->header + off + start),
						w->buf + start, (int)(end - start),
						MPI_BYTE, &st);
		if (!rc)
			rc = check_write(mrc, "MPI_File_write_at_all", &st, end - start,
					 t->name, err);
	}
	return rc;
}

/* Every rank's owned bytes to rank 0, which writes them in order (and
 * drains the others after a write error, so nobody waits forever). */
static int write_relayed(writer *w, const target *t, uint64_t nx, l3d_err *err)
{
	int rc = L3D_OK;
	for (uint64_t j = 0; j < w->L->chunks; j++) {
		uint64_t off;
		size_t start, end;
		next_chunk(w, j, &off, &start, &end);
		if (comm_rank() != 0)
			MPI_Send(w->buf + start, (int)(end - start), MPI_BYTE, 0,
				 TAG_RELAY, comm_world);
		else if (!rc)
			rc = format_put(t->f, t->name, w->buf + start, end - start, err);
	}
	for (int r = 1; comm_rank() == 0 && r < comm_size(); r++) {
		uint64_t x0, n;
		layout other;
		comm_slab_of(nx, comm_size(), r, &x0, &n);
		layout_init(&other, w->L->fx, w->L->header, x0, n, w->L->ny, w->L->nz);
		for (uint64_t j = 0; j < other.chunks; j++) {
			MPI_Status st;
			int len;
			MPI_Recv(w->buf, (int)(other.stride + 1), MPI_BYTE, r,
				 TAG_RELAY, comm_world, &st);
			MPI_Get_count(&st, MPI_BYTE, &len);
			if (!rc)
				rc = format_put(t->f, t->name, w->buf, (size_t)len, err);
		}
	}
	return rc;
}

/* The header, once the payload's CRC is known, of d's generation, rule
 * and comments; a checkpoint's with its run stamp. */
static int put_header(const target *t, const layout *L, const grid *u,
		      const universe_dest *d, uint32_t crc, l3d_err *err)
{
	unsigned char h[FIXED_HEAD_MAX];
	fixed_head fh = {u->nx, u->ny, u->nz, d->generation,
			 {.rule = d->rule ? *d->rule : rule_default,
			  .stamp = d->stamp ? *d->stamp : (run_stamp){0}},
			 .crc = crc};
	snprintf(fh.meta.comments, sizeof fh.meta.comments, "%s",
		 d->comments ? d->comments : "");
	size_t n = L->fx->put_head(h, &fh);
	if (t->fh == MPI_FILE_NULL)
		return format_put(t->f, t->name, h, n, err);
	MPI_Status st;
	int mrc = MPI_File_write_at(t->fh, 0, h, (int)n, MPI_BYTE, &st);
	return check_write(mrc, "MPI_File_write_at", &st, n, t->name, err);
}

/* Payload and header.  A relayed file whose header holds the payload's
 * CRC makes a first pass for it, as the header comes first in the stream. */
static int write_payload(writer *w, const target *t, const grid *u,
			 const universe_dest *d, l3d_err *err)
{
	bool relay = t->fh == MPI_FILE_NULL, crc_first = w->L->fx->crc;
	int rc = L3D_OK;
	uint32_t crc = 0;
	if (relay && crc_first) {
		for (uint64_t j = 0; j < w->L->chunks; j++) {
			uint64_t off;
			size_t start, end;
			next_chunk(w, j, &off, &start, &end);
		}
		crc = combine_crcs(w->crc, w->bytes, w->peers);
		w->crc = (uint32_t)crc32(0, NULL, 0);
		w->bytes = 0;
	}
	if (relay && comm_rank() == 0)
		rc = put_header(t, w->L, u, d, crc, err);
	int prc = relay ? write_relayed(w, t, u->nx, err) : write_rounds(w, t, err);
	rc = rc ? rc : prc;
	if (!relay && crc_first)
		crc = combine_crcs(w->crc, w->bytes, w->peers);
	if (!relay && comm_rank() == 0 && !rc)
		rc = put_header(t, w->L, u, d, crc, err);
	return rc;
}

/* Rank 0 opens the target; a regular file (written through a temporary)
 * is then opened by every rank for MPI-IO. */
static int open_target(outfile *out, target *t, const char *path, outfile_may may,
		       fmt_id f, l3d_err *err)
{
	int rc = L3D_OK;
	size_t len = 0;
	char tmp[4200];
	memset(out, 0, sizeof *out);
	*t = (target){MPI_FILE_NULL, NULL, path};
	if (comm_rank() == 0) {
		rc = outfile_open_may(out, path, may, comm_tty_guard(format_is_binary(f)), err);
		t->f = out->f;
		t->name = out->name;
		/* Every rank opens the temporary by a path without links. */
		if (!rc && out->tmp && outfile_tmp_real_path(out, tmp, sizeof tmp) != 0) {
			outfile_abort(out);
			rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: path too long", path);
		}
		len = !rc && out->tmp ? strlen(tmp) + 1 : 0;
	}
	rc = comm_agree(rc, err);
	if (rc)
		return rc;
	MPI_Bcast(&len, 1, MPI_UINT64_T, 0, comm_world);
	if (len == 0)
		return L3D_OK;
	if (len > sizeof tmp)
		rc = l3d_fail(err, L3D_ERR_CANTCREAT, "%s: path too long", path);
	if (!rc)
		MPI_Bcast(tmp, (int)len, MPI_CHAR, 0, comm_world);
	if (!rc)
		rc = open_file(tmp, path, MPI_MODE_WRONLY, L3D_ERR_CANTCREAT,
			       UINT64_MAX, &t->fh, err);
	if (rc && comm_rank() == 0)
		outfile_abort(out);
	return rc;
}

/* Rank 0 makes room for the whole file before any rank writes, so a full
 * disk (or quota) is an error here, with its reason, and not a short
 * write later: Open MPI's default MPI-IO reports those as successes.  A
 * file system that cannot reserve room is written all the same, and
 * checked for its size after (file_complete). */
static int reserve(const outfile *out, uint64_t bytes, l3d_err *err)
{
	if (bytes > INT64_MAX || fallocate(fileno(out->f), 0, 0, (off_t)bytes) == 0 ||
	    errno == EOPNOTSUPP || errno == ENOSYS)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", out->name, strerror(errno));
}

/* Whether the written file has all its bytes. */
static int file_complete(const outfile *out, uint64_t bytes, l3d_err *err)
{
	struct stat st;
	if (fstat(fileno(out->f), &st) != 0)
		return l3d_fail(err, L3D_ERR_IO, "%s: write error: %s", out->name,
				strerror(errno));
	if ((uint64_t)st.st_size == bytes)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_IO,
			"%s: write error: %llu of %llu bytes written (is the disk full?)",
			out->name, (unsigned long long)st.st_size, (unsigned long long)bytes);
}

static int write_fixed(const grid *u, const grid *slab, uint64_t x0, const universe_dest *d,
		       l3d_err *err)
{
	const char *path = d->path;
	const run_stamp *stamp = d->stamp;
	const format_fixed *fx = format_fixed_of(d->format);
	int rc = fx->fits ? fx->fits(path, u->nx, u->ny, u->nz, err) : L3D_OK;
	if (rc)
		return rc;
	layout L;
	layout_init(&L, fx, fixed_head_bytes(fx, stamp, d->comments), x0, slab->nx, u->ny, u->nz);
	writer w = {&L, slab, chunk_buffer(&L), 0, 0,
		    (uint32_t)crc32(0, NULL, 0), 0, malloc(16 * (size_t)comm_size())};
	rc = w.buf && w.peers ? L3D_OK
	     : l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	rc = comm_agree(rc, err);
	if (!rc && fx->cell_bits < 8)      /* ranks share bytes */
		w.tail = tail_bits(&L, slab, w.buf, (head *)w.peers);
	outfile out;
	target t;
	if (!rc)
		rc = open_target(&out, &t, path, d->may, d->format, err);
	if (rc) {                /* nothing is open */
		free(w.buf);
		free(w.peers);
		return rc;
	}
	uint64_t bytes = L.header + fixed_payload_bytes(fx, u->nx * u->ny * u->nz);
	if (t.fh != MPI_FILE_NULL)
		rc = comm_agree(comm_rank() == 0 ? reserve(&out, bytes, err) : L3D_OK, err);
	if (!rc)
		rc = write_payload(&w, &t, u, d, err);
	free(w.buf);
	free(w.peers);
	if (t.fh != MPI_FILE_NULL) {      /* every rank's bytes on the disk */
		rc = comm_agree(rc, err);
		int mrc = rc ? MPI_SUCCESS : MPI_File_sync(t.fh);
		if (!rc && mrc != MPI_SUCCESS)
			rc = write_error(mrc, "MPI_File_sync", path, err);
		mrc = MPI_File_close(&t.fh);
		if (!rc && mrc != MPI_SUCCESS)
			rc = write_error(mrc, "MPI_File_close", path, err);
		if (!rc && comm_rank() == 0)
			rc = file_complete(&out, bytes, err);
	}
	rc = comm_agree(rc, err);
	if (comm_rank() == 0) {
		rc = rc ? (outfile_abort(&out), rc) : outfile_commit(&out, err);
		if (d->kept && out.kept)
			*d->kept = true;
	}
	return comm_agree(rc, err);
}

/* Formats without a fixed layout: rank 0 gathers the universe. */
static int alloc_whole(const grid *u, fmt_id f, const char *path, grid *whole,
		       l3d_err *err)
{
	grid dims = {.nx = u->nx, .ny = u->ny, .nz = u->nz, .words = (u->nz + 63) / 64};
	char what[4200];
	snprintf(what, sizeof what,
		 "%s: %s output is written by rank 0 alone, and the whole %llux%llux%llu universe",
		 path, format_name(f), (unsigned long long)u->nx,
		 (unsigned long long)u->ny, (unsigned long long)u->nz);
	l3d_err mem;
	char kinds[64];
	if (host_memory_check(grid_bytes(&dims), what, &mem))
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s (%s files are written by every rank at once)", mem.msg,
				format_fixed_kinds(kinds, sizeof kinds));
	return grid_alloc(whole, u->nx, u->ny, u->nz, err);
}

static int write_gathered(const grid *u, const grid *slab, const universe_dest *d,
			  l3d_err *err)
{
	grid whole = {0};
	fmt_id f = d->format;
	int rc = comm_rank() == 0 ? alloc_whole(u, f, d->path, &whole, err) : L3D_OK;
	rc = comm_agree(rc, err);
	if (!rc)
		comm_gather_slabs(slab, &whole);
	outfile out;
	if (!rc && comm_rank() == 0) {
		whole.generation = d->generation;
		rc = outfile_open_may(&out, d->path, d->may,
				      comm_tty_guard(format_is_binary(f)), err);
		if (!rc) {
			row_source src;
			row_source_of_grid(&src, &whole);
			src.comments = d->comments;
			rc = format_write_view(out.f, out.name, f, &src, d->rule, d->view, err);
			rc = rc ? (outfile_abort(&out), rc) : outfile_commit(&out, err);
			if (d->kept && out.kept)
				*d->kept = true;
		}
	}
	grid_free(&whole);
	return comm_agree(rc, err);
}

int slab_io_write(const grid *slab, uint64_t x0, uint64_t nx, const universe_dest *d,
		  l3d_err *err)
{
	grid u = {.nx = nx, .ny = slab->ny, .nz = slab->nz, .words = slab->words};
	if (format_fixed_of(d->format) && !d->view)
		return write_fixed(&u, slab, x0, d, err);
	return write_gathered(&u, slab, d, err);
}
