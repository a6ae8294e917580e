#!/bin/sh
# cli_hoods.sh - Golly's five neighbourhoods from the command line: the
# oscillators in tests/data/patterns keep their periods on every SIMD path
# (and no shorter one), through RLE3 and .l3d round trips; the rule keeps
# its neighbourhood in every format that stores one; the mirror image of
# the H oscillator is not one (the axes are not reflected on the way in);
# bad rules are refused with one line.
. "$(dirname "$0")/lib.sh"
P="$SRCDIR/tests/data/patterns"
cd "$T" || exit 99

# cells FILE: the cells of a universe, without the generation (the
# HPCGame payload after its 16-byte header).
cells() {
	"$LIFE3D" -q -f -n 0 -o "$1.cells.bin" "$1" && tail -c +17 "$1.cells.bin"
}

# period FILE P [SIMD]: back to the start after P steps, and not after
# any proper divisor of P.
period() {
	f=$1 p=$2 simd=${3:-auto}
	cells "$f" >start || { fail "read $f"; return; }
	for d in $(seq 1 "$p"); do
		[ $((p % d)) -eq 0 ] || continue
		"$LIFE3D" -q -f --simd "$simd" -n "$d" -o after.bin "$f" || { fail "run $f $d"; return; }
		tail -c +17 after.bin >after
		if [ "$d" -eq "$p" ]; then
			cmp -s start after && ok || fail "$f ($simd): not back after $p steps"
		else
			cmp -s start after && fail "$f ($simd): back after $d steps, not $p"
		fi
	done
}

simds=$("$LIFE3D" --version | sed -n 's/^engines: cpu (simd: \([^)]*\)).*/\1/p')
[ -n "$simds" ] || simds=auto
for spec in "face-p10 10 3D1,2/2F" "corner-p4 4 3D0,1/2C" "edge-p24 24 3D4/3,4E" \
	    "hex-p4 4 3D3/3H"; do
	set -- $spec
	pat=$1 p=$2 golly=$3
	for simd in $simds; do
		period "$P/$pat.rle3" "$p" "$simd"
	done
	# RLE3 writes the rule in Golly's form with the letter, and reads it back
	"$LIFE3D" -q -n 0 -o "$pat.rle3" "$P/$pat.rle3" || fail "write $pat.rle3"
	grep -q "rule=$golly\$" "$pat.rle3" && ok || fail "$pat.rle3: rule line $(grep rule= "$pat.rle3")"
	period "$pat.rle3" "$p"
	# .l3d keeps the neighbourhood, so the copy oscillates alone
	"$LIFE3D" -q -n 0 -o "$pat.l3d" "$P/$pat.rle3" || fail "write $pat.l3d"
	period "$pat.l3d" "$p"
	# and -v names it
	"$LIFE3D" -v -n 1 -o /dev/null -f "$pat.l3d" 2>err || fail "run $pat.l3d"
	grep -q "rule $("$LIFE3D" -q -r "$golly" --random 2 -n 0 -v -o /dev/null -f 2>&1 |
		sed -n 's/.*rule \([^,]*\),.*/\1/p' | head -n 1)," err && ok ||
		fail "$pat: -v says $(head -n 1 err)"
done

# -v writes the B/S form with the letter.
"$LIFE3D" -v -r 3d3/3h --random 4 -n 1 -o /dev/null -f 2>err
grep -q "rule B3/S3H," err && ok || fail "-v rule: $(head -n 1 err)"

# The H oscillator reflected in x is not an oscillator: it dies.
printf '3D version=1 size=16 pos=6,6,6\nx=3 y=3 z=3 rule=3D3/3H\n$$bo/o$bbo$boo/$bbo$bbo!\n' >mirror.rle3
"$LIFE3D" -n 40 -o /dev/null -f mirror.rle3 2>err || fail "run mirror"
grep -q "population 0," err && ok || fail "the mirrored H oscillator lives: $(cat err)"
grep -q "population 0, rule B3/S3H, " err && ok || fail "the summary does not name the rule with its neighbourhood: $(cat err)"

# A rule from -r replaces the file's, neighbourhood included, and says so.
"$LIFE3D" -n 1 -r B6/S567 -o /dev/null -f "$P/hex-p4.rle3" 2>err
grep -q "rule B6/S567 (from the command line) replaces the rule B3/S3H" err && ok ||
	fail "replaced rule: $(cat err)"

# The manual's Python reader of .l3d finds the neighbourhood and counts.
if command -v python3 >/dev/null; then
	awk '/^import struct, zlib/ { on = 1 } on && /^\.fi/ { exit } on' "$SRCDIR/man/life3d-formats.5" |
		sed 's/\\e/\\/g' >read_l3d.py
	printf 'import sys\nshape, gen, b, s, hood, alive, comments = read_l3d(sys.argv[1])\nprint(hood, b, s)\n' >>read_l3d.py
	got=$(python3 read_l3d.py hex-p4.l3d 2>&1)
	[ "$got" = "H 8 8" ] && ok || fail "the manual's read_l3d on hex-p4.l3d: $got"
fi

# Bad rules: one line, exit 64 on the command line, 65 in a file.
for bad in 3D7/3F 3D/0H 3D5/6X 3D13/3E 3D9/3C BusyBoxesM BBX "B7/S1F"; do
	expect_exit 64 "-r $bad" -- "$LIFE3D" -r "$bad" --random 4 -n 1 -o /dev/null -f
	expect_err_line "rule '$bad'" "-r $bad message"
done
printf '3D version=1 size=8\nx=1 y=1 z=1 rule=3D7/3F\no!\n' >bad.rle3
expect_exit 65 "RLE3 with 3D7/3F" -- "$LIFE3D" -n 1 -o /dev/null -f bad.rle3
expect_err_line "bad.rle3.*count 7 at column 3 is over 6" "RLE3 bad rule message"

finish
