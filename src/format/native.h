/* native.h - life3d's own format (.l3d): a 64-byte header (magic, sizes,
 * generation, rule, CRCs), in version 2 a block of comment lines, 32 more
 * bytes in a checkpoint (the run stamp), then one bit per cell
 * (life3d-formats(5)).  Its row in format.c's table
 * names what is here. */
#ifndef LIFE3D_FORMAT_NATIVE_H
#define LIFE3D_FORMAT_NATIVE_H

#include "fixed.h"
#include "io.h"
#include "stream.h"

/* Detection: the first n bytes are (a prefix of) the magic. */
bool native_looks(const unsigned char *p, size_t n);

int native_read(reader *r, grid *g, universe_meta *meta, l3d_err *err);
/* The header now, the cells on a stream (format.h: format_read_start). */
int native_read_start(reader *r, grid *g, universe_meta *meta,
		      format_stream **out, l3d_err *err);
int native_write(FILE *out, const char *name, const row_source *src,
		 const rule *r, l3d_err *err);

/* The header and the bitstream, for readers and writers at offsets
 * (fixed.h). */
extern const format_fixed native_fixed;

/* The header, for code that makes a file byte by byte (the tests). */
#define NATIVE_HEADER_BYTES 64
/* A checkpoint's header goes on for a run stamp (io.h): 96 bytes in all. */
#define NATIVE_STAMP_BYTES 32
typedef struct native_header {
	uint64_t nx, ny, nz, generation;
	rule rule;
	uint32_t payload_crc;
	uint32_t header_bytes;   /* 64, or 96 with a stamp (0 is taken as 64);
				    more with comments (version 2) */
	uint32_t version;        /* 1, or 2: a comments block after the 64
				    bytes (0 is taken as 1) */
} native_header;
void native_build_header(unsigned char h[NATIVE_HEADER_BYTES], const native_header *nh);
/* The stamp of the .l3d file open on fd (read at its start); false when
 * it is not a .l3d file with a good stamp. */
bool native_file_stamp(int fd, run_stamp *st);

#endif
