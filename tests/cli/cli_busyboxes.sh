#!/bin/sh
# Golly's BusyBoxes rules through the command line: names, files, Golly's
# generations and even sizes, and what they refuse.  The stepping itself
# is checked against the reference in check_busyboxes.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# Two cells a knight's move apart (check_busyboxes derives it): the pair
# moves by (1,1,0) every 6 generations, so 12 from gen=0 move it by 2.
printf '3D version=1 size=16 pos=4,3,4\nx=3 y=2 z=1 rule=BusyBoxes\nbbo$o!\n' >pair.rle3
"$LIFE3D" -q -n 12 -o pair12.rle3 pair.rle3 || fail "the pair"
head -n 2 pair12.rle3 >got
printf '3D version=1 size=16 pos=6,5,4 gen=12\nx=3 y=2 z=1 rule=BusyBoxes\n' >want
expect_same want got "the pair after 12 generations"
# 12 in one run or 5 then 7: the phase follows the file's gen=.
"$LIFE3D" -q -n 5 -o pair5.rle3 pair.rle3 && "$LIFE3D" -q -n 7 -o pair5-7.rle3 pair5.rle3 ||
	fail "5 then 7"
expect_same pair12.rle3 pair5-7.rle3 "a run resumed at generation 5"
# Through .l3d and back, the rule and its boundary kept.
for r in BusyBoxes BusyBoxesW; do
	"$LIFE3D" -q -n 3 -r "$r" -o "pair.$r.l3d" pair.rle3 2>/dev/null || fail "$r to .l3d"
	"$LIFE3D" -q -n 0 -o "pair.$r.rle3" "pair.$r.l3d" || fail "$r back"
	grep -q "rule=$r\$" "pair.$r.rle3" && ok || fail "$r kept: $(sed -n 2p "pair.$r.rle3")"
done
# Every spelling of Golly's, in any case.
for r in BB bb BUSYBOXES bbw BusyBoxesw; do
	"$LIFE3D" -q -n 1 -r "$r" --random 8 -o /dev/null && ok || fail "-r $r"
done
# The population log: nothing is ever born but where a cell left.
"$LIFE3D" -q -r BBW --random 16 --density 0.1 --seed 3 -n 30 --log pop.tsv -o /dev/null || fail "log"
log_data pop.tsv >pop.data.tsv
awk -F '\t' 'NR > 1 && NR == 2 { p = $2 } NR > 2 && ($2 != p || $3 != $4) { bad = 1 }
	END { exit bad || NR < 30 }' pop.data.tsv && ok || fail "population and moves: $(head -n 5 pop.tsv)"
# Pictures of it, as of any universe.
"$LIFE3D" -q -r BB --random 16 --density 0.1 -n 6 --snapshot-every 3 --snapshot-prefix s- -o /dev/null &&
	[ -s s-000006.png ] && ok || fail "snapshots: $(ls)"

# Even sides: an odd one grows by one, the cells move by one along it.
printf '3D version=1 size=9\nx=3 y=2 z=1 rule=BusyBoxes\nbbo$o!\n' >odd.rle3
"$LIFE3D" -n 0 -o odd0.rle3 odd.rle3 2>odd.err || fail "odd"
grep -q 'warning: odd.rle3: BusyBoxes needs even sides: the 9x9x9 universe grows to 10x10x10 and its cells move by one along each odd side' odd.err &&
	ok || fail "the odd-size warning: $(cat odd.err)"
head -n 1 odd0.rle3 | grep -q '^3D version=1 size=10 pos=1,1,1$' && ok || fail "grown: $(head -n 1 odd0.rle3)"
"$LIFE3D" -q -r BB --random 7x8x9 -n 0 -o box.l3d && "$LIFE3D" -q -n 0 -o box.rle3 box.l3d &&
	head -n 1 box.rle3 | grep -q 'size=10 box=8,8,10' && ok || fail "the odd sides of a box: $(head -n 1 box.rle3)"

# The GPU's engine: the CPU's cells, RLE3 bytes and log, in both forms,
# from an odd phase, over an odd number of generations; 69 without a GPU.
gpus=$("$LIFE3D" --version | sed -n 's/^gpus: //p')
case "$gpus" in
'' | none*)
	expect_exit 69 "--engine cuda without a GPU" -- "$LIFE3D" -q -r BB --engine cuda --random 8 -n 1 -o x.l3d
	expect_err_line "engine 'cuda'" "--engine cuda message"
	expect_absent x.l3d "--engine cuda"
	;;
*)
	for r in BB BBW; do
		"$LIFE3D" -q -r $r --random 40x36x70 --density 0.08 --seed 5 -n 0 -o gen0.$r.rle3 &&
			sed 's/^3D version=1 \(.*\)$/3D version=1 \1 gen=3/' gen0.$r.rle3 >gen3.$r.rle3 ||
			fail "$r: a start at generation 3"
		for eng in cpu cuda; do
			"$LIFE3D" -q --engine $eng -n 47 --log $eng.$r.tsv -o $eng.$r.rle3 gen3.$r.rle3 ||
				fail "$r: --engine $eng"
		done
		cmp -s cpu.$r.rle3 cuda.$r.rle3 && cmp -s cpu.$r.tsv cuda.$r.tsv && ok ||
			fail "$r: the GPU's cells or log differ from the CPU's"
		"$LIFE3D" -v --engine cuda -n 1 -o /dev/null gen3.$r.rle3 2>v.err &&
			grep -q 'engine cuda/.* busyboxes' v.err && ok || fail "$r: -v: $(cat v.err)"
	done
	;;
esac
expect_exit 64 "a census" -- "$LIFE3D" census -r BBW -n 10 -o h.tsv
expect_err_line "census: rule 'BBW': a census is of rules of counts" "census message"
if "$LIFE3D" --version | grep -q '^mpi: built in' && command -v mpirun >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	expect_exit 64 "over ranks" -- timeout 120 mpirun --oversubscribe -np 2 "$LIFE3D" -q -r BB --random 8 -n 1 -o y.l3d
	grep -q "BusyBoxes rules do not run across MPI ranks: run one process" "$T/err" && ok ||
		fail "over ranks message: $(cat "$T/err")"
	expect_absent y.l3d "over ranks"
fi
finish
