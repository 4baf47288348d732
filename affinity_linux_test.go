//go:build linux

package spindle

import (
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPinThreadsBindsEachWorkerToOneCPU(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Skip("sched_getaffinity:", err)
	}
	counts := make(chan int, 64)
	e := New(Config{Workers: 2, PinThreads: true}, nil, func(int, *Worker[int, noScratch]) {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			counts <- -1
			return
		}
		counts <- set.Count()
	})
	for i := 0; i < 8; i++ {
		if err := e.Spawn(i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Join(); err != nil {
		t.Fatal(err)
	}
	close(counts)
	for c := range counts {
		if c != 1 {
			t.Fatalf("a pinned worker's thread may run on %d CPUs, want 1", c)
		}
	}
}

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
