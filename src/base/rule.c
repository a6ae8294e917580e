/* rule.c - parsing and printing of outer-totalistic rules.
 *
 * Three notations name the same thing, so each is parsed into the two
 * masks and every error points at a column of the text the user typed:
 *   B/S    B6/S567, S567/B6, B3,6/S3..8, B6/S5-7
 *   Bays   5766 or 10,12,9,9   (survive El..Eu, birth Fl..Fu)
 *   Golly  3D5..7/6            (3D<survive>/<birth>)
 * and any of them may end in a neighbourhood letter, which sets the
 * largest count the others may name.  The letters, the counts and the
 * names in messages are hood.h's table's. */
#include "rule.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const rule rule_default = {.birth = UINT32_C(1) << 6,
			   .survive = (UINT32_C(1) << 5) | (UINT32_C(1) << 6) |
				      (UINT32_C(1) << 7),
			   .hood = RULE_MOORE};

static rule_hood hood_of(rule_hood h)
{
	return (unsigned)h < RULE_HOODS ? h : RULE_MOORE;
}

unsigned rule_hood_max(rule_hood h)
{
	return hood_table[hood_of(h)].cells;
}

const char *rule_hood_suffix(rule_hood h)
{
	return hood_table[hood_of(h)].suffix;
}

const char *rule_hood_name(rule_hood h)
{
	return hood_table[hood_of(h)].name;
}

unsigned rule_hood_offsets(rule_hood h, int offsets[26][3])
{
	const hood_def *d = &hood_table[hood_of(h)];
	for (unsigned i = 0; i < d->cells; i++)
		for (int axis = 0; axis < 3; axis++)
			offsets[i][axis] = d->offset[i][axis];
	return d->cells;
}

/* The neighbourhood whose letter ch is, in either case, or RULE_HOODS. */
static rule_hood hood_of_letter(char ch)
{
	char up = (char)toupper((unsigned char)ch);
	for (int h = 0; up && h < RULE_HOODS; h++)
		if (up == hood_table[h].suffix[0] || strchr(hood_table[h].also, up))
			return (rule_hood)h;
	return RULE_HOODS;
}

/* "F, V, C, E, H or end of rule": every letter a rule may end in. */
static void end_hint(char *out, size_t size)
{
	size_t n = 0;
	for (int h = 0; h < RULE_HOODS; h++)
		for (int k = 0; k < 2; k++)
			for (const char *l = k ? hood_table[h].also : hood_table[h].suffix; *l; l++)
				if (n + 3 < size)
					n += (size_t)snprintf(out + n, size - n, "%s%c", n ? ", " : "", *l);
	snprintf(out + n, size - n, " or end of rule");
}

/* The text being parsed and the position reached, for error messages;
 * `end` is where the counts stop (the neighbourhood letter or the end). */
typedef struct cursor {
	const char *text;
	const char *p;
	const char *end;
	rule_hood hood;
	char count_hint[32];     /* "a count 0..26" */
	char end_hint[64];       /* "F, V, C, E, H or end of rule" */
	l3d_err *err;
} cursor;

static bool at_end(const cursor *c)
{
	return c->p == c->end;
}

static int column(const cursor *c, const char *at)
{
	return (int)(at - c->text) + 1;
}

/* "unexpected 'x' at column 6 (expected ...)", or "unexpected end".  At
 * c->end, short of the text's end, is the neighbourhood letter. */
static int unexpected(const cursor *c, const char *expected)
{
	unsigned char ch = (unsigned char)*c->p;
	int col = column(c, c->p);
	if (ch == '\0')
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': unexpected end at column %d (expected %s)",
				c->text, col, expected);
	if (c->p == c->end)
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': unexpected '%c' at column %d (expected %s before "
				"the neighbourhood letter)", c->text, ch, col, expected);
	if (!isprint(ch))
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': unexpected byte 0x%02x at column %d (expected %s)",
				c->text, ch, col, expected);
	return l3d_fail(c->err, L3D_ERR_USAGE,
			"rule '%s': unexpected '%c' at column %d (expected %s)",
			c->text, ch, col, expected);
}

static bool hood_letter(const cursor *c, const char *at)
{
	return at < c->text + strlen(c->text) && hood_of_letter(*at) != RULE_HOODS;
}

/* unexpected(), unless the text there is a neighbourhood letter: then
 * what is wrong is that a second one follows it (named where it is: the
 * rule's last letter, taken off as its neighbourhood, may be that one),
 * or other text. */
static int not_the_end(const cursor *c, const char *expected)
{
	if (at_end(c) || !hood_letter(c, c->p))
		return unexpected(c, expected);
	const char *next = c->p + 1;
	if (hood_letter(c, next))
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': a second neighbourhood letter, '%c' at column %d "
				"(a rule ends in one at most)", c->text, *next,
				column(c, next));
	return l3d_fail(c->err, L3D_ERR_USAGE,
			"rule '%s': text after the neighbourhood letter '%c' at column %d "
			"(the letter ends the rule)", c->text, *c->p, column(c, c->p));
}

static int over_max(const cursor *c, const char *at, int len)
{
	unsigned max = rule_hood_max(c->hood);
	if (c->hood == RULE_MOORE)
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': count %.*s at column %d is over %u",
				c->text, len, at, column(c, at), max);
	return l3d_fail(c->err, L3D_ERR_USAGE,
			"rule '%s': count %.*s at column %d is over %u (the %s "
			"neighbourhood %s has %u cells)",
			c->text, len, at, column(c, at), max,
			rule_hood_name(c->hood), rule_hood_suffix(c->hood), max);
}

/* A decimal count 0..max at c->p; long digit strings saturate rather than
 * overflow so the message can still say which count is too big. */
static int parse_count(cursor *c, unsigned *out)
{
	const char *start = c->p;
	unsigned v = 0;
	if (!isdigit((unsigned char)*c->p) || at_end(c))
		return unexpected(c, c->count_hint);
	while (isdigit((unsigned char)*c->p)) {
		if (v < 1000)
			v = v * 10 + (unsigned)(*c->p - '0');
		c->p++;
	}
	if (v > rule_hood_max(c->hood))
		return over_max(c, start, (int)(c->p - start));
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
	while (isdigit((unsigned char)*c->p)) {
		if ((unsigned)(*c->p - '0') > rule_hood_max(c->hood))
			return over_max(c, c->p, 1);
		*mask |= UINT32_C(1) << (*c->p++ - '0');
	}
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
	bool list = part_is_list(c->p);
	int rc = list ? parse_list(c, mask) : parse_digits(c, mask);
	if (rc || *c->p == '/' || at_end(c))
		return rc;
	/* What may follow: more counts, then '/' (the first part) or the
	 * end (the second). */
	char hint[128];
	bool last = *seen_b && *seen_s;
	snprintf(hint, sizeof hint, "%s%s%s%s", c->count_hint, list ? ", ','" : "",
		 last ? ", " : "", last ? c->end_hint : " or '/'");
	return not_the_end(c, hint);
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
	if (!at_end(c))
		return not_the_end(c, c->end_hint);
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
			if (!isdigit((unsigned char)*c->p) || at_end(c))
				return unexpected(c, "a digit (Bays' four numbers El Eu Fl Fu)");
			if ((unsigned)(*c->p - '0') > rule_hood_max(c->hood))
				return over_max(c, c->p, 1);
			v[i] = (unsigned)(*c->p++ - '0');
		}
	}
	if (!at_end(c)) {
		char hint[128];
		snprintf(hint, sizeof hint, "%s after Bays' four numbers", c->end_hint);
		return not_the_end(c, hint);
	}
	if (v[1] < v[0])
		return reversed(c, at[0], v[0], v[1]);
	if (v[3] < v[2])
		return reversed(c, at[2], v[2], v[3]);
	r->survive = range_mask(v[0], v[1]);
	r->birth = range_mask(v[2], v[3]);
	return L3D_OK;
}

/* Where a list that counts 0 names it: at the start of an item ("0" or
 * a range "0..n"), leading zeros and all. */
static const char *zero_in(const char *list)
{
	for (const char *item = list;;) {
		size_t digits = strspn(item, "0123456789");
		if (digits && strspn(item, "0") >= digits)
			return item;
		const char *comma = strchr(item, ',');
		if (!comma)
			return list;
		item = comma + 1;
	}
}

/* Golly: "3D" survive "/" birth (the letter was taken off already);
 * Ready's form is the same without "3D". */
static int parse_golly(cursor *c, rule *r)
{
	int rc;
	char hint[128];
	if (c->p[0] == '3' && (c->p[1] == 'D' || c->p[1] == 'd'))
		c->p += 2;
	const char *survives = c->p;
	if ((rc = parse_list(c, &r->survive)))
		return rc;
	/* A comma may follow a count, not open a list. */
	snprintf(hint, sizeof hint, "%s%s or '/'", c->count_hint, c->p > survives ? ", ','" : "");
	if (*c->p != '/' || at_end(c))
		return unexpected(c, hint);
	const char *births = ++c->p;
	if ((rc = parse_list(c, &r->birth)))
		return rc;
	snprintf(hint, sizeof hint, "%s%s, %s", c->count_hint, c->p > births ? ", ','" : "",
		 c->end_hint);
	if (!at_end(c))
		return not_the_end(c, hint);
	if (r->birth & 1u)
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': birth on 0 at column %d: Golly's notation "
				"has none (write it in B/S notation, e.g. B0...)",
				c->text, column(c, zero_in(births)));
	return L3D_OK;
}

/* The form of other 3D viewers (Visions of Chaos and the like): survive
 * "/" birth "/" states "/" M (Moore) or N (von Neumann: the six faces,
 * Golly's F).  Two states make an outer-totalistic rule; more are
 * Generations rules, which life3d does not run. */
static bool four_parts(const char *text)
{
	size_t n = strlen(text), slashes = 0;
	for (const char *p = text; *p; p++)
		slashes += *p == '/';
	char last = n >= 2 ? (char)toupper((unsigned char)text[n - 1]) : 0;
	return slashes == 3 && text[n - 2] == '/' && (last == 'M' || last == 'N');
}

static int parse_four(cursor *c, rule *r)
{
	size_t n = strlen(c->text);
	c->end = c->text + n - 2;
	c->hood = toupper((unsigned char)c->text[n - 1]) == 'N' ? RULE_FACE : RULE_MOORE;
	snprintf(c->count_hint, sizeof c->count_hint, "a count 0..%u", rule_hood_max(c->hood));
	int rc = parse_list(c, &r->survive);
	if (!rc && *c->p != '/')
		rc = unexpected(c, "a count, ',' or '/' (survive/birth/states/M or N)");
	if (!rc) {
		c->p++;
		rc = parse_list(c, &r->birth);
	}
	if (!rc && *c->p != '/')
		rc = unexpected(c, "a count, ',' or '/' (survive/birth/states/M or N)");
	if (rc)
		return rc;
	const char *states = ++c->p;
	unsigned k = 0;
	while (isdigit((unsigned char)*c->p) && k < 1000)
		k = k * 10 + (unsigned)(*c->p++ - '0');
	if (c->p == states || !at_end(c))
		return unexpected(c, "the number of states (survive/birth/states/M or N)");
	if (k != 2)
		return l3d_fail(c->err, L3D_ERR_USAGE,
				"rule '%s': Generations rules with %u states are not supported "
				"(only rules of two states, live and dead)", c->text, k);
	return L3D_OK;
}

/* Golly's BusyBoxes family, by 3D.lua's names in any case: the family,
 * or RULE_COUNTS for any other text. */
static rule_family busyboxes(const char *text)
{
	static const struct {
		const char *name;
		rule_family family;
	} names[] = {{"busyboxes", RULE_BUSYBOXES}, {"bb", RULE_BUSYBOXES},
		     {"busyboxesw", RULE_BUSYBOXES_WRAP}, {"bbw", RULE_BUSYBOXES_WRAP}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(text, names[i].name) == 0)
			return names[i].family;
	return RULE_COUNTS;
}

/* Take a trailing neighbourhood letter off: set c->end and c->hood. */
static void take_suffix(cursor *c)
{
	size_t n = strlen(c->text);
	c->end = c->text + n;
	c->hood = RULE_MOORE;
	rule_hood h = n < 2 ? RULE_HOODS : hood_of_letter(c->text[n - 1]);
	if (h == RULE_HOODS)
		return;
	c->hood = h;
	c->end--;
}

int rule_parse(const char *text, rule *out, l3d_err *err)
{
	cursor c = {.text = text, .p = text, .err = err};
	rule r = {0, 0, 0, 0};
	int rc;
	if (!text || !*text)
		return l3d_fail(err, L3D_ERR_USAGE,
				"rule '': empty rule (try B6/S567, 5766 or 3D5..7/6)");
	if (busyboxes(text)) {
		*out = (rule){.family = busyboxes(text)};
		return L3D_OK;
	}
	if (four_parts(text)) {
		rc = parse_four(&c, &r);
		if (rc)
			return rc;
		r.hood = c.hood;
		*out = r;
		return L3D_OK;
	}
	take_suffix(&c);
	snprintf(c.count_hint, sizeof c.count_hint, "a count 0..%u",
		 rule_hood_max(c.hood));
	end_hint(c.end_hint, sizeof c.end_hint);
	if (text[0] == '3' && (text[1] == 'D' || text[1] == 'd'))
		rc = parse_golly(&c, &r);
	else if (isdigit((unsigned char)text[0]) && strchr(text, '/'))
		rc = parse_golly(&c, &r);       /* Ready's survive/birth */
	else if (isdigit((unsigned char)text[0]))
		rc = parse_bays(&c, &r);
	else if (strchr("BbSs", text[0]))
		rc = parse_bs(&c, &r);
	else
		rc = unexpected(&c, "B/S, Bays' four numbers or Golly's 3D");
	if (rc)
		return rc;
	r.hood = c.hood;
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

static void put_suffix(sbuf *b, const rule *r)
{
	put(b, rule_hood_suffix((rule_hood)r->hood));
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

/* Golly's names, which 3D.lua writes. */
static const char *busyboxes_name(const rule *r)
{
	return r->family == RULE_BUSYBOXES_WRAP ? "BusyBoxesW" : "BusyBoxes";
}

int rule_format(const rule *r, char *buf, size_t size)
{
	if (rule_is_busyboxes(r))
		return snprintf(buf, size, "%s", busyboxes_name(r));
	sbuf b = {.n = 0};
	b.s[0] = '\0';
	bool big = ((r->birth | r->survive) >> 10) != 0;
	put(&b, "B");
	big ? put_list(&b, r->birth, true) : put_digits(&b, r->birth);
	put(&b, "/S");
	big ? put_list(&b, r->survive, true) : put_digits(&b, r->survive);
	put_suffix(&b, r);
	return emit(&b, buf, size);
}

int rule_format_golly(const rule *r, char *buf, size_t size)
{
	if (rule_is_busyboxes(r))
		return snprintf(buf, size, "%s", busyboxes_name(r));
	if (r->birth & 1u)
		return rule_format(r, buf, size);
	sbuf b = {.n = 0};
	b.s[0] = '\0';
	put(&b, "3D");
	put_list(&b, r->survive, false);
	put(&b, "/");
	put_list(&b, r->birth, false);
	put_suffix(&b, r);
	return emit(&b, buf, size);
}

int rule_equal(const rule *a, const rule *b)
{
	if (rule_is_busyboxes(a) || rule_is_busyboxes(b))
		return a->family == b->family;
	return (a->birth & RULE_ALL_COUNTS) == (b->birth & RULE_ALL_COUNTS) &&
	       (a->survive & RULE_ALL_COUNTS) == (b->survive & RULE_ALL_COUNTS) &&
	       hood_of((rule_hood)a->hood) == hood_of((rule_hood)b->hood);
}
