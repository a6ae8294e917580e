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
grep -q "rule B6/S567 (from the command line) replaces the rule B4/S4 given by random_rule in $SRCDIR/conf/life3d.conf" err &&
	ok || fail "demo -r: $(cat err)"
"$LIFE3D" --random 4 --random-rule B4/S4 -r B6/S567 -n 1 -o demo3.l3d 2>err || fail "--random-rule with -r"
grep -q "rule B6/S567 (from the command line) replaces the rule B4/S4 given by --random-rule$" err &&
	ok || fail "--random-rule -r: $(cat err)"
cat >both.conf <<'CONF'
random = "8";
input = "golly.l3d";
CONF
expect_exit 78 "random and input in one file" -- "$LIFE3D" -c both.conf -o both.l3d
expect_err_line "both.conf:2: input and both.conf:1: random: give one, not both" "random and input in one file"
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
# An @include of a universe is the including file's error, at its line.
printf 'steps = 1;\n@include "cube.bin"\n' >incuni.conf
expect_exit 78 "@include of a universe" -- "$LIFE3D" -c incuni.conf --random 4 -o never.l3d
expect_err_line "^life3d: incuni.conf:2: @include \"cube.bin\": a universe (hpcgame format), not a configuration file$" "@include of a universe"

# Integers keep all 64 bits (libconfig 1.5 alone keeps 32: 4294967298 would
# log every 2 steps, seed 4294967297 would be seed 1), in decimal, hex and
# with libconfig's L suffix; a value past 64 bits is named and refused.
printf 'random = "6";\nlog_every = 4294967298;\n' >int.conf
expect_exit 0 "log_every past 32 bits" -- "$LIFE3D" -q -c int.conf -n 4 --log int.tsv -o int.l3d
[ "$(log_data int.tsv | cut -f1 | tr '\n' ' ')" = "step 0 " ] && ok || fail "log_every 4294967298 logged: $(cut -f1 int.tsv | tr '\n' ' ')"
for seed in 4294967297 4294967297L 0x100000001 0x100000001L; do
	printf 'random = "6";\nseed = %s;\n' "$seed" >seed.conf
	"$LIFE3D" -q -c seed.conf -n 0 -o seed-conf.l3d -f || fail "seed = $seed"
	"$LIFE3D" -q --random 6 --seed 4294967297 -n 0 -o seed-cli.l3d -f || fail "--seed 4294967297"
	expect_same seed-cli.l3d seed-conf.l3d "seed = $seed in a file = --seed 4294967297"
done
"$LIFE3D" -q --random 6 --seed 1 -n 0 -o seed1.l3d || fail "--seed 1"
cmp -s seed1.l3d seed-conf.l3d && fail "seed 4294967297 gave seed 1's universe" || ok
printf 'random = "6";\nsteps = 99999999999999999999999;\n' >huge.conf
expect_exit 78 "a value past 64 bits" -- "$LIFE3D" -c huge.conf -o huge.l3d
expect_err_line "^life3d: huge.conf:2: steps: '99999999999999999999999' is too large (at most 18446744073709551615)$" \
	"a value past 64 bits is named"
printf 'random = "6";\nsteps = 0x1FFFFFFFFFFFFFFFF;\n' >hexhuge.conf
expect_exit 78 "a hex value past 64 bits" -- "$LIFE3D" -c hexhuge.conf -o huge.l3d
expect_err_line "^life3d: hexhuge.conf:2: steps: '0x1FFFFFFFFFFFFFFFF' is too large (at most 18446744073709551615)$" \
	"a hex value past 64 bits is named"
printf 'steps =\n  -3; # below zero\n' >neg.conf
expect_exit 78 "a negative count" -- "$LIFE3D" -c neg.conf --random 4 -o neg.l3d
expect_err_line "neg.conf:1: steps: '-3' is not a whole number >= 0" "a negative count is named"

# Bad random and max_time values are the file's errors (78, FILE:LINE),
# found before the input is read (the input here does not exist).
printf 'density = 0.5;\nrandom = "4x4";\n' >rnd.conf
expect_exit 78 "bad random in a file" -- "$LIFE3D" -c rnd.conf -o x.l3d no-such-input.l3d
expect_err_line "^life3d: rnd.conf:2: random: '4x4' is not a size (N or XxYxZ)$" "bad random in a file"
printf 'max_time = "1:75";\n' >mt.conf
expect_exit 78 "bad max_time in a file" -- "$LIFE3D" -c mt.conf -o x.l3d no-such-input.l3d
expect_err_line "^life3d: mt.conf:1: max_time: '1:75' is not a duration" "bad max_time in a file"
expect_exit 64 "bad --max-time before the input" -- "$LIFE3D" --max-time 1:75 -o x.l3d no-such-input.l3d
expect_err_line "^life3d: --max-time: '1:75' is not a duration" "bad --max-time before the input"
printf 'snapshot_view = "400,0";\n' >view.conf
expect_exit 78 "bad snapshot_view in a file" -- "$LIFE3D" -c view.conf -o x.l3d no-such-input.l3d
expect_err_line "^life3d: view.conf:1: snapshot_view: '400,0' is not AZ,EL" "bad snapshot_view in a file"
expect_exit 78 "bad snapshot_view overridden" -- "$LIFE3D" -c view.conf --snapshot-view 10,10 -o x.l3d no-such-input.l3d

# A bad value is the file's error even where the command line gives the
# option; two keys that exclude each other are the files' error, named.
printf 'engine = "gpu";\n' >badengine.conf
expect_exit 78 "a bad value overridden on the command line" -- "$LIFE3D" -c badengine.conf --engine cpu --random 4 -o x.l3d
expect_err_line "^life3d: badengine.conf:1: engine: 'gpu' is not one of" "a bad value overridden: message"
expect_absent x.l3d "a bad value overridden"
printf 'steps = 2;\n' >steps.conf
printf 'until = 3;\n' >until.conf
expect_exit 78 "steps and until in two files" -- "$LIFE3D" -c steps.conf -c until.conf --random 4 -o x.l3d
expect_err_line "^life3d: steps.conf:1: steps and until.conf:1: until: give one, not both$" "steps and until in two files: message"
expect_exit 64 "steps and until on the command line" -- "$LIFE3D" -n 1 --until 3 --random 4 -o x.l3d
expect_err_line "^life3d: give steps or until, not both$" "steps and until on the command line: message"

# @include: next to the including file, at every depth; its settings take
# effect where it stands; a missing or unreadable file is named (78).
mkdir -p inc/deeper || exit 99
printf 'random = "6";\n@include "deeper/b.conf"\nseed = 9;\n' >inc/a.conf
printf 'seed = 5;\n@include "c.conf"\n' >inc/deeper/b.conf
printf 'density = 0.5;\nsteps = 2;\n' >inc/deeper/c.conf
expect_exit 0 "@include next to the including file" -- "$LIFE3D" -q -c inc/a.conf -o inc.l3d
"$LIFE3D" -q --random 6 --seed 9 --density 0.5 -n 2 -o inc-cli.l3d || fail "inc-cli"
expect_same inc-cli.l3d inc.l3d "@include: every file's settings, a later one winning"
mkdir -p adir || exit 99
printf 'steps = 1;\n@include "adir"\n' >dir.conf
expect_exit 78 "@include of a directory" -- "$LIFE3D" -c dir.conf --random 4 -o dir.l3d
expect_err_line "^life3d: dir.conf:2: @include \"adir\": a directory; only regular files are included$" "@include of a directory"
printf '@include "/dev/zero"\n' >zero.conf
expect_exit 78 "@include of /dev/zero" -- "$LIFE3D" -c zero.conf --random 4 -o /dev/null
expect_err_line "^life3d: zero.conf:1: @include \"/dev/zero\": a character device; only regular files are included$" "@include of /dev/zero: at its line"
# A FIFO is refused without waiting for a writer, and a pipe named by
# /dev/fd without waiting for its data (this one's writer, the command's
# own descriptor 3, never writes): each would otherwise hang.
mkfifo 4 || exit 99
printf 'steps = 1;\n@include "4"\n' >fifo.conf
expect_exit 78 "@include of a FIFO" -- timeout 10 "$LIFE3D" -c fifo.conf --random 4 -o fifo.l3d
expect_err_line "^life3d: fifo.conf:2: @include \"4\": a FIFO; only regular files are included$" "@include of a FIFO"
printf 'steps = 1;\n@include "/dev/fd/3"\n' >fd.conf
expect_exit 78 "@include of a pipe as /dev/fd/3" -- \
	sh -c 'exec timeout 10 "$0" -c fd.conf --random 4 -o fd.l3d 3<>4' "$LIFE3D"
expect_err_line "^life3d: fd.conf:2: @include \"/dev/fd/3\": a FIFO; only regular files are included$" "@include of /dev/fd/3"
# A regular file that never ends and waits for data (/proc/kmsg, readable
# by root) is refused, never waited on: read to its end it would block.
# (What it holds is read, as any reader of it does, and taken from it.)
if [ "$(id -u)" = 0 ] && [ -r /proc/kmsg ]; then
	printf 'steps = 1;\n@include "/proc/kmsg"\n' >kmsg.conf
	expect_exit 78 "@include of /proc/kmsg" -- timeout 20 "$LIFE3D" -c kmsg.conf --random 4 -o kmsg.l3d
	[ ! -e kmsg.l3d ] || fail "@include of /proc/kmsg: no output"
fi
# The file -c names may be a pipe all the same.
printf 'random = "4";\nsteps = 1;\n' >piped.conf
expect_exit 0 "-c of a pipe" -- sh -c 'cat piped.conf | "$0" -q -c /dev/stdin -o piped.l3d' "$LIFE3D"
"$LIFE3D" -q -c piped.conf -o unpiped.l3d || fail "unpiped.l3d"
expect_same unpiped.l3d piped.l3d "-c of a pipe = -c of the file"
# A file name too long to keep is named as such (it is in double quotes).
for n in 1024 5000; do
	printf '@include "%s"\n' "$(head -c "$n" /dev/zero | tr '\0' a)" >long.conf
	expect_exit 78 "@include of a $n-byte name" -- "$LIFE3D" -c long.conf --random 4 -o long.l3d
	expect_err_line "^life3d: long.conf:1: @include: a file name of $n bytes is too long (at most 1023)$" \
		"@include of a $n-byte name"
done
printf '\n\n@include "deeper/none.conf"\n' >inc/miss.conf
expect_exit 78 "@include of a missing file" -- "$LIFE3D" -c inc/miss.conf --random 4 -o miss.l3d
expect_err_line "^life3d: inc/miss.conf:3: @include \"deeper/none.conf\": inc/deeper/none.conf: cannot open: No such file or directory$" \
	"@include of a missing file names it"
printf '@include "self.conf"\n' >self.conf
expect_exit 78 "a file that includes itself" -- "$LIFE3D" -c self.conf --random 4 -o self.l3d
expect_err_line "does a file include itself" "a file that includes itself"
printf 'steps = 3;\n@include "broken.conf"\n' >outer.conf
printf 'seed = 1;\nsteps = ;\n' >broken.conf
expect_exit 78 "a syntax error in an included file" -- "$LIFE3D" -c outer.conf --random 4 -o b.l3d
expect_err_line "^life3d: broken.conf:2: syntax error$" "a syntax error in an included file"

# A file holds at most 64 KiB, and a -c file with all it includes at most
# 1 MiB: files that each include the next many times would otherwise be
# read 16^8 times over.
{ printf 'random = "4";\nsteps = 1;\n'; awk 'BEGIN { for (i = 0; i < 5000; i++) print "# a comment line" }'; } |
	head -c 65535 >max.conf && echo >>max.conf || exit 99
expect_exit 0 "a file of 64 KiB" -- "$LIFE3D" -q -c max.conf -o max.l3d
echo >>max.conf
expect_exit 78 "a file of 64 KiB and a byte" -- "$LIFE3D" -c max.conf -o max.l3d
expect_err_line "^life3d: max.conf: over 64 KiB: not a configuration file$" "a file of 64 KiB and a byte"
: >many0.conf
for i in 1 2 3 4 5 6 7 8; do
	awk -v n="$((i - 1))" 'BEGIN { for (j = 0; j < 16; j++) printf "@include \"many%d.conf\"\n", n }' >many$i.conf
done
expect_exit 78 "includes past 1 MiB in all" -- timeout 60 "$LIFE3D" -c many8.conf --random 4 -o many.l3d
expect_err_line "^life3d: many[1-8].conf:[0-9]*: @include \"many[0-7].conf\": many[0-7].conf: the files included pass 1 MiB in all$" \
	"includes past 1 MiB in all"

# Under a limit on the process (ulimit -v), a parse that would run out of
# memory is refused as such: one line, status 1, never a crash or
# libconfig's own exit.  The limits are swept from the lowest where life3d
# starts to where the dense 64 KiB file parses whole (its array is then
# refused); under ASan or valgrind, which need far more address space,
# the sweep is skipped.
{ printf 'random = "4";\nsteps = 1;\narray = [1'; awk 'BEGIN { for (i = 0; i < 32000; i++) printf ",1" }'; printf '];\n'; } >dense.conf
under() { kb=$1; shift; sh -c "ulimit -v $kb; exec \"\$0\" \"\$@\"" "$LIFE3D" "$@" >/dev/null 2>err </dev/null; }
if [ -z "${LIFE3D_VALGRIND:-}" ] && under 2000000 --version; then
	oom=0 parsed=0 kb=4096
	while [ $kb -lt 200000 ] && ! under $kb --version; do kb=$((kb + 512)); done
	while [ $kb -lt 200000 ] && [ $parsed -eq 0 ]; do
		under $kb -c dense.conf -o dense.l3d
		rc=$?
		if [ "$rc" -eq 78 ] && grep -qx "life3d: dense.conf:3: unknown key 'array'" err; then
			parsed=1 && ok
		elif [ "$rc" -eq 1 ] && grep -qx "life3d: dense.conf: out of memory" err; then
			oom=$((oom + 1)) && ok
		elif [ "$rc" -eq 66 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "^life3d: dense.conf: cannot open: " err; then
			ok
		else
			fail "ulimit -v $kb: exit $rc: $(head -c 300 err)"
		fi
		kb=$((kb + 128))
	done
	[ $oom -gt 0 ] && [ $parsed -eq 1 ] && ok ||
		fail "the sweep did not cross the parse ($oom runs out of memory, parsed: $parsed)"
fi

# Two -c files are read in order: the later one wins per key, the command
# line over both.
printf 'random = "6";\nseed = 3;\nsteps = 1;\n' >first.conf
printf 'seed = 4;\ndensity = 0.4;\n' >second.conf
expect_exit 0 "two -c files" -- "$LIFE3D" -q -c first.conf -c second.conf -o two.l3d
"$LIFE3D" -q --random 6 --seed 4 --density 0.4 -n 1 -o two-cli.l3d || fail "two-cli"
expect_same two-cli.l3d two.l3d "two -c files merge, the later one winning"
expect_exit 0 "two -c files and the command line" -- \
	"$LIFE3D" -q -c first.conf -c second.conf --seed 3 -o two3.l3d
"$LIFE3D" -q --random 6 --seed 3 --density 0.4 -n 1 -o two3-cli.l3d || fail "two3-cli"
expect_same two3-cli.l3d two3.l3d "the command line wins over both files"
printf 'rule = "5766";\n' >r1.conf
printf 'steps = 1;\n' >r2.conf
expect_exit 0 "a rule from the first of two files" -- "$LIFE3D" -c r1.conf -c r2.conf -o r5.l3d golly.l3d
grep -q "rule B6/S567 (from r1.conf) replaces" "$T/err" && ok || fail "the rule's file: $(cat "$T/err")"

# One step is "1 step".
expect_exit 0 "one step" -- "$LIFE3D" --random 4 -n 1 -o one.l3d
grep -q "life3d: 1 step to generation 1," "$T/err" && ok || fail "summary of one step: $(cat "$T/err")"
finish
