/* native.h - life3d's own format (.l3d): a 64-byte header (magic, sizes,
 * generation, rule, CRCs), 32 more bytes in a checkpoint (the run stamp),
 * then one bit per cell (life3d-formats(5)). */
#ifndef LIFE3D_FORMAT_NATIVE_H
#define LIFE3D_FORMAT_NATIVE_H

#include "io.h"
#include "stream.h"

int native_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
/* The header now, the cells on a stream (format.h: format_read_start). */
int native_read_start(reader *r, grid *g, universe_meta *meta,
		      format_stream **out, l3d_err *err);
int native_write(FILE *out, const char *name, const row_source *src,
		 const rule *r, l3d_err *err);

/* The header, for readers and writers that handle the payload themselves
 * (mpi/slab_io.c). */
#define NATIVE_HEADER_BYTES 64
/* A checkpoint's header goes on for a run stamp (io.h): 96 bytes in all. */
#define NATIVE_STAMP_BYTES 32
typedef struct native_header {
	uint64_t nx, ny, nz, generation;
	rule rule;
	uint32_t payload_crc;
	uint32_t header_bytes;   /* 64, or 96 with a stamp (0 is taken as 64) */
} native_header;
void native_build_header(unsigned char h[NATIVE_HEADER_BYTES], const native_header *nh);
/* Checks magic, version, size (64 or 96), header CRC, rule masks and
 * sizes. */
int native_parse_header(const char *name, const unsigned char h[NATIVE_HEADER_BYTES],
			native_header *nh, l3d_err *err);
/* The 32 bytes after a 96-byte header's first 64. */
void native_build_stamp(unsigned char s[NATIVE_STAMP_BYTES], const run_stamp *st);
int native_parse_stamp(const char *name, const unsigned char s[NATIVE_STAMP_BYTES],
		       run_stamp *st, l3d_err *err);
/* The stamp of the .l3d file open on fd (read at its start); false when
 * it is not a .l3d file with a good stamp. */
bool native_file_stamp(int fd, run_stamp *st);

#endif
