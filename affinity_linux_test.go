package spindle

import (
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
