/* fuzz_rle3.c - the Golly RLE3 reader.
 *
 * Text has many spellings of one universe, so two checks: a second, plain
 * decoding of the cells written from the format's description, and round
 * trips: what the reader accepts, the writers write and the readers read
 * back unchanged, and writing that again gives the same bytes. */
#include "fuzz.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char fuzz_target[] = "rle3";

/* The input with CR, LF and CRLF all turned into '\n'. */
typedef struct text {
	char *s;
	size_t n, at;
} text;

static text normalize(const uint8_t *data, size_t size)
{
	text t = { malloc(size + 1), 0, 0 };
	fuzz_require(t.s != NULL, "out of memory");
	for (size_t i = 0; i < size; i++) {
		if (data[i] == '\n' && i > 0 && data[i - 1] == '\r')
			continue;
		t.s[t.n++] = data[i] == '\r' ? '\n' : (char)data[i];
	}
	t.s[t.n] = '\0';
	return t;
}

/* The next line as [*start, t->at - 1); false at the end. */
static bool next_line(text *t, size_t *start)
{
	if (t->at >= t->n)
		return false;
	*start = t->at;
	while (t->at < t->n && t->s[t->at] != '\n')
		t->at++;
	t->at++;
	return true;
}

/* pos=X,Y,Z of the first line (the last one given wins; pos=X,Y has z 0,
 * as Golly reads it); the line ends at its first NUL, as the reader's C
 * string does. */
static void first_line_pos(text *t, uint64_t pos[3])
{
	size_t start;
	next_line(t, &start);
	char *line = strndup(t->s + start, t->at - 1 - start);
	fuzz_require(line != NULL, "out of memory");
	char *save = NULL;
	for (char *tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		if (!strncmp(tok, "pos=", 4) &&
		    sscanf(tok + 4, "%" SCNu64 ",%" SCNu64 ",%" SCNu64, &pos[0],
			   &pos[1], &pos[2]) == 2)
			pos[2] = 0;
	free(line);
}

/* Skip blank and '#' lines, then the x= line; false when the data comes
 * without one (Golly reads it from 0,0,0 then). */
static bool skip_to_cells(text *t)
{
	size_t start;
	while (next_line(t, &start))
		if (t->at - 1 > start && t->s[start] != '#') {
			if (t->s[start] == 'x')
				return true;
			t->at = start;
			return false;
		}
	return false;
}

/* Live runs must land on live cells, and nothing else may be alive. */
static void check_cells(const grid *g, const uint8_t *data, size_t size)
{
	text t = normalize(data, size);
	uint64_t pos[3] = { 0, 0, 0 }, at[3], count = 0, live = 0;
	first_line_pos(&t, pos);
	bool pattern_line = skip_to_cells(&t);
	memcpy(at, pos, sizeof at);
	if (!pattern_line)
		memset(at, 0, sizeof at);
	bool line_start = true;
	for (; t.at < t.n && t.s[t.at] != '!'; t.at++) {
		char c = t.s[t.at];
		if (line_start && c == '#') {
			while (t.at < t.n && t.s[t.at] != '\n')
				t.at++;
			continue;
		}
		line_start = c == '\n';
		if (c >= '0' && c <= '9') {
			count = count * 10 + (uint64_t)(c - '0');
			continue;
		}
		uint64_t n = count ? count : 1;
		if (c == 'o')
			for (uint64_t i = 0; i < n; i++, live++)
				fuzz_require(at[0] + i < g->nx && at[1] < g->ny &&
					     at[2] < g->nz &&
					     grid_get(g, at[0] + i, at[1], at[2]),
					     "a live run decodes to a dead cell");
		if (c == 'o' || c == 'b')
			at[0] += n;
		if (c == '$' || c == '/')
			at[0] = pos[0];
		if (c == '$')
			at[1] += n;
		if (c == '/') {
			at[1] = pos[1];
			at[2] += n;
		}
		if (c != '\n')
			count = 0;
	}
	fuzz_require(live == grid_population(g), "more live cells than live runs");
	free(t.s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	grid g;
	universe_meta meta;
	l3d_err err;
	if (fuzz_read(rle3_read, data, size, &g, &meta, &err) != L3D_OK)
		return 0;
	fuzz_require(meta.has_rule, "an RLE3 file always carries a rule");
	if (grid_bytes(&g) <= FUZZ_ROUNDTRIP_BYTES)
		check_cells(&g, data, size);
	fuzz_roundtrip(FMT_RLE3, rle3_read, &g, &meta);
	fuzz_roundtrip(FMT_NATIVE, native_read, &g, &meta);
	grid_free(&g);
	return 0;
}
