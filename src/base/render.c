/* render.c - see render.h. */
#include "render.h"

#include <math.h>
#include <stdlib.h>

#include "colormap.h"

static const uint8_t background[3] = {20, 20, 24};
static const uint8_t front_line[3] = {220, 220, 220};
static const uint8_t back_line[3] = {110, 110, 110};

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
}

/* ---- the picture: integers only ---- */

/* A ray's walk: the cell it is in, per axis the distance (RENDER_SUB
 * units) to the next boundary it crosses, the step and the speed. */
typedef struct walk {
	int64_t cell[3], dist[3], step[3], speed[3];
	int face;                  /* axis of the last boundary crossed */
} walk;

/* Where the ray from p0 along -toward enters the box: false if it
 * misses.  Fractions a / speed compare by cross-multiplication. */
static int enter(const render_view *v, const int64_t p0[3], walk *w)
{
	const int64_t n[3] = {(int64_t)v->nx * RENDER_SUB, (int64_t)v->ny * RENDER_SUB,
			      (int64_t)v->nz * RENDER_SUB};
	int m = -1;
	int64_t ta = 0, tv = 1, ea = 0, ev = 0;
	for (int k = 0; k < 3; k++) {
		int64_t dir = -v->toward[k], s = llabs(dir);
		w->speed[k] = s;
		w->step[k] = dir > 0 ? 1 : -1;
		if (s == 0) {
			if (p0[k] < 0 || p0[k] >= n[k])
				return 0;
			continue;
		}
		int64_t a = dir > 0 ? -p0[k] : p0[k] - n[k];
		int64_t b = dir > 0 ? n[k] - p0[k] : p0[k];
		if (m < 0 || a * tv > ta * s)
			ta = a, tv = s, m = k;
		if (ev == 0 || b * ev < ea * s)
			ea = b, ev = s;
	}
	if (m < 0 || ta * ev >= ea * tv)
		return 0;
	for (int k = 0; k < 3; k++) {
		int64_t p = k == m ? (w->step[k] > 0 ? 0 : n[k])
				   : p0[k] + ta * -v->toward[k] / tv;
		int64_t lo = w->step[k] > 0 || w->speed[k] == 0 ? 0 : 1;
		p = p < lo ? lo : p > n[k] - 1 + lo ? n[k] - 1 + lo : p;
		if (w->step[k] > 0 || w->speed[k] == 0) {
			w->cell[k] = p / RENDER_SUB;
			w->dist[k] = (w->cell[k] + 1) * RENDER_SUB - p;
		} else {
			w->cell[k] = (p - 1) / RENDER_SUB;
			w->dist[k] = p - w->cell[k] * RENDER_SUB;
		}
	}
	w->face = m;
	return 1;
}

static int alive(const grid *g, const int64_t c[3])
{
	uint64_t z = (uint64_t)c[2];
	const uint64_t *row = grid_row(g, (uint64_t)c[0], (uint64_t)c[1]);
	return (int)((row[z >> 6] >> (z & 63)) & 1);
}

/* Walk to the first live cell: false if the ray leaves the box first. */
static int march(const grid *g, walk *w)
{
	const int64_t n[3] = {(int64_t)g->nx, (int64_t)g->ny, (int64_t)g->nz};
	for (;;) {
		if (alive(g, w->cell))
			return 1;
		int k = -1;
		for (int a = 0; a < 3; a++)
			if (w->speed[a] &&
			    (k < 0 || w->dist[a] * w->speed[k] < w->dist[k] * w->speed[a]))
				k = a;
		w->cell[k] += w->step[k];
		if (w->cell[k] < 0 || w->cell[k] >= n[k])
			return 0;
		w->dist[k] += RENDER_SUB;
		w->face = k;
	}
}

/* A hit cell's colour: the map by depth (near: yellow), times the face's
 * brightness. */
static void shade_hit(const render_view *v, const walk *w, uint8_t *px)
{
	const int64_t n[3] = {(int64_t)v->nx, (int64_t)v->ny, (int64_t)v->nz};
	int64_t d = 0;
	for (int k = 0; k < 3; k++)
		d += (2 * w->cell[k] + 1 - n[k]) * v->toward[k];
	int64_t R = v->depth > 0 ? v->depth : 1;
	d = d < -R ? -R : d > R ? R : d;
	uint8_t c[3];
	colormap_rgb((unsigned)(64 + (d + R) * 191 / (2 * R)), c);
	for (int k = 0; k < 3; k++)
		px[k] = (uint8_t)((c[k] * v->shade[w->face] + 127) / 255);
}

/* Is pixel centre (x, y) (1/256 pixel) on edge e? */
static int on_edge(const render_view *v, const render_edge *e, int64_t x, int64_t y)
{
	int64_t dx = e->bx - e->ax, dy = e->by - e->ay;
	int64_t wx = x - e->ax, wy = y - e->ay;
	if (dx == 0 && dy == 0)          /* seen end-on: a point */
		return wx * wx + wy * wy <= v->line * v->line;
	int64_t along = wx * dx + wy * dy;
	if (along < 0 || along > dx * dx + dy * dy)
		return 0;
	int64_t cross = wx * dy - wy * dx;
	return llabs(cross) <= v->line * (e->len > 0 ? e->len : 1);
}

/* 0: no edge; 1: a back edge; 2: a front one. */
static int edge_at(const render_view *v, uint32_t i, uint32_t j)
{
	int64_t x = 256 * (int64_t)i + 128, y = 256 * (int64_t)j + 128;
	int found = 0;
	for (int e = 0; e < 12 && found < 2; e++)
		if (on_edge(v, &v->edge[e], x, y))
			found = v->edge[e].back ? (found ? found : 1) : 2;
	return found;
}

static void pixel(const render_view *v, const grid *g, uint32_t i, uint32_t j,
		  uint8_t *px)
{
	int64_t sx = v->left + (int64_t)((2 * (uint64_t)i + 1) * RENDER_SUB / (2 * v->scale));
	int64_t sy = v->top - (int64_t)((2 * (uint64_t)j + 1) * RENDER_SUB / (2 * v->scale));
	const uint64_t n[3] = {v->nx, v->ny, v->nz};
	int64_t far = 0;
	for (int k = 0; k < 3; k++)
		far += (int64_t)(n[k] * RENDER_SUB / 2);
	far += RENDER_SUB;
	int64_t p0[3];
	for (int k = 0; k < 3; k++)
		p0[k] = (int64_t)(n[k] * RENDER_SUB / 2) +
			(sx * v->right[k] + sy * v->up[k] + far * v->toward[k]) / RENDER_ONE;
	walk w;
	int hit = enter(v, p0, &w) && march(g, &w);
	int edge = edge_at(v, i, j);
	const uint8_t *c = edge == 2 || (edge == 1 && !hit) ? (edge == 2 ? front_line : back_line)
			 : hit ? NULL : background;
	if (!c) {
		shade_hit(v, &w, px);
		return;
	}
	for (int k = 0; k < 3; k++)
		px[k] = c[k];
}

void render_rows(const render_view *v, const grid *g, uint32_t first,
		 uint32_t n, uint8_t *rgb)
{
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < v->width; i++)
			pixel(v, g, i, first + j, rgb + ((uint64_t)j * v->width + i) * 3);
}
