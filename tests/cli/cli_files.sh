#!/bin/sh
# Files and signals that never lose a user's data: a replaced file keeps
# its mode, a file that appears while the result is written is not
# clobbered, and SIGHUP stops a run like SIGTERM.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
"$LIFE3D" -q --random 16 --seed 2 -n 0 -o u.l3d || fail "make u.l3d"

# -f keeps the mode of the file it replaces (a private file stays private).
echo private >secret.l3d
chmod 600 secret.l3d
expect_exit 0 "-f over a 0600 file" -- "$LIFE3D" -q -f -n 1 -o secret.l3d u.l3d
[ "$(stat -c %a secret.l3d)" = 600 ] && ok || fail "-f changed the mode to $(stat -c %a secret.l3d)"
chmod 640 secret.l3d
expect_exit 0 "-f over a 0640 file" -- "$LIFE3D" -q -f -n 1 -o secret.l3d u.l3d
[ "$(stat -c %a secret.l3d)" = 640 ] && ok || fail "-f changed 0640 to $(stat -c %a secret.l3d)"
# A new file gets the umask's mode.
(umask 022 && "$LIFE3D" -q -n 1 -o fresh.l3d u.l3d) || fail "fresh run"
[ "$(stat -c %a fresh.l3d)" = 644 ] && ok || fail "new file mode $(stat -c %a fresh.l3d)"

# A file created at the output path during the run is not replaced: the
# header arrives, the path is checked, then the cells come a second later,
# and meanwhile someone else creates the file.  (The narrower window between
# opening the temporary and renaming it is covered by check_outfile.)
slow_input() { head -c 64 u.l3d; sleep 1; tail -c +65 u.l3d; }
slow_input | "$LIFE3D" -q -n 1 -o race.l3d 2>race.err &
pid=$!
sleep 0.4
echo "someone else's" >race.l3d
wait $pid
rc=$?
[ "$rc" -eq 73 ] && ok || fail "race: exit $rc, expected 73: $(cat race.err)"
[ "$(cat race.l3d)" = "someone else's" ] && ok || fail "race: the other file was clobbered"
# With -f the late file is replaced, as asked.
slow_input | "$LIFE3D" -q -f -n 1 -o race2.l3d &
pid=$!
sleep 0.4
echo "someone else's" >race2.l3d
wait $pid && ok || fail "race with -f: exit $?"
"$LIFE3D" -q -n 0 -o /dev/null race2.l3d && ok || fail "race with -f: result not in place"

# SIGHUP stops a run like SIGTERM: checkpoint, no output, exit 130.
"$LIFE3D" -q --random 60 --seed 4 -n 100000000 --checkpoint hup.l3d -o hup-out.l3d &
pid=$!
sleep 1
kill -HUP $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok || fail "SIGHUP exit $rc, expected 130"
expect_absent hup-out.l3d "SIGHUP"
[ -s hup.l3d ] && "$LIFE3D" -q -n 1 -o /dev/null hup.l3d && ok || fail "no resumable checkpoint after SIGHUP"
if ls -A | grep -q '\.tmp$'; then fail "temporary files after SIGHUP"; else ok; fi
finish
