/* check_run.h - the end of every Check test program: run the suite and
 * turn its failures into the exit status automake's harness reads. */
#ifndef LIFE3D_CHECK_RUN_H
#define LIFE3D_CHECK_RUN_H

#include <check.h>
#include <stdbool.h>

/* Number of failed tests.  `fork` false runs the tests in this process
 * (CUDA state, for one, does not survive fork()). */
static inline int run_suite(Suite *s, bool fork)
{
	SRunner *sr = srunner_create(s);
	if (!fork)
		srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed;
}

#endif
