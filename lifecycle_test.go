package spindle

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestCloseDrainsAndReturnsJoinsError: Close is Join without the metrics,
// idempotent, and reports a task's panic.
func TestCloseDrainsAndReturnsJoinsError(t *testing.T) {
	var ran atomic.Int64
	e := Start(context.Background(), Config{Workers: 2}, func(n int, w *Spawner[int]) {
		ran.Add(1)
		if n > 0 {
			w.Spawn(n - 1)
		}
	})
	if err := e.Spawn(99); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ran.Load() != 100 {
		t.Fatalf("ran %d tasks, want 100", ran.Load())
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := e.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn after Close: %v, want ErrClosed", err)
	}

	boom := errors.New("boom")
	e = Start(context.Background(), Config{Workers: 2}, func(int, *Spawner[int]) { panic(boom) })
	_ = e.Spawn(1)
	var pe *PanicError
	if err := e.Close(); !errors.As(err, &pe) || !errors.Is(err, boom) {
		t.Fatalf("Close after a panic: %v, want a *PanicError wrapping boom", err)
	}
}

// TestContextCancellationAbandonsQueuedWork: cancelling the executor's
// context stops it as Shutdown does (spawns fail, queued tasks are
// abandoned, at most one task per worker starts afterwards), and Join
// reports the context's cause.
func TestContextCancellationAbandonsQueuedWork(t *testing.T) {
	const workers, tasks = 2, 1000
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("user stopped it")
	gate := make(chan struct{})
	var started atomic.Int64
	e := NewContext(ctx, Config{Workers: workers}, nil, func(int, *Worker[int, noScratch]) {
		started.Add(1)
		<-gate
	})
	if err := e.SpawnBatch(make([]int, tasks)); err != nil {
		t.Fatal(err)
	}
	for started.Load() < workers {
		runtime.Gosched()
	}
	cancel(stop)
	// context.AfterFunc runs the shutdown in its own goroutine.
	for deadline := time.Now().Add(5 * time.Second); e.Handle().Accepting(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("executor still accepting 5s after its context was cancelled")
		}
	}
	atCancel := started.Load()
	if err := e.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn after cancel: %v, want ErrClosed", err)
	}
	close(gate)
	m, err := e.Join()
	if !errors.Is(err, stop) {
		t.Fatalf("Join error %v, want the context's cause", err)
	}
	if got := started.Load(); got > atCancel+workers {
		t.Fatalf("%d tasks started after the shutdown, at most %d allowed", got-atCancel, workers)
	}
	if m.Abandoned == 0 || m.Abandoned+m.Total.TasksRun != tasks {
		t.Fatalf("abandoned %d + run %d != %d", m.Abandoned, m.Total.TasksRun, tasks)
	}
}

// TestContextDoneAfterTheRunIsNotAnError: a context cancelled after Join
// has drained everything changes nothing; Worker.Context is the executor's
// context.
func TestContextDoneAfterTheRunIsNotAnError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan context.Context, 1)
	e := NewContext(ctx, Config{Workers: 1}, nil, func(_ int, w *Worker[int, noScratch]) { seen <- w.Context() })
	_ = e.Spawn(1)
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := e.Close(); err != nil {
		t.Fatalf("Close after the run and a late cancel: %v", err)
	}
	if got := <-seen; got != ctx {
		t.Fatal("Worker.Context is not the executor's context")
	}
	e2 := New(Config{Workers: 1}, nil, func(_ int, w *Worker[int, noScratch]) { seen <- w.Context() })
	_ = e2.Spawn(1)
	_ = e2.Close()
	if got := <-seen; got != context.Background() {
		t.Fatal("Worker.Context of New's executor is not context.Background()")
	}
}

// TestAlreadyCancelledContextRejectsEverything: an executor started with a
// done context accepts nothing and closes cleanly.
func TestAlreadyCancelledContextRejectsEverything(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := Start(ctx, Config{Workers: 2}, func(int, *Spawner[int]) { t.Error("a task ran") })
	for deadline := time.Now().Add(5 * time.Second); e.Handle().Accepting(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still accepting")
		}
	}
	if err := e.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn: %v, want ErrClosed", err)
	}
	if err := e.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close: %v, want context.Canceled", err)
	}
}

// TestZeroHandleActsClosed: a zero Handle belongs to no executor and says so
// instead of panicking.
func TestZeroHandleActsClosed(t *testing.T) {
	var h Handle[int]
	if err := h.Spawn(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Spawn: %v", err)
	}
	if err := h.SpawnBatch([]int{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("SpawnBatch: %v", err)
	}
	if h.Accepting() {
		t.Fatal("zero Handle accepting")
	}
	h.Shutdown() // no panic
}

// TestOnPanicKeepsTheRunGoing: with OnPanic, a panicking task is reported
// and counts as finished; tasks it spawned, and every other task, still
// run; Join returns no error.
func TestOnPanicKeepsTheRunGoing(t *testing.T) {
	for _, cfg := range configs() {
		var reported atomic.Int64
		var ran atomic.Int64
		cfg.OnPanic = func(worker int, v any, stack []byte) {
			if v != "boom" || len(stack) == 0 || worker < 0 || worker >= cfg.Workers {
				t.Errorf("OnPanic(%d, %v, %d bytes of stack)", worker, v, len(stack))
			}
			reported.Add(1)
		}
		e := New(cfg, nil, func(n int, w *Worker[int, noScratch]) {
			ran.Add(1)
			if n < 1000 {
				w.Spawn(n + 1000) // spawned before the panic: must still run
			}
			if n%10 == 0 {
				panic("boom")
			}
		})
		for i := range 1000 {
			if err := e.Spawn(i); err != nil {
				t.Fatal(err)
			}
		}
		m, err := e.Join()
		if err != nil {
			t.Fatalf("%+v: Join: %v", cfg, err)
		}
		if ran.Load() != 2000 || m.Total.TasksRun != 2000 || m.Abandoned != 0 {
			t.Fatalf("%+v: ran %d (metrics %d, abandoned %d), want 2000", cfg, ran.Load(), m.Total.TasksRun, m.Abandoned)
		}
		if reported.Load() != 200 {
			t.Fatalf("%+v: OnPanic called %d times, want 200", cfg, reported.Load())
		}
	}
}

// TestOnPanicReplacesAWorkerThatCalledGoexit: a Goexit is reported as
// ErrGoexit and the worker goes on in a new goroutine, so every task still
// runs, on every worker.
func TestOnPanicReplacesAWorkerThatCalledGoexit(t *testing.T) {
	const workers = 2
	var goexits atomic.Int64
	var ran atomic.Int64
	e := New(Config{Workers: workers, OnPanic: func(_ int, v any, _ []byte) {
		if v != ErrGoexit {
			t.Errorf("OnPanic value %v, want ErrGoexit", v)
		}
		goexits.Add(1)
	}}, nil, func(n int, _ *Worker[int, noScratch]) {
		ran.Add(1)
		if n%50 == 0 {
			runtime.Goexit()
		}
	})
	for i := range 500 {
		if err := e.Spawn(i); err != nil {
			t.Fatal(err)
		}
	}
	m, err := e.Join()
	if err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 500 || m.Total.TasksRun != 500 || goexits.Load() != 10 {
		t.Fatalf("ran %d (metrics %d), %d Goexits reported; want 500 and 10", ran.Load(), m.Total.TasksRun, goexits.Load())
	}
}

// TestPanicInOnPanicStopsTheRun: if the handler itself panics, the run
// stops as it would without one, and Join reports the handler's panic.
func TestPanicInOnPanicStopsTheRun(t *testing.T) {
	e := New(Config{Workers: 2, OnPanic: func(int, any, []byte) { panic("handler") }}, nil,
		func(int, *Worker[int, noScratch]) { panic("task") })
	_ = e.SpawnBatch(make([]int, 100))
	m, err := e.Join()
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "handler" {
		t.Fatalf("Join error %v, want the handler's panic", err)
	}
	if m.Total.TasksRun+m.Abandoned != 100 {
		t.Fatalf("ran %d + abandoned %d != 100", m.Total.TasksRun, m.Abandoned)
	}
}
