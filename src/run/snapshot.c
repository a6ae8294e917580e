/* snapshot.c - see snapshot.h. */
#include "snapshot.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/colormap.h"
#include "base/outfile.h"
#include "base/pipeline.h"
#include "base/pool.h"
#include "base/render.h"
#include "bandmemo.h"
#include "pngwrite.h"

/* A picture is drawn and compressed in about BANDS bands (four for each
 * of 16 threads, so they finish together), of MIN_BAND_BYTES to
 * BAND_BYTES each: a band starts compressing with an empty dictionary,
 * which costs about 5% of the file at 64 KiB (1% at 256 KiB).  How a
 * picture is cut depends on the picture alone, so its file is the same
 * bytes however many threads make it. */
#define BANDS 64
#define MIN_BAND_BYTES ((uint64_t)64 << 10)
#define BAND_BYTES ((uint64_t)1 << 20)
/* A render drawn by the engine (engine_renders(): a GPU's) comes back
 * whole; it is taken that way when it is no larger than this or than a
 * copy of the universe, else drawn on the host from a copy, in bands. */
#define WHOLE_RENDER_BYTES ((uint64_t)64 << 20)
#define DEFLATE_BYTES ((uint64_t)272 << 10)

static const char *const kind_names[] = {"projection", "slice", "render"};

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
static uint64_t longest_side(const snapshot_opts *o, const uint64_t n[3], uint64_t scale)
{
	uint64_t w, h;
	picture_size(o, n, scale, &w, &h);
	return w > h ? w : h;
}

/* Whether a picture at `scale` is more than a PNG may hold: past
 * PNGW_MAX_EDGE a side or PNGW_MAX_PIXELS in all. */
static bool too_large(const snapshot_opts *o, const uint64_t n[3], uint64_t scale)
{
	uint64_t w, h;
	picture_size(o, n, scale, &w, &h);
	return w > PNGW_MAX_EDGE || h > PNGW_MAX_EDGE || w * h > PNGW_MAX_PIXELS;
}

/* The least scale that makes the long side at least `size`, but never
 * past what a PNG may hold where a smaller scale fits. */
/* A chosen scale s (above 1) grows by up to 15 to one whose picture has
 * even sides, which video encoders (H.264's 4:2:0) need; s when none
 * does, or when the larger picture would not fit a PNG. */
static uint64_t even_scale(const snapshot_opts *o, const uint64_t n[3], uint64_t s)
{
	for (uint64_t t = s; s > 1 && t < s + 16; t++) {
		uint64_t w, h;
		picture_size(o, n, t, &w, &h);
		if (t > PNGW_MAX_EDGE || too_large(o, n, t))
			break;
		if (w % 2 == 0 && h % 2 == 0)
			return t;
	}
	return s;
}

static uint64_t scale_for(const snapshot_opts *o, const uint64_t n[3], uint64_t size)
{
	uint64_t s = 1, longest = longest_side(o, n, 1);
	if (o->kind != SNAP_RENDER) {
		s = longest >= size ? 1 : (size + longest - 1) / longest;
		if (s > 1 && s * longest > PNGW_MAX_EDGE)
			s = PNGW_MAX_EDGE / longest > 0 ? PNGW_MAX_EDGE / longest : 1;
	} else {
		while (longest < size && s < size)
			longest = longest_side(o, n, ++s);
	}
	while (s > 1 && too_large(o, n, s))
		s--;
	return even_scale(o, n, s);
}

/* Every core but one, which is left to the thread that drives the
 * engine: with a GPU's steps queued one call ahead, a driving thread held
 * back by the encoding leaves the device idle. */
static int picture_threads(const snapshot_opts *o)
{
	int cores = cpu_count();
	return o->threads > 0 ? o->threads : cores > 2 ? cores - 1 : cores;
}

/* Rows a band of a w x h picture holds. */
static uint64_t band_rows(uint64_t w, uint64_t h)
{
	uint64_t row = 3 * w, rows = (h + BANDS - 1) / BANDS;
	uint64_t least = (MIN_BAND_BYTES + row - 1) / row, most = BAND_BYTES / row;
	rows = rows > least ? rows : least;
	rows = rows < most ? rows : most;
	return rows ? rows : 1;
}

/* Whether a whole render of w x h pixels, at `per_pixel` bytes a pixel,
 * is small enough to hold at once: no larger than WHOLE_RENDER_BYTES or
 * than a copy of the universe. */
static bool whole_fits(const uint64_t n[3], uint64_t w, uint64_t h, uint64_t per_pixel)
{
	grid dims = {.nx = n[0], .ny = n[1], .nz = n[2], .words = (n[2] + 63) / 64};
	uint64_t bytes = per_pixel * w * h;
	return bytes <= WHOLE_RENDER_BYTES || bytes <= grid_bytes(&dims);
}

/* A render drawn by the engine (3 bytes a pixel), or on the host cell by
 * cell when the universe is sparse (render_cells: the picture and a key,
 * 11 bytes a pixel). */
static bool whole_render(const uint64_t n[3], uint64_t w, uint64_t h)
{
	return whole_fits(n, w, h, 3);
}

static bool cells_render(const uint64_t n[3], uint64_t w, uint64_t h)
{
	return whole_fits(n, w, h, 11);
}

/* A slot holds a band's pixels and their compressed copy, which is no
 * larger give or take a few per cent. */
static uint64_t slot_bytes(uint64_t w, uint64_t h)
{
	return 2 * band_rows(w, h) * 3 * w;
}

static int band_slots(const snapshot_opts *o, uint64_t w, uint64_t h)
{
	uint64_t rows = band_rows(w, h), chunks = (h + rows - 1) / rows;
	return pipeline_slots(picture_threads(o), chunks, slot_bytes(w, h));
}

int snapshot_fit(snapshot_opts *o, const uint64_t n[3], uint64_t size,
		 uint64_t *bytes, l3d_err *err)
{
	if (!o->scale)
		o->scale = scale_for(o, n, size);
	uint64_t w, h;
	picture_size(o, n, o->scale, &w, &h);
	if (o->scale > PNGW_MAX_EDGE || too_large(o, n, o->scale))
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s snapshots of a %" PRIu64 "x%" PRIu64 "x%" PRIu64
				" universe at %" PRIu64 " pixel%s a cell would be %" PRIu64
				"x%" PRIu64 " pixels; a PNG may have at most %u a side and %"
				PRIu64 " in all", kind_names[o->kind], n[0], n[1], n[2], o->scale,
				o->scale == 1 ? "" : "s", w, h, PNGW_MAX_EDGE, PNGW_MAX_PIXELS);
	grid dims = {.nx = n[0], .ny = n[1], .nz = n[2]};
	uint64_t vw, vh;
	grid_view_dims(&dims, o->axis, &vw, &vh);
	uint64_t bands = (uint64_t)band_slots(o, w, h) * slot_bytes(w, h);
	/* Two pictures may be in flight (snapshot_start), each with its
	 * bands, and a GPU's pinned copy of a view; one when it is drawn from
	 * a copy of the universe.  Besides, up to five memos of a picture's
	 * bands: the latest, one made by each picture in flight, and the
	 * two of a universe that repeats (twins). */
	if (o->kind == SNAP_RENDER) {
		dims.words = (n[2] + 63) / 64;
		*bytes = grid_bytes(&dims) + bands;
		if (cells_render(n, w, h))
			*bytes += 11 * w * h;
		if (whole_render(n, w, h) && 9 * w * h + 2 * bands > *bytes)
			*bytes = 9 * w * h + 2 * bands;
	} else {
		*bytes = 3 * vw * vh * (o->kind == SNAP_PROJECTION ? sizeof(uint32_t) : 1) +
			 2 * bands;
	}
	*bytes += 5 * bandmemo_bytes(w, h);
	/* And zlib's state for each thread compressing a band (pngw_encode:
	 * a 32 KiB window, memLevel 8: 256 KiB and a few KiB more), in each
	 * picture in flight. */
	*bytes += 2 * (uint64_t)picture_threads(o) * DEFLATE_BYTES;
	return L3D_OK;
}

int snapshot_threads(const snapshot_opts *o)
{
	return 2 * picture_threads(o);    /* each: its own and threads - 1 helpers */
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
		/* Straight down or up, z is along the view, not up the picture. */
		const char *z = o->elevation >= 90 ? "z toward the viewer"
				: o->elevation <= -90 ? "z away from the viewer" : "z up";
		snprintf(t[k++].text, sizeof t->text, "azimuth %g, elevation %g degrees; %s",
			 o->azimuth, o->elevation, z);
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
		t[k].key = "Scaling";
		snprintf(t[k++].text, sizeof t->text, "%s", o->log ? "log" : "linear");
	}
	return k;
}

/* ---- a picture already there ---- */

/* The picture at path is of o's series at generation g; *max, when not
 * NULL, gets its Maximum (0: none). */
static bool of_series(const snapshot_opts *o, const char *path, uint64_t g, uint64_t *max)
{
	pngw_note want[3] = {{.key = "Title"}, {.key = "Rule"}, {.key = "Maximum"}};
	snprintf(want[0].text, sizeof want[0].text, "life3d %s, generation %" PRIu64,
		 kind_names[o->kind], g);
	snprintf(want[1].text, sizeof want[1].text, "%s", o->rule);
	if (!max)
		return pngw_has_notes(path, want, 2);
	bool is = pngw_has_notes(path, want, 3);
	*max = is ? strtoull(want[2].text, NULL, 10) : 0;
	return is;
}

bool snapshot_of_series(const snapshot_opts *o, const char *path, uint64_t g)
{
	return of_series(o, path, g, NULL);
}

uint64_t snapshot_series_max(const snapshot_opts *o, uint64_t g)
{
	snapshot_opts any = *o;
	uint64_t max = 0;
	for (any.digits = 6; any.digits <= 20 && !max; any.digits++) {
		char path[4200];
		snapshot_name(&any, g, path, sizeof path);
		of_series(&any, path, g, &max);
	}
	return max;
}

bool snapshot_may_replace(const snapshot_opts *o, const char *path, uint64_t g)
{
	return o->force ||
	       (o->resumed && g > o->resumed_at && snapshot_of_series(o, path, g));
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
	bool repeats;            /* taken while the universe repeated */
	bandmemo *twin;          /* the bands of an earlier picture of the
	                            same universe: nothing to take or draw */
	bool received;           /* the view came already (auto_max) */
	snapshot_opts o;
	uint64_t n[3], gen;
	uint64_t w, h;           /* the view, in cells */
	char path[4096];
} picture;

int snapshot_name(const snapshot_opts *o, uint64_t g, char *buf, size_t size)
{
	return snprintf(buf, size, "%s%0*" PRIu64 ".png", o->prefix, (int)o->digits, g);
}

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
	snapshot_name(o, generation, pic->path, sizeof pic->path);
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
		bool projection = pic->o.kind == SNAP_PROJECTION;
		uint64_t max = projection ? pic->o.max : 1;
		uint8_t rgb[3] = {0, 0, 0};
		if (count)
			colormap_rgb(projection && pic->o.log ? colormap_index_log(count, max)
							      : colormap_index(count, max),
				     rgb);
		for (uint64_t k = 0; k < s; k++)
			memcpy(row + 3 * (u * s + k), rgb, 3);
	}
}

/* ---- a picture drawn and compressed in bands on several threads ---- */

typedef struct bands bands;
struct bands {
	picture *pic;
	pngw *png;
	uint64_t width, height;  /* the picture, in pixels */
	uint64_t rows;           /* per band */
	uint64_t chunks;         /* bands */
	/* Where n rows of pixels from row `first` are: drawn into px, or
	 * found whole in the picture's view. */
	const uint8_t *(*draw)(const bands *b, uint64_t first, uint64_t n, uint8_t *px);
	render_view view;        /* of a render drawn here */
	uint8_t *px[PIPELINE_MAX_SLOTS];
	pngw_band band[PIPELINE_MAX_SLOTS];
	/* The bands of an earlier picture of this size (NULL: none), and
	 * those of this one, kept for the next (NULL: not kept); a slot's
	 * band taken from the earlier one instead of compressed. */
	bandmemo *before, *memo;
	const pngw_band *same[PIPELINE_MAX_SLOTS];
};

/* What was written since the program started (snapshot_tally). */
static _Atomic uint64_t bands_put, bands_again, pictures_put, pictures_again;

/* ---- pictures of a universe that repeats ----
 *
 * Once the engine finds the universe repeating with period 2
 * (engine_repeats), the picture of generation g is also the picture of
 * every later generation g + 2k.  For each parity of the generation, the
 * latest picture taken while it repeated leaves its bands here, and a
 * later picture of that parity is put from them: no view is taken and
 * nothing is drawn, compared or compressed. */
static bandmemo *twins[2];
static pthread_mutex_t twin_lock = PTHREAD_MUTEX_INITIALIZER;

/* The bands of the picture pic repeats, if there are such (a reference). */
static bandmemo *twin_of(const picture *pic)
{
	uint64_t w, h;
	picture_size(&pic->o, pic->n, pic->o.scale, &w, &h);
	pthread_mutex_lock(&twin_lock);
	bandmemo *m = twins[pic->gen & 1];
	m = bandmemo_is(m, w, h, band_rows(w, h)) ? bandmemo_ref(m) : NULL;
	pthread_mutex_unlock(&twin_lock);
	return m;
}

/* The bands of generation g's picture, taken while the universe repeated. */
static void twin_keep(uint64_t g, bandmemo *m)
{
	pthread_mutex_lock(&twin_lock);
	bandmemo *old = twins[g & 1];
	twins[g & 1] = bandmemo_ref(m);
	pthread_mutex_unlock(&twin_lock);
	bandmemo_release(old);
}

static void twins_forget(void)
{
	pthread_mutex_lock(&twin_lock);
	bandmemo *old[2] = {twins[0], twins[1]};
	twins[0] = twins[1] = NULL;
	pthread_mutex_unlock(&twin_lock);
	bandmemo_release(old[0]);
	bandmemo_release(old[1]);
}

/* Projections and slices: a row of cells is coloured once and its
 * pixels copied for the rows of a larger scale. */
static const uint8_t *draw_view(const bands *b, uint64_t first, uint64_t n, uint8_t *px)
{
	size_t row = 3 * (size_t)b->width;
	uint64_t s = b->pic->o.scale;
	for (uint64_t i = 0; i < n; i++) {
		if (i && (first + i) / s == (first + i - 1) / s)
			memcpy(px + i * row, px + (i - 1) * row, row);
		else
			colour_row(b->pic, (first + i) / s, px + i * row);
	}
	return px;
}

static const uint8_t *draw_render(const bands *b, uint64_t first, uint64_t n, uint8_t *px)
{
	render_rows(&b->view, b->pic->universe, (uint32_t)first, (uint32_t)n, px);
	return px;
}

/* A render the engine drew, whole in the picture's view. */
static const uint8_t *view_rows(const bands *b, uint64_t first, uint64_t n, uint8_t *px)
{
	(void)n;
	(void)px;
	return (const uint8_t *)b->pic->view + first * 3 * b->width;
}

/* The work: draw a band and compress it (a stop is seen here, between
 * bands). */
static int encode_band(void *ctx, uint64_t chunk, int slot, l3d_err *err)
{
	bands *b = ctx;
	int rc = stopped(b->pic, err);
	if (rc)
		return rc;
	if (b->pic->twin) {
		b->same[slot] = bandmemo_band(b->pic->twin, chunk);
		return b->same[slot] ? L3D_OK
				     : l3d_fail(err, L3D_ERR_RUNTIME, "%s: band %" PRIu64
						" of the picture repeated is missing", b->pic->path, chunk);
	}
	uint64_t first = chunk * b->rows, left = b->height - first;
	uint64_t n = left < b->rows ? left : b->rows;
	const uint8_t *px = b->draw(b, first, n, b->px[slot]);
	bandmemo_keep_rows(b->memo, chunk, px);
	if ((b->same[slot] = bandmemo_match(b->before, chunk, px)))
		return L3D_OK;
	return pngw_encode((uint32_t)b->width, px, (uint32_t)n, 3 * (size_t)b->width,
			   chunk + 1 == b->chunks, &b->band[slot], err);
}

/* The consumer: write the bands in order. */
static int put_band(void *ctx, uint64_t chunk, int slot, l3d_err *err)
{
	bands *b = ctx;
	const pngw_band *same = b->same[slot];
	int rc = pngw_put(b->png, same ? same : &b->band[slot], err);
	if (rc)
		return rc;
	if (same)
		bandmemo_keep_copy(b->memo, chunk, same);
	else
		bandmemo_keep_band(b->memo, chunk, &b->band[slot]);
	atomic_fetch_add_explicit(&bands_put, 1, memory_order_relaxed);
	if (same)
		atomic_fetch_add_explicit(&bands_again, 1, memory_order_relaxed);
	return L3D_OK;
}

static int run_bands(bands *b, l3d_err *err)
{
	const snapshot_opts *o = &b->pic->o;
	b->rows = band_rows(b->width, b->height);
	b->chunks = (b->height + b->rows - 1) / b->rows;
	/* A picture repeated is only put: no work for helper threads. */
	pipeline p = {.work = encode_band, .consume = put_band, .ctx = b,
		      .chunks = b->chunks, .slots = band_slots(o, b->width, b->height),
		      .threads = b->pic->twin ? 1 : picture_threads(o)};
	int rc = L3D_OK;
	for (int s = 0; s < p.slots && !rc && b->draw && b->draw != view_rows; s++)
		if (!(b->px[s] = malloc(b->rows * b->width * 3)))
			rc = l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	/* LIFE3D_SKIP=0 compresses every band, for comparison. */
	if (!b->pic->twin && !o->every_band) {
		b->before = bandmemo_latest(b->width, b->height, b->rows);
		b->memo = bandmemo_new(b->width, b->height, b->rows);
	}
	if (!rc)
		rc = pipeline_run(&p, err);
	if (!rc && bandmemo_publish(b->memo) && b->pic->repeats)
		twin_keep(b->pic->gen, b->memo);
	bandmemo_release(b->memo);
	bandmemo_release(b->before);
	for (int s = 0; s < p.slots; s++) {
		free(b->px[s]);
		pngw_band_free(&b->band[s]);
	}
	return rc;
}

/* A render of a sparse universe, drawn whole and cell by cell into the
 * picture's view (*whole); else it is drawn ray by ray, in bands. */
static int draw_sparse(picture *pic, const render_view *v, bool *whole, l3d_err *err)
{
	if (!cells_render(pic->n, v->width, v->height) ||
	    grid_population(pic->universe) > render_max_live(v))
		return L3D_OK;
	uint8_t *rgb = malloc(3 * (size_t)v->width * v->height);
	if (!rgb)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a snapshot");
	int rc = render_cells(v, pic->universe, picture_threads(&pic->o), rgb, err);
	if (rc) {
		free(rgb);
		return rc;
	}
	if (pic->own_view)
		free(pic->view);
	pic->view = rgb;
	pic->own_view = *whole = true;
	return L3D_OK;
}

/* The picture's bands, drawn as its kind is, compressed and written. */
static int write_picture(picture *pic, pngw *png, l3d_err *err)
{
	bands b = {.pic = pic, .png = png};
	const snapshot_opts *o = &pic->o;
	if (pic->twin) {
		picture_size(o, pic->n, o->scale, &b.width, &b.height);
	} else if (pic->drawn) {
		b.draw = view_rows;
		b.width = pic->rv.width;
		b.height = pic->rv.height;
	} else if (o->kind == SNAP_RENDER) {
		b.draw = draw_render;
		render_setup(&b.view, pic->n[0], pic->n[1], pic->n[2], o->azimuth,
			     o->elevation, o->scale);
		b.width = b.view.width;
		b.height = b.view.height;
		bool whole = false;
		int rc = draw_sparse(pic, &b.view, &whole, err);
		if (rc)
			return rc;
		if (whole)
			b.draw = view_rows;
	} else {
		b.draw = draw_view;
		b.width = pic->w * o->scale;
		b.height = pic->h * o->scale;
	}
	return run_bands(&b, err);
}

/* The view from the engine, once it has come: the engine is free for the
 * next one. */
static int receive(picture *pic, l3d_err *err)
{
	bool waits = pic->e && !pic->received && (pic->o.kind != SNAP_RENDER || pic->drawn);
	return waits ? engine_view_wait(pic->e, err) : L3D_OK;
}

/* A picture that failed for memory names its file, as a failure to
 * write it does. */
static int named(const picture *pic, int rc, l3d_err *err)
{
	if (rc != L3D_ERR_RUNTIME || !err ||
	    strncmp(err->msg, pic->path, strlen(pic->path)) == 0)
		return rc;
	return l3d_fail_keeping(err, rc, err->msg, "%s: %s", pic->path, err->msg);
}

/* The picture, received with status rc: drawn, encoded and written
 * atomically (unless rc); frees the picture's buffers. */
static int develop_received(picture *pic, int rc, l3d_err *err)
{
	uint64_t w, h;
	picture_size(&pic->o, pic->n, pic->o.scale, &w, &h);
	pngw_note text[16];
	int n_text = notes(&pic->o, pic->n, pic->gen, text);
	outfile f;
	pngw *png = NULL;
	if (!rc)
		rc = outfile_open(&f, pic->path,
				  snapshot_may_replace(&pic->o, pic->path, pic->gen), true, err);
	if (!rc) {
		rc = pngw_begin(&png, f.f, pic->path, (uint32_t)w, (uint32_t)h, text,
				     n_text, err);
		if (!rc)
			rc = write_picture(pic, png, err);
		if (!rc)
			rc = pngw_finish(png, err);
		pngw_free(png);
		rc = rc ? (outfile_abort(&f), rc) : outfile_commit(&f, err);
	}
	if (!rc) {
		atomic_fetch_add_explicit(&pictures_put, 1, memory_order_relaxed);
		if (pic->twin)
			atomic_fetch_add_explicit(&pictures_again, 1, memory_order_relaxed);
	}
	if (pic->own_view)
		free(pic->view);
	pic->view = NULL;
	grid_free(&pic->copy);
	bandmemo_release(pic->twin);
	pic->twin = NULL;
	return named(pic, rc, err);
}

static int develop(picture *pic, l3d_err *err)
{
	return develop_received(pic, receive(pic, err), err);
}

/* Whether the engine draws the render o asks for itself (else it is
 * drawn on the host from a copy of the universe). */
static bool engine_draws(engine *e, const snapshot_opts *o)
{
	const uint64_t n[3] = {e->nx, e->ny, e->nz};
	uint64_t w, h;
	if (o->kind != SNAP_RENDER || !engine_renders(e))
		return false;
	picture_size(o, n, o->scale, &w, &h);
	return whole_render(n, w, h);
}

/* The view of a render the engine draws itself, or false when the
 * engine does not draw it. */
static bool drawn_view(engine *e, const snapshot_opts *o, render_view *v)
{
	if (!engine_draws(e, o))
		return false;
	render_setup(v, e->nx, e->ny, e->nz, o->azimuth, o->elevation, o->scale);
	return true;
}

int snapshot_prepare(engine *e, const snapshot_opts *o, l3d_err *err)
{
	render_view v;
	return drawn_view(e, o, &v) ? engine_render_prepare(e, &v, err) : L3D_OK;
}

/* A render the engine draws itself (pic->rv), started. */
static int take_drawn(engine *e, picture *pic, l3d_err *err)
{
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
	pic->repeats = engine_repeats(e);
	if (pic->repeats && (pic->twin = twin_of(pic))) {
		pic->e = NULL;    /* no view to wait for */
		return L3D_OK;
	}
	if (drawn_view(e, o, &pic->rv))
		return take_drawn(e, pic, err);
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

/* --snapshot-max auto: the largest count of a projection (at least 1),
 * fixed in *o and the picture's options from the series' first picture
 * on. */
static void auto_max(snapshot_opts *o, picture *pic)
{
	if (o->kind != SNAP_PROJECTION || o->max || !pic->view)
		return;
	const uint32_t *c = pic->view;
	uint64_t m = 1;
	for (uint64_t i = 0; i < pic->w * pic->h; i++)
		m = c[i] > m ? c[i] : m;
	o->max = pic->o.max = m;
}

int snapshot_write_view(snapshot_opts *o, uint64_t generation,
			const grid *g, const void *view, char *path,
			size_t path_size, l3d_err *err)
{
	picture pic;
	const uint64_t n[3] = {g->nx, g->ny, g->nz};
	frame(&pic, o, n, generation);
	pic.view = (void *)view;
	auto_max(o, &pic);
	pic.universe = g;
	snprintf(path, path_size, "%s", pic.path);
	return develop(&pic, err);
}

/* Snapshots developed in the background, two at most: while one is
 * encoded, the next can be taken and come from the engine, so that the
 * steps never wait for an encoding that takes longer than the steps
 * between two snapshots.  One at a time when either holds a copy of the
 * universe, so that memory stays bounded as snapshot_fit() says. */
typedef struct slot {
	pthread_t thread;
	bool running;
	bool received;           /* its view has come from the engine */
	picture pic;
	int rc;
	l3d_err err;
} slot;

static slot slots[2];
static int newest;               /* the slot started last */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slot_received = PTHREAD_COND_INITIALIZER;

static void *develop_pending(void *arg)
{
	slot *s = arg;
	int rc = receive(&s->pic, &s->err);
	pthread_mutex_lock(&slot_lock);
	s->received = true;
	pthread_cond_broadcast(&slot_received);
	pthread_mutex_unlock(&slot_lock);
	s->rc = develop_received(&s->pic, rc, &s->err);
	return NULL;
}

/* Slot s finished; its failure into *err unless one is there (rc). */
static int join(slot *s, int rc, l3d_err *err)
{
	if (!s->running)
		return rc;
	pthread_join(s->thread, NULL);
	s->running = false;
	if (s->rc && !rc && err)
		*err = s->err;
	else if (s->rc == L3D_ERR_CANTCREAT)
		outfile_remove_kept(s->pic.path);   /* kept aside, but never said where */
	return rc ? rc : s->rc;
}

static void wait_received(slot *s)
{
	pthread_mutex_lock(&slot_lock);
	while (s->running && !s->received)
		pthread_cond_wait(&slot_received, &slot_lock);
	pthread_mutex_unlock(&slot_lock);
}

static bool holds_copy(const slot *s)
{
	return s->running && s->pic.universe == &s->pic.copy;
}

int snapshot_wait(l3d_err *err)
{
	int rc = join(&slots[newest ^ 1], L3D_OK, err);
	rc = join(&slots[newest], rc, err);
	twins_forget();
	bandmemo_forget();
	return rc;
}

void snapshot_tally(snapshot_counts *c)
{
	*c = (snapshot_counts){atomic_load(&pictures_put), atomic_load(&pictures_again),
			       atomic_load(&bands_put), atomic_load(&bands_again)};
}

/* A slot for the next picture, the engine free to take it. */
static int make_room(engine *e, const snapshot_opts *o, slot **free_slot, l3d_err *err)
{
	slot *last = &slots[newest], *older = &slots[newest ^ 1];
	bool copy = o->kind == SNAP_RENDER && !engine_draws(e, o);
	int rc = join(older, L3D_OK, err);
	if (copy || holds_copy(last))
		rc = join(last, rc, err);
	wait_received(last);
	*free_slot = older;
	return rc;
}

int snapshot_start(engine *e, snapshot_opts *o, uint64_t generation,
		   char *path, size_t path_size, l3d_err *err)
{
	slot *s;
	int rc = make_room(e, o, &s, err);
	if (!rc)
		rc = named(&s->pic, take(e, o, generation, &s->pic, err), err);
	/* The first picture of an auto scale: its view comes now, so that
	 * the scale is fixed before the next is taken. */
	if (!rc && o->kind == SNAP_PROJECTION && !o->max && s->pic.view) {
		rc = receive(&s->pic, err);
		s->pic.received = true;
		if (rc)
			return develop_received(&s->pic, rc, err);
		auto_max(o, &s->pic);
	}
	snprintf(path, path_size, "%s", s->pic.path);
	if (rc)
		return rc;
	newest = (int)(s - slots);
	s->rc = L3D_OK;
	s->received = false;
	s->running = pthread_create(&s->thread, NULL, develop_pending, s) == 0;
	return s->running ? L3D_OK : develop(&s->pic, err);
}
