/* rle3.c - Golly's RLE3 text format, as 3D.lua reads and writes it.
 *
 *   3D version=1 size=40 pos=19,18,18 gen=0      (keys in any order)
 *   # comment lines
 *   x=2 y=4 z=4 rule=3D4,7/5,8
 *   $bo$bo/bo$bo$bo$oo/oo$bo$bo$bo/$bo$bo!
 *
 * Golly's grid is always a cube (size=N).  A universe that is not a cube
 * also gets `box=X,Y,Z`, a key Golly ignores, and we honour before size=.
 * The writer reproduces Golly's own output: the same run encoding ("oo",
 * never "2o"), the same line wrapping, the same header keys. */
#include "rle3.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostmem.h"
#include "textscan.h"

/* What a file's first line begins with. */
#define RLE3_MAGIC "3D"

bool rle3_looks(const unsigned char *p, size_t n)
{
	/* Golly only asks for "3D" at the start; the blank after it keeps an
	 * HPCGame edge length whose low bytes happen to be "3D" out. */
	return n >= 2 && memcmp(p, RLE3_MAGIC, 2) == 0 &&
	       (n == 2 || p[2] == ' ' || p[2] == '\t' || p[2] == '\r' ||
		p[2] == '\n');
}

/* ---- what Golly makes of a file ---- */

/* Golly's 3D.lua: a cube of this many cells a side at least and at most. */
#define GOLLY_MIN_SIZE 3
#define GOLLY_MAX_SIZE 100

static void add_caveat(char *buf, size_t size, const char *text)
{
	size_t n = strlen(buf);
	snprintf(buf + n, size - n, "%s%s", n ? "; " : "", text);
}

void rle3_caveats(uint64_t nx, uint64_t ny, uint64_t nz, const rule *r,
		  char *buf, size_t size)
{
	char text[160];
	if (nx > GOLLY_MAX_SIZE || ny > GOLLY_MAX_SIZE || nz > GOLLY_MAX_SIZE) {
		snprintf(text, sizeof text, "Golly opens no universe over %d cells a side",
			 GOLLY_MAX_SIZE);
		add_caveat(buf, size, text);
	}
	if (nx < GOLLY_MIN_SIZE || ny < GOLLY_MIN_SIZE || nz < GOLLY_MIN_SIZE) {
		snprintf(text, sizeof text, "Golly opens no universe under %d cells a side",
			 GOLLY_MIN_SIZE);
		add_caveat(buf, size, text);
	}
	if (nx != ny || ny != nz) {
		snprintf(text, sizeof text, "Golly ignores box=%llu,%llu,%llu and runs the "
			 "pattern in a cube", (unsigned long long)nx,
			 (unsigned long long)ny, (unsigned long long)nz);
		add_caveat(buf, size, text);
	}
	if (r->birth & 1)
		add_caveat(buf, size, "Golly refuses a rule with birth on 0");
}

/* ---- the header lines ---- */

typedef struct rle3_head {
	uint64_t size, box[3], pos[3], gen;
	uint64_t extent[3];      /* x= y= z= */
	uint64_t line;           /* of the x= y= z= line; 0: none */
	bool has_version, has_size, has_box;
	int first_data;          /* the data's first character, read while
				    looking for the x= line; -1: none */
	int sizeless;            /* universe_meta.sizeless */
	rule rule;
	char assumed[sizeof ((universe_meta *)0)->assumed];
	universe_meta *meta;     /* where the comment lines go */
} rle3_head;

/* A comment line, `first` being its '#': kept, as Golly keeps every one
 * wherever it stands (3D.lua's ReadPattern), up to SCAN_LINE_CAP bytes. */
static void keep_comment(scanner *s, int first, rle3_head *h)
{
	char line[SCAN_LINE_CAP];
	scan_comment(s, first, line, sizeof line);
	meta_add_comment(h->meta, line);
}

static bool parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');
		if (!isdigit((unsigned char)s[i]) || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* "a,b,c" */
static bool parse_triple(const char *s, uint64_t out[3])
{
	for (int i = 0; i < 3; i++) {
		size_t n = strcspn(s, ",");
		if (!parse_u64(s, n, &out[i]) || (i < 2) != (s[n] == ','))
			return false;
		s += n + 1;
	}
	return true;
}

/* What Golly reads where a file leaves something out or wrong, added to
 * h->assumed ("; " between). */
static void assume(rle3_head *h, const char *fmt, const char *value)
{
	size_t n = strlen(h->assumed);
	if (n && n + 2 < sizeof h->assumed)
		n += (size_t)snprintf(h->assumed + n, sizeof h->assumed - n, "; ");
	if (n < sizeof h->assumed)
		snprintf(h->assumed + n, sizeof h->assumed - n, fmt, value);
}

/* Golly's reading of a value it does not refuse: a negative gen= is 0; a
 * pos= of two numbers has z 0; size=0 (or below) is 3 and a size= that is
 * no number 100 (3D.lua's smallest and default grid; sizes 1 and 2, which Golly
 * also reads as 3, are life3d's own small universes, kept). */
/* "-N": a whole number below 0. */
static bool negative(const char *val)
{
	uint64_t v;
	return val[0] == '-' && parse_u64(val + 1, strlen(val + 1), &v);
}

static bool lenient_value(rle3_head *h, const char *key, const char *val)
{
	uint64_t v;
	if (!strcmp(key, "gen") && negative(val)) {
		h->gen = 0;
		assume(h, "gen=%s (read as 0)", val);
		return true;
	}
	if (!strcmp(key, "pos")) {
		size_t a = strcspn(val, ",");
		const char *b = val + a + (val[a] == ',');
		size_t bn = strcspn(b, ",");
		if (val[a] != ',' || b[bn] || !parse_u64(val, a, &h->pos[0]) ||
		    !parse_u64(b, bn, &h->pos[1]))
			return false;
		h->pos[2] = 0;
		assume(h, "pos=%s (z read as 0)", val);
		return true;
	}
	if (!strcmp(key, "size")) {
		bool number = parse_u64(val, strlen(val), &v) || negative(val);
		h->size = number ? 3 : 100;
		assume(h, number ? "size=%s (read as 3)" : "size=%s (read as 100)", val);
		return true;
	}
	return false;
}

static int first_line_key(const char *name, rle3_head *h, const char *key,
			  size_t klen, const char *val, l3d_err *err)
{
	bool ok = true;
	if (klen == 7 && memcmp(key, "version", 7) == 0) {
		if (strcmp(val, "1") != 0)
			return l3d_fail(err, L3D_ERR_DATA,
					"%s:1: unsupported RLE3 version '%s' (expected 1)",
					name, val);
		h->has_version = true;
	} else if (klen == 4 && memcmp(key, "size", 4) == 0) {
		ok = parse_u64(val, strlen(val), &h->size) && h->size;
		h->has_size = true;
	} else if (klen == 3 && memcmp(key, "box", 3) == 0) {
		ok = parse_triple(val, h->box);
		h->has_box = true;
	} else if (klen == 3 && memcmp(key, "pos", 3) == 0) {
		ok = parse_triple(val, h->pos);
	} else if (klen == 3 && memcmp(key, "gen", 3) == 0) {
		ok = parse_u64(val, strlen(val), &h->gen);
	}
	/* Golly ignores keys it does not know, and so do we. */
	char k[8] = "";
	if (klen < sizeof k)
		memcpy(k, key, klen);
	if (!ok && lenient_value(h, k, val))
		ok = true;
	if (!ok)
		return l3d_fail(err, L3D_ERR_DATA, "%s:1: bad value in '%.*s=%s'",
				name, (int)klen, key, val);
	return L3D_OK;
}

static int parse_first_line(const char *name, char *line, rle3_head *h,
			    l3d_err *err)
{
	static const char blanks[] = " \t";
	char *save = NULL;
	char *tok = strtok_r(line, blanks, &save);
	if (!tok || strncmp(tok, RLE3_MAGIC, 2) != 0)
		return l3d_fail(err, L3D_ERR_DATA,
				"%s:1: not RLE3 (the first line must start with 3D)", name);
	while ((tok = strtok_r(NULL, blanks, &save))) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		int rc = first_line_key(name, h, tok, (size_t)(eq - tok), eq + 1, err);
		if (rc)
			return rc;
	}
	/* Golly checks version= only when it is there. */
	if (!h->has_version)
		assume(h, "%s", "no version= (read as version 1)");
	return L3D_OK;
}

/* "x=W y=H z=D rule=R" */
static int parse_pattern_line(const char *name, uint64_t lineno, char *line,
			      rle3_head *h, l3d_err *err)
{
	static const char *const keys[4] = { "x=", "y=", "z=", "rule=" };
	char *save = NULL, *tok[4];
	for (int i = 0; i < 4; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok[i] || strncmp(tok[i], keys[i], strlen(keys[i])) != 0)
			return l3d_fail(err, L3D_ERR_DATA,
					"%s:%llu: expected 'x=W y=H z=D rule=R'", name,
					(unsigned long long)lineno);
		if (i < 3 && !parse_u64(tok[i] + 2, strlen(tok[i] + 2), &h->extent[i]))
			return l3d_fail(err, L3D_ERR_DATA,
					"%s:%llu: '%s': expected a whole number below 2^64 "
					"(the line is 'x=W y=H z=D rule=R', blanks between)", name,
					(unsigned long long)lineno, tok[i]);
	}
	if (strtok_r(NULL, " \t", &save))
		return l3d_fail(err, L3D_ERR_DATA,
				"%s:%llu: unexpected text after the rule", name,
				(unsigned long long)lineno);
	l3d_err rerr;
	if (rule_parse(tok[3] + 5, &h->rule, &rerr))
		return l3d_fail(err, L3D_ERR_DATA, "%s:%llu: %s", name,
				(unsigned long long)lineno, rerr.msg);
	return L3D_OK;
}

/* Golly's rule for a file without an x= line (3D.lua's DEFAULT_RULE). */
#define GOLLY_DEFAULT_RULE "3D5..7/6"

/* Data with no x= line before it: read as Golly reads it, under Golly's
 * default rule, from 0,0,0, with no box of its own. */
static int no_pattern_line(scanner *s, int c, rle3_head *h, l3d_err *err)
{
	l3d_err rerr;
	if (c == -1 && s->rc)
		return s->rc;
	if (rule_parse(GOLLY_DEFAULT_RULE, &h->rule, &rerr))
		return l3d_fail(err, L3D_ERR_RUNTIME, "%s", rerr.msg);
	h->first_data = c;
	assume(h, "%s", "no 'x=W y=H z=D rule=R' line (read with rule "
	       GOLLY_DEFAULT_RULE ", as Golly does)");
	return L3D_OK;
}

/* Skip blank and comment lines up to the x= line and parse it. */
static int read_pattern_line(scanner *s, char *buf, rle3_head *h, l3d_err *err)
{
	for (;;) {
		int c = scan_getc(s);
		if (c == '\n')
			continue;
		if (c == '#') {
			keep_comment(s, c, h);
			continue;
		}
		if (c != 'x')
			return no_pattern_line(s, c, h, err);
		uint64_t lineno = h->line = s->line;
		int rc = scan_line(s, c, buf, err);
		return rc ? rc : parse_pattern_line(s->r->name, lineno, buf, h, err);
	}
}

/* Without size= or box=: Golly's own grid, where the pattern fits in it. */
static bool fits_golly_grid(const rle3_head *h)
{
	for (int i = 0; i < 3; i++)
		if (h->pos[i] > GOLLY_MAX_SIZE || h->extent[i] > GOLLY_MAX_SIZE - h->pos[i])
			return false;
	return true;
}

/* The universe's size (and h->sizeless, which says where it came from),
 * and a check that the pattern's box fits in it. */
static int universe_size(const char *name, rle3_head *h, uint64_t dim[3],
			 l3d_err *err)
{
	h->sizeless = h->has_size || h->has_box ? SIZE_GIVEN :
		fits_golly_grid(h) ? SIZE_GOLLY_GRID : SIZE_PATTERN_BOX;
	for (int i = 0; i < 3; i++) {
		if (h->has_box)
			dim[i] = h->box[i];
		else if (h->has_size)
			dim[i] = h->size;
		else if (h->sizeless == SIZE_GOLLY_GRID)
			dim[i] = GOLLY_MAX_SIZE;
		else if (__builtin_add_overflow(h->pos[i], h->extent[i], &dim[i]))
			return l3d_fail(err, L3D_ERR_DATA,
					"%s:%llu: pos %c=%llu and the pattern's %llu cells "
					"in %c end past the largest edge %llu", name,
					(unsigned long long)h->line, "xyz"[i],
					(unsigned long long)h->pos[i],
					(unsigned long long)h->extent[i], "xyz"[i],
					(unsigned long long)GRID_MAX_EDGE);
	}
	int rc = grid_check_size(dim[0], dim[1], dim[2], name, err);
	if (rc)
		return rc;
	for (int i = 0; i < 3; i++)
		if (h->extent[i] > dim[i] || h->pos[i] > dim[i] - h->extent[i])
			return l3d_fail(err, L3D_ERR_DATA,
					"%s:%llu: the %llux%llux%llu pattern at pos=%llu,%llu,%llu "
					"does not fit in the %llux%llux%llu universe", name,
					(unsigned long long)h->line,
					(unsigned long long)h->extent[0],
					(unsigned long long)h->extent[1],
					(unsigned long long)h->extent[2],
					(unsigned long long)h->pos[0],
					(unsigned long long)h->pos[1],
					(unsigned long long)h->pos[2],
					(unsigned long long)dim[0], (unsigned long long)dim[1],
					(unsigned long long)dim[2]);
	return L3D_OK;
}

/* ---- the cells ---- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

typedef struct cursor {
	uint64_t at[3];          /* where the next cell goes */
	uint64_t lo[3], hi[3];   /* the pattern's box: lo <= cell < hi */
	bool beyond;             /* a live cell past hi, inside the universe */
} cursor;

/* A run past the x= y= z= box is read as Golly reads it, where it still
 * lies in the universe; past the universe's edge it is an error. */
static int put_live_run(scanner *s, grid *g, cursor *p, uint64_t n, l3d_err *err)
{
	if (p->at[1] >= g->ny || p->at[2] >= g->nz || p->at[0] >= g->nx ||
	    n > g->nx - p->at[0])
		return scan_error(s, 'o', "puts a cell outside the universe", err);
	if (p->at[1] >= p->hi[1] || p->at[2] >= p->hi[2] || n > p->hi[0] - p->lo[0] ||
	    p->at[0] > p->hi[0] - n)
		p->beyond = true;
	for (uint64_t i = 0; i < n; i++)
		grid_set(g, p->at[0] + i, p->at[1], p->at[2], 1);
	p->at[0] += n;
	return L3D_OK;
}

static int apply_run(scanner *s, grid *g, cursor *p, int c, uint64_t n,
		     l3d_err *err)
{
	switch (c) {
	case 'b':
		p->at[0] = sat_add(p->at[0], n);
		return L3D_OK;
	case 'o':
		return put_live_run(s, g, p, n, err);
	case '$':
		p->at[0] = p->lo[0];
		p->at[1] = sat_add(p->at[1], n);
		return L3D_OK;
	case '/':
		p->at[0] = p->lo[0];
		p->at[1] = p->lo[1];
		p->at[2] = sat_add(p->at[2], n);
		return L3D_OK;
	default:
		return scan_error(s, c, "is not RLE3 data (b o $ / ! or a count)", err);
	}
}

static uint64_t dim_of(const grid *g, int i)
{
	return i == 0 ? g->nx : i == 1 ? g->ny : g->nz;
}

static int read_cells(scanner *s, grid *g, rle3_head *h, l3d_err *err)
{
	cursor p = { .beyond = false };
	for (int i = 0; i < 3; i++) {
		p.at[i] = p.lo[i] = h->pos[i];
		p.hi[i] = h->pos[i] + h->extent[i];
		/* Golly starts data without an x= line at 0,0,0 (and goes
		 * back to pos= at each $ and /). */
		if (!h->line) {
			p.at[i] = 0;
			p.hi[i] = dim_of(g, i);
		}
	}
	uint64_t count = 0;
	bool line_start = true;
	int c = h->line ? scan_getc(s) : h->first_data;
	for (; c != -1; c = scan_getc(s)) {
		if (line_start && c == '#') {
			keep_comment(s, c, h);
			continue;
		}
		line_start = c == '\n';
		if (c == '\n')
			continue;
		if (isdigit(c)) {
			count = count * 10 + (uint64_t)(c - '0');
			if (count > UINT32_MAX)
				return scan_error(s, c, "makes the run count too large", err);
			continue;
		}
		if (c == '!')
			break;
		int rc = apply_run(s, g, &p, c, count ? count : 1, err);
		if (rc)
			return rc;
		count = 0;
	}
	if (p.beyond)
		assume(h, "%s", "live cells beyond the x= y= z= box (read where "
		       "they lie, as Golly does)");
	if (c == '!')
		return L3D_OK;
	if (s->rc)
		return s->rc;
	assume(h, "%s", "no '!' at the end (read to the end, as Golly does)");
	return L3D_OK;
}

int rle3_read(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	char line[SCAN_LINE_CAP];
	scanner s;
	rle3_head h;
	uint64_t dim[3];
	universe_meta unkept;
	memset(g, 0, sizeof *g);
	memset(&h, 0, sizeof h);
	h.meta = meta ? meta : &unkept;
	h.meta->comments[0] = '\0';
	h.meta->comments_cut = false;
	scan_init(&s, r, err);
	int c = scan_getc(&s);
	if (c == -1)
		return s.rc ? s.rc : l3d_fail(err, L3D_ERR_DATA, "%s: empty file", r->name);
	int rc = scan_line(&s, c, line, err);
	if (!rc)
		rc = parse_first_line(r->name, line, &h, err);
	if (!rc)
		rc = read_pattern_line(&s, line, &h, err);
	if (!rc)
		rc = universe_size(r->name, &h, dim, err);
	if (!rc)
		rc = reader_alloc(r, g, dim[0], dim[1], dim[2], err);
	if (rc)
		return rc;
	g->generation = h.gen;
	rc = read_cells(&s, g, &h, err);
	if (rc) {
		grid_free(g);
		return rc;
	}
	if (meta) {
		meta->has_rule = true;
		meta->rule = h.rule;
		meta->sizeless = h.sizeless;
		snprintf(meta->assumed, sizeof meta->assumed, "%s", h.assumed);
	}
	return L3D_OK;
}

int rle3_read_start(reader *r, grid *g, universe_meta *meta,
		    format_stream **out, l3d_err *err)
{
	*out = NULL;
	int rc = rle3_read(r, g, meta, err);
	return rc ? rc : format_stream_start(r, g, NULL, NULL, 0, NULL, out, err);
}

/* ---- writing ---- */

typedef struct rle3_out {
	FILE *out;
	const char *name;
	l3d_err *err;
	char line[128];
	size_t len;
	uint64_t orun, brun, dollars, slashes;   /* runs not yet written */
} rle3_out;

static int out_newline(rle3_out *o)
{
	o->line[o->len++] = '\n';
	int rc = format_put(o->out, o->name, o->line, o->len, o->err);
	o->len = 0;
	return rc;
}

/* Golly's AddRun: wrap at 67 columns; a run of two is "oo", not "2o". */
static int add_run(rle3_out *o, uint64_t count, char ch)
{
	int rc = L3D_OK;
	if (o->len >= 67)
		rc = out_newline(o);
	if (count > 2) {
		char digits[20];
		int n = 0;
		for (; count; count /= 10)
			digits[n++] = (char)('0' + count % 10);
		while (n)
			o->line[o->len++] = digits[--n];
		o->line[o->len++] = ch;
	} else
		for (uint64_t i = 0; i < count; i++)
			o->line[o->len++] = ch;
	return rc;
}

/* Write the pending row and plane breaks, then a pending run of `ch`. */
static int flush_runs(rle3_out *o, uint64_t *run, char ch)
{
	int rc = L3D_OK;
	if (o->slashes)
		rc = add_run(o, o->slashes, '/');
	if (!rc && o->dollars)
		rc = add_run(o, o->dollars, '$');
	if (!rc && *run)
		rc = add_run(o, *run, ch);
	o->slashes = o->dollars = *run = 0;
	return rc;
}

typedef struct live_box {
	uint64_t lo[3], hi[3];   /* inclusive */
	bool empty;
	uint64_t cells;          /* live cells */
} live_box;

static void find_live_box(const grid *g, live_box *b)
{
	b->empty = true;
	b->cells = 0;
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			uint64_t first = g->words, last = 0;
			for (uint64_t w = 0; w < g->words; w++)
				if (row[w]) {
					if (first == g->words)
						first = w;
					last = w;
					b->cells += (uint64_t)__builtin_popcountll(row[w]);
				}
			if (first == g->words)
				continue;
			uint64_t zlo = first * 64 + (uint64_t)__builtin_ctzll(row[first]);
			uint64_t zhi = last * 64 + 63 - (uint64_t)__builtin_clzll(row[last]);
			uint64_t lo[3] = { x, y, zlo }, hi[3] = { x, y, zhi };
			for (int i = 0; i < 3; i++) {
				if (b->empty || lo[i] < b->lo[i])
					b->lo[i] = lo[i];
				if (b->empty || hi[i] > b->hi[i])
					b->hi[i] = hi[i];
			}
			b->empty = false;
		}
}

static int encode_row(rle3_out *o, const grid *g, const live_box *b,
		      uint64_t y, uint64_t z)
{
	int rc = L3D_OK;
	for (uint64_t x = b->lo[0]; x <= b->hi[0] && !rc; x++) {
		if (grid_get(g, x, y, z)) {
			if (!o->orun)
				rc = flush_runs(o, &o->brun, 'b');
			o->orun++;
		} else {
			if (o->orun)
				rc = flush_runs(o, &o->orun, 'o');
			o->brun++;
		}
	}
	if (!rc && o->orun)
		rc = flush_runs(o, &o->orun, 'o');
	o->brun = 0;                       /* trailing dead cells are dropped */
	o->dollars++;
	return rc;
}

static int encode_cells(rle3_out *o, const grid *g, const live_box *b)
{
	for (uint64_t z = b->lo[2]; z <= b->hi[2]; z++) {
		for (uint64_t y = b->lo[1]; y <= b->hi[1]; y++) {
			int rc = encode_row(o, g, b, y, z);
			if (rc)
				return rc;
		}
		o->dollars = 0;                /* so are trailing empty rows */
		if (z < b->hi[2])
			o->slashes++;
	}
	return L3D_OK;
}

/* ---- the same runs from the live cells alone ----
 * A universe of few live cells (at most one in SPARSE_SHARE of its box)
 * is written from a sorted list of them: the cells in z, y, x order, the
 * runs of consecutive x between, and the breaks of row and plane before
 * each run as encode_cells makes them (the same add_run calls, so the
 * same bytes), in time that follows the live cells and the words of the
 * universe rather than the cells of the live box read along x, the axis
 * slowest in memory. */
#define SPARSE_SHARE 64

/* Sort n keys below `most` (LSD radix, 11 bits a pass), tmp of n. */
static void radix_sort(uint64_t *keys, uint64_t *tmp, uint64_t n, uint64_t most)
{
	uint64_t count[1 << 11];
	for (int shift = 0; shift < 64 && (most >> shift); shift += 11) {
		memset(count, 0, sizeof count);
		for (uint64_t i = 0; i < n; i++)
			count[(keys[i] >> shift) & 2047]++;
		for (uint64_t d = 0, at = 0; d < 2048; d++) {
			uint64_t c = count[d];
			count[d] = at;
			at += c;
		}
		for (uint64_t i = 0; i < n; i++)
			tmp[count[(keys[i] >> shift) & 2047]++] = keys[i];
		memcpy(keys, tmp, (size_t)n * sizeof *keys);
	}
}

/* The live cells as keys (z * ny + y) * nx + x, sorted; NULL when there
 * are too many for this to pay, or no memory for them. */
static uint64_t *live_cells(const grid *g, const live_box *b, uint64_t *n)
{
	uint64_t count = b->cells;
	double box = 1;
	for (int i = 0; i < 3; i++)
		box *= (double)(b->hi[i] - b->lo[i] + 1);
	l3d_err ignored;
	if ((double)count * SPARSE_SHARE > box ||
	    host_memory_check((size_t)count * 16, "the live cells", &ignored))
		return NULL;
	uint64_t *keys = malloc((size_t)count * 8 + 8), k = 0;
	uint64_t *tmp = malloc((size_t)count * 8 + 8);
	if (!keys || !tmp) {
		free(keys);
		free(tmp);
		return NULL;
	}
	for (uint64_t x = 0; x < g->nx; x++)
		for (uint64_t y = 0; y < g->ny; y++) {
			const uint64_t *row = grid_row(g, x, y);
			for (uint64_t w = 0; w < g->words; w++)
				for (uint64_t v = row[w]; v; v &= v - 1) {
					uint64_t z = w * 64 + (uint64_t)__builtin_ctzll(v);
					keys[k++] = (z * g->ny + y) * g->nx + x;
				}
		}
	radix_sort(keys, tmp, count, g->nx * g->ny * g->nz);
	free(tmp);
	*n = count;
	return keys;
}

/* encode_cells' output from the sorted cells. */
static int encode_sparse(rle3_out *o, const grid *g, const live_box *b,
			 const uint64_t *keys, uint64_t n)
{
	uint64_t cz = b->lo[2], cy = b->lo[1], next_x = b->lo[0];
	int rc = L3D_OK;
	for (uint64_t i = 0; i < n && !rc;) {
		uint64_t x = keys[i] % g->nx, y = keys[i] / g->nx % g->ny, z = keys[i] / g->nx / g->ny;
		uint64_t len = 1;
		while (i + len < n && keys[i + len] == keys[i] + len && x + len < g->nx)
			len++;
		if (z != cz) {              /* planes ended, then empty rows */
			o->slashes += z - cz;
			o->dollars = y - b->lo[1];
			next_x = b->lo[0];
		} else if (y != cy) {
			o->dollars += y - cy;
			next_x = b->lo[0];
		}
		cz = z;
		cy = y;
		o->brun = x - next_x;
		rc = flush_runs(o, &o->brun, 'b');
		o->orun = len;
		if (!rc)
			rc = flush_runs(o, &o->orun, 'o');
		next_x = x + len;
		i += len;
	}
	return rc;
}

static int write_first_line(rle3_out *o, const grid *g, const live_box *b)
{
	char text[256];
	uint64_t size = g->nx > g->ny ? g->nx : g->ny;
	size = size > g->nz ? size : g->nz;
	int n = snprintf(text, sizeof text, RLE3_MAGIC " version=1 size=%llu",
			 (unsigned long long)size);
	if (g->nx != g->ny || g->ny != g->nz)
		n += snprintf(text + n, sizeof text - (size_t)n, " box=%llu,%llu,%llu",
			      (unsigned long long)g->nx, (unsigned long long)g->ny,
			      (unsigned long long)g->nz);
	if (!b->empty && (b->lo[0] || b->lo[1] || b->lo[2]))
		n += snprintf(text + n, sizeof text - (size_t)n, " pos=%llu,%llu,%llu",
			      (unsigned long long)b->lo[0], (unsigned long long)b->lo[1],
			      (unsigned long long)b->lo[2]);
	if (g->generation)
		snprintf(text + n, sizeof text - (size_t)n, " gen=%llu",
			 (unsigned long long)g->generation);
	strcat(text, "\n");
	return format_puts(o->out, o->name, text, o->err);
}

static int write_pattern_line(rle3_out *o, const live_box *b, const rule *r)
{
	char rule_text[160], text[256];
	rule_format_golly(r, rule_text, sizeof rule_text);
	uint64_t ext[3] = { 0, 0, 0 };
	for (int i = 0; i < 3 && !b->empty; i++)
		ext[i] = b->hi[i] - b->lo[i] + 1;
	snprintf(text, sizeof text, "x=%llu y=%llu z=%llu rule=%s\n",
		 (unsigned long long)ext[0], (unsigned long long)ext[1],
		 (unsigned long long)ext[2], rule_text);
	return format_puts(o->out, o->name, text, o->err);
}

int rle3_write_by(FILE *out, const char *name, const grid *g, const rule *r,
		  const char *comments, bool sparse, l3d_err *err)
{
	rle3_out o = { .out = out, .name = name, .err = err };
	live_box b;
	find_live_box(g, &b);
	int rc = write_first_line(&o, g, &b);
	/* Golly's WritePattern puts the comments right after the first line. */
	if (!rc && comments && *comments)
		rc = format_puts(out, name, comments, err);
	if (!rc)
		rc = write_pattern_line(&o, &b, r ? r : &rule_default);
	uint64_t n = 0, *keys = rc || b.empty || !sparse ? NULL : live_cells(g, &b, &n);
	if (!rc && keys)
		rc = encode_sparse(&o, g, &b, keys, n);
	else if (!rc && !b.empty)
		rc = encode_cells(&o, g, &b);
	free(keys);
	if (!rc && o.len >= 70)
		rc = out_newline(&o);
	if (!rc) {
		o.line[o.len++] = '!';
		rc = out_newline(&o);
	}
	return rc ? rc : format_finish(out, name, err);
}

int rle3_write(FILE *out, const char *name, const grid *g, const rule *r,
	       const char *comments, l3d_err *err)
{
	return rle3_write_by(out, name, g, r, comments, true, err);
}
