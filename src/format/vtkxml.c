/* vtkxml.c - VTK XML image data (.vti) and poly data (.vtp), written only.
 *
 * Both are VTK's "appended raw" layout, compressed as VTK's
 * vtkZLibDataCompressor does: each array is cut into blocks of BLOCK bytes
 * (the last one shorter), each block deflated on its own by zlib, and the
 * array stored as a header of UInt64s (the number of blocks, BLOCK, the
 * last block's size, each block's compressed size) followed by the
 * blocks.  The XML comes first and gives each array's offset, so every
 * array is compressed in memory before anything is written: a file costs
 * its compressed size in memory (little, for the sparse universes these
 * formats are for).
 *
 * VTK's image data orders cells with x fastest, life3d's rows z fastest:
 * the image's cells are made a slab of z planes at a time, each slab one
 * pass over the rows (SLAB bytes of cells a pass). */
#include "vtkxml.h"
#include "view.h"

#include "base/pool.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define BLOCK ((size_t)1 << 20)
#define SLAB ((uint64_t)1 << 26)
#define XML_DECL "<?xml version=\"1.0\"?>\n<VTKFile "

static bool looks(const unsigned char *p, size_t n, const char *type)
{
	size_t d = sizeof XML_DECL - 1, t = strlen(type);
	return n >= d + t && memcmp(p, XML_DECL, d) == 0 && memcmp(p + d, type, t) == 0;
}

bool vti_looks(const unsigned char *p, size_t n)
{
	return looks(p, n, "type=\"ImageData\"");
}

bool vtp_looks(const unsigned char *p, size_t n)
{
	return looks(p, n, "type=\"PolyData\"");
}

/* ---- compressed arrays ----
 * Blocks are deflated a batch at a time, one thread a block (each block is
 * deflated alone, so the bytes do not depend on how many). */

#define BATCH_MOST 16

typedef struct zarray {
	unsigned char *raw;        /* the batch being filled: `fill` bytes */
	size_t fill, batch;        /* room: batch blocks */
	unsigned char *z;          /* the compressed blocks, back to back */
	size_t zlen, zroom;
	uint64_t *sizes;           /* each block's compressed size */
	size_t blocks, sroom;
	size_t last;               /* the last block's size */
	unsigned char *out[BATCH_MOST];   /* each thread's deflated block */
	bool failed;               /* out of memory */
} zarray;

static bool grow(void **p, size_t *room, size_t need, size_t each)
{
	if (need <= *room)
		return true;
	size_t r = *room ? *room : 16;
	while (r < need)
		r *= 2;
	void *q = realloc(*p, r * each);
	if (!q)
		return false;
	*p = q;
	*room = r;
	return true;
}

typedef struct zjob {
	const unsigned char *in;
	size_t len;
	unsigned char *out;
	uLongf out_len;
	bool ok;
} zjob;

static void *deflate_block(void *arg)
{
	zjob *j = arg;
	j->out_len = compressBound(j->len);
	j->ok = j->out && compress2(j->out, &j->out_len, j->in, j->len, Z_BEST_SPEED) == Z_OK;
	return NULL;
}

/* Deflate the batch's blocks, each on a thread of its own, and append
 * them in order. */
static void zarray_flush(zarray *a)
{
	if (a->failed || !a->fill)
		return;
	size_t n = (a->fill + BLOCK - 1) / BLOCK;
	zjob jobs[BATCH_MOST];
	pthread_t threads[BATCH_MOST];
	bool started[BATCH_MOST] = {false};
	for (size_t i = 0; i < n; i++) {
		size_t len = a->fill - i * BLOCK < BLOCK ? a->fill - i * BLOCK : BLOCK;
		if (!a->out[i])
			a->out[i] = malloc(compressBound(BLOCK));
		jobs[i] = (zjob){.in = a->raw + i * BLOCK, .len = len, .out = a->out[i]};
		started[i] = i > 0 && pthread_create(&threads[i], NULL, deflate_block, &jobs[i]) == 0;
		if (!started[i])
			deflate_block(&jobs[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (started[i])
			pthread_join(threads[i], NULL);
		if (!jobs[i].ok ||
		    !grow((void **)&a->z, &a->zroom, a->zlen + jobs[i].out_len, 1) ||
		    !grow((void **)&a->sizes, &a->sroom, a->blocks + 1, sizeof *a->sizes))
			a->failed = true;
		if (!a->failed) {
			memcpy(a->z + a->zlen, jobs[i].out, jobs[i].out_len);
			a->zlen += jobs[i].out_len;
			a->sizes[a->blocks++] = jobs[i].out_len;
			a->last = jobs[i].len;
		}
	}
	a->fill = 0;
}

static void zarray_put(zarray *a, const void *p, size_t n)
{
	const unsigned char *b = p;
	if (!a->raw) {
		int cores = cpu_count();
		a->batch = cores < 1 ? 1 : cores > BATCH_MOST ? BATCH_MOST : (size_t)cores;
		if (!(a->raw = malloc(a->batch * BLOCK)))
			a->failed = true;
	}
	while (n && !a->failed) {
		size_t room = a->batch * BLOCK - a->fill;
		size_t take = room < n ? room : n;
		memcpy(a->raw + a->fill, b, take);
		a->fill += take;
		b += take;
		n -= take;
		if (a->fill == a->batch * BLOCK)
			zarray_flush(a);
	}
}

static int zarray_end(zarray *a, const char *name, l3d_err *err)
{
	zarray_flush(a);
	free(a->raw);
	a->raw = NULL;
	return a->failed ? l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory compressing it",
				    name)
			 : L3D_OK;
}

static uint64_t zarray_bytes(const zarray *a)
{
	return 8 * (3 + (uint64_t)a->blocks) + a->zlen;
}

static int zarray_write(FILE *out, const char *name, const zarray *a, l3d_err *err)
{
	unsigned char head[24];
	le_put64(head, a->blocks);
	le_put64(head + 8, BLOCK);
	le_put64(head + 16, a->last);
	int rc = format_put(out, name, head, sizeof head, err);
	for (size_t i = 0; !rc && i < a->blocks; i++) {
		le_put64(head, a->sizes[i]);
		rc = format_put(out, name, head, 8, err);
	}
	return rc ? rc : format_put(out, name, a->z, a->zlen, err);
}

static void zarray_free(zarray *a)
{
	for (int i = 0; i < BATCH_MOST; i++)
		free(a->out[i]);
	free(a->raw);
	free(a->z);
	free(a->sizes);
}

static void put_f32(zarray *a, float v)
{
	uint32_t u;
	unsigned char b[4];
	memcpy(&u, &v, 4);
	le_put32(b, u);
	zarray_put(a, b, 4);
}

static void put_i64(zarray *a, uint64_t v)
{
	unsigned char b[8];
	le_put64(b, v);
	zarray_put(a, b, 8);
}

/* ---- the XML ---- */

/* A string field array: VTK's ASCII form of a vtkStringArray is the
 * string's bytes as numbers, then a 0. */
static void put_string(char *buf, size_t size, const char *name, const char *text)
{
	size_t n = strlen(buf);
	n += (size_t)snprintf(buf + n, size - n,
			      "      <Array type=\"String\" Name=\"%s\" NumberOfTuples=\"1\" "
			      "format=\"ascii\">\n        ", name);
	for (const unsigned char *c = (const unsigned char *)text; *c && n < size; c++)
		n += (size_t)snprintf(buf + n, size - n, "%u ", *c);
	if (n < size)
		snprintf(buf + n, size - n, "0\n      </Array>\n");
}

static void field_data(char *buf, size_t size, const row_source *src, const rule *r)
{
	char text[128], golly[128];
	rule_format(r, text, sizeof text);
	rule_format_golly(r, golly, sizeof golly);
	snprintf(buf, size, "    <FieldData>\n");
	put_string(buf, size, "rule", text);
	put_string(buf, size, "golly_rule", golly);
	put_string(buf, size, "neighbourhood",
		   rule_is_busyboxes(r) ? "BusyBoxes" : rule_hood_name((rule_hood)r->hood));
	size_t n = strlen(buf);
	snprintf(buf + n, size - n,
		 "      <DataArray type=\"UInt64\" Name=\"generation\" NumberOfTuples=\"1\" "
		 "format=\"ascii\">\n        %" PRIu64 "\n      </DataArray>\n"
		 "    </FieldData>\n", src->generation);
}

static const char *head_of(const char *type)
{
	static char head[256];
	snprintf(head, sizeof head,
		 XML_DECL "type=\"%s\" version=\"1.0\" byte_order=\"LittleEndian\" "
		 "header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">\n", type);
	return head;
}

/* The XML, then the arrays after the '_' of the appended data. */
static int write_file(FILE *out, const char *name, const char *xml,
		      const zarray *arrays, int n, l3d_err *err)
{
	int rc = format_puts(out, name, xml, err);
	rc = rc ? rc : format_puts(out, name, "  <AppendedData encoding=\"raw\">\n   _", err);
	for (int i = 0; !rc && i < n; i++)
		rc = zarray_write(out, name, &arrays[i], err);
	rc = rc ? rc : format_puts(out, name, "\n  </AppendedData>\n</VTKFile>\n", err);
	return rc ? rc : format_finish(out, name, err);
}

/* ---- .vti ---- */

uint64_t vti_bytes(uint64_t cells)
{
	uint64_t batch = (uint64_t)BATCH_MOST * (BLOCK + compressBound(BLOCK));
	return (cells < SLAB ? cells : SLAB) + batch + cells / 6;
}

/* A slab of z planes [z0, z0 + n) of the image, x fastest. */
typedef struct slab {
	unsigned char *cells;
	uint64_t z0, n, nx, plane;
} slab;

static int slab_row(void *ctx, uint64_t x, uint64_t y, const uint64_t *row,
		    l3d_err *err)
{
	(void)err;
	slab *s = ctx;
	uint64_t end = s->z0 + s->n;
	for (uint64_t w = s->z0 / 64; w * 64 < end; w++) {
		uint64_t v = row[w];
		while (v) {
			uint64_t z = w * 64 + (uint64_t)__builtin_ctzll(v);
			v &= v - 1;
			if (z >= s->z0 && z < end)
				s->cells[(z - s->z0) * s->plane + y * s->nx + x] = 1;
		}
	}
	return L3D_OK;
}

static int image_cells(const row_source *src, zarray *a, l3d_err *err)
{
	slab s = {.nx = src->nx, .plane = src->nx * src->ny};
	s.n = SLAB / s.plane ? SLAB / s.plane : 1;
	if (s.n > src->nz)
		s.n = src->nz;
	s.cells = malloc(s.n * s.plane);
	int rc = s.cells ? L3D_OK
			 : l3d_fail(err, L3D_ERR_RUNTIME, "out of memory writing VTK's image");
	for (; !rc && s.z0 < src->nz; s.z0 += s.n) {
		if (s.n > src->nz - s.z0)
			s.n = src->nz - s.z0;
		memset(s.cells, 0, s.n * s.plane);
		rc = rows_pass(src, slab_row, &s, err);
		zarray_put(a, s.cells, s.n * s.plane);
	}
	free(s.cells);
	return rc;
}

static int image_counts(const row_source *src, zarray *a, uint64_t dims[3],
			l3d_err *err)
{
	float *c;
	int rc = coarse_counts(src, src->coarsen, &c, dims, err);
	for (uint64_t z = 0; !rc && z < dims[2]; z++)
		for (uint64_t y = 0; y < dims[1]; y++)
			for (uint64_t x = 0; x < dims[0]; x++)
				put_f32(a, c[(x * dims[1] + y) * dims[2] + z]);
	free(c);
	return rc;
}

int vti_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err)
{
	zarray a = {0};
	uint64_t k = src->coarsen ? src->coarsen : 1;
	uint64_t dims[3] = {src->nx, src->ny, src->nz};
	int rc = src->coarsen ? image_counts(src, &a, dims, err) : image_cells(src, &a, err);
	rc = rc ? rc : zarray_end(&a, name, err);
	char *xml = rc ? NULL : malloc(8192);
	if (!rc && !xml)
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", name);
	if (!rc) {
		char ext[128], fields[4096];
		snprintf(ext, sizeof ext, "0 %" PRIu64 " 0 %" PRIu64 " 0 %" PRIu64, dims[0],
			 dims[1], dims[2]);
		field_data(fields, sizeof fields, src, r);
		const char *array = src->coarsen ? "live" : "alive";
		snprintf(xml, 8192,
			 "%s  <ImageData WholeExtent=\"%s\" Origin=\"%.1f %.1f %.1f\" "
			 "Spacing=\"%" PRIu64 " %" PRIu64 " %" PRIu64 "\" "
			 "Direction=\"1 0 0 0 1 0 0 0 1\">\n%s"
			 "    <Piece Extent=\"%s\">\n"
			 "      <CellData Scalars=\"%s\">\n"
			 "        <DataArray type=\"%s\" Name=\"%s\" format=\"appended\" offset=\"0\"/>\n"
			 "      </CellData>\n"
			 "    </Piece>\n"
			 "  </ImageData>\n",
			 head_of("ImageData"), ext, (double)src->origin[0] - 0.5,
			 (double)src->origin[1] - 0.5, (double)src->origin[2] - 0.5, k, k, k,
			 fields, ext, array, src->coarsen ? "Float32" : "UInt8", array);
		rc = write_file(out, name, xml, &a, 1, err);
	}
	free(xml);
	zarray_free(&a);
	return rc;
}

/* ---- .vtp ---- */

typedef struct points {
	zarray *a;
	uint64_t n, origin[3];
	uint64_t nz;
} points;

static int points_row(void *ctx, uint64_t x, uint64_t y, const uint64_t *row,
		      l3d_err *err)
{
	(void)err;
	points *p = ctx;
	for (uint64_t w = 0; w * 64 < p->nz; w++)
		for (uint64_t v = row[w]; v; v &= v - 1) {
			uint64_t z = w * 64 + (uint64_t)__builtin_ctzll(v);
			put_f32(p->a, (float)(p->origin[0] + x));
			put_f32(p->a, (float)(p->origin[1] + y));
			put_f32(p->a, (float)(p->origin[2] + z));
			p->n++;
		}
	return L3D_OK;
}

int vtp_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err)
{
	zarray a[3] = {{0}};
	points p = {.a = &a[0], .nz = src->nz};
	memcpy(p.origin, src->origin, sizeof p.origin);
	int rc = rows_pass(src, points_row, &p, err);
	for (uint64_t i = 0; !rc && i < p.n; i++) {
		put_i64(&a[1], i);
		put_i64(&a[2], i + 1);
	}
	for (int i = 0; i < 3; i++)
		rc = rc ? rc : zarray_end(&a[i], name, err);
	if (!rc) {
		char xml[8192], fields[4096];
		field_data(fields, sizeof fields, src, r);
		snprintf(xml, sizeof xml,
			 "%s  <PolyData>\n%s"
			 "    <Piece NumberOfPoints=\"%" PRIu64 "\" NumberOfVerts=\"%" PRIu64 "\" "
			 "NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
			 "      <Points>\n"
			 "        <DataArray type=\"Float32\" Name=\"Points\" NumberOfComponents=\"3\" "
			 "format=\"appended\" offset=\"0\"/>\n"
			 "      </Points>\n"
			 "      <Verts>\n"
			 "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"appended\" "
			 "offset=\"%" PRIu64 "\"/>\n"
			 "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"appended\" "
			 "offset=\"%" PRIu64 "\"/>\n"
			 "      </Verts>\n"
			 "    </Piece>\n"
			 "  </PolyData>\n",
			 head_of("PolyData"), fields, p.n, p.n, zarray_bytes(&a[0]),
			 zarray_bytes(&a[0]) + zarray_bytes(&a[1]));
		rc = write_file(out, name, xml, a, 3, err);
	}
	for (int i = 0; i < 3; i++)
		zarray_free(&a[i]);
	return rc;
}
