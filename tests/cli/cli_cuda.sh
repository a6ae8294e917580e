#!/bin/sh
# The CUDA engine through the whole program: with a GPU it must give the CPU
# engine's universe, log and snapshots byte for byte; without one (or without
# CUDA built in) asking for it is exit 69 with one line, and auto runs on the
# CPU.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

gpus=$("$LIFE3D" --version | sed -n 's/^gpus: //p')
case "$gpus" in
"" | none*)
	expect_exit 69 "--engine cuda without a GPU" -- \
		"$LIFE3D" -q --engine cuda --random 8 -n 1 -o x.l3d
	expect_err_line "engine 'cuda'" "--engine cuda without a GPU: message"
	expect_absent x.l3d "--engine cuda without a GPU"
	expect_exit 0 "--engine auto without a GPU" -- \
		"$LIFE3D" -q --engine auto --random 8 -n 1 -o y.l3d
	finish
	;;
esac

# Sizes: padded z rows, a z row too long for the fused kernel, edges of 1
# and 2, and enough rows for several blocks.
for spec in "B6/S567 64x48x200 0.3 9" "B5/S45 33x17x65 0.25 6" "B6/S567 7x5x1 0.5 4" \
	"B0,3/S2,7..26 9x9x130 0.4 5" "B6/S567 3x2x5000 0.3 3" "B6/S567 2x70x128 0.3 7" \
	"3D2..4/2,3H 40x33x97 0.3 6" "3D3..5/4E 17x9x64 0.3 5" "3D0,1/2C 9x70x5000 0.2 3" \
	"3D1,2/2F 31x5x33 0.3 7"; do
	set -- $spec
	rule=$1 size=$2 dens=$3 n=$4
	tag=$(echo "$rule-$size" | tr -c 'A-Za-z0-9-' _)
	"$LIFE3D" -q --engine cpu --random "$size" --density "$dens" --seed 7 -n 0 \
		-o "$tag.in.l3d" || fail "make $tag"
	for eng in cpu cuda; do
		"$LIFE3D" -q --engine $eng -r "$rule" -n "$n" --log "$tag.$eng.tsv" \
			--snapshot-every 3 --snapshot-prefix "$tag.$eng." \
			-o "$tag.$eng.l3d" "$tag.in.l3d" && ok || fail "$eng $tag"
	done
	expect_same "$tag.cpu.l3d" "$tag.cuda.l3d" "universe $tag"
	expect_same "$tag.cpu.tsv" "$tag.cuda.tsv" "log $tag"
	for f in "$tag".cpu.*.png; do
		[ -e "$f" ] || { fail "no snapshot for $tag"; break; }
		expect_same "$f" "$(echo "$f" | sed 's/\.cpu\./.cuda./')" "snapshot $f"
	done
done

# Slices instead of projections, on every axis.
for axis in x y z; do
	for eng in cpu cuda; do
		"$LIFE3D" -q --engine $eng --random 40x30x70 --seed 9 -n 4 --snapshot-every 2 \
			--snapshot-kind slice --slice-axis $axis --snapshot-prefix "s$axis.$eng." \
			-o /dev/null && ok || fail "slice $axis $eng"
	done
	for f in s$axis.cpu.*.png; do
		expect_same "$f" "$(echo "$f" | sed 's/\.cpu\./.cuda./')" "slice $f"
	done
done

# The 3D render of the CUDA engine's universe: the CPU engine's bytes.
for eng in cpu cuda; do
	"$LIFE3D" -q --engine $eng --random 40x30x70 --seed 9 -n 4 --snapshot-every 2 \
		--snapshot-kind render --snapshot-prefix "r.$eng." -o /dev/null && ok || fail "render $eng"
done
for f in r.cpu.*.png; do
	expect_same "$f" "$(echo "$f" | sed 's/\.cpu\./.cuda./')" "render $f"
done
# Renders drawn on the device of odd sizes (rows that end inside a 32-bit
# word, edges of 1, rows longer than the fused kernel's), from several
# sides and at several scales: the CPU's bytes.
n=0
for spec in "33x17x65 0.05 30,25 1" "7x5x1 0.5 -90,90 5" "3x2x5000 0.2 0,0 1" \
	"31x5x33 0.1 120,10 3" "9x70x130 0.02 200,-40 2" "64x48x200 0.01 45,60 2"; do
	set -- $spec
	n=$((n + 1))
	for eng in cpu cuda; do
		"$LIFE3D" -q --engine $eng --random "$1" --density "$2" --seed $n -n 3 \
			--snapshot-every 2 --snapshot-kind render --snapshot-view "$3" \
			--snapshot-scale "$4" --snapshot-prefix "rv$n.$eng." -o /dev/null &&
			ok || fail "render $spec, $eng"
	done
	for f in rv$n.cpu.*.png; do
		[ -e "$f" ] || { fail "no render for $spec"; break; }
		expect_same "$f" "$(echo "$f" | sed 's/\.cpu\./.cuda./')" "render $spec: $f"
	done
done

# Results in every format that streams from the device, read from a file
# and from a pipe: the CPU engine's bytes exactly (130^3 is several chunks
# of the HPCGame payload; 5x700x2999 has rows that end inside a byte).
"$LIFE3D" -q --engine cpu --random 130 --seed 3 -n 0 -o big.in.bin || fail "make big.in.bin"
"$LIFE3D" -q --engine cpu --random 5x700x2999 --seed 4 -n 0 -o odd.in.l3d ||
	fail "make odd.in.l3d"
for case in "big.in.bin hpcgame" "odd.in.l3d l3d" "odd.in.l3d vtk" "odd.in.l3d npy" \
	"odd.in.l3d vti" "odd.in.l3d vtp"; do
	set -- $case
	for eng in cpu cuda; do
		"$LIFE3D" -q --engine $eng -n 3 --format "$2" -o "stream.$eng.$2" "$1" &&
			ok || fail "$eng $1 -> $2"
		cat "$1" | "$LIFE3D" -q --engine $eng -n 3 --format "$2" >"pipe.$eng.$2" &&
			ok || fail "$eng $1 -> $2 through pipes"
	done
	expect_same "stream.cpu.$2" "stream.cuda.$2" "$1 -> $2"
	expect_same "pipe.cpu.$2" "pipe.cuda.$2" "$1 -> $2 through pipes"
	expect_same "stream.cpu.$2" "pipe.cuda.$2" "$1 -> $2, file and pipe"
done
# A part (--box) and blocks (--coarsen) of a universe on the device, and an
# image made in two passes over it (more than 64 MiB of cells).
"$LIFE3D" -q --engine cpu --random 520x512x260 --seed 5 --density 0.01 -n 0 -o two.in.l3d ||
	fail "make two.in.l3d"
for case in "odd.in.l3d vti --box 1,100,7:3,650,2900" "odd.in.l3d bin --box 0,0,0:4,4,4" \
	"odd.in.l3d rle3 --box 0,10,10:4,40,40" "odd.in.l3d vti --coarsen 3" \
	"odd.in.l3d npy --coarsen 7" "two.in.l3d vti"; do
	set -- $case
	in=$1 f=$2
	shift 2
	rm -f part.cpu.$f part.cuda.$f
	for eng in cpu cuda; do
		"$LIFE3D" -q --engine $eng -n 3 "$@" -o "part.$eng.$f" "$in" && ok ||
			fail "$eng $in $* -> $f"
	done
	expect_same "part.cpu.$f" "part.cuda.$f" "$in $* -> $f"
done
# A checkpoint written from the device reads back as the same universe.
"$LIFE3D" -q --engine cuda -n 3 --checkpoint-every 2 --checkpoint ck.l3d \
	-o ck.out.l3d odd.in.l3d && ok || fail "checkpoint from the device"
"$LIFE3D" -q --engine cpu -n 2 -o ck.cpu.l3d odd.in.l3d && ok || fail "cpu to generation 2"
"$LIFE3D" -q -n 0 -o ck.plain.l3d ck.l3d || fail "read back the checkpoint"
expect_same ck.plain.l3d ck.cpu.l3d "checkpoint from the device"
# A picture drawn on the device that cannot be written mid-run (over a
# file size limit of 40 KiB; generation 15's is about 80 kB): the
# device's universe at the generation reached goes to the checkpoint, and
# resumed it ends where the CPU does.
printf '3D version=1 size=32\nx=1 y=1 z=1 rule=B1/S\no!\n' >spark.rle3
"$LIFE3D" -q --engine cpu -n 40 -o spark40.l3d spark.rle3 || fail "spark: reference"
expect_exit 74 "device picture over the file size limit" -- sh -c "ulimit -f 80; exec '$LIFE3D' -q \
	--engine cuda -n 40 --snapshot-every 5 --snapshot-kind render --snapshot-prefix spark- -o spark.l3d spark.rle3"
expect_err_line "spark-000015.png: write error: File too large; generation [0-9]* is kept in the checkpoint spark.l3d.ckpt.l3d" \
	"device picture over the file size limit: message"
"$LIFE3D" -q --engine cuda --until 40 -o spark.l3d spark.l3d.ckpt.l3d || fail "device picture over the file size limit: resumed"
expect_same spark40.l3d spark.l3d "device picture over the file size limit, resumed"
# A truncated input: the reader's error, not the engine's.
head -c 1000000 big.in.bin >cut.bin
expect_exit 65 "truncated input with the CUDA engine" -- \
	"$LIFE3D" -q --engine cuda -n 1 -o cut-out.bin cut.bin
expect_err_line "cut.bin: truncated: expected 2197000 bytes of cells, got 999984" \
	"truncated input with the CUDA engine: message"
expect_absent cut-out.bin "truncated input with the CUDA engine"

# The PTX fallback that GPUs without sm_90 code run: forced through the
# driver's JIT compiler, the kernels give the same universe and log.
tag=B5_S45-33x17x65_
CUDA_FORCE_PTX_JIT=1 "$LIFE3D" -q --engine cuda -r B5/S45 -n 6 --log ptx.tsv -o ptx.l3d \
	"$tag.in.l3d" && ok || fail "PTX JIT"
expect_same "$tag.cpu.l3d" ptx.l3d "universe, PTX JIT"
expect_same "$tag.cpu.tsv" ptx.tsv "log, PTX JIT"
CUDA_FORCE_PTX_JIT=1 "$LIFE3D" -q --engine cuda -n 9 --log ptx2.tsv -o ptx2.l3d \
	B6_S567-64x48x200_.in.l3d && ok || fail "PTX JIT B6/S567"
expect_same B6_S567-64x48x200_.cpu.l3d ptx2.l3d "universe, PTX JIT, B6/S567"
expect_same B6_S567-64x48x200_.cpu.tsv ptx2.tsv "log, PTX JIT, B6/S567"

# --engine auto steps a small universe on the CPU while the GPU starts and
# moves it over at a step boundary, long enough for the move to come
# mid-run; a run so short that the CPU should be done before a GPU could
# start never starts one.  The CPU engine's bytes either way, and the
# summary says which engines stepped.
"$LIFE3D" -q --engine cpu --random 128 --seed 5 -n 0 -o ho.in.l3d || fail "make ho.in.l3d"
# (Dense on the CPU: a settled universe would be done before the GPU is.)
for eng in cpu auto; do
	LIFE3D_SKIP=0 "$LIFE3D" -v --engine $eng -n 100000 --log-every 997 --log ho.$eng.tsv \
		--snapshot-every 30011 --snapshot-prefix ho.$eng. -o ho.$eng.l3d \
		ho.in.l3d 2>ho.$eng.err && ok || fail "handover run, $eng"
done
expect_same ho.cpu.l3d ho.auto.l3d "universe, auto moving to the GPU"
expect_same ho.cpu.tsv ho.auto.tsv "log, auto moving to the GPU"
for f in ho.cpu.*.png; do
	expect_same "$f" "$(echo "$f" | sed 's/\.cpu\./.auto./')" "snapshot $f, auto"
done
grep -q "engine cuda/.*steps on cpu/" ho.auto.err && ok ||
	fail "auto moved to the GPU mid-run: $(tail -1 ho.auto.err)"
for eng in cpu auto; do
	"$LIFE3D" -v --engine $eng -n 5 --log sh.$eng.tsv -o sh.$eng.l3d \
		B5_S45-33x17x65_.in.l3d 2>sh.$eng.err && ok || fail "short run, $eng"
done
expect_same sh.cpu.l3d sh.auto.l3d "universe, auto on the CPU alone"
expect_same sh.cpu.tsv sh.auto.tsv "log, auto on the CPU alone"
if grep -q "engine cpu/" sh.auto.err &&
	! grep -v "CUDA_VISIBLE_DEVICES=" sh.auto.err | grep -q "GPU\|cuda/"; then
	ok
else
	fail "auto on the CPU alone: $(tail -1 sh.auto.err)"
fi

# Between the two, a sample of the universe decides, before any GPU is
# started: a settling soup stays on the CPU, a busy rule goes to the GPU.
# -v says what the sample showed; the CPU engine's bytes either way.
# (--threads 2 fixes the dense estimate: 0.31 s and 0.93 s with AVX-512.)
"$LIFE3D" -q --engine cpu --random 256 --seed 3 -n 0 -o sa.in.l3d || fail "make sa.in.l3d"
for spec in "soup B6/S567 1024 cpu/ the-CPU-alone" "busy B5..7/S4..9 2048 cuda/ the-GPU"; do
	set -- $spec
	for eng in cpu auto; do
		"$LIFE3D" -v --threads 2 --engine $eng -r "$2" -n "$3" --log sa.$1.$eng.tsv \
			-o sa.$1.$eng.l3d sa.in.l3d 2>sa.$1.$eng.err && ok || fail "sampled $1, $eng"
	done
	expect_same sa.$1.cpu.l3d sa.$1.auto.l3d "universe, auto after a sample, $1"
	expect_same sa.$1.cpu.tsv sa.$1.auto.tsv "log, auto after a sample, $1"
	want="auto: a 64x64x64 sample stepped .* so $(echo "$5" | tr - ' ')\$"
	grep -q "$want" sa.$1.auto.err && grep -q "engine $4" sa.$1.auto.err && ok ||
		fail "auto after a sample, $1: $(grep 'auto:\|engine' sa.$1.auto.err)"
done

# A universe that repeats with period 2 takes a trillion steps at once on
# the GPU too (a log line every 999999999 steps: odd leaps; -v says they
# were leapt), with the CPU engine's cells and log; LIFE3D_SKIP=0 still
# steps (briefly, here).
"$LIFE3D" -q --random 48 --seed 2 -n 500 -o settled.l3d || fail "make settled"
for eng in cpu cuda; do
	"$LIFE3D" -v --engine $eng -n 1000000000000 --log-every 999999999 --log tr.$eng.tsv \
		-o tr.$eng.l3d settled.l3d 2>tr.$eng.err && ok || fail "a trillion steps, $eng"
	leapt tr.$eng.err "a trillion steps, $eng"
done
expect_same tr.cpu.l3d tr.cuda.l3d "a trillion steps: cells"
expect_same tr.cpu.tsv tr.cuda.tsv "a trillion steps: log"
for eng in cpu cuda; do
	LIFE3D_SKIP=0 "$LIFE3D" -q --engine $eng -n 5001 --log-every 7 --log d.$eng.tsv \
		-o d.$eng.l3d settled.l3d && ok || fail "dense, $eng"
done
expect_same d.cpu.l3d d.cuda.l3d "LIFE3D_SKIP=0: cells"
expect_same d.cpu.tsv d.cuda.tsv "LIFE3D_SKIP=0: log"

# Device selection: a device that is not there is a usage error; hiding
# every GPU makes the engine unavailable.
expect_exit 64 "--device out of range" -- \
	"$LIFE3D" -q --engine cuda --device 1000 --random 8 -n 1 -o d.l3d
expect_err_line "no device 1000" "--device out of range: message"
expect_exit 64 "--device out of range, engine auto, a short run" -- \
	"$LIFE3D" -q --engine auto --device 1000 --random 8 -n 1 -o d.l3d
expect_absent d.l3d "--device out of range, engine auto"
expect_exit 69 "CUDA_VISIBLE_DEVICES empty" -- \
	env CUDA_VISIBLE_DEVICES= "$LIFE3D" -q --engine cuda --random 8 -n 1 -o v.l3d
expect_err_line "no CUDA device" "CUDA_VISIBLE_DEVICES empty: message"
# Naming the one GPU.  Where the driver lists more than one GPU (made up
# here: this machine's first, and one of the same model that is not
# there), a single process sets CUDA_VISIBLE_DEVICES to its GPU alone
# before it asks the driver for any; -v says so, and the run is the CPU
# engine's.  A CPU run leaves it alone, and naming a GPU that is not there
# is a usage error that says what was set.
real=/proc/driver/nvidia/gpus
first=$(ls "$real" 2>/dev/null | sort | head -1)
if [ -n "$first" ] && [ -r "$real/$first/information" ]; then
	mkdir -p "drv/$first" drv/ffff:ff:1f.7
	cp "$real/$first/information" "drv/$first/"
	sed 's/^\(GPU UUID:[[:space:]]*\).*/\1GPU-ffffffff-0000-0000-0000-000000000000/' \
		"$real/$first/information" >drv/ffff:ff:1f.7/information
	named="CUDA_VISIBLE_DEVICES=0: the driver sets up that GPU alone"
	for how in "cuda" "cuda CUDA_VISIBLE_DEVICES=0,1" "auto" \
		"cuda CUDA_VISIBLE_DEVICES=0,GPU-ffff"; do
		set -- $how
		tag=nw.$(echo "$how" | tr -c 'A-Za-z0-9' _)
		env LIFE3D_DRIVER_GPUS="$PWD/drv" ${2:-} "$LIFE3D" -v --engine "$1" -n 5 \
			--log "$tag.tsv" -o "$tag.l3d" B5_S45-33x17x65_.in.l3d 2>"$tag.err" &&
			ok || fail "naming the GPU, $how"
		expect_same sh.cpu.l3d "$tag.l3d" "naming the GPU, $how: cells"
		expect_same sh.cpu.tsv "$tag.tsv" "naming the GPU, $how: log"
		grep -q "$named" "$tag.err" && ok || fail "naming the GPU, $how: -v says"
	done
	LIFE3D_DRIVER_GPUS="$PWD/drv" "$LIFE3D" -v --engine cpu --random 8 -n 1 \
		-o /dev/null 2>nw.cpu.err && ok || fail "naming the GPU, cpu"
	grep -q CUDA_VISIBLE_DEVICES nw.cpu.err && fail "a CPU run named a GPU" || ok
	[ "$(LIFE3D_DRIVER_GPUS="$PWD/drv" "$LIFE3D" --version)" = "$("$LIFE3D" --version)" ] &&
		ok || fail "naming the GPU: --version lists every GPU"
	if [ "$(ls "$real" | wc -l)" -eq 1 ]; then
		expect_exit 64 "naming a GPU that is not there" -- env LIFE3D_DRIVER_GPUS="$PWD/drv" \
			"$LIFE3D" -q --engine cuda --device 1 --random 8 -n 1 -o gone.l3d
		expect_err_line "no device 1 (CUDA_VISIBLE_DEVICES=1, set to name it alone, names no GPU)" \
			"naming a GPU that is not there: message"
		expect_absent gone.l3d "naming a GPU that is not there"
		"$LIFE3D" -v --engine cuda --random 8 -n 1 -o /dev/null 2>nw.one.err &&
			ok || fail "one GPU"
		grep -q CUDA_VISIBLE_DEVICES nw.one.err && fail "one GPU, named alone" || ok
	else
		"$LIFE3D" -v --engine cuda --device 1 --random 8 -n 1 -o /dev/null 2>nw.1.err &&
			ok || fail "--device 1"
		grep -q "CUDA_VISIBLE_DEVICES=1: " nw.1.err && ok || fail "--device 1: named alone"
	fi
else
	echo "cli_cuda: no $real here; naming the GPU not checked" >&2
fi
finish
