#!/bin/sh
# Every manual page renders without a warning, --help agrees with the
# option table (every long option appears in life3d(1), and census's in
# life3d-census(1)), and every message
# the manuals quote is what life3d prints: each quoted line ("life3d: ..."
# in a display) and each quoted fragment (.RI \(lq "..." \(rq) has a case
# below that makes life3d print it, and a quote without one fails.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v man >/dev/null 2>&1 || { echo "man not found: skipped"; exit 77; }
for page in life3d.1 life3d-census.1 life3d.conf.5 life3d-formats.5; do
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
		"$SRCDIR/man/$page" >"$page.out" 2>"$page.err"
	if [ -s "$page.err" ] || [ ! -s "$page.out" ]; then
		fail "$page: $(head -c 300 "$page.err")"
	else
		ok
	fi
done
"$LIFE3D" --help | grep -o -e '--[a-z][a-z-]*' | sort -u >opts
while read -r opt; do
	if grep -q -e "fB\\\\$opt" -e "$(echo "$opt" | sed 's/-/\\\\-/g')" "$SRCDIR/man/life3d.1"; then
		ok
	else
		fail "life3d.1 does not document $opt"
	fi
done <opts
"$LIFE3D" census --help | grep -o -e '--[a-z][a-z-]*' | sort -u >census-opts
while read -r opt; do
	if grep -q -e "$(echo "$opt" | sed 's/-/\\\\-/g')" "$SRCDIR/man/life3d-census.1"; then
		ok
	else
		fail "life3d-census.1 does not document $opt"
	fi
done <census-opts

# ---- quoted messages ----
unquote() {
	sed -e "s/\\\\(aq/'/g" -e 's/\\-/-/g' -e 's/\\(dq/"/g' -e 's/\\e/\\/g' \
	    -e 's/\\f[BIRP]//g' -e 's/\\&//g'
}
: >quoted
: >fragments
for page in life3d.1 life3d.conf.5 life3d-formats.5; do
	awk '/^\.(nf|EX)/ { f = 1; next } /^\.(fi|EE)/ { f = 0; next } f && /^life3d: /' \
		"$SRCDIR/man/$page" | unquote >>quoted
	grep '^\.RI .*\\(lq "' "$SRCDIR/man/$page" |
		sed 's/.*\\(lq "\([^"]*\)" \\(rq.*/\1/' | unquote >>fragments
done
[ -s quoted ] && [ -s fragments ] && ok || fail "no quoted messages found in the manuals"

# produce MESSAGE: in a fresh directory, run what makes life3d say it;
# its stderr in $T/said.  Returns 1 when no case knows the message, 2 when
# this machine cannot make life3d say it (a GPU's message, without one).
n=0
produce() {
	n=$((n + 1))
	d="$T/q$n"
	mkdir -p "$d" && cd "$d" || exit 99
	case $1 in
	*"/dev/full: write error: No space left on device; generation 5 is kept in the checkpoint run.ckpt.l3d")
		"$LIFE3D" -q --random 8 -n 5 --checkpoint run.ckpt.l3d -o /dev/full ;;
	*"run.conf:4: unknown key 'stpes'"*)
		printf 'random = "4";\nsteps = 1;\n\nstpes = 2;\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*"run.conf:2: 'steps' must be an integer (found a string)")
		printf 'random = "4";\nsteps = "3";\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*"run.conf:7: density: '2' is not a number from 0 to 1")
		printf 'random = "4";\n\n\n\n\n\ndensity = 2;\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*"run.conf:3: syntax error")
		printf 'random = "4";\n\nsteps 3;\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*"run.conf:2: steps: '99999999999999999999999' is too large"*)
		printf 'random = "4";\nsteps = 99999999999999999999999;\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*"run.conf:2: random: '4x4' is not a size"*)
		printf 'seed = 2;\nrandom = "4x4";\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*'run.conf:3: @include "common.conf": common.conf: cannot open'*)
		printf 'random = "4";\n\n@include "common.conf"\n' >run.conf
		"$LIFE3D" -c run.conf -o x.l3d ;;
	*"period 6 found: the universe of generation 306 came back at generation 312; later steps leapt")
		"$LIFE3D" -v --random 16 --density 0.1 --seed 40 --random-rule B5/S4567 -n 1200 \
			--log x.tsv -o x.l3d ;;
	*"warning: a.rle3: read as Golly reads it: no version= (read as version 1); no '!' at the end"*)
		printf '3D size=4\nx=1 y=1 z=1 rule=3D5..7/6\no\n' >a.rle3
		"$LIFE3D" -o x.l3d a.rle3 ;;
	*"warning: --random: BusyBoxes needs even sides: the 9x9x9 universe grows to 10x10x10"*)
		"$LIFE3D" -r BB --random 9 -n 1 -o x.l3d ;;
	*"warning: OMP_NUM_THREADS: 'x' is not a whole number of threads from 1 to 4096; passed over")
		OMP_NUM_THREADS=x "$LIFE3D" --random 4 -o x.l3d ;;
	*"4 CPU threads, from SLURM_CPUS_PER_TASK")
		env -u OMP_NUM_THREADS SLURM_CPUS_PER_TASK=4 "$LIFE3D" -v --random 4 -o x.l3d ;;
	*"s.rle:2:2: 'B' is a cell of a state above 1"*)
		printf 'x = 3, y = 1\noBo!\n' >s.rle
		"$LIFE3D" -o x.l3d s.rle ;;
	*"glider.rle: a 2D pattern (rule B3/S23), 3x3, centred in the planes z=50 and z=51"*)
		printf '#N Glider\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >glider.rle
		"$LIFE3D" --double -o x.l3d glider.rle ;;
	*"out.npy.gz: '.gz' names no format"*)
		"$LIFE3D" --random 4 -o out.npy.gz ;;
	*"--box: x 0..24 is not inside the 24x20x16 universe (x 0..23)")
		"$LIFE3D" --random 24x20x16 --box 0,0,0:24,1,1 -o x.vti ;;
	*"--coarsen: the vtk format holds cells, not counts of them (write .npy or .vti)")
		"$LIFE3D" --random 4 --coarsen 2 -o x.vtk ;;
	*"warning: out.vtk: the vtk format stores no rule"*)
		"$LIFE3D" --random 4 -r B5/S45 -o out.vtk ;;
	*"plainfile/x.l3d: 'plainfile' is not a directory")
		: >plainfile
		"$LIFE3D" --random 4 -o plainfile/x.l3d ;;
	*"warning: big.rle3: Golly opens no universe over 100"*)
		"$LIFE3D" --random 101 --density 0.001 -o big.rle3 ;;
	*"warning: ship.rle3 has no size="*)
		sed '1s/.*/3D version=1/' "$SRCDIR/tests/data/golly-spaceship.rle3" >ship.rle3
		"$LIFE3D" -o ship.l3d ship.rle3 ;;
	*"the CUDA driver cannot start under a limit of N MiB of address space")
		# Only where there is a GPU; elsewhere the words say what is missing.
		case $("$LIFE3D" --version | sed -n 's/^gpus: //p') in
		'' | none*) cd "$T" && return 2 ;;
		esac
		sh -c 'ulimit -v 3000000; exec "$@"' sh "$LIFE3D" --engine cuda --random 4 -o x.l3d ;;
	"can be written but not read")
		"$LIFE3D" -q --random 4 -o u.vtk && "$LIFE3D" -o x.l3d u.vtk ;;
	*"a NumPy array of '<f8' elements"*)
		printf '\223NUMPY\001\000\166\000%-117s\n' \
			"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }" >u.npy
		"$LIFE3D" -o x.l3d u.npy ;;
	*"a NumPy array in Fortran order"*)
		printf '\223NUMPY\001\000\166\000%-117s\n' \
			"{'descr': '|u1', 'fortran_order': True, 'shape': (1, 1, 1), }" >u.npy
		"$LIFE3D" -o x.l3d u.npy ;;
	*"a NumPy array of 2 dimensions"*)
		printf '\223NUMPY\001\000\166\000%-117s\n' \
			"{'descr': '|u1', 'fortran_order': False, 'shape': (1, 1), }" >u.npy
		"$LIFE3D" -o x.l3d u.npy ;;
	*"element 13 of the NumPy array, cell (1, 0, 1), is 2, not 0 or 1")
		{ printf '\223NUMPY\001\000\166\000%-117s\n' \
			"{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3, 4), }"
		  awk 'BEGIN { for (i = 0; i < 24; i++) printf "%c", i == 13 ? 2 : 0 }'; } >u.npy
		"$LIFE3D" -o x.l3d u.npy ;;
	"gzip-compressed data: life3d reads universes uncompressed")
		"$LIFE3D" -q --random 4 -o u.bin && gzip -n u.bin && "$LIFE3D" -o x.l3d u.bin.gz ;;
	"not a life3d universe (unknown format)")
		echo hello >u.txt
		"$LIFE3D" -o x.l3d u.txt ;;
	"empty file")
		: >u.bin
		"$LIFE3D" -o x.l3d u.bin ;;
	"the HPCGame format holds only cubes")
		"$LIFE3D" --random 3x4x5 -o x.bin ;;
	"expected N bytes of cells, got K")
		"$LIFE3D" -q --random 4 -o u.bin && head -c 50 u.bin >cut.bin &&
			"$LIFE3D" -o x.l3d cut.bin ;;
	*) cd "$T"; return 1 ;;
	esac >"$T/said.out" 2>"$T/said" </dev/null
	cd "$T" || exit 99
	return 0
}
while IFS= read -r msg; do
	if ! produce "$msg"; then
		fail "no check for the quoted message: $msg"
	elif grep -Fxq -- "$msg" "$T/said"; then
		ok
	else
		fail "the manual quotes: $msg
life3d says: $(cat "$T/said")"
	fi
done <quoted
while IFS= read -r frag; do
	re=$(printf '%s\n' "$frag" | sed -e 's/[][\.*^$()+?{}|/]/\\&/g' \
		-e 's/\<[NK]\>/[0-9]+/g')
	produce "$frag"
	made=$?
	if [ "$made" = 2 ]; then
		ok    # said only on a machine that has what it needs (a GPU)
	elif [ "$made" != 0 ]; then
		fail "no check for the quoted fragment: $frag"
	elif grep -Eq -- "$re" "$T/said"; then
		ok
	else
		fail "the manual quotes \"$frag\"; life3d says: $(cat "$T/said")"
	fi
done <fragments
finish
