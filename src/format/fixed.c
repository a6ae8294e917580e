/* fixed.c - see fixed.h: what the formats at fixed offsets share. */
#include "fixed.h"

#include <stdio.h>

uint64_t fixed_payload_bytes(const format_fixed *fx, uint64_t cells)
{
	return cells / 8 * fx->cell_bits + (cells % 8 * fx->cell_bits + 7) / 8;
}

uint64_t fixed_head_bytes(const format_fixed *fx, const run_stamp *stamp,
			  const char *comments)
{
	unsigned char h[FIXED_HEAD_MAX];
	fixed_head fh = {.meta.stamp = stamp ? *stamp : (run_stamp){0}};
	snprintf(fh.meta.comments, sizeof fh.meta.comments, "%s", comments ? comments : "");
	return fx->put_head(h, &fh);
}

int fixed_expect_size(const reader *r, const format_fixed *fx,
		      const fixed_head *h, l3d_err *err)
{
	uint64_t cells = h->nx * h->ny * h->nz;
	return reader_expect_size(r, h->bytes + fixed_payload_bytes(fx, cells),
				  fx->payload, err);
}

int fixed_check_crc(const char *name, uint32_t stored, uint32_t computed,
		    l3d_err *err)
{
	if (stored == computed)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_DATA,
			"%s: bad payload CRC (stored %08lx, computed %08lx)", name,
			(unsigned long)stored, (unsigned long)computed);
}

int fixed_check_pad(const char *name, unsigned char last, unsigned used,
		    l3d_err *err)
{
	if (!used || !(last >> used))
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_DATA, "%s: nonzero pad bits after the last cell",
			name);
}
