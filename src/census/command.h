/* command.h - `life3d census`: its command line, --help, and the command
 * (a census written as a haul, or one soup written as a universe).
 * main.c hands it argv from the word "census" on, and the environment's
 * knobs; it prints nothing but the haul, the soup and (on a terminal,
 * not with -q) its progress, and returns errors as values. */
#ifndef LIFE3D_CENSUS_COMMAND_H
#define LIFE3D_CENSUS_COMMAND_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/status.h"
#include "engine/knobs.h"

typedef struct census_args {
	const char *rule, *root, *output, *soup, *engine;
	const char *objects;      /* --objects DIR, or NULL */
	const char **files;       /* --soups FILE, nfiles of them */
	int nfiles;
	char **hauls;             /* --merge's operands, nhauls of them */
	int nhauls;
	uint64_t side, count, first, max_gens, threads;
	int64_t device;           /* -1 = the first GPU */
	double density, time;     /* time: --time's seconds; 0 = none */
	bool ranged;              /* --count or --first given */
	bool merge, force, quiet, verbose, help;
} census_args;

/* argv[0] is "census".  L3D_ERR_USAGE with one line for a bad option.
 * census_args_free frees what it took, either way. */
int census_args_parse(int argc, char **argv, census_args *a, l3d_err *err);
void census_args_free(census_args *a);
void census_help(FILE *out);

/* The census (or the soup) a asks for; stop is set by a signal. */
int census_command(const census_args *a, const engine_knobs *knobs,
		   volatile sig_atomic_t *stop, l3d_err *err);

#endif
