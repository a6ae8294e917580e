#!/bin/sh
# The distributed mode: mpirun -np 1..4 (CPU engine, more ranks than
# cores) gives the single process's universes, logs, PNGs and messages,
# byte for byte, on sizes that split unevenly and whose planes end inside
# a byte of a .l3d file.  Every failure ends all ranks with one message
# and the single process's exit status, never a hang.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

if ! "$LIFE3D" --version | grep -q '^mpi: built in'; then
	echo "cli_mpi: life3d is built without MPI: skipped"
	exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
	echo "cli_mpi: no mpirun: skipped"
	exit 77
fi
# Open MPI refuses root unless told, and more ranks than cores unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Containers often forbid the cross-process memory reads Open MPI's
# shared-memory transport uses for large messages; copying works anywhere.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# Under --enable-sanitizers: Open MPI leaves its own allocations at exit.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
mpi() {  # NP [mpirun options] -- life3d arguments
	np=$1; shift
	opts=""
	while [ "$1" != "--" ]; do opts="$opts $1"; shift; done
	shift
	# A guard against a hang, not a measure of speed: every run here
	# takes seconds, and a run that should have leapt would never end.
	# shellcheck disable=SC2086
	timeout 300 mpirun --oversubscribe -np "$np" $opts "$LIFE3D" "$@"
}

# Universe and log for every rank count.  Sizes: planes of 45 bits (slab
# edges inside bytes), rows of two words, a cube, planes of 3 bits (one
# byte spans several ranks), x not divisible by 3 or 4.
# Golly's other neighbourhoods too, across the same seams.
for spec in "B6/S567 7x5x9 0.3 6" "B5/S45 13x4x70 0.2 5" "B6/S567 16x16x16 0.3 4" \
	    "B5/S45 5x1x3 0.5 5" "3D2..4/2,3H 9x4x70 0.3 5" "3D3..5/4E 6x5x33 0.3 4" \
	    "3D4..8/3C 10x3x65 0.3 4" "3D0..6/1,3F 5x7x9 0.2 5"; do
	set -- $spec
	rule=$1 size=$2 dens=$3 n=$4
	tag=$size
	"$LIFE3D" -q --random "$size" --density "$dens" --seed 7 -n 0 -o "$tag.in.l3d" || fail "make $tag"
	"$LIFE3D" -q -r "$rule" -n "$n" --log "$tag.ref.tsv" -o "$tag.ref.l3d" "$tag.in.l3d" || fail "ref $tag"
	for np in 1 2 3 4; do
		mpi $np -- -q -r "$rule" -n "$n" --log "$tag.$np.tsv" -o "$tag.$np.l3d" "$tag.in.l3d" &&
			ok || fail "np $np $tag"
		expect_same "$tag.ref.l3d" "$tag.$np.l3d" "universe np $np $tag"
		expect_same "$tag.ref.tsv" "$tag.$np.tsv" "log np $np $tag"
	done
done

# Activity skipping across the seams: each rank steps only the tiles
# whose neighbourhood changed, a halo that differs from the same halo two
# generations back waking the tiles beside it.  Settling soups in several
# neighbourhoods, a spaceship that crosses every seam (it reaches each
# slab through a halo only) and an edge oscillator astride a seam, on
# slabs of uneven sizes, with halos of depth 1, 4 (several steps an
# exchange) and staged, give the single process's universe and every log
# line, as LIFE3D_SKIP=0 does.
# skip_runs TAG RULE STEPS INPUT
skip_runs() {
	tag=$1 rule=$2 n=$3 in=$4
	"$LIFE3D" -q -r "$rule" -n "$n" --log "$tag.ref.tsv" -o "$tag.ref.l3d" "$in" ||
		fail "skipping ref $tag"
	for run in 3,1,1,mpi 2,,1,auto 3,4,1,staged 4,1,0,auto; do
		IFS=, read -r np depth skip halo <<RUN
$run
RUN
		out=$tag.$np-$depth-$skip-$halo
		LIFE3D_HALO_DEPTH=$depth LIFE3D_SKIP=$skip LIFE3D_HALO=$halo mpi $np \
			-x LIFE3D_HALO_DEPTH -x LIFE3D_SKIP -x LIFE3D_HALO -- -q --engine cpu \
			-r "$rule" -n "$n" --log "$out.tsv" -o "$out.l3d" "$in" &&
			ok || fail "skipping $out"
		expect_same "$tag.ref.l3d" "$out.l3d" "universe, skipping $out"
		expect_same "$tag.ref.tsv" "$out.tsv" "log, skipping $out"
	done
}
sed '1s/size=40 /size=64 box=41,64,24 /' "$SRCDIR/tests/data/golly-spaceship.rle3" >ship.rle3 ||
	fail "ship fixture"
skip_runs ship 3D4,7/5,8 120 ship.rle3
sed '1s/size=16 pos=4,/size=64 box=61,40,21 pos=19,/' \
	"$SRCDIR/tests/data/patterns/edge-p24.rle3" >edge.rle3 || fail "edge fixture"
skip_runs edge 3D4/3,4E 60 edge.rle3
for spec in "B6/S567 47x29x70 0.25" "3D2,3/3F 31x29x65 0.2" "B5,6/S4..6H 29x33x40 0.2" \
	    "B3/S23C 37x20x33 0.1"; do
	set -- $spec
	"$LIFE3D" -q --random "$2" --density "$3" --seed 5 -n 0 -o "soup$2.l3d" ||
		fail "make soup $2"
	skip_runs "soup$2" "$1" 200 "soup$2.l3d"
done
# -v: the share of tiles stepped, over every rank.
LIFE3D_HALO_DEPTH=1 mpi 3 -x LIFE3D_HALO_DEPTH -- -v --engine cpu -r 3D4,7/5,8 -n 120 \
	-o /dev/null ship.rle3 2>ship.err && ok || fail "-v skipping"
share=$(sed -n 's/.*, \([0-9.]*\)% of tiles stepped$/\1/p' ship.err)
[ -n "$share" ] && [ "${share%%.*}" -lt 50 ] && ok ||
	fail "-v, skipping: $(tail -n 1 ship.err)"
# A universe settled into still lifes and blinkers (period 2) takes a
# trillion steps at once, over 3 or 5 ranks as in one process, a log line
# every 9999999999 steps (odd: the universe leaps odd numbers of
# generations), and -v says that the steps were leapt.
"$LIFE3D" -q --random 48 --seed 2 -n 500 -o settled.l3d || fail "make settled"
"$LIFE3D" -q -n 1000000000000 --log-every 9999999999 --log big.ref.tsv -o big.ref.l3d \
	settled.l3d || fail "a trillion steps, one process"
for run in 3,1 5,4; do
	np=${run%,*} depth=${run#*,}
	LIFE3D_HALO_DEPTH=$depth mpi $np -x LIFE3D_HALO_DEPTH -- -v --engine cpu -n 1000000000000 \
		--log-every 9999999999 --log big.$depth.tsv -o big.$depth.l3d settled.l3d 2>big.err &&
		ok || fail "a trillion steps, $np ranks, depth $depth: $(tail -n 1 big.err)"
	leapt big.err "a trillion steps, $np ranks, depth $depth"
	expect_same big.ref.l3d big.$depth.l3d "a trillion steps, depth $depth"
	expect_same big.ref.tsv big.$depth.tsv "a trillion steps' log, depth $depth"
done

# Random universes made slab by slab, and the HPCGame format.
"$LIFE3D" -q --random 11x6x9 --seed 4 -n 3 -o rnd.ref.l3d || fail "random ref"
mpi 3 -- -q --random 11x6x9 --seed 4 -n 3 -o rnd.3.l3d && ok || fail "random np 3"
expect_same rnd.ref.l3d rnd.3.l3d "random universe np 3"
# and in Golly's shapes, each rank emptying its own planes' margins
for shape in box sphere; do
	"$LIFE3D" -q --engine cpu --random 33x17x20 --random-shape $shape --seed 4 -n 3 \
		-o rnd.$shape.ref.l3d || fail "random $shape ref"
	mpi 3 -- -q --engine cpu --random 33x17x20 --random-shape $shape --seed 4 -n 3 \
		-o rnd.$shape.3.l3d && ok || fail "random $shape np 3"
	expect_same rnd.$shape.ref.l3d rnd.$shape.3.l3d "random $shape universe np 3"
done
# A 2D pattern is placed the same on rank 0, which reads it for all.
printf 'x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >glider.rle
"$LIFE3D" -q --engine cpu --plane yz --plane-index 7 --double -n 8 -o glider.ref.l3d glider.rle ||
	fail "2D ref"
mpi 3 -- -q --engine cpu --plane yz --plane-index 7 --double -n 8 -o glider.3.l3d glider.rle &&
	ok || fail "2D np 3"
expect_same glider.ref.l3d glider.3.l3d "a 2D pattern np 3"
# Comments go through ranks: read from .l3d, written at every rank's offset.
printf '3D version=1 size=12\n#N Name\n#C two lines\nx=2 y=2 z=1 rule=3D5..7/6\noo$oo!\n' >notes.rle3
"$LIFE3D" -q -n 0 -o notes.l3d notes.rle3 || fail "notes.l3d"
"$LIFE3D" -q --engine cpu -n 3 --comment more -o notes.ref.l3d notes.l3d || fail "notes ref"
mpi 3 -- -q --engine cpu -n 3 --comment more -o notes.3.l3d notes.l3d && ok || fail "notes np 3"
expect_same notes.ref.l3d notes.3.l3d "comments in .l3d np 3"
"$LIFE3D" -q --random 12 --seed 5 -n 0 -o cube.bin || fail "make cube"
"$LIFE3D" -q -n 5 -o cube.ref.bin cube.bin || fail "cube ref"
for np in 2 3; do
	mpi $np -- -q -n 5 -o cube.$np.bin cube.bin && ok || fail "cube np $np"
	expect_same cube.ref.bin cube.$np.bin "HPCGame np $np"
done

# Deeper halos (several steps per exchange) and halos staged through
# host buffers give the same universe.
for depth in 2 4; do
	mpi 3 -x LIFE3D_HALO_DEPTH=$depth -- -q -r B5/S45 -n 5 --log d$depth.tsv \
		-o d$depth.l3d 13x4x70.in.l3d && ok || fail "halo depth $depth"
	expect_same 13x4x70.ref.l3d d$depth.l3d "universe, halo depth $depth"
	expect_same 13x4x70.ref.tsv d$depth.tsv "log, halo depth $depth"
	mpi 3 -x LIFE3D_HALO_DEPTH=$depth -- -q -r 3D2..4/2,3H -n 5 --log dh$depth.tsv \
		-o dh$depth.l3d 9x4x70.in.l3d && ok || fail "H halo depth $depth"
	expect_same 9x4x70.ref.l3d dh$depth.l3d "H universe, halo depth $depth"
done
mpi 2 -x LIFE3D_HALO=staged -- -q -n 6 -o staged.l3d 7x5x9.in.l3d && ok || fail "staged"
expect_same 7x5x9.ref.l3d staged.l3d "universe, staged halos"

# LIFE3D_HALO names the way halos travel, and -v says which one ran.
# mpi_halo NP HALO DESCRIPTION -- life3d arguments: stderr in halo.err.
mpi_halo() {
	np=$1 halo=$2 what=$3; shift 4
	if LIFE3D_HALO=$halo mpi "$np" -x LIFE3D_HALO -- "$@" >/dev/null 2>halo.err </dev/null; then
		ok
	else
		fail "$what: exit $?, $(head -c 300 halo.err)"
	fi
}
# expect_halo_failure NP HALO CODE PATTERN DESCRIPTION: one line, exit CODE.
expect_halo_failure() {
	LIFE3D_HALO=$2 mpi "$1" -x LIFE3D_HALO -- -q --engine cpu -n 2 -o x.l3d 7x5x9.in.l3d \
		>/dev/null 2>halo.err </dev/null
	got=$?
	grep '^life3d:' halo.err >halo.msg
	if [ "$got" -eq "$3" ] && [ "$(wc -l <halo.msg)" -eq 1 ] && grep -q -- "$4" halo.msg; then
		ok
	else
		fail "$5: exit $got, $(head -c 300 halo.err)"
	fi
}
for halo in staged MPI auto; do
	rm -f h.l3d
	mpi_halo 3 $halo "LIFE3D_HALO=$halo" -- -v --engine cpu -n 6 -o h.l3d 7x5x9.in.l3d
	expect_same 7x5x9.ref.l3d h.l3d "universe, LIFE3D_HALO=$halo"
done
grep -q 'x3 ranks (halo depth [0-9]*, halos by MPI)' halo.err && ok ||
	fail "-v names the MPI halos: $(cat halo.err)"
mpi_halo 2 staged "-v, staged" -- -v --engine cpu -n 1 -o /dev/null 7x5x9.in.l3d
grep -q 'halos staged through host memory)' halo.err && ok ||
	fail "-v names the staged halos: $(cat halo.err)"
expect_halo_failure 2 bogus 64 "LIFE3D_HALO: 'bogus' is not auto, nccl, mpi or staged" \
	"LIFE3D_HALO=bogus"
expect_halo_failure 2 nccl 69 'LIFE3D_HALO=nccl: not every rank has a GPU' \
	"LIFE3D_HALO=nccl, CPU ranks"

# PNG snapshots: projections along x (summed over ranks) and y (columns
# gathered), slices across x (one rank's plane) and along z, and the 3D
# render (the universe gathered on rank 0).
for view in "projection x" "projection y" "slice x" "slice z" "render z"; do
	set -- $view
	"$LIFE3D" -q -n 4 --snapshot-every 2 --snapshot-kind $1 --slice-axis $2 \
		--snapshot-prefix "ref-$1$2-" -o /dev/null 16x16x16.in.l3d || fail "png ref $view"
	mpi 3 -- -q -n 4 --snapshot-every 2 --snapshot-kind $1 --slice-axis $2 \
		--snapshot-prefix "np3-$1$2-" -o /dev/null 16x16x16.in.l3d && ok || fail "png $view"
	for g in 000000 000002 000004; do
		expect_same "ref-$1$2-$g.png" "np3-$1$2-$g.png" "PNG $view generation $g"
	done
done

# Formats through rank 0: RLE3 out and in, stdin in, stdout out.
"$LIFE3D" -q -n 6 -o ref.rle3 7x5x9.in.l3d || fail "rle3 ref"
mpi 3 -- -q -n 6 -o np3.rle3 7x5x9.in.l3d && ok || fail "rle3 out"
expect_same ref.rle3 np3.rle3 "RLE3 output np 3"
"$LIFE3D" -q -n 2 -o rle.ref.l3d ref.rle3 || fail "rle3 in ref"
mpi 2 -- -q -n 2 -o rle.2.l3d ref.rle3 && ok || fail "rle3 in"
expect_same rle.ref.l3d rle.2.l3d "RLE3 input np 2"
"$LIFE3D" -q -n 0 -o np.in.npy 7x5x9.in.l3d && "$LIFE3D" -q -n 6 -o npy.ref.l3d np.in.npy ||
	fail "npy in ref"
mpi 3 -- -q -n 6 -o npy.3.l3d np.in.npy && ok || fail "npy in"
expect_same npy.ref.l3d npy.3.l3d "NumPy input np 3"
mpi 3 -- -q -n 6 -o npy.3.npy np.in.npy && ok || fail "npy in and out"
"$LIFE3D" -q -n 6 -o npy.ref.npy np.in.npy || fail "npy out ref"
expect_same npy.ref.npy npy.3.npy "NumPy input and output np 3"
# --box and --coarsen across ranks: rank 0 writes the part (the fixed
# formats too), the same bytes as one process; the population is the
# whole universe's.
for out in box.l3d box.bin box.vti box.vtp box.rle3; do
	case $out in *.bin) box=1,0,2:4,3,5 ;; *) box=1,0,2:5,3,7 ;; esac
	"$LIFE3D" -q -n 6 --box $box -o "ref.$out" 7x5x9.in.l3d || fail "box ref $out"
	mpi 3 -- -q -n 6 --box $box -o "np3.$out" 7x5x9.in.l3d && ok || fail "box $out np 3"
	expect_same "ref.$out" "np3.$out" "--box to $out np 3"
done
for out in c2.vti c2.npy; do
	"$LIFE3D" -q -n 6 --coarsen 2 -o "ref.$out" 7x5x9.in.l3d || fail "coarsen ref $out"
	mpi 2 -- -q -n 6 --coarsen 2 -o "np2.$out" 7x5x9.in.l3d && ok || fail "coarsen $out np 2"
	expect_same "ref.$out" "np2.$out" "--coarsen to $out np 2"
done
"$LIFE3D" -n 6 --box 0,0,0:1,1,1 -o p1.l3d 7x5x9.in.l3d 2>p1.err || fail "box population"
mpi 3 -- -n 6 --box 0,0,0:1,1,1 -o p3.l3d 7x5x9.in.l3d 2>p3.err && ok || fail "box population np 3"
[ "$(grep -o 'population [0-9]*' p1.err)" = "$(grep -o 'population [0-9]*' p3.err)" ] &&
	[ "$(grep -o 'population [0-9]*' p1.err)" = "$("$LIFE3D" -n 6 -o /dev/null 7x5x9.in.l3d 2>&1 |
		grep -o 'population [0-9]*')" ] && ok || fail "--box population: $(cat p1.err p3.err)"
mpi 3 -- -q -n 6 -o sum.3.l3d --summary sum.3.json 7x5x9.in.l3d && ok || fail "--summary"
grep -q '"ranks": 3,' sum.3.json && grep -q '"steps": 6,' sum.3.json && ok ||
	fail "--summary over 3 ranks: $(cat sum.3.json)"
mpi 3 -- -q -n 6 -o stdin.l3d - <7x5x9.in.l3d && ok || fail "stdin"
expect_same 7x5x9.ref.l3d stdin.l3d "stdin input np 3"
mpi 3 -- -q -n 6 -o - 7x5x9.in.l3d >stdout.l3d && ok || fail "stdout"
expect_same 7x5x9.ref.l3d stdout.l3d "stdout output np 3"
mpi 2 -- -q -n 5 -o - cube.bin | cat >pipe.bin && ok || fail "pipe"
expect_same cube.ref.bin pipe.bin "HPCGame to a pipe np 2"

# A checkpoint mid-run, and a resumed run, as the single process has them.
"$LIFE3D" -q -n 7 --checkpoint-every 3 --checkpoint ck.ref.l3d --log res.ref.tsv -o /dev/null 13x4x70.in.l3d || fail "ckpt ref"
mpi 4 -- -q -n 7 --checkpoint-every 3 --checkpoint ck.4.l3d --log res.3.tsv -o /dev/null 13x4x70.in.l3d && ok || fail "ckpt"
# The same universe, each stamped with its own run (96-byte header).
"$LIFE3D" -q -n 0 -o ck.ref.plain.l3d ck.ref.l3d && "$LIFE3D" -q -n 0 -o ck.4.plain.l3d ck.4.l3d || fail "read back checkpoints"
expect_same ck.ref.plain.l3d ck.4.plain.l3d "checkpoint np 4"
[ "$(od -An -t u4 -j 12 -N 4 ck.4.l3d | tr -d ' ')" = 96 ] && ok || fail "checkpoint np 4 has no run stamp"
"$LIFE3D" -q --until 9 --log res.ref.tsv -o res.ref.l3d ck.ref.l3d || fail "resume ref"
mpi 3 -- -q --until 9 --log res.3.tsv -o res.3.l3d ck.4.l3d && ok || fail "resume"
expect_same res.ref.l3d res.3.l3d "resumed universe np 3"
expect_same res.ref.tsv res.3.tsv "resumed log np 3"

# Failures: the single process's status and message, said once.
expect_same_failure() {  # NP DESCRIPTION -- life3d arguments
	np=$1 what=$2; shift 3
	"$LIFE3D" "$@" >/dev/null 2>ref.err </dev/null
	want=$?
	mpi "$np" -- "$@" >/dev/null 2>np.err </dev/null
	got=$?
	grep '^life3d:' np.err >np.msg
	if [ "$got" -ne "$want" ] || [ "$want" -eq 0 ]; then
		fail "$what: exit $got, single process $want; $(head -c 300 np.err)"
	elif ! cmp -s ref.err np.msg; then
		fail "$what: said '$(cat np.msg)', single process '$(cat ref.err)'"
	else
		ok
	fi
}

# Ranks on GPUs: each rank steps its slab on the GPU its node-local index
# picks (ranks share GPUs when there are more ranks than GPUs), halos
# through NCCL where every rank has a GPU of its own, else staged through
# pinned host buffers.  Same universes and logs as the single process,
# every way, also with deeper halos and snapshots.
gpus=$("$LIFE3D" --version | sed -n 's/^gpus: //p')
ngpus=$("$LIFE3D" --version | sed -n '/^gpus:/,$p' | grep -c '^\(gpus: \)\{0,1\}[0-9]*: ')
# NCCL between the GPUs, one rank a GPU.
# (One rank is no distributed run: it has no halos.)
nccl_nps=""
nccl_here=false
if "$LIFE3D" --version | grep -q '^mpi: .*NCCL' && ldconfig -p | grep -q 'libnccl\.so\.2 '; then
	nccl_here=true
	[ "$ngpus" -ge 2 ] && nccl_nps=$ngpus
fi
nccl_runs=""
for np in $nccl_nps; do nccl_runs="$nccl_runs $np,nccl"; done
# What -v says of the halos, and NCCL refused where it cannot run.
halo_checks() {
	if ! $nccl_here; then
		expect_halo_failure_gpu 2 'LIFE3D_HALO=nccl: NCCL' "NCCL not there"
		return
	fi
	share=$((ngpus + 1))
	mpi_halo $share auto "-v, shared GPU" -- -v --engine cuda -n 1 -o /dev/null 7x5x9.in.l3d
	grep -q 'halos staged through host memory; not NCCL: NCCL: ranks [0-9]* and [0-9]* share the GPU' \
		halo.err && ok || fail "-v says why not NCCL: $(cat halo.err)"
	expect_halo_failure_gpu $share 'LIFE3D_HALO=nccl: NCCL: ranks 0 and [0-9]* share the GPU ' \
		"LIFE3D_HALO=nccl, a shared GPU"
	if [ "$ngpus" -ge 2 ]; then
		mpi_halo "$ngpus" auto "-v, NCCL by default" -- -v --engine cuda -n 1 -o /dev/null \
			7x5x9.in.l3d
		grep -q 'halos by NCCL [0-9]' halo.err && ok ||
			fail "-v names NCCL, one rank a GPU: $(cat halo.err)"
	fi
}
expect_halo_failure_gpu() {  # NP PATTERN DESCRIPTION
	LIFE3D_HALO=nccl mpi "$1" -x LIFE3D_HALO -- -q --engine cuda -n 2 -o x.l3d 7x5x9.in.l3d \
		>/dev/null 2>halo.err </dev/null
	got=$?
	grep '^life3d:' halo.err >halo.msg
	if [ "$got" -eq 69 ] && [ "$(wc -l <halo.msg)" -eq 1 ] && grep -q -- "$2" halo.msg; then
		ok
	else
		fail "$3: exit $got, $(head -c 300 halo.err)"
	fi
}
case "$gpus" in
"" | none*)
	expect_same_failure 2 "--engine cuda without a GPU" -- \
		-q --engine cuda -n 2 -o x.l3d 7x5x9.in.l3d
	;;
*)
	for spec in "B6/S567 7x5x9 6" "B5/S45 13x4x70 5" "B6/S567 16x16x16 4" "B5/S45 5x1x3 5" \
		    "3D2..4/2,3H 9x4x70 5" "3D3..5/4E 6x5x33 4" "3D4..8/3C 10x3x65 4" \
		    "3D0..6/1,3F 5x7x9 5"; do
		set -- $spec
		rule=$1 tag=$2 n=$3
		for run in 2,auto 3,auto 4,auto 2,staged $nccl_runs; do
			np=${run%,*} halo=${run#*,}
			LIFE3D_HALO=$halo mpi $np -x LIFE3D_HALO -- -q --engine cuda -r "$rule" -n "$n" \
				--log "$tag.g$np$halo.tsv" -o "$tag.g$np$halo.l3d" "$tag.in.l3d" &&
				ok || fail "GPU np $np $halo $tag"
			expect_same "$tag.ref.l3d" "$tag.g$np$halo.l3d" "GPU universe np $np $halo $tag"
			expect_same "$tag.ref.tsv" "$tag.g$np$halo.tsv" "GPU log np $np $halo $tag"
		done
	done
	halo_checks
	for depth in 2 4; do
		mpi 3 -x LIFE3D_HALO_DEPTH=$depth -- -q --engine cuda -r B5/S45 -n 5 \
			--log gd$depth.tsv -o gd$depth.l3d 13x4x70.in.l3d && ok || fail "GPU depth $depth"
		expect_same 13x4x70.ref.l3d gd$depth.l3d "GPU universe, halo depth $depth"
		for np in $nccl_nps; do
			rm -f gdn.l3d
			LIFE3D_HALO=nccl mpi "$np" -x LIFE3D_HALO -x LIFE3D_HALO_DEPTH=$depth -- -q \
				--engine cuda -r B5/S45 -n 5 -o gdn.l3d 13x4x70.in.l3d &&
				ok || fail "GPU NCCL np $np depth $depth"
			expect_same 13x4x70.ref.l3d gdn.l3d "GPU NCCL np $np, halo depth $depth"
		done
		expect_same 13x4x70.ref.tsv gd$depth.tsv "GPU log, halo depth $depth"
	done
	# Skipping on GPU slabs: the universes and logs of the CPU's skipping
	# runs above, the lists kept however long (tiles=1) so that tiles,
	# not dense steps, do the work; halos of depth 1 and 4, staged or by
	# NCCL, tiles of 2 words of z, and the depth and pace left to choose.
	gpu_nccl_skip=""
	for np in $nccl_nps; do gpu_nccl_skip="$gpu_nccl_skip $np,4,nccl,tiles=1"; done
	for tag in "ship 3D4,7/5,8 120 ship.rle3" "edge 3D4/3,4E 60 edge.rle3" \
		   "soup47x29x70 B6/S567 200 soup47x29x70.l3d" \
		   "soup31x29x65 3D2,3/3F 200 soup31x29x65.l3d" \
		   "soup29x33x40 B5,6/S4..6H 200 soup29x33x40.l3d" \
		   "soup37x20x33 B3/S23C 200 soup37x20x33.l3d"; do
		set -- $tag
		tag=$1 rule=$2 n=$3 in=$4
		k=0
		for run in 3,1,staged,tiles=1 2,1,staged,tiles=1:tilez=2 3,4,staged,tiles=1 \
			   4,,auto, $gpu_nccl_skip; do
			IFS=, read -r np depth halo tune <<RUN
$run
RUN
			k=$((k + 1))
			LIFE3D_HALO_DEPTH=$depth LIFE3D_HALO=$halo LIFE3D_CUDA_TUNE=$(echo "$tune" | tr : ,) \
				mpi "$np" -x LIFE3D_HALO_DEPTH -x LIFE3D_HALO -x LIFE3D_CUDA_TUNE -- -q \
				--engine cuda -r "$rule" -n "$n" --log "$tag.gs$k.tsv" -o "$tag.gs$k.l3d" \
				"$in" && ok || fail "GPU skipping $tag $run"
			expect_same "$tag.ref.l3d" "$tag.gs$k.l3d" "GPU universe, skipping $tag $run"
			expect_same "$tag.ref.tsv" "$tag.gs$k.tsv" "GPU log, skipping $tag $run"
		done
	done
	# With a log line only at the end, a batch is several generations by
	# tiles: one graph (default) or launches one by one (plain), batches
	# of 3 and 5 generations, a last one shorter where n is not a multiple.
	for tag in "ship 3D4,7/5,8 120 ship.rle3" "edge 3D4/3,4E 60 edge.rle3" \
		   "soup47x29x70 B6/S567 200 soup47x29x70.l3d" \
		   "soup29x33x40 B5,6/S4..6H 200 soup29x33x40.l3d"; do
		set -- $tag
		tag=$1 rule=$2 n=$3 in=$4
		tail -n 1 "$tag.ref.tsv" >"$tag.ref.last.tsv"
		for run in 3,3,pdl 2,5,pdl 3,3,plain; do
			IFS=, read -r np depth launch <<RUN
$run
RUN
			LIFE3D_HALO_DEPTH=$depth LIFE3D_HALO=staged LIFE3D_CUDA_TUNE=tiles=1 \
				LIFE3D_CUDA_LAUNCH=$launch mpi "$np" -x LIFE3D_HALO_DEPTH -x LIFE3D_HALO \
				-x LIFE3D_CUDA_TUNE -x LIFE3D_CUDA_LAUNCH -- -q --engine cuda -r "$rule" \
				-n "$n" --log-every "$n" --log "$tag.gb$np$launch.tsv" \
				-o "$tag.gb$np$launch.l3d" "$in" && ok || fail "GPU skipping batches $tag $run"
			expect_same "$tag.ref.l3d" "$tag.gb$np$launch.l3d" "GPU universe, batches $tag $run"
			tail -n 1 "$tag.gb$np$launch.tsv" >"$tag.gb$np$launch.last.tsv"
			expect_same "$tag.ref.last.tsv" "$tag.gb$np$launch.last.tsv" \
				"GPU log, batches $tag $run"
		done
	done
	LIFE3D_HALO_DEPTH=1 LIFE3D_CUDA_TUNE=tiles=1 mpi 3 -x LIFE3D_HALO_DEPTH -x LIFE3D_CUDA_TUNE \
		-- -v --engine cuda -r 3D4,7/5,8 -n 120 -o /dev/null ship.rle3 2>gship.err &&
		ok || fail "GPU -v skipping"
	share=$(sed -n 's/.*, \([0-9.]*\)% of tiles stepped$/\1/p' gship.err)
	[ -n "$share" ] && [ "${share%%.*}" -lt 50 ] && ok ||
		fail "GPU -v, skipping: $(tail -n 1 gship.err)"
	for run in 3,1 5,4; do
		np=${run%,*} depth=${run#*,}
		LIFE3D_HALO_DEPTH=$depth mpi $np -x LIFE3D_HALO_DEPTH -- -v --engine cuda \
			-n 1000000000000 --log-every 9999999999 --log gbig.$depth.tsv -o gbig.$depth.l3d \
			settled.l3d 2>gbig.err && ok ||
			fail "GPU, a trillion steps, $np ranks, depth $depth: $(tail -n 1 gbig.err)"
		leapt gbig.err "GPU, a trillion steps, $np ranks, depth $depth"
		expect_same big.ref.l3d gbig.$depth.l3d "GPU, a trillion steps, depth $depth"
		expect_same big.ref.tsv gbig.$depth.tsv "GPU, a trillion steps' log, depth $depth"
	done
	# Several blocks a plane; rows too long for the fused kernel.
	for size in 40x96x200 6x3x5000; do
		"$LIFE3D" -q --engine cpu --random $size --density 0.3 --seed 9 -n 0 \
			-o $size.l3d || fail "make $size"
		"$LIFE3D" -q --engine cpu -n 9 --log $size.ref.tsv -o $size.ref.l3d $size.l3d ||
			fail "$size ref"
		mpi 2 -- -q --engine auto -n 9 --log $size.g2.tsv -o $size.g2.l3d $size.l3d &&
			ok || fail "GPU $size"
		expect_same $size.ref.l3d $size.g2.l3d "GPU universe $size np 2"
		expect_same $size.ref.tsv $size.g2.tsv "GPU log $size np 2"
	done
	mpi 3 -- -q --engine cuda -n 4 --snapshot-every 2 --snapshot-kind projection \
		--slice-axis x --snapshot-prefix gpu-px- -o /dev/null 16x16x16.in.l3d &&
		ok || fail "GPU png"
	for g in 000000 000002 000004; do
		expect_same "ref-projectionx-$g.png" "gpu-px-$g.png" "GPU PNG generation $g"
	done
	;;
esac

head -c 90 13x4x70.in.l3d >short.l3d
head -c 1000 cube.bin >short.bin
"$LIFE3D" -q --random 3x8x8 -n 0 -o three.l3d || fail "make three"
expect_same_failure 3 "missing input" -- -q -n 2 -o x.l3d missing.l3d
expect_same_failure 3 "truncated .l3d" -- -q -n 2 -o x.l3d short.l3d
expect_same_failure 2 "truncated HPCGame" -- -q -n 2 -o x.bin short.bin
expect_same_failure 2 "output exists" -- -q -n 2 -o 7x5x9.ref.l3d 7x5x9.in.l3d
expect_same_failure 2 "disk full" -- -q -f -n 2 --checkpoint df.ckpt.l3d -o /dev/full 7x5x9.in.l3d
# A log whose reader goes away mid-run: the generation reached is kept in
# the checkpoint, as by one process, and a resumed run ends where the run
# would have.
mkfifo mlog.fifo
head -n 40 mlog.fifo >/dev/null &
expect_exit 74 "log reader gone" -- mpi 2 -- -q -r B4/S4 -n 100000 --log mlog.fifo -o mlog.l3d 7x5x9.in.l3d
wait
grep '^life3d:' "$T/err" >np.msg
grep -q "^life3d: mlog.fifo: write error: Broken pipe; generation [0-9]* is kept in the checkpoint mlog.l3d.ckpt.l3d$" np.msg &&
	[ "$(wc -l <np.msg)" -eq 1 ] && ok || fail "log reader gone: said $(head -c 300 "$T/err")"
"$LIFE3D" -q -r B4/S4 -n 100000 -o mlog.ref.l3d 7x5x9.in.l3d || fail "log reader gone: reference"
"$LIFE3D" -q --until 100000 -o mlog.l3d mlog.l3d.ckpt.l3d || fail "log reader gone: resumed"
expect_same mlog.ref.l3d mlog.l3d "log reader gone, resumed"
# A SIGTERM to every rank once the last step is done, while rank 0
# encodes the last picture (a 31-megapixel render): the run finishes as
# one process does, with the picture, the result and status 0.
if [ -z "${LIFE3D_VALGRIND:-}" ]; then
	for n in 0 1; do
		big="--random 64 --seed 5 -n $n --snapshot-every 1 --snapshot-kind render --snapshot-scale 60"
		last=$(printf '%06d' $n)
		"$LIFE3D" -q $big --snapshot-prefix ref$n- -o ref$n.l3d || fail "a large picture, -n $n"
		mpi 2 -- -q $big --snapshot-prefix last$n- --checkpoint last$n.ckpt.l3d -o last$n.l3d 2>last.err &
		pid=$!
		i=0
		while [ $i -lt 400 ] && ! ls .last$n-$last.png.* >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
		sleep 0.1
		for r in $(pgrep -f -- "--snapshot-prefix last$n-"); do   # the ranks, not mpirun
			[ "$(cat /proc/$r/comm 2>/dev/null)" = "$(basename "$LIFE3D")" ] && kill -TERM $r
		done
		wait $pid
		rc=$?
		[ "$rc" -eq 0 ] && ok || fail "-n $n, SIGTERM after the last step: exit $rc, expected 0; $(head -c 300 last.err)"
		expect_same ref$n-$last.png last$n-$last.png "-n $n, SIGTERM after the last step: the picture"
		expect_same ref$n.l3d last$n.l3d "-n $n, SIGTERM after the last step: the result"
		[ -e last$n.ckpt.l3d ] && fail "-n $n, SIGTERM after the last step: a checkpoint" || ok
	done
fi

# A signal to one rank (not rank 0) while rank 0 still reads standard
# input: the run stops at once with one line, not one a rank.  (Open MPI's
# mpirun passes the stop on to rank 0 as SIGTERM; MPICH's hydra kills the
# other ranks, so rank 0 has no word to say: life3d(1), DISTRIBUTED RUNS.)
if mpirun --version 2>&1 | grep -q 'Open MPI'; then
	(sleep 3; cat 7x5x9.in.l3d) | mpi 3 -- -n 100 -o never.l3d - 2>sig.err &
	i=0
	while [ $i -lt 100 ] && [ "$(pgrep -f -- "-o never.l3d -" | wc -l)" -lt 4 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 0.5
	last_rank=$(for r in $(pgrep -f -- "-o never.l3d -"); do
		[ "$(cat /proc/$r/comm 2>/dev/null)" = "$(basename "$LIFE3D")" ] && echo $r; done | tail -n 1)
	[ -n "$last_rank" ] && kill -TERM $last_rank
	wait
	[ "$(grep -c '^life3d:' sig.err)" -eq 1 ] && grep -q "while reading the input; nothing written" sig.err &&
		ok || fail "a signal to one rank during the input: $(grep '^life3d:' sig.err)"
fi
expect_absent never.l3d "a signal during the input"

# An error found by a rank other than 0: the same message, no rank in it.
"$LIFE3D" -q --random 12 --seed 5 -n 0 -o cells.bin || fail "make cells.bin"
cp cells.bin badcell.bin
printf '\002' | dd of=badcell.bin bs=1 seek=1500 conv=notrunc 2>/dev/null
expect_same_failure 3 "a bad cell in rank 2's slab" -- -q -n 2 -o x.l3d badcell.bin

# Warnings as in one process: an RLE3 file without size= (the universe is
# the pattern's box), read by name and from stdin.
printf '3D version=1\nx=2 y=4 z=4 rule=3D4,7/5,8\n$bo$bo/bo$bo$bo$oo/oo$bo$bo$bo/$bo$bo!\n' >nosize.rle3
for src in nosize.rle3 -; do
	"$LIFE3D" -n 2 -o ns1.l3d "$src" <nosize.rle3 2>&1 >/dev/null | grep warning >ns1.msg
	rm -f ns2.l3d
	mpi 2 -- -n 2 -o ns2.l3d "$src" <nosize.rle3 2>&1 >/dev/null | grep warning >ns2.msg
	if [ -s ns1.msg ] && cmp -s ns1.msg ns2.msg; then ok; else
		fail "RLE3 without size= from $src: warned '$(cat ns2.msg)', one process '$(cat ns1.msg)'"
	fi
	expect_same ns1.l3d ns2.l3d "RLE3 without size= from $src"
	rm -f ns1.l3d
done

# A full file system under the ranks' own writes (MPI-IO at offsets, which
# reports a short write as a success): exit 74 and one line naming the
# file, nothing left at a new name, and a file that was there, a result
# replaced with -f or the last good checkpoint, kept whole.  Needs a small
# tmpfs of its own (root, and a system that lets it mount one).
mkdir full
if mount -t tmpfs -o size=96k tmpfs full 2>/dev/null; then
	trap 'umount "$T/full" 2>/dev/null' EXIT
	"$LIFE3D" -q --random 48 --seed 1 -n 0 -o big.bin || fail "make big.bin"
	"$LIFE3D" -q --random 64 --seed 1 -n 0 -o big.l3d || fail "make big.l3d"
	"$LIFE3D" -q --random 100 --seed 1 -n 0 -o bigger.l3d || fail "make bigger.l3d"
	for out in full/out.bin full/out.l3d; do     # 110 kB and 125 kB
		expect_exit 74 "full disk, new $out" -- mpi 3 -- -q -n 2 -o "$out" \
			"$([ "$out" = full/out.bin ] && echo big.bin || echo bigger.l3d)"
		grep '^life3d:' "$T/err" >np.msg
		if [ "$(wc -l <np.msg)" -eq 1 ] && grep -q "$out: write error" np.msg; then
			ok
		else
			fail "full disk, new $out: said $(head -c 300 "$T/err")"
		fi
		# The final universe goes to the checkpoint where that fits.
		if [ -e "$out.ckpt.l3d" ]; then
			grep -q "generation 2 is kept in the checkpoint $out.ckpt.l3d$" np.msg && ok ||
				fail "full disk, new $out: the checkpoint not named: $(cat np.msg)"
			"$LIFE3D" -q -n 0 -o /dev/null "$out.ckpt.l3d" && ok || fail "full disk, new $out: the checkpoint"
			rm -f "$out.ckpt.l3d"
		fi
		expect_absent "$out" "full disk"
		[ -z "$(ls -A full)" ] && ok || fail "full disk, $out: left $(ls -A full)"
	done
	"$LIFE3D" -q --random 16 --seed 1 -n 0 -o full/good.bin || fail "make good.bin"
	cp full/good.bin good.keep
	head -c 60000 /dev/zero >full/filler
	expect_exit 74 "full disk, -f over a file" -- mpi 3 -- -q -n 2 -f -o full/good.bin big.bin
	expect_same good.keep full/good.bin "full disk, -f over a file"
	rm -f full/good.bin full/filler full/*.ckpt.l3d     # the result kept in a checkpoint
	head -c 50000 /dev/zero >full/filler     # room for one checkpoint, not two
	expect_exit 74 "full disk, checkpoints" -- mpi 3 -- -q -n 5 --checkpoint-every 2 \
		--checkpoint full/ck.l3d -o /dev/null big.l3d
	"$LIFE3D" -q -n 0 -o ck.l3d full/ck.l3d && ok || fail "full disk: the last good checkpoint is damaged"
	umount full && trap - EXIT
else
	echo "cli_mpi: cannot mount a tmpfs here: the full-disk cases are skipped"
fi
mpi 4 -- -q -n 2 -o x.l3d three.l3d >/dev/null 2>np.err </dev/null
got=$?
grep '^life3d:' np.err >np.msg
if [ "$got" -eq 64 ] && [ "$(wc -l <np.msg)" -eq 1 ] && grep -q 'more ranks than x-planes' np.msg; then
	ok
else
	fail "4 ranks, 3 planes: exit $got, $(cat np.err)"
fi
expect_absent x.l3d "failed runs"
finish
