#!/bin/sh
# Every manual page renders without a warning, and --help agrees with the
# option table (every long option appears in life3d(1)).
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v man >/dev/null 2>&1 || { echo "man not found: skipped"; exit 77; }
for page in life3d.1 life3d.conf.5 life3d-formats.5; do
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
finish
