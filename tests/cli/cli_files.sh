#!/bin/sh
# Files and signals that never lose a user's data: a replaced file keeps
# its mode, a file that appears while the result is written is not
# clobbered, no output follows a link or pours into someone else's FIFO,
# every output path is checked before the first step, a failed log is left
# as it was (or kept whole with a checkpoint that continues it), the
# default checkpoint is the run's own, and SIGHUP stops a
# run like SIGTERM; -f replaces only what was there when the run began; a
# closed standard descriptor is never taken over by a file of the run; a
# result that cannot be written or renamed into place is kept.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
"$LIFE3D" -q --random 16 --seed 2 -n 0 -o u.l3d || fail "make u.l3d"

# -f keeps the mode of the file it replaces (a private file stays private).
echo private >secret.l3d
chmod 600 secret.l3d
expect_exit 0 "-f over a 0600 file" -- "$LIFE3D" -q -f -n 1 -o secret.l3d u.l3d
[ "$(stat -c %a secret.l3d)" = 600 ] && ok || fail "-f changed the mode to $(stat -c %a secret.l3d)"
chmod 640 secret.l3d
expect_exit 0 "-f over a 0640 file" -- "$LIFE3D" -q -f -n 1 -o secret.l3d u.l3d
[ "$(stat -c %a secret.l3d)" = 640 ] && ok || fail "-f changed 0640 to $(stat -c %a secret.l3d)"
# A new file gets the umask's mode.
(umask 022 && "$LIFE3D" -q -n 1 -o fresh.l3d u.l3d) || fail "fresh run"
[ "$(stat -c %a fresh.l3d)" = 644 ] && ok || fail "new file mode $(stat -c %a fresh.l3d)"

# A file created at the output path during the run is not replaced: the
# header arrives, the path is checked, then the cells come a second later,
# and meanwhile someone else creates the file.  (The narrower window between
# opening the temporary and renaming it is covered by check_outfile.)
slow_input() { head -c 64 u.l3d; sleep 1; tail -c +65 u.l3d; }
slow_input | "$LIFE3D" -q -n 1 -o race.l3d 2>race.err &
pid=$!
sleep 0.4
(umask 0 && echo "someone else's" >race.l3d)
[ "$(id -u)" = 0 ] && chown 65534:65534 race.l3d
wait $pid
rc=$?
[ "$rc" -eq 73 ] && ok || fail "race: exit $rc, expected 73: $(cat race.err)"
[ "$(cat race.l3d)" = "someone else's" ] && ok || fail "race: the other file was clobbered"
# ... and the result is kept, under the name the message gives.
kept=$(sed -n 's/.*the result is in //p' race.err)
"$LIFE3D" -q -n 1 -o race-ref.l3d u.l3d || fail "race: reference run"
[ -n "$kept" ] && cmp -s "$kept" race-ref.l3d && ok || fail "race: the result was not kept: $(cat race.err)"
# ... as this run's file: not given the other file's owner or mode.
[ "$(stat -c %u "$kept")" = "$(id -u)" ] && [ "$(stat -c %a "$kept")" != 666 ] && ok ||
	fail "race: the kept result took the other file's owner or mode: $(stat -c '%U %a' "$kept")"
rm -f "$kept"
# A link that appears there meanwhile is not written through, and the result
# is kept the same way.
slow_input | "$LIFE3D" -q -n 1 -o race3.l3d 2>race3.err &
pid=$!
sleep 0.4
ln -s race-target.l3d race3.l3d
wait $pid
rc=$?
[ "$rc" -eq 73 ] && ok || fail "race with a link: exit $rc, expected 73: $(cat race3.err)"
[ -L race3.l3d ] && [ ! -e race-target.l3d ] && ok || fail "race with a link: written through"
kept=$(sed -n 's/.*the result is in //p' race3.err)
[ -n "$kept" ] && cmp -s "$kept" race-ref.l3d && ok || fail "race with a link: the result was not kept: $(cat race3.err)"
rm -f "$kept"
# With -f the late file is replaced, as asked.
slow_input | "$LIFE3D" -q -f -n 1 -o race2.l3d &
pid=$!
sleep 0.4
echo "someone else's" >race2.l3d
wait $pid && ok || fail "race with -f: exit $?"
"$LIFE3D" -q -n 0 -o /dev/null race2.l3d && ok || fail "race with -f: result not in place"
# ... but -f replaces a regular file alone: a link, a directory, and
# (without -f) a FIFO that takes the name meanwhile keep it, and the
# result is kept beside it, under the name the message gives, never
# thrown away; no open of it waits for a reader.
for c in "-f|link|ln -s race-target.l3d" "-f|directory|mkdir" "|FIFO|mkfifo" "-f|socket|python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])'"; do
	f=${c%%|*}; rest=${c#*|}; what=${rest%%|*}; make=${rest#*|}
	rm -rf race5.l3d race5.err
	# (A longer pause in the input: python3 may take a while to start.)
	{ head -c 64 u.l3d; sleep 3; tail -c +65 u.l3d; } |
		timeout 20 "$LIFE3D" -q $f -n 1 -o race5.l3d 2>race5.err &
	pid=$!
	sleep 0.4
	sh -c "$make race5.l3d" || exit 99
	wait $pid
	rc=$?
	[ "$rc" -eq 73 ] && ok || fail "race with a $what ($f): exit $rc, expected 73: $(cat race5.err)"
	kept=$(sed -n 's/.*the result is in //p' race5.err)
	[ -n "$kept" ] && cmp -s "$kept" race-ref.l3d && ok ||
		fail "race with a $what ($f): the result was not kept: $(cat race5.err)"
	[ ! -e race-target.l3d ] && ok || fail "race with a $what ($f): written through"
	rm -f "$kept"
done
rm -rf race5.l3d

# Runs that must last step densely (LIFE3D_SKIP=0): a settled universe
# would finish its hundred million steps at once.
# SIGHUP stops a run like SIGTERM: checkpoint, no output, exit 130.  Not
# testable where the tests themselves run with SIGHUP ignored (under
# nohup): life3d keeps a SIGHUP ignored that it was started with (as
# cli_signals checks), and a shell cannot take such an ignore back, so the
# run would go on to its last step.
sig_ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2>/dev/null)
last=${sig_ignored#"${sig_ignored%?}"}
if [ -n "$last" ] && [ $((0x$last & 1)) -ne 0 ]; then
	echo "$name: SIGHUP is ignored here (nohup?): the SIGHUP case is skipped"
else
	LIFE3D_SKIP=0 "$LIFE3D" -q --random 60 --seed 4 -n 100000000 --checkpoint hup.l3d \
		-o hup-out.l3d &
	pid=$!
	sleep 1
	kill -HUP $pid
	wait $pid
	rc=$?
	[ "$rc" -eq 130 ] && ok || fail "SIGHUP exit $rc, expected 130"
	expect_absent hup-out.l3d "SIGHUP"
	[ -s hup.l3d ] && "$LIFE3D" -q -n 1 -o /dev/null hup.l3d && ok ||
		fail "no resumable checkpoint after SIGHUP"
	if ls -A | grep -q '\.tmp$'; then fail "temporary files after SIGHUP"; else ok; fi
fi

# No output follows a symbolic link, even with -f; a link to a FIFO is not
# written into.
ln -s target.l3d link.l3d
for opt in "-o" "--log" "--checkpoint"; do
	for f in "" "-f"; do
		expect_exit 73 "$opt to a symbolic link $f" -- "$LIFE3D" -q $f -n 1 --checkpoint-every 1 -o x.l3d $opt link.l3d u.l3d
		expect_err_line "link.l3d: is a symbolic link" "$opt to a symbolic link $f message"
		expect_absent target.l3d "$opt to a symbolic link $f"
		[ -L link.l3d ] && ok || fail "$opt to a symbolic link $f: the link was replaced"
		rm -f x.l3d
	done
done
# Nor a directory in its path that is another user's link planted in a
# shared (sticky, world-writable) directory, as /tmp is; the user's own
# links, and others' in directories that are not shared, are followed.
mkdir realdir mydir shared && chmod 1777 shared
ln -s ../mydir shared/mine
"$LIFE3D" -q -n 1 -o shared/mine/own.l3d u.l3d && [ -s mydir/own.l3d ] && ok || fail "-o through the user's own directory link"
if [ "$(id -u)" = 0 ]; then
	ln -s ../realdir shared/theirs && chown -h 65534:65534 shared/theirs
	for opt in "-o" "--log" "--checkpoint" "--snapshot-prefix"; do
		expect_exit 73 "$opt through another user's directory link" -- "$LIFE3D" -q -f -n 1 --snapshot-every 1 \
			--checkpoint-every 1 -o x.l3d $opt shared/theirs/y.l3d u.l3d
		expect_err_line "'shared/theirs' is another user's symbolic link in a shared directory" \
			"$opt through another user's directory link: message"
		expect_absent x.l3d "$opt through another user's directory link: refused before the first step"
	done
	[ -z "$(ls -A realdir)" ] && ok || fail "written through another user's directory link: $(ls realdir)"
	# Nor through one's own link that leads through theirs, however deep
	# (the kernel's protected_symlinks checks every link it follows).
	ln -s shared/theirs mine1 && ln -s mine1 mine2 && ln -s ../mine2/. shared/mine3 || exit 99
	for via in mine1 mine2 shared/mine3 mine1/../mine1; do
		for opt in "-o" "--log" "--checkpoint" "--snapshot-prefix"; do
			expect_exit 73 "$opt through $via, a link of one's own to another user's link" -- \
				"$LIFE3D" -q -f -n 1 --snapshot-every 1 --checkpoint-every 1 -o x.l3d $opt "$via/y.l3d" u.l3d
			expect_err_line "$via/y.l3d[0-9png.]*: '.*' leads through 'theirs', another user's symbolic link in a shared directory" \
				"$opt through $via: message"
			expect_absent x.l3d "$opt through $via: refused before the first step"
		done
	done
	# All four at once, as a job would name them.
	expect_exit 73 "every output through one's own link to another user's" -- "$LIFE3D" -q -n 1 \
		-o mine1/b.l3d --log mine1/b.tsv --checkpoint mine1/c.l3d --snapshot-every 1 \
		--snapshot-prefix mine1/s- u.l3d
	[ -z "$(ls -A realdir)" ] && ok || fail "written through one's own link to another user's: $(ls realdir)"
	rm -f mine1 mine2 shared/mine3
	ln -s realdir colleague && chown -h 65534:65534 colleague
	"$LIFE3D" -q -n 1 -o colleague/c.l3d u.l3d && [ -s realdir/c.l3d ] && ok ||
		fail "-o through another user's link in a directory that is not shared"
	rm -f x.l3d realdir/c.l3d
fi
mkfifo fifo && ln -s fifo fifolink || exit 99
expect_exit 73 "-o to a link to a FIFO" -- timeout 10 "$LIFE3D" -q -n 1 -o fifolink u.l3d
expect_exit 73 "snapshot name that is a link" -- sh -c "ln -s target.png snap-000000.png; '$LIFE3D' -q -f -n 1 --snapshot-every 1 --snapshot-prefix snap- -o x.l3d u.l3d"
expect_absent target.png "snapshot name that is a link"
expect_absent x.l3d "snapshot name that is a link"
# The user's own FIFO and /dev/stdout are written to, like "-".
cat fifo >fromfifo.l3d &
"$LIFE3D" -q -n 0 -o fifo u.l3d && ok || fail "-o to the user's FIFO"
wait
expect_same u.l3d fromfifo.l3d "-o to the user's FIFO"
"$LIFE3D" -q -n 0 -o /dev/stdout u.l3d >stdout.l3d && ok || fail "-o /dev/stdout"
expect_same u.l3d stdout.l3d "-o /dev/stdout"
# Root may be handed another user's FIFO in a shared directory: refused.
if [ "$(id -u)" = 0 ] && chown nobody fifo 2>/dev/null; then
	expect_exit 73 "-o to another user's FIFO" -- timeout 10 "$LIFE3D" -q -n 1 -o fifo u.l3d
	expect_err_line "fifo: is a FIFO of another user" "another user's FIFO message"
fi

# Every output path is checked before the first step: each of these fails
# at once, with no result.
long=$(printf 'n%.0s' $(seq 1 240)).l3d
"$LIFE3D" -q --random 256 --seed 2 -n 0 -o u256.l3d || fail "make u256.l3d"
for c in "73|snapshot name that exists|--snapshot-every 10 --snapshot-prefix taken-|" \
	 "73|checkpoint in a missing directory|--max-time 1h --checkpoint nodir/ck.l3d|" \
	 "73|name whose temporary name is too long|-o $long|" \
	 "64|log equal to -o|--log same.l3d -o same.l3d|" \
	 "64|checkpoint equal to -o|--checkpoint same.l3d -o same.l3d|" \
	 "64|-o one of the snapshots|--snapshot-every 10 --snapshot-prefix sn- -o sn-000000.png|"; do
	code=${c%%|*}; rest=${c#*|}; what=${rest%%|*}; args=${rest#*|}; args=${args%|}
	: >taken-000020.png
	# 999999 dense steps of 256^3 cells take many minutes: the status
	# shows a refusal before the first step (the hang guard's 124, a run
	# that went on).
	expect_exit "$code" "$what" -- env LIFE3D_SKIP=0 timeout 60 "$LIFE3D" -q --engine cpu -n 999999 \
		-o up.l3d $args u256.l3d
	expect_absent up.l3d "$what"
	expect_absent same.l3d "$what"
done

# A log that cannot be written (a full disk, a file size limit) once steps
# were taken: the generation reached goes to the checkpoint, the log keeps
# its whole lines, and resuming from the checkpoint continues both as the
# run would have gone on.  (ulimit -f counts blocks of 512 bytes here: the
# 400 lines need about 4 KiB, a checkpoint of u.l3d about 600 bytes.)
"$LIFE3D" -q -n 400 --log whole.tsv -o whole.l3d u.l3d || fail "uninterrupted logged run"
expect_exit 74 "log over the file size limit" -- sh -c "ulimit -f 2; exec '$LIFE3D' -q -n 400 --log big.tsv -o big.l3d u.l3d"
expect_err_line "big.tsv: write error: File too large; generation [0-9]* is kept in the checkpoint big.l3d.ckpt.l3d" \
	"log over the file size limit: message"
[ "$(tail -c 1 big.tsv | od -An -c | tr -d ' ')" = '\n' ] && ok || fail "log over the file size limit: a line cut short"
"$LIFE3D" -q --until 400 --log big.tsv -o big.l3d big.l3d.ckpt.l3d || fail "resumed after the file size limit"
expect_same whole.tsv big.tsv "log over the file size limit, resumed: the log"
expect_same whole.l3d big.l3d "log over the file size limit, resumed: the result"
# Without a checkpoint to record its lines, the log is left as it was:
# removed when the run made it, its old bytes back when the run continued it.
expect_exit 74 "log and checkpoint over the file size limit" -- sh -c "ulimit -f 2; exec '$LIFE3D' -q -n 400 --log none.tsv --checkpoint /dev/full -o /dev/null u.l3d"
expect_absent none.tsv "log and checkpoint over the file size limit"
"$LIFE3D" -q -n 20 --checkpoint-every 10 --checkpoint c.l3d --log c.tsv -o /dev/null u.l3d || fail "checkpointed run"
{ grep '^#' c.tsv; log_data c.tsv | head -n 17; } >c.cut && cat c.cut >c.tsv && cp c.tsv c.before     # stopped at 15
expect_exit 74 "continued log over the file size limit" -- sh -c "ulimit -f 2; exec '$LIFE3D' -q --until 400 --log c.tsv --checkpoint /dev/full -o /dev/null c.l3d"
expect_same c.before c.tsv "continued log over the file size limit"
# ... and with one, a continued log keeps its whole lines too.
expect_exit 74 "continued log over the file size limit, kept" -- sh -c "ulimit -f 2; exec '$LIFE3D' -q --until 400 --log c.tsv -o c400.l3d c.l3d"
"$LIFE3D" -q --until 400 --log c.tsv -o c400.l3d c400.l3d.ckpt.l3d || fail "continued log: resumed again"
expect_same whole.tsv c.tsv "continued log over the file size limit, resumed: the log"
expect_same whole.l3d c400.l3d "continued log over the file size limit, resumed: the result"
if [ -w /dev/full ]; then
	expect_exit 74 "log to a full disk" -- "$LIFE3D" -q -n 2 --log /dev/full -o /dev/null u.l3d
fi

# A snapshot that cannot be written once steps were taken (here the
# picture of generation 15, about 80 kB, over a file size limit of 40 KiB
# that the earlier ones and a checkpoint fit): the generation reached goes
# to the checkpoint, and the run can go on from there.
printf '3D version=1 size=32\nx=1 y=1 z=1 rule=B1/S\no!\n' >spark.rle3
"$LIFE3D" -q -n 40 -o spark40.l3d spark.rle3 || fail "spark: reference"
expect_exit 74 "snapshot over the file size limit" -- sh -c "ulimit -f 80; exec '$LIFE3D' -q -n 40 \
	--snapshot-every 5 --snapshot-kind render --snapshot-prefix spark- -o spark.l3d spark.rle3"
expect_err_line "spark-000015.png: write error: File too large; generation [0-9]* is kept in the checkpoint spark.l3d.ckpt.l3d" \
	"snapshot over the file size limit: message"
expect_absent spark-000015.png "snapshot over the file size limit"
"$LIFE3D" -q --until 40 -o spark.l3d spark.l3d.ckpt.l3d || fail "snapshot over the file size limit: resumed"
expect_same spark40.l3d spark.l3d "snapshot over the file size limit, resumed"

# The default checkpoint of a run whose result goes to standard output or
# a device is its own (life3d-PID-TIME.ckpt.l3d), never /dev/null.ckpt.l3d
# or a name every such run shares.
LIFE3D_SKIP=0 "$LIFE3D" -q --threads 1 --random 60 --seed 4 -n 100000000 -o /dev/null 2>dn.err &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "-o /dev/null SIGTERM: exit $rc: $(cat dn.err)"
ck=$(sed -n 's/.*checkpoint in \(life3d-'$pid'-[0-9]*\.ckpt\.l3d\)$/\1/p' dn.err)
[ -n "$ck" ] && [ -s "$ck" ] && ok || fail "-o /dev/null checkpoint: $(cat dn.err)"
expect_absent /dev/null.ckpt.l3d "-o /dev/null checkpoint"

# A name of the run's own that someone planted (they guessed the process
# id and the second) is not written through, nor does it stop the run:
# the checkpoints go beside it.  ($$ of the shell is life3d's after exec.)
# The names cover the next 60 seconds: a loaded machine (a sanitizer
# build beside other tests) may take several before life3d names its
# checkpoint.
echo victim >victim
sh -c 't0=$(date +%s); for t in $(seq 0 60); do ln -s victim "life3d-$$-$((t0 + t)).ckpt.l3d"; done
       exec "$0" -q --threads 1 --random 16 -n 10 --checkpoint-every 4 -v -o - >planted.out 2>planted.err' "$LIFE3D" &&
	ok || fail "planted default checkpoint name: $(cat planted.err)"
grep -q "checkpoint at generation 8 in life3d-[0-9]*-[0-9]*\.ckpt-[0-9a-f]*\.l3d" planted.err && ok ||
	fail "planted default checkpoint name: $(cat planted.err)"
[ "$(cat victim)" = victim ] && ok || fail "planted default checkpoint name: written through the link"
rm -f life3d-*.ckpt*.l3d

# With -f, a checkpoint replaces the file that was at its name when the
# run began, not one another run put there since.
LIFE3D_SKIP=0 "$LIFE3D" -q -f --threads 1 -r B5..7/S4..9 --random 48 -n 100000000 --checkpoint-every 20 \
	--checkpoint two.ckpt.l3d -o two.l3d 2>two.err &
pid=$!
i=0
while [ ! -s two.ckpt.l3d ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
cp u.l3d other.tmp && mv other.tmp two.ckpt.l3d
sleep 1
kill -TERM $pid
wait $pid
expect_same u.l3d two.ckpt.l3d "-f: another run's checkpoint, put there during the run"
grep -q "checkpoints of this run go to two.ckpt-[0-9a-f]*\.l3d" two.err && ok || fail "-f: checkpoint moved beside: $(cat two.err)"
rm -f two.ckpt-*.l3d

# A closed standard descriptor is not taken over by a file of the run:
# messages never go into the log, and a closed standard output is refused
# before the first step, not after the last.
"$LIFE3D" -v -f -n 2 --snapshot-every 1 --snapshot-size 16 --snapshot-prefix cl- --log cl.tsv -o cl.l3d u.l3d 2>&- &&
	ok || fail "closed stderr: exit $?"
grep -q '^life3d:' cl.tsv && fail "closed stderr: messages in the log: $(grep '^life3d:' cl.tsv)" || ok
LIFE3D_SKIP=0 timeout 60 "$LIFE3D" --threads 1 -n 1000000000000000000 u.l3d >&- 2>cl.err
rc=$?
[ $rc -eq 73 ] && ok || fail "closed stdout: exit $rc, expected 73 (124: not refused before the steps)"
cp cl.err "$T/err" && expect_err_line "(stdout): standard output is closed" "closed stdout: message"
"$LIFE3D" --help >&- 2>/dev/null && fail "--help to a closed stdout: exit 0" || ok

# -f over a log puts a new file at its name: another name for the old log
# (a hard link, planted or not) keeps its bytes.
echo "not a log" >keep.txt && ln keep.txt hl.tsv
"$LIFE3D" -q -f -n 2 --log hl.tsv -o hl.l3d u.l3d || fail "-f over a hard-linked log"
[ "$(cat keep.txt)" = "not a log" ] && ok || fail "-f over a hard-linked log: wrote through the link"
[ "$(log_data hl.tsv | head -n 1)" = "$(printf 'step\tpopulation\tbirths\tdeaths')" ] && ok || fail "-f over a hard-linked log: $(head -n 2 hl.tsv)"

# A result that cannot be written (a full disk) is not lost: the final
# universe goes to the checkpoint, which the message names.
if [ -w /dev/full ]; then
	"$LIFE3D" -q -n 7 -o ref7.l3d u.l3d || fail "reference for /dev/full"
	expect_exit 74 "result to a full disk" -- "$LIFE3D" -q -n 7 -o /dev/full u.l3d
	ck=$(sed -n 's/.*generation 7 is kept in the checkpoint \(life3d-[0-9]*-[0-9]*\.ckpt\.l3d\)$/\1/p' "$T/err")
	expect_err_line "/dev/full: write error: No space left on device; generation 7 is kept in the checkpoint" "result to a full disk: message"
	[ -n "$ck" ] && "$LIFE3D" -q -n 0 -o kept7.l3d "$ck" && ok || fail "result to a full disk: no checkpoint: $(cat "$T/err")"
	expect_same ref7.l3d kept7.l3d "result to a full disk: the checkpoint's universe"
	rm -f life3d-*.ckpt.l3d
	# The checkpoint records the run's log, so a resumed run continues it.
	"$LIFE3D" -q -n 12 --log ref12.tsv -o ref12.l3d u.l3d || fail "logged reference for /dev/full"
	expect_exit 74 "result to a full disk, logged" -- "$LIFE3D" -q -n 7 --log full7.tsv -o /dev/full u.l3d
	ck=$(sed -n 's/.*generation 7 is kept in the checkpoint \(life3d-[0-9]*-[0-9]*\.ckpt\.l3d\)$/\1/p' "$T/err")
	[ -n "$ck" ] && "$LIFE3D" -q --until 12 --log full7.tsv -o full12.l3d "$ck" && ok ||
		fail "result to a full disk, logged: resumed: $(cat "$T/err")"
	expect_same ref12.tsv full7.tsv "result to a full disk, logged: the log continued"
	expect_same ref12.l3d full12.l3d "result to a full disk, logged: the result"
	rm -f life3d-*.ckpt.l3d
fi
# A result that cannot take its name (an immutable file, where the file
# system has the attribute) is kept, and the message says where.
: >imm.l3d
if chattr +i imm.l3d 2>/dev/null; then
	expect_exit 73 "-f over an immutable file" -- "$LIFE3D" -q -f -n 3 -o imm.l3d u.l3d
	kept=$(sed -n 's/.*the result is in \(.*\)$/\1/p' "$T/err")
	chattr -i imm.l3d
	[ -n "$kept" ] && "$LIFE3D" -q -n 0 -o imm3.l3d "$kept" && ok || fail "-f over an immutable file: $(cat "$T/err")"
	rm -f "$kept"
	"$LIFE3D" -q -n 3 -o ref3.l3d u.l3d && expect_same ref3.l3d imm3.l3d "-f over an immutable file: the kept result"
fi

# A resumed run whose log is gone says so.
"$LIFE3D" -q -n 10 --checkpoint-every 5 --checkpoint gone.ckpt.l3d --log gone.tsv -o /dev/null u.l3d ||
	fail "a run with a log and a checkpoint"
rm -f gone.tsv
expect_exit 0 "resumed without its log" -- "$LIFE3D" --until 10 --log gone.tsv -o /dev/null gone.ckpt.l3d
grep -q "^life3d: warning: gone.tsv: the checkpoint continues a log of [0-9]* bytes, not found here; this log starts at generation 5$" \
	"$T/err" && ok || fail "resumed without its log: warning: $(cat "$T/err")"
finish
