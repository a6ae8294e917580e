#!/bin/sh
# scripts/plot-log: a population log, from a file or a pipe, becomes a PNG
# or an SVG; what is not a log is refused.  Skipped without gnuplot.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v gnuplot >/dev/null 2>&1 || { echo "$name: gnuplot not found: skipped"; exit 77; }
PLOT="$SRCDIR/scripts/plot-log"

"$LIFE3D" -q --random 32 --density 0.02 -r B4/S4 -n 40 --log pop.tsv -o end.l3d || fail "the run"
"$PLOT" -o pop.png pop.tsv && ok || fail "plot-log to PNG"
set -- $("$TOOLS/pngsum" pop.png)
[ "$1 $2 $3" = "1000 700 rgb8" ] && ok || fail "plot-log PNG: $*"
# Piped from a run's --log -, into an SVG.
"$LIFE3D" -q --random 32 --density 0.02 -r B4/S4 -n 40 --log - -o end2.l3d |
	"$PLOT" -t "a piped log" -o pop.svg - && ok || fail "plot-log from a pipe"
head -n 1 pop.svg | grep -q '^<?xml' && grep -q '<svg' pop.svg && ok || fail "plot-log SVG: $(head -c 100 pop.svg)"
grep -q 'a piped log' pop.svg && ok || fail "plot-log SVG: no title"
grep -q 'births' pop.svg && grep -q 'deaths' pop.svg && grep -q 'population' pop.svg && ok ||
	fail "plot-log SVG: a curve's name is missing"
# Not a log, a log without generations, a bad output name.
printf 'hello\n' >not.tsv
expect_exit 65 "not a log" -- "$PLOT" -o x.png not.tsv
expect_err_line "not a life3d population log" "not a log: message"
expect_absent x.png "not a log"
head -n 1 pop.tsv >empty.tsv
expect_exit 65 "a log without generations" -- "$PLOT" -o x.png empty.tsv
expect_exit 64 "output neither .png nor .svg" -- "$PLOT" -o x.gif pop.tsv
expect_exit 66 "missing log" -- "$PLOT" -o x.png missing.tsv
finish
