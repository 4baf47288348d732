package spindle_test

import (
	"fmt"
	"sync/atomic"

	"github.com/spindle-go/spindle"
)

// A task type is any value; here a range of numbers to sum, split in half
// until small.
type span struct{ lo, hi int }

func Example() {
	var total atomic.Int64
	e := spindle.New(spindle.Config{Workers: 2}, nil, func(s span, w *spindle.Worker[span, struct{}]) {
		if s.hi-s.lo > 1000 {
			mid := (s.lo + s.hi) / 2
			w.Spawn(span{s.lo, mid})
			w.Spawn(span{mid, s.hi})
			return
		}
		sum := 0
		for i := s.lo; i < s.hi; i++ {
			sum += i
		}
		total.Add(int64(sum))
	})
	if err := e.Spawn(span{0, 1_000_000}); err != nil {
		panic(err)
	}
	if _, err := e.Join(); err != nil {
		panic(err)
	}
	fmt.Println(total.Load())
	// Output: 499999500000
}

// Scratch is per-worker state that tasks use without locking.
func ExampleNew_scratch() {
	type scratch struct{ buf []byte }
	e := spindle.New(spindle.Config{Workers: 2},
		func(worker int) *scratch { return &scratch{buf: make([]byte, 0, 64)} },
		func(word string, w *spindle.Worker[string, *scratch]) {
			w.Scratch.buf = append(w.Scratch.buf[:0], word...) // no allocation after warm-up
		})
	_ = e.SpawnBatch([]string{"a", "b", "c"})
	m, _ := e.Join()
	fmt.Println(m.Total.TasksRun)
	// Output: 3
}

// A Handle spawns from any goroutine; after Join it reports ErrClosed.
func ExampleHandle() {
	e := spindle.New(spindle.Config{}, nil, func(int, *spindle.Worker[int, struct{}]) {})
	h := e.Handle()
	done := make(chan error)
	go func() { done <- h.Spawn(1) }()
	fmt.Println(<-done)
	_, _ = e.Join()
	fmt.Println(h.Spawn(2))
	// Output:
	// <nil>
	// spindle: executor closed
}
