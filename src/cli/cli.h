/* cli.h - the command line: parsing into options, and --help.  (The
 * environment's measurement settings are engine/knobs.h's.) */
#ifndef LIFE3D_CLI_H
#define LIFE3D_CLI_H

#include <stdio.h>

#include "options.h"

/* Parse argv into o (already initialised with options_init).  The INPUT
 * operand becomes o->input.  Errors: L3D_ERR_USAGE. */
int cli_parse(int argc, char **argv, options *o, l3d_err *err);

void cli_help(FILE *out);

#endif
