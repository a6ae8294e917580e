/* conftext.h - the text of one configuration file, for what libconfig
 * 1.5 does not tell: the value of a setting as written, and @include.
 *
 * libconfig 1.5 keeps an integer without an L suffix in 32 bits (steps =
 * 4294967299 reads as 3) and clamps a larger one; it resolves @include
 * against the working directory.  So life3d reads the file itself: the
 * value of every integer setting is taken from its text, and @include
 * lines are taken out of the text libconfig parses and read here, next to
 * the file that names them.  The scanner knows libconfig's comments (#,
 * //, slash-star), strings and the form of an @include line, and nothing
 * else. */
#ifndef LIFE3D_CLI_CONFTEXT_H
#define LIFE3D_CLI_CONFTEXT_H

#include <stddef.h>
#include <stdio.h>

#include "base/status.h"

#define CONFTEXT_MAX_INCLUDES 64

/* The largest file read: libconfig compares each setting's name with
 * every one before it, so 64 KiB of settings parse in about a second (1
 * MiB would take minutes); the shipped example, every key commented,
 * holds 4 KiB. */
#define CONFTEXT_MAX_BYTES ((size_t)64 << 10)

typedef struct conf_include {
	int line;               /* of the @include */
	char name[1024];        /* as written between the quotes */
} conf_include;

typedef struct conftext {
	char *text;             /* the file, NUL-terminated */
	char *parse;            /* the same with @include lines blanked */
	size_t len;             /* of text, in bytes */
	conf_include inc[CONFTEXT_MAX_INCLUDES];
	int ninc;
} conftext;

/* Read the open file `f` (named `path` in messages) whole and find its
 * @include lines.  Errors: L3D_ERR_IO (read error), L3D_ERR_CONFIG (a NUL
 * byte, a file over CONFTEXT_MAX_BYTES, an @include without a closing quote or with
 * a name longer than conf_include.name holds, more than
 * CONFTEXT_MAX_INCLUDES of them), L3D_ERR_RUNTIME (memory). */
int conftext_read(FILE *f, const char *path, conftext *t, l3d_err *err);

/* The value of `key` as written, its key on line `line`: the characters
 * of a scalar token after the '=' or ':' ("4294967299", "0x10L",
 * "-3"), at most size - 1 of them, into buf.  Returns 0, or -1 when no
 * such setting is found. */
int conftext_value(const conftext *t, int line, const char *key, char *buf,
		   size_t size);

void conftext_free(conftext *t);

#endif
