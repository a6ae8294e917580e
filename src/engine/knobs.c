/* knobs.c - the table of the engines' environment variables, and the
 * one place their values are checked (see knobs.h). */
#include "knobs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const engine_tune_keys[ENGINE_TUNE_KEYS + 1] = {"fuse",  "warps", "chunk",  "words", "generic",
					"tiles", "tilez", "params", "regs",  NULL};

typedef enum knob_type {
	KNOB_OFF,      /* "0" sets the flag, "1" leaves it */
	KNOB_ONOFF,    /* "1" is 1, "0" is -1 */
	KNOB_WORD,     /* one of words, in any case */
	KNOB_COUNT,    /* a whole number 1..2^30 */
	KNOB_TUNE,     /* key=integer,... of engine_tune_keys */
	KNOB_TEXT      /* anything */
} knob_type;

static const char *const simd_words[] = {"auto", "avx512", "avx2", "portable", NULL};
static const char *const launch_words[] = {"plain", "graph", "pdl", NULL};
static const char *const halo_words[] = {"auto", "nccl", "mpi", "staged", NULL};

#define AT(field) offsetof(engine_knobs, field)

static const struct knob {
	const char *name;
	knob_type type;
	size_t at;
	const char *const *words;
	const char *said;   /* what a value must be, for the message */
} knobs[] = {
	{"LIFE3D_SKIP", KNOB_OFF, AT(dense), NULL, "0 or 1"},
	{"LIFE3D_LEAP", KNOB_OFF, AT(no_leap), NULL, "0 or 1"},
	{"LIFE3D_LEAP_HASH_BITS", KNOB_COUNT, AT(leap_hash_bits), NULL,
	 "a whole number from 1 to 1073741824"},
	{"LIFE3D_SIMD", KNOB_WORD, AT(simd), simd_words, "auto, avx512, avx2 or portable"},
	{"LIFE3D_CPU_TILE", KNOB_COUNT, AT(cpu_tile), NULL, "a whole number from 1 to 1073741824"},
	{"LIFE3D_CPU_STREAM", KNOB_ONOFF, AT(cpu_stream), NULL, "0 or 1"},
	{"LIFE3D_CPU_RULE_CODE", KNOB_OFF, AT(rule_table), NULL, "0 or 1"},
	{"LIFE3D_CUDA_LAUNCH", KNOB_WORD, AT(launch), launch_words, "plain, graph or pdl"},
	{"LIFE3D_CUDA_TUNE", KNOB_TUNE, AT(cuda_tune), NULL,
	 "KEY=NUMBER,... with keys fuse, warps, chunk, words, generic, tiles, tilez, params, regs"},
	{"LIFE3D_HALO_DEPTH", KNOB_COUNT, AT(halo_depth), NULL, "a whole number from 1 to 1073741824"},
	{"LIFE3D_HALO", KNOB_WORD, AT(halo), halo_words, "auto, nccl, mpi or staged"},
	{"LIFE3D_DRIVER_GPUS", KNOB_TEXT, AT(driver_gpus), NULL, ""},
	{"CUDA_VISIBLE_DEVICES", KNOB_TEXT, AT(cuda_visible), NULL, ""},
	{"CUDA_DEVICE_ORDER", KNOB_TEXT, AT(device_order), NULL, ""},
	{"OMP_NUM_THREADS", KNOB_TEXT, AT(omp_threads), NULL, ""},
	{"SLURM_CPUS_PER_TASK", KNOB_TEXT, AT(slurm_cpus), NULL, ""},
};

#define KNOBS (sizeof knobs / sizeof knobs[0])

/* A whole number 1..2^30, all of the text. */
static bool count_of(const char *v, uint64_t *n)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	*n = x;
	return *v >= '0' && *v <= '9' && !*end && !errno && x >= 1 && x <= (1u << 30);
}

/* The table's spelling of v, or NULL. */
static const char *word_of(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (strcasecmp(v, *words) == 0)
			return *words;
	return NULL;
}

/* KEY=INTEGER items separated by commas, every key one of
 * engine_tune_keys. */
static bool tune_ok(const char *v)
{
	while (*v) {
		size_t key = strcspn(v, "=,");
		bool known = false;
		for (const char *const *k = engine_tune_keys; *k; k++)
			known |= strlen(*k) == key && strncmp(v, *k, key) == 0;
		if (!known || v[key] != '=')
			return false;
		v += key + 1;
		v += *v == '-';
		size_t digits = strspn(v, "0123456789");
		if (!digits || digits > 9 || (v[digits] && v[digits] != ','))
			return false;
		v += digits;
		v += *v == ',' && v[1];
	}
	return true;
}

/* One variable's value v (non-empty) into k; false when it is not one the
 * table allows. */
static bool set_knob(const struct knob *t, const char *v, engine_knobs *k)
{
	char *at = (char *)k + t->at;
	switch (t->type) {
	case KNOB_OFF:
	case KNOB_ONOFF:
		if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
			return false;
		if (t->type == KNOB_OFF)
			*(bool *)at = *v == '0';
		else
			*(int *)at = *v == '1' ? 1 : -1;
		return true;
	case KNOB_WORD:
		return (*(const char **)at = word_of(v, t->words)) != NULL;
	case KNOB_COUNT:
		return count_of(v, (uint64_t *)at);
	case KNOB_TUNE:
		if (!tune_ok(v))
			return false;
		/* fall through */
	case KNOB_TEXT:
		*(const char **)at = v;
		return true;
	}
	return false;
}

int engine_knobs_read(engine_knobs *k, char *(*get)(const char *name),
		      l3d_err *err)
{
	*k = (engine_knobs){0};
	const char *old = get("LIFE3D_MPI_STAGING");
	if (old && *old)
		return l3d_fail(err, L3D_ERR_USAGE,
				"LIFE3D_MPI_STAGING is no longer read: use LIFE3D_HALO=staged");
	for (size_t i = 0; i < KNOBS; i++) {
		const char *v = get(knobs[i].name);
		bool given = v && (*v || knobs[i].type == KNOB_TEXT);
		if (given && !set_knob(&knobs[i], v, k))
			return l3d_fail(err, L3D_ERR_USAGE, "%s: '%s' is not %s", knobs[i].name,
					v, knobs[i].said);
	}
	return L3D_OK;
}

const char *engine_knob_name(size_t i)
{
	return i < KNOBS ? knobs[i].name : NULL;
}

uint64_t engine_leap_hash_mask(const engine_knobs *k)
{
	uint64_t bits = engine_knobs_or_default(k)->leap_hash_bits;
	return bits && bits < 64 ? ((uint64_t)1 << bits) - 1 : ~(uint64_t)0;
}

/* v's thread count (its first item before a comma), 0 when it is none. */
static int threads_of(const char *v)
{
	size_t digits = strspn(v, "0123456789");
	if (!digits || digits > 4 || (v[digits] && v[digits] != ','))
		return 0;
	int n = atoi(v);
	return n <= 4096 ? n : 0;
}

knobs_threads engine_knobs_threads(const engine_knobs *k)
{
	k = engine_knobs_or_default(k);
	const char *names[2] = {"OMP_NUM_THREADS", "SLURM_CPUS_PER_TASK"};
	const char *values[2] = {k->omp_threads, k->slurm_cpus};
	knobs_threads t = {0, NULL, NULL, NULL};
	for (int i = 0; i < 2 && !t.threads; i++) {
		if (!values[i] || !*values[i])
			continue;
		t.threads = threads_of(values[i]);
		if (t.threads)
			t.from = names[i];
		else if (!t.ignored)
			t.ignored = names[i], t.ignored_value = values[i];
	}
	return t;
}

const engine_knobs *engine_knobs_or_default(const engine_knobs *k)
{
	static const engine_knobs defaults = {0};
	return k ? k : &defaults;
}
