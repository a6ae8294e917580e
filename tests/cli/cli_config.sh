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
finish
