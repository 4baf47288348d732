package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/flow"
	"github.com/spindle-go/spindle/fork"
	"github.com/spindle-go/spindle/internal/classic"
)

// The workloads of `spindle bench`: the runtime's acceptance figures that compare
// Spindle with what a Go programmer writes without it. Each workload runs
// the same work several ways; the one named by goroutineImpl is the baseline
// the others are compared with. They mirror the testing.B benchmarks beside
// each package (bench_test.go, fork/bench_test.go, flow) so that the command
// and `go test -bench` tell the same story; the command exists so a user can
// see it on their own hardware without the repository's test setup.

// workload is one row group of the bench table.
type workload struct {
	group string // package measured: executor, fork, flow
	name  string // what is done, e.g. "1M tiny tasks, injected"
	unit  string // what ns are per: task, node, hop
	units int    // units per op
	// setup prepares the implementations for workers workers; cleanup
	// releases what they hold (pools, executors).
	setup func(workers int) (impls []impl, cleanup func())
}

// impl is one way to do a workload's op.
type impl struct {
	name string
	op   func() error // one op; an error means a wrong result
}

// goroutineImpl names the baseline implementation in every workload: plain
// goroutines with the synchronisation one would write by hand.
const goroutineImpl = "goroutines"

// benchSink keeps tiny task bodies from being optimised away.
var benchSink atomic.Int64

//go:noinline
func tinyWork(i int) {
	if i == -1 {
		benchSink.Add(1)
	}
}

// workloads returns the workloads at full size, or divided by shrink (a
// power of two ≥ 1) for a quick smoke run.
func workloads(shrink int) []workload {
	inject := (1 << 20) / shrink
	chain := (1 << 20) / shrink
	bigTree := (1<<20)/shrink - 1
	return append([]workload{
		injectWorkload(inject),
		chainWorkload(chain),
		treeWorkload(bigTree),
		treeWorkload(1023),
		wideWorkload(1000),
		hopWorkload(512),
	}, classicWorkloads(shrink)...)
}

// injectWorkload: n tiny independent tasks submitted from one goroutine.
// Spindle takes them in batches of 1024 (SpawnBatch); the alternatives are a
// goroutine per task and a pool of worker goroutines fed by a channel.
func injectWorkload(n int) workload {
	return workload{
		group: "executor", name: fmt.Sprintf("%s tiny tasks, injected", count(n)), unit: "task", units: n,
		setup: func(workers int) ([]impl, func()) {
			batch := make([]int, 1024)
			spindleOp := func() error {
				e := spindle.Start(context.Background(), spindle.Config{Workers: workers},
					func(i int, _ *spindle.Spawner[int]) { tinyWork(i) })
				for sent := 0; sent < n; sent += len(batch) {
					b := batch[:min(len(batch), n-sent)]
					for j := range b {
						b[j] = sent + j
					}
					if err := e.SpawnBatch(b); err != nil {
						return err
					}
				}
				m, err := e.Join()
				if err == nil && m.Total.TasksRun != uint64(n) {
					err = fmt.Errorf("ran %d tasks, want %d", m.Total.TasksRun, n)
				}
				return err
			}
			goroutines := func() error {
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() { tinyWork(i); wg.Done() }()
				}
				wg.Wait()
				return nil
			}
			channelPool := func() error {
				ch := make(chan int, 1024)
				var wg sync.WaitGroup
				for range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range ch {
							tinyWork(i)
						}
					}()
				}
				for i := range n {
					ch <- i
				}
				close(ch)
				wg.Wait()
				return nil
			}
			return []impl{
				{"spindle SpawnBatch", spindleOp},
				{"channel-fed pool", channelPool},
				{goroutineImpl, goroutines},
			}, func() {}
		},
	}
}

// chainWorkload: each task spawns the next (Tokio's chained_spawn) on one
// worker; the baseline is each goroutine starting the next.
func chainWorkload(n int) workload {
	return workload{
		group: "executor", name: fmt.Sprintf("%s chained spawns, 1 worker", count(n)), unit: "task", units: n,
		setup: func(int) ([]impl, func()) {
			end := make(chan struct{}, 1)
			e := spindle.Start(context.Background(), spindle.Config{Workers: 1}, func(k int, w *spindle.Spawner[int]) {
				if k > 1 {
					w.Spawn(k - 1)
				} else {
					end <- struct{}{}
				}
			})
			spindleOp := func() error {
				if err := e.Spawn(n); err != nil {
					return err
				}
				<-end
				return nil
			}
			goroutines := func() error {
				done := make(chan struct{})
				var step func(k int)
				step = func(k int) {
					if k > 1 {
						go step(k - 1)
					} else {
						close(done)
					}
				}
				go step(n)
				<-done
				return nil
			}
			return []impl{
				{"spindle Worker.Spawn", spindleOp},
				{goroutineImpl, goroutines},
			}, func() { e.Join() }
		},
	}
}

// treeWorkload: sum a balanced tree of n nodes, forking at every node with
// two children (Spice's benchmark).
func treeWorkload(n int) workload {
	return workload{
		group: "fork", name: fmt.Sprintf("tree sum, %s nodes", count(n)), unit: "node", units: n,
		setup: func(workers int) ([]impl, func()) {
			root := classic.Balanced(1, n)
			want := n * (n + 1) / 2
			check := func(got int) error {
				if got != want {
					return fmt.Errorf("sum = %d, want %d", got, want)
				}
				return nil
			}
			p := fork.NewPool(fork.Config{Workers: workers})
			return []impl{
				{"fork.Recurse", func() error { return check(fork.Recurse(p, classic.TreeRec, root)) }},
				{"fork.Future", func() error { return check(fork.Call(p, classic.TreeFuture, root)) }},
				{"sequential recursion", func() error { return check(classic.TreeSeq(root)) }},
				{goroutineImpl, func() error { return check(classic.TreeGo(root)) }},
			}, p.Close
		},
	}
}

// classicWorkload: one of the classic fork/join programs (fib, nqueens,
// skynet, matmul; internal/classic), forking at every call, with fork.Frame,
// plain recursion, a goroutine per fork and a channel-fed pool.
func classicWorkload(name, unit string, units, want int, run func(p *fork.Pool, cp *classic.ChanPool) (rec, seq, gor, pool func() int)) workload {
	return workload{
		group: "classic", name: name, unit: unit, units: units,
		setup: func(workers int) ([]impl, func()) {
			p := fork.NewPool(fork.Config{Workers: workers})
			cp := classic.NewChanPool(workers)
			rec, seq, gor, pool := run(p, cp)
			check := func(f func() int) func() error {
				return func() error {
					if got := f(); got != want {
						return fmt.Errorf("%s = %d, want %d", name, got, want)
					}
					return nil
				}
			}
			return []impl{
					{"fork.Recurse", check(rec)},
					{"sequential recursion", check(seq)},
					{goroutineImpl, check(gor)},
					{"channel pool", check(pool)},
				}, func() {
					p.Close()
					cp.Close()
				}
		},
	}
}

// classicWorkloads are the classic programs at sizes where a goroutine per
// fork still finishes in about a second on two cores.
func classicWorkloads(shrink int) []workload {
	fibN, queens, sky, mat := 25, 10, 100_000, 256
	if shrink > 1 {
		fibN, queens, sky, mat = 15, 6, 1000, 64
	}
	board := classic.NewBoard(queens)
	skyRoot := classic.Sky{Size: sky}
	a := classic.NewMat(mat, func(i, j int) float64 { return float64((i*7 + j*3) % 11) })
	b := classic.NewMat(mat, func(i, j int) float64 { return float64((i*5 + j) % 13) })
	c := classic.NewMat(mat, func(int, int) float64 { return 0 })
	ref := classic.NewMat(mat, func(int, int) float64 { return 0 })
	classic.MatSeq(classic.Full(ref, a, b))
	product := func(f func(classic.MM)) func() int {
		return func() int {
			clear(c.V)
			f(classic.Full(c, a, b))
			if !slices.Equal(c.V, ref.V) {
				return -1
			}
			return 0
		}
	}
	blocks := max(1, mat/classic.MatLeaf)
	return []workload{
		classicWorkload(fmt.Sprintf("fib(%d)", fibN), "call", fibCalls(fibN), classic.FibSeq(fibN),
			func(p *fork.Pool, cp *classic.ChanPool) (rec, seq, gor, pool func() int) {
				return func() int { return fork.Recurse(p, classic.FibRec, fibN) },
					func() int { return classic.FibSeq(fibN) },
					func() int { return classic.FibGo(fibN) },
					func() int { return classic.FibPool(cp, fibN) }
			}),
		classicWorkload(fmt.Sprintf("nqueens %d", queens), "node", queensNodes(board), classic.QueensSeq(board),
			func(p *fork.Pool, cp *classic.ChanPool) (rec, seq, gor, pool func() int) {
				return func() int { return fork.Recurse(p, classic.QueensRec, board) },
					func() int { return classic.QueensSeq(board) },
					func() int { return classic.QueensGo(board) },
					func() int { return classic.QueensPool(cp, board) }
			}),
		classicWorkload(fmt.Sprintf("skynet, %s leaves", count(sky)), "leaf", sky, classic.SkynetSum(sky),
			func(p *fork.Pool, cp *classic.ChanPool) (rec, seq, gor, pool func() int) {
				return func() int { return fork.Recurse(p, classic.SkyRec, skyRoot) },
					func() int { return classic.SkySeq(skyRoot) },
					func() int { return classic.SkyGo(skyRoot) },
					func() int { return classic.SkyPool(cp, skyRoot) }
			}),
		classicWorkload(fmt.Sprintf("matmul %d×%d", mat, mat), "block", blocks*blocks*blocks, 0,
			func(p *fork.Pool, cp *classic.ChanPool) (rec, seq, gor, pool func() int) {
				return product(func(m classic.MM) { fork.Recurse(p, classic.MatRec, m) }),
					product(func(m classic.MM) { classic.MatSeq(m) }),
					product(func(m classic.MM) { classic.MatGo(m) }),
					product(func(m classic.MM) { classic.MatPool(cp, m) })
			}),
	}
}

// queensNodes is the number of calls QueensSeq(b) makes.
func queensNodes(b classic.Board) int {
	n := 1
	if b.Row < b.N {
		free := ^(b.Cols | b.D1 | b.D2) & (1<<b.N - 1)
		for ; free != 0; free &= free - 1 {
			bit := free & -free
			n += queensNodes(classic.Board{N: b.N, Row: b.Row + 1, Cols: b.Cols | bit, D1: (b.D1 | bit) << 1, D2: (b.D2 | bit) >> 1})
		}
	}
	return n
}

// fibCalls is the number of calls fib(n) makes.
func fibCalls(n int) int {
	if n < 2 {
		return 1
	}
	return 1 + fibCalls(n-1) + fibCalls(n-2)
}

// wideWorkload: a graph of one source, n independent empty tasks and one
// sink, run again and again; the baseline starts a goroutine per task, each
// waiting for the source's channel and reporting to the sink's WaitGroup.
func wideWorkload(n int) workload {
	return workload{
		group: "flow", name: fmt.Sprintf("wide graph, %s tasks", count(n)), unit: "task", units: n,
		setup: func(workers int) ([]impl, func()) {
			var ran atomic.Int64
			g := flow.New("wide")
			source := g.Add("source", func(context.Context) error { return nil })
			sink := g.Add("sink", func(context.Context) error { return nil })
			for i := range n {
				g.Add(fmt.Sprint("t", i), func(context.Context) error { ran.Add(1); return nil }).
					Succeed(source).Precede(sink)
			}
			ex := flow.NewExecutor(spindle.Config{Workers: workers})
			flowOp := runCounted(ex, g, &ran, n)
			goroutines := func() error {
				start := make(chan struct{})
				var wg sync.WaitGroup
				var count atomic.Int64
				for range n {
					wg.Add(1)
					go func() { <-start; count.Add(1); wg.Done() }()
				}
				close(start)
				wg.Wait()
				if got := count.Load(); got != int64(n) {
					return fmt.Errorf("ran %d tasks, want %d", got, n)
				}
				return nil
			}
			return []impl{
				{"flow.Executor", flowOp},
				{goroutineImpl, goroutines},
			}, ex.Close
		},
	}
}

// hopWorkload: a chain of n tasks, each depending on the one before; the
// baseline is a goroutine per task, each waiting on its predecessor's
// channel.
func hopWorkload(n int) workload {
	return workload{
		group: "flow", name: fmt.Sprintf("chain, %s tasks", count(n)), unit: "hop", units: n,
		setup: func(workers int) ([]impl, func()) {
			var ran atomic.Int64
			g := flow.New("chain")
			var prev *flow.Task
			for i := range n {
				t := g.Add(fmt.Sprint("t", i), func(context.Context) error { ran.Add(1); return nil })
				if prev != nil {
					prev.Precede(t)
				}
				prev = t
			}
			ex := flow.NewExecutor(spindle.Config{Workers: workers})
			flowOp := runCounted(ex, g, &ran, n)
			goroutines := func() error {
				first := make(chan struct{})
				in := first
				var count atomic.Int64
				for range n {
					out := make(chan struct{})
					go func(in <-chan struct{}) { <-in; count.Add(1); close(out) }(in)
					in = out
				}
				close(first)
				<-in
				if got := count.Load(); got != int64(n) {
					return fmt.Errorf("ran %d tasks, want %d", got, n)
				}
				return nil
			}
			return []impl{
				{"flow.Executor", flowOp},
				{goroutineImpl, goroutines},
			}, ex.Close
		},
	}
}

// runCounted returns an operation that runs g on ex and checks that the n
// tasks which count themselves in ran all ran.
func runCounted(ex *flow.Executor, g *flow.Graph, ran *atomic.Int64, n int) func() error {
	return func() error {
		ran.Store(0)
		if err := ex.Run(context.Background(), g); err != nil {
			return err
		}
		if got := ran.Load(); got != int64(n) {
			return fmt.Errorf("ran %d tasks, want %d", got, n)
		}
		return nil
	}
}

// count writes n for a workload's name: 1M, 64K, 1023, 1,048,575.
// Digits are grouped from five on.
func count(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	s := fmt.Sprint(n)
	if len(s) <= 4 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
