/* cli.c - see cli.h.  Everything is derived from option_table, so --help,
 * getopt and the configuration keys cannot drift apart; the formats --help
 * lists come from the format table (format.h). */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

static void build_getopt(struct option *longs, char *shorts)
{
	char *s = shorts;
	*s++ = ':';        /* report a missing argument as ':' */
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		bool arg = d->type != OT_FLAG;
		longs[i] = (struct option){d->name, arg ? required_argument : no_argument,
					   NULL, 256 + i};
		if (d->short_name) {
			*s++ = (char)d->short_name;
			if (arg)
				*s++ = ':';
		}
	}
	longs[OPT_COUNT] = (struct option){0, 0, 0, 0};
	*s = '\0';
}

static const opt_desc *by_short(int c)
{
	for (int i = 0; i < OPT_COUNT; i++)
		if (option_table[i].short_name == c)
			return &option_table[i];
	return NULL;
}

/* The option as the user wrote it, for messages. */
static const char *spelled(int argc, char **argv, int index)
{
	return index > 0 && index <= argc ? argv[index - 1] : "option";
}

/* The argument that holds the short option c getopt refused: getopt has
 * moved past it when c was its last letter ("-qx"), not before ("-xq"). */
static const char *short_group(int argc, char **argv, int c)
{
	const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	size_t n = strlen(a);
	if (n >= 2 && a[0] == '-' && a[1] != '-' && a[n - 1] == c)
		return a;
	return optind < argc ? argv[optind] : a;
}

/* "--ver": getopt_long refuses a prefix of two long options as it does an
 * unknown one; name them instead. */
static int unknown_long(const char *arg, l3d_err *err)
{
	const char *name = arg + 2;
	size_t n = strcspn(name, "=");
	char which[512] = "";
	int found = 0;
	for (int i = 0; i < OPT_COUNT; i++)
		if (strncmp(option_table[i].name, name, n) == 0) {
			size_t used = strlen(which);
			snprintf(which + used, sizeof which - used, "%s--%s",
				 found++ ? ", " : "", option_table[i].name);
		}
	if (n > 0 && found > 1)
		return l3d_fail(err, L3D_ERR_USAGE, "ambiguous option '%.*s' (%s; see --help)",
				(int)(n + 2), arg, which);
	/* "--quiet=yes": an option that takes no value, given one. */
	for (int i = 0; found == 1 && name[n] == '=' && i < OPT_COUNT; i++)
		if (strncmp(option_table[i].name, name, n) == 0 &&
		    option_table[i].type == OT_FLAG)
			return l3d_fail(err, L3D_ERR_USAGE,
					"option '--%s' takes no value ('%s'; see --help)",
					option_table[i].name, arg);
	return l3d_fail(err, L3D_ERR_USAGE, "unknown option '%s' (see --help)", arg);
}

int cli_parse(int argc, char **argv, options *o, l3d_err *err)
{
	struct option longs[OPT_COUNT + 1];
	char shorts[2 * OPT_COUNT + 2];
	build_getopt(longs, shorts);
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == '?' || c == ':') {
			const char *arg = spelled(argc, argv, optind);
			if (c == ':')
				return l3d_fail(err, L3D_ERR_USAGE,
						"option '%s' needs a value (see --help)", arg);
			if (strncmp(arg, "--", 2) == 0 && arg[2])
				return unknown_long(arg, err);
			const char *group = short_group(argc, argv, optopt);
			if (optopt && optopt < 256 && strlen(group) > 2)   /* "-q-" */
				return l3d_fail(err, L3D_ERR_USAGE,
						"unknown option '%c' in '%s' (see --help)",
						optopt, group);
			if (optopt && optopt < 256)
				return l3d_fail(err, L3D_ERR_USAGE,
						"unknown option '-%c' (see --help)", optopt);
			return l3d_fail(err, L3D_ERR_USAGE,
					"unknown option '%s' (see --help)", arg);
		}
		const opt_desc *d = c >= 256 ? &option_table[c - 256] : by_short(c);
		char where[64];
		snprintf(where, sizeof where, "--%s", d->name);
		int rc = option_set_text(o, d, optarg ? optarg : "", ORIGIN_CLI,
					 where, err);
		if (rc)
			return rc;
	}
	if (optind < argc) {
		if (o->origin[OPT_INPUT] == ORIGIN_CLI)
			return l3d_fail(err, L3D_ERR_USAGE,
					"input given twice ('%s' and '%s')", o->input,
					argv[optind]);
		if (!*argv[optind])
			return l3d_fail(err, L3D_ERR_USAGE,
					"INPUT: empty name (give a file, or - for standard input)");
		o->input = argv[optind++];
		o->origin[OPT_INPUT] = ORIGIN_CLI;
	}
	if (optind < argc)
		return l3d_fail(err, L3D_ERR_USAGE,
				"more than one input ('%s'); life3d reads one universe",
				argv[optind]);
	return L3D_OK;
}

/* text in lines of HELP_WIDTH characters at most, broken at blanks. */
#define HELP_WIDTH 72
static void put_filled(FILE *out, const char *text)
{
	while (strlen(text) > HELP_WIDTH) {
		int cut = HELP_WIDTH;
		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (cut == 0)
			break;
		fprintf(out, "%.*s\n", cut, text);
		text += cut + 1;
	}
	fprintf(out, "%s\n", text);
}

/* One option: its names in a column of 28, its text filled beside them
 * to 80 columns, continued under itself. */
#define HELP_COLUMNS 80
#define HELP_TEXT_AT 31
static void put_option(FILE *out, const char *left, const char *text)
{
	int col = fprintf(out, "  %-28s ", left);
	for (;;) {
		size_t room = col < HELP_COLUMNS ? (size_t)(HELP_COLUMNS - col) : 1;
		size_t cut = room;
		if (strlen(text) <= room)
			break;
		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (cut == 0 && !(cut = strcspn(text, " "), text[cut]))
			break;                      /* one word longer than the room */
		fprintf(out, "%.*s\n%*s", (int)cut, text, HELP_TEXT_AT, "");
		text += cut + 1;
		col = HELP_TEXT_AT;
	}
	fprintf(out, "%s\n", text);
}

void cli_help(FILE *out)
{
	fputs("Usage: life3d [OPTION]... [INPUT]\n"
	      "  or:  life3d census [OPTION]...   (a census of soups: life3d census --help)\n"
	      "Run a 3D outer-totalistic cellular automaton (default: 3D Life B6/S567)\n"
	      "on a periodic box and write the final universe.\n"
	      "With no INPUT, or when INPUT is -, read standard input.\n\n", out);
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		char left[48];
		char sh[8] = "    ";
		if (d->short_name)
			snprintf(sh, sizeof sh, "-%c, ", d->short_name);
		snprintf(left, sizeof left, "%s--%s%s%s", sh, d->name,
			 d->arg ? " " : "", d->arg ? d->arg : "");
		put_option(out, left, d->help);
	}
	char reads[256], writes[256], text[600];
	snprintf(text, sizeof text, "Input formats are recognised by content: %s.  "
		 "Output formats: %s.", format_reads(reads, sizeof reads),
		 format_writes(writes, sizeof writes));
	fputc('\n', out);
	put_filled(out, text);
	fputs("Exit status: 0 success, 64 usage, 65 bad data, 66 missing input,\n"
	      "69 engine unavailable, 73 cannot create output, 74 I/O error,\n"
	      "75 stopped by --max-time, 78 bad config, 130 interrupted, 1 other failure.\n"
	      "See life3d(1), life3d.conf(5) and life3d-formats(5).\n", out);
}
