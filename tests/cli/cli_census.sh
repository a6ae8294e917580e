#!/bin/sh
# cli_census.sh - `life3d census` from the command line: soups made again
# from their root and number (the SHA-256 recomputed by Python), the same
# haul from 1, 2 and 3 threads and with LIFE3D_SKIP=0 LIFE3D_LEAP=0, known
# objects found in known soups (the B6/S567 block, blinker and c/4
# glider), soups that die or do not settle, bad options refused with one
# line and status 64, an output that exists kept, and a census stopped by
# SIGTERM writing the haul of the soups done, which a census of those
# soups alone reproduces byte for byte.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# ---- help ----
expect_exit 0 "census --help" -- "$LIFE3D" census --help
grep -q -- '--soups' out && grep -q -- '--soup ROOT/I' out && ok || fail "census --help: $(head -c 200 out)"
awk 'length > 80 { bad = 1 } END { exit bad }' out && ok || fail "census --help: lines over 80 columns"

# ---- soups ----
# Soup I of ROOT is --random N --seed S, S the first 8 bytes of
# SHA-256("ROOT/I"), moved 24 cells into its space of N + 48.
if command -v python3 >/dev/null 2>&1; then
	for id in life3d/0 life3d/389 "x-y.z/123456789"; do
		s=$(python3 -c "import hashlib,sys; print(int.from_bytes(hashlib.sha256(sys.argv[1].encode()).digest()[:8], 'big'))" "$id")
		"$LIFE3D" census --soup "$id" -s 12 -d 0.3 -o soup.rle3 -f || fail "--soup $id"
		"$LIFE3D" -q --random 12 --seed "$s" --density 0.3 -o rand.rle3 -f || fail "--random --seed $s"
		# The same cells: the soup's pattern lines and box, at pos 24,24,24.
		head -n 1 soup.rle3 | grep -q '^3D version=1 size=60 pos=24,24,24$' && ok ||
			fail "--soup $id: first line $(head -n 1 soup.rle3)"
		tail -n +2 soup.rle3 >a
		tail -n +2 rand.rle3 >b
		expect_same a b "--soup $id against --random 12 --seed $s"
	done
else
	echo "python3 not found: the soups' SHA-256 not recomputed"
fi
"$LIFE3D" census --soup life3d/5 -o s.l3d && "$LIFE3D" -q s.l3d -o s2.rle3 &&
	grep -q 'size=64' s2.rle3 && ok || fail "--soup to .l3d"

# ---- the same haul from every thread count, and without skipping ----
"$LIFE3D" census -n 400 -t 1 -o h1.tsv || fail "census -t 1"
for t in 2 3; do
	"$LIFE3D" census -n 400 -t "$t" -o "h$t.tsv" || fail "census -t $t"
	expect_same h1.tsv "h$t.tsv" "census -t 1 against -t $t"
done
LIFE3D_SKIP=0 LIFE3D_LEAP=0 "$LIFE3D" census -n 400 -t 2 -o hd.tsv || fail "census dense"
expect_same h1.tsv hd.tsv "census against LIFE3D_SKIP=0 LIFE3D_LEAP=0"
for r in B5/S45 3D3/3H 3D4,7/5,8 B4/S4F; do
	"$LIFE3D" census -r "$r" -s 10 -n 60 -t 1 -f -o r1.tsv && "$LIFE3D" census -r "$r" -s 10 -n 60 -t 3 -f -o r3.tsv ||
		fail "census -r $r"
	expect_same r1.tsv r3.tsv "census -r $r: -t 1 against -t 3"
done

# ---- the GPU: the same haul as the CPU's ----
gpus=$("$LIFE3D" --version | sed -n 's/^gpus: //p')
case "$gpus" in
none*)
	expect_exit 69 "census --engine cuda without a GPU" -- "$LIFE3D" census -n 5 --engine cuda -o g0.tsv
	expect_err_line "engine 'cuda'" "census --engine cuda without a GPU"
	[ ! -e g0.tsv ] && ok || fail "census --engine cuda without a GPU left g0.tsv"
	;;
*)
	for r in B6/S567 B5/S45 B5/S56 B5/S678 3D4,7/5,8 B4/S4; do
		"$LIFE3D" census -r "$r" -n 3000 --engine cpu -f -o gc.tsv &&
			"$LIFE3D" census -r "$r" -n 3000 --engine cuda -f -o gg.tsv || fail "census -r $r on the GPU"
		expect_same gc.tsv gg.tsv "census -r $r: --engine cpu against cuda"
	done
	"$LIFE3D" census --max-gens 40 --first 7000 -n 3000 --engine cpu -f -o gc.tsv &&
		"$LIFE3D" census --max-gens 40 --first 7000 -n 3000 --engine cuda -f -o gg.tsv || fail "census --max-gens 40 on the GPU"
	expect_same gc.tsv gg.tsv "census --max-gens 40: --engine cpu against cuda"
	expect_exit 69 "census --engine cuda of 12^3 soups" -- "$LIFE3D" census -s 12 -n 5 --engine cuda
	;;
esac

# ---- over MPI ranks: the same haul as one process's ----
if "$LIFE3D" --version | grep -q '^mpi: built in' && command -v mpirun >/dev/null 2>&1 &&
	[ -z "${LIFE3D_VALGRIND:-}" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
	for np in 2 3; do
		timeout 300 mpirun --oversubscribe -np "$np" "$LIFE3D" census -n 400 -t 1 --engine cpu -f -o "hm$np.tsv" ||
			fail "census over $np ranks"
		expect_same h1.tsv "hm$np.tsv" "census over $np ranks against one process"
	done
	timeout 300 mpirun --oversubscribe -np 2 "$LIFE3D" census -n 3 -o h1.tsv >/dev/null 2>mpi.err
	rc=$?
	[ "$rc" -eq 73 ] && [ "$(grep -c '^life3d: ' mpi.err)" -eq 1 ] && ok ||
		fail "census over 2 ranks to a haul that exists: exit $rc: $(cat mpi.err)"
else
	echo "no MPI or no mpirun: the ranks' census not run"
fi

# ---- the haul's header and its known objects ----
head -n 7 h1.tsv >head
cat >head.want <<EOF
# life3d census $("$LIFE3D" --version | sed -n 's/^life3d //p')
# rule	B6/S567
# soup	16x16x16 density 0.25
# root	life3d
# soups	400 in 0-399
# bounds	10000 generations, space 64^3
code	kind	period	population	displacement	count	samples
EOF
expect_same head head.want "the haul's header"
line() { awk -F '\t' -v c="$1" '$1 == c' "$2"; }
# The block (8 cells, every cell with 7 neighbours) and the blinker (3
# cells in a row doubled onto two planes).
line xs8_2x2x2_ff h1.tsv | grep -q "	still	1	8	0,0,0	" && ok || fail "no block in the haul"
line xp2_1x2x3_f3 h1.tsv | grep -q "	oscillator	2	6	0,0,0	" && ok || fail "no blinker in the haul"
# Soup 389 emits the 10-cell c/4 glider; it moves one cell along two
# axes a period.
"$LIFE3D" census --first 389 -n 1 -o g.tsv || fail "census of soup 389"
awk -F '\t' '$2 == "ship"' g.tsv >ships
[ "$(wc -l <ships)" -eq 1 ] && ok || fail "soup 389: ships $(cat ships)"
awk -F '\t' '{ split($5, d, ","); s = d[1] * d[1] + d[2] * d[2] + d[3] * d[3];
	exit !($3 == 4 && $4 == 10 && s == 2 && $6 == 1 && $7 == "life3d/389") }' ships &&
	ok || fail "soup 389's glider: $(cat ships)"
line "$(cut -f 1 ships)" h1.tsv | grep -q "life3d/389" && ok || fail "the glider's line in the 400 soups' haul"
# The block from its own soup: a census's counts are whole soups'.
"$LIFE3D" census --first 1 -n 1 -o b.tsv || fail "census of soup 1"
line xs8_2x2x2_ff b.tsv | grep -q "	life3d/1$" && ok || fail "soup 1's block: $(cat b.tsv)"

# ---- known objects from files, in every orientation and phase ----
# known NAME RULE HOOD PERIOD POPULATION CELLS...: the object in each of
# its neighbourhood's orientations (tests/tools/orient.py finds the group
# on its own) and, turned the first way, in each phase (life3d steps it):
# one line in the haul, of the kind, period and population given, counted
# once a file.
known() {
	kn=$1 kr=$2 kh=$3 kp=$4 kpop=$5
	shift 5
	mkdir -p "$kn" && n=$(python3 "$SRCDIR/tests/tools/orient.py" "$kr" "$kh" "$kn/o" "$@") ||
		{ fail "$kn: orient.py"; return; }
	set --
	i=0
	while [ "$i" -lt "$n" ]; do set -- "$@" --soups "$kn/o-$i.rle3"; i=$((i + 1)); done
	k=1
	while [ "$k" -lt "$kp" ]; do
		"$LIFE3D" -q -n "$k" "$kn/o-1.rle3" -o "$kn/p-$k.rle3" || fail "$kn: phase $k"
		set -- "$@" --soups "$kn/p-$k.rle3"
		k=$((k + 1))
	done
	files=$((n + kp - 1))
	"$LIFE3D" census -r "$kr" "$@" -o "$kn.tsv" || { fail "$kn: census"; return; }
	grep -v '^#' "$kn.tsv" | tail -n +2 >"$kn.lines"
	kind=still
	[ "$kp" -gt 1 ] && kind=oscillator
	[ "$kn" != "${kn%ship}" ] && kind=ship
	if [ "$(wc -l <"$kn.lines")" -eq 1 ] &&
		awk -F '\t' -v k="$kind" -v p="$kp" -v pop="$kpop" -v c="$files" \
			'{ exit !($2 == k && $3 == p && $4 == pop && $6 == c) }' "$kn.lines"; then
		ok
	else
		fail "$kn: $files files, expected one $kind of period $kp, population $kpop: $(cat "$kn.lines")"
	fi
}
if command -v python3 >/dev/null 2>&1; then
	known block B6/S567 M 1 8 0,0,0 0,0,1 0,1,0 0,1,1 1,0,0 1,0,1 1,1,0 1,1,1
	known blinker B6/S567 M 2 6 0,0,0 1,0,0 2,0,0 0,0,1 1,0,1 2,0,1
	known glidership B6/S567 M 4 10 1,0,0 2,1,0 0,2,0 1,2,0 2,2,0 1,0,1 2,1,1 0,2,1 1,2,1 2,2,1
	cut -f 1 glidership.lines >a
	cut -f 1 ships >b
	expect_same a b "the glider from files against soup 389's"
	known b5s45ship B5/S45 M 4 10 2,2,2 3,2,2 1,3,2 4,3,2 2,4,2 3,4,2 2,2,1 3,2,1 1,3,1 4,3,1
	known trevorrowship 3D4,7/5,8 M 10 14 1,1,0 1,2,0 1,0,1 1,1,1 1,2,1 0,3,1 1,3,1 \
		0,0,2 1,0,2 1,1,2 1,2,2 1,3,2 1,1,3 1,2,3
	known hship 3D3/3H H 2 7 0,1,1 0,2,0 1,0,1 1,2,0 2,0,0 2,0,1 2,1,0
	# B6/S567's orthogonal c/4 ship of period 8, first met in soup
	# life3d/639647 (life3d-census(1), FIRST RESULTS).
	known orthoship B6/S567 M 8 16 0,1,0 1,1,0 0,0,1 1,0,1 0,1,1 1,1,1 0,2,1 1,2,1 \
		0,0,2 1,0,2 0,1,3 1,1,3 0,2,3 1,2,3 0,2,4 1,2,4
	grep -q '^xq8_2x3x5_66963b43	ship	8	16	0,-2,0	' orthoship.lines && ok ||
		fail "the orthogonal ship: $(cat orthoship.lines)"
	# Two blocks with two dead cells between them are two objects; with
	# one, they touch each other's births and are one still life.
	python3 - <<'PY' || fail "two blocks: python3"
def block(x):
    return [(x + a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
def write(name, cells):
    rows = {}
    with open(name, "w") as f:
        f.write("3D version=1 size=40 pos=12,12,12\nx=%d y=2 z=2 rule=3D5..7/6\n"
                % (max(c[0] for c in cells) + 1))
        planes = []
        for z in (0, 1):
            planes.append("$".join("".join("o" if (x, y, z) in cells else "b"
                                           for x in range(max(c[0] for c in cells) + 1))
                                   for y in (0, 1)))
        f.write("/".join(planes) + "!\n")
write("apart.rle3", block(0) + block(4))
write("touching.rle3", block(0) + block(3))
PY
	"$LIFE3D" census --soups apart.rle3 -o apart.tsv && "$LIFE3D" census --soups touching.rle3 -o touching.tsv ||
		fail "two blocks: census"
	line xs8_2x2x2_ff apart.tsv | grep -q "	still	1	8	0,0,0	2	#0$" && ok || fail "two blocks apart: $(cat apart.tsv)"
	[ "$(grep -v '^#' touching.tsv | tail -n +2 | cut -f 2,4,6)" = "$(printf 'still\t16\t1')" ] && ok ||
		fail "two blocks touching: $(cat touching.tsv)"
fi
# Each neighbourhood's oscillator of tests/data/patterns, by its rule:
# the pattern's period is its longest object's (some hold still lifes and
# shorter oscillators too, far enough apart to be objects of their own).
for f in "$SRCDIR"/tests/data/patterns/*.rle3; do
	b=$(basename "$f" .rle3)
	r=$(sed -n 's/.*rule=//p' "$f")
	p=${b##*-p}
	"$LIFE3D" census -r "$r" --soups - -o "$b.tsv" <"$f" || fail "$b: census"
	longest=$(grep -v '^#' "$b.tsv" | tail -n +2 | cut -f 3 | sort -n | tail -n 1)
	[ "$longest" = "$p" ] && grep -q "	oscillator	$p	" "$b.tsv" && ok ||
		fail "the census of $b: $(cat "$b.tsv")"
done

# ---- --objects: each object met as RLE3, which a census names again ----
mkdir objs
echo keep >objs/xs8_2x2x2_ff.rle3
"$LIFE3D" census -n 300 --objects objs -o o.tsv 2>o.err || fail "--objects"
[ "$(cat objs/xs8_2x2x2_ff.rle3)" = keep ] && ok || fail "--objects replaced a file"
grep -v '^#' o.tsv | tail -n +2 | cut -f 1 | grep -v '^zz_' >codes
[ -s codes ] && ok || fail "--objects: no objects in the haul"
while read -r code; do
	[ "$code" = xs8_2x2x2_ff ] && continue
	if [ -f "objs/$code.rle3" ]; then
		"$LIFE3D" census --soups "objs/$code.rle3" -f -o back.tsv 2>/dev/null
		got=$(grep -v '^#' back.tsv | tail -n +2 | cut -f 1)
		[ "$got" = "$code" ] && ok || fail "objs/$code.rle3 names itself '$got'"
	else
		fail "--objects: no objs/$code.rle3"
	fi
done <codes
[ "$(ls objs | wc -l)" -eq "$(wc -l <codes)" ] && ok || fail "--objects: $(ls objs | wc -l) files for $(wc -l <codes) codes"
# Soup 389's glider is news; -q keeps it quiet.
"$LIFE3D" census --first 389 -n 1 -o /dev/null 2>news.err
grep -q "^life3d: census: soup life3d/389 made xq4_.*, a new ship of period 4 (10 cells" news.err && ok ||
	fail "no word of the glider: $(cat news.err)"
"$LIFE3D" census -q --first 389 -n 1 -o /dev/null 2>quiet.err
[ ! -s quiet.err ] && ok || fail "-q: $(cat quiet.err)"
expect_exit 73 "--objects not a directory" -- "$LIFE3D" census -n 2 --objects o.tsv -o /dev/null
expect_err_line "o.tsv: not a directory" "--objects not a directory"
expect_exit 73 "--objects missing" -- "$LIFE3D" census -n 2 --objects nodir -o /dev/null

# ---- the golden haul: 10^5 soups of B6/S567, as they were first counted ----
# (tests/data/census; not under the sanitizers, where it takes minutes:
# every other case here runs there)
if [ "${LIFE3D_SANITIZERS:-no}" != yes ] && [ -z "${LIFE3D_VALGRIND:-}" ]; then
	"$LIFE3D" census -q -n 100000 -o golden.tsv || fail "the golden census"
	tail -n +2 golden.tsv >a
	tail -n +2 "$SRCDIR/tests/data/census/b6s567-100000.tsv" >b
	expect_same a b "10^5 soups of B6/S567 against tests/data/census/b6s567-100000.tsv"
else
	echo "under the sanitizers or valgrind: the golden haul of 10^5 soups not run"
fi

# ---- soups that die out, or do not settle ----
"$LIFE3D" census -d 0.001 -n 50 -o dead.tsv || fail "census of sparse soups"
[ "$(grep -vc '^#' dead.tsv)" -eq 1 ] && grep -q '^# soups	50 in 0-49$' dead.tsv && ok ||
	fail "sparse soups: $(cat dead.tsv)"
"$LIFE3D" census --max-gens 8 -n 20 -o un.tsv || fail "census --max-gens 8"
line zz_UNSETTLED un.tsv | grep -q '	unsettled	0	0	0,0,0	' && ok || fail "--max-gens 8: $(cat un.tsv)"

# ---- bad options: one line, status 64 ----
bad() {
	what=$1
	shift
	expect_exit 64 "$what" -- "$LIFE3D" census "$@"
	expect_err_line "^life3d: " "$what"
}
bad "soup size 0" -s 0
bad "soup size 129" --size 129
bad "density above 1" -d 1.5
bad "density 0" --density 0
bad "density not a number" -d x
bad "no soups" -n 0
bad "an unknown rule" -r B9/S99x
bad "an unknown option" --frobnicate
bad "a missing value" --root
bad "a root with a space" --root "a b"
bad "a soup without a number" --soup life3d
bad "a soup number with a sign" --soup life3d/+3
bad "an operand" extra
grep -q "census: unexpected argument 'extra'" "$T/err" && ok || fail "operand message: $(cat "$T/err")"

# ---- outputs ----
echo keep >taken.tsv
expect_exit 73 "an existing haul without -f" -- "$LIFE3D" census -n 2 -o taken.tsv
[ "$(cat taken.tsv)" = keep ] && ok || fail "an existing haul was changed"
expect_exit 0 "an existing haul with -f" -- "$LIFE3D" census -n 2 -o taken.tsv -f
grep -q '^# soups	2 in 0-1$' taken.tsv && ok || fail "-f: $(head -c 200 taken.tsv)"

# ---- --merge: hauls add, each soup once ----
"$LIFE3D" census --first 100 -n 150 -o m2.tsv && "$LIFE3D" census --first 250 -n 150 -o m3.tsv &&
	"$LIFE3D" census -n 100 -o m1.tsv || fail "the parts to merge"
"$LIFE3D" census --merge m3.tsv m1.tsv - -o merged.tsv <m2.tsv || fail "--merge of three"
expect_same merged.tsv h1.tsv "three parts merged against the census of 400"
"$LIFE3D" census --merge h1.tsv -o same.tsv && expect_same same.tsv h1.tsv "a haul read and written back"
"$LIFE3D" census --merge m1.tsv m3.tsv -o gap.tsv || fail "--merge with a gap"
grep -q '^# soups	250 in 0-99,250-399$' gap.tsv && ok || fail "--merge with a gap: $(sed -n 5p gap.tsv)"
expect_exit 65 "--merge counting soups twice" -- "$LIFE3D" census --merge m1.tsv h1.tsv
expect_err_line "h1.tsv: soups 0 to 99 would be counted twice" "--merge counting soups twice"
"$LIFE3D" census -r B5/S45 -n 3 -o other.tsv || fail "a B5/S45 haul"
expect_exit 65 "--merge of two rules" -- "$LIFE3D" census --merge m1.tsv other.tsv
expect_err_line "other.tsv: its rule line differs from m1.tsv's" "--merge of two rules"
printf 'x\n' >nohaul.tsv
expect_exit 65 "--merge of a file that is no haul" -- "$LIFE3D" census --merge m1.tsv nohaul.tsv
expect_err_line "nohaul.tsv: not a life3d census haul" "--merge of a file that is no haul"
expect_exit 66 "--merge of a missing file" -- "$LIFE3D" census --merge m1.tsv missing.tsv
# A changed line is refused with its number.
sed '8s/	[0-9]*	life3d/	x	life3d/' m1.tsv >broken.tsv
expect_exit 65 "--merge of a broken line" -- "$LIFE3D" census --merge broken.tsv
expect_err_line "broken.tsv:8: not an object's line" "--merge of a broken line"
sed '5s/100 in/101 in/' m1.tsv >miscount.tsv
expect_exit 65 "--merge of a haul whose count is wrong" -- "$LIFE3D" census --merge miscount.tsv
expect_exit 64 "--merge without hauls" -- "$LIFE3D" census --merge

expect_exit 0 "a haul to /dev/null" -- "$LIFE3D" census -n 3 -o /dev/null
expect_exit 0 "a soup to /dev/null" -- "$LIFE3D" census --soup a/1 -o /dev/null
expect_exit 0 "a merge to /dev/null" -- "$LIFE3D" census --merge m1.tsv -o /dev/null

# ---- --time: the soups begun in the time, a range from the first ----
expect_exit 0 "--time 1" -- "$LIFE3D" census -t 2 --first 50 -n 100000000 --time 1 -o timed.tsv
timed=$(sed -n 's/^# soups	\([0-9]*\) in 50-\([0-9]*\)$/\1 \2/p' timed.tsv)
[ -n "$timed" ] && [ "${timed#* }" -eq $((${timed% *} + 49)) ] && ok || fail "--time 1: $(sed -n 5p timed.tsv)"
bad "--time 0" --time 0

# ---- SIGTERM: the haul of the soups done ----
"$LIFE3D" census -t 2 -n 100000000 -o stopped.tsv 2>stop.err &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGTERM: exit $rc, expected 130: $(cat stop.err)"
done=$(sed -n 's/^# soups	\([0-9]*\) in 0-[0-9]*$/\1/p' stopped.tsv)
next=$(sed -n 's/.*go on with --first \([0-9]*\)$/\1/p' stop.err)
if [ -n "$done" ] && [ "$done" -gt 0 ] && [ "$next" = "$done" ]; then
	"$LIFE3D" census -t 1 -n "$done" -o again.tsv || fail "a census of the soups done"
	expect_same stopped.tsv again.tsv "the stopped haul against a census of its $done soups"
	# Resumed for 300 more soups and added, it is the census of them all.
	"$LIFE3D" census --first "$next" -n 300 -o rest.tsv &&
		"$LIFE3D" census --merge stopped.tsv rest.tsv -o resumed.tsv &&
		"$LIFE3D" census -n $((done + 300)) -o whole.tsv || fail "resume"
	expect_same resumed.tsv whole.tsv "a stopped census resumed and merged against one of all its soups"
else
	fail "SIGTERM: soups done '$done', go on from '$next': $(cat stop.err)"
fi

finish
