/* export.h - volume files for other tools, written only: VTK legacy
 * STRUCTURED_POINTS (ParaView, VisIt) and NumPy .npy (uint8, C order). */
#ifndef LIFE3D_FORMAT_EXPORT_H
#define LIFE3D_FORMAT_EXPORT_H

#include "io.h"

int vtk_write(FILE *out, const char *name, const row_source *src, l3d_err *err);
int npy_write(FILE *out, const char *name, const row_source *src, l3d_err *err);

#endif
