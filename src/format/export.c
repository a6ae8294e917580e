/* export.c - volume files for visualisation tools (write only).
 *
 * It takes the cells as bytes 0/1 in the grid's row order (x slowest, z
 * fastest), a chunk of rows at a time:
 *   VTK legacy STRUCTURED_POINTS (ParaView, VisIt): a cell is a voxel,
 *     CELL_DATA on a grid of (Z+1)x(Y+1)x(X+1) points, so every VTK filter
 *     (Threshold included) treats a live cell as one.  VTK's first axis
 *     varies fastest, so its i, j, k are life3d's z, y, x; that exchange
 *     alone would be a mirror image, so z is also reversed: cell (x, y, z)
 *     is voxel (Z-1-z, y, x), a quarter turn about y, and a chiral pattern
 *     keeps its hand.
 * It is not read; detection knows it by its magic, to say so. */
#include "export.h"
#include "stream.h"

#include <stdio.h>
#include <string.h>

#define VTK_MAGIC "# vtk"

bool vtk_looks(const unsigned char *p, size_t n)
{
	return n >= 5 && memcmp(p, VTK_MAGIC, 5) == 0;
}

int vtk_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err)
{
	char head[512];
	snprintf(head, sizeof head,
		 VTK_MAGIC " DataFile Version 3.0\n"
		 "life3d universe, generation %llu\n"
		 "BINARY\n"
		 "DATASET STRUCTURED_POINTS\n"
		 "DIMENSIONS %llu %llu %llu\n"
		 "ORIGIN 0 0 0\n"
		 "SPACING 1 1 1\n"
		 "CELL_DATA %llu\n"
		 "SCALARS alive unsigned_char 1\n"
		 "LOOKUP_TABLE default\n",
		 (unsigned long long)src->generation, (unsigned long long)src->nz + 1,
		 (unsigned long long)src->ny + 1, (unsigned long long)src->nx + 1,
		 (unsigned long long)(src->nx * src->ny * src->nz));
	int rc = format_puts(out, name, head, err);
	if (!rc)
		rc = format_put_cells_z_reversed(out, name, src, err);
	if (!rc)
		rc = format_puts(out, name, "\n", err);
	return rc ? rc : format_finish(out, name, err);
}
