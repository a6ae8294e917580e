#!/bin/sh
# cli_completion.sh - scripts/life3d-completion.bash in bash: options and
# their words as this life3d's --help and messages give them, file names
# where an option takes a file, and nothing run by a probe.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
command -v bash >/dev/null 2>&1 || { echo "bash not found"; exit 77; }

# complete_is WANT WORDS...: the completions of the last word (sorted, one
# line, each followed by a blank; " " for none) are WANT.
complete_is() {
	want=$1
	shift
	got=$(bash -c '. "$1/scripts/life3d-completion.bash"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_life3d
printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$SRCDIR" "$LIFE3D" "$@")
	[ "$got" = "$want" ] && ok || fail "life3d $*: got '$got', wanted '$want'"
}
: >in.l3d
: >inside.rle3
mkdir -p dir
complete_is "auto cpu cuda " --engine ""
complete_is "cpu cuda " --engine c
complete_is "hpcgame l3d native npy rle3 vti vtk vtp " --format ""
complete_is "auto avx2 avx512 portable " --simd ""
complete_is "projection render slice " --snapshot-kind ""
complete_is "x y z " --slice-axis ""
complete_is "box fill sphere " --random-shape ""
complete_is "xy xz yz " --plane ""
complete_is "--snapshot-every --snapshot-kind --snapshot-max --snapshot-prefix --snapshot-scale --snapshot-scaling --snapshot-size --snapshot-view " --snap
complete_is "--summary " --sum
complete_is "in.l3d inside.rle3 " -o i
complete_is "in.l3d inside.rle3 " --log i
complete_is "dir " -c d
complete_is "in.l3d inside.rle3 " -n 4 i
complete_is " " --threads ""
complete_is " " -r ""
complete_is "census " cen
complete_is "--engine " census --en
complete_is "auto cpu cuda " census --engine ""
complete_is "in.l3d inside.rle3 " census -o i
complete_is " " census --root ""
# Every option of --help is offered.
"$LIFE3D" --help | grep -E -o -- '(^|[ ,])--[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u | tr '\n' ' ' >all
complete_is "$(cat all)" --
# The probes ran nothing: no file made here.
ls >after
[ "$(cat after | tr '\n' ' ')" = "after all dir in.l3d inside.rle3 " ] && ok ||
	fail "files appeared: $(cat after | tr '\n' ' ')"
finish
