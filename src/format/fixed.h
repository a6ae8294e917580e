/* fixed.h - the formats whose cells lie at offsets their header gives
 * (HPCGame, .l3d), for code that places the cells itself: MPI-IO, each
 * rank its own rows (mpi/slab_io.c).
 *
 * Such a format's payload is every row in order, nz cells of cell_bits
 * bits each, rows back to back, payload bit b in bit b % 8 of byte b / 8,
 * right after a header.  The format's file gives the reader and writer of
 * its header and the codec of its rows (a format_fixed, in its row of
 * format.c's table: format_fixed_of), and its own reader and writer use
 * the same ones, so a file made in parts is the file made in one piece,
 * with the same messages.  What is left to the caller is where each byte
 * goes. */
#ifndef LIFE3D_FORMAT_FIXED_H
#define LIFE3D_FORMAT_FIXED_H

#include <stdbool.h>
#include <stdint.h>

#include "io.h"
#include "stream.h"

/* A header's contents.  Written from nx .. crc and meta's rule, stamp (a
 * run stamp, in a .l3d checkpoint, where stamp.run_id is not 0) and
 * comments (.l3d). */
typedef struct fixed_head {
	uint64_t nx, ny, nz, generation;
	universe_meta meta;      /* the rule of a .l3d file; a checkpoint's stamp */
	uint32_t crc;            /* .l3d: the payload's CRC-32 */
	uint64_t bytes;          /* the header's length: where the payload begins */
} fixed_head;

/* The longest header: a .l3d checkpoint's with the most comments. */
#define FIXED_HEAD_MAX (96 + 8 + META_COMMENTS_MAX)

typedef struct format_fixed {
	unsigned cell_bits;      /* 8: a byte a cell; 1: a bitstream */
	bool crc;                /* the header holds the payload's CRC-32 */
	const char *payload;     /* "trailing garbage after the <payload>" */
	/* Read and check the header of a file detected as this format, and
	 * refuse a regular file shorter than the header says (before the
	 * memory for its claim is taken): the format's own reader's checks. */
	int (*read_head)(reader *r, fixed_head *h, l3d_err *err);
	/* The header of h, in out; sets h->bytes and returns it.  Its length
	 * does not depend on crc. */
	size_t (*put_head)(unsigned char out[FIXED_HEAD_MAX], fixed_head *h);
	/* L3D_ERR_USAGE when the format cannot hold an nx*ny*nz universe
	 * (HPCGame: a cube only), with `name` in the message; NULL: any. */
	int (*fits)(const char *name, uint64_t nx, uint64_t ny, uint64_t nz,
		    l3d_err *err);
	/* n rows of nz cells in grid layout ((nz + 63) / 64 words a row) as
	 * the payload's bytes from bit `lead` of buf on (lead < 8; 0 where a
	 * cell is a byte): every byte they touch is written, the bits before
	 * lead as 0.  buf has PAYLOAD_SLACK bytes of room more. */
	void (*encode)(const uint64_t *rows, uint64_t n, uint64_t nz, unsigned lead,
		       unsigned char *buf);
	/* Back: n rows from the bytes at buf (PAYLOAD_SLACK more of them
	 * readable), whose first byte is byte `offset` of the payload, for the
	 * message about a byte that is no cell (L3D_ERR_DATA). */
	int (*decode)(const unsigned char *buf, unsigned lead, uint64_t n,
		      uint64_t nz, uint64_t *rows, const char *name, uint64_t offset,
		      l3d_err *err);
} format_fixed;

/* Bytes of the payload that holds `cells` cells. */
uint64_t fixed_payload_bytes(const format_fixed *fx, uint64_t cells);
/* The header's length for a file with (or, stamp NULL or of run 0,
 * without) a run stamp, and the comment lines `comments` (NULL: none). */
uint64_t fixed_head_bytes(const format_fixed *fx, const run_stamp *stamp,
			  const char *comments);
/* For a reader that does not read on to the end: L3D_ERR_DATA "trailing
 * garbage" when a regular file holds more than h's header and payload. */
int fixed_expect_size(const reader *r, const format_fixed *fx,
		      const fixed_head *h, l3d_err *err);
/* L3D_ERR_DATA "bad payload CRC" unless the two agree. */
int fixed_check_crc(const char *name, uint32_t stored, uint32_t computed,
		    l3d_err *err);
/* The payload's last byte, of which `used` low bits hold cells (0: all
 * eight): L3D_ERR_DATA when a bit above them is set. */
int fixed_check_pad(const char *name, unsigned char last, unsigned used,
		    l3d_err *err);

#endif
