package bench

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"github.com/spindle-go/spindle"
	"golang.org/x/sync/errgroup"
)

// tiny is the per-task work: small enough that scheduling dominates, opaque
// enough that the compiler cannot drop it.
var sink atomic.Int64

//go:noinline
func tiny(i int) {
	if i == -1 {
		sink.Add(1)
	}
}

const injectTotal = 1 << 20

func perTask(b *testing.B, tasks int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tasks), "ns/task")
}

// BenchmarkInject1M: 1M tiny independent tasks submitted from one goroutine
// to a pool of 2 workers (GOMAXPROCS where a library has no size).
func BenchmarkInject1M(b *testing.B) {
	const workers = 2
	b.Run("spindle-batch", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]int, 1024)
		for b.Loop() {
			e := spindle.New(spindle.Config{Workers: workers}, nil, func(i int, _ *spindle.Worker[int, struct{}]) { tiny(i) })
			for sent := 0; sent < injectTotal; sent += len(buf) {
				for j := range buf {
					buf[j] = sent + j
				}
				if err := e.SpawnBatch(buf); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		}
		perTask(b, injectTotal)
	})
	b.Run("spindle-spawn", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e := spindle.New(spindle.Config{Workers: workers}, nil, func(i int, _ *spindle.Worker[int, struct{}]) { tiny(i) })
			for i := 0; i < injectTotal; i++ {
				if err := e.Spawn(i); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		}
		perTask(b, injectTotal)
	})
	b.Run("goroutines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			for i := 0; i < injectTotal; i++ {
				wg.Add(1)
				go func() { tiny(i); wg.Done() }()
			}
			wg.Wait()
		}
		perTask(b, injectTotal)
	})
	b.Run("channel-pool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ch := make(chan int, 1024)
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range ch {
						tiny(i)
					}
				}()
			}
			for i := 0; i < injectTotal; i++ {
				ch <- i
			}
			close(ch)
			wg.Wait()
		}
		perTask(b, injectTotal)
	})
	b.Run("errgroup", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var g errgroup.Group
			g.SetLimit(workers)
			for i := 0; i < injectTotal; i++ {
				g.Go(func() error { tiny(i); return nil })
			}
			_ = g.Wait()
		}
		perTask(b, injectTotal)
	})
	b.Run("conc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := pool.New().WithMaxGoroutines(workers)
			for i := 0; i < injectTotal; i++ {
				p.Go(func() { tiny(i) })
			}
			p.Wait()
		}
		perTask(b, injectTotal)
	})
	b.Run("pond", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := pond.NewPool(workers)
			for i := 0; i < injectTotal; i++ {
				p.Submit(func() { tiny(i) })
			}
			p.StopAndWait()
		}
		perTask(b, injectTotal)
	})
	b.Run("ants", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			p, err := ants.NewPool(workers)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < injectTotal; i++ {
				wg.Add(1)
				if err := p.Submit(func() { tiny(i); wg.Done() }); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
			p.Release()
		}
		perTask(b, injectTotal)
	})
}

const treeDepth = 16 // 2^17-1 tasks

// BenchmarkSpawnTree: every task spawns two children until depth 0 — tasks
// that create tasks, which a shared-queue pool cannot do without risking
// deadlock at its size limit, so the peers run unbounded.
func BenchmarkSpawnTree(b *testing.B) {
	tasks := 1<<(treeDepth+1) - 1
	b.Run("spindle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e := spindle.New(spindle.Config{Workers: runtime.GOMAXPROCS(0)}, nil, func(d int, w *spindle.Worker[int, struct{}]) {
				tiny(d)
				if d > 0 {
					w.Spawn(d - 1)
					w.Spawn(d - 1)
				}
			})
			if err := e.Spawn(treeDepth); err != nil {
				b.Fatal(err)
			}
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		}
		perTask(b, tasks)
	})
	b.Run("goroutines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var wg sync.WaitGroup
			var node func(d int)
			node = func(d int) {
				defer wg.Done()
				tiny(d)
				if d > 0 {
					wg.Add(2)
					go node(d - 1)
					go node(d - 1)
				}
			}
			wg.Add(1)
			go node(treeDepth)
			wg.Wait()
		}
		perTask(b, tasks)
	})
	b.Run("errgroup", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g, _ := errgroup.WithContext(context.Background())
			var node func(d int) error
			node = func(d int) error {
				tiny(d)
				if d > 0 {
					g.Go(func() error { return node(d - 1) })
					g.Go(func() error { return node(d - 1) })
				}
				return nil
			}
			g.Go(func() error { return node(treeDepth) })
			_ = g.Wait()
		}
		perTask(b, tasks)
	})
}

const chainLen = 1 << 20

// BenchmarkChainedSpawn: each task spawns the next (Tokio's chained_spawn).
func BenchmarkChainedSpawn(b *testing.B) {
	b.Run("spindle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e := spindle.New(spindle.Config{Workers: 1}, nil, func(n int, w *spindle.Worker[int, struct{}]) {
				if n > 0 {
					w.Spawn(n - 1)
				}
			})
			if err := e.Spawn(chainLen); err != nil {
				b.Fatal(err)
			}
			if _, err := e.Join(); err != nil {
				b.Fatal(err)
			}
		}
		perTask(b, chainLen)
	})
	b.Run("goroutines", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			done := make(chan struct{})
			var link func(n int)
			link = func(n int) {
				if n > 0 {
					go link(n - 1)
					return
				}
				close(done)
			}
			go link(chainLen)
			<-done
		}
		perTask(b, chainLen)
	})
}
