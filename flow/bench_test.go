package flow

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
)

// The benchmark graphs. Each comes with the same graph run on plain
// goroutines, the baseline the figures are stated against: a goroutine per
// task, each waiting on its predecessors' channels, a WaitGroup to finish.

const (
	wideN     = 1000
	chainN    = 512
	deepDepth = 100 // stages
	deepWidth = 10  // tasks per stage; each depends on every task of the stage before
	workIters = 2000
)

var benchSink atomic.Uint64

// work is the "real work" of the work benchmarks: a few microseconds of
// arithmetic the compiler cannot remove.
//
//go:noinline
func work(seed uint64) {
	x := seed | 1
	for range workIters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		benchSink.Add(1)
	}
}

func empty(context.Context) error { return nil }

func workTask(i int) func(context.Context) error {
	return func(context.Context) error { work(uint64(i)); return nil }
}

// shape is a benchmark graph: n tasks and their predecessor lists.
type shape struct {
	n    int
	pred [][]int
}

func wideShape(n int) shape { return shape{n: n, pred: make([][]int, n)} }

func chainShape(n int) shape {
	s := shape{n: n, pred: make([][]int, n)}
	for i := 1; i < n; i++ {
		s.pred[i] = []int{i - 1}
	}
	return s
}

func deepShape(depth, width int) shape {
	s := shape{n: depth * width, pred: make([][]int, depth*width)}
	for st := 1; st < depth; st++ {
		for j := range width {
			for k := range width {
				s.pred[st*width+j] = append(s.pred[st*width+j], (st-1)*width+k)
			}
		}
	}
	return s
}

func (s shape) graph(name string, fn func(i int) func(context.Context) error) *Graph {
	g := New(name)
	tasks := make([]*Task, s.n)
	for i := range tasks {
		tasks[i] = g.Add("", fn(i))
	}
	for i, ps := range s.pred {
		for _, p := range ps {
			tasks[p].Precede(tasks[i])
		}
	}
	return g
}

// goroutines runs the shape with a goroutine per task, each waiting on its
// predecessors' done channels before running fn and closing its own.
func (s shape) goroutines(fn func(i int)) {
	done := make([]chan struct{}, s.n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	wg.Add(s.n)
	for i := range s.n {
		go func() {
			for _, p := range s.pred[i] {
				<-done[p]
			}
			fn(i)
			close(done[i])
			wg.Done()
		}()
	}
	wg.Wait()
}

func benchFlow(b *testing.B, workers int, g *Graph, per int, unit string) {
	e := NewExecutor(spindle.Config{Workers: workers})
	defer e.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := e.Run(ctx, g); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*per), unit)
}

func benchGoroutines(b *testing.B, s shape, fn func(int), unit string) {
	b.ReportAllocs()
	for b.Loop() {
		s.goroutines(fn)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*s.n), unit)
}

// BenchmarkWide1000: 1000 independent empty tasks per run. Target: ≤ 100
// ns/task on 2 workers, ≥ 10× faster than a goroutine per task.
func BenchmarkWide1000(b *testing.B) {
	s := wideShape(wideN)
	g := s.graph("wide", func(int) func(context.Context) error { return empty })
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("flow/workers=%d", w), func(b *testing.B) { benchFlow(b, w, g, wideN, "ns/task") })
	}
	b.Run("goroutines", func(b *testing.B) { benchGoroutines(b, s, func(int) {}, "ns/task") })
}

// BenchmarkChain512: a chain of 512 empty tasks per run. Target: ≤ 100
// ns/hop, ≥ 10× faster than goroutines chained by channels.
func BenchmarkChain512(b *testing.B) {
	s := chainShape(chainN)
	g := s.graph("chain", func(int) func(context.Context) error { return empty })
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("flow/workers=%d", w), func(b *testing.B) { benchFlow(b, w, g, chainN, "ns/hop") })
	}
	b.Run("goroutines", func(b *testing.B) { benchGoroutines(b, s, func(int) {}, "ns/hop") })
}

// BenchmarkWideWork: TaskFlow-RS's wide graph, 1000 independent tasks each doing
// a few microseconds of work; the speedup from 1 to 2 workers.
func BenchmarkWideWork(b *testing.B) {
	s := wideShape(wideN)
	g := s.graph("wide-work", workTask)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("flow/workers=%d", w), func(b *testing.B) { benchFlow(b, w, g, s.n, "ns/task") })
	}
	b.Run("goroutines", func(b *testing.B) { benchGoroutines(b, s, func(i int) { work(uint64(i)) }, "ns/task") })
	// The best 2 workers can do on this machine right now: two goroutines,
	// each with a fixed half of the tasks and no scheduling at all. On a
	// shared machine, compare flow/workers=2 with this, not only with 1.
	b.Run("static-split-2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			for half := range 2 {
				wg.Go(func() {
					for i := half; i < s.n; i += 2 {
						work(uint64(i))
					}
				})
			}
			wg.Wait()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*s.n), "ns/task")
	})
}

// BenchmarkDeepWork: TaskFlow-RS's deep graph, 100 stages of 10 tasks, each
// task depending on every task of the stage before, each doing real work.
func BenchmarkDeepWork(b *testing.B) {
	s := deepShape(deepDepth, deepWidth)
	g := s.graph("deep-work", workTask)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("flow/workers=%d", w), func(b *testing.B) { benchFlow(b, w, g, s.n, "ns/task") })
	}
	b.Run("goroutines", func(b *testing.B) { benchGoroutines(b, s, func(i int) { work(uint64(i)) }, "ns/task") })
}

// BenchmarkSubflow: a subflow that builds and joins 100 empty children per
// run, the cost of run-time graph construction.
func BenchmarkSubflow(b *testing.B) {
	const kids = 100
	g := New("subflow")
	g.AddSubflow("s", func(_ context.Context, sf *Subflow) error {
		for range kids {
			sf.Add("", nil)
		}
		return nil
	})
	b.Run("flow/workers=2", func(b *testing.B) { benchFlow(b, 2, g, kids, "ns/child") })
}

// BenchmarkLoop: a condition loop of 1000 rounds (body, condition) per run.
func BenchmarkLoop(b *testing.B) {
	const rounds = 1000
	var body, done atomic.Int32
	g := loopGraph(rounds, &body, &done)
	b.Run("flow/workers=1", func(b *testing.B) { benchFlow(b, 1, g, rounds, "ns/round") })
}

// BenchmarkRunOverhead: a graph of one empty task; the fixed cost of a Run
// (context, run state, handing the work to a worker and waking the caller).
func BenchmarkRunOverhead(b *testing.B) {
	g := New("one")
	g.Add("only", nil)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("flow/workers=%d", w), func(b *testing.B) { benchFlow(b, w, g, 1, "ns/run") })
	}
}
