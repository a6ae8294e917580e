#!/bin/sh
# cli_summary.sh - --summary FILE: one JSON object at the end of every run
# that got as far as its options, failed or not, read back here with
# Python's json module (a strict parser): each field against what the run
# did, and the file's place checked before the run as the other outputs'.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v python3 >/dev/null 2>&1 || { echo "python3 not found"; exit 77; }

# field FILE EXPR WANT DESCRIPTION: the Python expression on the object j
# gives WANT (its repr for strings: 'x'; None for null).
field() {
	got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(repr(eval(sys.argv[2])))' "$1" "$2" 2>&1)
	[ "$got" = "$3" ] && ok || fail "$4: $2 is $got, wanted $3"
}

# A run that ends well: what it read, stepped and wrote.
OMP_NUM_THREADS=1 "$LIFE3D" -q --random 12x10x8 --seed 5 --density 0.3 -n 7 --log ok.tsv \
	-o ok.rle3 --summary ok.json || fail "a run with --summary: exit $?"
pop=$(tail -n 1 ok.tsv | cut -f 2)
field ok.json 'j["life3d"] != ""' True "the version"
field ok.json 'j["status"]' 0 "status"
field ok.json 'j["reason"]' None "reason"
field ok.json 'j["source"]' "{'seed': 5, 'density': 0.3, 'shape': 'fill'}" "source"
field ok.json 'j["size"]' "[12, 10, 8]" "size"
field ok.json 'j["rule"]' "{'rule': 'B6/S567', 'golly': '3D5..7/6', 'neighbourhood': 'Moore'}" "rule"
field ok.json '(j["first_generation"], j["generation"], j["steps"])' "(0, 7, 7)" "generations"
field ok.json 'j["population"]' "$pop" "the population of the log's last line"
field ok.json 'j["threads"]' "{'count': 1, 'from': 'OMP_NUM_THREADS'}" "threads"
field ok.json 'j["ranks"]' 1 "ranks"
field ok.json 'j["engine"].startswith("cpu/")' True "engine"
field ok.json 'sorted(j["seconds"])' "['input', 'output', 'setup', 'steps', 'total']" "seconds"
field ok.json 'all(v >= 0 for v in j["seconds"].values())' True "seconds, none negative"
field ok.json 'j["cell_updates_per_second"] > 0' True "rate"
field ok.json 'j["leap"]' None "no leap"
field ok.json 'j["files"]' "{'result': {'path': 'ok.rle3', 'format': 'rle3'}, 'log': 'ok.tsv', 'checkpoint': None, 'snapshots': 0}" "files"
# From a file, with a rule of its own, to standard output.
"$LIFE3D" -q -r B5/S45 --random 6 -n 0 -o b.l3d || fail "b.l3d"
"$LIFE3D" -q -n 2 -o b2.l3d --summary - b.l3d >stdout.json || fail "--summary -: exit $?"
field stdout.json 'j["source"]' "{'file': 'b.l3d'}" "the source file"
field stdout.json 'j["rule"]["rule"]' "'B5/S45'" "the input's rule"
"$LIFE3D" -q -n 2 --summary - -o b3.l3d - <b.l3d >stdin.json || fail "stdin: exit $?"
field stdin.json 'j["source"]' "{'file': '(stdin)'}" "standard input"
# A leap, as -v says it.
"$LIFE3D" -v --random 16 --density 0.1 --seed 40 --random-rule B5/S4567 -n 1200 -o lp.l3d \
	--summary lp.json 2>lp.err || fail "the leap run"
from=$(sed -n 's/^life3d: period 6 found: the universe of generation \([0-9]*\) came back.*/\1/p' lp.err)
field lp.json 'j["leap"]' "{'period': 6, 'from_generation': ${from:-none}}" "the leap, as -v says it"
# The configuration's key.
printf 'random = "4";\nsteps = 1;\nsummary = "conf.json";\n' >s.conf
"$LIFE3D" -q -c s.conf -o conf.l3d && field conf.json 'j["steps"]' 1 "summary in a configuration"

# A run that fails says how: its status and its message.
"$LIFE3D" -q -n 1 -o x.l3d --summary miss.json missing.l3d 2>miss.err
rc=$?
[ "$rc" = 66 ] && ok || fail "a missing input: exit $rc"
field miss.json '(j["status"], "life3d: " + j["reason"])' "(66, '$(cat miss.err)')" "a missing input"
field miss.json '(j["size"], j["rule"], j["population"], j["engine"], j["files"]["result"])' \
	"(None, None, None, None, None)" "a missing input: nothing known"
printf '3D version=1 size=4\nx=1 y=1 z=1 rule=3D5..7/6\nq!\n' >bad.rle3
"$LIFE3D" -q -n 1 -o x.l3d --summary bad.json bad.rle3 2>/dev/null
field bad.json 'j["status"]' 65 "a bad input"
# Stopped by a signal: the generation reached and the checkpoint.
LIFE3D_SKIP=0 LIFE3D_LEAP=0 "$LIFE3D" -q --threads 1 --random 24 -n 100000000000 -o st.l3d \
	--summary st.json 2>st.err &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
field st.json 'j["status"]' 130 "stopped"
field st.json 'j["generation"] > 0 and j["files"]["checkpoint"] == "st.l3d.ckpt.l3d"' True \
	"stopped: the generation and the checkpoint"
[ -f st.l3d.ckpt.l3d ] && ok || fail "stopped: no checkpoint"
# A name that is not text comes back as text.
name=$(printf 'u\377.l3d')
"$LIFE3D" -q --random 4 -o "$name" && "$LIFE3D" -q -n 1 -o v.l3d --summary name.json "$name" ||
	fail "a file name that is not UTF-8"
field name.json 'j["source"]["file"]' "'u?.l3d'" "a file name that is not UTF-8"

# Its place, checked before the run: nothing replaced without -f, no
# link followed, no clash with the other outputs.
echo keep >kept.json
expect_exit 73 "an existing summary" -- "$LIFE3D" -q --random 4 -n 1 -o k.l3d --summary kept.json
[ "$(cat kept.json)" = keep ] && ok || fail "an existing summary was replaced"
expect_absent k.l3d "an existing summary: no result either"
"$LIFE3D" -q -f --random 4 -n 1 -o k.l3d --summary kept.json && field kept.json 'j["status"]' 0 "-f"
ln -s target.json link.json
expect_exit 73 "a link" -- "$LIFE3D" -q -f --random 4 -n 1 -o l.l3d --summary link.json
expect_absent target.json "a link: not followed"
expect_exit 64 "the result's name" -- "$LIFE3D" -q --random 4 -o same.l3d --summary same.l3d
expect_exit 64 "--summary - and -o -" -- "$LIFE3D" -q --random 4 --summary -
expect_err_line "^life3d: --summary - and the universe both go to stdout; give -o FILE\$" "--summary - and -o -"
expect_exit 64 "--summary - and --log -" -- "$LIFE3D" -q --random 4 -o x4.l3d --log - --summary -
expect_err_line "^life3d: --summary - and the log both go to stdout; give -o FILE or --log FILE\$" \
	"--summary - and --log -"
mkdir -p ro && chmod 500 ro
if [ "$(id -u)" != 0 ]; then
	expect_exit 73 "an unwritable directory" -- "$LIFE3D" -q --random 4 -o r.l3d --summary ro/s.json
fi
finish
