/* engine_cpu.c - the CPU engine: plain and exact.
 *
 * Each cell's 26 neighbours are read one bit at a time from the nine rows
 * around it.  This is the simple version the fast bit-sliced engine
 * replaces; the interface does not change. */
#include "engine_cpu.h"

#include <stdlib.h>
#include <string.h>

typedef struct cpu_engine {
	engine base;
	grid cur, next;
	int threads;
} cpu_engine;

static inline unsigned bit(const uint64_t *row, uint64_t z)
{
	return (unsigned)((row[z >> 6] >> (z & 63)) & 1u);
}

void cpu_step_slab(const cpu_slab *s, const rule *r, int threads,
		   engine_stats *stats)
{
	uint64_t plane = s->ny * s->words, pop = 0, born = 0, died = 0;
	for (uint64_t x = 0; x < s->nx; x++) {
		const uint64_t *pl[3] = {
			x == 0 ? s->halo_lo : s->src + (x - 1) * plane,
			s->src + x * plane,
			x + 1 == s->nx ? s->halo_hi : s->src + (x + 1) * plane,
		};
		for (uint64_t y = 0; y < s->ny; y++) {
			uint64_t ys[3] = {(y + s->ny - 1) % s->ny, y, (y + 1) % s->ny};
			uint64_t *out = s->dst + x * plane + y * s->words;
			memset(out, 0, s->words * 8);
			for (uint64_t z = 0; z < s->nz; z++) {
				uint64_t zs[3] = {(z + s->nz - 1) % s->nz, z,
						  (z + 1) % s->nz};
				unsigned sum = 0;
				for (int i = 0; i < 3; i++)
					for (int j = 0; j < 3; j++) {
						const uint64_t *row = pl[i] + ys[j] * s->words;
						for (int k = 0; k < 3; k++)
							sum += bit(row, zs[k]);
					}
				unsigned alive = bit(pl[1] + y * s->words, z);
				sum -= alive;
				unsigned now = ((alive ? r->survive : r->birth) >> sum) & 1u;
				out[z >> 6] |= (uint64_t)now << (z & 63);
				pop += now;
				born += !alive && now;
				died += alive && !now;
			}
		}
	}
	if (stats) {
		stats->population += pop;
		stats->births += born;
		stats->deaths += died;
	}
}

static int cpu_step(engine *e, uint64_t steps, engine_stats *stats, l3d_err *err)
{
	cpu_engine *c = (cpu_engine *)e;
	uint64_t plane = c->cur.ny * c->cur.words;
	for (uint64_t i = 0; i < steps; i++) {
		cpu_slab s = {c->cur.nx, c->cur.ny, c->cur.nz, c->cur.words,
			      c->cur.bits, c->next.bits,
			      c->cur.bits + (c->cur.nx - 1) * plane, c->cur.bits};
		engine_stats st = {0, 0, 0};
		bool last = i + 1 == steps;
		cpu_step_slab(&s, &e->rule, c->threads, last && stats ? &st : NULL);
		if (last && stats)
			*stats = st;
		uint64_t *t = c->cur.bits;
		c->cur.bits = c->next.bits;
		c->next.bits = t;
	}
	return L3D_OK;
}

static int cpu_read(engine *e, grid *out, l3d_err *err)
{
	cpu_engine *c = (cpu_engine *)e;
	memcpy(out->bits, c->cur.bits, grid_bytes(&c->cur));
	return L3D_OK;
}

static void cpu_destroy(engine *e)
{
	cpu_engine *c = (cpu_engine *)e;
	grid_free(&c->cur);
	grid_free(&c->next);
	free(c);
}

static const engine_ops cpu_ops = {
	.name = "cpu",
	.step = cpu_step,
	.read = cpu_read,
	.destroy = cpu_destroy,
};

int engine_cpu_create(const engine_opts *opts, const grid *initial,
		      const rule *r, engine **out, l3d_err *err)
{
	cpu_engine *c = calloc(1, sizeof *c);
	if (!c)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	int rc = grid_alloc(&c->cur, initial->nx, initial->ny, initial->nz, err);
	if (!rc)
		rc = grid_alloc(&c->next, initial->nx, initial->ny, initial->nz, err);
	if (rc) {
		cpu_destroy(&c->base);
		return rc;
	}
	memcpy(c->cur.bits, initial->bits, grid_bytes(initial));
	c->base.ops = &cpu_ops;
	c->base.nx = initial->nx;
	c->base.ny = initial->ny;
	c->base.nz = initial->nz;
	c->base.rule = *r;
	c->threads = opts ? opts->threads : 0;
	*out = &c->base;
	return L3D_OK;
}

const char *engine_cpu_simd_paths(void)
{
	return "portable";
}
