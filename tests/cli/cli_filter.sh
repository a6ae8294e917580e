#!/bin/sh
# The filter contract: stdin/stdout, -o, -f, -, determinism, --until.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# A seeded random universe is the same bits every time.
"$LIFE3D" -q --random 9x10x11 --seed 7 --density 0.3 -n 0 -o a.l3d && ok || fail "random a"
"$LIFE3D" -q --random 9x10x11 --seed 7 --density 0.3 -n 0 -o b.l3d && ok || fail "random b"
expect_same a.l3d b.l3d "same seed"
"$LIFE3D" -q --random 9x10x11 --seed 8 --density 0.3 -n 0 -o c.l3d && ok || fail "random c"
if cmp -s a.l3d c.l3d; then fail "different seeds gave the same universe"; else ok; fi

# stdin -> stdout equals file -> file, and '-' is stdin.
"$LIFE3D" -q -n 5 -o f.l3d a.l3d && ok || fail "file to file"
"$LIFE3D" -q -n 5 <a.l3d >s.l3d && ok || fail "stdin to stdout"
"$LIFE3D" -q -n 5 - <a.l3d >d.l3d && ok || fail "dash to stdout"
"$LIFE3D" -q -n 5 -o - a.l3d >o.l3d && ok || fail "-o -"
expect_same f.l3d s.l3d "stdin->stdout vs file->file"
expect_same f.l3d d.l3d "'-' input"
expect_same f.l3d o.l3d "-o -"
cat a.l3d | "$LIFE3D" -q -n 5 | cat >p.l3d && ok || fail "pipes"
expect_same f.l3d p.l3d "through pipes"

# Stepping in two runs equals one run; --until counts generations.
"$LIFE3D" -q -n 2 -o g2.l3d a.l3d && "$LIFE3D" -q -n 3 -o g5.l3d g2.l3d && ok || fail "two runs"
expect_same f.l3d g5.l3d "2 + 3 steps"
"$LIFE3D" -q --until 5 -o u5.l3d g2.l3d && ok || fail "--until"
expect_same f.l3d u5.l3d "--until 5 from generation 2"
expect_exit 64 "--until before the input's generation" -- "$LIFE3D" -q --until 1 -o u1.l3d g2.l3d
expect_err_line "already at generation 2" "--until message"
expect_absent u1.l3d "--until error"
expect_exit 64 "--steps and --until" -- "$LIFE3D" -q -n 1 --until 3 -o x.l3d a.l3d
# -v names the log and the result once they are complete; every form of
# --max-time that --help lists is taken.
"$LIFE3D" -v -n 1 --log v.tsv -o v.rle3 a.l3d 2>v.err && ok || fail "-v run"
grep -q "^life3d: log v.tsv$" v.err && grep -q "^life3d: result v.rle3 (rle3)$" v.err &&
	ok || fail "-v does not name the log and the result: $(cat v.err)"
for d in 90 90s 15m 2h 1d 90:00 1:30:00; do
	"$LIFE3D" -q -n 1 --max-time $d -o /dev/null a.l3d && ok || fail "--max-time $d refused"
done
# A universe at the last generation there is can take no more steps.
printf '\002\0\0\0\0\0\0\0\377\377\377\377\377\377\377\377\0\0\0\0\0\0\0\0' >last.bin
"$LIFE3D" -q -n 0 -o last0.bin last.bin && ok || fail "no steps at the last generation"
expect_exit 64 "a step past the last generation" -- "$LIFE3D" -q -n 1 -o last1.bin last.bin
expect_err_line "last.bin is at generation 18446744073709551615, and generations stop at 18446744073709551615 (at most 0 more steps)" "a step past the last generation: message"
expect_absent last1.bin "a step past the last generation"

# Existing files are not overwritten without -f; -f does.
cp f.l3d keep.l3d
expect_exit 73 "existing output" -- "$LIFE3D" -q -n 1 -o keep.l3d a.l3d
expect_err_line "already exists" "existing output message"
expect_same f.l3d keep.l3d "existing output untouched"
expect_exit 0 "-f overwrites" -- "$LIFE3D" -q -f -n 1 -o keep.l3d a.l3d
if cmp -s f.l3d keep.l3d; then fail "-f did not overwrite"; else ok; fi
# Devices are written in place, no -f needed.
expect_exit 0 "/dev/null" -- "$LIFE3D" -q -n 1 -o /dev/null a.l3d

# No temporary files are left in the output directory.
if ls | grep -q '\.tmp\.'; then fail "temporary files left: $(ls | grep tmp)"; else ok; fi

# A binary universe is not written to a terminal (needs script(1)).
if command -v script >/dev/null 2>&1; then
	script -qec "$LIFE3D -q -n 1 a.l3d" /dev/null >tty.out 2>&1
	if grep -q "is a terminal" tty.out; then ok; else fail "binary to a terminal: $(head -c 200 tty.out)"; fi
	script -qec "$LIFE3D -q -n 1 --format rle3 a.l3d" /dev/null >tty.out 2>&1
	if grep -q "^3D version=1" tty.out; then ok; else fail "text to a terminal: $(head -c 200 tty.out)"; fi
	# Nor to a terminal named as a file, as the result or a checkpoint.
	script -qec "$LIFE3D -q -n 1 -o /dev/tty a.l3d; echo rc=\$?" /dev/null >tty.out 2>&1
	if grep -q "/dev/tty: is a terminal" tty.out && grep -q "rc=73" tty.out; then ok; else fail "binary to -o /dev/tty: $(head -c 200 tty.out)"; fi
	script -qec "$LIFE3D -q -n 2 --checkpoint /dev/tty --checkpoint-every 1 -o /dev/null a.l3d; echo rc=\$?" /dev/null >tty.out 2>&1
	if grep -q "/dev/tty: is a terminal" tty.out && grep -q "rc=73" tty.out; then ok; else fail "checkpoint to /dev/tty: $(head -c 200 tty.out)"; fi
	script -qec "$LIFE3D -q -f -n 1 -o /dev/tty a.l3d; echo rc=\$?" /dev/null >tty.out 2>&1
	if grep -q "rc=0" tty.out; then ok; else fail "-f -o /dev/tty: $(head -c 200 tty.out)"; fi
	# Progress on a terminal: no ETA until a few steps are timed (start-up
	# is not extrapolated as steps).
	script -qec "$LIFE3D -n 3 -o progress.l3d a.l3d" /dev/null >tty.out 2>&1
	if grep -q "generation 1/3 (33%)" tty.out && ! grep -q "ETA" tty.out; then ok; else
		fail "progress of 3 steps: $(tr '\r' '\n' <tty.out | head -c 300)"; fi
fi

# The summary line is on stderr only, and -q silences it.
"$LIFE3D" -n 3 -o sum.l3d a.l3d 2>sum.err >sum.out && ok || fail "summary run"
if grep -q "3 steps to generation 3, population [0-9]*, rule B6/S567, .* cell updates/s.*engine" sum.err && [ ! -s sum.out ]; then ok; else fail "summary: $(cat sum.err)"; fi
"$LIFE3D" -q -n 3 -o sum2.l3d a.l3d 2>sumq.err
if [ -s sumq.err ]; then fail "-q printed: $(cat sumq.err)"; else ok; fi

# --help and --version succeed and go to stdout.
"$LIFE3D" --help >help.out 2>&1 && grep -q "^Usage: life3d" help.out && ok || fail "--help"
# within 80 columns, each option's text continued under itself
awk 'length > 80 { bad = 1; print } END { exit bad }' help.out >wide.out && ok ||
	fail "--help lines over 80 columns: $(head -c 300 wide.out)"
grep -q "^  -r, --rule RULE  *rule as B/S" help.out && grep -q "^                               (3D5..7/6)" help.out &&
	ok || fail "--help's -r not continued under its text: $(grep -A2 -e '--rule' help.out)"
"$LIFE3D" --version >ver.out 2>&1 && grep -q "^life3d [0-9]" ver.out && grep -q "^engines: cpu" ver.out && ok || fail "--version"
finish
