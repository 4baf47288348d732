package flow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
)

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestTaskFailureStopsTheRun: an error or a panic in a task (of each kind)
// is Run's error, names the task, and its successors never start.
func TestTaskFailureStopsTheRun(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		add       func(g *Graph) *Task
		wantIs    error
		wantPanic any
	}{
		{"error", func(g *Graph) *Task {
			return g.Add("bad", func(context.Context) error { return boom })
		}, boom, nil},
		{"wrapped error", func(g *Graph) *Task {
			return g.Add("bad", func(context.Context) error { return fmt.Errorf("ctx: %w", boom) })
		}, boom, nil},
		{"panic value", func(g *Graph) *Task {
			return g.Add("bad", func(context.Context) error { panic("kaboom") })
		}, nil, "kaboom"},
		{"panic error", func(g *Graph) *Task {
			return g.Add("bad", func(context.Context) error { panic(boom) })
		}, boom, boom},
		{"condition panic", func(g *Graph) *Task {
			return g.AddCondition("bad", func(context.Context) (int, error) { panic("kaboom") })
		}, nil, "kaboom"},
		{"subflow panic", func(g *Graph) *Task {
			return g.AddSubflow("bad", func(context.Context, *Subflow) error { panic("kaboom") })
		}, nil, "kaboom"},
	}
	for _, tc := range tests {
		for _, workers := range workerCounts {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				e := newExec(t, workers)
				var after atomic.Int32
				g := New("g")
				before := g.Add("before", nil)
				bad := tc.add(g)
				before.Precede(bad)
				bad.Precede(g.Add("after", func(context.Context) error { after.Add(1); return nil }))
				err := e.Run(context.Background(), g)
				if err == nil {
					t.Fatal("Run returned nil")
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Fatalf("err = %v, want it to wrap %v", err, tc.wantIs)
				}
				var pe *spindle.PanicError
				if got := errors.As(err, &pe); got != (tc.wantPanic != nil) {
					t.Fatalf("errors.As(*spindle.PanicError) = %v for %v", got, err)
				}
				if pe != nil && (pe.Value != tc.wantPanic || len(pe.Stack) == 0) {
					t.Fatalf("PanicError value %v stack %d bytes, want %v and a stack", pe.Value, len(pe.Stack), tc.wantPanic)
				}
				if !containsAll(err.Error(), `graph "g"`, `task "bad"`) {
					t.Fatalf("error %q does not name the graph and the task", err)
				}
				if after.Load() != 0 {
					t.Fatal("a successor of the failed task ran")
				}
				// The executor survives: the next run works.
				ok := New("ok")
				ok.Add("fine", nil)
				if err := e.Run(context.Background(), ok); err != nil {
					t.Fatalf("run after a failure: %v", err)
				}
			})
		}
	}
}

// TestFirstErrorCancelsTheTasksContext: the context the tasks get is
// cancelled by the first error, with that error as its cause, so running
// tasks can stop early; tasks not started are skipped.
func TestFirstErrorCancelsTheTasksContext(t *testing.T) {
	e := newExec(t, 2)
	boom := errors.New("boom")
	g := New("g")
	var skipped atomic.Int32
	var cause error
	waiter := g.Add("waiter", func(ctx context.Context) error {
		<-ctx.Done()
		cause = context.Cause(ctx)
		return ctx.Err()
	})
	failer := g.Add("failer", func(context.Context) error { return boom })
	for i := range 100 {
		failer.Precede(g.Add(fmt.Sprint("skip", i), func(context.Context) error { skipped.Add(1); return nil }))
	}
	waiter.Precede(g.Add("after-waiter", func(context.Context) error { skipped.Add(1); return nil }))
	err := e.Run(context.Background(), g)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the first error (boom)", err)
	}
	if !errors.Is(cause, boom) {
		t.Fatalf("tasks' context cause = %v, want boom", cause)
	}
	if n := skipped.Load(); n != 0 {
		t.Fatalf("%d tasks started after the failure", n)
	}
}

// TestCallerCancellationStopsTheRun: cancelling the caller's context while
// a run is in flight stops it like a task error; Run returns ctx's error.
func TestCallerCancellationStopsTheRun(t *testing.T) {
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			g := New("g")
			var later atomic.Int32
			prev := g.Add("cancel", func(tctx context.Context) error {
				cancel()
				<-tctx.Done() // the run's context follows the caller's
				return nil
			})
			for i := range 50 {
				n := g.Add(fmt.Sprint("t", i), func(context.Context) error { later.Add(1); return nil })
				prev.Precede(n)
				prev = n
			}
			err := e.Run(ctx, g)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if n := later.Load(); n != 0 {
				t.Fatalf("%d tasks started after the caller cancelled", n)
			}
		})
	}
}

func TestCancelledContextRunsNothing(t *testing.T) {
	e := newExec(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Bool
	g := New("g")
	g.Add("a", func(context.Context) error { ran.Store(true); return nil })
	if err := e.Run(ctx, g); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if ran.Load() {
		t.Fatal("a task ran under a cancelled context")
	}
}

// TestRunNStopsAtTheFirstError: later runs of RunN do not start.
func TestRunNStopsAtTheFirstError(t *testing.T) {
	e := newExec(t, 2)
	var runs atomic.Int32
	g := New("g")
	g.Add("third fails", func(context.Context) error {
		if runs.Add(1) == 3 {
			return errors.New("third")
		}
		return nil
	})
	if err := e.RunN(context.Background(), g, 10); err == nil {
		t.Fatal("RunN returned nil")
	}
	if got := runs.Load(); got != 3 {
		t.Fatalf("task ran %d times, want 3", got)
	}
}

// TestValidationErrors: malformed graphs are rejected before any task runs,
// with an error that says what and where.
func TestValidationErrors(t *testing.T) {
	tests := []struct {
		name   string
		build  func(g *Graph, ran func(context.Context) error)
		wantIs error
		msg    []string
	}{
		{"two-cycle", func(g *Graph, ran func(context.Context) error) {
			a, b := g.Add("a", ran), g.Add("b", ran)
			src := g.Add("src", ran)
			src.Precede(a)
			a.Precede(b)
			b.Precede(a)
		}, ErrCycle, []string{`"a" -> "b" -> "a"`}},
		{"self-loop", func(g *Graph, ran func(context.Context) error) {
			g.Add("src", ran)
			a := g.Add("self", ran)
			a.Precede(a)
		}, ErrCycle, []string{`"self" -> "self"`}},
		{"long cycle behind a source", func(g *Graph, ran func(context.Context) error) {
			src := g.Add("src", ran)
			first := g.Add("c0", ran)
			src.Precede(first)
			prev := first
			for i := 1; i < 5; i++ {
				n := g.Add(fmt.Sprint("c", i), ran)
				prev.Precede(n)
				prev = n
			}
			prev.Precede(first)
			prev.Precede(g.Add("downstream", ran))
		}, ErrCycle, []string{`"c0" -> "c1" -> "c2" -> "c3" -> "c4" -> "c0"`}},
		{"no source", func(g *Graph, ran func(context.Context) error) {
			c := g.AddCondition("c", func(context.Context) (int, error) { return 0, nil })
			a := g.Add("a", ran)
			c.Precede(a)
			a.Precede(c)
		}, ErrNoSource, nil},
		{"foreign successor", func(g *Graph, ran func(context.Context) error) {
			other := New("other")
			g.Add("a", ran).Precede(other.Add("b", ran))
		}, ErrForeignTask, []string{`"a"`, `"b"`, `"other"`}},
		{"foreign predecessor", func(g *Graph, ran func(context.Context) error) {
			other := New("other")
			g.Add("a", ran).Succeed(other.Add("b", ran))
		}, ErrForeignTask, []string{`"a"`, `"b"`}},
		{"nil successor", func(g *Graph, ran func(context.Context) error) {
			g.Add("a", ran).Precede(nil)
		}, ErrNilTask, []string{`"a"`}},
		{"nil predecessor", func(g *Graph, ran func(context.Context) error) {
			g.Add("a", ran).Succeed(nil)
		}, ErrNilTask, []string{`"a"`}},
		{"nil condition", func(g *Graph, ran func(context.Context) error) {
			g.AddCondition("c", nil)
		}, ErrNilTask, []string{`"c"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newExec(t, 2)
			var ran atomic.Bool
			g := New("g")
			tc.build(g, func(context.Context) error { ran.Store(true); return nil })
			err := e.Run(context.Background(), g)
			if !errors.Is(err, tc.wantIs) {
				t.Fatalf("err = %v, want %v", err, tc.wantIs)
			}
			if !containsAll(err.Error(), append(tc.msg, `graph "g"`)...) {
				t.Fatalf("error %q does not contain %q", err, tc.msg)
			}
			if ran.Load() {
				t.Fatal("a task ran in an invalid graph")
			}
		})
	}
}

// TestCycleThroughConditionIsValid: the same cycle closed by a condition
// task's weak edge is a loop, not an error.
func TestCycleThroughConditionIsValid(t *testing.T) {
	e := newExec(t, 2)
	g := New("g")
	var n atomic.Int32
	a := g.Add("a", func(context.Context) error { n.Add(1); return nil })
	c := g.AddCondition("c", func(context.Context) (int, error) {
		if n.Load() < 3 {
			return 0, nil
		}
		return 1, nil
	})
	g.Add("src", nil).Precede(a)
	a.Precede(c)
	c.Precede(a, g.Add("out", nil))
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 {
		t.Fatalf("a ran %d times, want 3", n.Load())
	}
}

func TestRunAfterCloseFails(t *testing.T) {
	e := NewExecutor(spindle.Config{Workers: 2})
	e.Close()
	e.Close() // idempotent
	g := New("g")
	g.Add("a", nil)
	if err := e.Run(context.Background(), g); !errors.Is(err, spindle.ErrClosed) {
		t.Fatalf("err = %v, want spindle.ErrClosed", err)
	}
}

func TestNilGraphIsAnError(t *testing.T) {
	e := newExec(t, 1)
	if err := e.Run(context.Background(), nil); err == nil {
		t.Fatal("Run(nil) returned nil")
	}
}
