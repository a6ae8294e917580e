/* busyboxes.c - see busyboxes.h.
 *
 * The cells a swap looks at are worked out here from their definition
 * (knight's moves of the cell and of the diagonal site) rather than
 * listed: 4 diagonal sites, and for each 2 activators and 12 inhibitors,
 * 28 distinct cells in all in a 7x7 square of the plane, each read once a
 * live cell.  tests/tools/reference.c steps from Golly's own list of the
 * 28, so the two derivations check each other. */
#include "busyboxes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int site(bb_table *t, int a, int b)
{
	for (int i = 0; i < t->n; i++)
		if (t->off[i][0] == a && t->off[i][1] == b)
			return i;
	t->off[t->n][0] = (int8_t)a;
	t->off[t->n][1] = (int8_t)b;
	return t->n++;
}

static bool knight(int a, int b)
{
	int x = abs(a), y = abs(b);
	return (x == 1 && y == 2) || (x == 2 && y == 1);
}

/* Golly's order of the swaps: (1,1), (-1,1), (-1,-1), (1,-1). */
void busyboxes_table(bb_table *t)
{
	static const int diag[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
	memset(t, 0, sizeof *t);
	for (int s = 0; s < 4; s++)
		t->diagonal[s] = (int8_t)site(t, diag[s][0], diag[s][1]);
	for (int s = 0; s < 4; s++) {
		int da = diag[s][0], db = diag[s][1], na = 0, ni = 0;
		/* every knight's move of the cell (0,0) and of the site (da,db) */
		for (int a = -3; a <= 3; a++)
			for (int b = -3; b <= 3; b++) {
				bool of_cell = knight(a, b), of_site = knight(a - da, b - db);
				if (of_cell && of_site)
					t->activator[s][na++] = (int8_t)site(t, a, b);
				else if (of_cell || of_site)
					t->inhibitor[s][ni++] = (int8_t)site(t, a, b);
			}
	}
}

/* The plane of a phase: the axes that a and b run along. */
static void plane_of(unsigned phase, int *ua, int *ub)
{
	static const int axes[3][2] = {{0, 1}, {1, 2}, {0, 2}};   /* XY, YZ, XZ */
	*ua = axes[phase % 3][0];
	*ub = axes[phase % 3][1];
}

static uint64_t wrap(uint64_t at, int d, uint64_t n)
{
	int64_t v = ((int64_t)at + d) % (int64_t)n;
	return (uint64_t)(v < 0 ? v + (int64_t)n : v);
}

/* Where the live cell at c goes this phase (c itself if it stays). */
static void move_of(const bb_table *t, const grid *g, const uint64_t c[3], int ua,
		    int ub, bool mirror, uint64_t to[3])
{
	const uint64_t n[3] = {g->nx, g->ny, g->nz};
	uint32_t live = 0;
	memcpy(to, c, 3 * sizeof *to);
	for (int i = 0; i < t->n; i++) {
		uint64_t p[3] = {c[0], c[1], c[2]};
		p[ua] = wrap(c[ua], t->off[i][0], n[ua]);
		p[ub] = wrap(c[ub], t->off[i][1], n[ub]);
		live |= (uint32_t)grid_get(g, p[0], p[1], p[2]) << i;
	}
	int site = bb_swap_of(t, live);
	if (site < 0)
		return;
	const int8_t *d = t->off[site];
	int64_t a = (int64_t)c[ua] + d[0], b = (int64_t)c[ub] + d[1];
	if (mirror && (a < 0 || b < 0 || (uint64_t)a >= n[ua] || (uint64_t)b >= n[ub]))
		return;            /* "swap position is outside grid" */
	to[ua] = wrap(c[ua], d[0], n[ua]);
	to[ub] = wrap(c[ub], d[1], n[ub]);
}

uint64_t busyboxes_step(const grid *g, uint64_t generation, bool mirror, grid *out)
{
	bb_table table;            /* a few hundred additions: made each time */
	busyboxes_table(&table);
	unsigned phase = (unsigned)(generation % 6);
	int ua, ub;
	plane_of(phase, &ua, &ub);
	uint64_t moved = 0;
	memset(out->bits, 0, grid_bytes(out));
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			for (uint64_t w = 0; w < g->words; w++)
				for (uint64_t v = row[w]; v; v &= v - 1) {
					uint64_t c[3] = {x, y, w * 64 + (uint64_t)__builtin_ctzll(v)}, to[3];
					if (((c[0] + c[1] + c[2]) & 1) != (phase & 1))
						memcpy(to, c, sizeof to);
					else
						move_of(&table, g, c, ua, ub, mirror, to);
					moved += memcmp(to, c, sizeof to) != 0;
					grid_set(out, to[0], to[1], to[2], 1);
				}
		}
	return moved;
}

/* ---- the engine ---- */

typedef struct bb_engine {
	engine head;
	grid cur, next;
	uint64_t generation;     /* of cur: its phase is this mod 6 */
	bool mirror;
	char desc[32];
} bb_engine;

static int bb_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	bb_engine *b = (bb_engine *)e;
	uint64_t moved = 0;
	(void)err;
	for (uint64_t i = 0; i < steps; i++) {
		moved = busyboxes_step(&b->cur, b->generation++, b->mirror, &b->next);
		grid t = b->cur;
		b->cur = b->next;
		b->next = t;
	}
	if (stats) {
		stats->population = grid_population(&b->cur);
		stats->births = stats->deaths = steps ? moved : 0;
	}
	return L3D_OK;
}

static int bb_read(engine *e, grid *out, l3d_err *err)
{
	(void)err;
	memcpy(out->bits, ((bb_engine *)e)->cur.bits, grid_bytes(out));
	return L3D_OK;
}

static int bb_load(engine *e, const grid *u, l3d_err *err)
{
	bb_engine *b = (bb_engine *)e;
	if (u->nx != e->nx || u->ny != e->ny || u->nz != e->nz)
		return l3d_fail(err, L3D_ERR_USAGE, "engine_load: a universe of other sizes");
	memcpy(b->cur.bits, u->bits, grid_bytes(u));
	b->generation = u->generation;
	return L3D_OK;
}

static grid *bb_host_grid(engine *e)
{
	return &((bb_engine *)e)->cur;
}

static const char *bb_describe(const engine *e)
{
	return ((const bb_engine *)e)->desc;
}

static void bb_destroy(engine *e)
{
	bb_engine *b = (bb_engine *)e;
	grid_free(&b->cur);
	grid_free(&b->next);
	free(b);
}

static const engine_ops bb_ops = {
	.name = "busyboxes",
	.step = bb_step,
	.read = bb_read,
	.load = bb_load,
	.host_grid = bb_host_grid,
	.describe = bb_describe,
	.destroy = bb_destroy,
};

int busyboxes_check(const grid *g, l3d_err *err)
{
	if (g->nx % 2 == 0 && g->ny % 2 == 0 && g->nz % 2 == 0)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_USAGE,
			"BusyBoxes needs an even number of cells along each axis; this "
			"universe is %llux%llux%llu", (unsigned long long)g->nx,
			(unsigned long long)g->ny, (unsigned long long)g->nz);
}

int engine_busyboxes_create(const engine_opts *opts, const grid *initial,
			    row_progress *ready, const rule *r, engine **out,
			    l3d_err *err)
{
	(void)opts;
	*out = NULL;
	int rc = busyboxes_check(initial, err);
	uint64_t rows = initial->nx * initial->ny, got = rows;
	if (!rc && ready && (row_progress_wait(ready, rows, &got) || got < rows))
		rc = l3d_fail(err, L3D_ERR_RUNTIME, "the universe's rows did not all come");
	if (rc)
		return rc;
	bb_engine *b = calloc(1, sizeof *b);
	if (!b)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory for the BusyBoxes engine");
	rc = grid_alloc(&b->cur, initial->nx, initial->ny, initial->nz, err);
	if (!rc)
		rc = grid_alloc(&b->next, initial->nx, initial->ny, initial->nz, err);
	if (rc) {
		bb_destroy(&b->head);
		return rc;
	}
	memcpy(b->cur.bits, initial->bits, grid_bytes(initial));
	b->head = (engine){.ops = &bb_ops, .nx = initial->nx, .ny = initial->ny,
			   .nz = initial->nz, .rule = *r};
	b->generation = initial->generation;
	b->mirror = r->family == RULE_BUSYBOXES;
	snprintf(b->desc, sizeof b->desc, "cpu/busyboxes x1 thread");
	*out = &b->head;
	return L3D_OK;
}
