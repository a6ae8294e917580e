/* fuzz_native.c - the native .l3d reader.
 *
 * Every field of the header is checked and the pad bits must be zero, so
 * an accepted file is the writer's own output, byte for byte.  Two CRCs
 * guard the header and payload; mutations rarely keep them right, so each
 * input runs a second time with both CRCs recomputed, which lets the
 * fuzzer reach the size checks and the payload decoder. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

const char fuzz_target[] = "native";

#define HEADER 64

/* The bitstream read straight from the format's definition: cell number
 * i = (x*ny + y)*nz + z is bit i%8 of payload byte i/8. */
static void check_cells(const grid *g, const uint8_t *payload)
{
	uint64_t i = 0;
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			for (uint64_t z = 0; z < g->nz; z++, i++)
				fuzz_require(grid_get(g, x, y, z) ==
					     (payload[i / 8] >> (i % 8) & 1),
					     "a cell differs from its bit");
}

static void read_and_check(const uint8_t *data, size_t size)
{
	grid g;
	universe_meta meta;
	l3d_err err;
	if (fuzz_read(native_read, data, size, &g, &meta, &err) != L3D_OK)
		return;
	fuzz_require(meta.has_rule, "an .l3d file always carries a rule");
	/* the payload after the header, its comments and its stamp */
	check_cells(&g, data + le_get32(data + 12));
	fuzz_rewrites_exactly(FMT_NATIVE, &g, &meta, data, size);
	grid_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_and_check(data, size);
	if (size < HEADER)
		return 0;
	unsigned char *fixed = malloc(size);
	fuzz_require(fixed != NULL, "out of memory copying the input");
	memcpy(fixed, data, size);
	/* The payload CRC lies inside the header CRC's span: it goes first.
	 * The payload begins where the header's size says, when it can. */
	size_t at = le_get32(fixed + 12);
	at = at >= HEADER && at <= size ? at : HEADER;
	le_put32(fixed + 56, (uint32_t)crc32(0, fixed + at, (uInt)(size - at)));
	le_put32(fixed + 60, (uint32_t)crc32(0, fixed, 60));
	read_and_check(fixed, size);
	free(fixed);
	return 0;
}
