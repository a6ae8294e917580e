/* choose.c - see choose.h. */
#include "choose.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busyboxes.h"
#include "cpu/cpu.h"
#include "cpu/stepper.h"
#include "cuda/bbgpu.h"
#include "cuda/cuda.h"
#include "cuda/device.h"
#include "estimate.h"
#include "handover.h"
#include "visible.h"
#include "base/hostmem.h"

/* Without the NVIDIA driver's control node the probe fails at once, so
 * there is nothing to wait for and no reason to start twice. */
static bool gpu_driver_present(void)
{
	return access("/dev/nvidiactl", F_OK) == 0;
}

/* The tiles of activity skipping (skip.c, cpu_skip_create): per tile, a
 * changed flag, a mark and a list entry (uint32_t each), the counts of
 * either parity and a tile's result.  A tile is 4 planes by at least 4
 * rows, rounded up to whole cache lines of rows (cpu_stepper_row_unit):
 * the count here is the most there can be where they weigh (rows of a
 * few words; longer rows may make a tile fewer rows, but then the rows
 * outweigh the tiles many times over). */
static uint64_t tile_bytes(uint64_t nx, uint64_t ny, uint64_t nz)
{
	uint64_t words = (nz + 63) / 64, line = words & 7 ? 8 / (words & -words) : 1;
	uint64_t rows = (4 + line - 1) / line * line;
	uint64_t tiles = (nx + 3) / 4 * ((ny + rows - 1) / rows);
	return tiles * (3 * sizeof(uint32_t) + 2 * sizeof(engine_stats) +
			sizeof(cpu_tile_result));
}

uint64_t engine_cpu_bytes(const engine_opts *opts, uint64_t nx, uint64_t ny, uint64_t nz,
			  uint64_t *tiles)
{
	grid dims = {.nx = nx, .ny = ny, .nz = nz, .words = (nz + 63) / 64};
	uint64_t bytes = 2 * (uint64_t)grid_bytes(&dims);    /* cpu.c: cur, next */
	uint64_t t = engine_knobs_of(opts)->dense ? 0 : tile_bytes(nx, ny, nz);
	if (tiles)
		*tiles = t;
	return bytes + t;
}

uint64_t engine_host_bytes(const engine_opts *opts, uint64_t nx, uint64_t ny, uint64_t nz,
			   uint64_t *tiles, bool *cpu)
{
	grid dims = {.nx = nx, .ny = ny, .nz = nz, .words = (nz + 63) / 64};
	*cpu = engine_surely_cpu(opts);
	*tiles = 0;
	return *cpu ? engine_cpu_bytes(opts, nx, ny, nz, tiles)
		    : engine_cuda_host_bytes(grid_bytes(&dims));
}

bool engine_surely_cpu(const engine_opts *opts)
{
	engine_kind kind;
	l3d_err ignored;
	if (engine_kind_of(opts, &kind, &ignored) != L3D_OK)
		return false;
#ifdef HAVE_CUDA
	bool gpu = gpu_driver_present();
#else
	bool gpu = false;       /* auto has nowhere else to go */
#endif
	return kind == ENGINE_CPU || (kind == ENGINE_AUTO && !gpu);
}

/* Refuse before allocating rather than be killed for memory later.  The
 * caller holds `initial` until the engine has its copy and then lets it
 * go, so beyond what is taken now the engine needs its figure less one
 * universe (the buffer of the first step takes the place of initial). */
static int cpu_create_checked(const engine_opts *opts, const grid *initial,
			      row_progress *ready, const rule *r, engine **out,
			      l3d_err *err)
{
	char what[96];
	snprintf(what, sizeof what, "the CPU engine for a %llux%llux%llu universe",
		 (unsigned long long)initial->nx, (unsigned long long)initial->ny,
		 (unsigned long long)initial->nz);
	uint64_t need = engine_cpu_bytes(opts, initial->nx, initial->ny, initial->nz, NULL) -
			grid_bytes(initial);
	int rc = host_memory_check((size_t)need, what, err);
	return rc ? rc : engine_cpu_create(opts, initial, ready, r, out, err);
}

/* A small universe starts on the CPU while the GPU context is still being
 * created (engine_warm_up) and moves to the GPU once it is: the CPU engine
 * finishes many small runs before a context would be ready, and a universe
 * this small crosses to the device in a millisecond.  Larger ones wait for
 * the GPU, which then takes their rows as they are read: at 512^3 the CPU
 * steps while it waits were worth no more than the move cost (and the
 * busy cores slowed the GPU's set-up), see src/engine/NOTES.md, "Whole
 * process: the HPCGame workloads".  A device named with --device is
 * checked before the first step, as for any other run, so a wrong one is
 * an error whether or not the run is short. */
#define HANDOVER_MAX_BYTES ((size_t)2 << 20)

/* auto leaves the GPU alone when the CPU engine should be done before a
 * GPU context would even be ready: creating one takes about 0.3 s on the
 * H100 machine, and a creation abandoned at exit still costs about 0.1 s
 * (src/engine/NOTES.md, "auto leaves the GPU alone for short runs").  Runs
 * whose dense CPU time (cpu_stepper_rate: the rule, the rows' fit to the
 * vectors) is below CPU_ALONE_SECONDS go to the CPU at once.  Above that,
 * skipping may still bring the CPU under the GPU's start, so the run waits
 * for a sample of its universe to say so (estimate.h) before it starts a
 * GPU at all: the CPU runs alone when the sample puts its steps under
 * cpu_bound, about what a GPU run adds to a CPU run that steps nothing.
 * That shrinks as the universe grows (the CPU reads and writes the cells
 * in the open while the GPU's start hides its reading): on the H200
 * machine 0.34 s at 512^3, 0.31 s at 704^3, 0.23-0.26 s at 896^3 and
 * 0.20-0.24 s at 1024^3, so SAMPLED_CPU_SECONDS less SAMPLED_CPU_PER_GCELL
 * for each 2^30 cells (src/engine/NOTES.md, "auto's rates: the rule and
 * the rows"; measured again once the GPU's start and end were shortened,
 * "A GPU run's start and end, taken apart", the choice still turns between
 * 768^3 and 800^3, where the two engines tie).  The driver sets up every
 * GPU the process may see before the first context exists, about 0.26 s a
 * GPU on a 2-GPU H200 machine, so each GPU beyond the first adds
 * SAMPLED_CPU_PER_GPU to the bound.  No sample is taken where even one
 * that settled at once would leave the CPU over that bound (the GPU then
 * starts while the input is read, as before); a sample that shows a run
 * busy stops within a few of its steps, and one that is not busy costs a
 * few milliseconds.  A device named with --device is wanted, and checked,
 * however short the run. */
#define CPU_ALONE_SECONDS 0.2
#define SAMPLED_CPU_SECONDS 0.36
#define SAMPLED_CPU_PER_GCELL 0.16
#define SAMPLED_CPU_PER_GPU 0.26

static char narrowed_to[64];

/* The GPUs beyond the first that this process's GPU start would set up:
 * those CUDA_VISIBLE_DEVICES names, as engine_warm_up left it. */
static int extra_gpus(const engine_opts *opts)
{
	const char *visible = *narrowed_to ? narrowed_to : engine_knobs_of(opts)->cuda_visible;
	int gpus = engine_gpus_to_set_up("/dev", visible);
	return gpus > 1 ? gpus - 1 : 0;
}

/* The CPU steps' seconds under which the CPU alone finishes first, with
 * `extra` GPUs to set up beyond the first. */
static double cpu_bound(const engine_opts *opts, int extra)
{
	double cells = opts->steps > 0 ? opts->work / opts->steps : 0;
	return SAMPLED_CPU_SECONDS + SAMPLED_CPU_PER_GPU * extra -
	       SAMPLED_CPU_PER_GCELL * cells / 1073741824.0;
}

typedef enum auto_way { AUTO_GPU, AUTO_CPU, AUTO_SAMPLE } auto_way;

/* What auto said about its choice, for -v. */
static char auto_reason[256];

/* Where an auto run goes before its universe is seen. */
static auto_way auto_way_of(const engine_opts *opts)
{
	if (!opts || opts->device >= 0 || opts->work <= 0)
		return AUTO_GPU;
	double dense = estimate_dense_seconds(opts);
	if (dense < CPU_ALONE_SECONDS)
		return AUTO_CPU;
	if (!engine_knobs_of(opts)->dense && gpu_driver_present() &&
	    estimate_least_seconds(opts) < cpu_bound(opts, extra_gpus(opts)))
		return AUTO_SAMPLE;
	return AUTO_GPU;
}

/* An AUTO_SAMPLE run, once its sample's rows are in: the CPU or the GPU. */
static auto_way auto_way_sampled(const engine_opts *opts, const grid *initial,
				 row_progress *ready, const rule *r)
{
	char why[200], gpus_why[32] = "";
	int extra = extra_gpus(opts);
	double bound = cpu_bound(opts, extra);
	double est = estimate_skipping_seconds(opts, initial, ready, r, bound, why,
					       sizeof why);
	if (est < 0)
		return AUTO_GPU;
	bool cpu = est < bound;
	if (extra)
		snprintf(gpus_why, sizeof gpus_why, ", %d GPUs to set up", extra + 1);
	snprintf(auto_reason, sizeof auto_reason, "%s against %.2g s%s, so %s", why,
		 bound, gpus_why, cpu ? "the CPU alone" : "the GPU");
	return cpu ? AUTO_CPU : AUTO_GPU;
}

/* Only a run that stepped on the CPU while the GPU started leaves that
 * start-up behind at the end; every other run waits for it as usual. */
static bool gpu_started_under_cpu;

typedef struct gpu_later {
	engine_opts opts;
	rule rule;
} gpu_later;

static bool gpu_ready(void *ctx)
{
	(void)ctx;
	return !cuda_warming();
}

static int gpu_make(void *ctx, const grid *now, engine **out, l3d_err *err)
{
	gpu_later *g = ctx;
	engine_settle();
	if (cuda_device_count() == 0)
		return l3d_fail(err, L3D_ERR_UNAVAILABLE, "no GPU");
	return engine_cuda_create(&g->opts, now, NULL, &g->rule, out, err);
}

static int cpu_until_gpu(const engine_opts *opts, const grid *initial,
			 row_progress *ready, const rule *r, engine **out,
			 l3d_err *err)
{
	engine *cpu;
	int rc = cpu_create_checked(opts, initial, ready, r, &cpu, err);
	if (rc)
		return rc;
	gpu_later *g = malloc(sizeof *g);
	if (!g) {
		engine_destroy(cpu);
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	}
	g->opts = opts ? *opts : (engine_opts){"auto", 0, -1, NULL, 0, 0, NULL, 0, 0, NULL, 0};
	g->rule = *r;
	gpu_started_under_cpu = true;
	handover_next next = {gpu_ready, gpu_make, free, g, "the GPU"};
	return engine_handover_create(cpu, next, out, err);
}

/* BusyBoxes: the GPU's engine for --engine cuda, and for auto where a GPU
 * is there and would finish first: the CPU's engine steps the live cells
 * alone (BB_CPU_RATE a second, one thread), the GPU every word of the box
 * (BB_GPU_RATE cells a second, BB_GPU_GEN a generation at least) after
 * BB_GPU_START to start.  Measured on one NVIDIA H200 (src/engine/NOTES.md,
 * "BusyBoxes"): a Golly pattern of a few hundred cells stays on the CPU,
 * a soup of a 128^3 box goes to the GPU, a few cells in 1024^3 do not. */
#define BB_CPU_RATE 7e6
#define BB_GPU_RATE 3e10
#define BB_GPU_GEN 2e-5
#define BB_GPU_START 0.2

static bool busyboxes_gpu_first(const engine_opts *opts, const grid *initial)
{
	if (!opts)
		return false;
	double steps = (double)opts->steps;
	double cells = (double)initial->nx * initial->ny * initial->nz;
	double cpu_s = (double)grid_population(initial) * steps / BB_CPU_RATE;
	double gen_s = cells / BB_GPU_RATE > BB_GPU_GEN ? cells / BB_GPU_RATE : BB_GPU_GEN;
	return BB_GPU_START + steps * gen_s < cpu_s;
}

static bool busyboxes_on_gpu(const engine_opts *opts, const grid *initial)
{
	return busyboxes_gpu_first(opts, initial) && gpu_driver_present() &&
	       cuda_device_count() > 0;
}

static int busyboxes_create(const engine_opts *opts, const grid *initial,
			    row_progress *ready, const rule *r, engine **out, l3d_err *err)
{
	engine_kind kind;
	int rc = engine_kind_of(opts, &kind, err);
	if (rc)
		return rc;
	/* Both engines take the universe whole: its rows first, then the
	 * population is there to choose by. */
	uint64_t rows = initial->nx * initial->ny, got = rows;
	if (ready && (row_progress_wait(ready, rows, &got) || got < rows))
		return l3d_fail(err, L3D_ERR_RUNTIME, "the universe's rows did not all come");
	ready = NULL;
	if (kind == ENGINE_CUDA || (kind == ENGINE_AUTO && busyboxes_on_gpu(opts, initial))) {
		rc = engine_bbgpu_create(opts, initial, ready, r, out, err);
		if (kind == ENGINE_CUDA || rc != L3D_ERR_UNAVAILABLE)
			return rc;
	}
	return engine_busyboxes_create(opts, initial, ready, r, out, err);
}

int engine_create_streamed(const engine_opts *opts, const grid *initial,
			   row_progress *ready, const rule *r, engine **out,
			   l3d_err *err)
{
	engine_kind kind;
	*out = NULL;
	if (r && rule_is_busyboxes(r))
		return busyboxes_create(opts, initial, ready, r, out, err);
	int rc = engine_kind_of(opts, &kind, err);
	if (rc)
		return rc;
	if (kind == ENGINE_AUTO) {
		auto_way way = auto_way_of(opts);
		if (way == AUTO_SAMPLE) {
			way = auto_way_sampled(opts, initial, ready, r);
			if (way == AUTO_GPU)
				cuda_warm_up(0);
		}
		if (way == AUTO_CPU)
			return cpu_create_checked(opts, initial, ready, r, out, err);
	}
	if (kind == ENGINE_AUTO && (!opts || opts->device < 0) && cuda_warming() &&
	    grid_bytes(initial) <= HANDOVER_MAX_BYTES && gpu_driver_present())
		return cpu_until_gpu(opts, initial, ready, r, out, err);
	engine_settle();
	if (kind == ENGINE_CPU)
		return cpu_create_checked(opts, initial, ready, r, out, err);
	if (kind == ENGINE_CUDA)
		return engine_cuda_create(opts, initial, ready, r, out, err);
	if (cuda_device_count() > 0) {
		/* Unavailable is decided before any row is taken, so the CPU
		 * engine can still follow the same rows from the start. */
		rc = engine_cuda_create(opts, initial, ready, r, out, err);
		/* A GPU that is present but cannot take this universe (too
		 * large, busy) is not a reason to fail an auto run. */
		if (rc != L3D_ERR_UNAVAILABLE)
			return rc;
	}
	return cpu_create_checked(opts, initial, ready, r, out, err);
}

int engine_create(const engine_opts *opts, const grid *initial, const rule *r,
		  engine **out, l3d_err *err)
{
	return engine_create_streamed(opts, initial, NULL, r, out, err);
}

/* A process that may step on a GPU steps on one: the driver is told to
 * set up that one alone where visible.h is sure which it is (narrowed_to,
 * above, the entry it was told).  Done here, before the first CUDA call
 * and before the input's reader starts.  The driver's list is read from
 * LIFE3D_DRIVER_GPUS where tests set it. */

/* The device a run asks for: --device, else the first. */
static int device_of(const engine_opts *opts)
{
	return opts && opts->device >= 0 ? opts->device : 0;
}

static void narrow_to_one(const engine_opts *opts)
{
	char entry[sizeof narrowed_to];
	int device = device_of(opts);
	const engine_knobs *k = engine_knobs_of(opts);
	const char *dir = k->driver_gpus && *k->driver_gpus ? k->driver_gpus
							    : "/proc/driver/nvidia/gpus";
	if (engine_one_gpu(k->cuda_visible, k->device_order, dir, device, entry, sizeof entry) &&
	    cuda_narrow(entry, device))
		memcpy(narrowed_to, entry, sizeof entry);
}

void engine_warm_up(const engine_opts *opts)
{
	engine_kind kind;
	l3d_err ignored;
	/* An unknown kind is reported by engine_create(). */
	if (engine_kind_of(opts, &kind, &ignored) != L3D_OK || kind == ENGINE_CPU ||
	    (opts && opts->rule && rule_is_busyboxes(opts->rule)))
		return;
	narrow_to_one(opts);
	if (!(kind == ENGINE_AUTO && auto_way_of(opts) != AUTO_GPU))
		cuda_warm_up(device_of(opts));
}

void engine_settle(void)
{
	cuda_settle();
}

void engine_leave(void)
{
	if (gpu_started_under_cpu)
		cuda_leave();
	else
		engine_settle();
}

const char *engine_auto_reason(void)
{
	return auto_reason;
}

const char *engine_gpu_named(void)
{
	return narrowed_to;
}

bool engine_left_behind(void)
{
	return cuda_left_behind();
}

void engine_describe_builds(char *engines, size_t size, char *gpus, size_t gpus_size)
{
	cuda_describe_devices(gpus, gpus_size);
#ifdef HAVE_CUDA
	const char *cuda = ", cuda";
#else
	const char *cuda = "; cuda not built in";
#endif
	snprintf(engines, size, "cpu (simd: %s)%s", cpu_stepper_paths(), cuda);
}
