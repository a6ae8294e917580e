/* check_outfile.c - result files: a file that appears at the path while
 * the temporary is written is never replaced (without -f), the result is
 * kept under the name the message gives, -f keeps a replaced file's
 * mode, temporaries are named after their file and process, a link at
 * the path is never written through, and an output forced to one file
 * (outfile_may.only) replaces that one and nothing that took its name;
 * and messages (base/status.h) that name paths of thousands of bytes keep
 * their reason whole. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/status.h"
#include "check_run.h"

static char dir[] = "/tmp/check_outfile.XXXXXX";

static bool setup(void)
{
	return mkdtemp(dir) && chdir(dir) == 0;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(test_appeared_not_clobbered)
{
	outfile o;
	l3d_err err = {0, ""};
	unlink("r.out");
	ck_assert_int_eq(outfile_open(&o, "r.out", false, false, &err), L3D_OK);
	fputs("result", o.f);
	put("r.out", "theirs");              /* appears after the check */
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	ck_assert_str_eq(slurp("r.out"), "theirs");
	ck_assert_ptr_nonnull(strstr(err.msg, "created by someone else"));
	const char *kept = strstr(err.msg, "the result is in ");
	ck_assert_ptr_nonnull(kept);
	kept += strlen("the result is in ");
	ck_assert_str_eq(slurp(kept), "result");
	unlink(kept);
	unlink("r.out");
}
END_TEST

START_TEST(test_force_replaces_and_keeps_mode)
{
	outfile o;
	l3d_err err = {0, ""};
	put("m.out", "old");
	ck_assert_int_eq(chmod("m.out", 0600), 0);
	ck_assert_int_eq(outfile_open(&o, "m.out", true, false, &err), L3D_OK);
	fputs("new", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_OK);
	ck_assert_str_eq(slurp("m.out"), "new");
	struct stat st;
	ck_assert_int_eq(stat("m.out", &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	unlink("m.out");
}
END_TEST

START_TEST(test_new_file_committed)
{
	outfile o;
	l3d_err err = {0, ""};
	unlink("n.out");
	ck_assert_int_eq(outfile_open(&o, "n.out", false, false, &err), L3D_OK);
	fputs("fresh", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_OK);
	ck_assert_str_eq(slurp("n.out"), "fresh");
	unlink("n.out");
}
END_TEST

/* A temporary says whose it is: .NAME.life3d-PID-XXXXXX.tmp, next to NAME. */
START_TEST(test_temporary_name)
{
	outfile o;
	l3d_err err = {0, ""};
	unlink("t.out");
	ck_assert_int_eq(outfile_open(&o, "./t.out", false, false, &err), L3D_OK);
	char want[64];
	snprintf(want, sizeof want, "./.t.out.life3d-%ld-", (long)getpid());
	ck_assert_ptr_nonnull(o.tmp);
	ck_assert_int_eq(strncmp(o.tmp, want, strlen(want)), 0);
	ck_assert_int_eq(strlen(o.tmp), strlen(want) + strlen("XXXXXX.tmp"));
	ck_assert_str_eq(o.tmp + strlen(o.tmp) - 4, ".tmp");
	ck_assert_int_eq(access(o.tmp, F_OK), 0);
	outfile_abort(&o);
	ck_assert_int_eq(access("t.out", F_OK), -1);
}
END_TEST

static void check_kept(const l3d_err *err, const char *want);

/* A link at the path is never written through: outfile_check refuses it,
 * and at the open, with force or without, it is taken for one that
 * appeared after the caller's check: the result is kept beside it. */
START_TEST(test_link_refused)
{
	outfile o;
	l3d_err err = {0, ""};
	unlink("l.out");
	ck_assert_int_eq(symlink("l.target", "l.out"), 0);
	ck_assert_int_eq(outfile_check("l.out", false, false, &err), L3D_ERR_CANTCREAT);
	ck_assert_int_eq(outfile_open(&o, "l.out", false, false, &err), L3D_OK);
	fputs("result", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	const char *kept = strstr(err.msg, "the result is in ");
	ck_assert_ptr_nonnull(kept);
	kept += strlen("the result is in ");
	ck_assert_str_eq(slurp(kept), "result");
	unlink(kept);
	/* With force too: what may be replaced is a regular file, and the
	 * result is kept beside the link, not thrown away. */
	ck_assert_int_eq(outfile_check("l.out", true, false, &err), L3D_ERR_CANTCREAT);
	ck_assert_ptr_nonnull(strstr(err.msg, "symbolic link"));
	ck_assert_int_eq(outfile_open(&o, "l.out", true, false, &err), L3D_OK);
	fputs("forced", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	ck_assert(o.kept);
	check_kept(&err, "forced");
	ck_assert_int_eq(access("l.target", F_OK), -1);
	struct stat st;
	ck_assert_int_eq(lstat("l.out", &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	unlink("l.out");
}
END_TEST

static outfile_id id_of(const char *path)
{
	struct stat st;
	ck_assert_int_eq(lstat(path, &st), 0);
	return (outfile_id){st.st_dev, st.st_ino};
}

/* The message's kept result: its bytes, then removed. */
static void check_kept(const l3d_err *err, const char *want)
{
	const char *kept = strstr(err->msg, "the result is in ");
	ck_assert_ptr_nonnull(kept);
	kept += strlen("the result is in ");
	ck_assert_str_eq(slurp(kept), want);
	unlink(kept);
}

/* Forced to one file (a checkpoint's approved last one): that file is
 * replaced, and its mode kept; one that took its name between the
 * caller's check and the open, or after, is not, and the result is kept
 * beside it. */
START_TEST(test_only_the_approved_file)
{
	outfile o;
	l3d_err err = {0, ""};
	put("a.out", "approved");
	ck_assert_int_eq(chmod("a.out", 0640), 0);
	outfile_may may = {true, id_of("a.out")};
	ck_assert_int_eq(outfile_open_may(&o, "a.out", may, false, &err), L3D_OK);
	fputs("new", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_OK);
	ck_assert_str_eq(slurp("a.out"), "new");
	struct stat st;
	ck_assert_int_eq(stat("a.out", &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);

	/* taken before the open: the open records the approved file, not
	 * the one there */
	may.only = id_of("a.out");
	put("b.tmp", "theirs");
	ck_assert_int_eq(rename("b.tmp", "a.out"), 0);
	ck_assert_int_eq(outfile_open_may(&o, "a.out", may, false, &err), L3D_OK);
	fputs("result", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	ck_assert_str_eq(slurp("a.out"), "theirs");
	check_kept(&err, "result");

	/* taken after it */
	may.only = id_of("a.out");
	ck_assert_int_eq(outfile_open_may(&o, "a.out", may, false, &err), L3D_OK);
	fputs("result", o.f);
	put("c.tmp", "later");
	ck_assert_int_eq(rename("c.tmp", "a.out"), 0);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	ck_assert_str_eq(slurp("a.out"), "later");
	check_kept(&err, "result");

	/* gone: the result takes the free name */
	ck_assert_int_eq(unlink("a.out"), 0);
	ck_assert_int_eq(outfile_open_may(&o, "a.out", may, false, &err), L3D_OK);
	fputs("alone", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_OK);
	ck_assert_str_eq(slurp("a.out"), "alone");
	unlink("a.out");
}
END_TEST

/* Forced to one file, a link or FIFO that took its name is not written
 * through or into: the result is kept beside it. */
START_TEST(test_only_not_a_link_or_fifo)
{
	outfile o;
	l3d_err err = {0, ""};
	put("d.out", "approved");
	outfile_may may = {true, id_of("d.out")};
	ck_assert_int_eq(rename("d.out", "d.old"), 0);   /* its inode kept */
	ck_assert_int_eq(symlink("d.target", "d.out"), 0);
	ck_assert_int_eq(outfile_open_may(&o, "d.out", may, false, &err), L3D_OK);
	fputs("result", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	check_kept(&err, "result");
	ck_assert_int_eq(access("d.target", F_OK), -1);
	ck_assert_int_eq(unlink("d.out"), 0);
	ck_assert_int_eq(mkfifo("d.out", 0600), 0);
	ck_assert_int_eq(outfile_open_may(&o, "d.out", may, false, &err), L3D_OK);
	ck_assert_ptr_nonnull(o.tmp);           /* not opened in place */
	fputs("result", o.f);
	ck_assert_int_eq(outfile_commit(&o, &err), L3D_ERR_CANTCREAT);
	check_kept(&err, "result");
	struct stat st;
	ck_assert_int_eq(lstat("d.out", &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_str_eq(slurp("d.old"), "approved");
	unlink("d.out");
	unlink("d.old");
}
END_TEST

/* A path of about 4000 bytes: directories, then `last`. */
static char *long_path(const char *last)
{
	static char paths[3][4200];
	static int next;
	char *p = paths[next++ % 3];
	p[0] = '\0';
	for (int i = 0; strlen(p) < 4000; i++)
		snprintf(p + strlen(p), sizeof paths[0] - strlen(p), "/directory-%d", i);
	snprintf(p + strlen(p), sizeof paths[0] - strlen(p), "/%s", last);
	return p;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);
	return n >= k && strcmp(s + n - k, end) == 0;
}

/* Messages of long paths are cut in the paths, never in the reason that
 * the format writes between and after them. */
START_TEST(test_long_paths_keep_the_reason)
{
	l3d_err err = {0, ""};
	char *path = long_path("result.l3d"), *dir = long_path("out");
	ck_assert_int_eq(l3d_fail(&err, L3D_ERR_CANTCREAT,
				  "%s: name too long: its temporary file needs %zu characters "
				  "more (%ld at most in '%s')", path, (size_t)23, 255L, dir),
			 L3D_ERR_CANTCREAT);
	ck_assert_uint_lt(strlen(err.msg), L3D_MSG_CUT);
	ck_assert_msg(strstr(err.msg, "result.l3d: name too long: its temporary file needs "
			     "23 characters more (255 at most in '/directory-0/"), "%s", err.msg);
	ck_assert_msg(ends_with(err.msg, "/out')") && !strncmp(err.msg, "/directory-0/", 13),
		      "%s", err.msg);
	char *tmp = long_path(".result.l3d.tmp.1234.0");
	l3d_fail(&err, L3D_ERR_CANTCREAT,
		 "%s: created by someone else while life3d wrote it; not "
		 "overwritten%s; the result is in %s", path, " (use -f to overwrite)", tmp);
	ck_assert_msg(strstr(err.msg, "result.l3d: created by someone else while life3d "
			     "wrote it; not overwritten (use -f to overwrite); the result is in "),
		      "%s", err.msg);
	ck_assert_msg(ends_with(err.msg, "/.result.l3d.tmp.1234.0"), "%s", err.msg);
	l3d_fail(&err, L3D_ERR_USAGE, "%s and %.*s are the same file as %s (%d)", path,
		 4100, dir, tmp, -7);
	ck_assert_msg(strstr(err.msg, "result.l3d and /directory-0/") &&
		      strstr(err.msg, "/out are the same file as /directory-0/") &&
		      ends_with(err.msg, "/.result.l3d.tmp.1234.0 (-7)"), "%s", err.msg);
	ck_assert_uint_lt(strlen(err.msg), L3D_MSG_CUT);
	/* a message that says more of another keeps the other whole: its
	 * reason is in its middle, where a cut would fall */
	l3d_fail(&err, L3D_ERR_CANTCREAT,
		 "%s: created by someone else while life3d wrote it; not "
		 "overwritten%s; the result is in %s", path, " (use -f to overwrite)", tmp);
	char first[sizeof err.msg];
	snprintf(first, sizeof first, "%s", err.msg);
	char *ckpt = long_path("result.l3d.ckpt.l3d");
	ck_assert_int_eq(l3d_fail_keeping(&err, L3D_ERR_IO, err.msg, "%s; generation %d is "
					  "kept in the checkpoint %s", err.msg, 7, ckpt),
			 L3D_ERR_IO);
	ck_assert_int_eq(err.code, L3D_ERR_IO);
	ck_assert_msg(!strncmp(err.msg, first, strlen(first)) &&
		      strstr(err.msg, "; generation 7 is kept in the checkpoint /directory-0/") &&
		      ends_with(err.msg, "/result.l3d.ckpt.l3d"), "%s", err.msg);
	ck_assert_uint_lt(strlen(err.msg), sizeof err.msg);
	/* a short one is as l3d_fail writes it */
	l3d_fail(&err, L3D_ERR_DATA, "%s: bad", "in");
	l3d_fail_keeping(&err, L3D_ERR_DATA, err.msg, "%s (line %d of %s)", err.msg, 3, "x\n");
	ck_assert_str_eq(err.msg, "in: bad (line 3 of x\\n)");
	/* short ones are as printf writes them, control bytes escaped */
	l3d_fail(&err, L3D_ERR_DATA, "%s:%llu: %-4s|%5.1f|%c|%%", "a\nb\x1b", 12ULL, "x", 2.25, 'q');
	ck_assert_str_eq(err.msg, "a\\nb\\x1b:12: x   |  2.2|q|%");
}
END_TEST

int main(void)
{
	if (!setup()) {
		perror("check_outfile: scratch directory");
		return 99;
	}
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("commit");
	tcase_add_test(tc, test_new_file_committed);
	tcase_add_test(tc, test_appeared_not_clobbered);
	tcase_add_test(tc, test_force_replaces_and_keeps_mode);
	tcase_add_test(tc, test_temporary_name);
	tcase_add_test(tc, test_link_refused);
	tcase_add_test(tc, test_only_the_approved_file);
	tcase_add_test(tc, test_only_not_a_link_or_fifo);
	tcase_add_test(tc, test_long_paths_keep_the_reason);
	suite_add_tcase(s, tc);
	int failed = run_suite(s, true);
	rmdir(dir);
	return failed ? 1 : 0;
}
