/* rule.c - parsing and printing of outer-totalistic rules.
 *
 * Three notations name the same thing, so each is parsed into the two
 * masks and every error points at a column of the text the user typed:
 *   B/S    B6/S567, S567/B6, B3,6/S3..8, B6/S5-7
 *   Bays   5766 or 10,12,9,9   (survive El..Eu, birth Fl..Fu)
 *   Golly  3D5..7/6            (3D<survive>/<birth>) */
#include "rule.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const rule rule_default = {.birth = UINT32_C(1) << 6,
			   .survive = (UINT32_C(1) << 5) | (UINT32_C(1) << 6) |
				      (UINT32_C(1) << 7)};

/* The text being parsed and the position reached, for error messages. */
typedef struct cursor {
	const char *text;
	const char *p;
	l3d_err *err;
} cursor;

static int column(const cursor *c, const char *at)
{
	return (int)(at - c->text) + 1;
}

/* "unexpected 'x' at column 6 (expected ...)", or "unexpected end". */
static int unexpected(const cursor *c, const char *expected)
{
	unsigned char ch = (unsigned char)*c->p;
	int col = column(c, c->p);
	if (ch == '\0')
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': unexpected end at column %d (expected %s)",
				c->text, col, expected);
	if (!isprint(ch))
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': unexpected byte 0x%02x at column %d (expected %s)",
				c->text, ch, col, expected);
	return l3d_fail(c->err, L3D_ERR_USAGE,
			"rule '%s': unexpected '%c' at column %d (expected %s)",
			c->text, ch, col, expected);
}

/* A decimal count 0..26 at c->p; long digit strings saturate rather than
 * overflow so the message can still say which count is too big. */
static int parse_count(cursor *c, unsigned *out)
{
	const char *start = c->p;
	unsigned v = 0;
	if (!isdigit((unsigned char)*c->p))
		return unexpected(c, "a count 0..26");
	while (isdigit((unsigned char)*c->p)) {
		if (v < 1000)
			v = v * 10 + (unsigned)(*c->p - '0');
		c->p++;
	}
	if (v > RULE_MAX_COUNT)
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': count %.*s at column %d is over %d",
				c->text, (int)(c->p - start), start,
				column(c, start), RULE_MAX_COUNT);
	*out = v;
	return L3D_OK;
}

static uint32_t range_mask(unsigned lo, unsigned hi)
{
	uint32_t m = 0;
	for (unsigned k = lo; k <= hi; k++)
		m |= UINT32_C(1) << k;
	return m;
}

static int reversed(const cursor *c, const char *at, unsigned lo, unsigned hi)
{
	return l3d_fail(c->err, L3D_ERR_USAGE,
			"rule '%s': range %u..%u at column %d is reversed",
			c->text, lo, hi, column(c, at));
}

/* Range separator ".." or "-" at c->p: consume it and say so. */
static bool take_range_sep(cursor *c)
{
	if (c->p[0] == '.' && c->p[1] == '.') {
		c->p += 2;
		return true;
	}
	if (c->p[0] == '-') {
		c->p++;
		return true;
	}
	return false;
}

/* One item of a comma list: a count or a range a..b (also a-b). */
static int parse_item(cursor *c, uint32_t *mask)
{
	const char *start = c->p;
	unsigned lo, hi;
	int rc = parse_count(c, &lo);
	if (rc)
		return rc;
	hi = lo;
	if (take_range_sep(c)) {
		if ((rc = parse_count(c, &hi)))
			return rc;
		if (hi < lo)
			return reversed(c, start, lo, hi);
	}
	*mask |= range_mask(lo, hi);
	return L3D_OK;
}

/* Comma list "3,6,10..12" up to '/', a letter or the end.  An empty list
 * is the empty set. */
static int parse_list(cursor *c, uint32_t *mask)
{
	*mask = 0;
	if (!isdigit((unsigned char)*c->p))
		return L3D_OK;
	for (;;) {
		int rc = parse_item(c, mask);
		if (rc)
			return rc;
		if (*c->p != ',')
			return L3D_OK;
		c->p++;
	}
}

/* Does the B/S part at p use list syntax (commas or ranges)?  Without
 * them every digit is one count, as in B6/S567. */
static bool part_is_list(const char *p)
{
	for (; *p && *p != '/'; p++)
		if (*p == ',' || *p == '.' || *p == '-')
			return true;
	return false;
}

static int parse_digits(cursor *c, uint32_t *mask)
{
	*mask = 0;
	while (isdigit((unsigned char)*c->p))
		*mask |= UINT32_C(1) << (*c->p++ - '0');
	return L3D_OK;
}

/* One "B..." or "S..." part; fills the matching mask once. */
static int parse_bs_part(cursor *c, rule *r, bool *seen_b, bool *seen_s)
{
	const char *start = c->p;
	char letter = (char)toupper((unsigned char)*c->p);
	bool *seen = letter == 'B' ? seen_b : seen_s;
	if (letter != 'B' && letter != 'S')
		return unexpected(c, "'B' or 'S'");
	if (*seen)
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': duplicated %c part at column %d",
				c->text, letter, column(c, start));
	*seen = true;
	c->p++;
	uint32_t *mask = letter == 'B' ? &r->birth : &r->survive;
	int rc = part_is_list(c->p) ? parse_list(c, mask) : parse_digits(c, mask);
	if (rc)
		return rc;
	if (*c->p != '/' && *c->p != '\0')
		return unexpected(c, "a count 0..26");
	return L3D_OK;
}

static int parse_bs(cursor *c, rule *r)
{
	bool seen_b = false, seen_s = false;
	int rc = parse_bs_part(c, r, &seen_b, &seen_s);
	if (rc)
		return rc;
	if (*c->p != '/')
		return unexpected(c, seen_b ? "'/S'" : "'/B'");
	c->p++;
	if ((rc = parse_bs_part(c, r, &seen_b, &seen_s)))
		return rc;
	if (*c->p != '\0')
		return unexpected(c, "end of rule");
	return L3D_OK;
}

/* Bays: four counts El Eu Fl Fu, one digit each or comma separated. */
static int parse_bays(cursor *c, rule *r)
{
	bool commas = strchr(c->text, ',') != NULL;
	unsigned v[4];
	const char *at[4];
	for (int i = 0; i < 4; i++) {
		if (i > 0 && commas) {
			if (*c->p != ',')
				return unexpected(c, "',' (Bays' El,Eu,Fl,Fu)");
			c->p++;
		}
		at[i] = c->p;
		if (commas) {
			int rc = parse_count(c, &v[i]);
			if (rc)
				return rc;
		} else {
			if (!isdigit((unsigned char)*c->p))
				return unexpected(c, "a digit (Bays' four numbers El Eu Fl Fu)");
			v[i] = (unsigned)(*c->p++ - '0');
		}
	}
	if (*c->p != '\0')
		return unexpected(c, "end of rule after Bays' four numbers");
	if (v[1] < v[0])
		return reversed(c, at[0], v[0], v[1]);
	if (v[3] < v[2])
		return reversed(c, at[2], v[2], v[3]);
	r->survive = range_mask(v[0], v[1]);
	r->birth = range_mask(v[2], v[3]);
	return L3D_OK;
}

/* Golly: "3D" survive "/" birth, then an optional neighbourhood letter,
 * which we can only refuse: every engine counts the 26 Moore neighbours. */
static int parse_golly(cursor *c, rule *r)
{
	int rc;
	c->p += 2;
	if ((rc = parse_list(c, &r->survive)))
		return rc;
	if (*c->p != '/')
		return unexpected(c, "a count 0..26, ',' or '/'");
	c->p++;
	if ((rc = parse_list(c, &r->birth)))
		return rc;
	if (*c->p && strchr("FVCEHfvceh", *c->p) && c->p[1] == '\0')
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': neighbourhood '%c' at column %d is not "
				"supported (only the 26-cell Moore neighbourhood, no suffix)",
				c->text, *c->p, column(c, c->p));
	if (*c->p != '\0')
		return unexpected(c, "a count 0..26, ',' or end of rule");
	return L3D_OK;
}

int rule_parse(const char *text, rule *out, l3d_err *err)
{
	cursor c = {text, text, err};
	rule r = {0, 0};
	int rc;
	if (!text || !*text)
		return l3d_fail(err, L3D_ERR_USAGE,
				"rule '': empty rule (try B6/S567, 5766 or 3D5..7/6)");
	if (text[0] == '3' && (text[1] == 'D' || text[1] == 'd'))
		rc = parse_golly(&c, &r);
	else if (isdigit((unsigned char)text[0]))
		rc = parse_bays(&c, &r);
	else if (strchr("BbSs", text[0]))
		rc = parse_bs(&c, &r);
	else
		rc = unexpected(&c, "B/S, Bays' four numbers or Golly's 3D");
	if (rc)
		return rc;
	*out = r;
	return L3D_OK;
}

/* ---- printing ---------------------------------------------------------- */

/* Append to a fixed buffer; the longest text (27 single counts in each
 * part) is far below its size. */
typedef struct sbuf {
	char s[256];
	size_t n;
} sbuf;

static void put(sbuf *b, const char *str)
{
	int w = snprintf(b->s + b->n, sizeof b->s - b->n, "%s", str);
	if (w > 0)
		b->n += (size_t)w;
}

static void put_count(sbuf *b, unsigned k)
{
	char num[4];
	snprintf(num, sizeof num, "%u", k);
	put(b, num);
}

static bool has(uint32_t mask, unsigned k)
{
	return k <= RULE_MAX_COUNT && (mask >> k & 1);
}

/* "3,6,10..12": runs of three or more as ranges, others comma separated.
 * A B/S part without ',' or '..' is read digit by digit, so a lone count
 * over 9 is written as a range of one ("S10..10") to read back as 10. */
static void put_list(sbuf *b, uint32_t mask, bool bs_part)
{
	bool first = true;
	if (bs_part && (mask & (mask - 1)) == 0 && mask >= (UINT32_C(1) << 10)) {
		unsigned k = 0;
		while (!has(mask, k))
			k++;
		put_count(b, k);
		put(b, "..");
		put_count(b, k);
		return;
	}
	for (unsigned k = 0; k <= RULE_MAX_COUNT; k++) {
		if (!has(mask, k))
			continue;
		unsigned end = k;
		while (has(mask, end + 1))
			end++;
		if (!first)
			put(b, ",");
		first = false;
		put_count(b, k);
		if (end - k >= 2) {
			put(b, "..");
			put_count(b, end);
			k = end;
		}
	}
}

static void put_digits(sbuf *b, uint32_t mask)
{
	for (unsigned k = 0; k <= 9; k++)
		if (has(mask, k))
			put_count(b, k);
}

static int emit(const sbuf *b, char *buf, size_t size)
{
	return snprintf(buf, size, "%s", b->s);
}

int rule_format(const rule *r, char *buf, size_t size)
{
	sbuf b = {.n = 0};
	b.s[0] = '\0';
	bool big = ((r->birth | r->survive) >> 10) != 0;
	put(&b, "B");
	big ? put_list(&b, r->birth, true) : put_digits(&b, r->birth);
	put(&b, "/S");
	big ? put_list(&b, r->survive, true) : put_digits(&b, r->survive);
	return emit(&b, buf, size);
}

int rule_format_golly(const rule *r, char *buf, size_t size)
{
	sbuf b = {.n = 0};
	b.s[0] = '\0';
	put(&b, "3D");
	put_list(&b, r->survive, false);
	put(&b, "/");
	put_list(&b, r->birth, false);
	return emit(&b, buf, size);
}

int rule_equal(const rule *a, const rule *b)
{
	return (a->birth & RULE_ALL_COUNTS) == (b->birth & RULE_ALL_COUNTS) &&
	       (a->survive & RULE_ALL_COUNTS) == (b->survive & RULE_ALL_COUNTS);
}
