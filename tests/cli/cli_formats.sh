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
# Cells are voxels: CELL_DATA on a grid of (X+1)(Y+1)(Z+1) points.
head -n 5 r.vtk | grep -q '^DIMENSIONS 13 13 13$' && ok || fail "vtk dimensions"
grep -a -q '^CELL_DATA 1728$' r.vtk && ok || fail "vtk cell data"
grep -a -q '^POINT_DATA' r.vtk && fail "vtk point data" || ok
# One live cell at (x, y, z) = (1, 0, 0) of a 2x3x4 box is voxel (i, j, k)
# = (Z-1-z, y, x) = (3, 0, 1): byte 3 + 4*(0 + 3*1) = 15 of the cells.
printf '3D version=1 size=4 box=2,3,4 pos=1,0,0\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >one.rle3
"$LIFE3D" -q -n 0 -o one.vtk one.rle3 || fail "one.vtk"
tail -c 25 one.vtk | head -c 24 | od -An -tu1 | tr -s ' \n' ' ' >one.cells
[ "$(cat one.cells)" = " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 " ] && ok ||
	fail "vtk voxel of cell (1,0,0): $(cat one.cells)"
"$LIFE3D" -q -n 0 -o r.npy r.l3d && ok || fail "npy"
head -c 6 r.npy | od -c | grep -q 'N   U   M   P   Y' && ok || fail "npy magic"
size=$(wc -c <r.npy)
[ $(( (size - 1728) % 64 )) -eq 0 ] && ok || fail "npy size $size"
expect_exit 65 "reading an export" -- "$LIFE3D" -q -n 0 -o x.l3d r.vtk

# NumPy back in.  npy VERSION DESCR FORTRAN SHAPE: a header as numpy
# writes it (version 1.0: a u16 length; 2.0, 3.0: a u32), 128 bytes in all.
npy() {
	printf '\223NUMPY'
	printf "\\$(printf %03o "$1")\\000"
	if [ "$1" = 1 ]; then printf '\166\000'; else printf '\164\000\000\000'; fi
	w=$((117 - 2 * ($1 > 1)))
	printf "%-${w}s\n" "{'descr': '$2', 'fortran_order': $3, 'shape': ($4), }"
}
cells() {  # N K: N cells, the K-th (from 0) alive; K may be -1
	awk -v n="$1" -v k="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%c", i == k ? 1 : 0 }'
}
"$LIFE3D" -q -n 0 -o one.npy one.rle3 || fail "one.npy"
for case in "1 |u1" "1 |b1" "1 |i1" "2 |u1" "3 <u1"; do
	set -- $case
	{ npy "$1" "$2" False "2, 3, 4"; cells 24 12; } >hand.npy
	expect_exit 0 "reading npy $case" -- "$LIFE3D" -q -n 0 -f -o "hand.$1.out.npy" hand.npy
	expect_same one.npy "hand.$1.out.npy" "npy $case: cell (1, 0, 0) of 2x3x4"
done
cat hand.npy | "$LIFE3D" -q -n 0 -o pipe.npy - && expect_same one.npy pipe.npy "npy from a pipe"
"$LIFE3D" -q -n 0 -o r.back.npy r.npy && expect_same r.npy r.back.npy "life3d's own .npy read back"
"$LIFE3D" -q -n 0 -o r.back.bin r.npy && "$LIFE3D" -q -n 0 -o r.bin r.l3d &&
	expect_same r.bin r.back.bin "life3d's own .npy, as HPCGame"
npy_refused() {  # DESCRIPTION MESSAGE (the file: bad.npy)
	expect_exit 65 "$1" -- "$LIFE3D" -q -n 0 -o bad.out.l3d bad.npy
	expect_err_line "^life3d: bad.npy: $2\$" "$1"
	expect_absent bad.out.l3d "$1"
}
{ npy 1 '<f8' False "2, 3, 4"; cells 192 -1; } >bad.npy
npy_refused "npy of float64" "a NumPy array of '<f8' elements: life3d reads a byte a cell, 0 or 1 (save it as uint8 or bool: a.astype(np.uint8))"
{ npy 1 '|u1' True "2, 3, 4"; cells 24 -1; } >bad.npy
npy_refused "npy in Fortran order" "a NumPy array in Fortran order: life3d reads C order (save np.ascontiguousarray(a))"
{ npy 1 '|u1' False "6, 4"; cells 24 -1; } >bad.npy
npy_refused "npy of 2 dimensions" "a NumPy array of 2 dimensions: life3d reads 3, shape (X, Y, Z)"
{ npy 1 '|u1' False "2, 0, 4"; } >bad.npy
npy_refused "npy without cells" "a NumPy array of shape (2, 0, 4) holds no cell"
{ npy 1 '|u1' False "2, 3, 4"; cells 13 -1; printf '\002'; cells 10 -1; } >bad.npy
npy_refused "npy of a 2" "element 13 of the NumPy array, cell (1, 0, 1), is 2, not 0 or 1"
{ npy 1 '|u1' False "2, 3, 4"; cells 20 -1; } >bad.npy
npy_refused "npy cut short" "truncated: expected 24 bytes of NumPy elements, got 20"
{ npy 1 '|u1' False "2, 3, 4"; cells 25 -1; } >bad.npy
npy_refused "npy with more" "trailing garbage after the NumPy array (at offset 152)"
{ npy 4 '|u1' False "2, 3, 4"; cells 24 -1; } >bad.npy
npy_refused "npy version 4" "NumPy format version 4.0: life3d reads 1.0, 2.0 and 3.0"
{ printf '\223NUMPY\001\000\166\000'; printf "%-117s\n" "[1, 2, 3]"; } >bad.npy
npy_refused "npy without a dict" "the NumPy header is not a dict of descr, fortran_order and shape"
# numpy itself, where it is installed: its files read, and ours loaded.
# (Debian's python3-numpy is in /usr/bin where another python3 comes first.)
py=""
for p in python3 /usr/bin/python3; do
	"$p" -c 'import numpy' 2>/dev/null && py=$p && break
done
if [ -n "$py" ]; then
	"$py" -c '
import numpy as np
a = np.random.default_rng(5).random((7, 5, 9)) < 0.3
np.save("np.bool.npy", a)
np.save("np.u8.npy", a.astype(np.uint8))
np.lib.format.write_array(open("np.v2.npy", "wb"), a, version=(2, 0))' || fail "numpy's files"
	for f in bool u8 v2; do
		"$LIFE3D" -q -n 0 -o "np.$f.l3d" "np.$f.npy" || fail "numpy's $f"
		"$LIFE3D" -q -n 0 -o "np.$f.back.npy" "np.$f.l3d" || fail "numpy's $f back"
	done
	"$py" -c '
import numpy as np, sys
a = np.load("np.u8.npy")
good = a.sum() > 0
for f in ("bool", "u8", "v2"):
    b = np.load("np.%s.back.npy" % f)
    good &= b.dtype == np.uint8 and b.shape == (7, 5, 9) and (a == b).all()
one = np.load("one.npy")
good &= one.shape == (2, 3, 4) and one.sum() == 1 and one[1, 0, 0] == 1
sys.exit(0 if good else 1)' &&
		ok || fail "numpy: the arrays read and written back differ"
else
	echo "numpy not found: the .npy files of numpy itself not read"
fi

# A rule the output format cannot store is announced (not with -q); the
# default rule, and formats that keep a rule, say nothing.
"$LIFE3D" -q -r B5/S45 --random 6 -n 0 -o b545.l3d || fail "b545.l3d"
for f in vtk npy bin; do
	expect_exit 0 "B5/S45 to .$f" -- "$LIFE3D" -n 0 -o "b545.$f" b545.l3d
	grep -q "^life3d: warning: b545.$f: the [a-z]* format stores no rule: the rule B5/S45 is not kept (a run from this file uses B6/S567); write .l3d or .rle3 to keep it$" \
		"$T/err" && ok || fail "rule dropped in .$f not announced: $(cat "$T/err")"
	expect_exit 0 "B5/S45 to .$f, -q" -- "$LIFE3D" -q -n 0 -o "q545.$f" b545.l3d
	[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")" || ok
done
for out in r2.vtk r2.npy r2.bin; do
	expect_exit 0 "B6/S567 to $out" -- "$LIFE3D" -n 0 -o "$out" r.l3d
	grep -q warning "$T/err" && fail "default rule warned: $(cat "$T/err")" || ok
done
for out in k545.l3d k545.rle3; do
	expect_exit 0 "B5/S45 to $out" -- "$LIFE3D" -n 0 -o "$out" b545.l3d
	grep -q warning "$T/err" && fail "$out warned: $(cat "$T/err")" || ok
done

# Golly interchange.  An RLE3 without size= is Golly's 100^3 grid where
# the pattern fits there, else a torus the size of the pattern's box: said,
# not with -q.
printf '3D version=1 pos=1,1,1\nx=2 y=1 z=1 rule=3D5..7/6\noo!\n' >nosize.rle3
# pos and the pattern past 2^64: the message says so, not a size it never had.
printf '3D version=1 pos=18446744073709551615,0,0\nx=2 y=1 z=1 rule=3D5..7/6\noo!\n' >farpos.rle3
expect_exit 65 "pos past 2^64" -- "$LIFE3D" -q -n 0 -o /dev/null farpos.rle3
expect_err_line "^life3d: farpos.rle3:2: pos x=18446744073709551615 and the pattern's 2 cells in x end past the largest edge 16777216$" "pos past 2^64"
expect_exit 0 "RLE3 without size=" -- "$LIFE3D" -n 0 -o nosize.l3d nosize.rle3
grep -q "^life3d: warning: nosize.rle3 has no size=: the universe is Golly's grid, 100x100x100, as Golly reads it; add size=N to its first line to say which$" \
	"$T/err" && ok || fail "no size= not announced: $(cat "$T/err")"
"$LIFE3D" -q -n 0 -o nosize.rle3.out --format rle3 nosize.l3d &&
	head -1 nosize.rle3.out | grep -q "^3D version=1 size=100 pos=1,1,1$" && ok ||
	fail "the 100^3 grid not kept: $(head -1 nosize.rle3.out)"
printf '3D version=1 pos=99,0,0\nx=2 y=1 z=1 rule=3D5..7/6\noo!\n' >bigpos.rle3
expect_exit 0 "RLE3 without size=, past Golly's grid" -- "$LIFE3D" -n 0 -o bigpos.l3d bigpos.rle3
grep -q "^life3d: warning: bigpos.rle3 has no size= and its pattern does not fit Golly's grid: the universe is the pattern's 101x1x1 box, wrapped around; add size=N to its first line to say which$" \
	"$T/err" && ok || fail "past Golly's grid not announced: $(cat "$T/err")"
expect_exit 0 "RLE3 without size=, -q" -- "$LIFE3D" -q -n 0 -o nosize2.l3d nosize.rle3
[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")" || ok
expect_exit 0 "RLE3 with size=" -- "$LIFE3D" -n 0 -o ship-again.l3d ship.rle3
grep -q warning "$T/err" && fail "size= warned: $(cat "$T/err")" || ok
# What Golly reads where a file leaves something out or wrong, read the
# same way, with one line saying what was assumed (not with -q): the
# universe as the complete file gives it.
printf '3D size=6 gen=-2 pos=1,2\nx=3 y=1 z=1 rule=3D5..7/6\nobo\n' >lenient.rle3
printf '3D version=1 size=6 pos=1,2,0\nx=3 y=1 z=1 rule=3D5..7/6\nobo!\n' >strict.rle3
expect_exit 0 "RLE3 read as Golly reads it" -- "$LIFE3D" -n 0 -o lenient.l3d lenient.rle3
grep -q "^life3d: warning: lenient.rle3: read as Golly reads it: gen=-2 (read as 0); pos=1,2 (z read as 0); no version= (read as version 1); no '!' at the end (read to the end, as Golly does)$" \
	"$T/err" && ok || fail "assumptions not said: $(cat "$T/err")"
[ "$(grep -c warning "$T/err")" -eq 1 ] && ok || fail "more than one warning line: $(cat "$T/err")"
"$LIFE3D" -q -n 0 -o strict.l3d strict.rle3 || fail "strict.rle3"
expect_same lenient.l3d strict.l3d "RLE3 read as Golly reads it"
expect_exit 0 "RLE3 read as Golly reads it, -q" -- "$LIFE3D" -q -n 0 -o lenient2.l3d lenient.rle3
[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")" || ok
# --random-shape fills Golly's central box or the ball in it: on Golly's
# 30^3 grid the box is 3..26 (24^3 cells at density 1) and the ball 7400
# cells; a soup of some density keeps within the box.
for shape in box sphere; do
	"$LIFE3D" -q --random 30 --density 1 --random-shape $shape -o full.$shape.rle3 ||
		fail "--random-shape $shape"
	sed -n 1,2p full.$shape.rle3 | tr '\n' ' ' >full.$shape.head
	grep -q "^3D version=1 size=30 pos=3,3,3 x=24 y=24 z=24 " full.$shape.head && ok ||
		fail "--random-shape $shape: $(cat full.$shape.head)"
done
"$LIFE3D" -v -n 0 -o /dev/null --format l3d full.sphere.rle3 2>full.err
grep -q "population 7400," full.err && ok || fail "the ball of 30^3: $(grep population full.err)"
"$LIFE3D" -q --random 30 --density 0.3 --seed 9 --random-shape box -o soup.box.rle3 || fail "box soup"
set -- $(sed -n 's/^3D version=1 size=30 pos=\([0-9]*\),\([0-9]*\),\([0-9]*\)$/\1 \2 \3/p' soup.box.rle3) \
	$(sed -n 's/^x=\([0-9]*\) y=\([0-9]*\) z=\([0-9]*\) .*/\1 \2 \3/p' soup.box.rle3)
[ $# -eq 6 ] && [ "$1" -ge 3 ] && [ "$2" -ge 3 ] && [ "$3" -ge 3 ] && [ $(($1 + $4)) -le 27 ] &&
	[ $(($2 + $5)) -le 27 ] && [ $(($3 + $6)) -le 27 ] && ok ||
	fail "a box soup outside 3..26: $(head -n 2 soup.box.rle3)"
expect_exit 64 "--random-shape cube" -- "$LIFE3D" -q --random 8 --random-shape cube -o x.l3d
expect_err_line "random-shape: 'cube' is not one of fill|box|sphere" "--random-shape cube"
# What Golly would refuse or run otherwise is said when RLE3 is written.
"$LIFE3D" -q --random 101 --density 0.001 -n 0 -o big.l3d || fail "big.l3d"
expect_exit 0 "RLE3 over 100 a side" -- "$LIFE3D" -n 0 -o big.rle3 big.l3d
grep -q "^life3d: warning: big.rle3: Golly opens no universe over 100 cells a side$" "$T/err" && ok ||
	fail "size over 100: $(cat "$T/err")"
# Not for a device, which keeps no file: /dev/null.
expect_exit 0 "RLE3 over 100 a side to /dev/null" -- "$LIFE3D" -n 0 --format rle3 -o /dev/null big.l3d
grep -q warning "$T/err" && fail "/dev/null warned: $(cat "$T/err")" || ok
expect_exit 0 "RLE3 under 3 a side" -- "$LIFE3D" -n 0 --random 2 -o small.rle3
grep -q "^life3d: warning: small.rle3: Golly opens no universe under 3 cells a side$" "$T/err" && ok ||
	fail "size under 3: $(cat "$T/err")"
expect_exit 0 "RLE3 of a box" -- "$LIFE3D" -n 0 -o box.rle3 box.l3d
grep -q "^life3d: warning: box.rle3: Golly ignores box=3,4,5 and runs the pattern in a cube$" "$T/err" && ok ||
	fail "box: $(cat "$T/err")"
expect_exit 0 "RLE3 with birth on 0" -- "$LIFE3D" -r B01/S -n 0 -o b0.rle3 r.l3d
grep -q "^life3d: warning: b0.rle3: Golly refuses a rule with birth on 0$" "$T/err" && ok ||
	fail "birth on 0: $(cat "$T/err")"
expect_exit 0 "RLE3 Golly takes" -- "$LIFE3D" -n 0 -o fine.rle3 r.l3d
grep -q warning "$T/err" && fail "a cube of 12 warned: $(cat "$T/err")" || ok
# A NUL byte in a header line is an error, not the line's end.
printf '3D version=1 size=8\000 size=4\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >nul.rle3
expect_exit 65 "NUL in the first line" -- "$LIFE3D" -q -n 0 -o nul.l3d nul.rle3
expect_err_line "^life3d: nul.rle3:1:20: byte 0x00 in a header line$" "NUL in the first line"
printf '3D version=1 size=8\nx=1 y=1 z=1 rule=3D5..7/6\000x\no!\n' >nul2.rle3
expect_exit 65 "NUL in the x= line" -- "$LIFE3D" -q -n 0 -o nul2.l3d nul2.rle3
expect_err_line "nul2.rle3:2:.*byte 0x00 in a header line" "NUL in the x= line"
# gen= reads every value the writer writes, up to 2^64-1.
for gen in 18446744073709551615 18446744073709551610 9999999999999999999; do
	printf '3D version=1 size=4 gen=%s\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' "$gen" >gen.rle3
	"$LIFE3D" -q -n 0 -o gen-out.rle3 -f gen.rle3 && ok || fail "gen=$gen read"
	grep -q "^3D version=1 size=4 gen=$gen\$" gen-out.rle3 && ok || fail "gen=$gen written: $(head -n 1 gen-out.rle3)"
	"$LIFE3D" -q -n 0 -o gen-back.l3d -f gen-out.rle3 && ok || fail "gen=$gen read back"
done
printf '3D version=1 size=4 gen=18446744073709551616\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >gen.rle3
expect_exit 65 "gen= past 64 bits" -- "$LIFE3D" -q -n 0 -o gen-over.l3d gen.rle3
expect_err_line "bad value in 'gen=18446744073709551616'" "gen= past 64 bits"

# Format names in any case; an extension that names no format is refused
# unless --format says what to write.
expect_exit 0 "--format RLE3" -- "$LIFE3D" -q -n 0 --format RLE3 -o upper.txt r.l3d
head -c 3 upper.txt | grep -q '^3D' && ok || fail "--format RLE3 wrote: $(head -c 20 upper.txt)"
expect_exit 0 "--format Npy" -- "$LIFE3D" -q -n 0 --format Npy -o upper.npy.gz r.l3d
head -c 6 upper.npy.gz | od -c | grep -q 'N   U   M   P   Y' && ok || fail "--format Npy"
expect_exit 0 ".RLE3" -- "$LIFE3D" -q -n 0 -o upper.RLE3 r.l3d
head -c 3 upper.RLE3 | grep -q '^3D' && ok || fail ".RLE3 wrote: $(head -c 20 upper.RLE3)"
expect_exit 64 "an unknown extension" -- "$LIFE3D" -q -n 0 -o out.npy.gz r.l3d
expect_err_line "^life3d: out.npy.gz: '.gz' names no format (hpcgame: .bin .hpc .dat, l3d: .l3d, rle3: .rle3, vtk: .vtk, npy: .npy, vti: .vti, vtp: .vtp); give --format to write it under this name$" \
	"an unknown extension"
expect_absent out.npy.gz "an unknown extension"
# Comments kept, as Golly keeps them: read wherever they stand, written
# after the first line of RLE3, carried by .l3d (version 2) and by
# checkpoints; --comment adds one, once.
printf '3D version=1 size=8\n#N Name\n#O Brian D. Eubanks, 25 December 2018\nx=2 y=1 z=1 rule=3D5..7/6\n#C inside\noo!\n' >notes.rle3
printf '#N Name\n#O Brian D. Eubanks, 25 December 2018\n#C inside\n' >notes.want
"$LIFE3D" -q -n 3 -o notes.l3d notes.rle3 && "$LIFE3D" -q -n 0 -o notes-back.rle3 notes.l3d || fail "comments through .l3d"
sed -n '2,4p' notes-back.rle3 >notes.got
expect_same notes.want notes.got "comments through .l3d, after RLE3's first line"
"$LIFE3D" -q -n 4 --checkpoint-every 2 --checkpoint notes.ckpt.l3d -o /dev/null notes.rle3 || fail "checkpointed"
"$LIFE3D" -q -n 0 -o notes-ck.rle3 notes.ckpt.l3d && sed -n '2,4p' notes-ck.rle3 >notes.got || fail "from the checkpoint"
expect_same notes.want notes.got "comments in a checkpoint"
"$LIFE3D" -q -n 1 --comment 'searched by cron' -o notes-c.rle3 notes.rle3 || fail "--comment"
"$LIFE3D" -q -n 1 --comment 'searched by cron' -o notes-cc.rle3 notes-c.rle3 || fail "--comment again"
[ "$(grep -c '^#C searched by cron$' notes-cc.rle3)" = 1 ] && ok || fail "--comment once: $(cat notes-cc.rle3)"
"$LIFE3D" -q -n 0 --comment '#N Other name' -o - notes.rle3 | grep -q '^#N Other name$' && ok || fail "--comment '#N ...'"
expect_exit 64 "a comment of two lines" -- "$LIFE3D" -q -n 0 --comment "$(printf 'a\nb')" -o x.rle3 notes.rle3
expect_err_line "a control character (byte 0x0a) in the text: a comment is one line" "a comment of two lines"
"$LIFE3D" -n 0 -o notes.vtk notes.rle3 2>notes.err || fail "comments to VTK"
grep -q 'warning: notes.vtk: the vtk format keeps no comments (3 lines not written; RLE3 and .l3d keep them)' notes.err &&
	ok || fail "the VTK warning: $(cat notes.err)"
# A 2D pattern's #N and #O lines come along into RLE3.
printf '#N Glider\n#O Richard K. Guy\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >glider.rle
"$LIFE3D" -q -n 0 -o glider.rle3 glider.rle && sed -n '2,3p' glider.rle3 >g.got || fail "2D comments"
printf '#N Glider\n#O Richard K. Guy\n' >g.want
expect_same g.want g.got "a 2D pattern's comments"
finish
