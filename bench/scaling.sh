#!/bin/sh
# scaling.sh BINDIR OUTDIR: the scaling benchmarks at 1, 2, 4, 8 and 16
# workers, from test binaries built in advance, for a machine with many
# cores and no Go toolchain. Build the binaries where Go is installed:
#
#	bench/build-scaling.sh BINDIR      (go test -c for bench, fork and the root package)
#
# then copy BINDIR over and run `sh scaling.sh BINDIR OUTDIR`. Every step has
# a time limit, so the whole run takes under 6 minutes (335 s of limits) whatever the machine;
# a step cut short keeps the lines it printed. Compare with benchstat where
# Go is available:
#
#	benchstat -col /gomaxprocs OUTDIR/spicetree.txt
#
# It starts with the 2-worker figures of issue 32, pinned to two cores
# with `taskset -c 0,1` where taskset exists, at -test.cpu 1,2 (pair-*.txt):
# the tree at 2^20 and 2^24 nodes and fib(35) against plain recursion, Sort,
# Map, Each and Sum, and injection against a channel-fed pool:
#
#	benchstat -col /impl OUTDIR/pair-tree.txt OUTDIR/pair-fib.txt OUTDIR/pair-inject.txt
#
# SCALING_CPUS overrides the worker counts of the rest (default 1,2,4,8,16);
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

# step NAME SECONDS BINARY ARGS...: one benchmark run, limited in time, at
# -test.cpu $stepcpus, under $pin (empty, or taskset).
pin= stepcpus=
step() {
	name=$1 limit=$2 b=$3
	shift 3
	echo "== $name (at most ${limit}s)" >&2
	{
		echo "# $(date -u +%FT%TZ) $pin $b $*"
		echo "# nproc $(nproc 2>/dev/null || echo ?), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
		timeout -s INT "$limit" $pin "$bin/$b" -test.run '^$' -test.cpu "$stepcpus" "$@" $smoke
		rc=$?
		[ $rc -eq 0 ] || echo "# step ended with status $rc (124 or 130: time limit)"
	} >"$out/$name.txt" 2>&1
}

# The 2-worker figures, on two cores: taskset pins the process (and so
# GOMAXPROCS's threads) to CPUs 0 and 1; -test.cpu 1,2 gives each figure on
# one and on two processors. Fork's runs are named by their worker count
# (fork-rec-1w, fork-rec-2w; fork-1worker, fork-2workers).
if command -v taskset >/dev/null 2>&1; then
	pin="taskset -c 0,1"
fi
stepcpus=1,2
step pair-tree 55 bench.test -test.bench 'SpiceTree/nodes=(1048575|16777215)/impl=(plain|fork-rec-1w|fork-rec-2w)$' -test.benchtime 5x -test.count 3
step pair-fib 30 bench.test -test.bench 'Classic/prog=fib-35/impl=(plain|fork-1worker|fork-2workers)$' -test.benchtime 5x -test.count 3
step pair-slices 35 fork.test -test.bench 'Sort|Map|Each|SliceSum' -test.benchtime 2x -test.count 1
step pair-inject 20 spindle.test -test.bench 'InjectBatch/impl=(spindle|channel-pool)$' -test.benchtime 5x -test.count 3
pin= stepcpus=$cpus

# Spice's method: plain recursion, fork on 1 and 2 workers and on
# GOMAXPROCS (= -test.cpu) workers, 1023 to 2^24 nodes.
step spicetree 70 bench.test -test.bench 'SpiceTree' -test.benchtime 8x -test.count 1
# The classic programs, fork against plain Go (the goroutine versions take
# seconds per run at fib 30 and are measured on 2 cores in BENCHMARKS.md).
step classic 50 bench.test -test.bench 'Classic/prog=(fib-35|nqueens-12|skynet-1M|matmul-512)/impl=(plain|fork)' -test.benchtime 3x -test.count 2
# Executor injection, fork tree and sort, flow graphs on GOMAXPROCS workers.
step scaling 40 bench.test -test.bench 'Scaling' -test.benchtime 5x -test.count 2
# The executor against a channel-fed pool, 2 workers as in the figure, and
# the same at GOMAXPROCS.
step inject 20 spindle.test -test.bench 'InjectBatch' -test.benchtime 5x -test.count 2
# Sort, Map, Each and Sum on 1 and 2 workers (fixed sizes; -cpu sets GOMAXPROCS).
step slices 15 fork.test -test.bench 'Sort|Map|Each|SliceSum' -test.benchtime 3x -test.count 1
echo "results in $out" >&2
