/* refstep - the reference stepper as a command, for shell tests:
 *   refstep RULE STEPS INPUT OUTPUT.l3d LOG.tsv
 * reads any input format, steps with tests/tools/reference.c, writes the final
 * universe (native format) and a population log of every step, in the
 * format life3d writes, so the binary's output can be compared with cmp. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "format/export.h"
#include "format/format.h"
#include "format/hpcgame.h"
#include "format/native.h"
#include "format/rle3.h"
#include "reference.h"

static int die(const char *msg)
{
	fprintf(stderr, "refstep: %s\n", msg);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 6)
		return die("usage: refstep RULE STEPS INPUT OUTPUT.l3d LOG.tsv");
	l3d_err err = {0, ""};
	rule r;
	if (rule_parse(argv[1], &r, &err))
		return die(err.msg);
	uint64_t steps = strtoull(argv[2], NULL, 10);
	FILE *in = fopen(argv[3], "rb");
	if (!in)
		return die("cannot open input");
	reader rd;
	reader_init(&rd, in, argv[3]);
	grid g;
	universe_meta meta;
	fmt_id f;
	if (format_read(&rd, &g, &meta, &f, &err))
		return die(err.msg);
	fclose(in);
	ref_universe u;
	if (ref_from_grid(&u, &g))
		return die("out of memory");
	FILE *log = fopen(argv[5], "w");
	if (!log)
		return die("cannot write log");
	fprintf(log, "step\tpopulation\tbirths\tdeaths\n");
	fprintf(log, "%" PRIu64 "\t%" PRIu64 "\t0\t0\n", g.generation, grid_population(&g));
	for (uint64_t i = 1; i <= steps; i++) {
		uint64_t pop, born, died;
		ref_step(&u, &r, &pop, &born, &died);
		fprintf(log, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			g.generation + i, pop, born, died);
	}
	fclose(log);
	ref_to_grid(&u, &g);
	g.generation += steps;
	FILE *out = fopen(argv[4], "wb");
	if (!out || format_write(out, argv[4], FMT_NATIVE, &g, &r, NULL, &err) ||
	    fclose(out))
		return die(err.msg[0] ? err.msg : "write failed");
	ref_free(&u);
	grid_free(&g);
	return 0;
}
