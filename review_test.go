package spindle

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
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
