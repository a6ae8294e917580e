/* fuzz_config.c - configuration files (libconfig syntax, option checks).
 *
 * conffile_load wants a path, so each input goes to one file that lives
 * for the whole process, alone in a directory made for it.  Each input
 * runs twice: on fresh defaults, and with every option already given on
 * the command line, where the file may only be checked, never applied.
 *
 * A relative @include is found next to the input, so it names the input
 * itself (which then includes itself down to the depth limit), the FIFO
 * "4" or nothing.  A memory file named through /proc/self/fd would put
 * the fuzzer's own descriptors a short name away ("4"): its pipes, which
 * @include once waited on for ever, and its log, whose content changes
 * from run to run, so a finding would not replay.  The FIFO stands where
 * that pipe stood, with no writer, so regress/config/hang-include-fd-4
 * still reaches one and would wait for ever if @include waited.
 * Absolute names still reach the whole system, and cannot hang a run
 * either: @include reads only regular files, and a bounded part of one. */
#include "fuzz.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/conffile.h"

const char fuzz_target[] = "config";

/* libconfig up to 1.7.2 loses the text of a string token that a syntax
 * error discards (hyperrealm/libconfig#142, fixed in 1.7.3; Debian 12 has
 * 1.5).  The scanner allocates that text in strbuf_append, or in yylex
 * for "".  Only those sites are excused: a config_t that life3d failed to
 * destroy would still leak its settings and be reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:strbuf_append\nleak:libconfig_yylex\n";
}

static char input_dir[PATH_MAX], input_path[PATH_MAX + 16],
	fifo_path[PATH_MAX + 16];

static void remove_input(void)
{
	unlink(input_path);
	unlink(fifo_path);
	rmdir(input_dir);
}

static const char *input_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0) {
		const char *tmp = getenv("TMPDIR");
		snprintf(input_dir, sizeof input_dir, "%s/life3d-fuzz-config.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		fuzz_require(mkdtemp(input_dir) != NULL, "mkdtemp failed");
		snprintf(input_path, sizeof input_path, "%s/input.conf", input_dir);
		snprintf(fifo_path, sizeof fifo_path, "%s/4", input_dir);
		atexit(remove_input);
		fd = open(input_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		fuzz_require(fd >= 0, "creating the input file failed");
		fuzz_require(mkfifo(fifo_path, 0600) == 0, "creating the FIFO failed");
	}
	fuzz_require(ftruncate(fd, 0) == 0, "ftruncate failed");
	for (size_t done = 0; done < size;) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
		fuzz_require(n > 0, "writing the input file failed");
		done += (size_t)n;
	}
	return input_path;
}

static size_t field_size(opt_type t)
{
	switch (t) {
	case OT_FLAG: return sizeof(bool);
	case OT_UINT: return sizeof(uint64_t);
	case OT_INT: return sizeof(int64_t);
	case OT_DOUBLE: return sizeof(double);
	default: return sizeof(const char *);
	}
}

static bool same_option(const options *a, const options *b, const opt_desc *d)
{
	return a->origin[d->id] == b->origin[d->id] &&
	       memcmp((const char *)a + d->offset, (const char *)b + d->offset,
		      field_size(d->type)) == 0;
}

static void check_load(const char *path, options *o)
{
	options before = *o;
	l3d_err err;
	int rc = conffile_load(path, o, &err);
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		if (same_option(&before, o, d))
			continue;
		fuzz_require(rc == L3D_OK, "a failed load changed an option");
		fuzz_require(before.origin[i] != ORIGIN_CLI,
			     "the file overrode the command line");
		fuzz_require(o->origin[i] == ORIGIN_CONFIG,
			     "an option set by the file is not marked as such");
		fuzz_require(d->config_key, "the file set an option it may not set");
	}
	if (rc != L3D_OK) {
		fuzz_require(rc == L3D_ERR_CONFIG || rc == L3D_ERR_RUNTIME,
			     "conffile_load failed with a code other than CONFIG or RUNTIME");
		fuzz_require(err.code == rc && err.msg[0], "an error without its message");
	} else if (o->origin[OPT_RULE] == ORIGIN_CONFIG) {
		rule r;
		fuzz_require(rule_parse(o->rule, &r, &err) == L3D_OK,
			     "the file set a rule that does not parse");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = input_file(data, size);
	options o;
	options_init(&o);
	check_load(path, &o);
	options_init(&o);
	for (int i = 0; i < OPT_COUNT; i++)
		o.origin[i] = ORIGIN_CLI;
	check_load(path, &o);
	return 0;
}
