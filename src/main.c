/* main.c - life3d: the only place that prints errors and exits.
 *
 * Parse the command line, load the configuration file it names, run.  Every
 * failure is one line on stderr, "life3d: <file>: <problem>", and an exit
 * status from status.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/status.h"
#include "census/command.h"
#include "cli/cli.h"
#include "cli/conffile.h"
#include "cli/options.h"
#include "engine/choose.h"
#include "mpi/comm.h"
#include "run/run.h"

/* One line on stderr from a signal handler: write(2) alone is safe there.
 * Across ranks rank 0 alone speaks, as for every message: a rank that
 * stops at once makes mpirun stop the others, rank 0 among them. */
static void say(const char *what, int signo, const char *end)
{
	if (comm_rank() != 0)
		return;
	char line[160] = "life3d: ";
	size_t n = strlen(line), k = strlen(what);
	memcpy(line + n, what, k);
	n += k;
	char digits[4] = {(char)('0' + signo / 10 % 10), (char)('0' + signo % 10)};
	memcpy(line + n, signo >= 10 ? digits : digits + 1, signo >= 10 ? 2 : 1);
	n += signo >= 10 ? 2 : 1;
	k = strlen(end);
	memcpy(line + n, end, k);
	n += k;
	(void)!write(STDERR_FILENO, line, n);
}

/* Set by the first signal while a census runs. */
static volatile sig_atomic_t census_stop, *census_stop_asked;

/* The run's status plus one once its last word is said: a signal after
 * that (mpirun stops the other ranks as soon as one returns non-zero,
 * while rank 0 is still leaving MPI) ends the process with that status
 * and adds no second line. */
static volatile sig_atomic_t said_status;

static void on_signal(int signo)
{
	/* A second signal means "now": drop temporaries and go, without
	 * touching any finished file.  So does the first one while the
	 * input is still being read: there is no work to save yet. */
	static volatile sig_atomic_t seen;
	int saved = errno;
	if (said_status)
		_exit(said_status - 1);
	if (seen) {
		outfile_abort_all();
		say("stopped at once by a second signal ", signo,
		    run_result_written()
			    ? "; the result is written; finished files are kept, temporary ones removed\n"
			    : "; no result; finished files are kept, temporary ones removed\n");
		_exit(L3D_ERR_INTERRUPTED);
	}
	seen = 1;
	/* A census ends the soups under way and writes the haul of those
	 * done. */
	if (census_stop_asked) {
		*census_stop_asked = 1;
		errno = saved;
		return;
	}
	/* Waiting for a FIFO's reader, which may never come, is not work to
	 * finish: stop as a second signal does. */
	if (outfile_waiting_for_reader()) {
		outfile_abort_all();
		say("stopped at once by signal ", signo,
		    run_result_written()
			    ? " while waiting for a FIFO's reader; the result is written\n"
			    : " while waiting for a FIFO's reader; no result\n");
		_exit(L3D_ERR_INTERRUPTED);
	}
	if (run_request_stop(signo)) {
		outfile_abort_all();
		say("interrupted by signal ", signo,
		    " while reading the input; nothing written\n");
		_exit(L3D_ERR_INTERRUPTED);
	}
	errno = saved;
}

static void on_usr1(int signo)
{
	(void)signo;
	run_request_checkpoint();
}

/* A second SIGXCPU comes every second past a soft CPU limit: only the
 * first one asks for the stop. */
static void on_xcpu(int signo)
{
	static volatile sig_atomic_t seen;
	if (!seen) {
		seen = 1;
		on_signal(signo);
	}
}

/* A SIGHUP that the caller set to be ignored (nohup) stays ignored.
 * (SIGINT is caught in any case: a shell without job control ignores it
 * for its background jobs, and kill -INT must still stop them.) */
static void catch_unless_ignored(int signo, const struct sigaction *sa)
{
	struct sigaction old;
	if (sigaction(signo, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	sigaction(signo, sa, NULL);
}

/* SA_RESTART: a signal that only sets a flag must not make a read from a
 * pipe or a write to a slow reader fail with EINTR; the run looks at the
 * flags between steps.  (The opening of a FIFO is never left waiting on a
 * flag: on_signal stops the run there.) */
static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaddset(&sa.sa_mask, SIGXCPU);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Batch systems and a closing terminal send SIGHUP: stop as cleanly. */
	catch_unless_ignored(SIGHUP, &sa);
	/* A CPU time limit (ulimit -t, a batch system's) warns with SIGXCPU
	 * before it kills: stop as cleanly, with a checkpoint. */
	sa.sa_handler = on_xcpu;
	sigaction(SIGXCPU, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	/* Past a file size limit, fail the write (EFBIG) and report it,
	 * instead of being killed with a half-written temporary. */
	signal(SIGXFSZ, SIG_IGN);
	/* A reader that went away (| head): the write fails (EPIPE) and is
	 * reported, and the temporaries are removed, instead of a kill that
	 * leaves them behind. */
	signal(SIGPIPE, SIG_IGN);
}

/* A standard descriptor the caller closed (2>&-) would be taken by the
 * next file opened, a log or a checkpoint, and messages or the result
 * would go into that file.  Each is held open on /dev/null instead, and a
 * closed standard output is refused as an output (outfile.h). */
static void hold_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		int nul = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
		if (nul >= 0 && nul != fd) {
			dup2(nul, fd);
			close(nul);
		}
		if (fd == STDOUT_FILENO)
			outfile_mark_stdout_closed();
	}
}

static void version(void)
{
	char engines[256], gpus[2048];
	engine_describe_builds(engines, sizeof engines, gpus, sizeof gpus);
	printf("life3d %s\n", PACKAGE_VERSION);
	printf("engines: %s\n", engines);
#if defined(HAVE_MPI) && defined(HAVE_NCCL)
	printf("mpi: built in, with GPU-to-GPU halos through NCCL (libnccl.so.2, when installed)\n");
#elif defined(HAVE_MPI)
	printf("mpi: built in\n");
#else
	printf("mpi: not built in\n");
#endif
	printf("gpus: %s\n", gpus);
}

/* In a distributed run every rank ends with the same status and message;
 * rank 0 alone says it. */
static int finish(int rc, const l3d_err *err)
{
	if (rc != L3D_OK && comm_rank() == 0)
		fprintf(stderr, "life3d: %s\n", err->msg);
	/* A full disk behind stdout must not pass for success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == L3D_OK)
			fprintf(stderr, "life3d: (stdout): write error\n");
		rc = rc ? rc : L3D_ERR_IO;
	}
	said_status = rc + 1;
	comm_finalize();
	/* Everything is written; a GPU set-up the run did not need must not
	 * hold the exit up (or be torn down under its thread's feet). */
	if (engine_left_behind()) {
		fflush(stderr);
		_exit(rc);
	}
	return rc;
}

/* `life3d census ...`: its own command line (census/command.h). */
static int census_main(int argc, char **argv)
{
	census_args a;
	l3d_err err = {0, ""};
	int rc = census_args_parse(argc, argv, &a, &err);
	if (rc == L3D_OK && a.help && outfile_stdout_is_closed())
		rc = l3d_fail(&err, L3D_ERR_IO, "(stdout): standard output is closed");
	if (rc == L3D_OK && a.help) {
		if (comm_rank() == 0)
			census_help(stdout);
		census_args_free(&a);
		return finish(L3D_OK, &err);
	}
	census_stop_asked = &census_stop;
	install_signals();
	engine_knobs knobs;
	if (rc == L3D_OK)
		rc = engine_knobs_read(&knobs, getenv, &err);
	if (rc == L3D_OK)
		rc = census_command(&a, &knobs, &census_stop, &err);
	census_args_free(&a);
	return finish(rc, &err);
}

int main(int argc, char **argv)
{
	options o;
	l3d_err err = {0, ""};
	hold_std_fds();
	comm_init(&argc, &argv, getenv);
	if (argc > 1 && !strcmp(argv[1], "census"))
		return census_main(argc - 1, argv + 1);
	options_init(&o);
	int rc = cli_parse(argc, argv, &o, &err);
	if (rc == L3D_OK && (o.help || o.version) && outfile_stdout_is_closed())
		rc = l3d_fail(&err, L3D_ERR_IO, "(stdout): standard output is closed");
	if (rc == L3D_OK && o.help) {
		if (comm_rank() == 0)
			cli_help(stdout);
		return finish(L3D_OK, &err);
	}
	if (rc == L3D_OK && o.version) {
		if (comm_rank() == 0)
			version();
		return finish(L3D_OK, &err);
	}
	/* From here a signal ends the run with one line and status 130: a
	 * configuration file read from a FIFO may wait for ever. */
	install_signals();
	engine_knobs knobs;
	if (rc == L3D_OK)
		rc = engine_knobs_read(&knobs, getenv, &err);
	/* Several -c files are read in order; a later one wins per key. */
	for (int i = 0; rc == L3D_OK && i < o.nconfigs; i++)
		rc = conffile_load(o.configs[i], &o, &err);
	rc = comm_agree(rc, &err);
	if (rc == L3D_OK)
		rc = run(&o, &knobs, &err);
	return finish(rc, &err);
}
