#!/bin/sh
# Golly's 2D RLE read into a plane, as 3D.lua pastes a 2D pattern, checked
# against tests/tools/golly2d.py (a reference written from Golly's
# sources); on two planes (--double) B6/S567 runs Conway's Life.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }
ref() { python3 "$SRCDIR/tests/tools/golly2d.py" "$@"; }

printf '#N Glider\n#O Richard K. Guy\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >glider.rle
printf 'x = 4, y = 3, rule = B3/S23\nbo2bo$o4b$o3bo$4o!\n' >lwss.rle
printf 'x = 4, y = 2, rule = 23/3\nb3o$3o!\n' >toad.rle
printf 'x = 3, y = 1\n3o!\n' >blinker.rle
printf 'x = 4, y = 4\n2o$2o$2b2o$2b2o!\n' >beacon.rle

# Where each plane puts the pattern, at the middle and elsewhere, once
# and twice.
for case in "xy -1 0" "xy 7 0" "xy 99 1" "xz -1 0" "xz 3 1" "yz -1 0" "yz 60 1"; do
	set -- $case
	args="--plane $1 --plane-index $2"
	[ "$3" = 1 ] && args="$args --double"
	for p in glider lwss; do
		"$LIFE3D" -q -n 0 $args --format npy -o "$p.npy" -f "$p.rle" || fail "$p $case"
		ref cells "$p.npy" >got
		ref place "$p.rle" "$1" "$2" "$3" 0 >want
		[ -s want ] && expect_same want got "$p placed as Golly pastes it ($case)"
	done
done
# The defaults are Golly's: the XY plane in the middle.
"$LIFE3D" -q -n 0 --format npy -o d.npy glider.rle && ref cells d.npy >got || fail "defaults"
ref place glider.rle xy -1 0 0 >want
expect_same want got "the middle XY plane by default"

# Doubled, B6/S567 runs Conway's Life: a glider, oscillators.
for case in "glider 40" "blinker 5" "toad 5" "beacon 6"; do
	set -- $case
	"$LIFE3D" -q -n "$2" --double --format npy -o "$1.life.npy" -f "$1.rle" || fail "$1 life"
	ref cells "$1.life.npy" >got
	ref place "$1.rle" xy -1 1 "$2" >want
	expect_same want got "$1 after $2 generations on two planes is Life's"
done
# ... while no 3x3 square holds 6 live cells: the planes beside then get
# births, as the manual says (the LWSS has such a square in generation 1).
printf 'x = 2, y = 3\n2o$2o$2o!\n' >six.rle
"$LIFE3D" -q -n 1 --double --format npy -o six.npy six.rle || fail "six"
ref cells six.npy | awk '$3 != 50 && $3 != 51' | grep -q . && ok ||
	fail "a 3x3 square of 6 cells gives no births beside the two planes"
"$LIFE3D" -q -n 24 --double --format npy -o lwss.life.npy lwss.rle || fail "lwss life"
ref cells lwss.life.npy >got
ref place lwss.rle xy -1 1 24 >want
cmp -s want got && fail "the doubled LWSS is Life's, though a 3x3 square of it holds 6" || ok

# The note says where it went and what the rule does.
"$LIFE3D" -n 0 -o /dev/null glider.rle 2>err1 || fail "note run"
grep -q 'glider.rle: a 2D pattern (rule B3/S23), 3x3, centred in the plane z=50 of a 100x100x100 universe' err1 &&
	ok || fail "the note: $(cat err1)"
"$LIFE3D" -n 0 --double -o /dev/null glider.rle 2>err2 || fail "note run 2"
grep -q 'planes z=50 and z=51.*B6/S567 runs it as Conway' err2 && ok || fail "the doubled note: $(cat err2)"

# Read as Golly's readrle reads it: comments between data lines, counts
# across lines, '.' and 'A', a character Golly drops (with its count), no
# header, no '!': the same cells as the plain glider.
printf '#C a\nx=3,y=3,rule=B3/S23\n.A$\n#C between\n2\n.o$\n3o\n' >lenient1.rle
printf 'bo$2bo$3 3o!\n' >lenient2.rle
"$LIFE3D" -q -n 0 --format npy -o plain.npy glider.rle || fail "plain"
for f in lenient1 lenient2; do
	"$LIFE3D" -q -n 0 --format npy -o "$f.npy" "$f.rle" && ok || fail "$f: $(cat "$T/err" 2>/dev/null)"
	expect_same plain.npy "$f.npy" "$f read as Golly reads it"
done
# A comment line longer than any header line is still a comment.
python3 -c "print('#C ' + 'a' * 10000); print('x = 3, y = 3'); print('bo\$2bo\$3o!')" >long.rle
"$LIFE3D" -q -n 0 --format npy -o long.npy long.rle && expect_same plain.npy long.npy "a long comment" ||
	fail "a long comment line"
# The rest of a file after '!' is not read.
printf 'x = 3, y = 3\nbo$2bo$3o!zzz\n4o!\n' >after.rle
"$LIFE3D" -q -n 0 --format npy -o after.npy after.rle && expect_same plain.npy after.npy "data after '!'" ||
	fail "after !"
# #CXRLE's Gen= is the generation.
printf '#CXRLE Pos=-1,-1 Gen=12\nx = 3, y = 3\nbo$2bo$3o!\n' >gen.rle
"$LIFE3D" -q -n 2 -o gen.rle3 gen.rle && grep -q ' gen=14' gen.rle3 && ok || fail "Gen= of #CXRLE"
# A 2D universe is written as RLE3 when nothing names a format.
"$LIFE3D" -q -n 0 -o noext glider.rle && head -c 3 noext | grep -q '^3D' && ok || fail "RLE3 by default"

# Refused: a cell of another state (Golly refuses it under B3/S23), a
# plane outside the universe, and writing 2D RLE.
printf 'x = 3, y = 1\noBo!\n' >state2.rle
expect_exit 65 "a state-2 cell" -- "$LIFE3D" -q -n 0 -o s2.rle3 state2.rle
expect_err_line "state2.rle:2:2: 'B' is a cell of a state above 1" "state-2 message"
expect_absent s2.rle3 "a state-2 cell"
expect_exit 64 "a plane past the universe" -- "$LIFE3D" -q -n 0 --plane-index 100 -o p.rle3 glider.rle
expect_err_line "plane z=100 is outside the universe (100 cells along z)" "plane message"
expect_absent p.rle3 "a plane past the universe"
expect_exit 64 "writing 2D RLE" -- "$LIFE3D" -q -n 0 -o out.rle glider.rle
expect_err_line "out.rle: life3d reads the rle format but does not write it" "writing 2D RLE message"
expect_absent out.rle "writing 2D RLE"
# A pattern wider than Golly's grid grows the universe along the plane.
python3 -c "print('x = 150, y = 1'); print('150o!')" >wide.rle
"$LIFE3D" -q -n 0 --format npy -o wide.npy wide.rle || fail "wide"
head -c 128 wide.npy | grep -a -q "'shape': (150, 100, 100)" && ok || fail "the wide universe's shape"

# Options that place a 2D pattern do nothing for a 3D one, and say so.
"$LIFE3D" --random 8 -n 0 --double -o /dev/null 2>w1
grep -q 'warning: --double places a 2D pattern; --random is a 3D universe' w1 && ok ||
	fail "--double with --random: $(cat w1)"
# An HPCGame file whose first byte is '#' (an edge of 35) is still HPCGame.
python3 -c "import sys; sys.stdout.buffer.write((35).to_bytes(8,'little') + (0).to_bytes(8,'little') + bytes(35**3))" >hash.bin
"$LIFE3D" -q -n 0 -o hash.l3d hash.bin && ok || fail "an HPCGame edge of 35 read as text"

finish
