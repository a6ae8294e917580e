#!/bin/sh
# The examples in life3d(1) and life3d-census(1) work as printed.  Every
# .EX/.EE block of their EXAMPLES sections is unescaped from roff and run
# by sh in a directory of its own that holds the inputs the examples name
# (in.bin, ship.rle3, glider.rle, nightly.conf), with `life3d` on PATH standing for
# $LIFE3D.  A block passes when sh exits 0, every life3d it started exited
# 0 (75 when it was given --max-time: stopped cleanly), and every file it
# named as output (-o, --log, the checkpoint of a stopped run) reads back:
# universes with life3d itself, exports by their header, logs by theirs,
# hauls by life3d census --merge.  An example that writes no file must
# print something.
#
# What cannot run here is said in the output and checked as far as it can:
#   - a crontab line: the command cron would run, without the schedule and
#     its `cd DIR &&` (the block's directory stands for DIR);
#   - scripts/plot-log: the source tree's, in the block's scripts/; without
#     gnuplot a stand-in that checks its input is a log;
#   - ffmpeg (no dependency of life3d): where it is missing, a stand-in
#     that checks its -i pattern names PNG files and says how many;
#   - tail -f or -F, srun, mpirun: the block runs "dry": life3d's steps are cut to
#     2 and --random to 32 (with --max-time: the time to 1 s, --random 256
#     on one CPU thread, so the run is really stopped and its checkpoint
#     resumed); tail -f or -F prints the file once the runs started before it end;
#     srun's own --options are dropped; mpirun runs its ranks with the local
#     mpirun when there is one and life3d has MPI, else one process.
. "$(dirname "$0")/lib.sh"
cd "$T" || exit 99
for tool in awk sed grep; do
	command -v "$tool" >/dev/null 2>&1 || { echo "$name: $tool not found: skipped"; exit 77; }
done
limit=""
command -v timeout >/dev/null 2>&1 && limit="timeout 300"

# life3d as the examples call it.
mkdir -p bin fixtures || exit 99
cat >bin/life3d <<WRAP
#!/bin/sh
LIFE3D="$LIFE3D"
WRAP
cat >>bin/life3d <<'WRAP'
stoppable=0
case " $* " in *" --max-time "*) stoppable=1 ;; esac
if [ "${EX_DRY:-0}" = 1 ]; then
	prev=""
	for a do
		shift
		orig=$a
		case $prev in
		-n | --steps | --until) [ "$stoppable" = 1 ] || a=2 ;;
		--random) if [ "$stoppable" = 1 ]; then a=256; else a=32; fi ;;
		--max-time) a=1 ;;
		esac
		set -- "$@" "$a"
		prev=$orig
	done
	# a run that must outlast --max-time steps densely: a settled soup
	# would finish its steps at once
	[ "$stoppable" = 1 ] && set -- --engine cpu --threads 1 "$@" && export LIFE3D_SKIP=0
fi
"$LIFE3D" "$@"
rc=$?
out="" log="" ckpt="" fmt="" prev=""
for a do
	case $prev in
	-o | --output) out=$a ;;
	--log) log=$a ;;
	--checkpoint) ckpt=$a ;;
	--format) fmt=$a ;;
	esac
	case $a in
	--output=*) out=${a#*=} ;;
	--log=*) log=${a#*=} ;;
	--checkpoint=*) ckpt=${a#*=} ;;
	--format=*) fmt=${a#*=} ;;
	esac
	prev=$a
done
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
good=0
[ "$rc" = 0 ] && good=1
[ "$rc" = 75 ] && [ "$stoppable" = 1 ] && good=1
echo "$good exit $rc: life3d $*" >>"$EX_DIR/.runs"
if [ "$good" = 1 ]; then
	kind=universe
	[ "${1:-}" = census ] && case " $* " in *" --soup "*) ;; *) kind=haul ;; esac
	case $out in "" | - | /dev/null) ;; *)
		[ "$rc" = 0 ] && echo "$kind ${fmt:-.} $(abs "$out")" >>"$EX_DIR/.outputs" ;;
	esac
	[ "$rc" = 75 ] && echo "checkpoint l3d $(abs "${ckpt:-$out.ckpt.l3d}")" >>"$EX_DIR/.outputs"
	case $log in "" | - | /dev/null) ;; *) echo "log . $(abs "$log")" >>"$EX_DIR/.outputs" ;; esac
fi
exit "$rc"
WRAP
chmod +x bin/life3d || exit 99

# Stand-ins for what a test cannot run, defined in every example's shell.
mpi=0
if command -v mpirun >/dev/null 2>&1 && "$LIFE3D" --version | grep -q '^mpi: built in'; then
	mpi=1
fi
cat >prelude.sh <<PRE
mpi=$mpi
PRE
cat >>prelude.sh <<'PRE'
tail() {
	if [ "$1" = -f ] || [ "$1" = -F ]; then
		shift
		wait
	fi
	command tail "$@"
}
if ! command -v ffmpeg >/dev/null 2>&1; then
ffmpeg() {
	pattern=""
	while [ $# -gt 0 ]; do
		[ "$1" = -i ] && pattern=$2
		shift
	done
	n=0
	for f in $pattern; do
		head -c 8 "$f" | grep -q PNG || { echo "ffmpeg stand-in: $f is not a PNG" >&2; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "ffmpeg stand-in: no file matches $pattern" >&2; return 1; }
	echo "ffmpeg not here: $n PNG frames would make the video"
}
fi
srun() {
	while [ $# -gt 0 ]; do case $1 in --*=*) shift ;; *) break ;; esac; done
	"$@"
}
mpirun() {
	np=1
	while [ $# -gt 0 ]; do
		case $1 in
		-np | -n) np=$2; shift 2 ;;
		-*) shift ;;
		*) break ;;
		esac
	done
	if [ "$mpi" = 1 ]; then
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_btl_vader_single_copy_mechanism=none \
			command mpirun --oversubscribe -np "$np" "$@"
	else
		"$@"
	fi
}
PRE

# The inputs the examples name.
(
	cd fixtures &&
	"$LIFE3D" -q --random 16 --seed 3 -n 0 -o in.bin &&
	cp "$SRCDIR/tests/data/golly-spaceship.rle3" ship.rle3 &&
	printf '#N Glider\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n' >glider.rle &&
	mkdir -p scripts &&
	if command -v gnuplot >/dev/null 2>&1; then
		cp "$SRCDIR/scripts/plot-log" scripts/plot-log
	else
		printf '%s\n' '#!/bin/sh' 'head -n 1 | grep -q "^step	population	births	deaths$" &&' \
			'echo "gnuplot not here: a log to plot"' >scripts/plot-log
	fi && chmod +x scripts/plot-log &&
	cat >nightly.conf <<'CONF'
# A small nightly run.
random = "48";
seed = 20240101;
steps = 50;
rule = "B5/S45";
log = "night.tsv";
CONF
) || { echo "$name: cannot make the examples' inputs"; exit 99; }

# The EXAMPLES sections' blocks, one file each, and the page and line each
# starts at.
mkdir -p blocks || exit 99
for pg in life3d.1 life3d-census.1; do
	awk -v dir=blocks -v n="$(ls blocks | grep -c '\.line$')" -v pg="$pg" '
	/^\.SH/ { insec = ($0 ~ /^\.SH[ \t]+"?EXAMPLES"?[ \t]*$/); next }
	insec && /^\.EX/ { inex = 1; n++; print pg " line " NR + 1 >(dir "/" n ".line"); close(dir "/" n ".line"); next }
	insec && /^\.EE/ { inex = 0; close(dir "/" n ".roff"); next }
	inex { print >(dir "/" n ".roff") }
	' "$SRCDIR/man/$pg" || exit 99
done

unroff() {
	sed -e 's/\\e/@BS@/g' -e 's/\\(rs/@BS@/g' -e 's/\\-/-/g' \
	    -e "s/\\\\(aq/'/g" -e 's/\\(ha/^/g' -e 's/\\(ti/~/g' \
	    -e 's/\\(dq/"/g' -e 's/\\(ga/`/g' -e 's/\\&//g' \
	    -e 's/\\f[BIRP]//g' -e 's/\\ / /g' "$1"
}
# KIND FORMAT FILE: a log by its header, exports by theirs, universes with
# life3d (its message in $T/readback).
reads_back() {
	rm -f "$T/readback"
	case $1:$2 in
	log:*) grep -v '^#' "$3" | head -n 1 | grep -q '^step	' ;;
	haul:*) "$LIFE3D" census --merge "$3" -o /dev/null 2>"$T/readback" ;;
	*:vtk) head -n 1 "$3" | grep -q '^# vtk DataFile' ;;
	*:vti) head -c 64 "$3" | grep -q '<VTKFile type="ImageData"' ;;
	*:vtp) head -c 64 "$3" | grep -q '<VTKFile type="PolyData"' ;;
	*:npy) head -c 6 "$3" | grep -q 'NUMPY' ;;
	*) "$LIFE3D" -q -n 0 -o /dev/null "$3" 2>"$T/readback" ;;
	esac
}
sched='[0-9*/,-]\{1,\}[ 	]\{1,\}'
cron="^$sched$sched$sched$sched$sched"

n=1
while [ -f "blocks/$n.roff" ]; do
	line=$(cat "blocks/$n.line")
	what="example $n ($line)"
	dir="$T/ex$n"
	mkdir -p "$dir" && cp -R fixtures/. "$dir/" || exit 99
	unroff "blocks/$n.roff" >"$dir/.roff-out"
	if grep -n '\\' "$dir/.roff-out" >"$dir/.bad" || grep -n '^\.' "$dir/.roff-out" >>"$dir/.bad"; then
		fail "$what: roff this test does not unescape: $(head -n 1 "$dir/.bad")"
		n=$((n + 1))
		continue
	fi
	sed 's/@BS@/\\/g' "$dir/.roff-out" >"$dir/.block"
	echo "$what: $(head -n 1 "$dir/.block")"
	dry=0
	why=""
	if grep -q "$cron" "$dir/.block"; then
		why="$why; a crontab line: its command run as cron would, less the schedule and cd"
		sed -e "s#$cron##" -e 's#^cd [^ ;&|]* && ##' "$dir/.block" >"$dir/.cron" &&
			mv "$dir/.cron" "$dir/.block"
	fi
	if grep -q 'tail -[fF]' "$dir/.block"; then
		dry=1 why="$why; tail -f never ends"
	fi
	if grep -q '^srun ' "$dir/.block"; then
		dry=1 why="$why; a Slurm job, hours long"
	fi
	if grep -q '^mpirun ' "$dir/.block"; then
		if [ "$mpi" = 1 ]; then
			dry=1 why="$why; hours long here; the ranks run under the local mpirun"
		else
			dry=1 why="$why; hours long; no mpirun or no MPI in life3d: one process stands for the ranks"
		fi
	fi
	{ cat prelude.sh; cat "$dir/.block"; printf '%s\n' '__rc=$?' 'wait' 'exit $__rc'; } >"$dir/.example.sh"
	( cd "$dir" && PATH="$T/bin:$PATH" EX_DIR="$dir" EX_DRY=$dry \
		$limit sh .example.sh >.stdout 2>.stderr </dev/null )
	rc=$?
	why=${why#; }
	if [ "$dry" = 1 ]; then
		echo "  not run as written: $why; run dry:"
	elif [ -n "$why" ]; then
		echo "  run: $why:"
	else
		echo "  run as written:"
	fi
	[ -f "$dir/.runs" ] && awk '!seen[$0]++ { sub(/^[01] /, "    "); print }' "$dir/.runs"
	# A block may end as its last run did: stopped by --max-time (75).
	if [ "$rc" -eq 75 ] && tail -n 1 "$dir/.runs" 2>/dev/null | grep -q '^1 exit 75:'; then
		rc=0
	fi
	if [ "$rc" -ne 0 ]; then
		fail "$what: exit $rc; stderr: $(head -c 300 "$dir/.stderr")"
	elif [ ! -s "$dir/.runs" ]; then
		fail "$what: ran no life3d"
	elif grep -q '^0 ' "$dir/.runs"; then
		fail "$what: $(grep '^0 ' "$dir/.runs" | head -n 1 | cut -c3-); stderr: $(head -c 300 "$dir/.stderr")"
	else
		ok
	fi
	if [ -s "$dir/.outputs" ]; then
		sort -u "$dir/.outputs" >"$dir/.files"
		while read -r kind fmt file; do
			[ "$fmt" = . ] && fmt=${file##*.}
			if [ ! -s "$file" ]; then
				fail "$what: its $kind $file is missing or empty"
				continue
			fi
			if reads_back "$kind" "$fmt" "$file"; then
				ok
			else
				fail "$what: its $kind $file does not read back $(head -c 200 "$T/readback" 2>/dev/null)"
			fi
		done <"$dir/.files"
	elif [ "$rc" -eq 0 ]; then
		if [ -s "$dir/.stdout" ]; then ok; else fail "$what: wrote no file and printed nothing"; fi
	fi
	n=$((n + 1))
done
[ "$n" -gt 1 ] && ok || fail "no .EX blocks in the EXAMPLES sections"
finish
