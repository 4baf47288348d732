package spindle

import (
	"sync"
	"testing"
	"time"

	"github.com/spindle-go/spindle/internal/core"
)

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
