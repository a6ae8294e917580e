#!/bin/sh
# scripts/plot-log: a population log, from a file or a pipe, becomes a PNG
# or an SVG; what is not a log is refused; no name or title it is given
# ever runs as a gnuplot command.  Skipped without gnuplot.
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
# The default title: the log's name and what its comment lines say.
"$PLOT" -o said.svg pop.tsv && ok || fail "plot-log, the default title"
grep -q 'life3d population log: pop.tsv (rule B4/S4, 32x32x32, --random 32, seed 1, density 0.02, fill)' said.svg &&
	ok || fail "the default title: $(grep -o 'life3d population log[^<]*' said.svg)"
grep -q 'births' pop.svg && grep -q 'deaths' pop.svg && grep -q 'population' pop.svg && ok ||
	fail "plot-log SVG: a curve's name is missing"
# Not a log, a log without generations, a bad output name.
printf 'hello\n' >not.tsv
expect_exit 65 "not a log" -- "$PLOT" -o x.png not.tsv
expect_err_line "not a life3d population log" "not a log: message"
expect_absent x.png "not a log"
log_data pop.tsv | head -n 1 >empty.tsv
expect_exit 65 "a log without generations" -- "$PLOT" -o x.png empty.tsv
expect_exit 64 "output neither .png nor .svg" -- "$PLOT" -o x.gif pop.tsv
expect_exit 66 "missing log" -- "$PLOT" -o x.png missing.tsv
expect_exit 66 "a directory as the log" -- "$PLOT" -o x.png .
expect_err_line "is a directory" "a directory as the log: message"
# A header with lines that are not a log's: refused by line, and a picture
# already at OUT is kept, even with -f (a picture replaces it only when
# finished).
cp pop.png keep.png
printf 'step\tpopulation\tbirths\tdeaths\n0\t5\t0\t0\nfoo\tbar\tbaz\tqux\n' >junk.tsv
expect_exit 65 "a header over lines that are not a log's" -- "$PLOT" -f -o keep.png junk.tsv
expect_err_line "junk.tsv: line 3 is not a log line" "bad lines: message"
{ printf '# one\n# two\n'; cat junk.tsv; } >junkc.tsv
expect_exit 65 "bad lines under comment lines" -- "$PLOT" -o x.png junkc.tsv
expect_err_line "junkc.tsv: line 5 is not a log line" "bad lines under comments: their line"
expect_same pop.png keep.png "bad lines: the existing picture"
expect_exit 73 "an output in a missing directory" -- "$PLOT" -o nodir/x.png pop.tsv
expect_err_line "nodir/x.png: cannot create" "missing directory: message"
"$PLOT" -o UPPER.PNG pop.tsv && ok || fail "an upper-case extension"
[ -z "$(ls -A | grep '^\.plot-log')" ] && ok || fail "temporary pictures left: $(ls -A)"
# What is at OUT: refused without -f, replaced with it; a directory, a
# link (to a directory or a file) or a FIFO never.
expect_exit 73 "an existing picture without -f" -- "$PLOT" -o keep.png pop.tsv
expect_err_line "keep.png: already exists" "an existing picture: message"
expect_same pop.png keep.png "an existing picture without -f"
printf 'step\tpopulation\tbirths\tdeaths\n0\t1\t0\t0\n1\t2\t1\t0\n' >two.tsv
"$PLOT" -f -o keep.png two.tsv && ! cmp -s pop.png keep.png && ok || fail "-f replaces a picture"
mkdir dir.png other
expect_exit 73 "a directory at OUT" -- "$PLOT" -f -o dir.png pop.tsv
expect_err_line "dir.png: is a directory" "a directory at OUT: message"
ln -s other view.svg
ln -s keep.png link.png
expect_exit 73 "a link to a directory at OUT" -- "$PLOT" -f -o view.svg pop.tsv
expect_exit 73 "a link to a picture at OUT" -- "$PLOT" -f -o link.png pop.tsv
expect_err_line "link.png: is a symbolic link" "a link at OUT: message"
[ -L link.png ] && [ -z "$(ls -A other)" ] && [ -z "$(ls -A dir.png)" ] && ok || fail "a link or directory at OUT was changed"
# One generation, its last line without a newline: a picture, no warnings.
printf 'step\tpopulation\tbirths\tdeaths\n0\t134\t0\t0' >one.tsv
expect_exit 0 "a log of one generation without its newline" -- "$PLOT" -o one.png one.tsv
[ -s one.png ] && [ ! -s "$T/err" ] && ok || fail "one generation: $(head -c 300 "$T/err")"
# Empty input (the run that writes the log failed): said so.
expect_exit 65 "an empty log" -- "$PLOT" -o e.png -
expect_err_line "empty" "an empty log: message"
expect_exit 64 "an unknown option" -- "$PLOT" --bogus pop.tsv
expect_err_line "unknown option --bogus" "an unknown option: message"
# The copy of a piped log lives in a directory of its own (mode 700) under
# $TMPDIR, so that nothing another user puts there is written or read.
mkdir tmpd
mkfifo feed
TMPDIR=$T/tmpd "$PLOT" -o piped.png - <feed &
plotter=$!
exec 7>feed
i=0
while [ -z "$(ls -A tmpd)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
set -- tmpd/*
[ $# -eq 1 ] && [ -d "$1" ] && [ "$(stat -c %a "$1")" = 700 ] && ok ||
	fail "the temporary copy is not alone in a private directory: $(ls -la tmpd)"
cat pop.tsv >&7
exec 7>&-
wait $plotter && [ -s piped.png ] && [ -z "$(ls -A tmpd)" ] && ok ||
	fail "the piped plot: $(ls -A tmpd)"
umask 027
"$PLOT" -o mode.png pop.tsv || fail "plot with umask 027"
[ "$(stat -c %a mode.png)" = 640 ] && ok || fail "the picture's mode is $(stat -c %a mode.png), umask 027"
umask 022
# Hostile names: no name or title is ever a gnuplot command.  Each
# command names its file through $PWN, so that it lands here wherever
# gnuplot runs; each case draws its picture and runs nothing.
PWN=$T/PWNED
export PWN
unpwned() { expect_absent PWNED "$1"; rm -f PWNED; } # DESCRIPTION
NL='
'
CR=$(printf '\r')
bad="a${NL}system(\"touch \$PWN\")${NL}b"
cp pop.tsv "x${bad}.tsv"
expect_exit 0 "a log named with a newline and a command" -- "$PLOT" -o h1.svg "x${bad}.tsv"
unpwned "a log named with a newline and a command"
grep -qF 'a?system("touch $PWN")?b' h1.svg && ok || fail "the log's newlines are not shown as '?' in the title"
expect_exit 0 "a title with a newline and a command" -- "$PLOT" -o h2.svg -t "$bad" pop.tsv
unpwned "a title with a newline and a command"
grep -qF 'a?system("touch $PWN")?b' h2.svg && ok || fail "-t's newlines are not shown as '?'"
mkdir "d${bad}"
expect_exit 0 "an output in a directory named with a command" -- "$PLOT" -o "d${bad}/h3.png" pop.tsv
unpwned "an output in a directory named with a command"
[ -s "d${bad}/h3.png" ] && [ -z "$(ls -A "d${bad}" | grep -v '^h3\.png$')" ] && ok ||
	fail "the picture in a hostile directory: $(ls -A "d${bad}")"
expect_exit 0 "an output named with a newline and a command" -- "$PLOT" -o "o${bad}.png" pop.tsv
unpwned "an output named with a newline and a command"
[ -s "o${bad}.png" ] && ok || fail "the picture named with a command is missing"
# Every control character, not only a newline: a tab, an escape, DEL.
ctl=$(printf 'a\tb\033c\177d')
expect_exit 0 "a title with a tab, an escape and DEL" -- "$PLOT" -o h8.svg -t "$ctl" pop.tsv
grep -qF 'a?b?c?d' h8.svg && ok || fail "a tab, an escape or DEL is not shown as '?'"
# Markup in a title stays text in an SVG.
expect_exit 0 "a title with markup" -- "$PLOT" -o h9.svg -t '</text><script>x()</script>' pop.tsv
grep -q '<script' h9.svg && fail "a title's markup is in the SVG" || ok
for t in 'a`touch $PWN`b' "a'; system(\"touch \$PWN\"); '" 'a\' "a\\${NL}system(\"touch \$PWN\")" \
	"a${CR}system(\"touch \$PWN\")" '@ARG0 $0 "\" @ARG1' "$(head -c 20000 /dev/zero | tr '\0' x)${bad}"; do
	what="a title of $(printf '%s' "$t" | head -c 30 | tr '\n\r' '??')"
	expect_exit 0 "$what" -- "$PLOT" -f -o h4.png -t "$t" pop.tsv
	unpwned "$what"
done
cp pop.tsv 'x`touch $PWN`\'
expect_exit 0 "a log named with backquotes and a backslash" -- "$PLOT" -o h5.png 'x`touch $PWN`\'
unpwned "a log named with backquotes and a backslash"
# Refused names: each message one line, its control characters as '?'.
printf 'hello\n' >"n${bad}.tsv"
expect_exit 65 "not a log, named with a newline" -- "$PLOT" -o h6.png "n${bad}.tsv"
expect_err_line 'a?system("touch $PWN")?b.tsv: not a life3d population log' "a hostile name in a message"
expect_exit 64 "an output named with a newline after .png" -- "$PLOT" -o "h7.png${NL}" pop.tsv
expect_err_line "h7.png?: the output must end in" "a newline after .png"
expect_absent "h7.png${NL}" "a newline after .png"
"$PLOT" --help >help.txt && grep -q '^Exit status' help.txt && ok || fail "--help: $(head -c 200 help.txt)"
"$PLOT" -o x.png --help >help2.txt && cmp -s help.txt help2.txt && ok || fail "--help after an option"
finish
