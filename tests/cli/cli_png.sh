#!/bin/sh
# PNG snapshots (projections and slices): colours against a fixed
# reference, orientation, sizes, text chunks, naming, limits.  The colours
# are the control points of the map life3d(1) documents: #440154 (the
# map's start, 68 1 84), #31688E (a third of the way, 49 104 142) and
# #FDE725 (its top, 253 231 37).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

START="68 1 84" THIRD="49 104 142" TOP="253 231 37" BLACK="0 0 0"
# Cells (0,0,0) (1,0,0) (0,1,0) (0,0,1) in a 5^3 universe.
printf '3D version=1 size=5\nx=2 y=2 z=2 rule=3D5..7/6\noo$o/o!\n' >four.rle3
check_png() {    # FILE "W H TYPE SUM" DESCRIPTION
	got=$("$TOOLS/pngsum" "$1" 2>&1)
	if [ "$got" = "$2" ]; then ok; else fail "$3: got '$got', expected '$2'"; fi
}
check_px() {     # FILE X,Y "R G B" DESCRIPTION
	got=$("$TOOLS/pngsum" -p "$2" "$1" 2>&1)
	if [ "$got" = "$3" ]; then ok; else fail "$4: pixel $2 is '$got', expected '$3'"; fi
}
check_text() {   # FILE KEY=VALUE DESCRIPTION
	if "$TOOLS/pngsum" -t "$1" | grep -qx -- "$2"; then ok; else
		fail "$3: no text chunk $2 in $1: $("$TOOLS/pngsum" -t "$1" | tr '\n' ' ')"; fi
}
snap() {         # PREFIX OPTION... (then four.rle3 unless another input follows)
	p=$1; shift
	"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix "$p-" -o /dev/null "$@" || fail "run $p: $*"
}

# Projection along z: counts 2 at (0,0), 1 at (1,0) and (0,1).  By default
# (--snapshot-max auto) the reference is the largest count of the first
# picture, 2, drawn as the top colour; a count of 1 is the map's start and
# 0 is black, apart from it.  Against a reference of 5, a count of 2 is not
# the top colour.
snap pz --snapshot-scale 1 four.rle3
set -- $("$TOOLS/pngsum" pz-000000.png)
[ "$1 $2 $3" = "5 5 rgb8" ] && ok || fail "projection z: $*, expected a 5x5 RGB picture"
check_px pz-000000.png 0,0 "$TOP" "count 2, the largest"
check_px pz-000000.png 1,0 "$START" "count 1"
check_px pz-000000.png 0,1 "$START" "count 1"
check_px pz-000000.png 2,2 "$BLACK" "count 0"
check_text pz-000000.png "Maximum=2" "auto's reference"
check_text pz-000000.png "Scaling=linear" "linear by default"
snap pza --snapshot-scale 1 --snapshot-max AUTO four.rle3
expect_same pz-000000.png pza-000000.png "--snapshot-max auto is the default"
snap pz5 --snapshot-scale 1 --snapshot-max 5 four.rle3
got=$("$TOOLS/pngsum" -p 0,0 pz5-000000.png)
[ "$got" != "$TOP" ] && [ "$got" != "$BLACK" ] && ok || fail "count 2 of 5 drawn as '$got'"
# auto is fixed by the first picture for the whole run, so that frames
# compare: a soup's later pictures keep its first's reference.
"$LIFE3D" -q --random 16 --seed 4 -n 6 --snapshot-every 3 --snapshot-scale 1 \
	--snapshot-prefix fix- -o /dev/null || fail "auto run"
for g in 000000 000003 000006; do "$TOOLS/pngsum" -t fix-$g.png | grep '^Maximum='; done |
	sort -u >fix.max
[ "$(wc -l <fix.max)" -eq 1 ] && ok || fail "auto's reference changed in a run: $(tr '\n' ' ' <fix.max)"
"$TOOLS/pngsum" -r fix-000000.png | grep -qx "$TOP" && ok ||
	fail "the first picture of an auto scale has no count at its top"
printf 'snapshot_max = "auto";\n' >auto.conf
"$LIFE3D" -q -c auto.conf -n 0 --snapshot-every 1 --snapshot-scale 1 --snapshot-prefix pzc- \
	-o /dev/null four.rle3 && ok || fail "snapshot_max = \"auto\" in a file"
expect_same pz-000000.png pzc-000000.png "snapshot_max = \"auto\""
expect_exit 64 "--snapshot-max of a word" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-max most four.rle3
expect_err_line "^life3d: --snapshot-max: 'most' is neither a whole number >= 1 nor auto$" "--snapshot-max most"
# Log scaling: of 1 .. 4, a count of 2 is half way (entry 128, #21918C),
# where the linear scale puts it a third of the way.
snap pl --snapshot-scale 1 --snapshot-max 4 --snapshot-scaling log four.rle3
check_px pl-000000.png 0,0 "33 145 140" "count 2 of 4 on a log scale"
check_px pl-000000.png 1,0 "$START" "count 1 on a log scale"
check_text pl-000000.png "Scaling=log" "log scaling said"
# --snapshot-max 4: count 2 lies a third of the way (entry 85 of 255).
snap pz4 --snapshot-scale 1 --snapshot-max 4 four.rle3
check_px pz4-000000.png 0,0 "$THIRD" "count 2 of 4"
check_png pz4-000000.png "5 5 rgb8 $((49 + 104 + 142 + 2 * (68 + 1 + 84)))" "projection, max 4"
# Counts at or above the reference are the top colour.
snap pz1 --snapshot-scale 1 --snapshot-max 1 four.rle3
check_px pz1-000000.png 0,0 "$TOP" "count 2 of 1"
check_px pz1-000000.png 1,0 "$TOP" "count 1 of 1"
snap px --snapshot-scale 1 --snapshot-max 4 --slice-axis x four.rle3
"$TOOLS/pngsum" -r pz4-000000.png >pz4.px && "$TOOLS/pngsum" -r px-000000.png >px.px || fail "decode"
expect_same pz4.px px.px "projection x of a symmetric pattern: the same pixels"
# Scale 3: each cell 3x3 pixels.
snap ps --snapshot-scale 3 --snapshot-max 4 four.rle3
check_png ps-000000.png "15 15 rgb8 $((9 * (49 + 104 + 142 + 2 * (68 + 1 + 84))))" "projection scaled 3x"
check_px ps-000000.png 2,2 "$THIRD" "scaled: cell (0,0)"
check_px ps-000000.png 3,0 "$START" "scaled: cell (1,0)"

# Slices: live cells the top colour on black.
snap s0 --snapshot-scale 1 --snapshot-kind slice --slice-index 0 four.rle3
check_png s0-000000.png "5 5 rgb8 $((3 * (253 + 231 + 37)))" "slice z=0"
check_px s0-000000.png 1,0 "$TOP" "slice z=0 cell (1,0)"
snap s1 --snapshot-scale 1 --snapshot-kind slice --slice-index 1 four.rle3
check_png s1-000000.png "5 5 rgb8 $((253 + 231 + 37))" "slice z=1"
snap sm --snapshot-scale 1 --snapshot-kind slice four.rle3
check_png sm-000000.png "5 5 rgb8 0" "slice default (middle) z=2"
expect_exit 64 "slice index out of range" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-kind slice --slice-index 5 -o /dev/null four.rle3
expect_err_line "slice-index" "slice index message"
# ... only where a slice is drawn: a shared configuration's slice_index
# does not stop projections, renders, or runs without pictures.
"$LIFE3D" -q -n 0 --slice-index 5 -o /dev/null four.rle3 && ok || fail "slice index, no snapshots"
"$LIFE3D" -q -n 0 --snapshot-every 1 --slice-index 5 --snapshot-prefix pi- -o /dev/null four.rle3 &&
	ok || fail "slice index, projections"

# Orientation, as life3d(1) says: along z x runs right and y down; along
# y, x right and z down; along x, y right and z down.  One cell at
# (1, 2, 3) in a 5x6x7 box.
printf '3D version=1 size=7 box=5,6,7 pos=1,2,3\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >one.rle3
for view in "z 3 5x6 1,2 x right, y down" "y 2 5x7 1,3 x right, z down" \
	    "x 1 6x7 2,3 y right, z down"; do
	set -- $view
	snap "o$1" --snapshot-scale 1 --snapshot-kind slice --slice-axis "$1" --slice-index "$2" one.rle3
	check_png "o$1-000000.png" "$(echo "$3" | tr x ' ') rgb8 521" "slice along $1: size"
	check_px "o$1-000000.png" "$4" "$TOP" "slice along $1: the cell"
	check_text "o$1-000000.png" "Orientation=$5 $6 $7 $8" "orientation along $1"
done

# Sizes: by default the smallest whole enlargement with a long side of at
# least 512 pixels, grown to even sides; --snapshot-size changes the 512, --snapshot-scale sets
# the enlargement; both in one place is an error; the command line beats a
# configuration file.
snap d1 four.rle3
set -- $("$TOOLS/pngsum" d1-000000.png)
[ "$1 $2 $3" = "520 520 rgb8" ] && ok || fail "default size of a 5^3 projection: $*"
check_text d1-000000.png "Scale=104" "default scale: 103, the smallest to 512, made even"
"$LIFE3D" -q --random 7x4x3 -n 0 --snapshot-every 1 --snapshot-prefix box- -o /dev/null || fail "box run"
set -- $("$TOOLS/pngsum" box-000000.png)
[ "$1 $2" = "518 296" ] && ok || fail "box 7x4x3 at the default size: $1 $2, expected 518 296 (scale 74)"
# Renders too: whatever the box and view, even sides when life3d chooses.
for spec in "13" "50" "9x20x7" "31x3x17"; do
	"$LIFE3D" -q --random $spec -n 0 --snapshot-every 1 --snapshot-kind render \
		--snapshot-prefix even$spec- -o /dev/null || fail "render $spec"
	set -- $("$TOOLS/pngsum" even$spec-000000.png)
	[ $(($1 % 2)) -eq 0 ] && [ $(($2 % 2)) -eq 0 ] && ok || fail "render of $spec: $1x$2, a side odd"
done
"$LIFE3D" -q --random 7x4x3 -n 0 --snapshot-every 1 --snapshot-size 100 --snapshot-prefix box100- -o /dev/null || fail "box size run"
set -- $("$TOOLS/pngsum" box100-000000.png)
[ "$1 $2" = "112 64" ] && ok || fail "box at --snapshot-size 100: $1 $2, expected 112 64 (scale 15, made even: 16)"
"$LIFE3D" -q --random 7x4x3 -n 0 --snapshot-every 1 --snapshot-scale 2 --snapshot-prefix box2- -o /dev/null || fail "box scale run"
set -- $("$TOOLS/pngsum" box2-000000.png)
[ "$1 $2" = "14 8" ] && ok || fail "box at --snapshot-scale 2: $1 $2, expected 14 8"
expect_exit 64 "scale and size together" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-scale 2 --snapshot-size 100 -o /dev/null four.rle3
expect_err_line "snapshot-scale or snapshot-size" "scale and size message"
printf 'snapshot_scale = 2;\n' >scale.conf
"$LIFE3D" -q -c scale.conf -n 0 --snapshot-every 1 --snapshot-size 20 --snapshot-prefix cs- -o /dev/null four.rle3 || fail "config scale, cli size"
set -- $("$TOOLS/pngsum" cs-000000.png)
[ "$1 $2" = "20 20" ] && ok || fail "--snapshot-size over the file's snapshot_scale: $1 $2, expected 20 20"

# Too large for a PNG (more than 1000000 pixels a side, or 2^27 in all):
# refused before the first step, no file written.
expect_exit 64 "picture too wide" -- "$LIFE3D" -q -n 5 --snapshot-every 1 --snapshot-scale 200001 --snapshot-prefix huge- -o /dev/null four.rle3
expect_err_line "1000000" "picture too wide: the limit in the message"
expect_absent huge-000000.png "refused snapshot"
expect_exit 64 "universe too wide for a PNG" -- "$LIFE3D" -q --random 1000001x1x1 -n 0 --snapshot-every 1 --snapshot-prefix huge- -o /dev/null
expect_err_line "1000001x1 pixels.*1000000 a side" "universe too wide: message"
expect_exit 64 "a picture of more than 2^27 pixels" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-scale 2318 --snapshot-prefix huge- -o /dev/null four.rle3
expect_err_line "11590x11590 pixels.*134217728 in all" "a picture of more than 2^27 pixels: message"
expect_absent huge-000000.png "a picture of more than 2^27 pixels"
# --snapshot-size past the limits: the largest scale within them (5 x 2317
# pixels a side, 134212225 in all).
if [ -z "${LIFE3D_VALGRIND:-}" ]; then
	"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-size 1000000 --snapshot-prefix most- -o /dev/null four.rle3 ||
		fail "--snapshot-size 1000000"
	set -- $("$TOOLS/pngsum" most-000000.png 2>/dev/null)
	[ "$1 $2" = "11585 11585" ] && ok || fail "--snapshot-size 1000000 on 5x5x5: $1 $2, expected 11585 11585"
	rm -f most-000000.png
fi
# ... but only when pictures are asked for.
"$LIFE3D" -q --random 1000001x1x1 -n 2 -o /dev/null &&
	ok || fail "a universe too wide for a PNG, with no snapshots"
"$LIFE3D" -q --random 1000001x1x1 -n 2 --snapshot-every 0 --snapshot-size 600 -o /dev/null &&
	ok || fail "a universe too wide for a PNG, --snapshot-every 0"
"$LIFE3D" -q --random 1000000x1x1 -n 0 --snapshot-every 1 --snapshot-prefix edge- -o /dev/null &&
	ok || fail "a picture of exactly 1000000 pixels a side"
set -- $("$TOOLS/pngsum" edge-000000.png 2>/dev/null)
[ "$1 $2" = "1000000 1" ] && ok || fail "1000000-pixel picture: $1 $2"

# Text chunks say what the picture is.
snap t --snapshot-scale 2 --snapshot-max 4 --slice-axis y four.rle3
for kv in Generation=0 Rule=B6/S567 Universe=5x5x5 Kind=projection Axis=y Scale=2 Maximum=4; do
	check_text t-000000.png "$kv" "projection text"
done
snap ts --snapshot-scale 1 --snapshot-kind slice --slice-index 1 four.rle3
check_text ts-000000.png "Kind=slice" "slice text"
check_text ts-000000.png "Index=1" "slice text"

# A block (still life) gives the same picture at generations 0, 4 and 8 and
# no file for other generations; each says its generation.
printf '3D version=1 size=6 pos=1,1,1\nx=2 y=2 z=2 rule=3D5..7/6\noo$oo/oo$oo!\n' >block.rle3
"$LIFE3D" -q -n 10 --snapshot-every 4 --snapshot-scale 1 --snapshot-max 4 --snapshot-prefix blk- -o /dev/null block.rle3 || fail "block run"
n=$(ls blk-*.png | wc -l)
[ "$n" -eq 3 ] && ok || fail "expected 3 block snapshots, got $n"
for g in 0 4 8; do
	f=blk-00000$g.png
	check_png "$f" "6 6 rgb8 $((4 * (49 + 104 + 142)))" "block at $g"
	check_text "$f" "Generation=$g" "block at $g"
done

# Snapshots refuse to overwrite without -f, like every output.
expect_exit 73 "existing snapshot" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix blk- -o /dev/null block.rle3

# SIGTERM while the run steps and long pictures are being encoded (each of
# 2^27 pixels, the most there may be; two in flight, so the steps wait for
# room): the encoding stops between bands, the run ends with a checkpoint
# and status 130 at once, and no partial picture is left: those finished
# before the signal are whole, the others absent.
"$LIFE3D" -q --random 64 -n 60 --snapshot-every 1 --snapshot-scale 181 --snapshot-prefix slow- \
	--checkpoint slow.ckpt.l3d -o /dev/null 2>slow.err &
pid=$!
i=0
while [ $i -lt 100 ] && ! ls .slow-000000.png.* >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -TERM $pid
i=0
while [ $i -lt 50 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null; then
	fail "SIGTERM during encoding: still running 5 s later"
	kill -KILL $pid
fi
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGTERM during encoding: exit $rc, expected 130; $(cat slow.err)"
grep -Eq "interrupted by signal 15 at generation [0-9]+; checkpoint in slow.ckpt.l3d" slow.err && ok ||
	fail "SIGTERM during encoding: message $(cat slow.err)"
[ -s slow.ckpt.l3d ] && ok || fail "SIGTERM during encoding: no checkpoint"
ls -A | grep -q '^\.slow-' && fail "SIGTERM during encoding: $(ls -A | grep '^\.slow-') left" || ok
for f in slow-*.png; do
	[ -e "$f" ] || continue
	[ "$("$TOOLS/pngsum" "$f" | cut -d' ' -f1-3)" = "11584 11584 rgb8" ] && ok ||
		fail "SIGTERM during encoding: $f is not whole"
done
[ ! -e slow-000060.png ] && ok || fail "SIGTERM during encoding: the run went on to the end"
rm -f slow-*.png

# Once the last step is done the run finishes: the last picture (a render
# of 31 megapixels, about a second here), developed while the result is
# written, is finished in full despite a SIGTERM, and the run ends with
# status 0 and no checkpoint.  (Too slow under valgrind.)
# With -n 1 the last picture is taken right after the last step, in the
# stepping loop: the same holds.
if [ -z "${LIFE3D_VALGRIND:-}" ]; then
	for n in 0 1; do
		big="--random 64 --seed 5 -n $n --snapshot-every 1 --snapshot-kind render --snapshot-scale 60"
		last=$(printf '%06d' $n)
		"$LIFE3D" -q $big --snapshot-prefix ref$n- -o ref$n.l3d || fail "a large picture, -n $n"
		"$LIFE3D" -q $big --snapshot-prefix last$n- --checkpoint last$n.ckpt.l3d -o last$n.l3d 2>last.err &
		pid=$!
		i=0
		while [ $i -lt 1200 ] && ! ls .last$n-$last.png.* >/dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
		sleep 0.1
		kill -TERM $pid
		wait $pid
		rc=$?
		[ "$rc" -eq 0 ] && ok || fail "-n $n, SIGTERM after the last step: exit $rc, expected 0; $(cat last.err)"
		check_png last$n-$last.png "$("$TOOLS/pngsum" ref$n-$last.png)" "-n $n, SIGTERM after the last step: the picture"
		expect_same ref$n.l3d last$n.l3d "-n $n, SIGTERM after the last step: the result"
		[ -e last$n.ckpt.l3d ] && fail "-n $n, SIGTERM after the last step: a checkpoint" || ok
	done
fi

# Bands kept from an earlier picture (bandmemo.h): a band whose rows are
# the same bytes as an earlier picture's is put again, not compressed; and
# once the engine finds the universe repeating with period 2, a picture of
# a generation of the same parity as an earlier one taken since is that
# picture, put whole without drawing anything.  A glider (the 2D one on
# two planes) moving past a still block: bands of the block's and the
# empty rows are kept, the glider's are not, no picture repeats; the block
# alone: every band after the first picture's is kept, and pictures
# repeat; a blinker (period 2): pictures repeat the one two generations
# back, not the one before.  Every file is the bytes that LIFE3D_SKIP=0 (every picture drawn
# and every band compressed) writes.
printf '3D version=1 size=24\nx=17 y=17 z=2 rule=3D5..7/6\n%s/%s!\n' \
	'2$3bo$4bo$2b3o11$15b2o$15b2o' '2$3bo$4bo$2b3o11$15b2o$15b2o' >glider.rle3
printf '3D version=1 size=24\nx=2 y=2 z=2 rule=3D5..7/6\n2o$2o/2o$2o!\n' >block.rle3
printf '3D version=1 size=24\nx=3 y=1 z=2 rule=3D5..7/6\n3o/3o!\n' >blinker.rle3
# tally FILE: "pictures repeated bands kept" from -v's line in FILE.
tally() {
	sed -n 's/^life3d: snapshots: \([0-9]*\) pictures, \([0-9]*\) of them .*; \([0-9]*\) bands, \([0-9]*\) of them .*/\1 \2 \3 \4/p' "$1"
}
for kind in projection slice render; do
	for in in glider block blinker; do
		mkdir -p $kind.$in.memo $kind.$in.dense
		"$LIFE3D" -v $in.rle3 -n 8 --snapshot-every 1 --snapshot-kind $kind --slice-index 0 --snapshot-size 256 \
			--snapshot-prefix $kind.$in.memo/s -o /dev/null 2>memo.err || fail "$kind, $in: $(cat memo.err)"
		LIFE3D_SKIP=0 "$LIFE3D" -v $in.rle3 -n 8 --snapshot-every 1 --snapshot-kind $kind --snapshot-size 256 \
			--slice-index 0 --snapshot-prefix $kind.$in.dense/s -o /dev/null 2>dense.err ||
			fail "$kind, $in, LIFE3D_SKIP=0: $(cat dense.err)"
		for f in $kind.$in.dense/*.png; do
			expect_same "$f" "$kind.$in.memo/${f##*/}" "$kind, $in: a picture with bands kept"
		done
		set -- $(tally memo.err) x x x x
		pictures=$1 repeated=$2 all=$3 kept=$4
		set -- $(tally dense.err) x x x x
		[ "$*" = "9 0 $all 0 x x x x" ] && ok ||
			fail "$kind, $in, LIFE3D_SKIP=0: '$*', expected 9 pictures and $all bands, none kept"
		# 9 pictures of all/9 bands each.  The first picture's bands are
		# new, and so may be the second's, taken while the first is being
		# written; from the third on a picture finds an earlier one's.
		first=$((all / 9))
		case $in in
		glider) [ "$pictures $repeated" = "9 0" ] && [ "$kept" -gt 0 ] &&
			[ "$kept" -lt $((all - first)) ] ;;
		block) [ "$pictures" = 9 ] && [ "$repeated" -gt 0 ] &&
			[ "$kept" -ge $((all - 2 * first)) ] && [ "$kept" -le $((all - first)) ] ;;
		blinker) [ "$pictures" = 9 ] && [ "$repeated" -gt 0 ] ;;
		esac && ok || fail "$kind, $in: $repeated of $pictures pictures repeated, $kept of $all bands kept ($first a picture)"
	done
done
# With a GPU, the CUDA engine (which draws renders itself and finds a
# universe repeating from its lists of tiles, looked at every 48 steps):
# the same pictures as the CPU's, every band compressed.  (In 120 steps
# the glider meets the block, and what is left may come to repeat.)
case $("$LIFE3D" --version | sed -n 's/^gpus: //p') in
"" | none*) ;;
*)
	for kind in projection render; do
		for in in glider blinker; do
			mkdir -p $kind.$in.cuda $kind.$in.ref
			"$LIFE3D" -v --engine cuda $in.rle3 -n 120 --snapshot-every 4 --snapshot-kind $kind \
				--snapshot-size 256 --snapshot-prefix $kind.$in.cuda/s -o /dev/null 2>cuda.err ||
				fail "cuda, $kind, $in: $(cat cuda.err)"
			LIFE3D_SKIP=0 "$LIFE3D" -q --engine cpu $in.rle3 -n 120 --snapshot-every 4 \
				--snapshot-kind $kind --snapshot-size 256 --snapshot-prefix $kind.$in.ref/s \
				-o /dev/null || fail "cuda, $kind, $in: the CPU's pictures"
			for f in $kind.$in.ref/*.png; do
				expect_same "$f" "$kind.$in.cuda/${f##*/}" "cuda, $kind, $in: a picture"
			done
			set -- $(tally cuda.err) x x x x
			case $in in
			glider) [ "$1" = 31 ] ;;
			blinker) [ "$1" = 31 ] && [ "$2" -gt 0 ] ;;
			esac && ok || fail "cuda, $kind, $in: $2 of $1 pictures repeated"
		done
	done
	;;
esac

finish
