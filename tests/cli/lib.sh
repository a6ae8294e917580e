# lib.sh - shared by the shell tests: a scratch directory and assertions.
# Each test sources it, runs cases and ends with `finish`.  A failing
# assertion prints what differed and the test exits 1 at the end.
set -u
: "${LIFE3D:?run through make check}"
: "${TOOLS:?run through make check}"
: "${SRCDIR:?run through make check}"
name=$(basename "$0" .sh)
T="${LIFE3D_TEST_TMP:-/tmp}/$name"
rm -rf "$T" && mkdir -p "$T" || exit 99
failures=0
cases=0

# LIFE3D_VALGRIND=1 runs every life3d command under valgrind memcheck; any
# error or leak makes the command exit 99, which no test expects.  Valgrind
# does not decode AVX-512, so the CPU engine is held to its AVX2 path
# unless a case names another (or a bad one, to see it refused).
# Reports name the function and line but not the inlined frames within:
# reading those for the kernels' instances was half of each run's time.
if [ -n "${LIFE3D_VALGRIND:-}" ]; then
	cat >"$T/.life3d-vg" <<VG
#!/bin/sh
case "\${LIFE3D_SIMD:-auto}" in [Aa][Uu][Tt][Oo]|[Aa][Vv][Xx]512) LIFE3D_SIMD=avx2 ;; esac
export LIFE3D_SIMD
exec valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --read-inline-info=no "$LIFE3D" "\$@"
VG
	chmod +x "$T/.life3d-vg"
	LIFE3D="$T/.life3d-vg"
fi

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { cases=$((cases + 1)); }

# expect_exit CODE DESCRIPTION -- COMMAND...: run, check the exit status,
# keep stderr in $T/err for further checks.
expect_exit() {
	want=$1; what=$2; shift 3
	"$@" >"$T/out" 2>"$T/err" </dev/null
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$what: exit $got, expected $want; stderr: $(head -c 300 "$T/err")"
	else
		ok
	fi
}

# expect_err_line PATTERN DESCRIPTION: stderr of the last command is exactly
# one line and matches the grep pattern.
expect_err_line() {
	lines=$(wc -l <"$T/err")
	if [ "$lines" -ne 1 ] || ! grep -q -- "$1" "$T/err"; then
		fail "$2: expected one line matching '$1', got: $(head -c 300 "$T/err")"
	else
		ok
	fi
}

expect_same() {   # FILE1 FILE2 DESCRIPTION
	if cmp -s "$1" "$2"; then ok; else fail "$3: $1 and $2 differ"; fi
}

expect_absent() { # FILE DESCRIPTION
	if [ -e "$1" ]; then fail "$2: $1 was left behind"; else ok; fi
}

# leapt FILE DESCRIPTION: the last line of FILE, a run's -v summary, says
# that almost no tile was stepped (under a millionth of a percent): the
# steps were leapt, not computed.  What shows a leap, where a clock would
# only show a fast machine.
leapt() {
	share=$(sed -n 's/.*, \([0-9.e+-]*\)% of tiles stepped$/\1/p' "$1" | tail -n 1)
	if [ -n "$share" ] && awk -v s="$share" 'BEGIN { exit !(s < 1e-6) }'; then ok
	else fail "$2: not leapt: $(tail -n 1 "$1")"; fi
}

# log_data LOG: a population log without the comment lines at its top.
log_data() { grep -v '^#' "$1"; }

finish() {
	echo "$name: $cases checks passed, $failures failed"
	[ "$failures" -eq 0 ]
	exit $?
}
