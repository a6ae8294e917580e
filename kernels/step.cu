/* step.cu - how the stepping kernels (step_kernels.cuh) are planned and
 * launched: launch shapes, the split along x, and the rule compiled into
 * the kernels at run time when it can be (rule_jit.cu). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"
#include "step_kernels.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rule_jit.cu's modules as PTX text (rule_ptx.c, made by the build, as
 * many as Makefile.am's JIT_MODULES says). */
extern "C" const char *const l3dk_rule_ptx[L3DK_JIT_MODULES];
static_assert(L3DK_JIT_MODULES == JIT_MODULES, "Makefile.am's JIT_MODULES: "
	      "4 + 5 a neighbourhood other than Moore (step_kernels.cuh)");

namespace {

typedef void (*step_fn)(StepArgs);
typedef const void *kernel_fn;    /* a step_fn, or a cudaKernel_t */

template <int K, int G, int RULE>
step_fn fused_variant(bool exact, bool stats)
{
	if (exact)
		return stats ? step_fused<K, G, RULE, true, true> : step_fused<K, G, RULE, true, false>;
	return stats ? step_fused<K, G, RULE, false, true> : step_fused<K, G, RULE, false, false>;
}

template <int K, int G>
step_fn fused_for_rule(int rule, bool exact, bool stats)
{
	switch (rule) {
	case L3DK_RULE_B6S567: return fused_variant<K, G, L3DK_RULE_B6S567>(exact, stats);
	case L3DK_RULE_LOW: return fused_variant<K, G, L3DK_RULE_LOW>(exact, stats);
	default: return fused_variant<K, G, L3DK_RULE_ANY>(exact, stats);
	}
}

template <int G>
step_fn fused_for_gens(int k, int rule, bool exact, bool stats)
{
	switch (k) {
	case 1: return fused_for_rule<1, G>(rule, exact, stats);
	case 2: return fused_for_rule<2, G>(rule, exact, stats);
	default: return fused_for_rule<3, G>(rule, exact, stats);
	}
}

kernel_fn fused_kernel(const l3dk_plan *p, int k, bool stats)
{
	if (k == 1 && p->jit[stats])
		return p->jit[stats];
	return (kernel_fn)(p->g == 4 ? fused_for_gens<4>(k, p->rule_kind, p->exact, stats)
				     : fused_for_gens<2>(k, p->rule_kind, p->exact, stats));
}

template <int HOOD, int G>
step_fn hood_lanes_variant(bool exact, bool stats)
{
	if (exact)
		return stats ? step_hood_lanes<HOOD, G, L3DK_RULE_LOW, true, true>
			     : step_hood_lanes<HOOD, G, L3DK_RULE_LOW, true, false>;
	return stats ? step_hood_lanes<HOOD, G, L3DK_RULE_LOW, false, true>
		     : step_hood_lanes<HOOD, G, L3DK_RULE_LOW, false, false>;
}

template <int HOOD>
step_fn hood_lanes_for_words(int g, bool exact, bool stats)
{
	return g == 4 ? hood_lanes_variant<HOOD, 4>(exact, stats)
		      : hood_lanes_variant<HOOD, 2>(exact, stats);
}

kernel_fn hood_lanes_kernel(const l3dk_plan *p, bool stats)
{
	if (p->jit[stats])
		return p->jit[stats];
	return (kernel_fn)small_hood(p->hood, [&](auto h) {
		return hood_lanes_for_words<decltype(h)::value>(p->g, p->exact, stats);
	});
}

template <int HOOD>
step_fn hood_variant(bool stats)
{
	return stats ? step_hood<HOOD, L3DK_RULE_LOW, true> : step_hood<HOOD, L3DK_RULE_LOW, false>;
}

kernel_fn generic_kernel(const l3dk_plan *p, bool stats)
{
	if (p->hood != RULE_MOORE && p->jit[stats])
		return p->jit[stats];
	step_fn fn;
	if (p->hood == RULE_MOORE && p->rule_kind == L3DK_RULE_B6S567)
		fn = stats ? step_generic<L3DK_RULE_B6S567, true> : step_generic<L3DK_RULE_B6S567, false>;
	else if (p->hood == RULE_MOORE)
		fn = stats ? step_generic<L3DK_RULE_ANY, true> : step_generic<L3DK_RULE_ANY, false>;
	else
		fn = small_hood(p->hood, [&](auto h) { return hood_variant<decltype(h)::value>(stats); });
	return (kernel_fn)fn;
}

/* ---- the rule compiled in at run time (rule_jit.cu) ---- */

/* Libraries loaded so far, one a module and rule, kept for the process:
 * plans are values, made again for each engine, and share them (a run
 * has one rule; a test program many). */
struct JitEntry {
	int module;
	uint32_t b, s;
	int regs;
	cudaLibrary_t lib;
};
JitEntry *jit_loaded;
size_t jit_count, jit_room;

/* A module's text with the rule's leaf words over the placeholders
 * (every occurrence; at least one of each), or NULL. */
char *jit_text(int module, uint32_t b, uint32_t s)
{
	const char *src = l3dk_rule_ptx[module];
	char *t = (char *)malloc(strlen(src) + 1);
	if (!t)
		return nullptr;
	strcpy(t, src);
	const char *mark[2] = {L3DK_MARK_B, L3DK_MARK_S};
	uint32_t word[2] = {b, s};
	for (int i = 0; i < 2; i++) {
		size_t len = strlen(mark[i]), found = 0;
		char value[16];
		snprintf(value, sizeof value, "0x%08X", word[i]);
		for (char *at = strstr(t, mark[i]); at; at = strstr(at + len, mark[i]), found++)
			memcpy(at, value, len);
		if (!found) {
			free(t);
			return nullptr;
		}
	}
	return t;
}

cudaError_t jit_library(int module, uint32_t b, uint32_t s, int regs, cudaLibrary_t *lib)
{
	for (size_t i = 0; i < jit_count; i++)
		if (jit_loaded[i].module == module && jit_loaded[i].b == b && jit_loaded[i].s == s &&
		    jit_loaded[i].regs == regs) {
			*lib = jit_loaded[i].lib;
			return cudaSuccess;
		}
	if (jit_count == jit_room) {
		size_t room = jit_room ? 2 * jit_room : 4;
		JitEntry *more = (JitEntry *)realloc(jit_loaded, room * sizeof *more);
		if (!more)
			return cudaErrorMemoryAllocation;
		jit_loaded = more;
		jit_room = room;
	}
	char *text = jit_text(module, b, s);
	if (!text)
		return cudaErrorInvalidPtx;
	cudaJitOption opt[1] = {cudaJitMaxRegisters};
	void *value[1] = {(void *)(uintptr_t)(unsigned)regs};
	cudaError_t e = cudaLibraryLoadData(lib, text, opt, value, regs > 0, nullptr, nullptr, 0);
	free(text);
	if (e == cudaSuccess)
		jit_loaded[jit_count++] = JitEntry{module, b, s, regs, *lib};
	return e;
}

/* rule_jit.cu's module for a plan's path (step_kernels.cuh's JIT_WORD and
 * JIT_LANES): 0-3 the fused kernel, 2 or 4 words a lane (bit 1), exact rows
 * or not (bit 0); then the kernel of a thread a word of each neighbourhood
 * after Moore; then their kernels of lanes, 4 a neighbourhood, numbered as
 * the fused ones. */
int jit_module(const l3dk_plan *p)
{
	int shape = (p->g == 4) * 2 + (p->exact != 0);
	if (p->hood == RULE_MOORE)
		return shape;
	return p->path == L3DK_PATH_HOOD ? JIT_LANES + (p->hood - 1) * 4 + shape
					 : JIT_WORD + p->hood - 1;
}

/* Registers a thread for a module, 0 for the compiler's choice (tuning's
 * regs overrides): in lanes of 4 words, the neighbourhood's WIDE_REGS
 * (step_kernels.cuh).  E and H there want 88-95 and 72-74; held to 80
 * they ran 4-5% faster at 1024^3 on an H200, while F and C, and other
 * bounds, did not gain (kernels/NOTES.md, "F, C, E and H in lanes"). */
int jit_regs(const l3dk_plan *p, const l3dk_tuning *tune)
{
	if (tune && tune->regs)
		return tune->regs;
	if (p->path != L3DK_PATH_HOOD || p->g != 4)
		return 0;
	return small_hood(p->hood, [](auto h) { return HoodLanes<decltype(h)::value>::WIDE_REGS; });
}

/* The generic Moore kernel has no compiled copy; every other path does. */
bool jit_covers(const l3dk_plan *p)
{
	return p->hood != RULE_MOORE || p->path == L3DK_PATH_FUSED;
}

/* The plan's one-generation kernels with its rule compiled in (Hopper and
 * later: the PTX is compute_90's), or none, the reason in p->jit_error.
 * B6/S567 has its own kernels, and the generic Moore kernel no compiled
 * copy. */
void jit_attach(l3dk_plan *p, const l3dk_tuning *tune)
{
	p->jit[0] = p->jit[1] = nullptr;
	p->jit_error = cudaSuccess;
	if (p->rule_kind == L3DK_RULE_B6S567 || (tune && tune->params) || !jit_covers(p))
		return;
	int dev = 0, major = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
	if (e == cudaSuccess && major < 9)
		e = cudaErrorUnsupportedPtxVersion;
	StepArgs a;
	fill_args(p, nullptr, &a);
	uint32_t b = 0, s = 0;
	for (int i = 0; i < 32; i++) {
		b |= (a.leaf_b[i] & 1u) << i;
		s |= (a.leaf_s[i] & 1u) << i;
	}
	int module = jit_module(p);
	cudaLibrary_t lib;
	cudaKernel_t k[2];
	if (e == cudaSuccess)
		e = jit_library(module, b, s, jit_regs(p, tune), &lib);
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&k[0], lib, "l3dk_jit_s0");
	if (e == cudaSuccess)
		e = cudaLibraryGetKernel(&k[1], lib, "l3dk_jit_s1");
	if (e != cudaSuccess) {
		cudaGetLastError();
		p->jit_error = e;
		return;
	}
	p->jit[0] = (const void *)k[0];
	p->jit[1] = (const void *)k[1];
}

/* Blocks along x.  A block's time is about its chunk plus the 3k-1 planes
 * that fill its pipeline plus a start-up worth some 8 planes; the launch
 * takes as many such times as there are waves of blocks.  Pick the split
 * with the least total (measured on an H100: one wave of long chunks beat
 * sixteen waves of short ones by 10% at 2048^3). */
uint32_t split_x(uint32_t nx, uint32_t blocks_y, uint64_t slots, int k)
{
	uint32_t best = 1;
	double best_time = 0;
	for (uint32_t bx = 1; bx <= nx && (uint64_t)bx * blocks_y <= 16 * slots; bx++) {
		uint32_t chunk = ceil_div(nx, bx);
		if (ceil_div(nx, chunk) != bx)
			continue;
		uint64_t waves = ((uint64_t)bx * blocks_y + slots - 1) / slots;
		double time = (double)waves * (chunk + 3.0 * k - 1 + 8);
		if (bx == 1 || time < best_time * 0.999) {
			best_time = time;
			best = bx;
		}
	}
	return best;
}

/* The most warps a block of these kernels can have (registers). */
cudaError_t max_warps(const kernel_fn fn[2], uint32_t *warps)
{
	int threads = 1024;
	for (int i = 0; i < 2; i++) {
		cudaFuncAttributes fa;
		cudaError_t e = cudaFuncGetAttributes(&fa, fn[i]);
		if (e != cudaSuccess)
			return e;
		threads = fa.maxThreadsPerBlock < threads ? fa.maxThreadsPerBlock : threads;
	}
	*warps = (uint32_t)threads / 32;
	return cudaSuccess;
}

/* Warps a block: 16 (the most that 128 registers a thread allow; more rows
 * share each halo), but blocks of at most half the rows so a small universe
 * still spreads over the SMs (256^3: 8 warps ran 14% faster than 16), and
 * never more rows than the universe has.  0: no shape fits. */
uint32_t pick_warps(const l3dk_plan *p, int k, const l3dk_tuning *tune, uint32_t most)
{
	uint32_t half = p->ny / 2 / p->rpw;
	uint32_t want = tune && tune->warps ? (uint32_t)tune->warps : half < 16 ? half : 16;
	uint32_t need = ceil_div((uint64_t)p->ny + 2 * (k - 1), p->rpw);
	uint32_t warps = want < need ? want : need;
	warps = warps > most ? most : warps;
	return warps < ceil_div(2 * k, p->rpw) ? 0 : warps;
}

/* Shape of a fused launch advancing k generations. */
cudaError_t shape_launch(l3dk_plan *p, int k, const l3dk_tuning *tune, int sms)
{
	l3dk_launch *c = &p->cfg[k];
	kernel_fn fn[2] = {fused_kernel(p, k, false), fused_kernel(p, k, true)};
	uint32_t most;
	cudaError_t e = max_warps(fn, &most);
	if (e != cudaSuccess)
		return e;
	uint32_t warps = pick_warps(p, k, tune, most);
	if (!warps)
		return cudaErrorInvalidConfiguration;
	c->threads = warps * 32;
	c->rows = warps * p->rpw;
	c->out_rows = c->rows - 2 * (k - 1);
	/* Input ring and z-sum buffers (2 bits x 2 parities a stage), each
	 * rows + 2 rows of w32 words; a barrier per warp and parity. */
	c->smem = (size_t)(RING + k * 4) * (c->rows + 2) * p->w32 * sizeof(uint32_t) +
		  (size_t)warps * 2 * 8;
	for (int i = 0; i < 2 && e == cudaSuccess; i++)
		e = cudaFuncSetAttribute(fn[i], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c->smem);
	int per_sm = 0;
	if (e == cudaSuccess)
		e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn[1],
								  c->threads, c->smem);
	if (e != cudaSuccess)
		return e;
	if (per_sm < 1)
		return cudaErrorInvalidConfiguration;
	c->blocks_y = ceil_div(p->ny, c->out_rows);
	c->slots = (uint64_t)per_sm * sms;
	uint32_t bx = split_x(p->nx, c->blocks_y, c->slots, k);
	c->chunk = tune && tune->chunk ? (uint32_t)tune->chunk : ceil_div(p->nx, bx);
	c->chunk = c->chunk > p->nx ? p->nx : c->chunk;
	c->blocks_x = ceil_div(p->nx, c->chunk);
	return cudaSuccess;
}

/* Box, rule and lane geometry; the generic path when rows are too long
 * for a warp. */
void plan_geometry(l3dk_plan *p, uint64_t nx, uint64_t ny, uint64_t nz, uint32_t birth,
		   uint32_t survive, rule_hood hood, const l3dk_tuning *tune)
{
	*p = l3dk_plan{};
	p->nx = (uint32_t)nx;
	p->ny = (uint32_t)ny;
	p->nz = (uint32_t)nz;
	p->w32 = (uint32_t)(2 * ((nz + 63) / 64));
	p->wl = (uint32_t)((nz - 1) / 32);
	p->bl = (uint32_t)((nz - 1) % 32);
	p->exact = nz % 64 == 0;
	p->birth = birth;
	p->survive = survive;
	p->hood = hood;
	/* S counts the cell: a live cell with n neighbours has S = n + 1 */
	bool low = (birth >> 16) == 0 && (survive >> 15) == 0;
	p->rule_kind = birth == (1u << 6) && survive == (7u << 5) ? L3DK_RULE_B6S567
		       : low ? L3DK_RULE_LOW : L3DK_RULE_ANY;
	p->g = tune && tune->words ? tune->words : p->w32 % 4 == 0 ? 4 : 2;
	if (p->w32 % p->g)
		p->g = 2;
	p->lpr = p->w32 / p->g;
	p->rpw = p->lpr <= 32 ? 32 / p->lpr : 0;
	p->path = (tune && tune->generic) || p->lpr > 32 ? L3DK_PATH_GENERIC
		  : hood == RULE_MOORE ? L3DK_PATH_FUSED : L3DK_PATH_HOOD;
	/* One generation a pass: on an H100 it streams at 93-95% of copy
	 * bandwidth, while fusing two (the registers of two stages allow 12
	 * warps per SM) measured 6-10% slower; see kernels/NOTES.md,
	 * "Versions". */
	p->fuse = p->path != L3DK_PATH_FUSED ? 1 : tune && tune->fuse ? tune->fuse : 1;
	if (p->fuse > L3DK_MAX_FUSE)
		p->fuse = L3DK_MAX_FUSE;
}

/* Shape of the F/C/E/H lanes kernel: blocks of 4 warps (tuning's warps)
 * over chunks of HOOD_LANES_CHUNK planes (tuning's chunk).  Small blocks
 * fill the SMs closer to what the registers allow: at 1024^3 on an H200,
 * 4 warps ran C, E and H 5-13% faster than 8 (kernels/NOTES.md, "F, C,
 * E and H in lanes"). */
void shape_hood(l3dk_plan *p, const l3dk_tuning *tune)
{
	l3dk_launch *c = &p->cfg[1];
	uint32_t warps = tune && tune->warps ? (uint32_t)tune->warps : 4;
	warps = warps > 32 ? 32 : warps;
	c->threads = warps * 32;
	c->rows = c->out_rows = warps * p->rpw;
	c->blocks_y = ceil_div(p->ny, c->rows);
	c->chunk = tune && tune->chunk ? (uint32_t)tune->chunk : HOOD_LANES_CHUNK;
	c->chunk = c->chunk > p->nx ? p->nx : c->chunk;
	c->blocks_x = ceil_div(p->nx, c->chunk);
	c->smem = 0;
}

/* Launch shapes for 1..fuse generations.  A shape the device cannot run
 * (too many registers or too much shared memory for the halo) means fusing
 * fewer generations, down to the generic kernel. */
cudaError_t plan_shapes(l3dk_plan *p, const l3dk_tuning *tune)
{
	int dev = 0, sms = 0;
	cudaError_t e = cudaGetDevice(&dev);
	if (e == cudaSuccess)
		e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	for (int k = 1; k <= p->fuse && e == cudaSuccess; k++) {
		e = shape_launch(p, k, tune, sms);
		if (e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue) {
			cudaGetLastError();
			p->fuse = k - 1;
			e = cudaSuccess;
		}
	}
	if (p->fuse == 0) {
		p->path = L3DK_PATH_GENERIC;
		p->fuse = 1;
	}
	return e;
}

/* Launch k generations of nx planes (the plan's own nx on the torus). */
cudaError_t launch(const l3dk_plan *p, const l3dk_launch *c, const void *src, void *dst,
		   int gens, uint32_t nx, bool open, l3dk_counts *counts, int pdl, cudaStream_t s)
{
	bool generic = p->path == L3DK_PATH_GENERIC;
	StepArgs a;
	fill_args(p, c, &a);
	a.nx = nx;
	a.open = open;
	a.x_end = open ? (int32_t)nx + gens : (int32_t)nx;
	a.src = static_cast<const uint32_t *>(src);
	a.dst = static_cast<uint32_t *>(dst);
	a.counts = counts;
	dim3 grid, block(256);
	size_t smem = 0;
	if (generic && p->hood != RULE_MOORE) {
		grid = dim3(ceil_div(a.plane, 256), ceil_div(nx, HOOD_CHUNK));
	} else if (generic) {
		uint64_t words = (uint64_t)nx * a.plane;
		uint64_t blocks = (words + 255) / 256;
		grid = dim3((unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16));
	} else {
		grid = dim3(c->blocks_x, c->blocks_y);
		block = dim3(c->threads);
		smem = c->smem;
	}
	kernel_fn fn = generic ? generic_kernel(p, counts != nullptr)
		       : p->path == L3DK_PATH_HOOD ? hood_lanes_kernel(p, counts != nullptr)
						    : fused_kernel(p, gens, counts != nullptr);
	void *args[] = {&a};
	return launch_cfg(fn, args, grid, block, smem, pdl, s);
}

} /* namespace */

extern "C" cudaError_t l3dk_plan_make(l3dk_plan *p, uint64_t nx, uint64_t ny, uint64_t nz,
				      uint32_t birth, uint32_t survive, rule_hood hood,
				      const l3dk_tuning *tune)
{
	plan_geometry(p, nx, ny, nz, birth, survive, hood, tune);
	jit_attach(p, tune);
	if (p->path == L3DK_PATH_HOOD)
		shape_hood(p, tune);
	cudaError_t e = p->path == L3DK_PATH_FUSED ? plan_shapes(p, tune) : cudaSuccess;
	if (!jit_covers(p))          /* plan_shapes fell back to the generic kernel */
		p->jit[0] = p->jit[1] = nullptr;
	return e;
}

extern "C" cudaError_t l3dk_step(const l3dk_plan *p, const void *src, void *dst, int gens,
				 l3dk_counts *counts, int pdl, cudaStream_t s)
{
	if (gens < 1 || gens > p->fuse)
		return cudaErrorInvalidValue;
	const l3dk_launch *c = p->path == L3DK_PATH_GENERIC ? nullptr : &p->cfg[gens];
	return launch(p, c, src, dst, gens, p->nx, false, counts, pdl, s);
}

/* The plan's one-generation shape, its x split redone for nx planes. */
extern "C" cudaError_t l3dk_step_open(const l3dk_plan *p, const void *src, void *dst,
				      uint64_t nx, l3dk_counts *counts, int pdl, cudaStream_t s)
{
	if (nx == 0)
		return cudaSuccess;
	if (nx > p->nx)
		return cudaErrorInvalidValue;
	if (p->path == L3DK_PATH_GENERIC)
		return launch(p, nullptr, src, dst, 1, (uint32_t)nx, true, counts, pdl, s);
	l3dk_launch c = p->cfg[1];
	if (p->path == L3DK_PATH_HOOD)
		c.chunk = c.chunk < nx ? c.chunk : (uint32_t)nx;
	else
		c.chunk = ceil_div(nx, split_x((uint32_t)nx, c.blocks_y, c.slots, 1));
	c.blocks_x = ceil_div(nx, c.chunk);
	return launch(p, &c, src, dst, 1, (uint32_t)nx, true, counts, pdl, s);
}
