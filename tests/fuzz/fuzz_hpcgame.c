/* fuzz_hpcgame.c - the HPCGame reader.
 *
 * The format has exactly one spelling of each universe, so whatever the
 * reader accepts must come back byte for byte from the writer. */
#include "fuzz.h"

const char fuzz_target[] = "hpcgame";

/* The layout read straight from the format's definition, independently of
 * the reader's row packing: byte 16 + (x*M + y)*M + z is cell (x, y, z). */
static void check_cells(const grid *g, const uint8_t *data)
{
	const uint8_t *cell = data + 16;
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++)
			for (uint64_t z = 0; z < g->nz; z++, cell++)
				fuzz_require(grid_get(g, x, y, z) == *cell,
					     "a cell differs from its byte");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	grid g;
	universe_meta meta;
	l3d_err err;
	if (fuzz_read(hpcgame_read, data, size, &g, &meta, &err) != L3D_OK)
		return 0;
	fuzz_require(!meta.has_rule, "an HPCGame file cannot carry a rule");
	fuzz_require(g.nx == g.ny && g.ny == g.nz, "an HPCGame universe is a cube");
	check_cells(&g, data);
	fuzz_rewrites_exactly(FMT_HPCGAME, &g, NULL, data, size);
	grid_free(&g);
	return 0;
}
