/* conffile.h - settings from a libconfig file.
 *
 * Every top-level setting names an option of the table in options.h by its
 * config key (long name with '_' for '-').  Options already given on the
 * command line keep their value: the file only supplies what the command
 * line left out.  Several files (-c given more than once) are read in
 * order, and a later file's value wins over an earlier file's.
 *
 * `@include "NAME"` on a line of its own reads NAME, found next to the file
 * that includes it (or at its absolute path), as if its settings stood in
 * place of the line; a setting after it wins over the included value.
 * Integers are read from the file's text, all 64 bits of them (libconfig
 * 1.5 would keep 32), see conftext.h. */
#ifndef LIFE3D_CLI_CONFFILE_H
#define LIFE3D_CLI_CONFFILE_H

#include "options.h"
#include "base/status.h"

/* Read `path` and store its settings in `o` (origin ORIGIN_CONFIG).  On
 * any error `o` is left as it was.  Errors:
 *   L3D_ERR_NOINPUT  "FILE: cannot open: REASON"
 *   L3D_ERR_CONFIG   "FILE:LINE: ..." for syntax errors, unknown keys,
 *                    values of the wrong type and bad values, and an
 *                    @include whose file cannot be read (which it names)
 *                    or is not a regular file ("...: a FIFO; only regular
 *                    files are included"), or whose name is too long
 *   L3D_ERR_USAGE    path "-" (stdin carries the universe, not settings)
 *   L3D_ERR_RUNTIME  out of memory
 * Strings stored in `o` stay valid until the program exits. */
int conffile_load(const char *path, options *o, l3d_err *err);

#endif
