#!/bin/sh
# cli_memory.sh - what a run will hold, counted before its first step
# against the limits the process really has (here ulimit -v): a run that
# would run out of memory half-way is refused at once, with the figures
# and the limit; a picture that runs out later (prlimit shrinks the
# limit) keeps the generation in the checkpoint and names its file.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
# The sanitizers and valgrind reserve address space of their own.
if [ -n "${LIFE3D_VALGRIND:-}" ] || [ "${LIFE3D_SANITIZERS:-no}" = yes ]; then
	echo "address space limits: skipped under the sanitizers and valgrind"
	finish
fi
# limited KIB [NAME=VALUE...] COMMAND...: under ulimit -v KIB (and the
# environment given), never hanging.
limited() {
	kib=$1; shift
	timeout 60 sh -c 'ulimit -v "$1"; shift; exec env "$@"' sh "$kib" "$@"
}

# A tiny run needs a few tens of MiB of address space: these limits let
# life3d start and take its universe.
expect_exit 0 "a small run under 200 MB of address space" -- \
	limited 200000 "$LIFE3D" -q --random 32 -n 2 -o small.l3d

# A few bytes that claim a 4096^3 universe (8 GiB) are refused at once,
# naming the file and the limit, before the universe is touched.
printf '3D version=1\nx=4096 y=4096 z=4096 rule=3D4,7/5,8\no!\n' >claim.rle3
expect_exit 1 "4096^3 claim in a few bytes" -- \
	limited 2000000 "$LIFE3D" -q -n 1 -o out.l3d claim.rle3
expect_err_line "claim.rle3: a 4096x4096x4096 universe needs 8192.0 MiB of memory; only [0-9.]* MiB is available (ulimit -v, RLIMIT_AS)" \
	"4096^3 claim: message"
expect_absent out.l3d "4096^3 claim"

# A universe that fits with the engine's two buffers but not with the
# tiles of skipping (6000x6000x1: 274.7 MiB a universe, 98.7 MiB of
# tiles; the input's copy goes before the second buffer comes) is refused
# before the first step, with the figures: no log begun, no checkpoint.
expect_exit 1 "tiles that do not fit" -- limited 655360 "$LIFE3D" -q --engine cpu \
	--random 6000x6000x1 -n 5 --log tiles.tsv --checkpoint tiles.ckpt.l3d -o out.l3d
expect_err_line "^life3d: --random: a run of its 6000x6000x1 universe (the CPU engine's buffers 549.3 MiB and tiles 98.7 MiB, .* needs [0-9.]* MiB of memory.*; only [0-9.]* MiB is available (ulimit -v, RLIMIT_AS)" \
	"tiles that do not fit: message"
for f in out.l3d tiles.tsv tiles.ckpt.l3d; do expect_absent $f "tiles that do not fit"; done

# Pictures whose threads' stacks and malloc arenas do not fit in the
# address space left (at least two threads of 72 MiB each, on one core)
# are refused before the first step with status 64, as a picture too
# large is, where they used to fail half-way.
expect_exit 64 "pictures that do not fit" -- limited 200000 "$LIFE3D" -q --random 400 -n 10 \
	--snapshot-every 1 --snapshot-prefix pic- --checkpoint pic.ckpt.l3d -o out.l3d
expect_err_line "^life3d: --random: a run of its 400x400x400 universe .*projection snapshots [0-9.]* MiB.* needs [0-9.]* MiB of memory and [0-9.]* MiB of address space for its threads' stacks and malloc arenas; only [0-9.]* MiB is available (ulimit -v, RLIMIT_AS) (snapshots: lower --snapshot-size, --snapshot-scale or --threads)" \
	"pictures that do not fit: message"
for f in out.l3d pic-000000.png pic.ckpt.l3d; do expect_absent $f "pictures that do not fit"; done

# The address space left shrinks once the run has begun (prlimit lowers
# it below what the run maps): the next picture, a render drawn from a
# copy of the universe, cannot have its copy.  Its file is named, the
# generation reached is kept in the checkpoint, and the run ends with
# status 1, where it used to end with nothing kept.
if command -v prlimit >/dev/null 2>&1; then
	"$LIFE3D" -q --engine cpu --random 400 -n 100000 --snapshot-every 1 \
		--snapshot-kind render --snapshot-size 64 --snapshot-prefix shrunk- \
		--checkpoint shrunk.ckpt.l3d -o shrunk.l3d 2>"$T/err" &
	pid=$!
	( sleep 60; kill $pid ) >/dev/null 2>&1 &
	watchdog=$!
	i=0
	while [ ! -e shrunk-000001.png ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	kib=$(awk '/^VmSize:/ { print $2 }' /proc/$pid/status)
	prlimit --pid $pid --as=$(((kib - 12000) * 1024))
	wait $pid
	got=$?
	kill $watchdog 2>/dev/null
	[ "$got" -eq 1 ] && ok || fail "picture out of memory: exit $got, expected 1: $(head -c 300 "$T/err")"
	expect_err_line "^life3d: shrunk-[0-9]*\.png: a 400x400x400 universe needs [0-9.]* MiB of memory; only [0-9.]* MiB is available (ulimit -v, RLIMIT_AS); generation [0-9]* is kept in the checkpoint shrunk.ckpt.l3d" \
		"picture out of memory: message"
	expect_exit 0 "picture out of memory: the checkpoint resumes" -- \
		timeout 60 "$LIFE3D" -q -n 1 -o resumed.l3d shrunk.ckpt.l3d
fi

# Over MPI each rank counts its own slab, and rank 0 with it what it takes
# later: here the whole universe it gathers to write an RLE3 result (a .l3d
# is written by every rank at once).  Under a limit that the slab fits
# and the slab with the gathered universe does not, the RLE3 run is
# refused before its first step, with no file left; the .l3d run ends.
# The limit is the address space a rank maps at that point (read from
# the figure a first refusal gives) and a margin between the two needs.
if "$LIFE3D" --version | grep -q '^mpi: built in' && command -v mpirun >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
	ranks() {  # KIB life3d arguments: 2 ranks, each under ulimit -v KIB
		kib=$1; shift
		timeout 120 mpirun --oversubscribe -np 2 sh -c 'ulimit -v "$0"; exec "$@"' \
			"$kib" "$LIFE3D" "$@"
	}
	left="" probe=""
	for probe in 250000 300000 350000 400000 450000 500000; do
		ranks "$probe" -q --engine cpu --random 768 -n 1 -o probe.rle3 2>"$T/err"
		left=$(sed -n 's/.*the slab engine.*only \([0-9]*\)\.[0-9] MiB is available.*/\1/p' \
			"$T/err" | head -n 1)
		[ -z "$left" ] || break
	done
	if [ -n "$left" ]; then
		# a rank maps (probe KiB - left) at its check; a slab of 768^3 over
		# two ranks takes about 55 MiB, the gathered universe 54 MiB more
		kib=$((probe - left * 1024 + 85 * 1024))
		ranks "$kib" -q --engine cpu --random 768 -n 1 -o gathered.rle3 2>"$T/err"
		got=$?
		[ "$got" -eq 1 ] && ok || fail "MPI: gathered result: exit $got, expected 1: $(head -c 300 "$T/err")"
		# (mpirun adds lines of its own about the status)
		[ "$(grep -c '^life3d:' "$T/err")" -eq 1 ] &&
			grep -q "^life3d: the slab engine for a 768x768x768 universe (2 ranks on this node) and the pictures or the result rank 0 gathers needs [0-9.]* MiB of memory; only [0-9.]* MiB is available (ulimit -v, RLIMIT_AS)$" "$T/err" &&
			ok || fail "MPI: the gathered result counted before the first step: $(head -c 300 "$T/err")"
		[ ! -e gathered.rle3 ] && ok || fail "MPI: refused run: no result"
		expect_exit 0 "MPI: a .l3d result under the same limit" -- \
			ranks "$kib" -q --engine cpu --random 768 -n 1 -o slabs.l3d
	else
		fail "MPI: no figure to set the limit from: $(head -c 300 "$T/err")"
	fi
fi

finish
