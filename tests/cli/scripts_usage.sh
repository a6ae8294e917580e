#!/bin/sh
# The benchmarks in scripts/ answer as life3d does before they measure
# anything: --help prints their usage and exits 0; an unknown option, an
# option without its value, or a value they cannot use is one line on
# standard error and exit 64, with nothing on standard output.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
S="$SRCDIR/scripts"

# expect_usage_error DESCRIPTION PATTERN -- COMMAND...
expect_usage_error() {
	what=$1 pattern=$2; shift 3
	expect_exit 64 "$what" -- "$@"
	expect_err_line "$pattern" "$what: message"
	[ -s "$T/out" ] && fail "$what: wrote to standard output: $(head -c 200 "$T/out")" || ok
}

for b in bench bench_mpi bench_rules bench_skip bench_auto bench_render bench_census; do
	expect_exit 0 "$b --help" -- "$S/$b" --help
	head -n 1 "$T/out" | grep -q "^scripts/$b - " && ok ||
		fail "$b --help: first line '$(head -n 1 "$T/out")'"
	grep -q '^ *scripts/'"$b"' \[' "$T/out" && ok || fail "$b --help: no synopsis"
	expect_usage_error "$b, an unknown option" "" -- "$S/$b" --no-such-option
	expect_usage_error "$b -r without its value" "-r needs a value" -- "$S/$b" -r
done

# Values refused before anything else is looked at (the program named is
# not even there) or any universe is made.
expect_usage_error "bench_skip -p 0" "-p needs a number of ranks" -- \
	"$S/bench_skip" -b "$T/none" -p 0
expect_usage_error "bench_skip -p x" "-p needs a number of ranks" -- \
	"$S/bench_skip" -b "$T/none" -p x
expect_usage_error "bench_skip -B fast" "-B takes dense or noleap" -- \
	"$S/bench_skip" -b "$T/none" -B fast
expect_usage_error "bench_auto -r 0" "-r needs a number above 0" -- \
	"$S/bench_auto" -l "$T/none" -r 0
for w in 64 64:5 64:5: 64:x:B6/S567 abc:5:B6/S567 "128:10:B6/S567 64"; do
	expect_usage_error "bench_auto -w '$w'" "is not M:N:RULE" -- \
		"$S/bench_auto" -l "$T/none" -w "$w"
done
# A directory for the files that is not there: named before the program
# is looked for (exit 66, as for a missing program).
expect_exit 66 "bench_auto -d, no such directory" -- \
	"$S/bench_auto" -l "$T/none" -d "$T/no/such/dir"
expect_err_line "-d $T/no/such/dir: no such directory" "bench_auto -d: message"

finish
