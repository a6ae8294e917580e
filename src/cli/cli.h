/* cli.h - the command line: parsing into options, the environment's
 * measurement settings, and --help. */
#ifndef LIFE3D_CLI_H
#define LIFE3D_CLI_H

#include <stdio.h>

#include "options.h"

/* Parse argv into o (already initialised with options_init).  The INPUT
 * operand becomes o->input.  Errors: L3D_ERR_USAGE. */
int cli_parse(int argc, char **argv, options *o, l3d_err *err);

/* The LIFE3D_* settings for measurements (life3d(1), ENVIRONMENT) that
 * the engines read with getenv: a value they would misread (a word where
 * a number goes, a number out of range) is refused here, before any work,
 * as a bad option is (L3D_ERR_USAGE).  Unset or empty: the default.
 * LIFE3D_SIMD, LIFE3D_HALO and LIFE3D_CUDA_TUNE are checked where they
 * are used. */
int cli_check_environment(l3d_err *err);

void cli_help(FILE *out);

#endif
