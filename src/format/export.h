/* export.h - volume files for other tools, written only: VTK legacy
 * STRUCTURED_POINTS (ParaView, VisIt).  Its row in format.c's table names
 * what is here. */
#ifndef LIFE3D_FORMAT_EXPORT_H
#define LIFE3D_FORMAT_EXPORT_H

#include "io.h"

/* Detection: the first bytes are the format's magic (to refuse the file
 * by its name, not as unknown). */
bool vtk_looks(const unsigned char *p, size_t n);

/* The rule is not kept (format_caveats says so). */
int vtk_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err);

#endif
