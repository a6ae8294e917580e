/* args.c - `life3d census`'s command line and --help (command.h). */
#include "command.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/rule.h"
#include "soup.h"

/* census_space(128)^3 cells is below object.h's CENSUS_MAX_BOX: every
 * object of the ash can be named. */
#define SIDE_MOST 128

static const struct option longs[] = {
	{"rule", required_argument, NULL, 'r'},
	{"size", required_argument, NULL, 's'},
	{"density", required_argument, NULL, 'd'},
	{"count", required_argument, NULL, 'n'},
	{"soups", required_argument, NULL, 'U'},
	{"time", required_argument, NULL, 'T'},
	{"first", required_argument, NULL, 'F'},
	{"root", required_argument, NULL, 'R'},
	{"max-gens", required_argument, NULL, 'G'},
	{"threads", required_argument, NULL, 't'},
	{"engine", required_argument, NULL, 'E'},
	{"device", required_argument, NULL, 'D'},
	{"soup", required_argument, NULL, 'S'},
	{"merge", no_argument, NULL, 'M'},
	{"objects", required_argument, NULL, 'O'},
	{"output", required_argument, NULL, 'o'},
	{"force", no_argument, NULL, 'f'},
	{"quiet", no_argument, NULL, 'q'},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

void census_help(FILE *out)
{
	fputs("Usage: life3d census [OPTION]...\n"
	      "  or:  life3d census --merge [-o FILE] HAUL...\n"
	      "Step many random soups until they settle, name the objects left and count\n"
	      "them: a haul, as tab-separated text (life3d-census(1)).\n"
	      "\n"
	      "  -r, --rule RULE        the rule, as life3d's -r (default B6/S567)\n"
	      "  -s, --size N           soups of N x N x N cells (default 16, at most 128)\n"
	      "  -d, --density D        fraction of live cells in a soup (default 0.25)\n"
	      "  -n, --count N          soups to run (default 1000)\n"
	      "      --time SECONDS     begin no soup after SECONDS: the haul holds\n"
	      "                         the soups done, from the first on\n"
	      "      --first I          the first soup's number (default 0)\n"
	      "      --root ROOT        the text soups are made from (default life3d)\n"
	      "      --max-gens G       a soup still changing after G generations is\n"
	      "                         unsettled (default 10000)\n"
	      "  -t, --threads N        worker threads (default 0: OMP_NUM_THREADS,\n"
	      "                         else SLURM_CPUS_PER_TASK, else every CPU of\n"
	      "                         the affinity mask)\n"
	      "      --engine NAME      auto (the GPU when there is one and it takes the\n"
	      "                         rule and size, else the CPU), cpu or cuda\n"
	      "      --device N         the GPU to use (default: the first)\n"
	      "      --objects DIR      write each object met, the first time, as\n"
	      "                         DIR/CODE.rle3 (one there already is kept)\n"
	      "      --soups FILE       take a soup from the universe in FILE ('-' =\n"
	      "                         stdin) instead of a root; repeatable\n"
	      "      --soup ROOT/I      write soup I of ROOT as a universe instead\n"
	      "      --merge            add the hauls given (files, '-' = stdin) into\n"
	      "                         one; each soup counted once\n"
	      "  -o, --output FILE      write the haul (or soup) to FILE ('-' = stdout,\n"
	      "                         the default)\n"
	      "  -f, --force            overwrite an existing output\n"
	      "  -q, --quiet            no progress line, no word of new ships and\n"
	      "                         oscillators\n"
	      "  -v, --verbose          say what runs, and the figures at the end\n"
	      "  -h, --help             show this help and exit\n"
	      "\n"
	      "Soup I of ROOT is `life3d --random N --seed S --density D`, where S is the\n"
	      "first 8 bytes (big-endian) of the SHA-256 of the text ROOT/I.\n"
	      "Exit status: 0 done, 64 bad option, 73 output exists, 74 write error,\n"
	      "130 stopped by a signal (the haul of the soups done is written).\n",
	      out);
}

static int number(const char *opt, const char *text, uint64_t lo, uint64_t hi,
		  uint64_t *out, l3d_err *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end || errno || v < lo || v > hi)
		return l3d_fail(err, L3D_ERR_USAGE,
				"census: --%s '%s': expected a whole number from %" PRIu64
				" to %" PRIu64, opt, text, lo, hi);
	*out = v;
	return L3D_OK;
}

static int real(const char *opt, const char *text, double hi, double *out,
		l3d_err *err)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || errno || !(v > 0.0 && v <= hi))
		return l3d_fail(err, L3D_ERR_USAGE,
				"census: --%s '%s': expected a number above 0, at most %g",
				opt, text, hi);
	*out = v;
	return L3D_OK;
}

static int engine_word(const char *v, const char **out, l3d_err *err)
{
	static const char *const words[] = {"auto", "cpu", "cuda"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(v, words[i])) {
			*out = words[i];
			return L3D_OK;
		}
	return l3d_fail(err, L3D_ERR_USAGE,
			"census: unknown engine '%s' (expected auto, cpu or cuda)", v);
}

static int one_option(int c, const char *v, census_args *a, l3d_err *err)
{
	switch (c) {
	case 'r': a->rule = v; return L3D_OK;
	case 's': return number("size", v, 1, SIDE_MOST, &a->side, err);
	case 'd': return real("density", v, 1.0, &a->density, err);
	case 'n': a->ranged = true; return number("count", v, 1, UINT64_MAX / 2, &a->count, err);
	case 'T': return real("time", v, 1e9, &a->time, err);
	case 'U': a->files[a->nfiles++] = v; return L3D_OK;
	case 'F': a->ranged = true; return number("first", v, 0, UINT64_MAX / 2, &a->first, err);
	case 'R': a->root = v; return soup_root_check(v, err);
	case 'G': return number("max-gens", v, 1, UINT64_C(1) << 40, &a->max_gens, err);
	case 't': return number("threads", v, 0, 1024, &a->threads, err);
	case 'E': return engine_word(v, &a->engine, err);
	case 'D': {
		uint64_t d;
		int rc = number("device", v, 0, 4096, &d, err);
		a->device = (int64_t)d;
		return rc;
	}
	case 'S': a->soup = v; return L3D_OK;
	case 'M': a->merge = true; return L3D_OK;
	case 'O': a->objects = v; return L3D_OK;
	case 'o': a->output = v; return L3D_OK;
	case 'f': a->force = true; return L3D_OK;
	case 'q': a->quiet = true; return L3D_OK;
	case 'v': a->verbose = true; return L3D_OK;
	case 'h': a->help = true; return L3D_OK;
	default: return L3D_ERR_USAGE;
	}
}

int census_args_parse(int argc, char **argv, census_args *a, l3d_err *err)
{
	*a = (census_args){.rule = RULE_DEFAULT_TEXT, .root = "life3d", .output = "-",
			   .side = 16, .count = 1000, .max_gens = 10000, .density = 0.25,
			   .engine = "auto", .device = -1,
			   .files = calloc((size_t)argc + 1, sizeof *a->files)};
	if (!a->files)
		return l3d_fail(err, L3D_ERR_RUNTIME, "out of memory");
	opterr = 0;
	optind = 1;
	int c, rc = L3D_OK;
	while (rc == L3D_OK &&
	       (c = getopt_long(argc, argv, ":r:s:d:n:t:o:fqvh", longs, NULL)) != -1) {
		if (c == '?')
			return l3d_fail(err, L3D_ERR_USAGE,
					"census: unknown option '%s' (see life3d census --help)",
					argv[optind - 1]);
		if (c == ':')
			return l3d_fail(err, L3D_ERR_USAGE, "census: option '%s' needs a value",
					argv[optind - 1]);
		rc = one_option(c, optarg, a, err);
	}
	if (rc == L3D_OK && a->merge) {
		a->hauls = argv + optind;
		a->nhauls = argc - optind;
		if (a->nhauls == 0)
			rc = l3d_fail(err, L3D_ERR_USAGE, "census: --merge needs hauls to add");
		else if (a->soup || a->nfiles)
			rc = l3d_fail(err, L3D_ERR_USAGE,
				      "census: --merge adds hauls: no --soup or --soups with it");
	} else if (rc == L3D_OK && optind < argc)
		rc = l3d_fail(err, L3D_ERR_USAGE,
			      "census: unexpected argument '%s' (see life3d census --help)",
			      argv[optind]);
	if (rc == L3D_OK && a->nfiles && a->soup)
		rc = l3d_fail(err, L3D_ERR_USAGE, "census: --soups and --soup do not go together");
	if (rc == L3D_OK && a->nfiles && a->ranged)
		rc = l3d_fail(err, L3D_ERR_USAGE,
			      "census: --soups FILE gives the soups: no --first or --count with it");
	return rc;
}

void census_args_free(census_args *a)
{
	free(a->files);
	a->files = NULL;
}

