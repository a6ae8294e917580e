/* render.c - see render.h. */
#include "render.h"

#include <math.h>
#include <stdlib.h>

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

void render_setup(render_view *v, uint64_t nx, uint64_t ny, uint64_t nz,
		  double az, double el, uint64_t scale)
{
	uint64_t w, h;
	render_size(nx, ny, nz, az, el, scale, &w, &h);
	*v = (render_view){.nx = nx, .ny = ny, .nz = nz, .width = (uint32_t)w,
			   .height = (uint32_t)h, .scale = (uint32_t)scale};
	camera(az, el, v->right, v->up, v->toward);
	v->left = -(int64_t)(w * RENDER_SUB / (2 * scale));
	v->top = (int64_t)(h * RENDER_SUB / (2 * scale));
	v->depth = (int64_t)nx * llabs(v->toward[0]) + (int64_t)ny * llabs(v->toward[1]) +
		   (int64_t)nz * llabs(v->toward[2]);
	shades(v);
	edges(v);
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
