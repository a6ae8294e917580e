/* render_pixel.h - one pixel of render.h's 3D picture, the one copy of the
 * arithmetic that the host (render.c) and the GPU (kernels/render.cu) both
 * compile, so the two draw the same bytes.
 *
 * Plain C99 that is also valid CUDA C++: integers only, no library calls,
 * no tables outside the render_view (the colour map travels in it), every
 * function static inline, and __host__ __device__ under nvcc.  It needs
 * nothing but <stdint.h>.
 *
 * A pixel is drawn in three calls; the caller looks up the cells itself
 * (its universe's layout is its own: 64-bit words on the host, 32-bit
 * words on the device, the same bits):
 *
 *     render_walk w;
 *     int hit = render_first(v, i, j, &w);
 *     while (hit && !ALIVE(w.cell[0], w.cell[1], w.cell[2]))
 *             hit = render_next(v, &w);
 *     render_paint(v, i, j, hit, &w, px);
 *
 * Every cell w.cell names is inside the box (0 <= cell[k] < n[k]) while
 * hit is true.  The view comes from render_setup() (render.h). */
#ifndef LIFE3D_BASE_RENDER_PIXEL_H
#define LIFE3D_BASE_RENDER_PIXEL_H

#include <stdint.h>

#ifdef __CUDACC__
#define RENDER_FN static __host__ __device__ __forceinline__
#else
#define RENDER_FN static inline
#endif

#define RENDER_ONE 16384           /* unit vectors: Q14 */
#define RENDER_SUB 65536           /* positions: 1 cell = 2^16 units */

typedef struct render_edge {
	int64_t ax, ay, bx, by;     /* ends, in 1/256 pixel */
	int64_t len;                /* their distance, 1/256 pixel */
	int32_t back;               /* meets the far corner */
	int32_t pad;
} render_edge;

typedef struct render_view {
	uint64_t nx, ny, nz;
	uint32_t width, height;     /* pixels */
	uint32_t scale;             /* pixels per cell edge */
	int32_t right[3], up[3], toward[3];   /* the camera's axes, Q14 */
	int64_t left, top;          /* screen position of the picture's top-left
	                               corner, in RENDER_SUB units from the
	                               box's centre (up is positive) */
	int64_t depth;              /* depth range: sum of n * |toward| */
	int64_t line;               /* half the width of an edge, 1/256 pixel */
	render_edge edge[12];
	uint8_t shade[3];           /* brightness of a face across axis k */
	uint8_t colour[256][3];     /* colormap.h's map, entry i at [i] */
	/* Where a cell lands on the picture, for drawing cell by cell
	 * (render_footprint): pixel coordinates (u right, v down; pixel
	 * (i, j) has its centre at (i + 0.5, j + 0.5)) of a point p, in
	 * cells, are at[k] + sum over axes a of proj[k][a] * p[a].  Floating
	 * point, but it only bounds which pixels a cell is tested against;
	 * the test itself (render_visit) is exact. */
	double proj[2][3], at[2], slack;
} render_view;

/* A ray's walk: the cell it is in, per axis the distance (RENDER_SUB
 * units) to the next boundary it crosses, the step and the speed. */
typedef struct render_walk {
	int64_t cell[3], dist[3], step[3], speed[3];
	int face;                  /* axis of the last boundary crossed */
} render_walk;

RENDER_FN int64_t render_abs(int64_t a)
{
	return a < 0 ? -a : a;
}

/* Every ray's direction, -toward: per axis its speed and step. */
RENDER_FN void render_direction(const render_view *v, render_walk *w)
{
	for (int k = 0; k < 3; k++) {
		int64_t dir = -v->toward[k];
		w->speed[k] = render_abs(dir);
		w->step[k] = dir > 0 ? 1 : -1;
	}
}

/* Where the ray from p0 along -toward enters the box: false if it
 * misses.  Fractions a / speed compare by cross-multiplication. */
RENDER_FN int render_enter(const render_view *v, const int64_t p0[3], render_walk *w)
{
	const int64_t n[3] = {(int64_t)v->nx * RENDER_SUB, (int64_t)v->ny * RENDER_SUB,
			      (int64_t)v->nz * RENDER_SUB};
	int m = -1;
	int64_t ta = 0, tv = 1, ea = 0, ev = 0;
	render_direction(v, w);
	for (int k = 0; k < 3; k++) {
		int64_t dir = -v->toward[k], s = w->speed[k];
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

/* The ray through the centre of pixel (i, j), entered into the box: false
 * if it misses the box. */
RENDER_FN int render_first(const render_view *v, uint32_t i, uint32_t j, render_walk *w)
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
	return render_enter(v, p0, w);
}

/* One cell on, across the nearest boundary: false if that leaves the box.
 * The nearest is the first axis of the smallest dist / speed (speed 0:
 * never), each axis's test written out: with no axis number to index by,
 * a GPU keeps the walk in registers instead of local memory. */
RENDER_FN int render_next(const render_view *v, render_walk *w)
{
	const int64_t *d = w->dist, *s = w->speed;
	int first[3];
	first[0] = s[0] && (!s[1] || d[0] * s[1] <= d[1] * s[0]) &&
		   (!s[2] || d[0] * s[2] <= d[2] * s[0]);
	first[1] = !first[0] && s[1] && (!s[2] || d[1] * s[2] <= d[2] * s[1]);
	first[2] = !first[0] && !first[1] && s[2];
	int in = 0;                /* toward is never 0: one axis is first */
	for (int a = 0; a < 3; a++)
		if (first[a]) {
			uint64_t n = a == 0 ? v->nx : a == 1 ? v->ny : v->nz;
			w->cell[a] += w->step[a];
			in = w->cell[a] >= 0 && w->cell[a] < (int64_t)n;
			w->dist[a] += RENDER_SUB;
			w->face = a;
		}
	return in;
}

RENDER_FN void render_fill(uint8_t *px, uint8_t r, uint8_t g, uint8_t b)
{
	px[0] = r;
	px[1] = g;
	px[2] = b;
}

/* A hit cell's colour: the map by depth (near: yellow), times the face's
 * brightness. */
RENDER_FN void render_shade(const render_view *v, const render_walk *w, uint8_t *px)
{
	const int64_t n[3] = {(int64_t)v->nx, (int64_t)v->ny, (int64_t)v->nz};
	int64_t d = 0;
	for (int k = 0; k < 3; k++)
		d += (2 * w->cell[k] + 1 - n[k]) * v->toward[k];
	int64_t R = v->depth > 0 ? v->depth : 1;
	d = d < -R ? -R : d > R ? R : d;
	const uint8_t *c = v->colour[64 + (d + R) * 191 / (2 * R)];
	unsigned s = v->shade[w->face];
	for (int k = 0; k < 3; k++)
		px[k] = (uint8_t)((c[k] * s + 127) / 255);
}

/* Is pixel centre (x, y) (1/256 pixel) on edge e? */
RENDER_FN int render_on_edge(const render_view *v, const render_edge *e, int64_t x, int64_t y)
{
	/* Nearer than line to the segment (within line * len / |d| <= 1.5
	 * line of its line, len being |d| rounded) is inside its box grown
	 * by 2 line: most pixels are ruled out with no product. */
	int64_t m = 2 * v->line;
	if (x < (e->ax < e->bx ? e->ax : e->bx) - m || x > (e->ax > e->bx ? e->ax : e->bx) + m ||
	    y < (e->ay < e->by ? e->ay : e->by) - m || y > (e->ay > e->by ? e->ay : e->by) + m)
		return 0;
	int64_t dx = e->bx - e->ax, dy = e->by - e->ay;
	int64_t wx = x - e->ax, wy = y - e->ay;
	if (dx == 0 && dy == 0)          /* seen end-on: a point */
		return wx * wx + wy * wy <= v->line * v->line;
	int64_t along = wx * dx + wy * dy;
	if (along < 0 || along > dx * dx + dy * dy)
		return 0;
	int64_t cross = wx * dy - wy * dx;
	return render_abs(cross) <= v->line * (e->len > 0 ? e->len : 1);
}

/* 0: no edge; 1: a back edge; 2: a front one. */
RENDER_FN int render_edge_at(const render_view *v, uint32_t i, uint32_t j)
{
	int64_t x = 256 * (int64_t)i + 128, y = 256 * (int64_t)j + 128;
	int found = 0;
	for (int e = 0; e < 12 && found < 2; e++)
		if (render_on_edge(v, &v->edge[e], x, y))
			found = v->edge[e].back ? (found ? found : 1) : 2;
	return found;
}

/* A pixel into px (r, g, b), given its edge (render_edge_at): a front
 * edge over everything, a back edge where the ray hit nothing, else the
 * hit cell or empty space. */
RENDER_FN void render_paint_edge(const render_view *v, int edge, int hit,
				 const render_walk *w, uint8_t *px)
{
	if (edge == 2)
		render_fill(px, 220, 220, 220);
	else if (edge == 1 && !hit)
		render_fill(px, 110, 110, 110);
	else if (hit)
		render_shade(v, w, px);
	else
		render_fill(px, 20, 20, 24);
}

/* Pixel (i, j) into px. */
RENDER_FN void render_paint(const render_view *v, uint32_t i, uint32_t j, int hit,
			    const render_walk *w, uint8_t *px)
{
	render_paint_edge(v, render_edge_at(v, i, j), hit, w, px);
}

/* ---- the same picture, cell by cell ----
 *
 * In a sparse universe most rays walk thousands of empty cells.  The same
 * bytes come from the live cells instead: a live cell c is tested against
 * each pixel its cube may cover (render_footprint), the test being
 * whether that pixel's walk (from render_first) visits c, and after how
 * many steps (render_visit); the pixel shows the visited live cell of
 * fewest steps, the one its walk would have stopped at, entered through
 * the face render_visit names.
 *
 * Why the test is exact: render_next crosses, at each step, the boundary
 * nearest along the ray; the crossings of axis k come at distances
 * (dist[k] + m * RENDER_SUB) / speed[k], m = 0, 1, ..., so the walk is the
 * merge of three rising sequences, ties going to the lower axis.  The
 * cell c0 + n (per axis n[k] crossings, in the direction of step[k]) is
 * visited exactly when some prefix of the merge holds n[k] crossings of
 * each axis: when the last crossing taken of each axis comes before the
 * first one not taken of every other.  It is visited after n[0] + n[1] +
 * n[2] steps, through the face of the latest crossing taken. */

/* Crossing ma (counted from 0) of axis a before crossing mb of axis b. */
RENDER_FN int render_before(const render_walk *w, int a, int64_t ma, int b, int64_t mb)
{
	int64_t l = (w->dist[a] + ma * RENDER_SUB) * w->speed[b];
	int64_t r = (w->dist[b] + mb * RENDER_SUB) * w->speed[a];
	return l < r || (l == r && a < b);
}

/* Whether the crossings taken of axis a (na of them) all come before the
 * first not taken of axis b (b never crossed: speed 0). */
RENDER_FN int render_taken_before(const render_walk *w, const int64_t n[3], int a, int b)
{
	return !n[a] || !w->speed[b] || render_before(w, a, n[a] - 1, b, n[b]);
}

/* Does the walk w (as render_first left it) visit cell c?  If so, after
 * *steps steps (render_next calls), entering through a face across axis
 * *face. */
RENDER_FN int render_visit(const render_walk *w, const int64_t c[3], uint64_t *steps,
			   int *face)
{
	int64_t n[3];
	for (int k = 0; k < 3; k++) {
		n[k] = (c[k] - w->cell[k]) * w->step[k];
		if (n[k] < 0 || (n[k] && !w->speed[k]))
			return 0;
	}
	if (!render_taken_before(w, n, 0, 1) || !render_taken_before(w, n, 0, 2) ||
	    !render_taken_before(w, n, 1, 0) || !render_taken_before(w, n, 1, 2) ||
	    !render_taken_before(w, n, 2, 0) || !render_taken_before(w, n, 2, 1))
		return 0;
	/* The latest crossing taken; written without an axis variable to
	 * index by, for the GPU's registers (see render_next). */
	int b01 = n[0] && n[1] && render_before(w, 0, n[0] - 1, 1, n[1] - 1);
	int b02 = n[0] && n[2] && render_before(w, 0, n[0] - 1, 2, n[2] - 1);
	int b12 = n[1] && n[2] && render_before(w, 1, n[1] - 1, 2, n[2] - 1);
	if (n[2] && (!n[0] || b02) && (!n[1] || b12))
		*face = 2;
	else if (n[1] && (!n[0] || b01))
		*face = 1;
	else if (n[0])
		*face = 0;
	else
		*face = w->face;
	*steps = (uint64_t)(n[0] + n[1] + n[2]);
	return 1;
}

/* Keys order a pixel's candidates: (steps << shift) | index, index =
 * (x * ny + y) * nz + z.  The shift, or 0 where keys would not fit in 63
 * bits or a coordinate in 31 (then the picture is drawn ray by ray). */
RENDER_FN int render_key_shift(const render_view *v)
{
	const uint64_t n[4] = {v->nx, v->ny, v->nz, v->nx + v->ny + v->nz};
	int bits[4] = {0, 0, 0, 0};
	for (int k = 0; k < 4; k++) {
		if (k < 3 && n[k] >= (uint64_t)1 << 31)
			return 0;
		while (n[k] >> bits[k])
			bits[k]++;
	}
	int cell_bits = bits[0] + bits[1] + bits[2];
	return cell_bits + bits[3] <= 63 ? cell_bits : 0;
}

/* The most live cells for which drawing cell by cell costs less than
 * walking every ray: each cell is tested against about a footprint of
 * pixels, each walk through a sparse universe crosses up to nx + ny + nz
 * cells, and a test costs about sixteen steps of a walk. */
RENDER_FN uint64_t render_max_live(const render_view *v)
{
	if (!render_key_shift(v))
		return 0;
	double area = 1;
	for (int k = 0; k < 2; k++) {
		double span = 1 + 2 * v->slack;
		for (int a = 0; a < 3; a++)
			span += v->proj[k][a] < 0 ? -v->proj[k][a] : v->proj[k][a];
		area *= span;
	}
	double walks = (double)v->width * v->height * (double)(v->nx + v->ny + v->nz);
	return (uint64_t)(walks / (16 * area));
}

/* The walk w (as render_first left it) moved to the cell a key names
 * (one its walk visits), entered as the walk enters it. */
RENDER_FN void render_at_key(const render_view *v, int shift, uint64_t key, render_walk *w)
{
	uint64_t index = key & (((uint64_t)1 << shift) - 1), steps;
	int64_t c[3] = {(int64_t)(index / v->nz / v->ny), (int64_t)(index / v->nz % v->ny),
			(int64_t)(index % v->nz)};
	int face = w->face;
	render_visit(w, c, &steps, &face);
	for (int k = 0; k < 3; k++)
		w->cell[k] = c[k];
	w->face = face;
}

RENDER_FN int64_t render_floor(double x)
{
	int64_t t = (int64_t)x;
	return t - (x < (double)t);
}

/* The pixels [*i0, *i1] x [*j0, *j1] whose rays may meet cell c's cube,
 * cut to the picture: false if none. */
RENDER_FN int render_footprint(const render_view *v, const int64_t c[3], int64_t *i0,
			       int64_t *i1, int64_t *j0, int64_t *j1)
{
	double centre[2], half[2];
	for (int k = 0; k < 2; k++) {
		centre[k] = v->at[k];
		half[k] = v->slack;
		for (int a = 0; a < 3; a++) {
			double p = v->proj[k][a];
			centre[k] += p * ((double)c[a] + 0.5);
			half[k] += 0.5 * (p < 0 ? -p : p);
		}
	}
	/* Pixel i's centre, i + 0.5, within centre +- half. */
	*i0 = -render_floor(-(centre[0] - half[0] - 0.5));
	*i1 = render_floor(centre[0] + half[0] - 0.5);
	*j0 = -render_floor(-(centre[1] - half[1] - 0.5));
	*j1 = render_floor(centre[1] + half[1] - 0.5);
	*i0 = *i0 < 0 ? 0 : *i0;
	*j0 = *j0 < 0 ? 0 : *j0;
	*i1 = *i1 > (int64_t)v->width - 1 ? (int64_t)v->width - 1 : *i1;
	*j1 = *j1 > (int64_t)v->height - 1 ? (int64_t)v->height - 1 : *j1;
	return *i0 <= *i1 && *j0 <= *j1;
}

#endif
