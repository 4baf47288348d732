package spindle

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-go/spindle/internal/core"
)

// TestPinThreadsLeavesNoPinnedThreadBehind checks that the OS threads a
// PinThreads executor narrowed to one CPU do not go back to the Go scheduler
// after Join, where unrelated goroutines would run confined to that CPU.
func TestPinThreadsLeavesNoPinnedThreadBehind(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil || allowed.Count() < 2 {
		t.Skip("needs at least two usable CPUs")
	}
	want := allowed.Count()
	for round := 0; round < 5; round++ {
		e := New(Config{Workers: 4, PinThreads: true}, nil, func(int, *Worker[int, noScratch]) {})
		for i := 0; i < 16; i++ {
			if err := e.Spawn(i); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.Join(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		narrowed := 0
		for g := 0; g < 64; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var set unix.CPUSet
				if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() < want {
					mu.Lock()
					narrowed++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if narrowed > 0 {
			t.Fatalf("round %d: %d goroutines ran on a thread narrowed below the process's %d CPUs", round, narrowed, want)
		}
	}
}

// TestAbandonedCountsTheNextSlotOfAPanickingTask checks the accounting after
// a panic: a task that spawned one child (into its next slot) and then
// panicked leaves that child accepted but never run, so Join must count it in
// Metrics.Abandoned (ran + abandoned == accepted).
func TestAbandonedCountsTheNextSlotOfAPanickingTask(t *testing.T) {
	for _, q := range []QueueStrategy{PerWorker, Shared} {
		t.Run(q.String(), func(t *testing.T) {
			e := New(Config{Workers: 1, Queue: q}, nil, func(id int, w *Worker[int, noScratch]) {
				if id == 0 {
					w.Spawn(1)
					panic("boom")
				}
			})
			if err := e.Spawn(0); err != nil {
				t.Fatal(err)
			}
			m, err := e.Join()
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("Join error %v, want *PanicError", err)
			}
			if m.Total.TasksRun != 1 || m.Abandoned != 1 {
				t.Fatalf("ran %d, abandoned %d; want 1 and 1 of 2 accepted", m.Total.TasksRun, m.Abandoned)
			}
		})
	}
}

// stressLog records, per task id, how often it ran, and how many tasks
// started after Shutdown had returned.
type stressLog struct {
	mu       sync.Mutex
	accepted map[int]bool
	runs     map[int]int
}

func (l *stressLog) accept(ids ...int) {
	l.mu.Lock()
	for _, id := range ids {
		l.accepted[id] = true
	}
	l.mu.Unlock()
}

// TestStressTreesProducersJoinShutdownPanic races external producers (Spawn,
// SpawnBatch, Handle), tasks that spawn several children (next slot, ring,
// spills, injector, Handle from inside), and Join, Shutdown or a panic at
// random moments. It checks: no task runs twice or unaccepted; with Join
// every accepted task ran; Metrics.TasksRun equals the runs and ran +
// Abandoned equals accepted; after Shutdown returns, at most one task per
// worker starts.
func TestStressTreesProducersJoinShutdownPanic(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 40
	}
	for it := 0; it < iters; it++ {
		rng := rand.New(rand.NewPCG(uint64(it), 99))
		workers := []int{1, 2, 3, 4, 70}[rng.IntN(5)]
		// 0: Join; 1: Join racing a Shutdown from another goroutine; 2:
		// Shutdown, then Join; 3: a task panics; 4: a task calls Shutdown.
		end := rng.IntN(5)
		cfg := Config{
			Workers:   workers,
			LocalCap:  2 << rng.IntN(4),
			Queue:     QueueStrategy(rng.IntN(2)),
			SpinIters: 1 + rng.IntN(50),
		}
		if rng.IntN(4) == 0 {
			cfg.ParkTimeout = 50 * time.Microsecond
		}
		log := &stressLog{accepted: map[int]bool{}, runs: map[int]int{}}
		var nextID atomic.Int64
		var shutdownDone atomic.Bool
		var lateStarts atomic.Int64
		panicAt, shutdownAt := int64(-1), int64(-1)
		switch end {
		case 3:
			panicAt = int64(50 + rng.IntN(400))
		case 4:
			shutdownAt = int64(50 + rng.IntN(400))
		}
		e := New(cfg, nil, func(id int, w *Worker[int, noScratch]) {
			if shutdownDone.Load() {
				lateStarts.Add(1)
			}
			log.mu.Lock()
			log.runs[id]++
			log.mu.Unlock()
			if int64(id) == panicAt {
				panic(id)
			}
			if int64(id) == shutdownAt {
				w.Handle().Shutdown()
				shutdownDone.Store(true)
			}
			if id%3 != 0 || nextID.Load() > 3000 {
				return
			}
			for k := 0; k < 1+id%4; k++ {
				child := int(nextID.Add(1))
				switch k {
				case 3:
					if w.Handle().Spawn(child) == nil {
						log.accept(child)
					}
				case 2:
					log.accept(child)
					w.SpawnGlobal(child)
				default:
					log.accept(child)
					w.Spawn(child)
				}
			}
		})
		var wg sync.WaitGroup
		for p := 0; p < 3; p++ {
			wg.Add(1)
			go func(h Handle[int]) {
				defer wg.Done()
				for k := 0; k < 150; k++ {
					id := int(nextID.Add(1))
					if k%5 == 0 {
						ids := []int{id, int(nextID.Add(1)), int(nextID.Add(1))}
						if h.SpawnBatch(ids) == nil {
							log.accept(ids...)
						}
						continue
					}
					if h.Spawn(id) == nil {
						log.accept(id)
					}
					if k%50 == 0 {
						runtime.Gosched()
					}
				}
			}(e.Handle())
		}
		pause := time.Duration(rng.IntN(200)) * time.Microsecond
		switch end {
		case 1:
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(pause)
				e.Shutdown()
				shutdownDone.Store(true)
			}()
		case 2:
			time.Sleep(pause)
			e.Shutdown()
			shutdownDone.Store(true)
		default:
			time.Sleep(pause)
		}
		m, err := e.Join()
		wg.Wait()
		if end == 3 {
			var pe *PanicError
			if err != nil && !errors.As(err, &pe) {
				t.Fatalf("iter %d: Join error %v", it, err)
			}
		} else if err != nil {
			t.Fatalf("iter %d: Join error %v", it, err)
		}
		stopped := shutdownDone.Load() || err != nil
		log.mu.Lock()
		total := 0
		for id, n := range log.runs {
			total += n
			if n != 1 {
				t.Fatalf("iter %d: task %d ran %d times", it, id, n)
			}
			if !log.accepted[id] {
				t.Fatalf("iter %d: task %d ran but was never accepted", it, id)
			}
		}
		if !stopped && len(log.runs) != len(log.accepted) {
			t.Fatalf("iter %d: %d of %d accepted tasks ran", it, len(log.runs), len(log.accepted))
		}
		if m.Total.TasksRun != uint64(total) {
			t.Fatalf("iter %d: Metrics.TasksRun %d, runs %d", it, m.Total.TasksRun, total)
		}
		if m.Abandoned+uint64(total) != uint64(len(log.accepted)) {
			t.Fatalf("iter %d (end %d, %+v): ran %d + abandoned %d != accepted %d", it, end, cfg, total, m.Abandoned, len(log.accepted))
		}
		log.mu.Unlock()
		if n := lateStarts.Load(); n > int64(workers) {
			t.Fatalf("iter %d: %d tasks started after Shutdown returned, %d workers", it, n, workers)
		}
	}
}

// TestGoexitInATaskStopsTheRunWithExactMetrics checks a task that calls
// runtime.Goexit (t.FailNow in a test helper does): the run stops as for a
// panic, Join returns a *PanicError that says what happened instead of a nil
// value, and Join's metrics are exact although the worker's goroutine is gone.
func TestGoexitInATaskStopsTheRunWithExactMetrics(t *testing.T) {
	const n = 40
	e := New(Config{Workers: 1}, nil, func(id int, w *Worker[int, noScratch]) {
		if id == n-1 {
			runtime.Goexit()
		}
	})
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	if err := e.SpawnBatch(ids); err != nil {
		t.Fatal(err)
	}
	m, err := e.Join()
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value == nil {
		t.Fatalf("Join error %v, want a *PanicError with a value", err)
	}
	if m.Total.TasksRun == 0 || m.Total.TasksRun+m.Abandoned != n {
		t.Fatalf("ran %d + abandoned %d, want %d with at least one run", m.Total.TasksRun, m.Abandoned, n)
	}
}

type nopWaker struct{}

func (nopWaker) Wake(int) {}

// TestWorkerRandDependsOnlyOnSeedAndID checks Worker.Rand's documented
// determinism on an executor with several workers: the first value a worker
// hands its tasks is the first value of that worker's generator, however
// long the worker searched (and tried victims) before the task arrived.
func TestWorkerRandDependsOnlyOnSeedAndID(t *testing.T) {
	const workers = 2
	_, ref := core.NewPool[int](core.Config{Workers: workers, Seed: 7, Waker: nopWaker{}})
	var want [workers]uint64
	for i := range want {
		want[i] = ref[i].Rand()
	}
	var mu sync.Mutex
	first := map[int]uint64{}
	e := New(Config{Workers: workers, Seed: 7}, nil, func(_ int, w *Worker[int, noScratch]) {
		mu.Lock()
		if _, ok := first[w.ID]; !ok {
			first[w.ID] = w.Rand()
		}
		mu.Unlock()
	})
	time.Sleep(5 * time.Millisecond) // idle workers search (and pick victims) before parking
	for i := 0; i < 64; i++ {
		if err := e.Spawn(i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	for id, got := range first {
		if got != want[id] {
			t.Errorf("worker %d: first Rand %#x, want %#x (the sequence depends on its idle rounds)", id, got, want[id])
		}
	}
}
