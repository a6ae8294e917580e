/* render.c - see render.h. */
#include "render.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"

/* ---- set-up: floating point allowed, once per run ---- */

static int32_t q14(double v)
{
	return (int32_t)lround(v * RENDER_ONE);
}

/* The camera's axes: toward the camera, right and up on the picture. */
static void camera(double az, double el, int32_t r[3], int32_t u[3], int32_t c[3])
{
	double a = az * M_PI / 180.0, e = el * M_PI / 180.0;
	double ca = cos(a), sa = sin(a), ce = cos(e), se = sin(e);
	c[0] = q14(ce * ca), c[1] = q14(ce * sa), c[2] = q14(se);
	r[0] = q14(-sa), r[1] = q14(ca), r[2] = 0;
	u[0] = q14(-se * ca), u[1] = q14(-se * sa), u[2] = q14(ce);
}

static uint64_t margin(uint64_t scale)
{
	return 4 + scale;
}

/* Pixels the box spans along a screen axis. */
static uint64_t span(const uint64_t n[3], const int32_t a[3], uint64_t scale)
{
	uint64_t s = 0;
	for (int k = 0; k < 3; k++)
		s += n[k] * (uint64_t)llabs(a[k]);
	return (s * scale + RENDER_ONE - 1) / RENDER_ONE + 2 * margin(scale);
}

void render_size(uint64_t nx, uint64_t ny, uint64_t nz, double az, double el,
		 uint64_t scale, uint64_t *width, uint64_t *height)
{
	int32_t r[3], u[3], c[3];
	uint64_t n[3] = {nx, ny, nz};
	camera(az, el, r, u, c);
	*width = span(n, r, scale);
	*height = span(n, u, scale);
}

/* Brightness of the visible face across each axis: a light from above the
 * viewer and to the left. */
static void shades(render_view *v)
{
	double l[3], len = 0;
	for (int k = 0; k < 3; k++) {
		l[k] = 0.6 * v->toward[k] + 0.7 * v->up[k] - 0.4 * v->right[k];
		len += l[k] * l[k];
	}
	len = sqrt(len);
	for (int k = 0; k < 3; k++) {
		double lit = (v->toward[k] >= 0 ? l[k] : -l[k]) / len;
		v->shade[k] = (uint8_t)lround(110 + 145 * (lit > 0 ? lit : 0));
	}
}

/* Corner `bits` (bit k: the high end of axis k) on the picture, in 1/256
 * pixel. */
static void corner(const render_view *v, int bits, int64_t *px, int64_t *py)
{
	const uint64_t n[3] = {v->nx, v->ny, v->nz};
	int64_t sx = 0, sy = 0;
	for (int k = 0; k < 3; k++) {
		int64_t p = (int64_t)(n[k] * RENDER_SUB / 2) * ((bits >> k & 1) ? 1 : -1);
		sx += p * v->right[k];
		sy += p * v->up[k];
	}
	sx /= RENDER_ONE;
	sy /= RENDER_ONE;
	*px = (sx - v->left) * (int64_t)v->scale / (RENDER_SUB / 256);
	*py = (v->top - sy) * (int64_t)v->scale / (RENDER_SUB / 256);
}

static void edges(render_view *v)
{
	int far = 0, e = 0;
	for (int k = 0; k < 3; k++)
		far |= v->toward[k] > 0 ? 0 : 1 << k;
	for (int k = 0; k < 3; k++)
		for (int bits = 0; bits < 8; bits++) {
			if (bits >> k & 1)
				continue;
			render_edge *d = &v->edge[e++];
			corner(v, bits, &d->ax, &d->ay);
			corner(v, bits | 1 << k, &d->bx, &d->by);
			double dx = (double)(d->bx - d->ax), dy = (double)(d->by - d->ay);
			d->len = llround(sqrt(dx * dx + dy * dy));
			d->back = bits == far || (bits | 1 << k) == far;
		}
	int64_t line = 128 + 32 * (int64_t)v->scale;
	v->line = line > 512 ? 512 : line;
}

/* render_view's proj, at and slack: the camera's axes as a matrix M (columns
 * right, up, toward), a point's screen position is the first two rows of
 * M^-1 applied to it (the ray through screen (sx, sy) is the points
 * centre + (sx right + sy up + t toward) / RENDER_ONE). */
static void projection(render_view *v)
{
	double m[3][3], inv[3][3];
	for (int k = 0; k < 3; k++) {
		m[k][0] = v->right[k];
		m[k][1] = v->up[k];
		m[k][2] = v->toward[k];
	}
	double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
		     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
		     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++) {
			int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
			inv[r][c] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
		}
	const double n[3] = {(double)v->nx, (double)v->ny, (double)v->nz};
	double s = (double)v->scale, sub = RENDER_SUB;
	v->at[0] = -(double)v->left * s / sub;
	v->at[1] = (double)v->top * s / sub;
	for (int a = 0; a < 3; a++) {
		v->proj[0][a] = s * RENDER_ONE * inv[0][a];
		v->proj[1][a] = -s * RENDER_ONE * inv[1][a];
		v->at[0] -= v->proj[0][a] * n[a] / 2;
		v->at[1] -= v->proj[1][a] * n[a] / 2;
	}
	/* The walks start from points rounded to whole RENDER_SUB units,
	 * a few of them off the exact ray: a few units of margin. */
	v->slack = 0.01 + 8 * s / sub;
}

void render_setup(render_view *v, uint64_t nx, uint64_t ny, uint64_t nz,
		  double az, double el, uint64_t scale)
{
	uint64_t w, h;
	render_size(nx, ny, nz, az, el, scale, &w, &h);
	memset(v, 0, sizeof *v);   /* padding too: equal views compare equal */
	v->nx = nx, v->ny = ny, v->nz = nz;
	v->width = (uint32_t)w, v->height = (uint32_t)h, v->scale = (uint32_t)scale;
	camera(az, el, v->right, v->up, v->toward);
	v->left = -(int64_t)(w * RENDER_SUB / (2 * scale));
	v->top = (int64_t)(h * RENDER_SUB / (2 * scale));
	v->depth = (int64_t)nx * llabs(v->toward[0]) + (int64_t)ny * llabs(v->toward[1]) +
		   (int64_t)nz * llabs(v->toward[2]);
	shades(v);
	edges(v);
	projection(v);
	for (unsigned i = 0; i < 256; i++)
		colormap_rgb(i, v->colour[i]);
}

/* ---- the picture: integers only ---- */

static int alive(const grid *g, const int64_t c[3])
{
	uint64_t z = (uint64_t)c[2];
	const uint64_t *row = grid_row(g, (uint64_t)c[0], (uint64_t)c[1]);
	return (int)((row[z >> 6] >> (z & 63)) & 1);
}

/* render_pixel.h's walk, with the cells looked up in the host's layout. */
static void pixel(const render_view *v, const grid *g, uint32_t i, uint32_t j,
		  uint8_t *px)
{
	render_walk w;
	int hit = render_first(v, i, j, &w);
	while (hit && !alive(g, w.cell))
		hit = render_next(v, &w);
	render_paint(v, i, j, hit, &w, px);
}

void render_rows(const render_view *v, const grid *g, uint32_t first,
		 uint32_t n, uint8_t *rgb)
{
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < v->width; i++)
			pixel(v, g, i, first + j, rgb + ((uint64_t)j * v->width + i) * 3);
}

/* ---- the same picture, cell by cell (render_pixel.h) ---- */

static int pixel_walk(const render_view *v, uint64_t p, render_walk *w)
{
	return render_first(v, (uint32_t)(p % v->width), (uint32_t)(p / v->width), w);
}

/* key[p] = min(key[p], k), with other threads doing the same. */
static void lower(uint64_t *key, uint64_t k)
{
	uint64_t old = __atomic_load_n(key, __ATOMIC_RELAXED);
	while (k < old &&
	       !__atomic_compare_exchange_n(key, &old, k, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Offer live cell c to the pixels it may cover. */
static void offer(const render_view *v, int shift, const int64_t c[3], uint64_t *key)
{
	int64_t i0, i1, j0, j1;
	if (!render_footprint(v, c, &i0, &i1, &j0, &j1))
		return;
	uint64_t index = ((uint64_t)c[0] * v->ny + (uint64_t)c[1]) * v->nz + (uint64_t)c[2];
	for (int64_t j = j0; j <= j1; j++)
		for (int64_t i = i0; i <= i1; i++) {
			render_walk w;
			uint64_t steps;
			int face;
			if (render_first(v, (uint32_t)i, (uint32_t)j, &w) &&
			    render_visit(&w, c, &steps, &face))
				lower(&key[(uint64_t)j * v->width + (uint64_t)i], steps << shift | index);
		}
}

/* Pixel p from its key: the cell it shows, or none. */
static void paint_key(const render_view *v, int shift, uint64_t p, uint64_t key,
		      uint8_t *px)
{
	render_walk w;
	int hit = pixel_walk(v, p, &w) && key != UINT64_MAX;
	if (hit)
		render_at_key(v, shift, key, &w);
	render_paint(v, (uint32_t)(p % v->width), (uint32_t)(p / v->width), hit, &w, px);
}

typedef struct cells_job {
	const render_view *v;
	const grid *g;
	uint8_t *rgb;
	uint64_t *key;
	int shift, threads, index;
} cells_job;

/* A thread's share: its x planes' live cells offered, or, once every
 * cell has been, its pixels painted. */
static void *offer_share(void *arg)
{
	cells_job *j = arg;
	const grid *g = j->g;
	for (uint64_t x = (uint64_t)j->index; x < g->nx; x += (uint64_t)j->threads)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			for (uint64_t k = 0; k < g->words; k++)
				for (uint64_t bits = row[k]; bits; bits &= bits - 1) {
					int64_t c[3] = {(int64_t)x, (int64_t)y,
							(int64_t)(64 * k) + __builtin_ctzll(bits)};
					offer(j->v, j->shift, c, j->key);
				}
		}
	return NULL;
}

static void *paint_share(void *arg)
{
	cells_job *j = arg;
	uint64_t pixels = (uint64_t)j->v->width * j->v->height;
	uint64_t from = pixels * (uint64_t)j->index / (uint64_t)j->threads;
	uint64_t to = pixels * (uint64_t)(j->index + 1) / (uint64_t)j->threads;
	for (uint64_t p = from; p < to; p++)
		paint_key(j->v, j->shift, p, j->key[p], j->rgb + 3 * p);
	return NULL;
}

/* fn on every share, on threads - 1 threads and the caller's (the
 * caller alone where a thread cannot be started). */
static void on_threads(cells_job *jobs, int threads, void *(*fn)(void *))
{
	pthread_t t[RENDER_MAX_THREADS];
	bool started[RENDER_MAX_THREADS] = {false};
	for (int k = 1; k < threads; k++)
		started[k] = pthread_create(&t[k], NULL, fn, &jobs[k]) == 0;
	fn(&jobs[0]);
	for (int k = 1; k < threads; k++)
		if (started[k])
			pthread_join(t[k], NULL);
		else
			fn(&jobs[k]);
}

int render_cells(const render_view *v, const grid *g, int threads, uint8_t *rgb,
		 l3d_err *err)
{
	int shift = render_key_shift(v);
	uint64_t pixels = (uint64_t)v->width * v->height;
	uint64_t *key = shift ? malloc(pixels * sizeof *key) : NULL;
	if (!key) {
		if (shift)
			return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for a render");
		render_rows(v, g, 0, v->height, rgb);
		return L3D_OK;
	}
	for (uint64_t p = 0; p < pixels; p++)
		key[p] = UINT64_MAX;
	threads = threads < 1 ? 1 : threads > RENDER_MAX_THREADS ? RENDER_MAX_THREADS : threads;
	cells_job jobs[RENDER_MAX_THREADS];
	for (int k = 0; k < threads; k++)
		jobs[k] = (cells_job){v, g, rgb, key, shift, threads, k};
	on_threads(jobs, threads, offer_share);
	on_threads(jobs, threads, paint_share);
	free(key);
	return L3D_OK;
}
