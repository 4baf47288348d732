// Package bench holds Spindle's cross-library benchmarks: the same workloads
// run on spindle, fork and flow and on plain goroutines, errgroup, conc, pond
// and ants. It is its own module so the core module's dependency list stays
// the standard library and golang.org/x/sys; `replace` points it at the
// checkout above.
//
// Run: cd bench && go test -run '^$' -bench . -count 5 | tee new.txt
//
// BenchmarkScaling sizes every pool by GOMAXPROCS, so that one command
// gives the scaling table of the executor, fork (tree and sort) and flow:
//
//	go test -run '^$' -bench Scaling -cpu 1,2,4,8,16 -count 10 . | tee scaling.txt
//
// BenchmarkClassic runs the classic fork/join programs (fib, nqueens,
// skynet, matmul, from internal/classic) as plain Go, a goroutine and
// WaitGroup per fork, an errgroup per fork, a channel-fed pool and fork on
// 1, 2 and GOMAXPROCS workers; BenchmarkSpiceTree is Spice's method (plain
// recursion against fork on 1 and N workers, 1023 to 2^24 nodes):
//
//	go test -run '^$' -bench 'Classic|SpiceTree' -cpu 2 -count 6 . > classic.txt
//	benchstat -col /impl classic.txt
//
// For a machine with many cores and no Go toolchain, build-scaling.sh
// builds the test binaries and scaling.sh runs them at 1, 2, 4, 8 and 16
// workers in under 6 minutes (see BENCHMARKS.md for the plan).
//
// Times depend on what else the machine runs; instruction counts do not.
// icount/icount.sh counts, with callgrind, the instructions per node of the
// fork tree walks, per injected task and per sorted element.
package bench
