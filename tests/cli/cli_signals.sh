#!/bin/sh
# Signals do what life3d(1) says whatever the run is doing: reading the
# input (from a file, a pipe or a FIFO), stepping, logging to a slow
# reader, writing checkpoints, snapshots and the result.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
no_tmp() {  # DESCRIPTION: no temporary file is left
	if ls -A | grep -q '\.tmp$'; then fail "$1: temporary files left: $(ls -A | grep '\.tmp$')"; else ok; fi
}
# ready PID: wait (up to 10 s) until the process catches SIGTERM and
# SIGUSR1, so a delay counts from when life3d can answer a signal, not from
# an exec that a slow start (sanitizers, a loaded machine) may stretch.
ready() {
	i=0
	while [ $i -lt 1000 ] && [ -r "/proc/$1/status" ]; do
		mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
		[ -n "$mask" ] && [ $(( 0x$mask & 0x4200 )) -eq $(( 0x4200 )) ] && return 0
		sleep 0.01
		i=$((i + 1))
	done
	return 0
}
# Under valgrind everything is some 50 times slower: fewer, shorter runs,
# and W seconds more for life3d to start before a signal is meant for it.
# Under the sanitizers some ten times: shorter runs, and fewer points in
# them (the same phases: the input, the steps, checkpoints, pictures and
# the result), since every SIGUSR1 run and resumed run goes to its end.
# The runs step a chaotic rule, which activity skipping cannot shorten, for
# about as long as the last delay (1 s or so on one thread of a fast core),
# so that the signals find them stepping, not done (a soup settles at once).
# Leaps are off, so that no change in what leaps can end these runs before
# the signals come.
export LIFE3D_LEAP=0
if [ -n "${LIFE3D_VALGRIND:-}" ]; then
	N=1500 delays="3 5 7" W=4
elif [ "${LIFE3D_SANITIZERS:-no}" = yes ]; then
	W=0 N=2000 delays="0.01 0.05 0.2 0.5 1.0"
else
	W=0 N=12000 delays="0.01 0.02 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6 0.8 1.0"
fi
"$LIFE3D" -q --random 128 --seed 6 -n 0 -o u.l3d || fail "make u.l3d"
ARGS="-q --threads 1 --engine cpu -r B5..7/S4..9 --checkpoint-every 200 --snapshot-every 500
      --snapshot-prefix s-"
"$LIFE3D" $ARGS -n $N --log ref.tsv -o ref.l3d u.l3d || fail "reference run"
rm -f s-*

# SIGTERM at many points: the result complete or absent, a resumable
# checkpoint whenever stepping had begun, the resumed run bit-identical.
for d in $delays; do
	rm -f o.l3d o.tsv o.ckpt.l3d s-*
	"$LIFE3D" $ARGS -n $N --checkpoint o.ckpt.l3d --log o.tsv -o o.l3d u.l3d 2>o.err &
	pid=$!
	ready $pid
	sleep "$d"
	kill -TERM $pid
	wait $pid
	rc=$?
	echo "SIGTERM at $d s: exit $rc: $(cat o.err)"
	case $rc in
	0)  expect_same ref.l3d o.l3d "finished despite SIGTERM at $d s"
	    expect_same ref.tsv o.tsv "log finished despite SIGTERM at $d s" ;;
	130)
	    expect_absent o.l3d "SIGTERM at $d s"
	    if grep -q "while reading the input" o.err; then
		expect_absent o.ckpt.l3d "SIGTERM while reading, at $d s"
		expect_absent o.tsv "SIGTERM while reading, at $d s"
	    elif grep -q "checkpoint in o.ckpt.l3d" o.err; then
		"$LIFE3D" $ARGS --until $N --checkpoint o.ckpt.l3d --log o.tsv -o o.l3d o.ckpt.l3d \
			&& ok || fail "resume after SIGTERM at $d s"
		expect_same ref.l3d o.l3d "resumed after SIGTERM at $d s"
		expect_same ref.tsv o.tsv "log resumed after SIGTERM at $d s"
	    else
		fail "SIGTERM at $d s: $(cat o.err)"
	    fi
	    [ "$(wc -l <o.err)" -eq 1 ] && ok || fail "SIGTERM at $d s said: $(cat o.err)" ;;
	*)  fail "SIGTERM at $d s: exit $rc: $(cat o.err)" ;;
	esac
	no_tmp "SIGTERM at $d s"
done

# SIGUSR1 at many points: the run goes on to the same result.
for d in $delays; do
	rm -f o.l3d o.tsv o.ckpt.l3d s-*
	"$LIFE3D" $ARGS -n $N --checkpoint o.ckpt.l3d --log o.tsv -o o.l3d u.l3d 2>o.err &
	pid=$!
	ready $pid
	sleep "$d"
	kill -USR1 $pid
	wait $pid
	rc=$?
	[ "$rc" -eq 0 ] && ok || fail "SIGUSR1 at $d s: exit $rc: $(cat o.err)"
	expect_same ref.l3d o.l3d "SIGUSR1 at $d s"
	no_tmp "SIGUSR1 at $d s"
done
rm -f s-*

# ready PID: wait until process PID is life3d with its handlers for
# SIGTERM and SIGUSR1 set, as /proc shows, so that a loaded machine does
# not make a signal arrive before them; 1.5 s at most, well within the
# 2 s that slow() holds the input back.  Where /proc cannot tell (none,
# or life3d under valgrind), half a second, as a start takes.
ready() {
	n=0
	while [ $n -lt 15 ]; do
		comm=$(cat "/proc/$1/comm" 2>/dev/null) || break
		case $comm in
		life3d | lt-life3d) ;;
		sh | dash | bash) sleep 0.1; n=$((n + 1)); continue ;;
		*) break ;;
		esac
		cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		low=${cgt#"${cgt%????}"}
		[ -n "$low" ] && [ $((0x$low & 0x4200)) -eq $((0x4200)) ] && return 0
		sleep 0.1
		n=$((n + 1))
	done
	[ $n -lt 15 ] && sleep 0.5
	return 0
}

# While the input still comes through a pipe: SIGTERM stops at once with
# 130 and writes nothing; SIGUSR1 does not break the read.
slow() { head -c 64 u.l3d; sleep $((2 + 2 * W)); tail -c +65 u.l3d; }
slow | "$LIFE3D" -q -n 5 -o p.l3d 2>p.err &
pid=$!
ready $pid; sleep 0.2; sleep $W
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGTERM while reading a pipe: exit $rc: $(cat p.err)"
grep -q "while reading the input" p.err && ok || fail "SIGTERM while reading a pipe said: $(cat p.err)"
expect_absent p.l3d "SIGTERM while reading a pipe"
expect_absent p.l3d.ckpt.l3d "SIGTERM while reading a pipe (no checkpoint of the input)"
"$LIFE3D" -q -n 5 -o p5.l3d u.l3d || fail "five steps"
slow | "$LIFE3D" -q -n 5 --checkpoint p.ckpt.l3d -o p.l3d 2>p.err &
pid=$!
ready $pid; sleep 0.2; sleep $W
kill -USR1 $pid
wait $pid
rc=$?
[ "$rc" -eq 0 ] && ok || fail "SIGUSR1 while reading a pipe: exit $rc: $(cat p.err)"
expect_same p5.l3d p.l3d "SIGUSR1 while reading a pipe"

# SIGTERM while opening a FIFO for input (no writer yet): 130, not 66.
rm -f in.fifo && mkfifo in.fifo || exit 99
"$LIFE3D" -q -n 1 -o f.l3d in.fifo 2>f.err &
pid=$!
ready $pid; sleep 0.2; sleep $W
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGTERM while opening a FIFO: exit $rc: $(cat f.err)"

# A FIFO to write whose reader never comes: the first SIGTERM stops the
# run at once (130, one line), before the first step (the log) and after
# the last (the result).  A watchdog turns a hang into a failure.
stops_at_once() {     # what pid
	kill -TERM $2
	n=0
	while kill -0 $2 2>/dev/null && [ $n -lt $((30 + 20 * W)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if kill -0 $2 2>/dev/null; then
		kill -KILL $2
		wait $2
		fail "$1: still waiting for the FIFO's reader after SIGTERM"
		return
	fi
	wait $2
	rc=$?
	[ "$rc" -eq 130 ] && ok || fail "$1: exit $rc: $(cat ff.err)"
	[ "$(wc -l <ff.err)" -eq 1 ] && grep -q "waiting for a FIFO's reader" ff.err &&
		ok || fail "$1 said: $(cat ff.err)"
}
rm -f log.fifo res.fifo ff.log ff.ckpt.l3d && mkfifo log.fifo res.fifo || exit 99
"$LIFE3D" -q -n 5 --log log.fifo --checkpoint ff.ckpt.l3d -o ff.l3d u.l3d 2>ff.err &
pid=$!
ready $pid; sleep 0.5; sleep $W
stops_at_once "--log FIFO without a reader" $pid
expect_absent ff.l3d "--log FIFO without a reader"
expect_absent ff.ckpt.l3d "--log FIFO without a reader (no checkpoint of the input)"
"$LIFE3D" -q -n 5 --log ff.log --checkpoint ff.ckpt.l3d --format l3d -o res.fifo u.l3d 2>ff.err &
pid=$!
ready $pid; sleep 0.5; sleep $W
stops_at_once "-o FIFO without a reader" $pid
"$LIFE3D" -q -n 5 --log ff-ref.log -o /dev/null u.l3d || fail "five steps, logged"
expect_same ff-ref.log ff.log "the log finished before an unread result FIFO"
# ... and when the result is written already (the last picture, to a
# FIFO of one's own that -f lets it write, still waits), it says so.
rm -f ffs-000001.png ffs.l3d && mkfifo ffs-000001.png || exit 99
"$LIFE3D" -q -f -n 1 --snapshot-every 1 --snapshot-prefix ffs- -o ffs.l3d u.l3d 2>ff.err &
pid=$!
ready $pid; sleep 1; sleep $W
stops_at_once "snapshot FIFO without a reader, after the result" $pid
grep -q "the result is written" ff.err && [ -s ffs.l3d ] && ok ||
	fail "snapshot FIFO without a reader, after the result: said: $(cat ff.err)"

# --log - to a reader that has stopped reading: the run blocks in a write;
# SIGUSR1 and SIGTERM there neither fail the write nor lose the checkpoint.
rm -f l.ckpt.l3d
rm -f l.pid
{ "$LIFE3D" -q --threads 1 --random 16 -n 100000000 --log - --checkpoint l.ckpt.l3d -o l.l3d 2>l.err &
  echo $! >l.pid; wait $!; echo $? >l.rc; } | { sleep $((2 + 2 * W)); cat >/dev/null; } &
sleep 1; sleep $W
pid=$(cat l.pid)
kill -USR1 $pid
sleep 0.2
kill -TERM $pid
wait
[ "$(cat l.rc)" = 130 ] && ok || fail "SIGTERM while --log - blocks: exit $(cat l.rc): $(cat l.err)"
"$LIFE3D" -q -n 1 -o /dev/null l.ckpt.l3d && ok || fail "no resumable checkpoint after SIGTERM while --log - blocks"
expect_absent l.l3d "SIGTERM while --log - blocks"

# A second signal ends the run at once, and says so in one line.
rm -f l2.pid
{ "$LIFE3D" -q --threads 1 --random 16 -n 100000000 --log - --checkpoint l2.ckpt.l3d -o l2.l3d 2>l2.err &
  echo $! >l2.pid; wait $!; echo $? >l2.rc; } | { sleep $((2 + 2 * W)); cat >/dev/null; } &
sleep 1; sleep $W
pid=$(cat l2.pid)
kill -TERM $pid
sleep 0.2
kill -TERM $pid
wait
[ "$(cat l2.rc)" = 130 ] && ok || fail "second SIGTERM: exit $(cat l2.rc)"
[ "$(wc -l <l2.err)" -eq 1 ] && grep -q "second signal" l2.err && ok || fail "second SIGTERM said: $(cat l2.err)"
# A second signal once the result is written (the last picture, of 2^27
# pixels, still being encoded): the line says the result is there, and it
# is whole.
"$LIFE3D" -q --threads 1 --random 16 -n 0 --snapshot-every 1 --snapshot-size 1000000 \
	--snapshot-prefix big- -o r2.l3d 2>r2.err &
pid=$!
i=0
while [ ! -e r2.l3d ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
kill -TERM $pid
sleep 0.05
kill -TERM $pid
wait $pid
rc=$?
if [ "$rc" = 0 ]; then
	echo "$name: the last picture was finished before the signals: not checked"
else
	[ "$rc" = 130 ] && [ "$(wc -l <r2.err)" -eq 1 ] && grep -q "second signal 15; the result is written" r2.err &&
		ok || fail "a second SIGTERM after the result: exit $rc: $(cat r2.err)"
	"$LIFE3D" -q -n 0 -o /dev/null r2.l3d && ok || fail "a second SIGTERM after the result: r2.l3d"
fi
rm -f big-*.png
# A signal while a configuration file is read from a FIFO no one writes
# (-c names it: an @include of one is refused, cli_config): one line,
# status 130.
mkfifo conf.fifo
"$LIFE3D" -q -c conf.fifo --random 4 -o fifo.l3d 2>fifo.err &
pid=$!
ready $pid
sleep 0.2
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" = 130 ] && [ "$(wc -l <fifo.err)" -eq 1 ] && grep -q "signal 15" fifo.err && ok ||
	fail "SIGTERM while a configuration file is read from a FIFO: exit $rc: $(cat fifo.err)"
expect_absent fifo.l3d "SIGTERM while reading the configuration"

# A SIGHUP that the caller ignores (nohup) stays ignored: the run goes on
# to its result.
rm -f ig.l3d
(trap '' HUP; exec "$LIFE3D" -q --threads 1 -r B5..7/S4..9 -n $N -o ig.l3d u.l3d) 2>ig.err &
pid=$!
ready $pid
sleep 0.2; sleep $W
kill -HUP $pid
wait $pid
rc=$?
[ "$rc" = 0 ] && ok || fail "ignored SIGHUP: exit $rc: $(cat ig.err)"
expect_same ref.l3d ig.l3d "ignored SIGHUP"
# SIGXCPU (a CPU time limit's warning, repeated every second past it)
# stops the run with a checkpoint, as SIGTERM does, however many come.
rm -f x.l3d x.ckpt.l3d
"$LIFE3D" -q --threads 1 -r B5..7/S4..9 -n $N --checkpoint x.ckpt.l3d -o x.l3d u.l3d 2>x.err &
pid=$!
ready $pid
sleep 0.2; sleep $W
kill -XCPU $pid; kill -XCPU $pid; sleep 0.01; kill -XCPU $pid
wait $pid
rc=$?
[ "$rc" = 130 ] && [ "$(wc -l <x.err)" -eq 1 ] && grep -q "interrupted by signal 24 at generation [0-9]*; checkpoint in x.ckpt.l3d" x.err &&
	ok || fail "SIGXCPU: exit $rc: $(cat x.err)"
"$LIFE3D" -q --threads 1 -r B5..7/S4..9 --until $N -o x.l3d x.ckpt.l3d || fail "resume after SIGXCPU"
expect_same ref.l3d x.l3d "resumed after SIGXCPU"
no_tmp "signals"
finish
