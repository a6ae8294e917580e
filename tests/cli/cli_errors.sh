#!/bin/sh
# Bad input of every kind: one clear line naming the file and the problem,
# the documented exit code, no output file left behind, never a hang.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
# Fail rather than hang if a case ever blocks.
run() { timeout 20 "$LIFE3D" -q "$@"; }

u64() {  # little-endian u64 from a decimal < 2^32, as octal escapes
	v=$1; s=""
	for i in 1 2 3 4 5 6 7 8; do s="$s\\$(printf '%03o' $((v % 256)))"; v=$((v / 256)); done
	printf "$s"
}
bad_case() {  # FILE CODE PATTERN DESCRIPTION
	rm -f out.l3d
	expect_exit "$2" "$4" -- run -n 1 -o out.l3d "$1"
	expect_err_line "$1.*$3" "$4 message"
	expect_absent out.l3d "$4"
}

: >empty.bin
bad_case empty.bin 65 "empty" "empty file"
printf 'abcde' >short.bin
bad_case short.bin 65 "" "truncated header"
{ u64 0; u64 0; } >m0.bin
bad_case m0.bin 65 "" "M = 0"
{ printf '\000\000\000\000\000\001\000\000'; u64 0; } >huge.bin
bad_case huge.bin 65 "" "M^3 overflows"
{ u64 2; u64 0; printf '\001\000\001\000'; } >trunc.bin
bad_case trunc.bin 65 "" "truncated payload"
{ u64 2; u64 0; printf '\001\000\001\000\002\000\000\000'; } >byte2.bin
bad_case byte2.bin 65 "" "byte other than 0 or 1"
{ u64 2; u64 0; printf '\001\000\001\000\001\000\000\000xyz'; } >trail.bin
bad_case trail.bin 65 "" "trailing garbage"
{ u64 2; u64 5; printf '\001\000\001\000\001\000\000\000'; } >good.bin
expect_exit 0 "a good HPCGame file" -- run -n 1 -o good-out.bin good.bin

# Native format: flip one payload byte -> CRC error; truncate.
run -n 0 --random 8 -o good.l3d || fail "make good.l3d"
cp good.l3d crc.l3d
printf '\377' | dd of=crc.l3d bs=1 seek=70 conv=notrunc 2>/dev/null
bad_case crc.l3d 65 "CRC" "bad payload CRC"
head -c 100 good.l3d >cut.l3d
bad_case cut.l3d 65 "" "truncated native payload"
head -c 30 good.l3d >cuthdr.l3d
bad_case cuthdr.l3d 65 "" "truncated native header"

# RLE3, malformed in each way.
printf '3D version=1 size=4\nx=1 y=1 z=1 rule=3D5..7/6\noq!\n' >char.rle3
bad_case char.rle3 65 "" "RLE3 bad character"
printf '3D version=x size=4\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >nover.rle3
bad_case nover.rle3 65 "version" "RLE3 version x"
printf '3D version=2 size=4\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >ver2.rle3
bad_case ver2.rle3 65 "version" "RLE3 version 2"
printf '3D version=1 size=2\nx=3 y=1 z=1 rule=3D5..7/6\n3o!\n' >big.rle3
bad_case big.rle3 65 "" "RLE3 pattern larger than size"
printf '3D version=1 size=4\nx=1 y=1 z=1 rule=3D5..7/6\n5o!\n' >wide.rle3
bad_case wide.rle3 65 "outside the universe" "RLE3 row past the universe"
printf '3D version=1 size=4\nx=1 y=1 z=1 rule=3D9..7/6\no!\n' >rule.rle3
bad_case rule.rle3 65 "" "RLE3 bad rule"
printf '3D version=1 size=4\nx=1 y=1 rule=3D5..7/6\no!\n' >hdr.rle3
bad_case hdr.rle3 65 "" "RLE3 bad header line"
printf 'hello world\n' >text.txt
bad_case text.txt 65 "" "unknown format"

# Missing and unreadable inputs.
bad_case missing.l3d 66 "" "missing file"
mkdir -p adir
bad_case adir 66 "" "a directory"
expect_exit 66 "a directory on stdin" -- sh -c '"$0" -o out.l3d <adir' "$LIFE3D"
expect_err_line "(stdin): is a directory" "a directory on stdin: message"

# Bad option values: usage errors, nothing written.
for args in "-n abc" "-n -3" "--density 2" "--density x" "--engine gpu" \
	    "--rule B9x/S5" "--random 0" "--random 4x4" "--log-every 0" \
	    "--snapshot-kind cube" "--slice-axis w" "--threads -1" "--bogus" \
	    "--format png" "-n" "--max-time 0x10" "--max-time 1e3" "--max-time 5m30" \
	    "--random-rule BBX"; do
	rm -f out.l3d
	expect_exit 64 "option $args" -- run $args -o out.l3d good.l3d
	expect_err_line "" "option $args message"
	expect_absent out.l3d "option $args"
done
LIFE3D_SIMD=PORTABLE "$LIFE3D" -v -n 1 -o /dev/null good.l3d 2>simd.err &&
	grep -q "engine cpu/portable" simd.err && ok || fail "LIFE3D_SIMD in capitals: $(cat simd.err)"
expect_exit 64 "--snapshot-size 0" -- run --snapshot-size 0 -o out.l3d good.l3d
expect_err_line "'0' is not a whole number from 1 to 1000000$" "--snapshot-size 0: the range as whole numbers"
expect_exit 64 "an ambiguous prefix" -- run --ver
expect_err_line "ambiguous option '--ver' (--verbose, --version; see --help)" "an ambiguous prefix: message"
"$LIFE3D" --vers >/dev/null && ok || fail "a prefix that names one option"
expect_exit 64 "two inputs" -- run -o out.l3d good.l3d good.l3d
expect_exit 64 "INPUT and --random" -- run --random 4 -o out.l3d good.l3d
expect_exit 64 "an empty INPUT name" -- run -o out.l3d ""
expect_err_line "INPUT: empty name" "an empty INPUT name: message"
run --rule 'B6/S5x7' -n 1 -o out.l3d good.l3d 2>rule.err
grep -q "column" rule.err && ok || fail "bad rule message points at a column: $(cat rule.err)"

# Control bytes in quoted input never break the one-line rule.
expect_exit 64 "rule with a newline" -- run -r "$(printf 'B6\n/S567')" -n 1 -o out.l3d good.l3d
expect_err_line 'B6\\n/S567' "rule with a newline: one escaped line"
printf '3D version=1 size=4 gen=\033[31mred\nx=1 y=1 z=1 rule=3D5..7/6\no!\n' >esc.rle3
bad_case esc.rle3 65 'x1b' "escape byte in an RLE3 header"

# Bad configuration files.
printf 'steps = 5;\nstpes = 3;\n' >typo.conf
expect_exit 78 "unknown config key" -- run -c typo.conf -o out.l3d good.l3d
expect_err_line "typo.conf:2" "unknown key names file and line"
printf 'steps = "five";\n' >type.conf
expect_exit 78 "wrong config type" -- run -c type.conf -o out.l3d good.l3d
expect_err_line "type.conf:1" "wrong type names file and line"
printf 'steps = 5\nrule = ;\n' >syntax.conf
expect_exit 78 "config syntax error" -- run -c syntax.conf -o out.l3d good.l3d
expect_err_line "syntax.conf:" "syntax error names the file"
expect_exit 66 "missing config" -- run -c nothere.conf -o out.l3d good.l3d
expect_absent out.l3d "config errors"

# --engine cuda where it cannot run.
if "$LIFE3D" --version | grep -q -e "gpus: none" -e "cuda not built in"; then
	expect_exit 69 "--engine cuda without a GPU" -- run --engine cuda -n 1 -o out.l3d good.l3d
	expect_err_line "cuda" "--engine cuda message"
	expect_absent out.l3d "--engine cuda"
fi

# A universe larger than memory is refused before anything is allocated,
# with what it needs and what there is (and no OOM kill).
expect_exit 1 "universe larger than memory" -- run --random 4096x4096x65536 -n 1 -o out.l3d
expect_err_line "needs [0-9.]* MiB of memory; only [0-9.]* MiB is available" "memory message"
expect_absent out.l3d "universe larger than memory"
{ u64 60000; u64 0; } >bigm.bin
# From a pipe, whose length is not known, the claim meets the memory check;
# a regular file shorter than its header claims is refused before any
# memory is taken, even when the claim would fit (4000^3 cells: 7.5 GiB).
expect_exit 1 "HPCGame header larger than memory" -- sh -c "cat bigm.bin | '$LIFE3D' -n 1 -o out.l3d"
expect_err_line "needs .* MiB of memory" "HPCGame header larger than memory message"
bad_case bigm.bin 65 "truncated: expected 216000000000000 bytes of cells, got 0" "HPCGame file shorter than its claim"
{ u64 4000; u64 0; } >big4000.bin
bad_case big4000.bin 65 "truncated: expected 64000000000 bytes of cells, got 0" "HPCGame 4000^3 claim in 16 bytes"
# ... before any memory is taken: the same refusal with 1 GiB of address
# space (not under the sanitizers or valgrind, which reserve more).
if [ -z "${LIFE3D_VALGRIND:-}" ] && [ "${LIFE3D_SANITIZERS:-no}" != yes ]; then
	expect_exit 65 "HPCGame 4000^3 claim, 1 GiB of memory" -- \
		sh -c "ulimit -v 1048576; exec '$LIFE3D' --engine cpu -n 1 -o out.l3d big4000.bin"
	expect_err_line "truncated: expected 64000000000 bytes of cells, got 0" \
		"HPCGame 4000^3 claim, 1 GiB of memory: message"
fi

# Writing to a full disk is an I/O error, not success.
if [ -w /dev/full ]; then
	expect_exit 74 "disk full on stdout" -- sh -c "'$LIFE3D' -q -n 1 good.l3d >/dev/full"
	expect_exit 74 "disk full on -o" -- run -n 1 -o /dev/full good.l3d
	expect_exit 74 "disk full on the log" -- run -n 1 --log /dev/full -o out.l3d good.l3d
	expect_absent out.l3d "disk full on the log"
fi
# An output under a file that is not a directory says so.
: >plainfile
expect_exit 73 "-o under a file" -- "$LIFE3D" -q --random 4 -o plainfile/x.l3d
expect_err_line "^life3d: plainfile/x.l3d: 'plainfile' is not a directory$" "-o under a file"
# A long path does not hide the reason: the message loses its middle.
long=$(printf 'long-directory-name-%s/' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30)
expect_exit 73 "-o under a long missing path" -- "$LIFE3D" -q --random 4 -o "${long}x.l3d"
expect_err_line "^life3d: long-directory-name-1/.*\.\.\..*long-directory-name-30': No such file or directory$" \
	"a long path keeps the reason"
# An option that takes no value, given one; a letter in a group of short options.
expect_exit 64 "--quiet=yes" -- "$LIFE3D" --quiet=yes --random 2 -o /dev/null
expect_err_line "^life3d: option '--quiet' takes no value ('--quiet=yes'; see --help)$" "--quiet=yes"
expect_exit 64 "-q-" -- "$LIFE3D" -o /dev/null -q- --random 2
expect_err_line "^life3d: unknown option '-' in '-q-' (see --help)$" "-q-"
expect_exit 64 "-xq" -- "$LIFE3D" -o /dev/null -xq --random 2
expect_err_line "^life3d: unknown option 'x' in '-xq' (see --help)$" "-xq"
# So does a rule of 20000 bytes (longer than any room a message had).
long=$(awk 'BEGIN { s = "3D5/6"; for (i = 0; i < 20000; i++) s = s "X"; print s }')
expect_exit 64 "a 20000-byte rule" -- "$LIFE3D" -q --random 4 -o /dev/null -r "$long"
expect_err_line "^life3d: rule '3D5/6XX.*\\.\\.\\..*XX': unexpected 'X' at column 6" "a long rule keeps the reason"

# The environment's measurement settings: a value the engines would
# misread is refused before any work, as a bad option is; empty is unset.
for bad in LIFE3D_SKIP=yes LIFE3D_SKIP=2 LIFE3D_CPU_STREAM=on LIFE3D_CUDA_LAUNCH=graphs \
	   LIFE3D_CUDA_LAUNCH=plain,graph LIFE3D_CPU_RULE_CODE=no LIFE3D_CPU_TILE=abc LIFE3D_CPU_TILE=0 LIFE3D_HALO_DEPTH=2x \
	   LIFE3D_HALO_DEPTH=-1 LIFE3D_HALO_DEPTH=99999999999999999999 LIFE3D_SIMD=sse9 \
	   LIFE3D_HALO=bogus LIFE3D_CUDA_TUNE=tile=1 LIFE3D_CUDA_TUNE=fuse=2,,warps=8; do
	expect_exit 64 "$bad" -- env "$bad" "$LIFE3D" -q --random 4 -n 1 -o envbad.l3d
	expect_err_line "^life3d: ${bad%%=*}: '${bad#*=}' is not" "$bad: message"
	expect_absent envbad.l3d "$bad"
done
expect_exit 64 "LIFE3D_MPI_STAGING" -- env LIFE3D_MPI_STAGING=1 "$LIFE3D" -q --random 4 -n 1 -o envbad.l3d
expect_err_line "^life3d: LIFE3D_MPI_STAGING is no longer read: use LIFE3D_HALO=staged$" \
	"LIFE3D_MPI_STAGING: message"
for good in LIFE3D_SKIP=0 LIFE3D_SKIP=1 LIFE3D_SKIP= LIFE3D_CPU_STREAM=1 LIFE3D_CPU_RULE_CODE=0 LIFE3D_CUDA_LAUNCH=pdl \
	    LIFE3D_CPU_TILE=8 LIFE3D_HALO_DEPTH=3 LIFE3D_SIMD=Portable LIFE3D_HALO=STAGED \
	    LIFE3D_CUDA_LAUNCH=PLAIN LIFE3D_CUDA_TUNE=fuse=2,tiles=1; do
	expect_exit 0 "$good" -- env "$good" "$LIFE3D" -q --random 4 -n 1 -o /dev/null
done
finish
