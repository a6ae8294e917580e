#!/bin/sh
# The 3D render (--snapshot-kind render): what it shows, checked against
# the projection where the two must agree; shading and depth cueing;
# sizes, text chunks; the same bytes for every thread count and engine.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

BG="20 20 24" FRONT="220 220 220" BACK="110 110 110"
render() {       # PREFIX OPTION... INPUT
	p=$1; shift
	"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-kind render --snapshot-prefix "$p-" \
		-o /dev/null "$@" || fail "render $p: $*"
}
# The colours of a picture other than the background and the box's edges,
# one a line with its pixel count.
cell_colours() {
	"$TOOLS/pngsum" -r "$1" | grep -v -x -e "$BG" -e "$FRONT" -e "$BACK" | sort | uniq -c
}

# An empty universe: the background and the box's edges, nothing else;
# the three edges at the far corner (drawn darker) are there too.
printf '3D version=1 size=4\nx=0 y=0 z=0 rule=3D5..7/6\n!\n' >empty.rle3
render empty empty.rle3
set -- $("$TOOLS/pngsum" empty-000000.png)
[ "$3" = rgb8 ] && ok || fail "render is not 8-bit RGB: $*"
[ -z "$(cell_colours empty-000000.png)" ] && ok || fail "empty universe: colours $(cell_colours empty-000000.png | head -n 3)"
"$TOOLS/pngsum" -r empty-000000.png | grep -qx "$FRONT" && ok || fail "empty universe: no front edges"
"$TOOLS/pngsum" -r empty-000000.png | grep -qx "$BACK" && ok || fail "empty universe: no back edges"

# One cell at the far corner and one at the near corner (the default view
# looks from the side of the high x, y and z): each shows three faces in
# three shades, and depth cueing gives the two different colours.
printf '3D version=1 size=4\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >far.rle3
printf '3D version=1 size=4 pos=3,3,3\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >near.rle3
render far far.rle3
render near near.rle3
cell_colours far-000000.png >far.colours
cell_colours near-000000.png >near.colours
[ "$(wc -l <far.colours)" -eq 3 ] && ok || fail "one cell: $(wc -l <far.colours) shades, expected 3 faces: $(cat far.colours)"
[ "$(wc -l <near.colours)" -eq 3 ] && ok || fail "one near cell: $(wc -l <near.colours) shades, expected 3"
awk '{ print $2, $3, $4 }' far.colours >far.rgb
awk '{ print $2, $3, $4 }' near.colours >near.rgb
[ -z "$(comm -12 far.rgb near.rgb)" ] && ok || fail "near and far cells share colours: $(comm -12 far.rgb near.rgb)"
# Nearer is lighter: the near cell's brightest face outshines the far one's.
light() { awk '{ s = $1 + $2 + $3; if (s > m) m = s } END { print m }' "$1"; }
[ "$(light near.rgb)" -gt "$(light far.rgb)" ] && ok || fail "near cell not lighter: $(light near.rgb) vs $(light far.rgb)"

# Seen from straight above (--snapshot-view -90,90: x right, y up), a
# column of cells shows a cell exactly where the projection along z
# counts one: checked at every column's centre.
"$LIFE3D" -q --random 6x5x4 --density 0.08 --seed 7 -n 0 -o box.l3d || fail "box"
render top --snapshot-view -90,90 --snapshot-scale 8 box.l3d
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-scale 1 --snapshot-prefix proj- -o /dev/null box.l3d || fail "projection"
set -- $("$TOOLS/pngsum" top-000000.png)
[ "$1 $2" = "$((6 * 8 + 24)) $((5 * 8 + 24))" ] && ok || fail "top view size $1 $2"
"$TOOLS/pngsum" -t top-000000.png | grep -qx "View=azimuth -90, elevation 90 degrees; z toward the viewer" &&
	ok || fail "view text from above: $("$TOOLS/pngsum" -t top-000000.png | grep View)"
"$TOOLS/pngsum" -r top-000000.png >top.px
"$TOOLS/pngsum" -r proj-000000.png >proj.px
bad=$(awk -v W=72 -v bg="$BG" '
	NR == FNR { proj[NR - 1] = $0; next }
	{ px[FNR - 1] = $0 }
	END {
		live = 0
		for (y = 0; y < 5; y++) for (x = 0; x < 6; x++) {
			empty = proj[y * 6 + x] == "0 0 0"
			live += !empty
			r = 12 + (4 - y) * 8 + 4; c = 12 + x * 8 + 4
			if (empty != (px[r * W + c] == bg)) print x "," y
		}
		if (live == 0 || live == 30) print "a universe with no empty or no full column"
	}' proj.px top.px)
[ -z "$bad" ] && ok || fail "top view and projection disagree at columns: $bad"

# Sizes: the smallest whole number of pixels per cell that gives 512 on the
# long side; --snapshot-scale sets it; text chunks say what it is.
"$LIFE3D" -q --random 40 --seed 3 -n 0 -o r40.l3d || fail "r40"
render def r40.l3d
s=$("$TOOLS/pngsum" -t def-000000.png | sed -n 's/^Scale=//p')
set -- $("$TOOLS/pngsum" def-000000.png)
long=$(( $1 > $2 ? $1 : $2 ))
[ "$long" -ge 512 ] && ok || fail "default render: $1x$2, less than 512"
render less --snapshot-scale $((s - 1)) r40.l3d
set -- $("$TOOLS/pngsum" less-000000.png)
[ "$(( $1 > $2 ? $1 : $2 ))" -lt 512 ] && ok || fail "scale $((s - 1)) already gives $1x$2: the default is not the smallest"
for kv in Kind=render Universe=40x40x40 Rule=B6/S567 Generation=0 "Scale=$s" \
	  "View=azimuth 30, elevation 25 degrees; z up"; do
	"$TOOLS/pngsum" -t def-000000.png | grep -qx "$kv" && ok || fail "render text: no $kv"
done
render side --snapshot-view 120,10 r40.l3d
"$TOOLS/pngsum" -t side-000000.png | grep -qx "View=azimuth 120, elevation 10 degrees; z up" && ok || fail "view text"
cmp -s def-000000.png side-000000.png && fail "another view, the same picture" || ok
render negzero --snapshot-view -0,-0 r40.l3d
"$TOOLS/pngsum" -t negzero-000000.png | grep -qx "View=azimuth 0, elevation 0 degrees; z up" && ok || fail "view text of -0,-0"
# Choices in any case: RENDER is a render.
"$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-kind RENDER --snapshot-prefix upper- -o /dev/null r40.l3d || fail "RENDER"
cmp -s def-000000.png upper-000000.png && ok || fail "--snapshot-kind RENDER is not the render"
for bad in 30 30,91 x,10 "30,10,5" 400,0 " 30,10" "30,10 " 0x10,5 1e1,2 +5,5 ,5; do
	expect_exit 64 "--snapshot-view $bad" -- "$LIFE3D" -q -n 0 --snapshot-every 1 --snapshot-kind render --snapshot-view "$bad" -o /dev/null r40.l3d
	expect_err_line "snapshot-view" "--snapshot-view $bad message"
done

# The same bytes with any number of threads and from a run's later
# generations as from the universe written there.
for t in 1 2 3; do
	"$LIFE3D" -q --threads $t --engine cpu -n 6 --snapshot-every 3 --snapshot-kind render \
		--snapshot-prefix t$t- -o t$t.l3d r40.l3d || fail "threads $t"
done
for g in 000000 000003 000006; do
	expect_same t1-$g.png t2-$g.png "render, 1 and 2 threads, generation $g"
	expect_same t1-$g.png t3-$g.png "render, 1 and 3 threads, generation $g"
done
render again t1.l3d
expect_same again-000006.png t1-000006.png "render of generation 6, in the run and from its result"
finish
