#!/bin/sh
# The population log matches the reference stepper's counts, and the final
# universe matches the reference's, for several rules and odd sizes.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

for spec in "B6/S567 13x7x20 0.3 12" "B5/S45 9x9x9 0.2 10" "3D4,7/5,8 6x11x5 0.4 8" "5655 1x3x70 0.5 6"; do
	set -- $spec
	rule=$1 size=$2 dens=$3 n=$4
	tag=$(echo "$rule-$size" | tr -c 'A-Za-z0-9-' _)
	"$LIFE3D" -q --random "$size" --density "$dens" --seed 3 -n 0 -o "$tag.in.l3d" || fail "make $tag"
	"$TOOLS/refstep" "$rule" "$n" "$tag.in.l3d" "$tag.ref.l3d" "$tag.ref.tsv" || fail "refstep $tag"
	"$LIFE3D" -q -r "$rule" -n "$n" --log "$tag.tsv" -o "$tag.out.l3d" "$tag.in.l3d" && ok || fail "run $tag"
	log_data "$tag.tsv" >"$tag.data.tsv"
	expect_same "$tag.ref.tsv" "$tag.data.tsv" "log $tag"
	expect_same "$tag.ref.l3d" "$tag.out.l3d" "universe $tag"
	# Every third step: the same lines, filtered.
	"$LIFE3D" -q -r "$rule" -n "$n" --log-every 3 --log "$tag.3.tsv" -o /dev/null "$tag.in.l3d" || fail "run3 $tag"
	awk -F'\t' 'NR == 1 || $1 % 3 == 0' "$tag.ref.tsv" >"$tag.ref3.tsv"
	log_data "$tag.3.tsv" >"$tag.3.data.tsv"
	expect_same "$tag.ref3.tsv" "$tag.3.data.tsv" "log every 3 $tag"
done

# --log - writes to stdout (with the universe in a file).
"$LIFE3D" -q -r "$rule" -n 2 --log - -o o.l3d "$tag.in.l3d" >stdout.tsv && ok || fail "--log -"
head -n 4 "$tag.ref.tsv" >ref2.tsv
log_data stdout.tsv >stdout.data.tsv
expect_same ref2.tsv stdout.data.tsv "--log - content"
# The comment lines at the top say what the run was.
{
	echo "# life3d $("$LIFE3D" --version | sed -n '1s/^life3d //p') population log"
	echo "# rule: B5/S56 (Golly: 3D5,6/5)"
	echo "# universe: 1x3x70"
	echo "# start: $tag.in.l3d (l3d), generation 0"
	echo "step	population	births	deaths"
} >head.want
head -n 5 stdout.tsv >head.got
expect_same head.want head.got "the log's comment lines"
"$LIFE3D" -q --random 5x6x7 --seed 9 --density 0.5 --random-shape box -n 1 --log r.tsv -o /dev/null || fail "random log"
grep -qx '# start: --random 5x6x7, seed 9, density 0.5, box' r.tsv && ok ||
	fail "a random start in the log: $(grep '^# start' r.tsv)"
printf '3D version=1 size=4\nx=1 y=1 z=1 rule=B6/S567\no!\n' >"$(printf 'bad\nname.rle3')"
"$LIFE3D" -q -n 1 --log bad.tsv -o /dev/null "$(printf 'bad\nname.rle3')" || fail "a name with a newline"
[ "$(grep -c '^# start: bad?name.rle3 (rle3), generation 0$' bad.tsv)" = 1 ] && ok ||
	fail "a newline in a name broke the log's head: $(head -n 6 bad.tsv)"
expect_exit 64 "--log - with the universe on stdout" -- "$LIFE3D" -q -n 2 --log - "$tag.in.l3d"

# A reader that goes away: a write error (74), no temporary file left.
mkdir pipe && cd pipe || exit 99
(LIFE3D_SKIP=0 "$LIFE3D" -q --random 24 -r B4/S4 -n 100000 --log - --snapshot-every 50 \
	-o out.l3d 2>../pipe.err; echo $? >../pipe.rc) | head -n 120 >/dev/null
[ "$(cat ../pipe.rc)" = 74 ] && ok || fail "--log - | head: exit $(cat ../pipe.rc): $(cat ../pipe.err)"
grep -q "(stdout): write error: Broken pipe; generation [0-9]* is kept in the checkpoint out.l3d.ckpt.l3d$" ../pipe.err &&
	ok || fail "--log - | head: $(cat ../pipe.err)"
if ls -A | grep -q '\.tmp$'; then fail "--log - | head: temporary files left"; else ok; fi
expect_absent out.l3d "--log - | head"
# The steps taken are not lost: resumed from the checkpoint, the run ends
# where it would have.
"$LIFE3D" -q --random 24 -r B4/S4 -n 100000 -o ref.l3d || fail "--log - | head: reference"
"$LIFE3D" -q --until 100000 -o out.l3d out.l3d.ckpt.l3d || fail "--log - | head: resumed"
expect_same ref.l3d out.l3d "--log - | head, resumed"
cd .. || exit 99

# The last generation there is is logged only when it is due, and gets no
# snapshot unless asked for.
printf '3D version=1 size=4 gen=18446744073709551610\nx=1 y=1 z=1 rule=B6/S567\no!\n' >late.rle3
"$LIFE3D" -q -n 5 --log-every 1000 --log late.tsv -o late.l3d late.rle3 && ok || fail "a run to the last generation"
[ "$(log_data late.tsv | wc -l)" -eq 2 ] && ok || fail "the last generation logged when not due: $(tail -n 1 late.tsv)"
ls snapshot-*.png >/dev/null 2>&1 && fail "a snapshot nobody asked for" || ok
"$LIFE3D" -q -n 5 --log late1.tsv -o late1.l3d late.rle3 && ok || fail "a run to the last generation, every step logged"
[ "$(tail -n 1 late1.tsv | cut -f1)" = 18446744073709551615 ] && ok || fail "the last generation not logged: $(tail -n 1 late1.tsv)"
# Two runs on one log (overlapping cron jobs with -f): the second is
# refused before it touches the file, and the first's log stays whole.
"$LIFE3D" -q --threads 1 --random 16 -n 100000000000 --log-every 1000 --log lock.tsv \
	--checkpoint lock.ckpt.l3d -o /dev/null 2>lock1.err &
pid=$!
n=0
while [ ! -s lock.tsv ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
"$LIFE3D" -q -f --random 8 -n 2 --log lock.tsv -o /dev/null 2>lock2.err
rc=$?
kill -TERM $pid
wait $pid
[ "$rc" -eq 73 ] && grep -q "^life3d: lock.tsv: in use as the log of another run; not written$" lock2.err &&
	ok || fail "a second run on a log in use: exit $rc: $(cat lock2.err)"
awk -F '\t' 'NR > 1 && $1 % 1000 != 0 { bad = 1 } END { exit bad }' lock.tsv && ok ||
	fail "the first run's log took another run's lines: $(head -n 3 lock.tsv)"
finish
