package flow

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
)

// goexitCases put a task that calls runtime.Goexit (what t.FailNow does in
// a test helper) in every place user code runs: a work task, a condition,
// a subflow's function, and a task inside a subflow.
var goexitCases = []struct {
	name string
	add  func(g *Graph) *Task
}{
	{"work", func(g *Graph) *Task {
		return g.Add("bad", func(context.Context) error { runtime.Goexit(); return nil })
	}},
	{"condition", func(g *Graph) *Task {
		return g.AddCondition("bad", func(context.Context) (int, error) { runtime.Goexit(); return 0, nil })
	}},
	{"subflow function", func(g *Graph) *Task {
		return g.AddSubflow("bad", func(context.Context, *Subflow) error { runtime.Goexit(); return nil })
	}},
	{"task in a subflow", func(g *Graph) *Task {
		return g.AddSubflow("bad", func(_ context.Context, sf *Subflow) error {
			a := sf.Add("a", nil)
			a.Precede(sf.Add("exits", func(context.Context) error { runtime.Goexit(); return nil }))
			return nil
		})
	}},
}

// TestGoexitInATaskEndsTheRunWithAnError: a Goexit in any kind of task ends
// Run (it used to hang) with a *spindle.PanicError wrapping
// spindle.ErrGoexit and naming the task; successors do not run, and the
// executor runs the next graph normally.
func TestGoexitInATaskEndsTheRunWithAnError(t *testing.T) {
	for _, tc := range goexitCases {
		for _, workers := range workerCounts {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				e := newExec(t, workers)
				var after atomic.Int32
				g := New("g")
				bad := tc.add(g)
				g.Add("before", nil).Precede(bad)
				bad.Precede(g.Add("after", func(context.Context) error { after.Add(1); return nil }))
				err := e.Run(context.Background(), g)
				var pe *spindle.PanicError
				if !errors.As(err, &pe) || !errors.Is(err, spindle.ErrGoexit) {
					t.Fatalf("Run error %v, want a *spindle.PanicError wrapping ErrGoexit", err)
				}
				if !containsAll(err.Error(), `graph "g"`, `task "bad`) {
					t.Fatalf("error %q does not name the graph and the task", err)
				}
				if after.Load() != 0 {
					t.Fatal("a successor of the task that exited ran")
				}
				checkExecutorUsable(t, e, workers)
			})
		}
	}
}

// checkExecutorUsable runs a wide graph on e and checks every task ran: a
// worker goroutine that exited must have been replaced, not lost.
func checkExecutorUsable(t *testing.T, e *Executor, workers int) {
	t.Helper()
	var ran atomic.Int32
	ok := New("ok")
	for i := range 4 * workers {
		ok.Add(fmt.Sprint(i), func(context.Context) error { ran.Add(1); return nil })
	}
	for range 3 {
		ran.Store(0)
		if err := e.Run(context.Background(), ok); err != nil {
			t.Fatalf("run after a Goexit: %v", err)
		}
		if got := ran.Load(); got != int32(4*workers) {
			t.Fatalf("run after a Goexit ran %d of %d tasks", got, 4*workers)
		}
	}
}

// TestGoexitInRunNStopsTheRemainingRuns: RunN stops at the run whose task
// exited and reports it.
func TestGoexitInRunNStopsTheRemainingRuns(t *testing.T) {
	e := newExec(t, 2)
	var runs atomic.Int32
	g := New("g")
	g.Add("count", func(context.Context) error {
		if runs.Add(1) == 3 {
			runtime.Goexit()
		}
		return nil
	})
	err := e.RunN(context.Background(), g, 10)
	if !errors.Is(err, spindle.ErrGoexit) {
		t.Fatalf("RunN error %v, want ErrGoexit", err)
	}
	if got := runs.Load(); got != 3 {
		t.Fatalf("the task ran %d times, want 3 (RunN must stop at the failed run)", got)
	}
	checkExecutorUsable(t, e, 2)
}

// TestGoexitLeavesConcurrentRunsAlone: while one run's task calls Goexit,
// other runs on the same executor complete with every task run.
func TestGoexitLeavesConcurrentRunsAlone(t *testing.T) {
	const runners = 4
	e := newExec(t, 2)
	good := New("good")
	var ran atomic.Int64
	for i := range 64 {
		good.Add(fmt.Sprint(i), func(context.Context) error { ran.Add(1); return nil })
	}
	bad := New("bad")
	bad.Add("exits", func(context.Context) error { runtime.Goexit(); return nil })
	var wg sync.WaitGroup
	errs := make(chan error, runners*20)
	for r := range runners {
		wg.Go(func() {
			for range 20 {
				g := good
				if r == 0 {
					g = bad
				}
				errs <- e.Run(context.Background(), g)
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, spindle.ErrGoexit):
			failed++
		default:
			t.Fatalf("unexpected run error: %v", err)
		}
	}
	if failed != 20 {
		t.Fatalf("%d runs failed with ErrGoexit, want the 20 runs of the bad graph", failed)
	}
	if got := ran.Load(); got != 64*20*(runners-1) {
		t.Fatalf("good runs ran %d tasks, want %d", got, 64*20*(runners-1))
	}
}
