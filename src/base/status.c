/* status.c - the error record.
 *
 * A message is formatted here piece by piece, each piece escaped as it is
 * put, straight into the record: no memory is taken, so a message of
 * running out of memory is recorded whole.  A message too long for the
 * record is formatted again with its strings (%s: the paths, rules and
 * input text it quotes) cut in their middle, the cut lowered until the
 * message fits, so that the reason, which the format writes, stays whole. */
#include "status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Where pieces go: buf (NULL: nowhere, the length alone is counted). */
typedef struct sink {
	char *buf;
	size_t size;             /* of buf, its final '\0' included */
	size_t len;              /* the message's length so far, escaped */
	size_t at;               /* the bytes of it in buf */
	size_t cut;              /* strings longer than this are cut */
	const char *whole;       /* the %s argument that is never cut ... */
	const char *shown;       /* ... and what is put for it (a copy) */
} sink;

/* Put byte c, written as \n, \t or \xHH when it is a control byte:
 * messages quote file names and input text, and must stay one line on a
 * terminal whatever those contain.  An escape that would not fit whole is
 * not begun. */
static void put_byte(sink *s, unsigned char c)
{
	char esc[5];
	size_t n = 1;
	esc[0] = (char)c;
	if (c == '\n' || c == '\t')
		n = (size_t)snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : 't');
	else if (c < 0x20 || c == 0x7f)
		n = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
	if (s->buf && s->len + n < s->size) {
		memcpy(s->buf + s->len, esc, n);
		s->at = s->len + n;
	}
	s->len += n;
}

static void put_bytes(sink *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_byte(s, (unsigned char)p[i]);
}

/* One conversion of a printf format: its flags, width and precision (the
 * stars read), its length modifier and conversion. */
typedef struct spec {
	char flags[8];
	int width, prec;         /* -1: none */
	char mod[3];
	char conv;
} spec;

static int star_or_digits(const char **f, va_list *ap)
{
	if (**f == '*') {
		(*f)++;
		return va_arg(*ap, int);
	}
	int v = 0;
	for (; **f >= '0' && **f <= '9'; (*f)++)
		v = v * 10 + (**f - '0');
	return v;
}

/* Read the conversion at *f (just past its '%') and move past it. */
static void read_spec(const char **f, va_list *ap, spec *sp)
{
	size_t nf = 0;
	*sp = (spec){.width = -1, .prec = -1};
	for (; **f && strchr("-+ #0", **f) && nf + 1 < sizeof sp->flags; (*f)++)
		sp->flags[nf++] = **f;
	if (**f == '*' || (**f >= '0' && **f <= '9')) {
		int w = star_or_digits(f, ap);
		if (w < 0 && nf + 1 < sizeof sp->flags)
			sp->flags[nf++] = '-';   /* a negative star: left-justified */
		sp->width = w < 0 ? -w : w;
	}
	if (**f == '.') {
		(*f)++;
		sp->prec = star_or_digits(f, ap);
		sp->prec = sp->prec < 0 ? -1 : sp->prec;
	}
	for (size_t nm = 0; **f && strchr("hlzjtL", **f) && nm < 2; (*f)++)
		sp->mod[nm++] = **f;
	sp->conv = **f ? *(*f)++ : '\0';
}

/* The head of a string cut to `cut` bytes: a third, ending before a UTF-8
 * continuation byte so that no character is split. */
static size_t head_of(const char *p, size_t cut)
{
	size_t head = cut / 3;
	while (head > 0 && ((unsigned char)p[head] & 0xc0) == 0x80)
		head--;
	return head;
}

/* Put string p of n bytes, its middle cut to "..." when it is longer than
 * the sink's cut, padded to the spec's width. */
static void put_string(sink *s, const spec *sp, const char *p, size_t n)
{
	static const char gap[] = "...";
	size_t head = n, tail = n;
	if (n > s->cut) {
		head = head_of(p, s->cut);
		tail = n - (s->cut - head - (sizeof gap - 1));
		while (tail < n && ((unsigned char)p[tail] & 0xc0) == 0x80)
			tail++;
	}
	size_t shown = head + (n - tail) + (n > s->cut ? sizeof gap - 1 : 0);
	size_t pad = sp->width > 0 && (size_t)sp->width > shown ? (size_t)sp->width - shown : 0;
	bool left = strchr(sp->flags, '-') != NULL;
	for (size_t i = 0; !left && i < pad; i++)
		put_byte(s, ' ');
	put_bytes(s, p, head);
	if (n > s->cut)
		put_bytes(s, gap, sizeof gap - 1);
	put_bytes(s, p + tail, n - tail);
	for (size_t i = 0; left && i < pad; i++)
		put_byte(s, ' ');
}

/* The spec as a format for one value of type `mod` (no stars). */
static void spec_format(char *out, size_t size, const spec *sp, const char *mod)
{
	char width[16] = "", prec[16] = "";
	if (sp->width >= 0)
		snprintf(width, sizeof width, "%d", sp->width);
	if (sp->prec >= 0)
		snprintf(prec, sizeof prec, ".%d", sp->prec);
	snprintf(out, size, "%%%s%s%s%s%c", sp->flags, width, prec, mod, sp->conv);
}

/* An integer conversion's value, read as its length modifier says. */
static long long signed_arg(const char *mod, va_list *ap)
{
	if (!strcmp(mod, "ll") || !strcmp(mod, "j"))
		return va_arg(*ap, long long);
	if (!strcmp(mod, "l") || !strcmp(mod, "z") || !strcmp(mod, "t"))
		return va_arg(*ap, long);
	long long v = va_arg(*ap, int);
	return !strcmp(mod, "hh") ? (signed char)v : !strcmp(mod, "h") ? (short)v : v;
}

static unsigned long long unsigned_arg(const char *mod, va_list *ap)
{
	if (!strcmp(mod, "ll") || !strcmp(mod, "j"))
		return va_arg(*ap, unsigned long long);
	if (!strcmp(mod, "l") || !strcmp(mod, "z") || !strcmp(mod, "t"))
		return va_arg(*ap, unsigned long);
	unsigned long long v = va_arg(*ap, unsigned);
	return !strcmp(mod, "hh") ? (unsigned char)v : !strcmp(mod, "h") ? (unsigned short)v : v;
}

/* Put a conversion other than %s and %%: a number, a character or a
 * pointer, never longer than num[] (a %f of 1e300 loses its end). */
static void put_value(sink *s, const spec *sp, va_list *ap)
{
	char fmt[64], num[400];
	int n = 0;
	spec_format(fmt, sizeof fmt, sp, strchr("di", sp->conv) ? "ll"
				       : strchr("ouxX", sp->conv) ? "ll"
				       : !strcmp(sp->mod, "L") ? "L" : "");
	if (strchr("di", sp->conv))
		n = snprintf(num, sizeof num, fmt, signed_arg(sp->mod, ap));
	else if (strchr("ouxX", sp->conv))
		n = snprintf(num, sizeof num, fmt, unsigned_arg(sp->mod, ap));
	else if (strchr("fFeEgGaA", sp->conv) && !strcmp(sp->mod, "L"))
		n = snprintf(num, sizeof num, fmt, va_arg(*ap, long double));
	else if (strchr("fFeEgGaA", sp->conv))
		n = snprintf(num, sizeof num, fmt, va_arg(*ap, double));
	else if (sp->conv == 'c')
		n = snprintf(num, sizeof num, fmt, va_arg(*ap, int));
	else if (sp->conv == 'p')
		n = snprintf(num, sizeof num, fmt, va_arg(*ap, void *));
	if (n > 0)
		put_bytes(s, num, (size_t)n < sizeof num ? (size_t)n : sizeof num - 1);
}

/* Put the conversion at *f (just past its '%'). */
static void put_conversion(sink *s, const char **f, va_list *ap)
{
	spec sp;
	read_spec(f, ap, &sp);
	if (sp.conv == 's') {
		const char *p = va_arg(*ap, const char *);
		if (p && p == s->whole) {
			put_bytes(s, s->shown, strlen(s->shown));
		} else {
			p = p ? p : "(null)";
			put_string(s, &sp, p, sp.prec >= 0 ? strnlen(p, (size_t)sp.prec) : strlen(p));
		}
	} else if (sp.conv == '%') {
		put_byte(s, '%');
	} else if (sp.conv == 'n') {
		(void)va_arg(*ap, int *);    /* nothing to store: read past it */
	} else if (sp.conv && strchr("diouxXfFeEgGaAcp", sp.conv)) {
		put_value(s, &sp, ap);
	}
}

/* The whole message into s; its length, escaped. */
static size_t put_message(sink *s, const char *fmt, va_list ap)
{
	va_list args;
	va_copy(args, ap);
	for (const char *f = fmt; *f;) {
		size_t lit = strcspn(f, "%");
		put_bytes(s, f, lit);
		f += lit;
		if (*f == '%') {
			f++;
			put_conversion(s, &f, &args);
		}
	}
	va_end(args);
	if (s->buf)
		s->buf[s->at] = '\0';
	return s->len;
}

static size_t measure(const sink *like, const char *fmt, va_list ap, size_t cut)
{
	sink s = {.cut = cut, .whole = like->whole, .shown = like->shown};
	return put_message(&s, fmt, ap);
}

/* The longest cut at which the message fits `size`, found by halving
 * [CUT_MIN, whole length]; CUT_MIN where even that does not fit. */
#define CUT_MIN 24
static size_t fitting_cut(const sink *like, const char *fmt, va_list ap, size_t size)
{
	size_t whole = measure(like, fmt, ap, SIZE_MAX);
	if (whole < size)
		return SIZE_MAX;
	size_t lo = CUT_MIN, hi = whole;
	while (lo + 1 < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (measure(like, fmt, ap, mid) < size)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A message that fits nowhere (its format's own text too long) keeps its
 * start and ends in "...". */
static void record(sink s, const char *fmt, va_list ap)
{
	s.cut = fitting_cut(&s, fmt, ap, s.size);
	if (put_message(&s, fmt, ap) < s.size)
		return;
	s.size -= 3;
	s.len = s.at = 0;
	put_message(&s, fmt, ap);
	strcat(s.buf, "...");
}

int l3d_fail(l3d_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		record((sink){.buf = err->msg, .size = L3D_MSG_CUT}, fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int l3d_fail_keeping(l3d_err *err, int code, const char *whole, const char *fmt, ...)
{
	if (err) {
		char shown[sizeof err->msg];
		snprintf(shown, sizeof shown, "%s", whole);
		va_list ap;
		va_start(ap, fmt);
		record((sink){.buf = err->msg, .size = sizeof err->msg, .whole = whole,
			      .shown = shown}, fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int l3d_mul_size(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a)
		return -1;
	*out = a * b;
	return 0;
}
