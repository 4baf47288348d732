package fork_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/spindle-go/spindle/fork"
)

// The benchmarks compare each workload written as plain sequential code
// with the same code under a Pool of 1 and 2 workers. The acceptance ratios
// are between sub-benchmarks of one run:
//
//	go test -run '^$' -bench 'TreeSum|For|Reduce' -count 5 ./fork
//
// ns/node and ns/elem are the figures to compare. BenchmarkTreeSum names
// its runs run=plain, run=1worker and run=2workers, so that
// `benchstat -col /run` sets them side by side. Built with -tags
// forktrace, BenchmarkTreeSum also logs the scheduler's trace of each pool
// run (see traceTree): where the workers' time went.

var sink int

func perItem(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), unit)
}

// treeSizes are BenchmarkTreeSum's trees: 2^20 nodes (24 MiB, about the
// size of a last-level cache), 2^24 (384 MiB, far bigger) and 1023 (a Call
// shorter than a heartbeat). The 2^24 tree takes seconds to build; -short
// leaves it out.
var treeSizes = []int{1<<20 - 1, 1<<24 - 1, 1023}

func BenchmarkTreeSum(b *testing.B) {
	for _, size := range treeSizes {
		if size > 1<<20 && testing.Short() {
			continue
		}
		b.Run(fmt.Sprintf("nodes=%d", size), func(b *testing.B) { benchTree(b, size) })
	}
}

func benchTree(b *testing.B, size int) {
	root := balanced(1, size)
	want := sumSeq(root)
	b.Run("run=plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sink = sumSeq(root)
		}
		perItem(b, size, "ns/node")
	})
	for _, workers := range []int{1, 2} {
		run := "run=1worker"
		if workers > 1 {
			run = fmt.Sprintf("run=%dworkers", workers)
		}
		b.Run(run, func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: workers})
			defer p.Close()
			b.ReportAllocs()
			stop := traceTree(b, p)
			for b.Loop() {
				if got := fork.Call(p, sumFork, root); got != want {
					b.Fatalf("sum = %d, want %d", got, want)
				}
			}
			stop()
			perItem(b, size, "ns/node")
		})
	}
	for _, workers := range []int{1, 2} {
		run := "run=rec-1worker"
		if workers > 1 {
			run = fmt.Sprintf("run=rec-%dworkers", workers)
		}
		b.Run(run, func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: workers})
			defer p.Close()
			b.ReportAllocs()
			stop := traceTree(b, p)
			for b.Loop() {
				if got := fork.Recurse(p, sumRec, root); got != want {
					b.Fatalf("sum = %d, want %d", got, want)
				}
			}
			stop()
			perItem(b, size, "ns/node")
		})
	}
}

// mix is a cheap per-element computation (a few nanoseconds): the body of
// the loop benchmarks.
func mix(i int) uint32 {
	x := uint64(i) * 0x9e3779b97f4a7c15
	x ^= x >> 29
	x *= 0xbf58476d1ce4e5b9
	return uint32(x ^ x>>32)
}

const elems = 10_000_000

// Package-level func values the compiler cannot see through, for the
// "sequential/func" baselines: the same indirect calls For and Reduce make.
var (
	forOut   []uint32
	forBody  = func(_ *fork.Task, i int) { forOut[i] = mix(i) }
	sumLeaf  = mixAt
	sumMerge = plus
)

func BenchmarkFor(b *testing.B) {
	forOut = make([]uint32, elems)
	out, body := forOut, forBody // body: the same work through a func value
	b.Run("sequential/inline", func(b *testing.B) {
		for b.Loop() {
			for i := range out {
				out[i] = mix(i)
			}
		}
		perItem(b, elems, "ns/elem")
	})
	b.Run("sequential/func", func(b *testing.B) {
		// The same body through a func value, as For calls it.
		for b.Loop() {
			for i := range out {
				body(nil, i)
			}
		}
		perItem(b, elems, "ns/elem")
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: workers})
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				fork.Call(p, func(t *fork.Task, _ int) int {
					// The body as users write it, a literal: For inlines
					// into this function, and the body into For's loop.
					fork.For(t, 0, elems, func(_ *fork.Task, i int) { out[i] = mix(i) })
					return 0
				}, 0)
			}
			perItem(b, elems, "ns/elem")
		})
	}
}

func mixAt(_ *fork.Task, i int) int { return int(mix(i)) }
func plus(a, b int) int             { return a + b }

func BenchmarkReduce(b *testing.B) {
	want := 0
	for i := range elems {
		want += int(mix(i))
	}
	b.Run("sequential/inline", func(b *testing.B) {
		for b.Loop() {
			s := 0
			for i := range elems {
				s += int(mix(i))
			}
			sink = s
		}
		perItem(b, elems, "ns/elem")
	})
	b.Run("sequential/func", func(b *testing.B) {
		leaf, merge := sumLeaf, sumMerge
		for b.Loop() {
			s := 0
			for i := range elems {
				s = merge(s, leaf(nil, i))
			}
			sink = s
		}
		perItem(b, elems, "ns/elem")
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: workers})
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				got := fork.Call(p, func(t *fork.Task, _ int) int {
					return fork.Reduce(t, 0, elems, 0, sumLeaf, sumMerge)
				}, 0)
				if got != want {
					b.Fatalf("got %d, want %d", got, want)
				}
			}
			perItem(b, elems, "ns/elem")
		})
	}
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// BenchmarkJoin2 measures Join2 at every call of fib(30): closures that
// capture n cost an allocation per Join2, reported by allocs/op.
func BenchmarkJoin2(b *testing.B) {
	const n = 30
	calls := 2*fibSeq(n+1) - 1
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			sink = fibSeq(n)
		}
		perItem(b, calls, "ns/call")
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: workers})
			defer p.Close()
			b.ReportAllocs()
			for b.Loop() {
				sink = fork.Call(p, fib, n)
			}
			perItem(b, calls, "ns/call")
		})
	}
}

// BenchmarkHeartbeat shows the trade-off Config.Heartbeat sets, on the
// large tree with 2 workers.
func BenchmarkHeartbeat(b *testing.B) {
	root := balanced(1, 1<<20-1)
	for _, hb := range []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond} {
		b.Run(fmt.Sprint(hb), func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: 2, Heartbeat: hb})
			defer p.Close()
			for b.Loop() {
				sink = fork.Call(p, sumFork, root)
			}
			perItem(b, 1<<20-1, "ns/node")
		})
	}
}
