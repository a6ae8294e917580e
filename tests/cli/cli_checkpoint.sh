#!/bin/sh
# Long runs: checkpoints, resuming, signals, --max-time, write failures.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
gen_of() { od -An -t u8 -j 40 -N 8 "$1" | tr -d ' '; }   # native header

"$LIFE3D" -q --random 21x18x23 --seed 9 -n 0 -o start.l3d || fail "start"
"$LIFE3D" -q -n 30 --log full.tsv -o full.l3d start.l3d || fail "uninterrupted run"

# Checkpoints every 10 steps hold generations 10 and 20 (not the final 30).
"$LIFE3D" -q -n 30 --checkpoint-every 10 --checkpoint ck.l3d --log ck.tsv -o ck-final.l3d start.l3d || fail "checkpointed run"
[ "$(gen_of ck.l3d)" = 20 ] && ok || fail "last checkpoint is at generation $(gen_of ck.l3d)"
expect_same full.l3d ck-final.l3d "checkpointing does not change the result"
expect_same full.tsv ck.tsv "checkpointing does not change the log"

# Resume from generation 20 as after a run killed at 25: the log loses its
# lines after 20 and continues; the result is bit-identical.
head -n 27 ck.tsv >cut.tsv && cat cut.tsv >ck.tsv     # header + generations 0..25
"$LIFE3D" -q --until 30 --log ck.tsv -o resumed.l3d ck.l3d && ok || fail "resume"
expect_same full.l3d resumed.l3d "resumed universe"
expect_same full.tsv ck.tsv "resumed log"
# With --log-every 4, resuming at 20 (a logged generation) adds no duplicate.
"$LIFE3D" -q -n 30 --log-every 4 --log full4.tsv -o /dev/null start.l3d || fail "every 4"
"$LIFE3D" -q -n 30 --log-every 4 --checkpoint-every 10 --checkpoint ck4.l3d --log resumed4.tsv -o /dev/null start.l3d || fail "every 4, checkpointed"
awk -F'\t' '/^#/ || $1 == "step" || $1 <= 24' resumed4.tsv >cut.tsv && cat cut.tsv >resumed4.tsv
"$LIFE3D" -q --until 30 --log-every 4 --log resumed4.tsv -o /dev/null ck4.l3d || fail "resume 4"
expect_same full4.tsv resumed4.tsv "resumed log every 4"

# Another run's files: a log that the checkpoint does not name is neither
# continued nor overwritten, and a checkpoint replaces only its own run's.
# (A log is the checkpoint's when its bytes up to the checkpoint are those
# the checkpoint recorded: another log of the very same run would be.)
cp full4.tsv other.tsv && cp other.tsv other-before.tsv
expect_exit 73 "resume with another run's log" -- "$LIFE3D" -q --until 30 --log other.tsv -o other.l3d ck.l3d
expect_err_line "other.tsv: not the log of the run that wrote the checkpoint" "another run's log message"
expect_same other-before.tsv other.tsv "another run's log untouched"
expect_absent other.l3d "another run's log"
"$LIFE3D" -q -f --until 30 --log other.tsv -o other.l3d ck.l3d && ok || fail "-f starts another run's log afresh"
# Its comment lines say it began from the checkpoint.
log_data full.tsv >full.data.tsv
{ head -n 1 full.data.tsv; awk -F'\t' -v OFS='\t' '$1 == 20 { $3 = 0; $4 = 0 } NR > 1 && $1 >= 20' full.data.tsv; } >fresh.tsv
log_data other.tsv >other.data.tsv
expect_same fresh.tsv other.data.tsv "a log started afresh at the checkpoint"
grep -qx '# start: ck.l3d (l3d), generation 20' other.tsv && ok ||
	fail "the afresh log's start: $(grep '^# start' other.tsv)"
cp full.tsv thesis.l3d
expect_exit 73 "checkpoint over a file of no run" -- "$LIFE3D" -q --random 8 -n 3 --checkpoint-every 1 --checkpoint thesis.l3d -o /dev/null
expect_same full.tsv thesis.l3d "a file at the checkpoint path untouched"
cp ck.l3d ck-other.l3d
expect_exit 73 "checkpoint over another run's checkpoint" -- "$LIFE3D" -q --random 8 -n 3 --checkpoint-every 1 --checkpoint ck-other.l3d -o /dev/null
expect_same ck.l3d ck-other.l3d "another run's checkpoint untouched"
# The input is replaced only when it is the checkpoint the run resumed from.
cp start.l3d data.l3d
expect_exit 73 "checkpoint over an input that is no checkpoint" -- "$LIFE3D" -q -n 3 --checkpoint-every 1 --checkpoint data.l3d -o /dev/null data.l3d
expect_err_line "data.l3d: exists and is not a checkpoint of this run" "checkpoint over the input: message"
expect_same start.l3d data.l3d "an input that is no checkpoint untouched"
expect_exit 64 "checkpoint and log the same file" -- "$LIFE3D" -q --random 8 -n 3 --checkpoint x.tsv --log x.tsv -o /dev/null
expect_exit 64 "log and the input the same file" -- "$LIFE3D" -q -f -n 3 --log start.l3d -o /dev/null start.l3d
expect_exit 64 "log and the result the same file" -- "$LIFE3D" -q -f -n 3 --log y.l3d -o y.l3d start.l3d
expect_absent y.l3d "log and the result the same file"
# A file put at the checkpoint's name while the run goes on is not
# replaced, and the run's state is not lost for it: the checkpoints move
# beside it, the run goes on, and a stop says where its checkpoint is.
"$LIFE3D" -q --threads 1 --random 32 --random-rule B4/S4 -n 100000000000 --checkpoint taken.l3d -o /dev/null 2>taken.err &
pid=$!
sleep 1
kill -USR1 $pid
n=0
while [ ! -s taken.l3d ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
rm -f taken.l3d && echo "someone else's" >taken.l3d
sleep 0.3
kill -TERM $pid
wait $pid
rc=$?
beside=$(sed -n 's/.*checkpoint in \(taken-[0-9a-f]*\.l3d\)$/\1/p' taken.err)
[ "$rc" -eq 130 ] && [ -n "$beside" ] && ok || fail "checkpoint name taken during the run: exit $rc: $(cat taken.err)"
grep -q "^life3d: warning: taken.l3d: exists and is not a checkpoint of this run; not overwritten; checkpoints of this run go to $beside$" taken.err &&
	ok || fail "checkpoint name taken: no warning naming the new place: $(cat taken.err)"
[ "$(cat taken.l3d)" = "someone else's" ] && ok || fail "the file at the checkpoint's name was replaced"
[ -n "$beside" ] && "$LIFE3D" -q -n 1 -o /dev/null "$beside" && ok || fail "the checkpoint beside is not resumable"
# A crash after pictures were drawn past the last checkpoint: the resumed
# run draws them again over the stopped run's own (a PNG of this series:
# life3d's, this kind, rule and generation), and over nothing else.  A
# finished run leaves the same files (its checkpoint at 100, pictures to 200).
S="-q --seed 3 --threads 1 --snapshot-every 50 --snapshot-size 16 --snapshot-prefix cr-"
"$LIFE3D" $S --random 16 --random-rule B4/S4 -n 200 --checkpoint-every 100 --log cr.tsv -o cr.l3d || fail "the run before the crash"
cp cr.l3d cr-ref.l3d && cp cr.tsv cr-ref.tsv && cp cr-000200.png cr-ref200.png
"$LIFE3D" $S --until 200 --log cr.tsv -o crb.l3d cr.l3d.ckpt.l3d 2>cr.err && ok ||
	fail "resume after a crash, with pictures past the checkpoint: $(cat cr.err)"
expect_same cr-ref.l3d crb.l3d "resume after a crash: the result"
expect_same cr-ref.tsv cr.tsv "resume after a crash: the log"
expect_same cr-ref200.png cr-000200.png "resume after a crash: the picture drawn again"
"$LIFE3D" -q --seed 3 --random 16 -n 0 --snapshot-every 1 --snapshot-size 16 --snapshot-prefix other- -o /dev/null &&
	mv other-000000.png cr-000150.png || fail "another series' picture"
cp cr-000150.png cr-other150.png
"$LIFE3D" $S --until 200 --log cr.tsv -o cr2.l3d cr.l3d.ckpt.l3d 2>cr.err
[ $? -eq 73 ] && grep -q "cr-000150.png: already exists" cr.err && ok || fail "another series' picture on resume: $(cat cr.err)"
expect_same cr-other150.png cr-000150.png "another series' picture untouched"
# Standard input and output are the files they are redirected from and to.
cp start.l3d in.l3d
"$LIFE3D" -q -f -n 3 --log in.l3d -o /dev/null <in.l3d 2>err
[ $? -eq 64 ] && grep -q "^life3d: --log and standard input name the same file" err && ok ||
	fail "log over the file on standard input: $(cat err)"
expect_same start.l3d in.l3d "the file on standard input untouched by --log"
"$LIFE3D" -q -n 3 --snapshot-every 3 --snapshot-prefix in -o /dev/null in.l3d || fail "snapshot in000003.png"
cp start.l3d in000003.png
"$LIFE3D" -q -f -n 3 --snapshot-every 3 --snapshot-prefix in -o /dev/null <in000003.png 2>err
[ $? -eq 64 ] && grep -q "standard input and the snapshots name the same file" err && ok ||
	fail "snapshot over the file on standard input: $(cat err)"
expect_same start.l3d in000003.png "the file on standard input untouched by a snapshot"
cp start.l3d out.l3d
"$LIFE3D" -q -f -n 3 --log out.l3d --format l3d start.l3d >>out.l3d 2>err
[ $? -eq 64 ] && grep -q "standard output and --log name the same file" err && ok ||
	fail "log over the file on standard output: $(cat err)"
"$LIFE3D" -q -n 3 --checkpoint out.l3d --checkpoint-every 1 --format l3d start.l3d >>out.l3d 2>err
[ $? -eq 64 ] && grep -q "standard output and --checkpoint name the same file" err && ok ||
	fail "checkpoint over the file on standard output: $(cat err)"
expect_same start.l3d out.l3d "the file on standard output untouched"
"$LIFE3D" -q -f -n 3 -o in.l3d <in.l3d && ok || fail "-f -o over the file on standard input (replaced once read)"
# The resumed run's checkpoint replaces the one it resumed from, and the
# one after that (its own run's).
cp ck.l3d again.l3d
"$LIFE3D" -q --until 25 --checkpoint-every 2 --checkpoint again.l3d -o /dev/null again.l3d && ok || fail "checkpoint over the input"
[ "$(gen_of again.l3d)" = 24 ] && ok || fail "the resumed run's checkpoint is at generation $(gen_of again.l3d)"
"$LIFE3D" -q --until 27 --checkpoint-every 2 --checkpoint ck-again.l3d -o /dev/null ck.l3d || fail "resume to a second checkpoint"
"$LIFE3D" -q --until 29 --checkpoint-every 2 --checkpoint ck-again.l3d -o /dev/null again.l3d && ok || fail "checkpoint over the same run's checkpoint"
[ "$(gen_of ck-again.l3d)" = 28 ] && ok || fail "the same run's checkpoint is at generation $(gen_of ck-again.l3d)"

# A resumed run draws its first generation's snapshot when it is due and
# missing (the stopped run was drawing it), and leaves it alone when not.
mkdir -p sp ref || exit 99
"$LIFE3D" -q -n 30 --snapshot-every 10 --snapshot-prefix ref/s- -o /dev/null start.l3d || fail "snapshots, reference"
"$LIFE3D" -q -n 30 --checkpoint-every 20 --checkpoint sp.ckpt.l3d --snapshot-every 10 \
	--snapshot-prefix sp/s- -o /dev/null start.l3d || fail "snapshots and a checkpoint at 20"
rm -f sp/s-000020.png sp/s-000030.png
"$LIFE3D" -q --until 30 --snapshot-every 10 --snapshot-prefix sp/s- -o /dev/null sp.ckpt.l3d &&
	ok || fail "resume with the first generation's snapshot missing"
expect_same ref/s-000020.png sp/s-000020.png "the missing snapshot drawn again"
expect_same ref/s-000030.png sp/s-000030.png "the snapshot after it"
rm -f sp/s-000030.png
"$LIFE3D" -q --until 30 --snapshot-every 10 --snapshot-prefix sp/s- -o /dev/null sp.ckpt.l3d &&
	ok || fail "resume with the first generation's snapshot there"
expect_same ref/s-000020.png sp/s-000020.png "the first generation's snapshot left alone"
# A run continued past generation 999999 pads to seven digits; the
# picture its checkpoint's run took with six is not drawn again.
mkdir wide
"$LIFE3D" -q --random 16 --seed 2 -n 900001 --snapshot-every 300000 --checkpoint-every 900000 \
	--checkpoint wide/ck.l3d --snapshot-prefix wide/f- -o wide/a.l3d || fail "to 900001"
"$LIFE3D" -q --until 1200000 --snapshot-every 300000 --checkpoint wide/ck.l3d \
	--snapshot-prefix wide/f- -o wide/b.l3d wide/ck.l3d || fail "on to 1200000"
[ "$(cd wide && echo f-*.png)" = "f-000000.png f-1200000.png f-300000.png f-600000.png f-900000.png" ] &&
	ok || fail "continued past 999999: $(cd wide && echo f-*.png)"

# SIGINT: finish the step, write the checkpoint, keep no output, exit 130.
# Runs that must last step densely (LIFE3D_SKIP=0): a settled universe
# would finish its hundred million steps at once.
LIFE3D_SKIP=0 "$LIFE3D" -q --random 60 --seed 4 -n 100000000 --checkpoint sig.l3d --log sig.tsv -o sig-out.l3d &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGINT exit $rc, expected 130"
expect_absent sig-out.l3d "SIGINT"
if ls -A | grep -q '\.tmp$'; then fail "temporary files after SIGINT"; else ok; fi
g=$(gen_of sig.l3d)
[ -n "$g" ] && [ "$g" -gt 0 ] && ok || fail "checkpoint after SIGINT at generation '$g'"
# It resumes to the same universe as a run that was never interrupted.
"$LIFE3D" -q --random 60 --seed 4 -n $((g + 3)) --log nosig.tsv -o nosig.l3d || fail "reference"
"$LIFE3D" -q --until $((g + 3)) --log sig.tsv -o sig-out.l3d sig.l3d && ok || fail "resume after SIGINT"
expect_same nosig.l3d sig-out.l3d "resumed after SIGINT"
expect_same nosig.tsv sig.tsv "log resumed after SIGINT"

# SIGUSR1 writes a checkpoint and the run goes on.
LIFE3D_SKIP=0 "$LIFE3D" -q --random 60 -n 100000000 --checkpoint usr.l3d -o usr-out.l3d &
pid=$!
sleep 1
kill -USR1 $pid
i=0
while [ ! -s usr.l3d ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -s usr.l3d ] && ok || fail "no checkpoint after SIGUSR1"
kill -0 $pid 2>/dev/null && ok || fail "the run did not go on after SIGUSR1"
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGTERM exit $rc, expected 130"

# --max-time stops cleanly, with a checkpoint, and exit 75.  The 10^8
# dense steps would take an hour: a status of 75 (not the hang guard's
# 124) shows the stop.
LIFE3D_SKIP=0 timeout 300 "$LIFE3D" -q --random 60 -n 100000000 --max-time 1 --checkpoint mt.l3d \
	-o mt-out.l3d 2>mt.err
rc=$?
[ "$rc" -eq 75 ] && ok || fail "--max-time exit $rc, expected 75"
[ -s mt.l3d ] && ok || fail "no checkpoint after --max-time"
grep -q "resume" mt.err && ok || fail "--max-time message: $(cat mt.err)"
expect_exit 64 "bad --max-time" -- "$LIFE3D" -q --max-time 5x --random 4 -n 1 -o x.l3d

# A checkpoint that cannot be written is an I/O error; the previous
# checkpoint stays intact.
if [ -w /dev/full ]; then
	expect_exit 74 "checkpoint to a full disk" -- "$LIFE3D" -q --random 8 -n 5 --checkpoint-every 1 --checkpoint /dev/full -o x.l3d
	expect_absent x.l3d "checkpoint to a full disk"
fi
cp ck.l3d ck-before.l3d
expect_exit 74 "checkpoint over the file size limit" -- sh -c "ulimit -f 1; '$LIFE3D' -q -f --random 40 -n 3 --checkpoint-every 1 --checkpoint ck.l3d -o big.l3d"
expect_same ck-before.l3d ck.l3d "previous checkpoint intact"
expect_absent big.l3d "file size limit"
if ls -A | grep -q '\.tmp$'; then fail "temporary files after a failed checkpoint"; else ok; fi

# The same for a snapshot and for the universe itself: an I/O error, and no
# partial file left behind.
expect_exit 74 "snapshot over the file size limit" -- sh -c "ulimit -f 1; '$LIFE3D' -q --random 64 -n 0 --snapshot-every 1 --snapshot-scale 8 --snapshot-prefix fsz- -o /dev/null"
expect_absent fsz-000000.png "snapshot over the file size limit"
expect_exit 74 "universe over the file size limit" -- sh -c "ulimit -f 1; '$LIFE3D' -q --random 64 -n 1 -o fsz.l3d"
expect_absent fsz.l3d "universe over the file size limit"
if ls -A | grep -q '\.tmp$'; then fail "temporary files after failed writes"; else ok; fi
finish
