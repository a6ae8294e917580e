/* vtkxml.h - VTK XML files for ParaView and VisIt, written only: an image
 * of the cells (.vti) and the live cells as points (.vtp), zlib-compressed
 * in VTK's appended binary, with VTK's X, Y, Z the cells' x, y, z and the
 * rule, its neighbourhood and the generation in the field data.  Their
 * rows in format.c's table name what is here; life3d-formats(5) says what
 * ParaView shows. */
#ifndef LIFE3D_FORMAT_VTKXML_H
#define LIFE3D_FORMAT_VTKXML_H

#include "io.h"

/* Detection: the XML declaration and VTKFile element of the type these
 * writers begin with (to refuse the file by its name, not as unknown). */
bool vti_looks(const unsigned char *p, size_t n);
bool vtp_looks(const unsigned char *p, size_t n);

/* ImageData: a cell is a voxel centred on its coordinates (Origin -0.5
 * from src->origin), CellData "alive" UInt8; or, when src->coarsen is k,
 * CellData "live" Float32, the live cells of each k^3 block, Spacing k. */
int vti_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err);

/* The host memory vti_write holds for an image of `cells` cells (0: of
 * counts, which coarse_counts' array and its compressed copy bound): a
 * slab of cells, a batch of blocks and their deflated copies, and the
 * compressed array, taken as a sixth of the cells (0/1 bytes deflate to
 * less at any density). */
uint64_t vti_bytes(uint64_t cells);

/* PolyData: a point and a vertex for each live cell, at its coordinates
 * (plus src->origin), x slowest and z fastest; no counts. */
int vtp_write(FILE *out, const char *name, const row_source *src,
	      const rule *r, l3d_err *err);

#endif
