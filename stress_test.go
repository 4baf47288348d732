package spindle

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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
