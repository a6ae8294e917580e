/* snapshot.c - see snapshot.h. */
#include "snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <png.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/outfile.h"

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

static int write_png_gray(FILE *out, const char *name, const uint8_t *pixels,
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

/* Grey levels for one view, one byte per cell, before scaling: a slice's
 * cells are black or white; a projection is scaled to its densest line, not
 * to the depth, since a sparse universe would otherwise be a black
 * picture. */
static void to_grey(bool project, const void *view, uint64_t cells, uint8_t *grey)
{
	if (!project) {
		const uint8_t *c = view;
		for (uint64_t i = 0; i < cells; i++)
			grey[i] = c[i] ? 255 : 0;
		return;
	}
	const uint32_t *counts = view;
	uint64_t top = 0;
	for (uint64_t i = 0; i < cells; i++)
		top = counts[i] > top ? counts[i] : top;
	for (uint64_t i = 0; i < cells; i++)
		grey[i] = top ? (uint8_t)(((uint64_t)counts[i] * 255 + top / 2) / top) : 0;
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

/* A snapshot between taking the view and writing the file: the engine's
 * view (which may still be on its way from a GPU), so the stepping thread
 * only starts it and the rest happens on the snapshot thread. */
typedef struct picture {
	engine *e;               /* NULL: the view is there already */
	void *view;              /* uint32_t counts or uint8_t cells */
	bool own_view;           /* view is ours to free */
	bool project;
	uint64_t w, h;
	unsigned scale;
	bool force;
	char path[4096];
} picture;

/* Everything but the view and its size. */
static void frame(picture *pic, const snapshot_opts *o, uint64_t generation)
{
	pic->e = NULL;
	pic->project = o->kind != SNAP_SLICE;
	pic->scale = o->scale;
	pic->force = o->force;
	snprintf(pic->path, sizeof pic->path, "%s%0*" PRIu64 ".png", o->prefix,
		 (int)o->digits, generation);
}

static int take(engine *e, const snapshot_opts *o, uint64_t generation,
		picture *pic, l3d_err *err)
{
	grid dims = {.nx = e->nx, .ny = e->ny, .nz = e->nz};
	frame(pic, o, generation);
	grid_view_dims(&dims, o->axis, &pic->w, &pic->h);
	pic->e = e;
	pic->own_view = true;
	pic->view = malloc(pic->w * pic->h * (pic->project ? sizeof(uint32_t) : 1));
	if (!pic->view)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = engine_view_start(e, pic->project, o->axis, o->index, pic->view, err);
	if (rc) {
		free(pic->view);
		pic->view = NULL;
	}
	return rc;
}

/* The picture's grey levels, scaled up: one buffer of w*s x h*s bytes. */
static int develop_pixels(picture *pic, uint8_t **image, l3d_err *err)
{
	int rc = pic->e ? engine_view_wait(pic->e, err) : L3D_OK;
	uint8_t *grey = rc ? NULL : malloc(pic->w * pic->h);
	if (!rc && !grey)
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	if (rc)
		return rc;
	to_grey(pic->project, pic->view, pic->w * pic->h, grey);
	*image = grey;
	if (pic->scale > 1) {
		*image = enlarge(grey, pic->w, pic->h, pic->scale);
		free(grey);
		if (!*image)
			return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	}
	return L3D_OK;
}

/* Grey, scale, encode and write atomically; frees the picture. */
static int develop(picture *pic, l3d_err *err)
{
	uint8_t *image = NULL;
	int rc = develop_pixels(pic, &image, err);
	outfile f;
	if (!rc)
		rc = outfile_open(&f, pic->path, pic->force, true, err);
	if (!rc) {
		rc = write_png_gray(f.f, pic->path, image, pic->w * pic->scale,
				    pic->h * pic->scale, err);
		rc = rc ? (outfile_abort(&f), rc) : outfile_commit(&f, err);
	}
	free(image);
	if (pic->own_view)
		free(pic->view);
	pic->view = NULL;
	return rc;
}

int snapshot_write_view(const snapshot_opts *o, uint64_t generation,
			const void *view, uint64_t w, uint64_t h, char *path,
			size_t path_size, l3d_err *err)
{
	picture pic;
	frame(&pic, o, generation);
	pic.w = w;
	pic.h = h;
	pic.view = (void *)view;
	pic.own_view = false;
	snprintf(path, path_size, "%s", pic.path);
	return develop(&pic, err);
}

/* The snapshot being developed in the background: one at a time, so
 * memory stays bounded and files appear in order. */
static struct {
	pthread_t thread;
	bool running;
	picture pic;
	int rc;
	l3d_err err;
} pending;

static void *develop_pending(void *arg)
{
	(void)arg;
	pending.rc = develop(&pending.pic, &pending.err);
	return NULL;
}

int snapshot_wait(l3d_err *err)
{
	if (!pending.running)
		return L3D_OK;
	pthread_join(pending.thread, NULL);
	pending.running = false;
	if (pending.rc && err)
		*err = pending.err;
	return pending.rc;
}

int snapshot_start(engine *e, const snapshot_opts *o, uint64_t generation,
		   char *path, size_t path_size, l3d_err *err)
{
	int rc = snapshot_wait(err);
	if (!rc)
		rc = take(e, o, generation, &pending.pic, err);
	snprintf(path, path_size, "%s", pending.pic.path);
	if (rc)
		return rc;
	pending.rc = L3D_OK;
	pending.running = pthread_create(&pending.thread, NULL, develop_pending,
					 NULL) == 0;
	return pending.running ? L3D_OK : develop(&pending.pic, err);
}
