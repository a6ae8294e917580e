/* snapshot.c - see snapshot.h. */
#include "snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"

/* libpng reports errors through longjmp; the message is kept here so the
 * caller can return an ordinary l3d_err. */
typedef struct png_ctx {
	char msg[200];
} png_ctx;

static void on_png_error(png_structp png, png_const_charp msg)
{
	png_ctx *ctx = png_get_error_ptr(png);
	snprintf(ctx->msg, sizeof ctx->msg, "%s", msg);
	png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

int png_write_gray(FILE *out, const char *name, const uint8_t *pixels,
		   uint64_t width, uint64_t height, l3d_err *err)
{
	if (width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX)
		return l3d_fail(err, L3D_ERR_USAGE, "%s: image %" PRIu64 "x%" PRIu64
				" is too large for PNG", name, width, height);
	png_ctx ctx = {""};
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx,
						  on_png_error, on_png_warning);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info) {
		png_destroy_write_struct(&png, NULL);
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", name);
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return l3d_fail(err, L3D_ERR_IO, "%s: PNG write error: %s", name,
				ctx.msg);
	}
	png_init_io(png, out);
	/* Snapshots are written often during a run: a fast, light
	 * compression level keeps them off the critical path. */
	png_set_compression_level(png, 3);
	png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
		     PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (uint64_t v = 0; v < height; v++)
		png_write_row(png, pixels + v * width);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return L3D_OK;
}

/* Grey levels for one view, one byte per cell, before scaling. */
static int render(engine *e, const snapshot_opts *o, uint64_t w, uint64_t h,
		  uint8_t *grey, l3d_err *err)
{
	if (o->kind == SNAP_SLICE) {
		int rc = engine_slice(e, o->axis, o->index, grey, err);
		for (uint64_t i = 0; !rc && i < w * h; i++)
			grey[i] = grey[i] ? 255 : 0;
		return rc;
	}
	uint32_t *counts = malloc(w * h * sizeof *counts);
	if (!counts)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = engine_project(e, o->axis, counts, err);
	/* Scale to the densest line, not to the depth: a sparse universe
	 * would otherwise be a black picture. */
	uint64_t top = 0;
	for (uint64_t i = 0; !rc && i < w * h; i++)
		top = counts[i] > top ? counts[i] : top;
	for (uint64_t i = 0; !rc && i < w * h; i++)
		grey[i] = top ? (uint8_t)(((uint64_t)counts[i] * 255 + top / 2) / top) : 0;
	free(counts);
	return rc;
}

static uint8_t *enlarge(const uint8_t *src, uint64_t w, uint64_t h, unsigned s)
{
	uint64_t W = w * s;
	uint8_t *dst = malloc(W * h * s);
	if (!dst)
		return NULL;
	for (uint64_t v = 0; v < h; v++) {
		uint8_t *row = dst + v * s * W;
		for (uint64_t u = 0; u < w; u++)
			memset(row + u * s, src[v * w + u], s);
		for (unsigned k = 1; k < s; k++)
			memcpy(row + k * W, row, W);
	}
	return dst;
}

int snapshot_write(engine *e, const snapshot_opts *o, uint64_t generation,
		   char *path, size_t path_size, l3d_err *err)
{
	grid dims = {.nx = e->nx, .ny = e->ny, .nz = e->nz};
	uint64_t w, h;
	grid_view_dims(&dims, o->axis, &w, &h);
	snprintf(path, path_size, "%s%0*" PRIu64 ".png", o->prefix,
		 (int)o->digits, generation);
	uint8_t *grey = malloc(w * h), *image = grey;
	if (!grey)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = render(e, o, w, h, grey, err);
	if (!rc && o->scale > 1) {
		image = enlarge(grey, w, h, o->scale);
		if (!image)
			rc = l3d_fail(err, L3D_ERR_RUNTIME,
				      "out of memory for a snapshot");
	}
	outfile f;
	if (!rc)
		rc = outfile_open(&f, path, o->force, true, err);
	if (!rc) {
		rc = png_write_gray(f.f, path, image, w * o->scale, h * o->scale, err);
		if (rc)
			outfile_abort(&f);
		else
			rc = outfile_commit(&f, err);
	}
	if (image != grey)
		free(image);
	free(grey);
	return rc;
}
