package flow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentRunsOfOneGraph: several goroutines run the same graph at
// once; each run has its own counters, so every task runs once per run and
// no run's tasks see another run's progress.
func TestConcurrentRunsOfOneGraph(t *testing.T) {
	const goroutines, runsEach = 8, 25
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			d := randomDAG(rand.New(rand.NewPCG(7, 8)), 300, 3)
			counts := make([]atomic.Int32, d.n)
			g := New("shared")
			tasks := make([]*Task, d.n)
			for i := range tasks {
				tasks[i] = g.Add("", func(context.Context) error { counts[i].Add(1); return nil })
			}
			for _, ed := range d.edges {
				tasks[ed[0]].Precede(tasks[ed[1]])
			}
			var wg sync.WaitGroup
			errs := make(chan error, goroutines)
			for range goroutines {
				wg.Go(func() {
					for range runsEach {
						if err := e.Run(context.Background(), g); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for i := range counts {
				if got := counts[i].Load(); got != goroutines*runsEach {
					t.Fatalf("task %d ran %d times, want %d", i, got, goroutines*runsEach)
				}
			}
		})
	}
}

// TestConcurrentRunsOfDifferentGraphs: graphs of every kind run at once on
// one executor, some failing; each run gets its own result.
func TestConcurrentRunsOfDifferentGraphs(t *testing.T) {
	e := newExec(t, 2)
	rounds := 40
	if testing.Short() {
		rounds = 15
	}
	boom := errors.New("boom")
	var wg sync.WaitGroup
	var wrong atomic.Int32
	for gi := range 6 {
		wg.Go(func() {
			for r := range rounds {
				var body, done atomic.Int32
				var g *Graph
				wantErr := false
				switch gi % 3 {
				case 0:
					g = loopGraph(1+r%7, &body, &done)
				case 1:
					g = New("sub")
					g.AddSubflow("s", func(_ context.Context, sf *Subflow) error {
						for range 10 {
							sf.Add("", func(context.Context) error { done.Add(1); return nil })
						}
						return nil
					})
				case 2:
					g = New("fail")
					wantErr = r%2 == 0
					g.Add("f", func(context.Context) error {
						if wantErr {
							return boom
						}
						return nil
					})
				}
				err := e.Run(context.Background(), g)
				if (err != nil) != wantErr || (gi%3 == 1 && done.Load() != 10) {
					wrong.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := wrong.Load(); n != 0 {
		t.Fatalf("%d runs had the wrong result", n)
	}
}

// TestGraphChangedDuringRuns: building on a graph while runs of it are in
// flight is safe; in-flight runs use the snapshot they started with.
func TestGraphChangedDuringRuns(t *testing.T) {
	e := newExec(t, 2)
	g := New("growing")
	prev := g.Add("t0", nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := e.Run(context.Background(), g); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for i := 1; i < 200; i++ {
		n := g.Add(fmt.Sprint("t", i), nil)
		prev.Precede(n)
		prev = n
	}
	close(stop)
	wg.Wait()
}

// TestStressMixedGraphs runs random graphs mixing every task kind from many
// goroutines; meant for -race. Shortened under -short.
func TestStressMixedGraphs(t *testing.T) {
	iters := 200
	if testing.Short() {
		iters = 30
	}
	e := newExec(t, 2)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for gi := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(gi), 99))
			for range iters {
				d := randomDAG(rng, 1+rng.IntN(120), 3)
				var ran atomic.Int32
				g := New("stress")
				tasks := make([]*Task, d.n)
				expect := int32(0)
				for i := range tasks {
					switch rng.IntN(4) {
					case 0:
						k := 1 + rng.IntN(4)
						expect += int32(k)
						tasks[i] = g.AddSubflow("", func(_ context.Context, sf *Subflow) error {
							prev := sf.Add("", nil)
							for range k {
								n := sf.Add("", func(context.Context) error { ran.Add(1); return nil })
								prev.Precede(n)
							}
							return nil
						})
					default:
						expect++
						tasks[i] = g.Add("", func(context.Context) error { ran.Add(1); return nil })
					}
				}
				for _, ed := range d.edges {
					tasks[ed[0]].Precede(tasks[ed[1]])
				}
				if err := e.Run(context.Background(), g); err != nil || ran.Load() != expect {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Fatalf("%d runs went wrong", n)
	}
}

// TestFailuresAtRandomPointsNeverHang: random graphs of plain and subflow
// tasks where a random task fails, panics or cancels the caller's context.
// Every Run returns the matching error (never hangs); no task that depends on
// the failing one starts; on one worker, no task at all starts after it.
func TestFailuresAtRandomPointsNeverHang(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 60
	}
	boom := errors.New("boom")
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			rng := rand.New(rand.NewPCG(uint64(workers), 11))
			for it := range iters {
				d := randomDAG(rng, 2+rng.IntN(200), 3)
				bad := rng.IntN(d.n)
				mode := rng.IntN(3)
				after := d.descendants(bad)
				ctx, cancel := context.WithCancel(context.Background())
				var failed atomic.Bool
				var late atomic.Int64
				g := New("fail")
				tasks := make([]*Task, d.n)
				for i := range tasks {
					body := func(context.Context) error {
						if after[i] || (workers == 1 && failed.Load()) {
							late.Add(1)
						}
						if i != bad {
							return nil
						}
						failed.Store(true)
						switch mode {
						case 0:
							return boom
						case 1:
							panic(boom)
						default:
							cancel()
							return nil
						}
					}
					if i%5 == 4 {
						tasks[i] = g.AddSubflow("", func(ctx context.Context, sf *Subflow) error {
							sf.Add("", nil).Precede(sf.Add("", nil))
							return body(ctx)
						})
					} else {
						tasks[i] = g.Add("", body)
					}
				}
				for _, ed := range d.edges {
					tasks[ed[0]].Precede(tasks[ed[1]])
				}
				err := e.Run(ctx, g)
				cancel()
				want := boom
				if mode == 2 {
					want = context.Canceled
				}
				// A cancellation after which nothing was left to skip is no error.
				if !errors.Is(err, want) && !(mode == 2 && err == nil) {
					t.Fatalf("iteration %d mode %d: err = %v, want %v", it, mode, err, want)
				}
				if n := late.Load(); n != 0 {
					t.Fatalf("iteration %d mode %d: %d tasks started after the failure", it, mode, n)
				}
			}
		})
	}
}
