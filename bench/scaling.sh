#!/bin/sh
# scaling.sh BINDIR OUTDIR: the scaling benchmarks at 1, 2, 4, 8 and 16
# workers, from test binaries built in advance, for a machine with many
# cores and no Go toolchain. Build the binaries where Go is installed:
#
#	bench/build-scaling.sh BINDIR      (go test -c for bench, fork and the root package)
#
# then copy BINDIR over and run `sh scaling.sh BINDIR OUTDIR`. Every step has
# a time limit, so the whole run takes under 6 minutes whatever the machine;
# a step cut short keeps the lines it printed. Compare with benchstat where
# Go is available:
#
#	benchstat -col /gomaxprocs OUTDIR/spicetree.txt
#
# SCALING_CPUS overrides the worker counts (default 1,2,4,8,16);
# SCALING_SMOKE=1 runs every step once, small (-test.short, one iteration),
# to check the script and the binaries, not to measure.
set -u
bin=${1:?usage: scaling.sh BINDIR OUTDIR}
out=${2:?usage: scaling.sh BINDIR OUTDIR}
cpus=${SCALING_CPUS:-1,2,4,8,16}
smoke=
if [ -n "${SCALING_SMOKE:-}" ]; then
	smoke="-test.short -test.benchtime 1x -test.count 1"
fi
mkdir -p "$out"
for b in bench.test fork.test spindle.test; do
	if [ ! -x "$bin/$b" ]; then
		echo "scaling.sh: $bin/$b missing: run build-scaling.sh first" >&2
		exit 2
	fi
done

# step NAME SECONDS BINARY ARGS...: one benchmark run, limited in time.
step() {
	name=$1 limit=$2 b=$3
	shift 3
	echo "== $name (at most ${limit}s)" >&2
	{
		echo "# $(date -u +%FT%TZ) $b $*"
		echo "# nproc $(nproc 2>/dev/null || echo ?), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
		timeout -s INT "$limit" "$bin/$b" -test.run '^$' -test.cpu "$cpus" "$@" $smoke
		rc=$?
		[ $rc -eq 0 ] || echo "# step ended with status $rc (124 or 130: time limit)"
	} >"$out/$name.txt" 2>&1
}

# Spice's method: plain recursion, fork on 1 and 2 workers and on
# GOMAXPROCS (= -test.cpu) workers, 1023 to 2^24 nodes.
step spicetree 110 bench.test -test.bench 'SpiceTree' -test.benchtime 8x -test.count 1
# The classic programs, fork against plain Go (the goroutine versions take
# seconds per run at fib 30 and are measured on 2 cores in BENCHMARKS.md).
step classic 80 bench.test -test.bench 'Classic/prog=(fib-35|nqueens-12|skynet-1M|matmul-512)/impl=(plain|fork)' -test.benchtime 3x -test.count 2
# Executor injection, fork tree and sort, flow graphs on GOMAXPROCS workers.
step scaling 80 bench.test -test.bench 'Scaling' -test.benchtime 5x -test.count 2
# The executor against a channel-fed pool, 2 workers as in the figure, and
# the same at GOMAXPROCS.
step inject 50 spindle.test -test.bench 'InjectBatch' -test.benchtime 5x -test.count 2
# Sort, Map, Each and Sum on 1 and 2 workers (fixed sizes; -cpu sets GOMAXPROCS).
step slices 40 fork.test -test.bench 'Sort|Map|Each|SliceSum' -test.benchtime 3x -test.count 1
echo "results in $out" >&2
