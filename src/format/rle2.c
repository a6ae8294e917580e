/* rle2.c - Golly's 2D RLE, read into a plane of a 3D universe.
 *
 *   #N Glider
 *   x = 3, y = 3, rule = B3/S23
 *   bo$2bo$3o!
 *
 * Read as Golly's readrle reads a two-state file: '#' lines anywhere, the
 * header optional (no rule: B3/S23), 'b' or '.' dead, 'o' or 'A' alive,
 * '$' a new row, '!' the end, counts that carry across lines, and any
 * other character ignored (and its count with it).  The x= and y= of the
 * header are not checked: Golly ignores them too.  The cells are then put
 * where 3D.lua's paste puts a one-cell-thick pattern (rle2.h). */
#include "rle2.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/rule.h"
#include "textscan.h"

/* Golly's 3D grid, and where 3D.lua pastes: the middle plane. */
#define GOLLY_GRID 100

static bool is_text(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

/* Golly's isplainrle: run data alone, with a count or an end. */
static bool plain_runs(const unsigned char *p, size_t n)
{
	bool cells = false, count_or_end = false;
	for (size_t i = 0; i < n && p[i] != '\n' && p[i] != '\r'; i++) {
		if (!strchr("0123456789bo$! \t", p[i]))
			return false;
		cells |= p[i] == 'b' || p[i] == 'o';
		count_or_end |= isdigit(p[i]) || p[i] == '!';
	}
	return cells && count_or_end;
}

/* A Golly comment line: '#', a letter, then a blank or the line's end
 * ("#N Glider", "#C", "#CXRLE Pos=0,0"), but not Golly's Life 1.05/1.06
 * ("#Life 1.06", "#P 0 0") or MCell files, nor a configuration file's
 * "# comment". */
static bool golly_comment(const unsigned char *p, size_t n)
{
	if (n < 2 || p[0] != '#' || !isalpha(p[1]) || p[1] == 'P')
		return false;
	if (n >= 6 && !memcmp(p, "#CXRLE", 6))
		return true;
	return n == 2 || p[2] == ' ' || p[2] == '\t' || p[2] == '\r' || p[2] == '\n';
}

bool rle2_looks(const unsigned char *p, size_t n)
{
	if (!is_text(p, n))
		return false;
	while (n && (*p == '\n' || *p == '\r'))
		p++, n--;
	if (n >= 2 && p[0] == 'x' && (p[1] <= ' ' || p[1] == '='))
		return true;
	return golly_comment(p, n) || plain_runs(p, n);
}

/* ---- the runs read ---- */

typedef struct run2 {
	uint64_t row, col, len;
} run2;

typedef struct pattern2 {
	run2 *runs;
	size_t n, cap;
	uint64_t lo[2], hi[2];     /* the live cells' box: col, row; inclusive */
	uint64_t generation;       /* #CXRLE Gen= */
	bool life;                 /* the rule is Conway's Life, B3/S23 */
	char rule[64];             /* the header's rule, as written */
	char assumed[128];
	universe_meta *meta;       /* where the comment lines go */
} pattern2;

static int add_live(scanner *s, pattern2 *pt, uint64_t row, uint64_t col,
		    uint64_t len, l3d_err *err)
{
	if (row >= GRID_MAX_EDGE || col >= GRID_MAX_EDGE || len > GRID_MAX_EDGE - col)
		return scan_error(s, 'o', "puts a cell past the largest edge (2^24)", err);
	if (pt->n == pt->cap) {
		size_t cap = pt->cap ? pt->cap * 2 : 256;
		run2 *more = realloc(pt->runs, cap * sizeof *more);
		if (!more)
			return l3d_fail(err, L3D_ERR_RUNTIME, "%s: out of memory for its cells",
					s->r->name);
		pt->runs = more;
		pt->cap = cap;
	}
	uint64_t lo[2] = {col, row}, hi[2] = {col + len - 1, row};
	for (int i = 0; i < 2; i++) {
		if (!pt->n || lo[i] < pt->lo[i])
			pt->lo[i] = lo[i];
		if (!pt->n || hi[i] > pt->hi[i])
			pt->hi[i] = hi[i];
	}
	pt->runs[pt->n++] = (run2){row, col, len};
	return L3D_OK;
}

/* "B3/S23", "23/3", "Life" (and Golly's ":T..." bounded-grid suffix). */
static bool rule_is_life(const char *text)
{
	char base[64];
	snprintf(base, sizeof base, "%.*s", (int)strcspn(text, ":"), text);
	if (!strcasecmp(base, "life") || !strcasecmp(base, "conway"))
		return true;
	rule r;
	l3d_err ignored;
	return rule_parse(base, &r, &ignored) == L3D_OK && r.hood == RULE_MOORE &&
	       r.birth == UINT32_C(1) << 3 && r.survive == (UINT32_C(3) << 2);
}

/* Golly's header: 'x' then the numbers (not checked) and "rule = R", the
 * rule ending at a blank, a comma after it dropped. */
static void parse_header(const char *line, pattern2 *pt)
{
	const char *p = strstr(line, "rule");
	if (!p)
		return;
	p += 4;
	p += strspn(p, " \t=");
	size_t n = strcspn(p, " \t");
	if (n && p[n - 1] == ',')
		n--;
	snprintf(pt->rule, sizeof pt->rule, "%.*s", (int)n, p);
	pt->life = rule_is_life(pt->rule);
}

/* "#CXRLE Pos=x,y Gen=g": the generation, where it is a whole number. */
static void parse_xrle(const char *line, pattern2 *pt)
{
	const char *p = strstr(line, "Gen=");
	if (!p)
		return;
	p += 4;
	char *end;
	unsigned long long g = strtoull(p, &end, 10);
	if (end > p && isdigit((unsigned char)*p) && (*end == '\0' || isspace((unsigned char)*end)) &&
	    !(g == ~0ULL && strspn(p, "0123456789") > 19))
		pt->generation = g;
	else
		snprintf(pt->assumed, sizeof pt->assumed, "#CXRLE Gen=%.20s (read as 0)", p);
}

typedef struct runs_at {
	uint64_t row, col, count;
	bool header_done, data, done;
} runs_at;

/* One character of run data; `c` is Golly's letter for a cell or a move. */
static int data_char(scanner *s, pattern2 *pt, runs_at *at, int c, l3d_err *err)
{
	if (isdigit(c)) {
		at->count = at->count * 10 + (uint64_t)(c - '0');
		return at->count > UINT32_MAX ?
		       scan_error(s, c, "makes the run count too large", err) : L3D_OK;
	}
	uint64_t n = at->count ? at->count : 1;
	int rc = L3D_OK;
	at->count = 0;
	if (c == 'b' || c == '.')
		at->col += n;
	else if (c == 'o' || c == 'A') {
		rc = add_live(s, pt, at->row, at->col, n, err);
		at->col += n;
	} else if (c == '$') {
		at->col = 0;
		at->row += n;
	} else if (c == '!')
		at->done = true;
	else if ((c >= 'B' && c <= 'X') || (c >= 'p' && c <= 'y'))
		rc = scan_error(s, c, "is a cell of a state above 1 (life3d runs two states)", err);
	/* Golly ignores any other character, and the count before it. */
	if (at->col > GRID_MAX_EDGE || at->row > GRID_MAX_EDGE)
		at->col = at->row = GRID_MAX_EDGE;   /* a later cell there is refused */
	return rc;
}

/* A line that starts with `c`: a comment, the header or data. */
static int read_line(scanner *s, pattern2 *pt, runs_at *at, int c, char *line,
		     l3d_err *err)
{
	int rc = L3D_OK;
	if (c == '#') {
		scan_comment(s, c, line, SCAN_LINE_CAP);
		if (strncmp(line, "#CXRLE", 6))
			meta_add_comment(pt->meta, line);     /* #N, #C, #O ... */
		else if (!at->header_done && !at->data)
			parse_xrle(line, pt);
		return s->rc;
	}
	if (c == 'x' && !at->header_done && !at->data) {
		int next = scan_getc(s);
		if (next == -1 || next <= ' ' || next == '=') {
			at->header_done = true;
			line[0] = 'x';
			rc = next == '\n' || next == -1 ? (line[1] = '\0', s->rc) :
			     scan_line(s, next, line + 1, err);
			if (!rc)
				parse_header(line, pt);
			return rc;
		}
		c = next;                  /* Golly: data, and 'x' ignored */
	}
	at->data = true;
	/* No character is read after an error: a read would overwrite it. */
	for (; c != -1 && c != '\n' && !at->done; c = scan_getc(s))
		if ((rc = data_char(s, pt, at, c, err)))
			return rc;
	if (at->done && c != '\n' && c != -1)
		scan_skip_line(s);
	return L3D_OK;
}

static int read_pattern(reader *r, pattern2 *pt, l3d_err *err)
{
	char line[SCAN_LINE_CAP];
	scanner s;
	runs_at at = {0};
	scan_init(&s, r, err);
	snprintf(pt->rule, sizeof pt->rule, "B3/S23");
	pt->life = true;
	for (int c; !at.done && (c = scan_getc(&s)) != -1;) {
		if (c == '\n')
			continue;
		int rc = read_line(&s, pt, &at, c, line, err);
		if (rc)
			return rc;
	}
	return s.rc;
}

/* ---- the plane ---- */

/* Where 3D.lua's paste puts a one-cell-thick pattern in each active
 * plane: the universe's axes of the pattern's columns and rows, and
 * whether each runs backwards.  Golly's y points up, so the rows do: the
 * top row gets the largest coordinate.  The YZ plane is the XY one turned
 * about y, which puts the columns along z backwards; the XZ plane is it
 * turned about x. */
typedef struct plane_axes {
	int col, row;
	bool col_back, row_back;
} plane_axes;

static plane_axes axes_of(int axis)
{
	switch (axis) {
	case 0:
		return (plane_axes){2, 1, true, true};     /* YZ */
	case 1:
		return (plane_axes){0, 2, false, true};    /* XZ */
	default:
		return (plane_axes){0, 1, false, true};    /* XY */
	}
}

static int place_cells(reader *r, const pattern2 *pt, grid *g, universe_meta *meta,
		       l3d_err *err)
{
	const plane_place *pl = &r->place;
	plane_axes a = axes_of(pl->axis);
	uint64_t ext[2] = {0, 0}, dim[3] = {GOLLY_GRID, GOLLY_GRID, GOLLY_GRID};
	for (int i = 0; i < 2 && pt->n; i++)
		ext[i] = pt->hi[i] - pt->lo[i] + 1;
	if (ext[0] > dim[a.col])
		dim[a.col] = ext[0];
	if (ext[1] > dim[a.row])
		dim[a.row] = ext[1];
	uint64_t across = dim[pl->axis];
	if (pl->index >= (int64_t)across)
		return l3d_fail(err, L3D_ERR_USAGE,
				"%s: plane %c=%lld is outside the universe (%llu cells along %c)",
				r->name, "xyz"[pl->axis], (long long)pl->index,
				(unsigned long long)across, "xyz"[pl->axis]);
	uint64_t at = pl->index < 0 ? across / 2 : (uint64_t)pl->index;
	int rc = reader_alloc(r, g, dim[0], dim[1], dim[2], err);
	if (rc)
		return rc;
	g->generation = pt->generation;
	uint64_t off_c = (dim[a.col] - ext[0] + 1) / 2, off_r = (dim[a.row] - ext[1] + 1) / 2;
	for (size_t i = 0; i < pt->n; i++) {
		const run2 *run = &pt->runs[i];
		uint64_t c[3];
		c[a.row] = off_r + (a.row_back ? pt->hi[1] - run->row : run->row - pt->lo[1]);
		for (uint64_t k = 0, col = run->col; k < run->len; k++, col++) {
			c[a.col] = off_c + (a.col_back ? pt->hi[0] - col : col - pt->lo[0]);
			for (int twice = 0; twice <= (int)pl->twice; twice++) {
				c[pl->axis] = (at + (uint64_t)twice) % across;
				grid_set(g, c[0], c[1], c[2], 1);
			}
		}
	}
	char planes[64];
	if (pl->twice)
		snprintf(planes, sizeof planes, "planes %c=%llu and %c=%llu", "xyz"[pl->axis],
			 (unsigned long long)at, "xyz"[pl->axis],
			 (unsigned long long)((at + 1) % across));
	else
		snprintf(planes, sizeof planes, "plane %c=%llu", "xyz"[pl->axis],
			 (unsigned long long)at);
	snprintf(meta->placed, sizeof meta->placed,
		 "a 2D pattern (rule %s), %llux%llu, centred in the %s of a %llux%llux%llu "
		 "universe, its top row at the largest %c, as Golly pastes one",
		 pt->rule, (unsigned long long)ext[0], (unsigned long long)ext[1], planes,
		 (unsigned long long)dim[0], (unsigned long long)dim[1],
		 (unsigned long long)dim[2], "xyz"[a.row]);
	meta->life2d = pt->life;
	snprintf(meta->assumed, sizeof meta->assumed, "%s", pt->assumed);
	return L3D_OK;
}

int rle2_read(reader *r, grid *g, universe_meta *meta, l3d_err *err)
{
	pattern2 pt = {0};
	universe_meta ignored = {0};
	memset(g, 0, sizeof *g);
	pt.meta = meta ? meta : &ignored;
	pt.meta->comments[0] = '\0';
	int rc = read_pattern(r, &pt, err);
	if (!rc)
		rc = place_cells(r, &pt, g, pt.meta, err);
	free(pt.runs);
	if (rc)
		grid_free(g);
	return rc;
}

int rle2_read_start(reader *r, grid *g, universe_meta *meta,
		    format_stream **out, l3d_err *err)
{
	*out = NULL;
	int rc = rle2_read(r, g, meta, err);
	return rc ? rc : format_stream_start(r, g, NULL, NULL, 0, NULL, out, err);
}
