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
expect_exit 66 "a directory as the log" -- "$PLOT" -o x.png .
expect_err_line "is a directory" "a directory as the log: message"
# A header with lines that are not a log's: refused by line, and a picture
# already at OUT is kept (a picture replaces it only when finished).
cp pop.png keep.png
printf 'step\tpopulation\tbirths\tdeaths\n0\t5\t0\t0\nfoo\tbar\tbaz\tqux\n' >junk.tsv
expect_exit 65 "a header over lines that are not a log's" -- "$PLOT" -o keep.png junk.tsv
expect_err_line "junk.tsv: line 3 is not a log line" "bad lines: message"
expect_same pop.png keep.png "bad lines: the existing picture"
expect_exit 73 "an output in a missing directory" -- "$PLOT" -o nodir/x.png pop.tsv
expect_err_line "nodir/x.png: cannot create" "missing directory: message"
"$PLOT" -o UPPER.PNG pop.tsv && ok || fail "an upper-case extension"
[ -z "$(ls -A | grep '^\.plot-log')" ] && ok || fail "temporary pictures left: $(ls -A)"
umask 027
"$PLOT" -o mode.png pop.tsv || fail "plot with umask 027"
[ "$(stat -c %a mode.png)" = 640 ] && ok || fail "the picture's mode is $(stat -c %a mode.png), umask 027"
umask 022
"$PLOT" --help >help.txt && grep -q '^Exit status' help.txt && ok || fail "--help: $(head -c 200 help.txt)"
finish
