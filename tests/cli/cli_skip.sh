#!/bin/sh
# cli_skip.sh - activity skipping seen from the command line: a settled
# universe takes a trillion steps at once, with the right final universe,
# generation and log; -v reports the tiles stepped; LIFE3D_SKIP=0 steps
# densely to the same bits.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# A B6/S567 soup, settled by generation 400 (still lifes and blinkers).
"$LIFE3D" -q --engine cpu --random 30 --seed 3 -n 400 -o settled.bin || fail "make settled.bin"

# A trillion steps, a log line every billion: at once.  (HPCGame files
# hold no generation: the run counts from 0.)
start=$(date +%s)
"$LIFE3D" -q --engine cpu -n 1000000000000 --log-every 1000000000 --log big.tsv \
	-o big.bin settled.bin && ok || fail "a trillion steps"
[ $(( $(date +%s) - start )) -le 20 ] && ok || fail "a trillion steps took $(( $(date +%s) - start )) s"
[ "$(wc -l <big.tsv)" -eq 1002 ] && ok || fail "log lines: $(wc -l <big.tsv)"
[ "$(tail -n 1 big.tsv | cut -f1)" = 1000000000000 ] && ok ||
	fail "last log line: $(tail -n 1 big.tsv)"
# The same as two dense steps (an even number of steps of a period-2 universe).
LIFE3D_SKIP=0 "$LIFE3D" -q --engine cpu -n 2 --log two.tsv -o two.bin settled.bin || fail "two dense steps"
tail -c +17 big.bin >big.cells
tail -c +17 two.bin >two.cells
expect_same big.cells two.cells "a trillion steps = two steps"
[ "$(tail -n 1 big.tsv | cut -f2-)" = "$(tail -n 1 two.tsv | cut -f2-)" ] && ok ||
	fail "last log line $(tail -n 1 big.tsv) against $(tail -n 1 two.tsv)"

# Every log line of a run through the settling, skipping or not.
for mode in 1 0; do
	LIFE3D_SKIP=$mode "$LIFE3D" -q --engine cpu --random 30 --seed 3 -n 300 --log s$mode.tsv \
		-o s$mode.bin || fail "run LIFE3D_SKIP=$mode"
done
expect_same s1.tsv s0.tsv "log, skipping or not"
expect_same s1.bin s0.bin "universe, skipping or not"

# A run resumed from a checkpoint taken in the sparse phase (tiles were
# being skipped; the resumed run starts dense, then skips again) ends as
# the run that was never stopped: the same universe and the same log.
"$LIFE3D" -q --engine cpu --random 30 --seed 3 -n 300 --checkpoint-every 150 \
	--checkpoint mid.ckpt.l3d --log whole.tsv -o whole.l3d || fail "run with checkpoints"
cp whole.tsv whole.orig.tsv
"$LIFE3D" -v --engine cpu --until 300 --log whole.tsv -o resumed.l3d mid.ckpt.l3d \
	2>resumed.err || fail "resume: $(cat resumed.err)"
expect_same whole.l3d resumed.l3d "universe, resumed in the sparse phase"
expect_same whole.orig.tsv whole.tsv "log, resumed in the sparse phase"
share=$(sed -n 's/.*, \([0-9.]*\)% of tiles stepped$/\1/p' resumed.err)
[ -n "$share" ] && [ "${share%%.*}" -lt 50 ] && ok ||
	fail "resumed run: $(tail -n 1 resumed.err)"

# -v says how much was stepped.
"$LIFE3D" -v --engine cpu -n 1000 -o /dev/null -f settled.bin 2>err || fail "-v run"
grep -q "% of tiles stepped" err && ok || fail "-v: $(tail -n 1 err)"
finish
