/* pngwrite.c - see pngwrite.h. */
#include "pngwrite.h"

#include <png.h>
#include <stdlib.h>

struct pngw {
	png_structp png;
	png_infop info;
	const char *name;
	char msg[200];             /* libpng's last error */
};

static void on_png_error(png_structp png, png_const_charp msg)
{
	pngw *w = png_get_error_ptr(png);
	snprintf(w->msg, sizeof w->msg, "%s", msg);
	png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}

static int failed(pngw *w, l3d_err *err)
{
	return l3d_fail(err, L3D_ERR_IO, "%s: PNG write error: %s", w->name, w->msg);
}

static void header(pngw *w, FILE *out, uint32_t width, uint32_t height,
		   const pngw_note *notes, int n_notes)
{
	png_init_io(w->png, out);
	/* Snapshots are written often during a run: a fast, light
	 * compression level keeps them off the critical path. */
	png_set_compression_level(w->png, 3);
	png_set_IHDR(w->png, w->info, width, height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_text text[16];
	int n = n_notes < 16 ? n_notes : 16;
	for (int i = 0; i < n; i++)
		text[i] = (png_text){.compression = PNG_TEXT_COMPRESSION_NONE,
				     .key = (png_charp)notes[i].key,
				     .text = (png_charp)notes[i].text};
	if (n)
		png_set_text(w->png, w->info, text, n);
	png_write_info(w->png, w->info);
}

int pngw_begin(pngw **out_w, FILE *out, const char *name,
		    uint32_t width, uint32_t height, const pngw_note *notes,
		    int n_notes, l3d_err *err)
{
	*out_w = NULL;
	if (width > PNGW_MAX_EDGE || height > PNGW_MAX_EDGE || !width || !height)
		return l3d_fail(err, L3D_ERR_USAGE, "%s: a %ux%u picture is more than PNG "
				"readers take (%u pixels a side)", name, width, height,
				PNGW_MAX_EDGE);
	pngw *w = calloc(1, sizeof *w);
	if (w)
		w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_png_error,
						 on_png_warning);
	if (w && w->png)
		w->info = png_create_info_struct(w->png);
	if (!w || !w->info) {
		pngw_free(w);
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", name);
	}
	w->name = name;
	*out_w = w;
	if (setjmp(png_jmpbuf(w->png)))
		return failed(w, err);
	header(w, out, width, height, notes, n_notes);
	return L3D_OK;
}

int pngw_rows(pngw *w, const uint8_t *rows, uint32_t n, size_t stride,
		   l3d_err *err)
{
	if (setjmp(png_jmpbuf(w->png)))
		return failed(w, err);
	for (uint32_t i = 0; i < n; i++)
		png_write_row(w->png, rows + i * stride);
	return L3D_OK;
}

int pngw_finish(pngw *w, l3d_err *err)
{
	if (setjmp(png_jmpbuf(w->png)))
		return failed(w, err);
	png_write_end(w->png, NULL);
	return L3D_OK;
}

void pngw_free(pngw *w)
{
	if (!w)
		return;
	png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
	free(w);
}
