#!/bin/sh
# cli_skip.sh - activity skipping seen from the command line, on the CPU
# and (where there is one) the GPU: a settled universe takes a trillion
# steps at once, with the right final universe, generation and log; -v
# reports the tiles stepped; LIFE3D_SKIP=0 steps densely to the same bits.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# A B6/S567 soup, settled by generation 400 (still lifes and blinkers).
"$LIFE3D" -q --engine cpu --random 30 --seed 3 -n 400 -o settled.bin || fail "make settled.bin"

# Everything below for ENGINE (cpu, and cuda where there is a GPU).
skipping() {
	e=$1
	# A trillion steps, a log line every billion: leapt, as -v says.
	# (HPCGame files hold no generation: the run counts from 0.)
	"$LIFE3D" -v --engine $e -n 1000000000000 --log-every 1000000000 --log big.$e.tsv \
		-o big.$e.bin settled.bin 2>big.$e.err && ok || fail "$e: a trillion steps"
	leapt big.$e.err "$e: a trillion steps"
	[ "$(log_data big.$e.tsv | wc -l)" -eq 1002 ] && ok || fail "$e: log lines: $(log_data big.$e.tsv | wc -l)"
	[ "$(tail -n 1 big.$e.tsv | cut -f1)" = 1000000000000 ] && ok ||
		fail "$e: last log line: $(tail -n 1 big.$e.tsv)"
	# On to the last generation there is, with no log: at once too (an
	# engine call's length is not bounded below that).
	"$LIFE3D" -v --engine $e --until 18446744073709551615 -o max.$e.bin settled.bin \
		2>max.$e.err && ok || fail "$e: to generation 2^64 - 1"
	leapt max.$e.err "$e: to generation 2^64 - 1"
	LIFE3D_SKIP=0 "$LIFE3D" -q --engine $e -n 1 -o one.$e.bin settled.bin || fail "$e: one dense step"
	tail -c +17 max.$e.bin >max.$e.cells
	tail -c +17 one.$e.bin >one.$e.cells
	expect_same max.$e.cells one.$e.cells "$e: an odd number of steps = one step"
	# The same as two dense steps (an even number of steps of a period-2 universe).
	LIFE3D_SKIP=0 "$LIFE3D" -q --engine $e -n 2 --log two.$e.tsv -o two.$e.bin settled.bin || fail "$e: two dense steps"
	tail -c +17 big.$e.bin >big.$e.cells
	tail -c +17 two.$e.bin >two.$e.cells
	expect_same big.$e.cells two.$e.cells "$e: a trillion steps = two steps"
	[ "$(tail -n 1 big.$e.tsv | cut -f2-)" = "$(tail -n 1 two.$e.tsv | cut -f2-)" ] && ok ||
		fail "$e: last log line $(tail -n 1 big.$e.tsv) against $(tail -n 1 two.$e.tsv)"

	# Every log line of a run through the settling, skipping or not.
	for mode in 1 0; do
		LIFE3D_SKIP=$mode "$LIFE3D" -q --engine $e --random 30 --seed 3 -n 300 --log s$mode.$e.tsv \
			-o s$mode.$e.bin || fail "$e: run LIFE3D_SKIP=$mode"
	done
	expect_same s1.$e.tsv s0.$e.tsv "$e: log, skipping or not"
	expect_same s1.$e.bin s0.$e.bin "$e: universe, skipping or not"

	# A run resumed from a checkpoint taken in the sparse phase (tiles were
	# being skipped; the resumed run starts dense, then skips again) ends as
	# the run that was never stopped: the same universe and the same log.
	"$LIFE3D" -q --engine $e --random 30 --seed 3 -n 300 --checkpoint-every 150 \
		--checkpoint mid.$e.ckpt.l3d --log whole.$e.tsv -o whole.$e.l3d || fail "$e: run with checkpoints"
	cp whole.$e.tsv whole.$e.orig.tsv
	"$LIFE3D" -v --engine $e --until 300 --log whole.$e.tsv -o resumed.$e.l3d mid.$e.ckpt.l3d \
		2>resumed.$e.err || fail "$e: resume: $(cat resumed.$e.err)"
	expect_same whole.$e.l3d resumed.$e.l3d "$e: universe, resumed in the sparse phase"
	expect_same whole.$e.orig.tsv whole.$e.tsv "$e: log, resumed in the sparse phase"
	# (The GPU's tiles are coarser: 30^3 is 8 of them, too few to say.)
	share=$(sed -n 's/.*, \([0-9.]*\)% of tiles stepped$/\1/p' resumed.$e.err)
	[ -n "$share" ] && { [ $e = cuda ] || [ "${share%%.*}" -lt 50 ]; } && ok ||
		fail "$e: resumed run: $(tail -n 1 resumed.$e.err)"

	# -v says how much was stepped.
	"$LIFE3D" -v --engine $e -n 1000 -o /dev/null -f settled.bin 2>err.$e || fail "$e: -v run"
	grep -q "% of tiles stepped" err.$e && ok || fail "$e: -v: $(tail -n 1 err.$e)"
}

skipping cpu
gpus=$("$LIFE3D" --version | sed -n 's/^gpus: //p')
case "$gpus" in
"" | none*) ;;
*)
	skipping cuda
	# The GPU's trillion steps and its log: the CPU's.
	expect_same big.cpu.bin big.cuda.bin "a trillion steps: cuda as cpu"
	expect_same big.cpu.tsv big.cuda.tsv "a trillion steps' log: cuda as cpu"
	expect_same s1.cpu.tsv s1.cuda.tsv "log through the settling: cuda as cpu"
	;;
esac
finish
