#!/bin/sh
# PNG snapshots: sizes, pixel sums of projections and slices, naming.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# Cells (0,0,0) (1,0,0) (0,1,0) (0,0,1) in a 5^3 universe.
printf '3D version=1 size=5\nx=2 y=2 z=2 rule=3D5..7/6\noo$o/o!\n' >four.rle3
check_png() {    # FILE "W H SUM" DESCRIPTION
	got=$("$TOOLS/pngsum" "$1" 2>&1)
	if [ "$got" = "$2" ]; then ok; else fail "$3: got '$got', expected '$2'"; fi
}
# Projection along z: counts 2, 1, 1 -> grey 255, 128, 128 (the densest
# line is white).
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix pz- -o /dev/null four.rle3 || fail "pz run"
check_png pz-000000.png "5 5 511" "projection z"
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix px- --slice-axis x -o /dev/null four.rle3 || fail "px run"
check_png px-000000.png "5 5 511" "projection x"
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix ps- --snapshot-scale 3 -o /dev/null four.rle3 || fail "ps run"
check_png ps-000000.png "15 15 4599" "projection scaled 3x"
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix s0- --snapshot-kind slice --slice-index 0 -o /dev/null four.rle3 || fail "s0 run"
check_png s0-000000.png "5 5 765" "slice z=0"
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix s1- --snapshot-kind slice --slice-index 1 -o /dev/null four.rle3 || fail "s1 run"
check_png s1-000000.png "5 5 255" "slice z=1"
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix sm- --snapshot-kind slice -o /dev/null four.rle3 || fail "sm run"
check_png sm-000000.png "5 5 0" "slice default (middle) z=2"
expect_exit 64 "slice index out of range" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-kind slice --slice-index 5 -o /dev/null four.rle3
expect_err_line "slice-index" "slice index message"

# A non-cubic box: image is X*S wide and Y*S high for axis z.
"$LIFE3D" -q --random 7x4x3 -n 0 --snapshot-every 1 --snapshot-prefix box- --snapshot-scale 2 -o /dev/null || fail "box run"
set -- $("$TOOLS/pngsum" box-000000.png)
if [ "$1 $2" = "14 8" ]; then ok; else fail "box image size $1 $2, expected 14 8"; fi

# A block (still life) gives the same picture at generations 0, 4 and 8 and
# no file for other generations.
printf '3D version=1 size=6 pos=1,1,1\nx=2 y=2 z=2 rule=3D5..7/6\noo$oo/oo$oo!\n' >block.rle3
"$LIFE3D" -q -n 10 --snapshot-every 4 --snapshot-prefix blk- -o /dev/null block.rle3 || fail "block run"
n=$(ls blk-*.png | wc -l)
[ "$n" -eq 3 ] && ok || fail "expected 3 block snapshots, got $n"
for g in 000000 000004 000008; do check_png "blk-$g.png" "6 6 1020" "block at $g"; done

# Snapshots refuse to overwrite without -f, like every output.
expect_exit 73 "existing snapshot" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-prefix blk- -o /dev/null block.rle3
finish
