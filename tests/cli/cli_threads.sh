#!/bin/sh
# cli_threads.sh - how many CPU threads a run keeps: --threads, else
# OMP_NUM_THREADS, else SLURM_CPUS_PER_TASK, else the affinity mask
# (taskset); -v says which, and the process holds no more threads than
# that while it steps (seen in /proc/PID/status).  A value that is no
# number of threads is passed over with a warning.  The result is the
# same bytes with any count.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99

# source WANT DESCRIPTION -- COMMAND...: -v's line on the threads.
source_is() {
	want=$1 what=$2
	shift 3
	"$@" -v --random 24 -n 2 -o "t.$cases.l3d" >/dev/null 2>src.err </dev/null ||
		{ fail "$what: exit $?: $(cat src.err)"; return; }
	grep -q "^life3d: $want\$" src.err && ok ||
		fail "$what: wanted '$want': $(grep -i thread src.err)"
}
source_is "3 CPU threads, from --threads" "--threads" -- env OMP_NUM_THREADS=2 "$LIFE3D" --threads 3
source_is "2 CPU threads, from OMP_NUM_THREADS" "OMP_NUM_THREADS" -- \
	env OMP_NUM_THREADS=2 SLURM_CPUS_PER_TASK=3 "$LIFE3D"
source_is "4 CPU threads, from OMP_NUM_THREADS" "OMP_NUM_THREADS, a list" -- \
	env OMP_NUM_THREADS=4,2 "$LIFE3D"
source_is "3 CPU threads, from SLURM_CPUS_PER_TASK" "SLURM_CPUS_PER_TASK" -- \
	env -u OMP_NUM_THREADS SLURM_CPUS_PER_TASK=3 "$LIFE3D"
source_is "3 CPU threads, from SLURM_CPUS_PER_TASK" "OMP_NUM_THREADS empty" -- \
	env OMP_NUM_THREADS= SLURM_CPUS_PER_TASK=3 "$LIFE3D"
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	source_is "CPU threads: the 1 CPU of the affinity mask" "taskset -c 0" -- \
		env -u OMP_NUM_THREADS -u SLURM_CPUS_PER_TASK taskset -c 0 "$LIFE3D"
fi
for bad in 0 -2 x 4097 2x; do
	source_is "3 CPU threads, from SLURM_CPUS_PER_TASK" "OMP_NUM_THREADS=$bad" -- \
		env OMP_NUM_THREADS=$bad SLURM_CPUS_PER_TASK=3 "$LIFE3D"
	grep -q "^life3d: warning: OMP_NUM_THREADS: '$bad' is not a whole number of threads from 1 to 4096; passed over\$" \
		src.err && ok || fail "OMP_NUM_THREADS=$bad: no warning: $(cat src.err)"
done
# -q says nothing of it; neither does a run whose --threads decides.
env OMP_NUM_THREADS=x "$LIFE3D" -q --random 8 -n 1 -o q.l3d 2>q.err && [ ! -s q.err ] && ok ||
	fail "-q, OMP_NUM_THREADS=x: $(cat q.err)"
env OMP_NUM_THREADS=x "$LIFE3D" --threads 1 --random 8 -n 1 -o q2.l3d 2>q.err &&
	! grep -q warning q.err && ok || fail "--threads 1, OMP_NUM_THREADS=x: $(cat q.err)"

# The threads a stepping run of the CPU engine holds: its engine's, and no
# others (the most seen in a second of stepping, once the engine is made;
# the CUDA runtime starts threads of its own).
held() {  # WANT DESCRIPTION -- COMMAND...
	want=$1 what=$2
	shift 3
	LIFE3D_SKIP=0 "$@" -q --engine cpu --random 48 -n 100000000000 -o /dev/null 2>held.err &
	pid=$!
	sleep 0.5
	most=0
	for _ in $(seq 20); do
		n=$(sed -n 's/^Threads:[[:space:]]*//p' /proc/$pid/status 2>/dev/null)
		[ -n "$n" ] && [ "$n" -gt "$most" ] && most=$n
		sleep 0.05
	done
	kill -TERM $pid 2>/dev/null
	wait $pid
	[ "$most" = "$want" ] && ok || fail "$what: $most threads held, wanted $want"
}
held 1 "--threads 1" -- env OMP_NUM_THREADS=8 "$LIFE3D" --threads 1
held 2 "OMP_NUM_THREADS=2" -- env OMP_NUM_THREADS=2 "$LIFE3D"
held 3 "SLURM_CPUS_PER_TASK=3" -- env -u OMP_NUM_THREADS SLURM_CPUS_PER_TASK=3 "$LIFE3D"

# The same universe with any count.
for t in 1 2 5; do
	OMP_NUM_THREADS=$t "$LIFE3D" -q --random 40 --seed 7 -n 9 -o same.$t.rle3 ||
		fail "OMP_NUM_THREADS=$t: exit $?"
done
expect_same same.1.rle3 same.2.rle3 "1 and 2 threads"
expect_same same.1.rle3 same.5.rle3 "1 and 5 threads"

# The census too: its workers, and its haul the same.
for t in 1 3; do
	OMP_NUM_THREADS=$t "$LIFE3D" census -q -n 12 -s 8 -o haul.$t.tsv ||
		fail "census, OMP_NUM_THREADS=$t: exit $?"
done
expect_same haul.1.tsv haul.3.tsv "census haul, 1 and 3 threads"
finish
