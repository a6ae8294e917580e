#!/bin/sh
# cli_leap.sh - leaps over universes that repeat with any period, seen from
# the command line (the CPU engine and CPU ranks, which alone leap over
# periods above 2): soups that settle into periods 1 to 24, a glider that
# travels round its torus (period 64); each against the same run with
# LIFE3D_LEAP=0 at every log line, in the result and in the snapshots; a
# trillion steps against a dense run to the same phase; a hash cut to a
# few bits, so that collisions happen; a resume from a universe written
# inside a leap; no leap with LIFE3D_LEAP=0 or LIFE3D_SKIP=0; over 2, 3
# and 5 MPI ranks, the same leaps and results as one process.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
export LIFE3D_SIMD="${LIFE3D_SIMD:-auto}"

# The period -v reported in FILE, and the generation it was found from.
period_of() { sed -n 's/^life3d: period \([0-9]*\) found: the universe of generation \([0-9]*\) came back.*/\1 \2/p' "$1"; }

# against NAME EXPECTED-PERIOD ARGS...: a leaping run and one with
# LIFE3D_LEAP=0 give the same log, result and pictures; -v names the
# period expected.
against() {
	n=$1 want=$2
	shift 2
	mkdir -p "$n.a" "$n.b"
	"$LIFE3D" -v --engine cpu "$@" --log "$n.a/log" --snapshot-prefix "$n.a/s-" \
		-o "$n.a/u.rle3" 2>"$n.err" || fail "$n: leaping run: $(tail -n 1 "$n.err")"
	LIFE3D_LEAP=0 "$LIFE3D" -q --engine cpu "$@" --log "$n.b/log" --snapshot-prefix "$n.b/s-" \
		-o "$n.b/u.rle3" || fail "$n: LIFE3D_LEAP=0 run"
	for f in log u.rle3; do
		expect_same "$n.a/$f" "$n.b/$f" "$n: $f"
	done
	for f in "$n".b/s-*; do
		[ -e "$f" ] || continue
		expect_same "$n.a/${f#$n.b/}" "$f" "$n: ${f#$n.b/}"
	done
	got=$(period_of "$n.err" | cut -d' ' -f1)
	case $want in
	none) [ -z "$got" ] && ok || fail "$n: period '$got' reported, where skipping's own leap was expected" ;;
	*x) # a multiple of it, or none (hashes that collide found no period)
		[ -z "$got" ] || [ $((got % ${want%x})) -eq 0 ] && ok ||
			fail "$n: period '$got', not a multiple of ${want%x}" ;;
	*) [ "$got" = "$want" ] && ok || fail "$n: period '$got', expected $want: $(grep period "$n.err")" ;;
	esac
}

# Soups that settle into periods; the log every step.  A still or period-2
# universe is left to skipping, which finds it exactly itself: no period
# is reported.
soup() { echo "--random $2 --density $3 --seed $4 --random-rule $1 -n $5"; }
against p1 none $(soup B6/S567 24 0.1 18 300) --snapshot-every 50
against p4 4 $(soup B5/S45 24 0.1 15 400) --snapshot-every 97
against p6 6 $(soup B5/S4567 16 0.1 40 1200) --snapshot-every 301
against p24 24 $(soup B5/S4567 24 0.2 18 12000) --snapshot-every 1001 --snapshot-kind slice

# A glider round a 16^3 torus: it comes back after 64 generations.
printf '3D version=1 size=16 16 16\nx=3 y=3 z=2 rule=3D5..7/6\nbo$2bo$3o/bo$2bo$3o!\n' >glider.rle3
against glider 64 -n 1000 --snapshot-every 77 glider.rle3
# Round a 128^3 torus (period 512): a universe this large is hashed only
# from its 4096th generation.
printf '3D version=1 size=128 128 128\nx=3 y=3 z=2 rule=3D5..7/6\nbo$2bo$3o/bo$2bo$3o!\n' >g128.rle3
against g128 512 -n 20000 --snapshot-every 6007 g128.rle3

# A trillion steps, a log line every 10^11: at once, and the universe and
# counts of the dense run to the same phase.
T12=1000000000000
"$LIFE3D" -v --engine cpu -n $T12 --log-every 100000000000 --log big.log -o big.rle3 \
	glider.rle3 2>big.err || fail "a trillion steps: $(tail -n 1 big.err)"
set -- $(period_of big.err)
if [ $# -eq 2 ]; then
	same=$(($2 + (T12 - $2) % $1))
	LIFE3D_SKIP=0 "$LIFE3D" -q --engine cpu -n $same --log phase.log -o phase.rle3 glider.rle3 ||
		fail "dense run to generation $same"
	sed -n 3p big.rle3 >big.cells
	sed -n 3p phase.rle3 >phase.cells
	expect_same big.cells phase.cells "a trillion steps = $same steps"
	[ "$(tail -n 1 big.log | cut -f2-)" = "$(tail -n 1 phase.log | cut -f2-)" ] && ok ||
		fail "last log line $(tail -n 1 big.log) against $(tail -n 1 phase.log)"
	[ "$(log_data big.log | wc -l)" -eq 12 ] && ok || fail "log lines: $(log_data big.log | wc -l)"
else
	fail "a trillion steps: no period reported: $(cat big.err)"
fi

# A hash of 1, 3 and 8 bits: nearly every generation matches an earlier
# one, the universes do not, and no leap is taken on a hash alone (a
# period found is then a multiple of the true one, or none is).
for bits in 1 3 8; do
	export LIFE3D_LEAP_HASH_BITS=$bits
	against weak$bits.p4 4x $(soup B5/S45 24 0.1 15 400) --snapshot-every 41
	against weak$bits.p24 24x $(soup B5/S4567 24 0.2 18 3000)
	against weak$bits.glider 64x -n 700 --snapshot-every 99 glider.rle3
done
unset LIFE3D_LEAP_HASH_BITS

# A universe written inside a leap (with checkpoints taken on the way)
# resumes to the same universe and log as the run straight through.
"$LIFE3D" -q --engine cpu -n 100000 --checkpoint-every 30011 --checkpoint whole.ckpt.l3d --log whole.log \
	-o whole.rle3 glider.rle3 || fail "run with checkpoints in a leap"
"$LIFE3D" -q --engine cpu -n 50001 --checkpoint-every 7919 --checkpoint half.ckpt.l3d -o half.l3d \
	glider.rle3 || fail "first half"
"$LIFE3D" -q --engine cpu --until 100000 --log rest.log -o rest.rle3 half.l3d || fail "resume inside a leap"
expect_same whole.rle3 rest.rle3 "resumed inside a leap"
[ "$(tail -n 1 whole.log)" = "$(tail -n 1 rest.log)" ] && ok ||
	fail "resumed log: $(tail -n 1 rest.log) against $(tail -n 1 whole.log)"

# No leap with leaps or skipping off.
for knob in LIFE3D_LEAP=0 LIFE3D_SKIP=0; do
	env $knob "$LIFE3D" -v --engine cpu -n 300 -o off.rle3 -f glider.rle3 2>off.err || fail "$knob run"
	grep -q "period" off.err && fail "$knob: a period reported: $(grep period off.err)" || ok
done
# Over MPI ranks (CPU backend; uneven slabs: 16 planes over 3 and 5):
# the ranks agree on the hash and leap together, to the same universe and
# log as one process.
# (Not under valgrind, which reports the MPI library's own reads.)
if [ -z "${LIFE3D_VALGRIND:-}" ] && "$LIFE3D" --version | grep -q '^mpi: built in' &&
	command -v mpirun >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	for np in 2 3 5; do
		timeout 300 mpirun --oversubscribe -np $np "$LIFE3D" -v --engine cpu -n $T12 --log-every 100000000000 \
			--log big$np.log -o big$np.rle3 glider.rle3 2>big$np.err ||
			fail "$np ranks: a trillion steps: $(tail -n 3 big$np.err)"
		expect_same big.rle3 big$np.rle3 "$np ranks: a trillion steps"
		expect_same big.log big$np.log "$np ranks: the log of a trillion steps"
		grep -q "^life3d: period 64 found" big$np.err && ok ||
			fail "$np ranks: no period: $(grep -v '^life3d: \(input\|result\|log\)' big$np.err)"
	done
	timeout 300 mpirun --oversubscribe -np 3 "$LIFE3D" -q --engine cpu $(soup B5/S4567 16 0.1 40 1200) \
		--log p6.mpi.log -o p6.mpi.rle3 || fail "3 ranks: the period-6 soup"
	expect_same p6.b/log p6.mpi.log "3 ranks: the period-6 soup's log"
	expect_same p6.b/u.rle3 p6.mpi.rle3 "3 ranks: the period-6 soup"
	LIFE3D_LEAP_HASH_BITS=3 timeout 300 mpirun --oversubscribe -np 3 "$LIFE3D" -q --engine cpu -n 5000 \
		--log weak.mpi.log -o weak.mpi.rle3 glider.rle3 || fail "3 ranks, a weak hash"
	LIFE3D_SKIP=0 "$LIFE3D" -q --engine cpu -n 5000 --log weak.dense.log -o weak.dense.rle3 \
		glider.rle3 || fail "dense run of 5000 steps"
	expect_same weak.dense.log weak.mpi.log "3 ranks, a weak hash: log"
	expect_same weak.dense.rle3 weak.mpi.rle3 "3 ranks, a weak hash"
fi

# A bad value is refused.
expect_exit 64 "LIFE3D_LEAP=2" -- env LIFE3D_LEAP=2 "$LIFE3D" -n 1 -o x.rle3 glider.rle3
expect_err_line "LIFE3D_LEAP: '2' is not 0 or 1" "LIFE3D_LEAP=2"
finish
