/* replay.c - run a fuzz target over saved inputs, without libFuzzer.
 *
 *   replay_<target> [FILE|DIR]...
 *
 * With no argument it replays $SRCDIR/tests/fuzz/corpus/<target> (the
 * seeds) and $SRCDIR/tests/fuzz/regress/<target> (inputs that once broke
 * something), so make check keeps every past finding fixed, under the
 * sanitizers when the build has them.  A failing input aborts the program,
 * and so does one that runs past REPLAY_SECONDS (a hang, which would
 * otherwise keep make check waiting for ever); the last "replay:" line
 * names it. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

/* Headers may ask for huge universes; cap memory as fuzz_common.c does
 * under ASan (which reserves terabytes of address space and must not get
 * an address-space limit). */
#define REPLAY_ADDRESS_SPACE ((rlim_t)512 << 20)

static void limit_memory(void)
{
	struct rlimit lim = { REPLAY_ADDRESS_SPACE, REPLAY_ADDRESS_SPACE };
	if (!UNDER_ASAN && setrlimit(RLIMIT_AS, &lim) != 0)
		perror("replay: setrlimit");
}

/* One input's time: scripts/fuzz gives libFuzzer -timeout=10, and the
 * margin is for slower builds and busy machines. */
#define REPLAY_SECONDS 60
#define REPLAY_TEXT(x) #x
#define REPLAY_STR(x) REPLAY_TEXT(x)

static void hung(int sig)
{
	static const char msg[] = "replay: the input above ran past "
		REPLAY_STR(REPLAY_SECONDS) " s: a hang\n";
	(void)sig;
	ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)n;
	abort();
}

static void limit_time(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = hung;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		perror("replay: sigaction");
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0, got;
	uint8_t *data = malloc(cap);
	while (data && (got = fread(data + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *grown = realloc(data, cap *= 2);
			if (!grown)
				free(data);
			data = grown;
		}
	}
	int bad = ferror(f) || !data;
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(data);
		return -1;
	}
	printf("replay: %s (%zu bytes)\n", path, len);
	fflush(stdout);
	alarm(REPLAY_SECONDS);
	LLVMFuzzerTestOneInput(data, len);
	alarm(0);
	free(data);
	return 1;
}

/* Every regular file of a directory, in name order so logs compare. */
static int replay_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	int count = 0;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode) && count >= 0) {
			int k = replay_file(path);
			count = k < 0 ? -1 : count + k;
		}
		free(names[i]);
	}
	free(names);
	return count;
}

static int replay_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return S_ISDIR(st.st_mode) ? replay_dir(path) : replay_file(path);
}

/* The saved inputs of this target; the regress directory exists only
 * once something has been found. */
static int replay_saved(void)
{
	const char *srcdir = getenv("SRCDIR");
	char corpus[4096], regress[4096];
	struct stat st;
	snprintf(corpus, sizeof corpus, "%s/tests/fuzz/corpus/%s",
		 srcdir ? srcdir : ".", fuzz_target);
	snprintf(regress, sizeof regress, "%s/tests/fuzz/regress/%s",
		 srcdir ? srcdir : ".", fuzz_target);
	int seeds = replay_dir(corpus);
	if (seeds <= 0)
		return -1;
	int found = stat(regress, &st) == 0 ? replay_dir(regress) : 0;
	return found < 0 ? -1 : seeds + found;
}

int main(int argc, char **argv)
{
	limit_memory();
	limit_time();
	int total = 0;
	if (argc < 2)
		total = replay_saved();
	for (int i = 1; i < argc && total >= 0; i++) {
		int k = replay_path(argv[i]);
		total = k < 0 ? -1 : total + k;
	}
	if (total < 0)
		return 99;           /* a hard error for the test harness */
	printf("replay: fuzz_%s ran %d inputs\n", fuzz_target, total);
	return 0;
}
