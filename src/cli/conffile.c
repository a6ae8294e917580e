/* conffile.c - apply a libconfig file to the options.
 *
 * The option table is the only list of keys: a setting is accepted when
 * option_by_key() knows it, and its value goes through the same setters as
 * the command line, so both report the same limits.  Every message starts
 * with FILE:LINE so an editor can jump to the culprit. */
#include "conffile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/rule.h"
#include "conftext.h"
#include "format/format.h"

/* @include depth: a file that includes itself stops here. */
#define CONF_MAX_DEPTH 16

/* A -c file and all it includes hold at most this much text together.
 * Each file read is named by an @include line of at least 12 bytes in a
 * file read before it, so this also bounds how many are read (files that
 * include the same file many times, at every depth, would otherwise make
 * 64^16 reads). */
#define CONF_MAX_TOTAL ((size_t)1 << 20)

/* One -c file being loaded, with everything it includes. */
typedef struct loading {
	options *o;
	size_t bytes;           /* of text read so far, all files together */
} loading;

/* The options keep pointers to their strings (option_set_text stores the
 * pointer), and the options live until exit, so copies of config strings
 * are kept here for the life of the process instead of being freed with
 * the config_t.  Holding them in a static table keeps them reachable,
 * which leak checkers accept. */
static char **kept;
static size_t nkept, kept_cap;

static const char *keep_string(const char *s)
{
	if (nkept == kept_cap) {
		size_t cap = kept_cap ? 2 * kept_cap : 16;
		char **grown = realloc(kept, cap * sizeof *grown);
		if (!grown)
			return NULL;
		kept = grown;
		kept_cap = cap;
	}
	char *copy = strdup(s);
	if (copy)
		kept[nkept++] = copy;
	return copy;
}

/* "FILE:LINE" of a setting, for messages. */
typedef struct place {
	const char *file;
	int line;
} place;

static place place_of(const config_setting_t *s, const char *path)
{
	const char *file = config_setting_source_file(s);
	return (place){file ? file : path, (int)config_setting_source_line(s)};
}

static const char *type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "true or false";
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	default: return "nothing";
	}
}

/* What an option needs in the file, for "'steps' must be an integer". */
static const char *wanted(const opt_desc *d)
{
	switch (d->type) {
	case OT_FLAG: return "true or false";
	case OT_UINT: return d->choices ? "an integer or its word" : "an integer";
	case OT_INT: return "an integer";
	case OT_DOUBLE: return "a number";
	default: return "a string";
	}
}

/* An OT_UINT with a word for 0 (snapshot_max = "auto") takes a string
 * too. */
static bool type_fits(const opt_desc *d, int type)
{
	switch (d->type) {
	case OT_FLAG: return type == CONFIG_TYPE_BOOL;
	case OT_UINT:
		return type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64 ||
		       (d->choices && type == CONFIG_TYPE_STRING);
	case OT_INT: return type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64;
	case OT_DOUBLE:
		return type == CONFIG_TYPE_FLOAT || type == CONFIG_TYPE_INT ||
		       type == CONFIG_TYPE_INT64;
	default: return type == CONFIG_TYPE_STRING;
	}
}

/* Edit distance, to suggest the key a typo meant; keys are short. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];
	if (lb >= sizeof row / sizeof row[0] || la >= 64)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = diag + (a[i - 1] != b[j - 1]);
			size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = cost < best ? cost : best;
			diag = up;
		}
	}
	return row[lb];
}

static int unknown_key(place at, const char *name, l3d_err *err)
{
	const opt_desc *d = option_by_name(name);
	if (d && !d->config_key)
		return l3d_fail(err, L3D_ERR_CONFIG,
				"%s:%d: '%s' cannot be set in a configuration file",
				at.file, at.line, name);
	char key[64], best[64] = "";
	size_t best_dist = 3;
	for (int i = 0; i < OPT_COUNT; i++) {
		if (!option_table[i].config_key)
			continue;
		option_key(&option_table[i], key, sizeof key);
		size_t dist = edit_distance(name, key);
		if (dist < best_dist) {
			best_dist = dist;
			snprintf(best, sizeof best, "%s", key);
		}
	}
	if (*best)
		return l3d_fail(err, L3D_ERR_CONFIG,
				"%s:%d: unknown key '%s' (did you mean '%s'?)",
				at.file, at.line, name, best);
	return l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: unknown key '%s'", at.file,
			at.line, name);
}

/* The rule is checked here, not only when the run starts, so a bad one
 * is reported with its line in the file. */
static int check_rule(const char *text, const char *where, l3d_err *err)
{
	rule r;
	l3d_err rerr;
	if (rule_parse(text, &r, &rerr) == L3D_OK)
		return L3D_OK;
	return l3d_fail(err, L3D_ERR_CONFIG, "%s: %s", where, rerr.msg);
}

/* A NULL value is a string libconfig failed to copy: it keeps the
 * setting and reports success all the same. */
static int set_string(options *o, const opt_desc *d, const char *value,
		      const char *where, l3d_err *err)
{
	if (!value)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", where);
	if (d->id == OPT_RULE) {
		int rc = check_rule(value, where, err);
		if (rc)
			return rc;
	}
	const char *copy = keep_string(value);
	if (!copy)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", where);
	return option_set_text(o, d, copy, ORIGIN_CONFIG, where, err);
}

enum { INT_OK, INT_NOT, INT_TOO_LARGE };

/* An integer as written (decimal or 0x hex, libconfig's L or LL suffix
 * dropped) as decimal text for option_set_text, which then reads all 64
 * bits and names a decimal value too large as written.  INT_TOO_LARGE: a
 * hex one past 64 bits; INT_NOT: not an integer. */
static int integer_text(const char *raw, char *dec, size_t size)
{
	size_t n = strlen(raw);
	if (n >= size)
		return INT_NOT;
	memcpy(dec, raw, n + 1);
	while (n > 0 && dec[n - 1] == 'L')
		dec[--n] = '\0';
	char *digits = dec + (*dec == '+' || *dec == '-');
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(digits + 2, &end, 16);
		if (errno || *end || end == digits + 2 || *dec == '-')
			return errno == ERANGE && !*end && *dec != '-' ? INT_TOO_LARGE : INT_NOT;
		snprintf(dec, size, "%llu", v);
		return INT_OK;
	}
	if (*dec == '+')
		memmove(dec, dec + 1, n);
	return INT_OK;
}

/* libconfig 1.5 keeps an integer without L in 32 bits and clamps a larger
 * one, so the value is read again from the file's text. */
static int set_integer(options *o, const opt_desc *d, const config_setting_t *s,
		       const conftext *t, const char *where, l3d_err *err)
{
	char raw[256], dec[256];
	const char *name = config_setting_name(s); /* apply_setting checked it */
	if (conftext_value(t, (int)config_setting_source_line(s), name, raw,
			   sizeof raw) != 0)
		return l3d_fail(err, L3D_ERR_CONFIG,
				"%s: cannot read the value as written; put it after "
				"'%s =' on the key's line", where, name);
	switch (integer_text(raw, dec, sizeof dec)) {
	case INT_TOO_LARGE:
		return option_too_large(d, where, raw, err);
	case INT_NOT:
		snprintf(dec, sizeof dec, "%s", raw);
		break;
	}
	return option_set_text(o, d, dec, ORIGIN_CONFIG, where, err);
}

/* Store a value whose type already fits the option. */
static int set_value(options *o, const opt_desc *d, const config_setting_t *s,
		     const conftext *t, const char *where, l3d_err *err)
{
	switch (d->type) {
	case OT_FLAG:
		return option_set_flag(o, d, config_setting_get_bool(s), ORIGIN_CONFIG);
	case OT_UINT:
		if (config_setting_type(s) == CONFIG_TYPE_STRING) {
			const char *v = config_setting_get_string(s);
			return v ? option_set_text(o, d, v, ORIGIN_CONFIG, where, err)
				 : l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", where);
		}
		return set_integer(o, d, s, t, where, err);
	case OT_INT:
		return set_integer(o, d, s, t, where, err);
	case OT_DOUBLE:
		if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
			return option_set_double(o, d, config_setting_get_float(s),
						 ORIGIN_CONFIG, where, err);
		return set_integer(o, d, s, t, where, err);
	default:
		return set_string(o, d, config_setting_get_string(s), where, err);
	}
}

static int apply_setting(options *o, const config_setting_t *s,
			 const conftext *t, const char *path, l3d_err *err)
{
	const char *name = config_setting_name(s);
	place at = place_of(s, path);
	/* NULL: libconfig failed to copy the name, and kept the setting. */
	if (!name)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s:%d: out of memory", at.file,
				at.line);
	const opt_desc *d = option_by_key(name);
	if (!d)
		return unknown_key(at, name, err);
	int type = config_setting_type(s);
	if (!type_fits(d, type))
		return l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: '%s' must be %s (found %s)",
				at.file, at.line, name, wanted(d),
				type_name(type));
	/* The command line wins, but the file's value is checked all the same
	 * (into a copy that is dropped): a bad file is a bad file. */
	options scratch = *o;
	bool cli = o->origin[d->id] == ORIGIN_CLI;
	char where[4200];
	snprintf(where, sizeof where, "%s:%d: %s", at.file, at.line, name);
	int rc = set_value(cli ? &scratch : o, d, s, t, where, err);
	if (cli && rc == L3D_OK)
		return L3D_OK;
	if (rc != L3D_OK && rc != L3D_ERR_RUNTIME) {
		rc = L3D_ERR_CONFIG;
		if (err)
			err->code = rc;
	}
	if (rc == L3D_OK) {
		o->source[d->id] = path;
		o->source_line[d->id] = at.line;
	}
	return rc;
}

static int load_file(const char *path, int depth, const char *from,
		     const conf_include *inc, loading *ld, l3d_err *err);

/* An @include names a file next to the file that holds it (an absolute
 * name is taken as it is). */
static int load_include(const char *from, const conf_include *inc, int depth,
			loading *ld, l3d_err *err)
{
	char path[4096];
	const char *slash = strrchr(from, '/');
	int n = inc->name[0] == '/' || !slash
		? snprintf(path, sizeof path, "%s", inc->name)
		: snprintf(path, sizeof path, "%.*s/%s", (int)(slash - from), from,
			   inc->name);
	if (n < 0 || (size_t)n >= sizeof path)
		return l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: @include \"%s\": path "
				"too long", from, inc->line, inc->name);
	if (depth >= CONF_MAX_DEPTH)
		return l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: @include \"%s\": more "
				"than %d files deep (does a file include itself?)",
				from, inc->line, inc->name, CONF_MAX_DEPTH);
	const char *kept_path = keep_string(path);
	if (!kept_path)
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", from);
	return load_file(kept_path, depth + 1, from, inc, ld, err);
}

/* The settings of a file in order, each @include's where it stands. */
static int apply_all(const config_t *cfg, const conftext *t, const char *path,
		     int depth, loading *ld, l3d_err *err)
{
	const config_setting_t *root = config_root_setting(cfg);
	int n = config_setting_length(root), next_inc = 0, rc = L3D_OK;
	for (int i = 0; i <= n && !rc; i++) {
		const config_setting_t *s = i < n ? config_setting_get_elem(root, i) : NULL;
		int line = s ? (int)config_setting_source_line(s) : INT_MAX;
		while (!rc && next_inc < t->ninc && t->inc[next_inc].line <= line)
			rc = load_include(path, &t->inc[next_inc++], depth, ld, err);
		if (!rc && s)
			rc = apply_setting(ld->o, s, t, path, err);
	}
	return rc;
}

static int syntax_error(const config_t *cfg, const char *path, l3d_err *err)
{
	const char *file = config_error_file(cfg), *text = config_error_text(cfg);
	return l3d_fail(err, L3D_ERR_CONFIG, "%s:%d: %s", file ? file : path,
			config_error_line(cfg), text ? text : "syntax error");
}

/* Open the file ourselves so a missing or unreadable file gets the
 * system's reason rather than libconfig's generic "file I/O error" (or,
 * for a directory, "input in flex scanner failed"). */
static FILE *open_config(const char *path, l3d_err *err)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (!f) {
		l3d_fail(err, L3D_ERR_NOINPUT, "%s: cannot open: %s", path,
			 strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		l3d_fail(err, L3D_ERR_NOINPUT, "%s: cannot open: %s", path,
			 strerror(EISDIR));
		return NULL;
	}
	return f;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode) ? "a character device"
	       : S_ISBLK(mode) ? "a block device"
	       : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* An included file is read only when it is a regular file: a FIFO, a
 * pipe (/dev/fd/N, /proc/self/fd/N), a terminal or a device could wait
 * for ever or never end.  O_NONBLOCK keeps the open of a FIFO from
 * waiting for a writer until fstat has refused it, and stays for the
 * reading: a regular file that would wait for data (/proc/kmsg) then
 * ends the read with EAGAIN instead of blocking.  O_NOCTTY: a terminal
 * opened only to be refused must not become the controlling terminal of
 * a process that has none.  Links are followed, as for the input and the
 * -c file (O_NOFOLLOW guards only the files life3d writes over).  The
 * file -c names is the user's own choice and may be a pipe (-c <(...)),
 * so open_config keeps that one as fopen gives it. */
static FILE *open_included(const char *path, l3d_err *err)
{
	struct stat st;
	FILE *f = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0)
		l3d_fail(err, L3D_ERR_NOINPUT, "%s: cannot open: %s", path,
			 strerror(errno));
	else if (!S_ISREG(st.st_mode))
		l3d_fail(err, L3D_ERR_CONFIG, "%s; only regular files are included",
			 file_kind(st.st_mode));
	else if (!(f = fdopen(fd, "r")))
		l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* A universe given to -c (`life3d -c u.l3d`) would otherwise be reported
 * as a syntax error on its first line.  Only regular files are looked at,
 * with the readers' own detection; the peek is undone with a seek.
 * libconfig text never passes for a universe: its first bytes are not a
 * magic, "3D " or a binary edge length below 2^32. */
static const char *universe_format(FILE *f)
{
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	reader r;
	fmt_id id;
	l3d_err ignored;
	reader_init(&r, f, "");
	int rc = format_detect(&r, &id, &ignored);
	rewind(f);
	return rc ? NULL : format_name(id);
}

static int read_counted(FILE *f, const char *path, conftext *t,
			size_t *bytes, l3d_err *err)
{
	int rc = conftext_read(f, path, t, err);
	if (rc)
		return rc;
	*bytes += t->len;
	if (*bytes <= CONF_MAX_TOTAL)
		return L3D_OK;
	conftext_free(t);
	return l3d_fail(err, L3D_ERR_CONFIG, "%s: the files included pass %zu MiB "
			"in all", path, CONF_MAX_TOTAL >> 20);
}

/* The text of a file, read whole; a universe is refused (one named by
 * -c, at depth 0, with a hint to give it as INPUT; an included one with
 * the place of its @include). */
static int read_text(const char *path, int depth, const char *from,
		     const conf_include *inc, conftext *t, size_t *bytes,
		     l3d_err *err)
{
	FILE *f = depth ? open_included(path, err) : open_config(path, err);
	const char *kind = f ? universe_format(f) : NULL;
	int rc = !f ? err->code
		 : !kind ? read_counted(f, path, t, bytes, err)
		 : depth ? l3d_fail(err, L3D_ERR_CONFIG, "a universe (%s format), "
				    "not a configuration file", kind)
		 : l3d_fail(err, L3D_ERR_CONFIG,
			    "%s: a universe (%s format), not a configuration file: "
			    "-c takes settings; give a universe as INPUT "
			    "(life3d [OPTION]... %s)", path, kind, path);
	if (f)
		fclose(f);
	/* An included file that cannot be read as text is the including
	 * file's error, at its @include. */
	if (depth && (rc == L3D_ERR_NOINPUT || rc == L3D_ERR_IO || rc == L3D_ERR_CONFIG)) {
		rc = l3d_fail_keeping(err, L3D_ERR_CONFIG, err->msg, "%s:%d: @include \"%s\": %s",
				      from, inc->line, inc->name, err->msg);
	}
	return rc;
}

/* libconfig's scanner exits (status 2) when an allocation fails, and its
 * parser writes through the NULL of one, so a parse starts only when the
 * memory it takes is there.  Measured with massif: settings take at most
 * 41 bytes a byte of text (an array of 1s); nesting up to 256 a byte
 * ("(((": a list and a parser stack entry each), but 1.3 MiB at most,
 * where the parser's depth limit stops it; the scanner's buffers 9 KiB.
 * A small file asks for little room, as the fuzzer, which parses every
 * input, needs.  The room is allocated and given back just before the
 * parse, and nothing else allocates in between, so under a limit on the
 * process (ulimit -v or -d: how a malloc comes to fail under Linux's
 * default overcommit) the parse has as much room.  Only a machine-wide
 * strict overcommit, where another process may take the memory in
 * between, is left to chance. */
#define NEST_ROOM_MAX ((size_t)2 << 20)

static bool room_to_parse(size_t len)
{
	size_t nest = len < NEST_ROOM_MAX / 256 ? 256 * len : NEST_ROOM_MAX;
	void *room = malloc(48 * len + nest + ((size_t)16 << 10));
	bool there = room != NULL;
	free(room);
	return there;
}

static int load_file(const char *path, int depth, const char *from,
		     const conf_include *inc, loading *ld, l3d_err *err)
{
	conftext t;
	int rc = read_text(path, depth, from, inc, &t, &ld->bytes, err);
	if (rc)
		return rc;
	if (!room_to_parse(t.len)) {
		conftext_free(&t);
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory", path);
	}
	config_t cfg;
	config_init(&cfg);
	if (config_read_string(&cfg, t.parse) != CONFIG_TRUE)
		rc = syntax_error(&cfg, path, err);
	else
		rc = apply_all(&cfg, &t, path, depth, ld, err);
	config_destroy(&cfg);
	conftext_free(&t);
	return rc;
}

int conffile_load(const char *path, options *o, l3d_err *err)
{
	if (!path || strcmp(path, "-") == 0)
		return l3d_fail(err, L3D_ERR_USAGE,
				"--config -: the configuration cannot come from stdin, "
				"which carries the universe; name a file");
	/* Apply to a copy: a bad line must not leave half a file applied. */
	options next = *o;
	loading ld = {&next, 0};
	int rc = load_file(path, 0, NULL, NULL, &ld, err);
	if (rc == L3D_OK)
		*o = next;
	return rc;
}
