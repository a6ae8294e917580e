/* check_config.c - configuration files: every key, types, precedence,
 * errors with their line numbers, and the shipped conf/life3d.conf. */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* By path: a bare "config.h" from here finds configure's header first. */
#include "check_run.h"
#include "cli/conffile.h"
#include "cli/options.h"

static char tmpdir[4096];
static char last_path[4200];
static int file_serial;

/* Write `text` to a fresh file in the scratch directory; its name is left
 * in last_path for checking messages. */
static const char *write_conf(const char *text)
{
	snprintf(last_path, sizeof last_path, "%s/test-%d-%d.conf", tmpdir,
		 (int)getpid(), file_serial++);
	FILE *f = fopen(last_path, "w");
	ck_assert_msg(f != NULL, "%s: %s", last_path, strerror(errno));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	return last_path;
}

/* Load `text` as a configuration file; the file is gone afterwards, which
 * also proves that stored strings do not point into it or into libconfig. */
static int load_text(const char *text, options *o, l3d_err *err)
{
	const char *path = write_conf(text);
	int rc = conffile_load(path, o, err);
	unlink(path);
	return rc;
}

static void *field(options *o, const opt_desc *d)
{
	return (char *)o + d->offset;
}

/* A value for option d unlike its default, as config text, and checks
 * that it arrived. */
static double numeric_value(const opt_desc *d, double dflt)
{
	if (d->type == OT_DOUBLE)
		return dflt == 0.5 ? 0.75 : 0.5 * (d->min + d->max);
	double v = dflt == 7 ? 8 : 7;
	if (v > d->max)
		v = dflt == d->max ? d->max - 1 : d->max;
	if (v < d->min)
		v = d->min;
	return v;
}

/* The last word of `choices` that is not `current`. */
static void other_choice(const char *choices, const char *current, char *buf,
			 size_t size)
{
	const char *p = choices;
	buf[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, "|");
		if (!current || strlen(current) != len || strncmp(p, current, len))
			snprintf(buf, size, "%.*s", (int)len, p);
		p += len + (p[len] == '|');
	}
}

static void value_text(const opt_desc *d, const options *dflt, char *buf,
		       size_t size)
{
	options copy = *dflt;
	void *f = field(&copy, d);
	switch (d->type) {
	case OT_FLAG:
		snprintf(buf, size, "%s", *(bool *)f ? "false" : "true");
		break;
	case OT_UINT:
		snprintf(buf, size, "%.0f", numeric_value(d, (double)*(uint64_t *)f));
		break;
	case OT_INT:
		snprintf(buf, size, "%.0f", numeric_value(d, (double)*(int64_t *)f));
		break;
	case OT_DOUBLE:
		snprintf(buf, size, "%.17g", numeric_value(d, *(double *)f));
		break;
	case OT_STRING:
		/* random, box, snapshot_view and max_time are checked when
		 * set: real values. */
		snprintf(buf, size, "\"%s\"",
			 d->id == OPT_RULE || d->id == OPT_RANDOM_RULE ? "B5/S45"
			 : d->id == OPT_RANDOM ? "5x6x7"
			 : d->id == OPT_BOX ? "1,2,3:4,5,6"
			 : d->id == OPT_SNAPSHOT_VIEW ? "-45,10.5"
			 : d->id == OPT_MAX_TIME ? "1:30:00" : d->name);
		break;
	case OT_CHOICE: {
		char word[64], list[128];
		other_choice(option_choices(d, list, sizeof list), *(const char **)f,
			     word, sizeof word);
		snprintf(buf, size, "\"%s\"", word);
		break;
	}
	}
}

/* Does the stored value print as `text` (the config form)? */
static void expect_field(options *o, const opt_desc *d, const char *text)
{
	char got[256];
	void *f = field(o, d);
	switch (d->type) {
	case OT_FLAG: snprintf(got, sizeof got, "%s", *(bool *)f ? "true" : "false"); break;
	case OT_UINT: snprintf(got, sizeof got, "%llu", (unsigned long long)*(uint64_t *)f); break;
	case OT_INT: snprintf(got, sizeof got, "%lld", (long long)*(int64_t *)f); break;
	case OT_DOUBLE: snprintf(got, sizeof got, "%.17g", *(double *)f); break;
	default: snprintf(got, sizeof got, "\"%s\"", *(const char **)f); break;
	}
	ck_assert_msg(strcmp(got, text) == 0, "%s: stored %s, file said %s",
		      d->name, got, text);
	ck_assert_msg(o->origin[d->id] == ORIGIN_CONFIG, "%s: origin %d", d->name,
		      (int)o->origin[d->id]);
}

/* Iterates the table, so an option added later is covered at once. */
START_TEST(test_every_key)
{
	options dflt, o;
	options_init(&dflt);
	char text[8192] = "# every key\n", key[64], value[256];
	int keys = 0;
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		if (!d->config_key)
			continue;
		value_text(d, &dflt, value, sizeof value);
		size_t n = strlen(text);
		snprintf(text + n, sizeof text - n, "%s = %s;\n",
			 option_key(d, key, sizeof key), value);
		keys++;
	}
	ck_assert_int_gt(keys, 20);
	o = dflt;
	l3d_err err = {0, ""};
	ck_assert_msg(load_text(text, &o, &err) == L3D_OK, "%s", err.msg);
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		if (!d->config_key) {
			ck_assert_int_eq(o.origin[d->id], ORIGIN_DEFAULT);
			continue;
		}
		value_text(d, &dflt, value, sizeof value);
		expect_field(&o, d, value);
	}
}
END_TEST

/* One key per file too, so a key that only works next to others fails. */
START_TEST(test_each_key_alone)
{
	options dflt;
	options_init(&dflt);
	char text[512], key[64], value[256];
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		if (!d->config_key)
			continue;
		value_text(d, &dflt, value, sizeof value);
		snprintf(text, sizeof text, "%s = %s;\n",
			 option_key(d, key, sizeof key), value);
		options o = dflt;
		l3d_err err = {0, ""};
		ck_assert_msg(load_text(text, &o, &err) == L3D_OK, "%s", err.msg);
		expect_field(&o, d, value);
		for (int j = 0; j < OPT_COUNT; j++)
			if (j != (int)d->id)
				ck_assert_int_eq(o.origin[j], ORIGIN_DEFAULT);
	}
}
END_TEST

static void expect_fail(const char *text, int code, int line, const char *needle)
{
	options o, before;
	options_init(&o);
	before = o;
	l3d_err err = {0, ""};
	int rc = load_text(text, &o, &err);
	ck_assert_msg(rc == code, "expected %d, got %d (%s) for:\n%s", code, rc,
		      err.msg, text);
	ck_assert_int_eq(err.code, code);
	char prefix[4300];
	snprintf(prefix, sizeof prefix, "%s:%d: ", last_path, line);
	ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0,
		      "'%s' does not start with '%s'", err.msg, prefix);
	ck_assert_msg(strstr(err.msg, needle) != NULL, "'%s' lacks '%s'", err.msg,
		      needle);
	ck_assert_msg(strchr(err.msg, '\n') == NULL, "message has a newline");
	ck_assert_msg(memcmp(&o, &before, sizeof o) == 0,
		      "a failed load changed the options");
}

/* Which libconfig values each option type accepts; kept apart from
 * config.c so the two can disagree. */
static const struct value_kind {
	const char *text;
	bool fits[OT_CHOICE + 1];
} kinds[] = {
	/*                     FLAG   UINT   INT    DOUBLE STRING CHOICE */
	{"true",             {true,  false, false, false, false, false}},
	{"1",                {false, true,  true,  true,  false, false}},
	{"1L",               {false, true,  true,  true,  false, false}},
	{"0.5",              {false, false, false, true,  false, false}},
	{"\"z\"",            {false, false, false, false, true,  true}},
	{"{ a = 1; }",       {false, false, false, false, false, false}},
	{"[1, 2]",           {false, false, false, false, false, false}},
	{"(1, \"a\")",       {false, false, false, false, false, false}},
};

static const char *wanted_word(opt_type t)
{
	return t == OT_FLAG ? "must be true or false"
	       : t == OT_UINT || t == OT_INT ? "must be an integer"
	       : t == OT_DOUBLE ? "must be a number" : "must be a string";
}

START_TEST(test_wrong_types)
{
	char text[512], key[64], needle[128];
	int checked = 0;
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		if (!d->config_key)
			continue;
		option_key(d, key, sizeof key);
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			if (kinds[k].fits[d->type])
				continue;
			snprintf(text, sizeof text, "# comment\n\n%s = %s;\n", key,
				 kinds[k].text);
			snprintf(needle, sizeof needle, "'%s' %s", key,
				 wanted_word(d->type));
			/* A count with a word for 0 takes a string: not this one. */
			if (d->type == OT_UINT && d->choices && kinds[k].fits[OT_STRING])
				snprintf(needle, sizeof needle,
					 "%s: 'z' is neither a whole number", key);
			expect_fail(text, L3D_ERR_CONFIG, 3, needle);
			checked++;
		}
	}
	ck_assert_int_gt(checked, 100);
}
END_TEST

START_TEST(test_unknown_key)
{
	expect_fail("steps = 1;\n\nstpes = 5;\n", L3D_ERR_CONFIG, 3,
		    "unknown key 'stpes' (did you mean 'steps'?)");
	expect_fail("log-every = 5;\n", L3D_ERR_CONFIG, 1,
		    "unknown key 'log-every' (did you mean 'log_every'?)");
	expect_fail("\nfrobnicate = 1;\n", L3D_ERR_CONFIG, 2,
		    "unknown key 'frobnicate'");
	expect_fail("config = \"x.conf\";\n", L3D_ERR_CONFIG, 1,
		    "'config' cannot be set in a configuration file");
	expect_fail("help = true;\n", L3D_ERR_CONFIG, 1, "cannot be set");
	expect_fail("version = true;\n", L3D_ERR_CONFIG, 1, "cannot be set");
}
END_TEST

START_TEST(test_syntax_error)
{
	expect_fail("steps = 5;\nrule = ;\n", L3D_ERR_CONFIG, 2, "syntax error");
	expect_fail("steps = 5;\nseed = 2;\n\ndensity = 0.5.5;\n", L3D_ERR_CONFIG, 4, "");
	expect_fail("steps = 5;\nsteps = 6;\n", L3D_ERR_CONFIG, 2, "duplicate");
}
END_TEST

START_TEST(test_bad_values)
{
	expect_fail("density = 2.0;\n", L3D_ERR_CONFIG, 1, "density: '2' is not a number");
	expect_fail("density = -1;\n", L3D_ERR_CONFIG, 1, "density:");
	expect_fail("\nengine = \"gpu\";\n", L3D_ERR_CONFIG, 2,
		    "engine: 'gpu' is not one of auto|cpu|cuda");
	expect_fail("log_every = 0;\n", L3D_ERR_CONFIG, 1, "log_every: '0'");
	expect_fail("steps = -1;\n", L3D_ERR_CONFIG, 1, "steps: '-1'");
	expect_fail("snapshot_scale = 0;\n", L3D_ERR_CONFIG, 1, "snapshot_scale:");
	expect_fail("snapshot_size = 1000001;\n", L3D_ERR_CONFIG, 1, "snapshot_size:");
	expect_fail("snapshot_kind = \"cube\";\n", L3D_ERR_CONFIG, 1,
		    "snapshot_kind: 'cube' is not one of projection|slice|render");
	expect_fail("output = \"\";\n", L3D_ERR_CONFIG, 1, "output: empty value");
	expect_fail("random = \"6\";\n/* unterminated\nsteps = 2;\n", L3D_ERR_CONFIG, 2,
		    "a comment that is never closed");
	expect_fail("steps = 1;\nrule = \"B6/S5x7\";\n", L3D_ERR_CONFIG, 2,
		    "rule: rule 'B6/S5x7': unexpected 'x' at column 6");
}
END_TEST

/* A choice in any case is stored as the option's own word, which is what
 * the program compares: every word of every choice option, upper-cased. */
START_TEST(test_choices_any_case)
{
	for (int i = 0; i < OPT_COUNT; i++) {
		const opt_desc *d = &option_table[i];
		if (d->type != OT_CHOICE)
			continue;
		char list[128];
		for (const char *p = option_choices(d, list, sizeof list); *p;) {
			size_t len = strcspn(p, "|");
			char word[64], upper[64];
			ck_assert_uint_lt(len, sizeof word);
			memcpy(word, p, len);
			word[len] = '\0';
			for (size_t k = 0; k <= len; k++)
				upper[k] = (char)toupper((unsigned char)word[k]);
			options o;
			options_init(&o);
			l3d_err err = {0, ""};
			ck_assert_msg(option_set_text(&o, d, upper, ORIGIN_CLI, d->name, &err) ==
					      L3D_OK, "%s", err.msg);
			const char *got = *(const char *const *)((const char *)&o + d->offset);
			ck_assert_msg(strcmp(got, word) == 0, "--%s %s stored as %s", d->name,
				      upper, got);
			p += len + (p[len] == '|');
		}
	}
}
END_TEST

START_TEST(test_numbers)
{
	options o;
	options_init(&o);
	l3d_err err = {0, ""};
	ck_assert_int_eq(load_text("density = 1;\nsteps = 5000000000L;\n"
				   "device = -1;\nseed = 0x10;\n", &o, &err), L3D_OK);
	ck_assert(o.density == 1.0);
	ck_assert_uint_eq(o.steps, 5000000000u);
	ck_assert_int_eq(o.device, -1);
	ck_assert_uint_eq(o.seed, 16);
}
END_TEST

/* The command line wins; the file's value is type-checked all the same. */
START_TEST(test_cli_wins)
{
	options o;
	options_init(&o);
	l3d_err err = {0, ""};
	ck_assert_int_eq(option_set_text(&o, option_by_name("steps"), "5",
					 ORIGIN_CLI, "--steps", &err), L3D_OK);
	ck_assert_int_eq(option_set_text(&o, option_by_name("rule"), "B4/S4",
					 ORIGIN_CLI, "--rule", &err), L3D_OK);
	ck_assert_int_eq(option_set_flag(&o, option_by_name("quiet"), false,
					 ORIGIN_CLI), L3D_OK);
	ck_assert_int_eq(load_text("steps = 9;\nrule = \"B5/S5\";\nquiet = true;\n"
				   "seed = 3;\n", &o, &err), L3D_OK);
	ck_assert_uint_eq(o.steps, 5);
	ck_assert_str_eq(o.rule, "B4/S4");
	ck_assert(!o.quiet);
	ck_assert_int_eq(o.origin[OPT_STEPS], ORIGIN_CLI);
	ck_assert_uint_eq(o.seed, 3);
	ck_assert_int_eq(o.origin[OPT_SEED], ORIGIN_CONFIG);

	/* Overridden values are still checked, and leave the option alone. */
	ck_assert_int_eq(load_text("log_every = 0;\n", &o, &err), L3D_ERR_CONFIG);
	ck_assert_int_eq(option_set_uint(&o, option_by_name("log-every"), 2,
					 ORIGIN_CLI, "--log-every", &err), L3D_OK);
	ck_assert_int_eq(load_text("log_every = 0;\n", &o, &err), L3D_ERR_CONFIG);
	ck_assert_int_eq(load_text("log_every = 7;\n", &o, &err), L3D_OK);
	ck_assert_uint_eq(o.log_every, 2);
	ck_assert_int_eq(o.origin[OPT_LOG_EVERY], ORIGIN_CLI);
	ck_assert_int_eq(load_text("\nsteps = \"many\";\n", &o, &err), L3D_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, ":2: 'steps' must be an integer"));
}
END_TEST

START_TEST(test_missing_file)
{
	options o;
	options_init(&o);
	l3d_err err = {0, ""};
	char path[4200];
	snprintf(path, sizeof path, "%s/no-such.conf", tmpdir);
	ck_assert_int_eq(conffile_load(path, &o, &err), L3D_ERR_NOINPUT);
	char want[4400];
	snprintf(want, sizeof want, "%s: cannot open: %s", path, strerror(ENOENT));
	ck_assert_str_eq(err.msg, want);

	ck_assert_int_eq(conffile_load(tmpdir, &o, &err), L3D_ERR_NOINPUT);
	snprintf(want, sizeof want, "%s: cannot open: %s", tmpdir, strerror(EISDIR));
	ck_assert_str_eq(err.msg, want);

	ck_assert_int_eq(conffile_load("-", &o, &err), L3D_ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(err.msg, "stdin"));
}
END_TEST

/* Allocation failures in a load.  libconfig 1.5 keeps a setting whose
 * name or string value it failed to copy, with NULL in its place, and
 * reports success.  strdup (and glibc's __strdup, which that libconfig
 * calls) are replaced here: once armed, the n-th call fails. */
static int strdup_calls, strdup_fail_at;

static char *counted_strdup(const char *s)
{
	if (strdup_fail_at && ++strdup_calls == strdup_fail_at)
		return NULL;
	size_t n = strlen(s) + 1;
	char *copy = malloc(n);
	return copy ? memcpy(copy, s, n) : NULL;
}

char *strdup(const char *s)
{
	return counted_strdup(s);
}

char *__strdup(const char *s);
char *__strdup(const char *s)
{
	return counted_strdup(s);
}

/* Each copy made while loading fails in turn (the file's text, libconfig's
 * names and strings, the strings the options keep): the load reports "out
 * of memory" and changes nothing, where a NULL name or string would crash
 * it. */
START_TEST(test_strdup_fails)
{
	const char *path = write_conf("rule = \"B5/S45\";\nsteps = 3;\n");
	int n = 1;
	for (;; n++) {
		options o, before;
		options_init(&o);
		before = o;
		l3d_err err = {0, ""};
		strdup_calls = 0;
		strdup_fail_at = n;
		int rc = conffile_load(path, &o, &err);
		strdup_fail_at = 0;
		if (strdup_calls < n) {
			ck_assert_msg(rc == L3D_OK, "no failure, yet: %s", err.msg);
			break;
		}
		ck_assert_msg(rc == L3D_ERR_RUNTIME && strstr(err.msg, "out of memory"),
			      "copy %d failed: %d %s", n, rc, err.msg);
		ck_assert_msg(memcmp(&o, &before, sizeof o) == 0,
			      "copy %d failed: the options changed", n);
	}
	unlink(path);
	/* life3d makes two copies (the text, the rule); the rest were
	 * libconfig's, two names and a string. */
	ck_assert_int_ge(n - 1, 5);
}
END_TEST

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Does `key` start a line of `text`, possibly commented out ("# key =")? */
static bool has_key_line(const char *text, const char *key)
{
	size_t n = strlen(key);
	for (const char *line = text; line && *line;) {
		const char *p = line + strspn(line, " \t");
		if (*p == '#' || (p[0] == '/' && p[1] == '/'))
			p += *p == '#' ? 1 : 2;
		p += strspn(p, " \t");
		if (strncmp(p, key, n) == 0 && strchr(" \t=:", p[n]))
			return true;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

START_TEST(test_shipped_config)
{
	const char *srcdir = getenv("SRCDIR");
	if (!srcdir)
		return; /* only the harness knows where the sources are */
	char path[4200], key[64];
	snprintf(path, sizeof path, "%s/conf/life3d.conf", srcdir);
	options o;
	options_init(&o);
	l3d_err err = {0, ""};
	ck_assert_msg(conffile_load(path, &o, &err) == L3D_OK, "%s", err.msg);
	ck_assert_str_eq(o.random, "128");
	ck_assert(o.density == 0.008);
	ck_assert_uint_eq(o.seed, 1);
	ck_assert_uint_eq(o.steps, 200);
	ck_assert_str_eq(o.rule, "B6/S567");     /* unset: the default text */
	ck_assert_int_eq(o.origin[OPT_RULE], ORIGIN_DEFAULT);
	ck_assert_str_eq(o.random_rule, "B4/S4");
	ck_assert_str_eq(o.engine, "auto");
	ck_assert_str_eq(o.output, "life3d-final.l3d");
	ck_assert(o.force);
	ck_assert_str_eq(o.log, "life3d-population.tsv");
	ck_assert_uint_eq(o.log_every, 1);
	ck_assert_uint_eq(o.snapshot_every, 50);
	ck_assert_str_eq(o.snapshot_prefix, "life3d-snap-");
	ck_assert_str_eq(o.snapshot_kind, "render");
	/* A checkpoint every 15 minutes unless the file says otherwise (its
	 * key is commented out). */
	ck_assert(o.checkpoint_interval == 900.0);
	/* Every key is shown, set or commented out, and in the manual. */
	const char *conf = slurp(path);
	for (int i = 0; i < OPT_COUNT; i++)
		if (option_table[i].config_key) {
			option_key(&option_table[i], key, sizeof key);
			ck_assert_msg(has_key_line(conf, key), "%s lacks %s", path, key);
		}
	snprintf(path, sizeof path, "%s/man/life3d.conf.5", srcdir);
	const char *man = slurp(path);
	for (int i = 0; i < OPT_COUNT; i++)
		if (option_table[i].config_key) {
			char item[80];
			option_key(&option_table[i], key, sizeof key);
			snprintf(item, sizeof item, "\n.B %s\n", key);
			ck_assert_msg(strstr(man, item), "%s lacks '.B %s'", path, key);
		}
}
END_TEST

/* The fixtures the command-line tests use must fail as their names say. */
START_TEST(test_fixtures)
{
	static const struct {
		const char *name;
		int code, line;
		const char *needle;
	} cases[] = {
		{"conf-good.conf", L3D_OK, 0, ""},
		{"conf-unknown-key.conf", L3D_ERR_CONFIG, 4, "unknown key 'stpes'"},
		{"conf-bad-type.conf", L3D_ERR_CONFIG, 3, "'steps' must be an integer"},
		{"conf-syntax.conf", L3D_ERR_CONFIG, 3, "syntax error"},
		{"conf-bad-value.conf", L3D_ERR_CONFIG, 2, "density: '2'"},
		{"conf-bad-rule.conf", L3D_ERR_CONFIG, 2, "unexpected 'x' at column 6"},
	};
	const char *srcdir = getenv("SRCDIR");
	if (!srcdir)
		return;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[4200], prefix[4300];
		snprintf(path, sizeof path, "%s/tests/data/%s", srcdir, cases[i].name);
		options o;
		options_init(&o);
		l3d_err err = {0, ""};
		int rc = conffile_load(path, &o, &err);
		ck_assert_msg(rc == cases[i].code, "%s: %d (%s)", path, rc, err.msg);
		if (rc == L3D_OK)
			continue;
		snprintf(prefix, sizeof prefix, "%s:%d: ", path, cases[i].line);
		ck_assert_msg(strncmp(err.msg, prefix, strlen(prefix)) == 0 &&
			      strstr(err.msg, cases[i].needle),
			      "%s: message '%s'", path, err.msg);
	}
}
END_TEST

static void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/check_config.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		exit(99);
	}
}

int main(void)
{
	make_tmpdir();
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_each_key_alone);
	tcase_add_test(tc, test_wrong_types);
	tcase_add_test(tc, test_unknown_key);
	tcase_add_test(tc, test_syntax_error);
	tcase_add_test(tc, test_bad_values);
	tcase_add_test(tc, test_choices_any_case);
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_cli_wins);
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_strdup_fails);
	tcase_add_test(tc, test_shipped_config);
	tcase_add_test(tc, test_fixtures);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	int failed = run_suite(s, true);
	rmdir(tmpdir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
