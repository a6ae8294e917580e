#!/bin/sh
# Formats through the command line: conversions, detection by content,
# Golly's RLE3 example moving as it should, exports.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

"$LIFE3D" -q --random 12 --seed 5 -n 0 -o r.l3d || fail "random"
# l3d -> each format -> l3d is lossless (-n 0).
for f in hpcgame rle3; do
	"$LIFE3D" -q -n 0 --format "$f" -o "r.$f" r.l3d && ok || fail "to $f"
	"$LIFE3D" -q -n 0 --format l3d -o "back.$f.l3d" "r.$f" && ok || fail "from $f"
	expect_same r.l3d "back.$f.l3d" "round trip through $f"
done
# Detection is by content: an RLE3 file named .bin still reads.
cp r.rle3 misnamed.bin
"$LIFE3D" -q -n 0 --format l3d -o misnamed.l3d misnamed.bin && ok || fail "misnamed"
expect_same r.l3d misnamed.l3d "detection by content"
# The output format follows the extension; else the input's format.
"$LIFE3D" -q -n 1 -o ext.rle3 r.l3d && head -c 3 ext.rle3 | grep -q '^3D' && ok || fail "extension .rle3"
"$LIFE3D" -q -n 1 -o noext r.rle3 && head -c 3 noext | grep -q '^3D' && ok || fail "input's format"
# HPCGame holds only cubes.
"$LIFE3D" -q --random 3x4x5 -n 0 -o box.l3d || fail "box"
expect_exit 64 "non-cube to HPCGame" -- "$LIFE3D" -q -n 0 -o box.bin box.l3d
expect_err_line "cubes" "non-cube message"
expect_absent box.bin "non-cube to HPCGame"

# Golly's RLE3 example: a 10c/10 spaceship in 3D4,7/5,8 (rule taken from
# the file) moves 10 cells along x in 10 generations.
cp "$SRCDIR/tests/data/golly-spaceship.rle3" ship.rle3 || fail "fixture"
"$LIFE3D" -q -n 10 -o ship10.rle3 ship.rle3 && ok || fail "ship run"
pos0=$(head -n 1 ship.rle3 | sed -n 's/.*pos=\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3/p')
pos10=$(grep '^3D' ship10.rle3 | sed -n 's/.*pos=\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3/p')
set -- $pos0; x0=$1 y0=$2 z0=$3
set -- $pos10
dx=$(( ($1 - x0 + 40) % 40 ))
if [ "$2 $3" = "$y0 $z0" ] && { [ "$dx" -eq 10 ] || [ "$dx" -eq 30 ]; }; then ok; else fail "spaceship moved from ($pos0) to ($pos10)"; fi
"$LIFE3D" -q -n 0 -o ship0.rle3 ship.rle3 || fail "ship rewrite"
grep -v '^3D' ship0.rle3 | grep -v '^#' >body0
grep -v '^3D' ship10.rle3 | grep -v '^#' >body10
expect_same body0 body10 "spaceship shape after one period"
grep -q 'gen=10' ship10.rle3 && ok || fail "gen=10 in the header"

# Exports: VTK and NPY headers, sizes.
"$LIFE3D" -q -n 0 -o r.vtk r.l3d && ok || fail "vtk"
head -n 5 r.vtk | grep -q '^DIMENSIONS 12 12 12' && ok || fail "vtk dimensions"
"$LIFE3D" -q -n 0 -o r.npy r.l3d && ok || fail "npy"
head -c 6 r.npy | od -c | grep -q 'N   U   M   P   Y' && ok || fail "npy magic"
size=$(wc -c <r.npy)
[ $(( (size - 1728) % 64 )) -eq 0 ] && ok || fail "npy size $size"
expect_exit 65 "reading an export" -- "$LIFE3D" -q -n 0 -o x.l3d r.vtk
finish
