package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/flow"
	"golang.org/x/sync/errgroup"
)

// Task graphs (package flow) against the same graphs built by hand on
// goroutines: a goroutine per task that waits on its predecessors' channels,
// finished with a WaitGroup, or with an errgroup (which also carries the
// first error, as flow does). The graphs are those of flow/bench_test.go:
//
//	wide:  1000 independent tasks
//	chain: 512 tasks, each depending on the one before
//	deep:  100 stages of 10 tasks, each depending on every task of the stage before
//
// with empty tasks (wide, chain: scheduling cost per task or per hop) and
// with a few microseconds of work per task (wide, deep: the speedup from 1 to
// 2 workers; goroutines use every core, GOMAXPROCS=2 on the CI machine).

const flowWorkIters = 2000

var flowSink atomic.Uint64

//go:noinline
func flowWork(seed uint64) {
	x := seed | 1
	for range flowWorkIters {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		flowSink.Add(1)
	}
}

// flowShape is a DAG as predecessor lists; index order is topological.
type flowShape struct {
	n    int
	pred [][]int
}

func flowWide(n int) flowShape { return flowShape{n: n, pred: make([][]int, n)} }

func flowChain(n int) flowShape {
	s := flowShape{n: n, pred: make([][]int, n)}
	for i := 1; i < n; i++ {
		s.pred[i] = []int{i - 1}
	}
	return s
}

func flowDeep(depth, width int) flowShape {
	s := flowShape{n: depth * width, pred: make([][]int, depth*width)}
	for st := 1; st < depth; st++ {
		for j := range width {
			for k := range width {
				s.pred[st*width+j] = append(s.pred[st*width+j], (st-1)*width+k)
			}
		}
	}
	return s
}

func (s flowShape) graph(fn func(i int) func(context.Context) error) *flow.Graph {
	g := flow.New("bench")
	tasks := make([]*flow.Task, s.n)
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

func (s flowShape) goroutines(fn func(int)) {
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

func (s flowShape) errgroup(ctx context.Context, fn func(int)) error {
	done := make([]chan struct{}, s.n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	g, ctx := errgroup.WithContext(ctx)
	for i := range s.n {
		g.Go(func() error {
			for _, p := range s.pred[i] {
				select {
				case <-done[p]:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			fn(i)
			close(done[i])
			return nil
		})
	}
	return g.Wait()
}

// flowCompare runs one shape on flow (1 and 2 workers), goroutines and
// errgroup, reporting the time per task (or hop) as unit.
func flowCompare(b *testing.B, s flowShape, fn func(int), unit string) {
	per := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*s.n), unit)
	}
	g := s.graph(func(i int) func(context.Context) error {
		return func(context.Context) error { fn(i); return nil }
	})
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("flow-%dw", w), func(b *testing.B) {
			e := flow.NewExecutor(spindle.Config{Workers: w})
			defer e.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Run(context.Background(), g); err != nil {
					b.Fatal(err)
				}
			}
			per(b)
		})
	}
	b.Run("goroutines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.goroutines(fn)
		}
		per(b)
	})
	b.Run("errgroup", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.errgroup(context.Background(), fn); err != nil {
				b.Fatal(err)
			}
		}
		per(b)
	})
}

func flowEmpty(int) {}

func flowWorkTask(i int) { flowWork(uint64(i)) }

func BenchmarkFlowWide1000(b *testing.B) { flowCompare(b, flowWide(1000), flowEmpty, "ns/task") }

func BenchmarkFlowChain512(b *testing.B) { flowCompare(b, flowChain(512), flowEmpty, "ns/hop") }

func BenchmarkFlowWideWork(b *testing.B) { flowCompare(b, flowWide(1000), flowWorkTask, "ns/task") }

func BenchmarkFlowDeepWork(b *testing.B) { flowCompare(b, flowDeep(100, 10), flowWorkTask, "ns/task") }
