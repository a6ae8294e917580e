/* check_rule.c - rule notations, canonical printing and error positions. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "base/rule.h"

/* Masks built from explicit count lists, independently of the parser.
 * A list ends at -1. */
static uint32_t counts(const int *list)
{
	uint32_t m = 0;
	for (; *list >= 0; list++)
		m |= UINT32_C(1) << *list;
	return m;
}

#define COUNTS(...) counts((const int[]){__VA_ARGS__, -1})
#define NONE 0u

static rule parse_ok(const char *text)
{
	rule r = {0xdead, 0xbeef, RULE_MOORE, 0};
	l3d_err err = {0, ""};
	int rc = rule_parse(text, &r, &err);
	ck_assert_msg(rc == L3D_OK, "rule_parse(\"%s\") failed: %s", text, err.msg);
	return r;
}

static void expect_rule(const char *text, uint32_t birth, uint32_t survive)
{
	rule r = parse_ok(text);
	ck_assert_msg(r.birth == birth && r.survive == survive,
		      "%s: birth %#x survive %#x, expected %#x %#x", text,
		      (unsigned)r.birth, (unsigned)r.survive, (unsigned)birth,
		      (unsigned)survive);
}

START_TEST(test_default)
{
	ck_assert_uint_eq(rule_default.birth, COUNTS(6));
	ck_assert_uint_eq(rule_default.survive, COUNTS(5, 6, 7));
	rule r = parse_ok(RULE_DEFAULT_TEXT);
	ck_assert(rule_equal(&r, &rule_default));
}
END_TEST

START_TEST(test_bs)
{
	expect_rule("B6/S567", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("b6/s567", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("S567/B6", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("B3,6/S3..8", COUNTS(3, 6), COUNTS(3, 4, 5, 6, 7, 8));
	expect_rule("B6/S5-7", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("B10,12/S5..14", COUNTS(10, 12),
		    COUNTS(5, 6, 7, 8, 9, 10, 11, 12, 13, 14));
	expect_rule("B/S", NONE, NONE);
	expect_rule("B6/S", COUNTS(6), NONE);
	expect_rule("S/B", NONE, NONE);
	expect_rule("B0123456789/S0", COUNTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), COUNTS(0));
	expect_rule("B0..26/S26..26", RULE_ALL_COUNTS, COUNTS(26));
	expect_rule("B0..26/S26", RULE_ALL_COUNTS, COUNTS(2, 6));
	/* Without commas or ranges each digit is a count: 10 is {1, 0}. */
	expect_rule("B10/S", COUNTS(0, 1), NONE);
	expect_rule("B10,12/S", COUNTS(10, 12), NONE);
	expect_rule("B5,5,5/S1-1", COUNTS(5), COUNTS(1));
	expect_rule("B1..3,7,20-22/S0", COUNTS(1, 2, 3, 7, 20, 21, 22), COUNTS(0));
}
END_TEST

START_TEST(test_bays)
{
	expect_rule("5766", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("10,12,9,9", COUNTS(9), COUNTS(10, 11, 12));
	expect_rule("0,26,0,26", RULE_ALL_COUNTS, RULE_ALL_COUNTS);
	expect_rule("0000", COUNTS(0), COUNTS(0));
	/* Bays' four "life" rules, as B/S. */
	static const char *const life[][2] = {
		{"4555", "B5/S45"}, {"5766", "B6/S567"},
		{"5655", "B5/S56"}, {"6855", "B5/S678"},
	};
	for (size_t i = 0; i < sizeof life / sizeof life[0]; i++) {
		rule a = parse_ok(life[i][0]), b = parse_ok(life[i][1]);
		ck_assert_msg(rule_equal(&a, &b), "%s != %s", life[i][0], life[i][1]);
	}
}
END_TEST

START_TEST(test_golly)
{
	expect_rule("3D5..7/6", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("3d5..7/6", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("3D4,7/5,8", COUNTS(5, 8), COUNTS(4, 7));
	expect_rule("3D/", NONE, NONE);
	expect_rule("3D/3", COUNTS(3), NONE);
	expect_rule("3D13..26/13..14,17..19", COUNTS(13, 14, 17, 18, 19),
		    RULE_ALL_COUNTS & ~COUNTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
	/* Golly counts are numbers, never strings of digits. */
	expect_rule("3D12/6", COUNTS(6), COUNTS(12));
}
END_TEST

START_TEST(test_equivalent)
{
	static const char *const same[] = {
		"B6/S567", "5766", "3D5..7/6", "S567/B6", "b6/s5..7",
		"B6/S5-7", "5,7,6,6", "S5,6,7/B6", "3D5,6,7/6",
	};
	rule first = parse_ok(same[0]);
	for (size_t i = 1; i < sizeof same / sizeof same[0]; i++) {
		rule r = parse_ok(same[i]);
		ck_assert_msg(rule_equal(&r, &first), "%s != %s", same[i], same[0]);
	}
	rule other = parse_ok("B5/S567");
	ck_assert(!rule_equal(&other, &first));
}
END_TEST

static void expect_format(const char *text, const char *bs, const char *golly)
{
	rule r = parse_ok(text);
	char buf[256];
	int n = rule_format(&r, buf, sizeof buf);
	ck_assert_str_eq(buf, bs);
	ck_assert_int_eq(n, (int)strlen(bs));
	n = rule_format_golly(&r, buf, sizeof buf);
	ck_assert_str_eq(buf, golly);
	ck_assert_int_eq(n, (int)strlen(golly));
}

START_TEST(test_format)
{
	expect_format("5766", "B6/S567", "3D5..7/6");
	expect_format("3D4,7/5,8", "B58/S47", "3D4,7/5,8");
	expect_format("B10,12/S5-14", "B10,12/S5..14", "3D5..14/10,12");
	expect_format("B3,6/S3..8", "B36/S345678", "3D3..8/3,6");
	expect_format("B56/S10-10", "B5,6/S10..10", "3D10/5,6");
	expect_format("B/S", "B/S", "3D/");
	/* Golly's notation has no birth on 0: such rules keep the B/S form */
	expect_format("B0..26/S", "B0..26/S", "B0..26/S");
	expect_format("B0123/S", "B0123/S", "B0123/S");
	/* neighbourhoods: Golly's letter after the counts, V written as F */
	expect_format("3D3/3H", "B3/S3H", "3D3/3H");
	expect_format("3d0..6/1..6v", "B123456/S0123456F", "3D0..6/1..6F");
	expect_format("b2/s1c", "B2/S1C", "3D1/2C");
	expect_format("S3,4/B4,5,6,7E", "B4567/S34E", "3D3,4/4..7E");
	expect_format("B10,12/S11,12E", "B10,12/S11,12E", "3D11,12/10,12E");
	expect_format("B0/SH", "B0/SH", "B0/SH");
}
END_TEST

/* Output is cut like snprintf's, and the full length is still returned. */
START_TEST(test_format_truncates)
{
	rule r = parse_ok("B6/S567");
	char buf[4];
	ck_assert_int_eq(rule_format(&r, buf, sizeof buf), 7);
	ck_assert_str_eq(buf, "B6/");
	ck_assert_int_eq(rule_format_golly(&r, NULL, 0), 8);
}
END_TEST

static uint32_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (uint32_t)(*state >> 11);
}

/* parse(format(r)) == r in both notations, over random masks.  Half the
 * masks keep to counts 0..9 so the plain-digit form is covered too. */
START_TEST(test_round_trip)
{
	uint64_t state = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 20000; i++) {
		uint32_t limit = i % 2 ? RULE_ALL_COUNTS : 0x3ffu;
		uint32_t density = next_random(&state) % 4;
		rule r = {next_random(&state) & limit, next_random(&state) & limit, 0, 0};
		if (density == 0) /* sparse: isolated counts and short runs */
			r.birth &= next_random(&state), r.survive &= next_random(&state);
		if (i % 3 == 0) {   /* another neighbourhood, its counts only */
			r.hood = 1 + next_random(&state) % (RULE_HOODS - 1);
			uint32_t counts = (UINT32_C(1) << (rule_hood_max(r.hood) + 1)) - 1;
			r.birth &= counts, r.survive &= counts;
		}
		char bs[256], golly[256];
		rule_format(&r, bs, sizeof bs);
		rule_format_golly(&r, golly, sizeof golly);
		rule a = parse_ok(bs), b = parse_ok(golly);
		ck_assert_msg(rule_equal(&a, &r), "round trip of %s", bs);
		ck_assert_msg(rule_equal(&b, &r), "round trip of %s", golly);
	}
}
END_TEST

static void expect_error(const char *text, const char *needle)
{
	rule r = {1, 2, 0, 0};
	l3d_err err = {0, ""};
	int rc = rule_parse(text, &r, &err);
	ck_assert_msg(rc == L3D_ERR_USAGE, "'%s' gave %d, expected %d", text, rc,
		      L3D_ERR_USAGE);
	ck_assert_int_eq(err.code, L3D_ERR_USAGE);
	ck_assert_msg(strstr(err.msg, needle) != NULL,
		      "'%s': message \"%s\" lacks \"%s\"", text, err.msg, needle);
	ck_assert_msg(strchr(err.msg, '\n') == NULL, "message has a newline");
	ck_assert_msg(r.birth == 1 && r.survive == 2 && r.hood == 0, "'%s' changed the output", text);
}

/* Ready's survive/birth (Golly's without 3D), and the survive/birth/
 * states/M|N form of other 3D viewers, two states alone. */
START_TEST(test_other_viewers)
{
	expect_rule("4,5/5", COUNTS(5), COUNTS(4, 5));
	expect_rule("5..7/6", COUNTS(6), COUNTS(5, 6, 7));
	expect_rule("13-26/13-14,17-19/2/M", COUNTS(13, 14, 17, 18, 19),
		    RULE_ALL_COUNTS & ~COUNTS(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
	expect_rule("4/4/2/m", COUNTS(4), COUNTS(4));
	expect_rule("/3/2/M", COUNTS(3), NONE);
	rule r = parse_ok("1,3/2/2/N");
	ck_assert_int_eq(r.hood, RULE_FACE);
	ck_assert_uint_eq(r.birth, COUNTS(2));
	ck_assert_uint_eq(r.survive, COUNTS(1, 3));
	ck_assert_int_eq(parse_ok("4,5/5F").hood, RULE_FACE);
	expect_error("4/4/5/M", "rule '4/4/5/M': Generations rules with 5 states are not "
		     "supported (only rules of two states, live and dead)");
	expect_error("4/4/10/N", "Generations rules with 10 states");
	expect_error("1/7/2/N", "count 7 at column 3 is over 6");
	expect_error("3/3//M", "at column 5");
}
END_TEST

START_TEST(test_errors)
{
	expect_error("B6/S5x7",
		     "rule 'B6/S5x7': unexpected 'x' at column 6 (expected a count 0..26, F, V, "
		     "C, E, H or end of rule)");
	/* what is expected is what the parser takes there */
	expect_error("B3S23", "unexpected 'S' at column 3 (expected a count 0..26 or '/')");
	expect_error("B3,4S23", "unexpected 'S' at column 5 (expected a count 0..26, ',' or '/')");
	expect_error("B6/S567 ", "unexpected ' ' at column 8 (expected a count 0..26, F, V, C, E, H or end of rule)");
	expect_error("B6/S5..30", "rule 'B6/S5..30': count 30 at column 8 is over 26");
	expect_error("", "empty rule");
	expect_error("B6/B5", "duplicated B part at column 4");
	expect_error("S5/S6", "duplicated S part at column 4");
	expect_error("B6/S7..5", "range 7..5 at column 5 is reversed");
	expect_error("B6/S7-5", "range 7..5 at column 5 is reversed");
	expect_error("B6", "unexpected end at column 3");
	expect_error("B6/S567/", "unexpected '/' at column 8");
	expect_error("B6/S567 ", "at column 8");
	expect_error("X6/S567", "unexpected 'X' at column 1");
	expect_error("B6/S5,", "unexpected end at column 7");
	expect_error("B10,/S", "unexpected '/' at column 5");
	expect_error("B6/S5..", "unexpected end at column 8");
	expect_error("B6/S99999999999999999999,1", "count 99999999999999999999 at column 5 is over 26");
	expect_error("B6/S5\x01", "unexpected byte 0x01 at column 6");
	/* Bays */
	expect_error("576", "unexpected end at column 4");
	expect_error("57666", "unexpected '6' at column 5");
	expect_error("7566", "range 7..5 at column 1 is reversed");
	expect_error("5776", "range 7..6 at column 3 is reversed");
	expect_error("10,12,9", "unexpected end at column 8");
	expect_error("10,12,9,27", "count 27 at column 9 is over 26");
	expect_error("57a6", "unexpected 'a' at column 3");
	/* Golly */
	expect_error("3D5..7/6F", "count 7 at column 6 is over 6 (the face neighbourhood F has 6 cells)");
	expect_error("3D5..7/6V", "is over 6 (the face");
	expect_error("3D5..7/9C", "count 9 at column 8 is over 8 (the corner");
	expect_error("3D13/6E", "count 13 at column 3 is over 12 (the edge");
	expect_error("3D7/3F", "count 7 at column 3 is over 6");
	expect_error("3D/0H", "rule '3D/0H': birth on 0 at column 4: Golly's notation has none");
	expect_error("3D/0", "birth on 0");
	/* the column of the 0 itself, not of the list */
	expect_error("3D5/2,3,0", "birth on 0 at column 9");
	expect_error("3D/2..3,00..1", "birth on 0 at column 9");
	expect_error("3D5/6X", "unexpected 'X' at column 6 (expected a count 0..26, ',', F, V, C, E, H or end of rule)");
	expect_error("B6/S5Q", "unexpected 'Q' at column 6");
	expect_error("B7/S5F", "count 7 at column 2 is over 6");
	expect_error("3D3/3FH", "rule '3D3/3FH': a second neighbourhood letter, 'H' at column 7 "
				"(a rule ends in one at most)");
	expect_error("B3/S3eh", "a second neighbourhood letter, 'h' at column 7");
	expect_error("4555HH", "a second neighbourhood letter, 'H' at column 6");
	expect_error("4555X", "unexpected 'X' at column 5 (expected F, V, C, E, H or end of rule");
	expect_error("3D3/3HX", "text after the neighbourhood letter 'H' at column 6");
	expect_error("B3/S3F ", "text after the neighbourhood letter 'F' at column 6");
	expect_error("3DH", "rule '3DH': unexpected 'H' at column 3 (expected a count 0..12 or '/' "
			    "before the neighbourhood letter)");
	expect_error("3D,5/6", "unexpected ',' at column 3 (expected a count 0..26 or '/')");
	expect_error("3D5/,6", "unexpected ',' at column 5 (expected a count 0..26, F, V, C, E, H or end of rule)");
	expect_error("3D5,/6", "unexpected '/' at column 5 (expected a count 0..26)");
	expect_error("BusyBoxesM", "rule 'BusyBoxesM'");    /* not one of Golly's names */
	expect_error("3D5..7", "unexpected end at column 7");
	expect_error("3D27/6", "count 27 at column 3 is over 26");
	expect_error("3D5..7/6x", "unexpected 'x' at column 9");
	expect_error("3D7..5/6", "range 7..5 at column 3 is reversed");
}
END_TEST

/* The offsets, as Golly lists them: sizes, the letters, and H's six
 * extra offsets whose coordinates have opposite signs. */
START_TEST(test_hood_offsets)
{
	static const unsigned sizes[RULE_HOODS] = {26, 6, 8, 12, 12};
	static const char *const suffix[RULE_HOODS] = {"", "F", "C", "E", "H"};
	for (int h = 0; h < RULE_HOODS; h++) {
		int off[26][3];
		ck_assert_uint_eq(rule_hood_offsets(h, off), sizes[h]);
		ck_assert_uint_eq(rule_hood_max(h), sizes[h]);
		ck_assert_str_eq(rule_hood_suffix(h), suffix[h]);
	}
	static const int hex_extra[6][3] = {{0, 1, -1}, {0, -1, 1}, {1, 0, -1},
					    {-1, 0, 1}, {1, -1, 0}, {-1, 1, 0}};
	int off[26][3];
	unsigned n = rule_hood_offsets(RULE_HEX, off);
	for (int e = 0; e < 6; e++) {
		bool found = false;
		for (unsigned i = 0; i < n; i++)
			found |= off[i][0] == hex_extra[e][0] && off[i][1] == hex_extra[e][1] &&
				 off[i][2] == hex_extra[e][2];
		ck_assert_msg(found, "H lacks (%d,%d,%d)", hex_extra[e][0], hex_extra[e][1],
			      hex_extra[e][2]);
	}
	rule a = parse_ok("3D3/3H"), b = parse_ok("3D3/3");
	ck_assert(!rule_equal(&a, &b));
}
END_TEST

/* Golly's definitions, apart from hood.h's table: how many coordinates
 * of (dx,dy,dz) are not 0, and for H's six extra offsets a sum of 0. */
static bool golly_has(rule_hood h, int dx, int dy, int dz)
{
	int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
	switch (h) {
	case RULE_FACE: return nonzero == 1;
	case RULE_CORNER: return nonzero == 3;
	case RULE_EDGE: return nonzero == 2;
	case RULE_HEX: return nonzero == 1 || (nonzero == 2 && dx + dy + dz == 0);
	default: return nonzero > 0;
	}
}

/* Every row of hood.h's table: each offset once, and those of Golly's
 * definition only. */
START_TEST(test_hood_table)
{
	for (int h = 0; h < RULE_HOODS; h++) {
		int off[26][3];
		unsigned n = rule_hood_offsets(h, off), seen = 0;
		for (unsigned i = 0; i < n; i++) {
			int dx = off[i][0], dy = off[i][1], dz = off[i][2];
			unsigned bit = 1u << ((dx + 1) * 9 + (dy + 1) * 3 + dz + 1);
			ck_assert_msg(golly_has(h, dx, dy, dz) && !(seen & bit),
				      "%s: (%d,%d,%d)", rule_hood_name(h), dx, dy, dz);
			seen |= bit;
		}
		for (int k = 0; k < 27; k++)
			if (!(seen >> k & 1))
				ck_assert(!golly_has(h, k / 9 - 1, k / 3 % 3 - 1, k % 3 - 1));
	}
}
END_TEST

START_TEST(test_null_err)
{
	rule r;
	ck_assert_int_eq(rule_parse("B6/Sx", &r, NULL), L3D_ERR_USAGE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rule");
	TCase *tc = tcase_create("rule");
	tcase_add_test(tc, test_default);
	tcase_add_test(tc, test_bs);
	tcase_add_test(tc, test_bays);
	tcase_add_test(tc, test_other_viewers);
	tcase_add_test(tc, test_golly);
	tcase_add_test(tc, test_equivalent);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_format_truncates);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_hood_offsets);
	tcase_add_test(tc, test_hood_table);
	tcase_add_test(tc, test_null_err);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return run_suite(s, true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
