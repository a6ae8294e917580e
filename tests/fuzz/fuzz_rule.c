/* fuzz_rule.c - the rule parser and both printers.
 *
 * Every rule that parses prints, in B/S and in Golly's notation, to text
 * that parses back to the same rule; the printers truncate like snprintf;
 * and letter case never matters. */
#include "fuzz.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char fuzz_target[] = "rule";

typedef int (*rule_printer)(const rule *r, char *buf, size_t size);

static void check_printer(rule_printer print, const rule *r)
{
	char text[512], cut[512];
	int n = print(r, text, sizeof text);
	fuzz_require(n > 0 && (size_t)n < sizeof text && strlen(text) == (size_t)n,
		     "a printer returned a wrong length");
	fuzz_require(print(r, NULL, 0) == n, "a printer's length depends on the buffer");
	for (size_t size = 1; size <= (size_t)n; size++) {
		memset(cut, 'X', sizeof cut);
		fuzz_require(print(r, cut, size) == n, "a truncated print changed its length");
		fuzz_require(strlen(cut) == size - 1 && !strncmp(cut, text, size - 1),
			     "a truncated print is not a prefix of the whole");
	}
	rule back;
	l3d_err err;
	fuzz_require(rule_parse(text, &back, &err) == L3D_OK,
		     "a printed rule does not parse");
	fuzz_require(back.birth == r->birth && back.survive == r->survive,
		     "a printed rule parses to a different rule");
}

static void check_error(int rc, const l3d_err *err)
{
	fuzz_require(rc == L3D_ERR_USAGE && err->code == rc,
		     "rule_parse failed with a code other than USAGE");
	fuzz_require(strncmp(err->msg, "rule '", 6) == 0,
		     "a rule error that does not quote the rule");
}

static void check_case(const char *text, int rc, const rule *r)
{
	char *upper = strdup(text);
	fuzz_require(upper != NULL, "out of memory");
	for (char *p = upper; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	rule u;
	l3d_err err;
	int urc = rule_parse(upper, &u, &err);
	fuzz_require((rc == L3D_OK) == (urc == L3D_OK),
		     "upper case changes whether a rule parses");
	fuzz_require(rc != L3D_OK || (u.birth == r->birth && u.survive == r->survive),
		     "upper case changes the rule");
	free(upper);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	rule r = { 0xdead, 0xbeef, 0xcafe, 0 };
	l3d_err err;
	int rc = rule_parse(text, &r, &err);
	if (rc != L3D_OK) {
		check_error(rc, &err);
		fuzz_require(r.birth == 0xdead && r.survive == 0xbeef && r.hood == 0xcafe,
			     "a failed parse changed the rule");
	} else {
		fuzz_require(!((r.birth | r.survive) & ~RULE_ALL_COUNTS),
			     "a rule with counts above 26");
		check_printer(rule_format, &r);
		check_printer(rule_format_golly, &r);
	}
	check_case(text, rc, &r);
	free(text);
	return 0;
}
