#!/bin/sh
# Outputs that fail at every point of a run: the same run under file size
# limits swept from one block (512 bytes) up past its largest file, so
# that the log, a snapshot, a checkpoint or the result is cut off at each
# place it can be.  Whatever fails, the run ends with status 0 or 74 and
# one line; no temporary or half-written file is left; every file it does
# leave is the uninterrupted run's (a log: its first whole lines); and a
# checkpoint it leaves, resumed with the same options and no limit, ends
# the run as if nothing had failed, log included when the log was kept.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

kept_seen=0         # limits whose message named a kept generation

# check_limit LIMIT STEPS INPUT -- OPTIONS: the run, in a directory named
# after the limit, under `ulimit -f LIMIT`, against the reference in ref/.
check_limit() {
	limit=$1 steps=$2 input=$3; shift 4
	mkdir "$limit" && cd "$limit" || exit 99
	sh -c "ulimit -f $limit; exec \"\$0\" \"\$@\"" "$LIFE3D" -q -n "$steps" "$@" "$input" \
		>/dev/null 2>err </dev/null
	rc=$?
	what="$sweep, limit $limit blocks"
	case $rc in
	0) if [ -s err ]; then fail "$what: exit 0 with: $(cat err)"; else ok; fi ;;
	74) if [ "$(wc -l <err)" -eq 1 ] && grep -q '^life3d: ' err; then ok
	    else fail "$what: expected one line, got: $(head -c 300 err)"; fi ;;
	*) fail "$what: exit $rc: $(head -c 300 err)" ;;
	esac
	for f in *; do
		case $f in
		err | run.ckpt.l3d) ;;
		run.tsv) whole_lines_of ../ref/run.tsv run.tsv "$what: the log" ;;
		*) if [ -e "../ref/$f" ]; then expect_same "../ref/$f" "$f" "$what: $f"
		   else fail "$what: left $f"; fi ;;
		esac
	done
	if [ $rc -eq 0 ]; then
		expect_same ../ref/run.l3d run.l3d "$what: the result"
		expect_same ../ref/run.tsv run.tsv "$what: the log"
	else
		expect_absent run.l3d "$what"
	fi
	if grep -q "is kept in the checkpoint run.ckpt.l3d$" err; then
		kept_seen=$((kept_seen + 1))
		had_log=false
		[ -e run.tsv ] && had_log=true
		if "$LIFE3D" -q --until "$steps" "$@" run.ckpt.l3d 2>resume.err; then ok
		else fail "$what: resumed: $(head -c 300 resume.err)"; fi
		rm -f resume.err
		expect_same ../ref/run.l3d run.l3d "$what: resumed: the result"
		# When the log is what failed, the resumed run writes the line of
		# the checkpoint's generation, a step it did not take: births and
		# deaths 0 there (life3d(1), --log).
		g=$(sed -n 's/^life3d: run\.tsv: .*generation \([0-9]*\) is kept.*/\1/p' err)
		awk -v g="${g:--1}" 'BEGIN { FS = OFS = "\t" } $1 == g { $3 = 0; $4 = 0 } 1' \
			../ref/run.tsv >want.tsv
		! $had_log || expect_same want.tsv run.tsv "$what: resumed: the log"
		rm -f want.tsv
	fi
	cd .. || exit 99
}

# whole_lines_of REF FILE DESCRIPTION: FILE is REF's first lines, whole.
whole_lines_of() {
	n=$(wc -c <"$2")
	if head -c "$n" "$1" | cmp -s - "$2" &&
	   { [ "$n" -eq 0 ] || [ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" = '\n' ]; }; then ok
	else fail "$3: not the first whole lines of the uninterrupted run's"; fi
}

# sweep NAME STEPS INPUT "LIMITS" -- OPTIONS: the reference, then each
# limit; the largest must let the run finish, or the sweep saw nothing.
sweep() {
	sweep=$1 steps=$2 input=$3 limits=$4; shift 5
	mkdir "$sweep" && cd "$sweep" || exit 99
	mkdir ref && (cd ref && "$LIFE3D" -q -n "$steps" "$@" "$input") || fail "$sweep: reference"
	last=0
	for limit in $limits; do
		check_limit "$limit" "$steps" "$input" -- "$@"
		last=$limit
	done
	[ -e "$last/run.l3d" ] && ok || fail "$sweep: the largest limit, $last blocks, did not let the run finish"
	cd .. || exit 99
}

# A log that grows past the checkpoint's and the result's size (300 lines,
# about 6 kB, against 1.8 kB).
"$LIFE3D" -q --random 24 --seed 3 -r B5..7/S4..9 -n 0 -o in.l3d || fail "make in.l3d"
sweep log 300 ../../in.l3d "1 2 3 4 5 6 7 8 9 10 11 12 13 14" -- \
	--log run.tsv --checkpoint-every 50 --checkpoint run.ckpt.l3d -o run.l3d

# Pictures of different sizes (a spark under B1/S: about 14, 20, 22 and 80
# kB at generations 0, 5, 10 and 15; a checkpoint of 4 kB).
printf '3D version=1 size=32\nx=1 y=1 z=1 rule=B1/S\no!\n' >spark.rle3
sweep render 40 ../../spark.rle3 "1 8 16 24 28 32 36 40 44 48 64 96 128 160 176" -- \
	--log run.tsv --snapshot-every 5 --snapshot-kind render --snapshot-prefix run- \
	--checkpoint run.ckpt.l3d -o run.l3d

[ $kept_seen -ge 4 ] && ok || fail "only $kept_seen limits kept a generation in the checkpoint"
finish
