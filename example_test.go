package spindle_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle"
)

// A task type is any value; here a range of numbers to sum, split in half
// until small.
type span struct{ lo, hi int }

func Example() {
	var total atomic.Int64
	e := spindle.Start(context.Background(), spindle.Config{Workers: 2}, func(s span, w *spindle.Spawner[span]) {
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
	if err := e.Close(); err != nil { // drain, stop the workers
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

// An executor bound to a context stops when the context is done: queued
// tasks are abandoned, and Close reports the context's cause.
func ExampleNewContext() {
	ctx, cancel := context.WithCancelCause(context.Background())
	e := spindle.NewContext(ctx, spindle.Config{Workers: 1}, nil, func(n int, w *spindle.Worker[int, struct{}]) {
		if n == 3 {
			cancel(errors.New("enough"))
		}
		for w.Context().Err() == nil && n == 3 {
			time.Sleep(time.Millisecond) // a long task watches the context
		}
	})
	_ = e.SpawnBatch([]int{1, 2, 3, 4, 5, 6})
	m, err := e.Join()
	fmt.Println(err)
	fmt.Println(m.Total.TasksRun+m.Abandoned, "accepted")
	// Output:
	// spindle: executor stopped by its context: enough
	// 6 accepted
}

// With OnPanic, a task's panic or runtime.Goexit is reported and the
// executor keeps running the other tasks.
func ExampleConfig_onPanic() {
	var failed atomic.Int64
	cfg := spindle.Config{Workers: 2, OnPanic: func(worker int, v any, stack []byte) {
		failed.Add(1)
	}}
	e := spindle.Start(context.Background(), cfg, func(n int, w *spindle.Spawner[int]) {
		switch n {
		case 3:
			panic("bad input")
		case 5:
			runtime.Goexit() // what t.FailNow does in a test
		}
	})
	_ = e.SpawnBatch([]int{1, 2, 3, 4, 5, 6})
	m, err := e.Join()
	fmt.Println(m.Total.TasksRun, failed.Load(), err)
	// Output: 6 2 <nil>
}
