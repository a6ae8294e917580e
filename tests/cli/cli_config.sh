#!/bin/sh
# Configuration files: settings equal their options, the command line wins,
# and the shipped default configuration loads.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

cat >run.conf <<'CONF'
# a small run
random = "10x9x8";
seed = 42;
density = 0.3;
steps = 6;
rule = "B5/S45";
log = "pop.tsv";
log_every = 2;
output = "conf.l3d";
quiet = true;
CONF
"$LIFE3D" -c run.conf && ok || fail "config run"
"$LIFE3D" -q --random 10x9x8 --seed 42 --density 0.3 -n 6 -r B5/S45 \
	--log cli.tsv --log-every 2 -o cli.l3d && ok || fail "option run"
expect_same cli.l3d conf.l3d "config = options (universe)"
expect_same cli.tsv pop.tsv "config = options (log)"

# The command line overrides the file.
"$LIFE3D" -c run.conf -n 3 -o over.l3d --log over.tsv && ok || fail "override run"
"$LIFE3D" -q --random 10x9x8 --seed 42 --density 0.3 -n 3 -r B5/S45 -o cli3.l3d || fail "cli3"
expect_same cli3.l3d over.l3d "-n and -o override the file"
[ "$(tail -n 1 over.tsv | cut -f1)" = 2 ] && ok || fail "log_every from the file still applies"

# The shipped configuration parses (run with tiny overrides to stay fast).
"$LIFE3D" -c "$SRCDIR/conf/life3d.conf" --random 8 -n 2 -o ship.l3d --log ship.tsv \
	--snapshot-prefix ship- -q && ok || fail "shipped config"
[ -s ship.l3d ] && [ -s ship.tsv ] && [ -s ship-000000.png ] && ok || fail "shipped config outputs"

# The shipped demo keeps moving: its five snapshots (3D renders) all
# differ from one another.
mkdir demo && (cd demo && "$LIFE3D" -q -c "$SRCDIR/conf/life3d.conf") || fail "the demo as shipped"
n=$(ls demo/life3d-snap-*.png | wc -l)
[ "$n" -eq 5 ] && ok || fail "the demo wrote $n snapshots, expected 5"
[ "$(cksum demo/life3d-snap-*.png | cut -d' ' -f1 | sort -u | wc -l)" -eq "$n" ] && ok ||
	fail "the demo's snapshots are not all different: $(cksum demo/life3d-snap-*.png)"
"$TOOLS/pngsum" -t demo/life3d-snap-000200.png | grep -qx "Kind=render" && ok || fail "the demo has no 3D view"

# An INPUT operand beats the file's random (the command line wins), and
# the shipped file keeps the rule stored in the input: its random_rule is
# the random universe's, and it sets no rule.
"$LIFE3D" -q -r 3D4,7/5,8 --random 12 --seed 5 -n 0 -o golly.l3d || fail "make golly.l3d"
expect_exit 0 "shipped config with an INPUT" -- \
	"$LIFE3D" -c "$SRCDIR/conf/life3d.conf" -n 4 --snapshot-every 0 -o ship-in.l3d golly.l3d
"$LIFE3D" -q -n 4 -o plain-in.l3d golly.l3d || fail "plain run of golly.l3d"
expect_same plain-in.l3d ship-in.l3d "shipped config + INPUT = the input's own rule"
if grep -q 'replaces' "$T/err"; then fail "shipped config announced a rule change"; else ok; fi
# The demo's random universe carries B4/S4; -r replaces it and says so.
"$LIFE3D" -c "$SRCDIR/conf/life3d.conf" -v -n 1 --snapshot-every 0 -o demo1.l3d 2>err ||
	fail "demo, one step"
grep -q "rule B4/S4," err && ok || fail "demo rule: $(head -n 1 err)"
"$LIFE3D" -c "$SRCDIR/conf/life3d.conf" -r B6/S567 -n 1 --snapshot-every 0 -o demo2.l3d 2>err ||
	fail "demo with -r"
grep -q "rule B6/S567 (from the command line) replaces the rule B4/S4 given by --random-rule" err &&
	ok || fail "demo -r: $(cat err)"
cat >both.conf <<'CONF'
random = "8";
input = "golly.l3d";
CONF
expect_exit 64 "random and input in one file" -- "$LIFE3D" -c both.conf -o both.l3d
expect_err_line "give INPUT or --random, not both" "random and input in one file"
expect_exit 64 "INPUT and --random on one command line" -- \
	"$LIFE3D" --random 8 -o both.l3d golly.l3d
cat >rand.conf <<'CONF'
input = "golly.l3d";
CONF
expect_exit 0 "--random beats the file's input" -- \
	"$LIFE3D" -q -c rand.conf --random 6 -n 0 -o rand.l3d
"$LIFE3D" -q --random 6 -n 0 -o rand2.l3d || fail "plain --random 6"
expect_same rand2.l3d rand.l3d "--random beats the file's input (universe)"

# A rule that replaces the input's is announced (both rules named); -q
# silences it; the same rule says nothing.
expect_exit 0 "-r replaces the input's rule" -- "$LIFE3D" -r B6/S567 -n 1 -o r1.l3d golly.l3d
grep -q "rule B6/S567 (from the command line) replaces the rule B58/S47 stored in golly.l3d" \
	"$T/err" && ok || fail "replacement not announced: $(cat "$T/err")"
echo 'rule = "5766";' >rule.conf
expect_exit 0 "a config rule replaces the input's" -- \
	"$LIFE3D" -c rule.conf -n 1 -o r2.l3d golly.l3d
grep -q "rule B6/S567 (from rule.conf) replaces the rule B58/S47" "$T/err" && ok ||
	fail "config replacement not announced: $(cat "$T/err")"
expect_exit 0 "-q silences the replacement" -- "$LIFE3D" -q -r B6/S567 -n 1 -o r3.l3d golly.l3d
[ -s "$T/err" ] && fail "-q printed: $(cat "$T/err")" || ok
expect_exit 0 "the input's own rule again" -- "$LIFE3D" -r 3D4,7/5,8 -n 1 -o r4.l3d golly.l3d
grep -q replaces "$T/err" && fail "same rule announced as a replacement" || ok

# -c given a universe names what it is and where a universe goes.
"$LIFE3D" -q --random 4 -n 0 -o cube.bin || fail "make cube.bin"
for u in golly.l3d cube.bin "$SRCDIR/tests/data/golly-spaceship.rle3"; do
	expect_exit 78 "-c $u" -- "$LIFE3D" -c "$u" -o never.l3d
	expect_err_line "not a configuration file: -c takes settings; give a universe as INPUT" "-c $u"
done

# One step is "1 step".
expect_exit 0 "one step" -- "$LIFE3D" --random 4 -n 1 -o one.l3d
grep -q "life3d: 1 step to generation 1," "$T/err" && ok || fail "summary of one step: $(cat "$T/err")"
finish
