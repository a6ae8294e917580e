/* bench_cuda.cu - kernel-only speed of the CUDA step kernels.
 *
 *   bench_cuda [--sizes 256,512,1024,2048] [--steps N] [--reps R]
 *              [--sweep [--fuses 1,2,3] [--words 2,4] [--warps 0,8,16]
 *               [--chunks 0,64]]
 *              [--modes 256,1024] [--tune fuse=2,words=4,warps=8] [--profile M]
 *
 * For each cube edge M: fills a random universe on the device, checks the
 * planned kernels against the generic one-word-per-thread kernel (bit for
 * bit after 5 generations), then times `steps` generations as one CUDA
 * graph with programmatic dependent launch: CUDA events around each
 * replay, the median of `reps` replays after a warm-up.  Cell updates per
 * second = M^3 * steps / median.  --sweep times every kernel shape, --modes
 * compares plain launches, graphs and graphs with PDL, --profile M runs a
 * few launches for a profiler and nothing else. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kernels.h"

#define CK(call)                                                                        \
	do {                                                                            \
		cudaError_t e_ = (call);                                                \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
				cudaGetErrorString(e_));                                \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

enum { MODE_PLAIN, MODE_GRAPH, MODE_PDL };
static const char *const mode_names[] = {"plain", "graph", "graph+pdl"};

__device__ uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* Density 1/4: each bit is the AND of two independent hash bits. */
__global__ void fill_random(uint32_t *w, uint64_t n, uint64_t seed)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t h = mix(seed ^ (i * 0x9e3779b97f4a7c15ULL));
		w[i] = (uint32_t)h & (uint32_t)(h >> 32);
	}
}

__global__ void count_diff(const uint32_t *a, const uint32_t *b, uint64_t n,
			   unsigned long long *diff)
{
	unsigned long long d = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
	     i += (uint64_t)gridDim.x * blockDim.x)
		d += __popc(a[i] ^ b[i]);
	if (d)
		atomicAdd(diff, d);
}

struct Universe {
	uint64_t m, words;
	void *buf[2];
	void *spare[2];
	cudaStream_t s;
};

static void parse_tune(const char *s, l3dk_tuning *t)
{
	while (s && *s) {
		char key[16];
		int v;
		if (sscanf(s, "%15[a-z]=%d", key, &v) == 2) {
			if (!strcmp(key, "fuse")) t->fuse = v;
			if (!strcmp(key, "words")) t->words = v;
			if (!strcmp(key, "warps")) t->warps = v;
			if (!strcmp(key, "chunk")) t->chunk = v;
			if (!strcmp(key, "generic")) t->generic = v;
		}
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
}

static std::vector<int> parse_list(const char *s)
{
	std::vector<int> v;
	while (s && *s) {
		v.push_back(atoi(s));
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return v;
}

static void make_universe(Universe &u, uint64_t m)
{
	u.m = m;
	u.words = m * m * (m / 32);
	for (int i = 0; i < 2; i++) {
		CK(cudaMalloc(&u.buf[i], u.words * 4));
		CK(cudaMalloc(&u.spare[i], u.words * 4));
	}
	CK(cudaStreamCreateWithFlags(&u.s, cudaStreamNonBlocking));
	fill_random<<<1024, 256, 0, u.s>>>((uint32_t *)u.buf[0], u.words, 12345 + m);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(u.s));
}

static void free_universe(Universe &u)
{
	for (int i = 0; i < 2; i++) {
		CK(cudaFree(u.buf[i]));
		CK(cudaFree(u.spare[i]));
	}
	CK(cudaStreamDestroy(u.s));
}

/* Advance `gens` generations from src; the result lands in out[0 or 1],
 * whose index is returned. */
static int advance(const l3dk_plan &p, void *src, void *out[2], int gens, cudaStream_t s)
{
	CK(cudaMemcpyAsync(out[0], src, (size_t)p.nx * p.ny * p.w32 * 4,
			   cudaMemcpyDeviceToDevice, s));
	int cur = 0;
	while (gens > 0) {
		int k = gens < p.fuse ? gens : p.fuse;
		CK(l3dk_step(&p, out[cur], out[cur ^ 1], k, NULL, 0, s));
		cur ^= 1;
		gens -= k;
	}
	return cur;
}

/* Bit errors of the plan against the generic kernel after 5 generations. */
static unsigned long long self_check(const l3dk_plan &p, Universe &u)
{
	l3dk_plan g;
	l3dk_tuning t = {};
	t.generic = 1;
	CK(l3dk_plan_make(&g, u.m, u.m, u.m, p.birth, p.survive, RULE_MOORE, &t));
	int fast = advance(p, u.buf[0], u.spare, 5, u.s);
	void *ref[2] = {u.buf[1], NULL};
	CK(cudaMalloc(&ref[1], u.words * 4));
	int slow = advance(g, u.buf[0], ref, 5, u.s);
	unsigned long long *d, h = 0;
	CK(cudaMalloc(&d, sizeof *d));
	CK(cudaMemsetAsync(d, 0, sizeof *d, u.s));
	count_diff<<<1024, 256, 0, u.s>>>((uint32_t *)u.spare[fast], (uint32_t *)ref[slow],
					  u.words, d);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, u.s));
	CK(cudaStreamSynchronize(u.s));
	CK(cudaFree(d));
	CK(cudaFree(ref[1]));
	return h;
}

static void launch_all(const l3dk_plan &p, Universe &u, int launches, int pdl)
{
	for (int i = 0; i < launches; i++)
		CK(l3dk_step(&p, u.spare[i & 1], u.spare[(i & 1) ^ 1], p.fuse, NULL, pdl, u.s));
}

/* Median milliseconds of `reps` runs of `work` on stream s, after two
 * warm-up runs, each timed with CUDA events. */
template <typename Work>
static double median_ms(cudaStream_t s, int reps, Work work)
{
	cudaEvent_t start, stop;
	CK(cudaEventCreate(&start));
	CK(cudaEventCreate(&stop));
	std::vector<float> ms;
	for (int r = -2; r < reps; r++) {
		CK(cudaEventRecord(start, s));
		work();
		CK(cudaEventRecord(stop, s));
		CK(cudaEventSynchronize(stop));
		float t;
		CK(cudaEventElapsedTime(&t, start, stop));
		if (r >= 0)
			ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	CK(cudaEventDestroy(start));
	CK(cudaEventDestroy(stop));
	return ms[ms.size() / 2];
}

/* Median seconds for `launches` launches of plan.fuse generations each. */
static double time_mode(const l3dk_plan &p, Universe &u, int mode, int launches, int reps)
{
	CK(cudaMemcpyAsync(u.spare[0], u.buf[0], u.words * 4, cudaMemcpyDeviceToDevice, u.s));
	cudaGraphExec_t exec = NULL;
	if (mode != MODE_PLAIN) {
		cudaGraph_t graph;
		CK(cudaStreamBeginCapture(u.s, cudaStreamCaptureModeThreadLocal));
		launch_all(p, u, launches, mode == MODE_PDL);
		CK(cudaStreamEndCapture(u.s, &graph));
		CK(cudaGraphInstantiate(&exec, graph, 0));
		CK(cudaGraphDestroy(graph));
	}
	double ms = median_ms(u.s, reps, [&] {
		if (exec)
			CK(cudaGraphLaunch(exec, u.s));
		else
			launch_all(p, u, launches, 0);
	});
	if (exec)
		CK(cudaGraphExecDestroy(exec));
	return ms * 1e-3;
}

/* Device-to-device copy of the universe: bytes read plus bytes written
 * per second. */
static double copy_bandwidth(Universe &u)
{
	double ms = median_ms(u.s, 10, [&] {
		CK(cudaMemcpyAsync(u.spare[1], u.spare[0], u.words * 4, cudaMemcpyDeviceToDevice,
				   u.s));
	});
	return 2.0 * u.words * 4 / (ms * 1e-3);
}

static int launches_for(int fuse, int steps)
{
	int n = steps / fuse;
	return n < 2 ? 2 : n & ~1;
}

static void describe_plan(const l3dk_plan &p, char *buf, size_t size)
{
	const l3dk_launch &c = p.cfg[p.fuse];
	if (p.path == L3DK_PATH_GENERIC)
		snprintf(buf, size, "generic");
	else
		snprintf(buf, size, "fuse=%d words=%d warps=%u rows=%u chunk=%u grid=%ux%u smem=%zu",
			 p.fuse, p.g, c.threads / 32, c.rows, c.chunk, c.blocks_x, c.blocks_y,
			 c.smem);
}

/* Time one plan at one size: check it, then the median of graph+PDL runs. */
static double bench_plan(Universe &u, const l3dk_tuning &t, int steps, int reps, bool print)
{
	l3dk_plan p;
	if (l3dk_plan_make(&p, u.m, u.m, u.m, 1u << 6, 7u << 5, RULE_MOORE, &t) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	char what[160];
	describe_plan(p, what, sizeof what);
	unsigned long long bad = self_check(p, u);
	int launches = launches_for(p.fuse, steps);
	double s = time_mode(p, u, MODE_PDL, launches, reps);
	double cups = (double)u.m * u.m * u.m * launches * p.fuse / s;
	if (print)
		printf("M=%-5llu %-70s %9.3f ms/step %10.3e CUpS %s\n", (unsigned long long)u.m,
		       what, s * 1e3 / (launches * p.fuse), cups, bad ? "MISMATCH" : "exact");
	return bad ? -cups : cups;
}

static std::vector<int> sweep_fuses = {1, 2, 3}, sweep_words = {2, 4},
			sweep_warps = {0, 4, 8, 12, 16, 24, 32}, sweep_chunks = {0};

static void sweep(Universe &u, int steps, int reps)
{
	double best = 0;
	l3dk_tuning best_t = {};
	for (int f : sweep_fuses)
		for (int w : sweep_words)
			for (int wp : sweep_warps)
				for (int ch : sweep_chunks) {
					l3dk_tuning t = {};
					t.fuse = f;
					t.words = w;
					t.warps = wp;
					t.chunk = ch;
					double c = bench_plan(u, t, steps, reps, true);
					if (c > best) {
						best = c;
						best_t = t;
					}
				}
	printf("M=%llu best: fuse=%d words=%d warps=%d chunk=%d %.3e CUpS\n",
	       (unsigned long long)u.m, best_t.fuse, best_t.words, best_t.warps, best_t.chunk, best);
}

static void compare_modes(Universe &u, const l3dk_tuning &t, int steps, int reps)
{
	l3dk_plan p;
	CK(l3dk_plan_make(&p, u.m, u.m, u.m, 1u << 6, 7u << 5, RULE_MOORE, &t));
	for (int launches : {steps / p.fuse & ~1, 2}) {
		for (int mode = MODE_PLAIN; mode <= MODE_PDL; mode++) {
			double s = time_mode(p, u, mode, launches, reps);
			double per = s / launches;
			printf("M=%-5llu %-10s %4d launches x %d gens: %9.2f us/launch %10.3e CUpS\n",
			       (unsigned long long)u.m, mode_names[mode], launches, p.fuse,
			       per * 1e6, (double)u.m * u.m * u.m * p.fuse / per);
		}
	}
}

int main(int argc, char **argv)
{
	std::vector<int> sizes = {256, 512, 1024, 2048}, mode_sizes;
	int steps = 64, reps = 7, do_sweep = 0, profile = 0;
	l3dk_tuning tune = {};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sweep"))
			do_sweep = 1;
		else if (!strcmp(argv[i], "--fuses") && i + 1 < argc)
			sweep_fuses = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--words") && i + 1 < argc)
			sweep_words = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--warps") && i + 1 < argc)
			sweep_warps = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--chunks") && i + 1 < argc)
			sweep_chunks = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--modes") && i + 1 < argc)
			mode_sizes = parse_list(argv[++i]);
		else if (!strcmp(argv[i], "--tune") && i + 1 < argc)
			parse_tune(argv[++i], &tune);
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			profile = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--sizes L] [--steps N] [--reps R] [--sweep] "
					"[--modes L] [--tune K=V,...] [--profile M]\n", argv[0]);
			return 64;
		}
	}
	int dev = 0;
	cudaDeviceProp prop;
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	int clock_khz = 0, mem_khz = 0;
	cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
	cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
	printf("GPU: %s, cc %d.%d, %d SMs, max SM clock %d MHz, %.1f GiB, L2 %d MiB\n",
	       prop.name, prop.major, prop.minor, prop.multiProcessorCount, clock_khz / 1000,
	       prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize >> 20);
	if (profile) {
		Universe u;
		make_universe(u, profile);
		l3dk_plan p;
		CK(l3dk_plan_make(&p, u.m, u.m, u.m, 1u << 6, 7u << 5, RULE_MOORE, &tune));
		CK(cudaMemcpy(u.spare[0], u.buf[0], u.words * 4, cudaMemcpyDeviceToDevice));
		launch_all(p, u, 8, 0);
		CK(cudaStreamSynchronize(u.s));
		free_universe(u);
		return 0;
	}
	for (int m : sizes) {
		Universe u;
		make_universe(u, m);
		printf("M=%d copy bandwidth (read+write) %.2f TB/s\n", m, copy_bandwidth(u) / 1e12);
		if (do_sweep)
			sweep(u, steps, reps);
		bench_plan(u, tune, steps, reps, true);
		if (std::find(mode_sizes.begin(), mode_sizes.end(), m) != mode_sizes.end())
			compare_modes(u, tune, steps, reps);
		free_universe(u);
	}
	return 0;
}
