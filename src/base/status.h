/* status.h - exit codes and the error record every module fills in.
 *
 * Library code never prints and never exits: it returns one of these codes
 * and leaves a one-line message in an l3d_err.  Only main.c turns that into
 * a line on stderr and an exit status.  The numbers follow sysexits(3) so
 * shell scripts and batch systems can tell the classes apart; they are
 * documented in life3d(1) and must never change. */
#ifndef LIFE3D_BASE_STATUS_H
#define LIFE3D_BASE_STATUS_H

#include <stddef.h>

enum l3d_status {
	L3D_OK = 0,
	L3D_ERR_RUNTIME = 1,        /* out of memory, GPU failure, internal error */
	L3D_ERR_USAGE = 64,         /* bad option or option value */
	L3D_ERR_DATA = 65,          /* malformed or unsupported input data */
	L3D_ERR_NOINPUT = 66,       /* input file missing or unreadable */
	L3D_ERR_UNAVAILABLE = 69,   /* requested engine not built in or no GPU */
	L3D_ERR_CANTCREAT = 73,     /* output exists (no -f) or is a terminal */
	L3D_ERR_STOPPED = 75,       /* --max-time reached; resume from the checkpoint */
	L3D_ERR_IO = 74,            /* read or write error, disk full */
	L3D_ERR_CONFIG = 78,        /* bad configuration file */
	L3D_ERR_INTERRUPTED = 130   /* stopped by SIGINT or SIGTERM */
};

/* l3d_fail cuts a message to L3D_MSG_CUT bytes (its '\0' included); the
 * rest of msg[] is room for what l3d_fail_keeping adds around it. */
#define L3D_MSG_CUT 512

typedef struct l3d_err {
	int code;
	char msg[2 * L3D_MSG_CUT];
} l3d_err;

/* Record an error (printf-style) and return its code, so callers can write
 * `return l3d_fail(err, L3D_ERR_DATA, "%s: truncated header", name);`.
 * Control bytes in the result are escaped (\n, \x1b), so a message is
 * always one line.  A message longer than L3D_MSG_CUT has its strings (the %s
 * arguments: paths, rules, input text) cut in their middle to "...": each
 * one longer than a bound is cut to it, the bound the highest at which the
 * message fits (at least 24 bytes), so that the reason,
 * written by the format, stays whole however long the paths in it.  Only
 * a message whose own text and numbers are too long loses its end ("...").
 * No memory is taken.  A NULL err is allowed and records nothing. */
int l3d_fail(l3d_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same for a message that quotes another whole: the %s argument that
 * is the pointer `whole` (another error's message, err->msg itself
 * allowed) is never cut, the other strings are cut to fit msg[] around
 * it.  Messages that say more of an error (where the result was kept)
 * are made so: the reason in the middle of a message would be cut. */
int l3d_fail_keeping(l3d_err *err, int code, const char *whole, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Overflow-checked size arithmetic: return 0 on success, -1 on overflow. */
int l3d_mul_size(size_t a, size_t b, size_t *out);

#endif
