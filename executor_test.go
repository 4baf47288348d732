package spindle

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type noScratch struct{}

// counter records how many times each task id ran.
type counter struct {
	mu   sync.Mutex
	runs map[int]int
}

func newCounter() *counter { return &counter{runs: map[int]int{}} }

func (c *counter) add(id int) {
	c.mu.Lock()
	c.runs[id]++
	c.mu.Unlock()
}

func (c *counter) checkExactlyOnce(t *testing.T, ids int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.runs) != ids {
		t.Fatalf("%d distinct tasks ran, want %d", len(c.runs), ids)
	}
	for id, n := range c.runs {
		if n != 1 {
			t.Fatalf("task %d ran %d times", id, n)
		}
	}
}

func configs() []Config {
	return []Config{
		{Workers: 1},
		{Workers: 2},
		{Workers: 4, LocalCap: 2},
		{Workers: 3, Queue: Shared},
		{Workers: 2, ParkTimeout: time.Millisecond},
		{Workers: 70, LocalCap: 4}, // more than 64 workers: multi-word bitmasks
	}
}

func TestJoinDrainsEveryAcceptedTask(t *testing.T) {
	for _, cfg := range configs() {
		t.Run(fmt.Sprintf("w%d-%s-cap%d", cfg.Workers, cfg.Queue, cfg.LocalCap), func(t *testing.T) {
			c := newCounter()
			e := New(cfg, nil, func(id int, w *Worker[int, noScratch]) { c.add(id) })
			const n = 5000
			for i := 0; i < n/2; i++ {
				if err := e.Spawn(i); err != nil {
					t.Fatal(err)
				}
			}
			batch := make([]int, 0, n/2)
			for i := n / 2; i < n; i++ {
				batch = append(batch, i)
			}
			if err := e.SpawnBatch(batch); err != nil {
				t.Fatal(err)
			}
			m, err := e.Join()
			if err != nil {
				t.Fatal(err)
			}
			c.checkExactlyOnce(t, n)
			if m.Total.TasksRun != n {
				t.Fatalf("metrics: %d tasks run, want %d", m.Total.TasksRun, n)
			}
		})
	}
}

// tree is a task that spawns children until depth runs out.
type tree struct{ id, depth int }

func TestTasksSpawnTasksLocallyAndGlobally(t *testing.T) {
	for _, cfg := range configs() {
		t.Run(fmt.Sprintf("w%d-%s", cfg.Workers, cfg.Queue), func(t *testing.T) {
			var ran atomic.Int64
			e := New(cfg, nil, func(tk tree, w *Worker[tree, noScratch]) {
				ran.Add(1)
				if tk.depth == 0 {
					return
				}
				w.Spawn(tree{tk.id*3 + 1, tk.depth - 1})
				w.Spawn(tree{tk.id*3 + 2, tk.depth - 1})
				w.SpawnGlobal(tree{tk.id*3 + 3, tk.depth - 1})
			})
			if err := e.Spawn(tree{0, 8}); err != nil {
				t.Fatal(err)
			}
			m, err := e.Join()
			if err != nil {
				t.Fatal(err)
			}
			want := int64(0) // 1 + 3 + 9 + ... + 3^8
			for p, i := int64(1), 0; i <= 8; i, p = i+1, p*3 {
				want += p
			}
			if ran.Load() != want || int64(m.Total.TasksRun) != want {
				t.Fatalf("ran %d (metrics %d), want %d", ran.Load(), m.Total.TasksRun, want)
			}
		})
	}
}

func TestSpawnAfterCloseReturnsErrClosed(t *testing.T) {
	e := New(Config{Workers: 2}, nil, func(int, *Worker[int, noScratch]) {})
	h := e.Handle()
	if !h.Accepting() {
		t.Fatal("new executor not accepting")
	}
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	if err := e.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn after Join: %v, want ErrClosed", err)
	}
	if err := h.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Handle.Spawn after Join: %v, want ErrClosed", err)
	}
	if err := e.SpawnBatch([]int{1, 2}); !errors.Is(err, ErrClosed) {
		t.Fatalf("SpawnBatch after Join: %v, want ErrClosed", err)
	}
	if h.Accepting() {
		t.Fatal("joined executor still accepting")
	}
	// Join is idempotent.
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
}

func TestShutdownAbandonsQueuedWork(t *testing.T) {
	gate := make(chan struct{})
	var started atomic.Int64
	e := New(Config{Workers: 2}, nil, func(int, *Worker[int, noScratch]) {
		started.Add(1)
		<-gate
	})
	tasks := make([]int, 1000)
	if err := e.SpawnBatch(tasks); err != nil {
		t.Fatal(err)
	}
	for started.Load() < 2 {
		runtime.Gosched()
	}
	e.Shutdown()
	atShutdown := started.Load()
	if err := e.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn after Shutdown: %v", err)
	}
	close(gate)
	m, err := e.Join()
	if err != nil {
		t.Fatal(err)
	}
	// Each worker may start at most one task it had already taken.
	if got := started.Load(); got > atShutdown+2 {
		t.Fatalf("%d tasks started after Shutdown returned (had %d)", got-atShutdown, atShutdown)
	}
	if m.Abandoned == 0 || m.Abandoned+m.Total.TasksRun != 1000 {
		t.Fatalf("abandoned %d + run %d != 1000", m.Abandoned, m.Total.TasksRun)
	}
}

func TestPanicStopsRunAndJoinReturnsPanicError(t *testing.T) {
	boom := errors.New("boom")
	for _, cfg := range configs() {
		t.Run(fmt.Sprintf("w%d-%s", cfg.Workers, cfg.Queue), func(t *testing.T) {
			e := New(cfg, nil, func(i int, w *Worker[int, noScratch]) {
				if i == 7 {
					panic(boom)
				}
				if i < 100 {
					w.Spawn(i + 100)
				}
			})
			for i := 0; i < 100; i++ {
				if err := e.Spawn(i); err != nil && !errors.Is(err, ErrClosed) {
					t.Fatal(err)
				}
			}
			_, err := e.Join()
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("Join error %v, want *PanicError", err)
			}
			if pe.Value != boom || !errors.Is(err, boom) {
				t.Fatalf("panic value %v", pe.Value)
			}
			if len(pe.Stack) == 0 {
				t.Fatal("no stack")
			}
			if e.Spawn(1) == nil {
				t.Fatal("executor accepts spawns after a panic")
			}
		})
	}
}

func TestScratchIsPerWorker(t *testing.T) {
	type scratch struct{ id, n int }
	e := New(Config{Workers: 3}, func(id int) *scratch { return &scratch{id: id} },
		func(_ int, w *Worker[int, *scratch]) {
			if w.Scratch.id != w.ID {
				panic("scratch of another worker")
			}
			w.Scratch.n++ // no lock: owned by the worker
		})
	tasks := make([]int, 10000)
	if err := e.SpawnBatch(tasks); err != nil {
		t.Fatal(err)
	}
	m, err := e.Join()
	if err != nil {
		t.Fatal(err)
	}
	var sum int
	for _, w := range e.workers {
		sum += w.Scratch.n
		if uint64(w.Scratch.n) != m.Workers[w.ID].TasksRun {
			t.Fatalf("worker %d: scratch count %d, metrics %d", w.ID, w.Scratch.n, m.Workers[w.ID].TasksRun)
		}
	}
	if sum != len(tasks) {
		t.Fatalf("scratch counts sum to %d", sum)
	}
}

func TestDeterministicWithSameSeedSingleWorker(t *testing.T) {
	order := func() []int {
		var got []int
		e := New(Config{Workers: 1, Seed: 42}, nil, func(tk tree, w *Worker[tree, noScratch]) {
			got = append(got, tk.id)
			if tk.depth > 0 {
				w.Spawn(tree{tk.id*2 + 1, tk.depth - 1})
				w.Spawn(tree{tk.id*2 + 2, tk.depth - 1})
			}
		})
		if err := e.Spawn(tree{0, 6}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Join(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	a, b := order(), order()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("orders differ:\n%v\n%v", a, b)
	}
}

func TestIdleWorkersWakeForLateWork(t *testing.T) {
	// Workers park with no timeout; work arriving later must still run.
	var ran atomic.Int64
	e := New(Config{Workers: 4, SpinIters: 1}, nil, func(int, *Worker[int, noScratch]) { ran.Add(1) })
	for round := 0; round < 50; round++ {
		time.Sleep(200 * time.Microsecond) // let workers park
		if err := e.Spawn(round); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 50 {
		t.Fatalf("ran %d", ran.Load())
	}
}

// TestStressSpawnJoinShutdownRace races producers, tasks that spawn, Join and
// Shutdown at random moments. With Join: every accepted task runs exactly
// once. With Shutdown: no task runs twice and nothing hangs.
func TestStressSpawnJoinShutdownRace(t *testing.T) {
	iters := 200
	if testing.Short() {
		iters = 30
	}
	for it := 0; it < iters; it++ {
		rng := rand.New(rand.NewPCG(uint64(it), 7))
		workers := 1 + rng.IntN(4)
		useShutdown := rng.IntN(3) == 0
		var accepted sync.Map // id -> struct{}
		c := newCounter()
		var nextID atomic.Int64
		e := New(Config{Workers: workers, LocalCap: 4 << rng.IntN(3), Queue: QueueStrategy(rng.IntN(2))}, nil,
			func(id int, w *Worker[int, noScratch]) {
				c.add(id)
				if id%5 == 0 {
					child := int(nextID.Add(1))
					accepted.Store(child, struct{}{}) // internal spawns always succeed
					w.Spawn(child)
				}
			})
		var wg sync.WaitGroup
		for p := 0; p < 3; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 200; k++ {
					id := int(nextID.Add(1))
					if k%7 == 0 {
						ids := []int{id, int(nextID.Add(1))}
						if e.SpawnBatch(ids) == nil {
							accepted.Store(ids[0], struct{}{})
							accepted.Store(ids[1], struct{}{})
						}
						continue
					}
					if e.Spawn(id) == nil {
						accepted.Store(id, struct{}{})
					}
				}
			}()
		}
		time.Sleep(time.Duration(rng.IntN(300)) * time.Microsecond)
		if useShutdown {
			e.Shutdown()
		}
		if _, err := e.Join(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		c.mu.Lock()
		for id, n := range c.runs {
			if n != 1 {
				t.Fatalf("iter %d: task %d ran %d times", it, id, n)
			}
			if _, ok := accepted.Load(id); !ok {
				t.Fatalf("iter %d: task %d ran but was never accepted", it, id)
			}
		}
		if !useShutdown {
			accepted.Range(func(k, _ any) bool {
				if c.runs[k.(int)] != 1 {
					t.Fatalf("iter %d: accepted task %d never ran", it, k)
				}
				return true
			})
		}
		c.mu.Unlock()
	}
}

func TestMetricsLiveSnapshotIsSafe(t *testing.T) {
	e := New(Config{Workers: 2}, nil, func(int, *Worker[int, noScratch]) {})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				_ = e.Metrics()
			}
		}
	}()
	for i := 0; i < 10000; i++ {
		_ = e.Spawn(i)
	}
	m, err := e.Join()
	close(stop)
	<-done
	if err != nil || m.Total.TasksRun != 10000 {
		t.Fatalf("err %v, ran %d", err, m.Total.TasksRun)
	}
}

func TestWorkerSpawnOutsideItsTaskPanics(t *testing.T) {
	leaked := make(chan *Worker[int, noScratch], 1)
	e := New(Config{Workers: 1}, nil, func(_ int, w *Worker[int, noScratch]) { leaked <- w })
	if err := e.Spawn(0); err != nil {
		t.Fatal(err)
	}
	w := <-leaked
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	for _, spawn := range []func(){func() { w.Spawn(1) }, func() { w.SpawnGlobal(1) }} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "outside the task") {
					t.Fatalf("recover() = %v, want a clear misuse panic", r)
				}
			}()
			spawn()
		}()
	}
}
