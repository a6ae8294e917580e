#!/bin/sh
# HPCGame compatibility: `life3d -n N -o OUT IN` on contest-layout inputs
# produces the judge's expected output byte for byte.  The inputs and the
# expected outputs come from an independent Python judge.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
judge="$SRCDIR/tests/tools/hpcgame_judge.py"

for spec in "1 1 0.5 3" "2 2 0.5 3" "5 3 0.3 4" "12 4 0.25 5" "17 5 0.4 3"; do
	set -- $spec
	m=$1 seed=$2 dens=$3 n=$4
	python3 "$judge" make "$m" "$seed" "$dens" "in$m.bin" || fail "judge make $m"
	python3 "$judge" step "$n" "in$m.bin" "want$m.bin" || fail "judge step $m"
	"$LIFE3D" -q -n "$n" -o "out$m.bin" "in$m.bin" && ok || fail "life3d M=$m"
	expect_same "want$m.bin" "out$m.bin" "HPCGame M=$m N=$n"
done
# The output's T is the input's T plus the steps.
"$LIFE3D" -q -n 2 -o again.bin out12.bin || fail "second run"
t=$(od -An -t u8 -j 8 -N 8 again.bin | tr -d ' ')
[ "$t" = 7 ] && ok || fail "T after 5 + 2 steps is $t"
finish
