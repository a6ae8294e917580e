#!/bin/sh
# Outputs that fail at every point of a run.  The same runs, first under
# file size limits swept from one block (512 bytes) up past their largest
# file, so that the log, a snapshot, a checkpoint or the result is cut off
# at each place it can be; then with one output call after another made to
# fail (tests/tools/failio.c: write, fsync, close, rename ... once, or from
# then on); last with one allocation after another refused.  Whatever
# fails, the run ends with status 0, 74 or (memory) 1 and one line;
# no temporary or half-written file is left; every file it leaves is the
# uninterrupted run's (a log: its first whole lines); and a checkpoint it
# keeps, resumed with the same options, ends the run as if nothing had
# failed, log included when the log was kept.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

kept_seen=0         # runs whose message named a kept generation
failed_seen=0       # runs that ended with 74

# check_run DIR STEPS INPUT "ENV" LIMIT -- OPTIONS: the run, in DIR, with
# the environment assignments ENV and `ulimit -f LIMIT`, against the
# reference in ref/.
check_run() {
	dir=$1 steps=$2 input=$3 env=$4 limit=$5; shift 6
	mkdir "$dir" && cd "$dir" || exit 99
	sh -c "ulimit -f $limit; exec env $env \"\$0\" \"\$@\"" "$LIFE3D" -q -n "$steps" "$@" \
		"$input" >/dev/null 2>err </dev/null
	rc=$?
	what="$sweep, $dir"
	case $rc in
	0) if [ -s err ]; then fail "$what: exit 0 with: $(cat err)"; else ok; fi ;;
	74 | 73) failed_seen=$((failed_seen + 1))
	    if [ "$(wc -l <err)" -eq 1 ] && grep -q '^life3d: ' err; then ok
	    else fail "$what: expected one line, got: $(head -c 300 err)"; fi
	    # Memory that ran out is not an I/O error (libpng's say so too).
	    [ $rc -eq 74 ] && [ "$sweep" = memory ] && grep -qi "memory" err &&
		fail "$what: memory reported as exit 74: $(cat err)"
	    # 73: an output that could not take its name, kept beside it.
	    [ $rc -eq 74 ] || grep -q ": cannot rename into place: .*; the result is in " err &&
		ok || fail "$what: exit 73: $(cat err)" ;;
	1 | 66) # Memory refused (66: when opening the input).
	    [ "$sweep" = memory ] && [ "$(wc -l <err)" -eq 1 ] &&
		grep -q '^life3d: .*\(out of memory\|Cannot allocate memory\)' err && ok ||
		fail "$what: exit $rc: $(head -c 300 err)" ;;
	69) # The GPU's driver, whose own calls failed as it started.
	    [ "$sweep" = cuda ] && grep -q "^life3d: engine 'cuda': " err && ok ||
		fail "$what: exit 69: $(head -c 300 err)" ;;
	*) fail "$what: exit $rc: $(head -c 300 err)" ;;
	esac
	# A picture kept under another name when it could not take its own
	# is named in the message; any other file is the reference's.
	kept_as=$(sed -n 's/.*; the result is in \([^;]*\).*/\1/p' err)
	for f in * .[!.]*; do
		case $f in
		err | run.ckpt.l3d | "$kept_as" | '.[!.]*') ;;
		run.tsv) whole_lines_of ../ref/run.tsv run.tsv "$what: the log" ;;
		*) if [ -e "../ref/$f" ]; then expect_same "../ref/$f" "$f" "$what: $f"
		   else fail "$what: left $f"; fi ;;
		esac
	done
	if [ $rc -eq 0 ]; then
		expect_same ../ref/run.tsv run.tsv "$what: the log"
	elif [ -e run.l3d ]; then
		# Written in full while the last pictures were encoded, one of
		# which then failed; the message names it.
		grep -q '^life3d: [^:]*\.png: ' err && ok || fail "$what: a result with: $(cat err)"
	fi
	[ $rc -ne 0 ] && [ ! -e run.l3d ] || expect_same ../ref/run.l3d run.l3d "$what: the result"
	grep -q "is kept in the checkpoint run.ckpt.l3d$" err && resume "$steps" "$@"
	cd .. || exit 99
}

# resume STEPS OPTIONS: the kept checkpoint, resumed, ends as the reference.
resume() {
	steps=$1; shift
	kept_seen=$((kept_seen + 1))
	had_log=false last_logged=""
	[ -e run.tsv ] && had_log=true && last_logged=$(tail -n 1 run.tsv | cut -f 1)
	if "$LIFE3D" -q --until "$steps" "$@" run.ckpt.l3d 2>resume.err; then ok
	else fail "$what: resumed: $(head -c 300 resume.err)"; fi
	rm -f resume.err
	expect_same ../ref/run.l3d run.l3d "$what: resumed: the result"
	# A log that failed before the line of the checkpoint's generation
	# was written gets it from the resumed run, which did not take that
	# step: births and deaths 0 there (life3d(1), --log).
	g=$(sed -n 's/.*generation \([0-9]*\) is kept.*/\1/p' err)
	awk -v g="$g" 'BEGIN { FS = OFS = "\t" } $1 == g { $3 = 0; $4 = 0 } 1' \
		../ref/run.tsv >../want.tsv
	if ! $had_log; then
		:
	elif [ "$last_logged" = "$g" ]; then
		expect_same ../ref/run.tsv run.tsv "$what: resumed: the log"
	else
		expect_same ../want.tsv run.tsv "$what: resumed: the log"
	fi
}

# whole_lines_of REF FILE DESCRIPTION: FILE is REF's first lines, whole.
whole_lines_of() {
	size=$(wc -c <"$2")
	if head -c "$size" "$1" | cmp -s - "$2" &&
	   { [ "$size" -eq 0 ] || [ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" = '\n' ]; }; then ok
	else fail "$3: not the first whole lines of the uninterrupted run's"; fi
}

# reference NAME STEPS INPUT -- OPTIONS: a directory for the sweep, with
# the uninterrupted run in ref/.
reference() {
	sweep=$1 steps=$2 input=$3; shift 4
	mkdir "$sweep" && cd "$sweep" || exit 99
	mkdir ref && (cd ref && "$LIFE3D" -q -n "$steps" "$@" "$input") || fail "$sweep: reference"
}

# limits NAME STEPS INPUT "LIMITS" -- OPTIONS: each limit in turn; the
# largest must let the run finish, or the sweep saw nothing.
limits() {
	set_name=$1 set_steps=$2 set_input=$3 list=$4
	shift 5
	reference "$set_name" "$set_steps" "$set_input" -- "$@"
	for limit in $list; do
		check_run "$limit" "$steps" "$input" "" "$limit" -- "$@"
	done
	[ -e "$limit/run.l3d" ] && ok || fail "$sweep: the largest limit, $limit blocks, did not let the run finish"
	cd .. || exit 99
}

# faults NAME STEPS INPUT "FUNCTIONS" -- OPTIONS: for each function the run
# calls, its calls made to fail one at a time (every one of the first
# $points, 40 unless set, or that many spread over them all), once and from
# then on; some must fail.
faults() {
	set_name=$1 set_steps=$2 set_input=$3 list=$4
	shift 5
	reference "$set_name" "$set_steps" "$set_input" -- "$@"
	for fn in $list; do
		inject="LD_PRELOAD=$TOOLS/${lib:-failio.so} FAILIO_FN=$fn $asan"
		check_run "$fn-count" "$steps" "$input" "$inject FAILIO_AT=0 FAILIO_ONCE=1 FAILIO_COUNT=../$fn.calls" \
			unlimited -- "$@"
		calls=$(cat "$fn.calls" 2>/dev/null || echo 0)
		[ "$calls" -gt 0 ] || continue
		before=$failed_seen
		i=0
		while [ $i -lt "${points:-40}" ] && [ $i -lt "$calls" ]; do
			at=$((calls <= ${points:-40} ? i + 1 : 1 + i * calls / ${points:-40}))
			check_run "$fn-once-$at" "$steps" "$input" "$inject FAILIO_AT=$at FAILIO_ONCE=1" unlimited -- "$@"
			check_run "$fn-from-$at" "$steps" "$input" "$inject FAILIO_AT=$at" unlimited -- "$@"
			i=$((i + 1))
		done
		case " $must " in
		*" $fn "*) [ $failed_seen -gt "$before" ] && ok || fail "$sweep: no run failed for $fn ($calls calls)" ;;
		esac
	done
	cd .. || exit 99
}

# A log that grows past the checkpoint's and the result's size (300 lines,
# about 6 kB, against 1.8 kB).
"$LIFE3D" -q --random 24 --seed 3 -r B5..7/S4..9 -n 0 -o in.l3d || fail "make in.l3d"
limits log 300 ../../in.l3d "1 2 3 4 5 6 7 8 9 10 11 12 13 14" -- \
	--log run.tsv --checkpoint-every 50 --checkpoint run.ckpt.l3d -o run.l3d

# Pictures of different sizes (a spark under B1/S: about 14, 20, 22 and 80
# kB at generations 0, 5, 10 and 15; a checkpoint of 4 kB).
printf '3D version=1 size=32\nx=1 y=1 z=1 rule=B1/S\no!\n' >spark.rle3
limits render 40 ../../spark.rle3 "1 8 16 24 28 32 36 40 44 48 64 96 128 160 176" -- \
	--log run.tsv --snapshot-every 5 --snapshot-kind render --snapshot-prefix run- \
	--checkpoint run.ckpt.l3d -o run.l3d

[ $kept_seen -ge 4 ] && ok || fail "only $kept_seen limits kept a generation in the checkpoint"

# Calls that fail: not under valgrind (the library would be preloaded into
# it too), and only where the library reaches life3d's calls (not in a
# static build).  A sanitizer's runtime must then let it come first.
asan="ASAN_OPTIONS=verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
if [ -n "${LIFE3D_VALGRIND:-}" ] || [ ! -e "$TOOLS/failio.so" ] ||
   env LD_PRELOAD="$TOOLS/failio.so" FAILIO_FN=fsync "$asan" "$LIFE3D" -q --random 4 -n 0 -o probe.l3d 2>/dev/null; then
	finish
fi
rm -f probe.l3d
# Executable memory refused (every mprotect fails): a rule that the CPU
# engine compiles is stepped without its code, to the same result, and -v
# says why.
jit="-v --threads 1 --random 64 --seed 2 -r B5..7/S4..9 -n 3"
"$LIFE3D" $jit -o jit.l3d 2>jit.err || fail "a compiled rule: $(cat jit.err)"
if grep -q "engine cpu/avx[0-9]* x1 thread (rule compiled)" jit.err; then
	env LD_PRELOAD="$TOOLS/failio.so" FAILIO_FN=mprotect "$asan" "$LIFE3D" $jit -o nojit.l3d \
		2>nojit.err && ok || fail "executable memory refused: $(cat nojit.err)"
	grep -q "engine cpu/avx[0-9]* x1 thread (rule not compiled: the system refuses executable memory)$" \
		nojit.err && ok || fail "executable memory refused: -v says: $(cat nojit.err)"
	expect_same jit.l3d nojit.l3d "executable memory refused: the result"
fi
kept_seen=0
# Every output is written with stdio, synced, closed and renamed into
# place: those calls must have failed some run (the others are called for
# inputs, or not at all).
must="fsync fclose fflush fwrite renameat2"
faults calls 30 ../../in.l3d "write pwrite fsync close fclose fflush fwrite rename renameat renameat2 link linkat" -- \
	--threads 1 --log run.tsv --snapshot-every 10 --snapshot-size 64 --checkpoint-every 7 \
	--checkpoint run.ckpt.l3d -o run.l3d
[ $kept_seen -ge 10 ] && ok || fail "only $kept_seen runs with failing calls kept a generation in the checkpoint"

# A universe that repeats (a still block): once the engine knows it, each
# picture is written from the bands of the one two generations back.
printf '3D version=1 size=16\nx=2 y=2 z=2 rule=3D5..7/6\n2o$2o/2o$2o!\n' >block.rle3
faults repeats 30 ../../block.rle3 "fsync fwrite renameat2" -- \
	--threads 1 --log run.tsv --snapshot-every 2 --snapshot-kind render --snapshot-size 64 \
	--checkpoint-every 7 --checkpoint run.ckpt.l3d -o run.l3d

# With a GPU, the CUDA engine too: its universe and its 3D views (drawn on
# the device) are what the checkpoints and pictures hold.
case $("$LIFE3D" --version | sed -n 's/^gpus: //p') in
"" | none*) ;;
*)
	faults cuda 30 ../../in.l3d "fsync fwrite renameat2" -- \
		--engine cuda --log run.tsv --snapshot-every 10 --snapshot-kind render --snapshot-size 64 \
		--checkpoint-every 7 --checkpoint run.ckpt.l3d -o run.l3d
	;;
esac

# Allocations (failalloc's malloc: malloc, calloc, realloc and the
# aligned ones, the C library's own too), every one of a short run of the
# repeating universe made to fail, once and from then on: the run ends as
# above or says memory ran out (1), never by a signal, and leaves no
# temporary file.  Not under the sanitizers: their allocator is their own.
if [ "${LIFE3D_SANITIZERS:-no}" != yes ]; then
	must=malloc points=400 lib=failalloc.so
	faults memory 6 ../../block.rle3 "malloc" -- \
		--threads 1 --log run.tsv --snapshot-every 2 --snapshot-kind render --snapshot-size 64 \
		--checkpoint-every 3 --checkpoint run.ckpt.l3d -o run.l3d
fi
finish
