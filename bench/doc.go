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
// Times depend on what else the machine runs; instruction counts do not.
// icount/icount.sh counts, with callgrind, the instructions per node of the
// fork tree walks, per injected task and per sorted element.
package bench
