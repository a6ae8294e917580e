/* snapshot.c - see snapshot.h. */
#include "snapshot.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/outfile.h"
#include "base/pipeline.h"
#include "base/pool.h"
#include "base/render.h"
#include "pngwrite.h"

/* A render is drawn in bands of about this many bytes, several per
 * thread. */
#define BAND_BYTES ((uint64_t)1 << 20)
/* Bytes of a projection or slice encoded between two looks at the stop
 * flag (about 10 ms of work). */
#define GROUP_BYTES ((uint64_t)1 << 20)
/* A render drawn by the engine (engine_renders(): a GPU's) comes back
 * whole; it is taken that way when it is no larger than this or than a
 * copy of the universe, else drawn on the host from a copy, in bands. */
#define WHOLE_RENDER_BYTES ((uint64_t)64 << 20)

static const char *const kind_names[] = {"projection", "slice", "render"};

static uint64_t axis_length(const uint64_t n[3], int axis)
{
	return n[axis];
}

/* Pixels of a snapshot at a given scale. */
static void picture_size(const snapshot_opts *o, const uint64_t n[3], uint64_t scale,
			 uint64_t *w, uint64_t *h)
{
	if (o->kind == SNAP_RENDER) {
		render_size(n[0], n[1], n[2], o->azimuth, o->elevation, scale, w, h);
		return;
	}
	grid dims = {.nx = n[0], .ny = n[1], .nz = n[2]};
	grid_view_dims(&dims, o->axis, w, h);
	*w *= scale;
	*h *= scale;
}

/* The smallest scale whose picture is `size` pixels or more on its long
 * side (every picture grows with the scale). */
static uint64_t scale_for(const snapshot_opts *o, const uint64_t n[3], uint64_t size)
{
	uint64_t w, h, s = 1;
	picture_size(o, n, 1, &w, &h);
	uint64_t longest = w > h ? w : h;
	if (o->kind != SNAP_RENDER)
		return longest >= size ? 1 : (size + longest - 1) / longest;
	while (longest < size && s < size) {
		picture_size(o, n, ++s, &w, &h);
		longest = w > h ? w : h;
	}
	return s;
}

static int render_threads(const snapshot_opts *o)
{
	return o->threads > 0 ? o->threads : cpu_count();
}

/* Rows a band of a render holds: about BAND_BYTES, and at least four
 * bands a thread so the threads finish together. */
static uint64_t band_rows(const snapshot_opts *o, uint64_t w, uint64_t h)
{
	uint64_t rows = BAND_BYTES / (3 * w);
	uint64_t share = (h + 4 * (uint64_t)render_threads(o) - 1) /
			 (4 * (uint64_t)render_threads(o));
	rows = rows < share ? rows : share;
	return rows ? rows : 1;
}

/* Whether a render of w x h pixels may come from the engine whole. */
static bool whole_render(const uint64_t n[3], uint64_t w, uint64_t h)
{
	grid dims = {.nx = n[0], .ny = n[1], .nz = n[2], .words = (n[2] + 63) / 64};
	uint64_t bytes = 3 * w * h;
	return bytes <= WHOLE_RENDER_BYTES || bytes <= grid_bytes(&dims);
}

static int band_slots(const snapshot_opts *o, uint64_t w, uint64_t h)
{
	uint64_t rows = band_rows(o, w, h), chunks = (h + rows - 1) / rows;
	return pipeline_slots(render_threads(o), chunks, rows * w * 3);
}

int snapshot_fit(snapshot_opts *o, const uint64_t n[3], uint64_t size,
		 uint64_t *bytes, l3d_err *err)
{
	if (!o->scale)
		o->scale = scale_for(o, n, size);
	if (!o->max)
		o->max = axis_length(n, o->axis);
	uint64_t w, h;
	picture_size(o, n, o->scale, &w, &h);
	if (w > PNGW_MAX_EDGE || h > PNGW_MAX_EDGE || o->scale > PNGW_MAX_EDGE)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s snapshots of a %" PRIu64 "x%" PRIu64 "x%" PRIu64
				" universe at %" PRIu64 " pixel%s a cell would be %" PRIu64
				"x%" PRIu64 " pixels; a PNG may have at most %u a side",
				kind_names[o->kind], n[0], n[1], n[2], o->scale,
				o->scale == 1 ? "" : "s", w, h, PNGW_MAX_EDGE);
	grid dims = {.nx = n[0], .ny = n[1], .nz = n[2]};
	uint64_t vw, vh;
	grid_view_dims(&dims, o->axis, &vw, &vh);
	if (o->kind == SNAP_RENDER) {
		dims.words = (n[2] + 63) / 64;
		*bytes = grid_bytes(&dims) + (uint64_t)band_slots(o, w, h) *
			 band_rows(o, w, h) * w * 3;
		/* drawn by the engine: the picture, and its pinned copy */
		if (whole_render(n, w, h) && 6 * w * h > *bytes)
			*bytes = 6 * w * h;
	} else {
		*bytes = vw * vh * (o->kind == SNAP_PROJECTION ? sizeof(uint32_t) : 1) + 3 * w;
	}
	return L3D_OK;
}

/* ---- the picture's text ---- */

static int notes(const snapshot_opts *o, const uint64_t n[3], uint64_t gen,
		 pngw_note *t)
{
	static const char axes[] = "xyz";
	static const char *const across[] = {"y right, z down", "x right, z down",
					     "x right, y down"};
	int k = 0;
	t[k].key = "Title";
	snprintf(t[k++].text, sizeof t->text, "life3d %s, generation %" PRIu64,
		 kind_names[o->kind], gen);
	t[k].key = "Software";
	snprintf(t[k++].text, sizeof t->text, "life3d %s", PACKAGE_VERSION);
	t[k].key = "Generation";
	snprintf(t[k++].text, sizeof t->text, "%" PRIu64, gen);
	t[k].key = "Rule";
	snprintf(t[k++].text, sizeof t->text, "%s", o->rule);
	t[k].key = "Universe";
	snprintf(t[k++].text, sizeof t->text, "%" PRIu64 "x%" PRIu64 "x%" PRIu64,
		 n[0], n[1], n[2]);
	t[k].key = "Kind";
	snprintf(t[k++].text, sizeof t->text, "%s", kind_names[o->kind]);
	t[k].key = "Scale";
	snprintf(t[k++].text, sizeof t->text, "%" PRIu64, o->scale);
	if (o->kind == SNAP_RENDER) {
		t[k].key = "View";
		snprintf(t[k++].text, sizeof t->text,
			 "azimuth %g, elevation %g degrees; z up", o->azimuth, o->elevation);
		return k;
	}
	t[k].key = "Axis";
	snprintf(t[k++].text, sizeof t->text, "%c", axes[o->axis]);
	t[k].key = "Orientation";
	snprintf(t[k++].text, sizeof t->text, "%s", across[o->axis]);
	if (o->kind == SNAP_SLICE) {
		t[k].key = "Index";
		snprintf(t[k++].text, sizeof t->text, "%" PRIu64, o->index);
	} else {
		t[k].key = "Maximum";
		snprintf(t[k++].text, sizeof t->text, "%" PRIu64, o->max);
	}
	return k;
}

/* ---- a picture between taking the view and writing the file ---- */

typedef struct picture {
	engine *e;               /* NULL: the view is there already */
	void *view;              /* uint32_t counts or uint8_t cells, or a
	                            render's rgb pixels when drawn */
	bool drawn;              /* a render the engine draws into view */
	render_view rv;          /* its view */
	bool own_view;           /* view is ours to free */
	grid copy;               /* a render's universe, when ours */
	const grid *universe;    /* a render's universe */
	snapshot_opts o;
	uint64_t n[3], gen;
	uint64_t w, h;           /* the view, in cells */
	char path[4096];
} picture;

/* Everything but the view. */
static void frame(picture *pic, const snapshot_opts *o, const uint64_t n[3],
		  uint64_t generation)
{
	memset(pic, 0, sizeof *pic);
	pic->o = *o;
	memcpy(pic->n, n, sizeof pic->n);
	pic->gen = generation;
	grid dims = {.nx = n[0], .ny = n[1], .nz = n[2]};
	grid_view_dims(&dims, o->axis, &pic->w, &pic->h);
	snprintf(pic->path, sizeof pic->path, "%s%0*" PRIu64 ".png", o->prefix,
		 (int)o->digits, generation);
}

static int stopped(const picture *pic, l3d_err *err)
{
	if (pic->o.stop && *pic->o.stop)
		return l3d_fail(err, L3D_ERR_INTERRUPTED, "%s: abandoned: interrupted",
				pic->path);
	return L3D_OK;
}

/* One row of cells in colour, each cell `scale` pixels wide. */
static void colour_row(const picture *pic, uint64_t v, uint8_t *row)
{
	uint64_t s = pic->o.scale;
	for (uint64_t u = 0; u < pic->w; u++) {
		uint64_t i = v * pic->w + u;
		uint64_t count = pic->o.kind == SNAP_PROJECTION ? ((const uint32_t *)pic->view)[i]
				 : ((const uint8_t *)pic->view)[i];
		uint64_t max = pic->o.kind == SNAP_PROJECTION ? pic->o.max : 1;
		uint8_t rgb[3] = {0, 0, 0};
		if (count)
			colormap_rgb(colormap_index(count, max), rgb);
		for (uint64_t k = 0; k < s; k++)
			memcpy(row + 3 * (u * s + k), rgb, 3);
	}
}

static int write_view(picture *pic, pngw *png, l3d_err *err)
{
	uint8_t *row = malloc(3 * pic->w * pic->o.scale);
	if (!row)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = L3D_OK;
	uint64_t group = GROUP_BYTES / (3 * pic->w * pic->o.scale);
	group = group ? group : 1;
	for (uint64_t v = 0; v < pic->h && !rc; v++) {
		colour_row(pic, v, row);
		/* A large scale repeats a row many times: a stop is seen
		 * between groups of rows, not only between rows of cells. */
		for (uint64_t k = 0; k < pic->o.scale && !rc; k += group) {
			uint64_t n = pic->o.scale - k < group ? pic->o.scale - k : group;
			rc = stopped(pic, err);
			if (!rc)
				rc = pngw_rows(png, row, (uint32_t)n, 0, err);
		}
	}
	free(row);
	return rc;
}

/* ---- a render, drawn in bands on several threads ---- */

typedef struct bands {
	picture *pic;
	pngw *png;
	render_view view;
	uint64_t rows;           /* per band */
	uint8_t *slot[PIPELINE_MAX_SLOTS];
} bands;

static int draw_band(void *ctx, uint64_t chunk, int slot, l3d_err *err)
{
	(void)err;
	bands *b = ctx;
	uint64_t first = chunk * b->rows, left = b->view.height - first;
	render_rows(&b->view, b->pic->universe, (uint32_t)first,
		    (uint32_t)(left < b->rows ? left : b->rows), b->slot[slot]);
	return L3D_OK;
}

static int write_band(void *ctx, uint64_t chunk, int slot, l3d_err *err)
{
	bands *b = ctx;
	uint64_t first = chunk * b->rows, left = b->view.height - first;
	int rc = stopped(b->pic, err);
	return rc ? rc : pngw_rows(b->png, b->slot[slot],
					(uint32_t)(left < b->rows ? left : b->rows),
					3 * (size_t)b->view.width, err);
}

static int write_render(picture *pic, pngw *png, l3d_err *err)
{
	bands b = {.pic = pic, .png = png};
	const snapshot_opts *o = &pic->o;
	render_setup(&b.view, pic->n[0], pic->n[1], pic->n[2], o->azimuth, o->elevation,
		     o->scale);
	b.rows = band_rows(o, b.view.width, b.view.height);
	uint64_t chunks = (b.view.height + b.rows - 1) / b.rows;
	pipeline p = {.work = draw_band, .consume = write_band, .ctx = &b,
		      .chunks = chunks, .slots = band_slots(o, b.view.width, b.view.height),
		      .threads = render_threads(o)};
	int rc = L3D_OK;
	for (int s = 0; s < p.slots && !rc; s++)
		if (!(b.slot[s] = malloc(b.rows * b.view.width * 3)))
			rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	if (!rc)
		rc = pipeline_run(&p, err);
	for (int s = 0; s < p.slots; s++)
		free(b.slot[s]);
	return rc;
}

/* A render the engine drew, whole in pic->view. */
static int write_drawn(picture *pic, pngw *png, l3d_err *err)
{
	const render_view *v = &pic->rv;
	size_t stride = 3 * (size_t)v->width;
	uint64_t group = GROUP_BYTES / stride;
	group = group ? group : 1;
	int rc = L3D_OK;
	for (uint64_t j = 0; j < v->height && !rc; j += group) {
		uint64_t n = v->height - j < group ? v->height - j : group;
		rc = stopped(pic, err);
		if (!rc)
			rc = pngw_rows(png, (const uint8_t *)pic->view + j * stride, (uint32_t)n,
				       stride, err);
	}
	return rc;
}

/* Draw, encode and write atomically; frees the picture's buffers. */
static int develop(picture *pic, l3d_err *err)
{
	bool waits = pic->e && (pic->o.kind != SNAP_RENDER || pic->drawn);
	int rc = waits ? engine_view_wait(pic->e, err) : L3D_OK;
	uint64_t w, h;
	picture_size(&pic->o, pic->n, pic->o.scale, &w, &h);
	pngw_note text[16];
	int n_text = notes(&pic->o, pic->n, pic->gen, text);
	outfile f;
	pngw *png = NULL;
	if (!rc)
		rc = outfile_open(&f, pic->path, pic->o.force, true, err);
	if (!rc) {
		rc = pngw_begin(&png, f.f, pic->path, (uint32_t)w, (uint32_t)h, text,
				     n_text, err);
		if (!rc)
			rc = pic->drawn ? write_drawn(pic, png, err)
			     : pic->o.kind == SNAP_RENDER ? write_render(pic, png, err)
							  : write_view(pic, png, err);
		if (!rc)
			rc = pngw_finish(png, err);
		pngw_free(png);
		rc = rc ? (outfile_abort(&f), rc) : outfile_commit(&f, err);
	}
	if (pic->own_view)
		free(pic->view);
	pic->view = NULL;
	grid_free(&pic->copy);
	return rc;
}

/* A render the engine draws itself, started. */
static int take_drawn(engine *e, picture *pic, l3d_err *err)
{
	const snapshot_opts *o = &pic->o;
	render_setup(&pic->rv, pic->n[0], pic->n[1], pic->n[2], o->azimuth, o->elevation,
		     o->scale);
	pic->drawn = pic->own_view = true;
	pic->view = malloc(3 * (size_t)pic->rv.width * pic->rv.height);
	if (!pic->view)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = engine_render_start(e, &pic->rv, pic->view, err);
	if (rc) {
		free(pic->view);
		pic->view = NULL;
	}
	return rc;
}

/* The view from the engine: started (a GPU's may still be on its way), or
 * for a render the engine does not draw, the whole universe, copied. */
static int take(engine *e, const snapshot_opts *o, uint64_t generation,
		picture *pic, l3d_err *err)
{
	const uint64_t n[3] = {e->nx, e->ny, e->nz};
	frame(pic, o, n, generation);
	pic->e = e;
	if (o->kind == SNAP_RENDER && engine_renders(e)) {
		uint64_t w, h;
		picture_size(o, n, o->scale, &w, &h);
		if (whole_render(n, w, h))
			return take_drawn(e, pic, err);
	}
	if (o->kind == SNAP_RENDER) {
		int rc = grid_alloc(&pic->copy, n[0], n[1], n[2], err);
		if (!rc)
			rc = engine_read(e, &pic->copy, err);
		if (rc)
			grid_free(&pic->copy);
		pic->universe = &pic->copy;
		return rc;
	}
	pic->own_view = true;
	pic->view = malloc(pic->w * pic->h * (o->kind == SNAP_PROJECTION ? sizeof(uint32_t) : 1));
	if (!pic->view)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = engine_view_start(e, o->kind == SNAP_PROJECTION, o->axis, o->index,
				   pic->view, err);
	if (rc) {
		free(pic->view);
		pic->view = NULL;
	}
	return rc;
}

int snapshot_write_view(const snapshot_opts *o, uint64_t generation,
			const grid *g, const void *view, char *path,
			size_t path_size, l3d_err *err)
{
	picture pic;
	const uint64_t n[3] = {g->nx, g->ny, g->nz};
	frame(&pic, o, n, generation);
	pic.view = (void *)view;
	pic.universe = g;
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
