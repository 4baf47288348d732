package spindle

import (
	"errors"
	"runtime"
	"testing"
)

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
