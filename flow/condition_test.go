package flow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestConditionRunsOnlyTheChosenBranch: of a condition's successors only the
// one picked runs, and tasks that depend only on the others never run.
func TestConditionRunsOnlyTheChosenBranch(t *testing.T) {
	for pick := range 3 {
		for _, workers := range workerCounts {
			t.Run(fmt.Sprintf("pick=%d/workers=%d", pick, workers), func(t *testing.T) {
				e := newExec(t, workers)
				rec := newRecorder(6)
				g := New("branch")
				start := g.Add("start", rec.task(0))
				cond := g.AddCondition("cond", func(context.Context) (int, error) { return pick, nil })
				b0, b1, b2 := g.Add("b0", rec.task(1)), g.Add("b1", rec.task(2)), g.Add("b2", rec.task(3))
				after0 := g.Add("after0", rec.task(4)) // only behind b0
				after1 := g.Add("after1", rec.task(5)) // only behind b1
				start.Precede(cond)
				cond.Precede(b0, b1, b2)
				b0.Precede(after0)
				b1.Precede(after1)
				if err := e.Run(context.Background(), g); err != nil {
					t.Fatal(err)
				}
				want := []int32{1, 0, 0, 0, 0, 0}
				want[1+pick] = 1
				if pick < 2 {
					want[4+pick] = 1
				}
				for i, w := range want {
					if got := rec.runs[i].Load(); got != w {
						t.Fatalf("task %d ran %d times, want %d", i, got, w)
					}
				}
			})
		}
	}
}

// loopGraph is init -> body -> cond, cond -0-> body, cond -1-> done: the
// body runs iters times. body has a strong predecessor (init) and a weak one
// (cond), the usual shape of an iterative algorithm.
func loopGraph(iters int, body, done *atomic.Int32) *Graph {
	g := New("loop")
	var i int // touched only by body and cond, which never run at once
	init := g.Add("init", func(context.Context) error { i = 0; return nil })
	b := g.Add("body", func(context.Context) error { body.Add(1); i++; return nil })
	cond := g.AddCondition("again?", func(context.Context) (int, error) {
		if i < iters {
			return 0, nil
		}
		return 1, nil
	})
	d := g.Add("done", func(context.Context) error { done.Add(1); return nil })
	init.Precede(b)
	b.Precede(cond)
	cond.Precede(b, d)
	return g
}

func TestConditionLoopIterates(t *testing.T) {
	for _, iters := range []int{1, 2, 100, 10000} {
		for _, workers := range workerCounts {
			t.Run(fmt.Sprintf("iters=%d/workers=%d", iters, workers), func(t *testing.T) {
				e := newExec(t, workers)
				var body, done atomic.Int32
				g := loopGraph(iters, &body, &done)
				const runs = 3
				if err := e.RunN(context.Background(), g, runs); err != nil {
					t.Fatal(err)
				}
				if got := body.Load(); got != int32(runs*iters) {
					t.Fatalf("body ran %d times, want %d", got, runs*iters)
				}
				if got := done.Load(); got != runs {
					t.Fatalf("done ran %d times, want %d", got, runs)
				}
			})
		}
	}
}

// TestLoopOverAParallelBody: the loop body is a fan-out/fan-in of several
// tasks whose join counter must be re-armed every round.
func TestLoopOverAParallelBody(t *testing.T) {
	const width, iters = 8, 50
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			g := New("parallel-loop")
			var round atomic.Int32
			var hits [width]atomic.Int32
			var bad atomic.Int32
			fork := g.Add("fork", nil)
			join := g.Add("join", func(context.Context) error {
				r := round.Add(1)
				for i := range hits {
					if hits[i].Load() != r {
						bad.Add(1)
					}
				}
				return nil
			})
			for i := range width {
				g.Add(fmt.Sprintf("w%d", i), func(context.Context) error { hits[i].Add(1); return nil }).
					Succeed(fork).Precede(join)
			}
			cond := g.AddCondition("again?", func(context.Context) (int, error) {
				if round.Load() < iters {
					return 0, nil
				}
				return 1, nil
			})
			join.Precede(cond)
			cond.Precede(fork, g.Add("exit", nil))
			start := g.Add("start", nil)
			start.Precede(fork)
			if err := e.Run(context.Background(), g); err != nil {
				t.Fatal(err)
			}
			if got := round.Load(); got != iters {
				t.Fatalf("%d rounds, want %d", got, iters)
			}
			if n := bad.Load(); n != 0 {
				t.Fatalf("join ran %d times before all of its round's workers", n)
			}
		})
	}
}

// TestConditionAsSource: a condition with no predecessors is a source, and
// a task whose only predecessor is a condition starts when picked.
func TestConditionAsSource(t *testing.T) {
	e := newExec(t, 2)
	var ran atomic.Int32
	g := New("cond-source")
	c := g.AddCondition("c", func(context.Context) (int, error) { return 1, nil })
	c.Precede(g.Add("no", func(context.Context) error { ran.Add(100); return nil }),
		g.Add("yes", func(context.Context) error { ran.Add(1); return nil }))
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if got := ran.Load(); got != 1 {
		t.Fatalf("ran = %d, want only the picked task (1)", got)
	}
}

// TestConditionSelfLoop: a condition may pick itself. (The self-edge is a
// predecessor, so the condition needs a start task to be reached.)
func TestConditionSelfLoop(t *testing.T) {
	e := newExec(t, 2)
	var n atomic.Int32
	g := New("self")
	c := g.AddCondition("spin", func(context.Context) (int, error) {
		if n.Add(1) < 10 {
			return 0, nil
		}
		return 1, nil
	})
	c.Precede(c, g.Add("out", nil))
	g.Add("start", nil).Precede(c)
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != 10 {
		t.Fatalf("condition ran %d times, want 10", got)
	}
}

func TestConditionIndexOutOfRangeIsAnError(t *testing.T) {
	for _, idx := range []int{-1, 2, 1 << 30} {
		t.Run(fmt.Sprint(idx), func(t *testing.T) {
			e := newExec(t, 2)
			var after atomic.Int32
			g := New("oob")
			c := g.AddCondition("pick", func(context.Context) (int, error) { return idx, nil })
			c.Precede(g.Add("a", func(context.Context) error { after.Add(1); return nil }),
				g.Add("b", func(context.Context) error { after.Add(1); return nil }))
			err := e.Run(context.Background(), g)
			if !errors.Is(err, ErrConditionIndex) {
				t.Fatalf("err = %v, want ErrConditionIndex", err)
			}
			if !strings.Contains(err.Error(), `"pick"`) || !strings.Contains(err.Error(), fmt.Sprint(idx)) {
				t.Fatalf("error %q does not name the task and the index", err)
			}
			if after.Load() != 0 {
				t.Fatal("a successor ran after an out-of-range index")
			}
		})
	}
}

// TestConditionErrorStopsTheRun: a condition's error is the run's error.
func TestConditionErrorStopsTheRun(t *testing.T) {
	e := newExec(t, 2)
	boom := errors.New("boom")
	g := New("cond-err")
	var ran atomic.Bool
	c := g.AddCondition("c", func(context.Context) (int, error) { return 0, boom })
	c.Precede(g.Add("a", func(context.Context) error { ran.Store(true); return nil }))
	if err := e.Run(context.Background(), g); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if ran.Load() {
		t.Fatal("successor ran after the condition failed")
	}
}

// TestStrongAndWeakPredecessors pins the documented rule: a task with both
// strong and weak predecessors starts when its strong predecessors have all
// finished, and again each time a condition picks it.
func TestStrongAndWeakPredecessors(t *testing.T) {
	e := newExec(t, 1)
	var x atomic.Int32
	g := New("mixed")
	a := g.Add("a", nil)
	c := g.AddCondition("c", func(context.Context) (int, error) { return 0, nil })
	target := g.Add("x", func(context.Context) error { x.Add(1); return nil })
	a.Precede(target) // strong
	c.Precede(target) // weak
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if got := x.Load(); got != 2 {
		t.Fatalf("x ran %d times, want 2 (once for its strong predecessor, once for the condition)", got)
	}
}

// TestLoopSideBranchCountsEveryRound: a join task hanging off a loop (the
// loop does not pass through it) runs once per round, even when the next
// round's predecessors finish before it has started: its counter is re-armed
// when it reaches zero, not when it starts.
func TestLoopSideBranchCountsEveryRound(t *testing.T) {
	const rounds = 200
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			var joins, round atomic.Int32
			g := New("side")
			a := g.Add("A", nil)
			p1, p2 := g.Add("P1", nil), g.Add("P2", nil)
			x := g.Add("X", func(context.Context) error { joins.Add(1); return nil })
			c := g.AddCondition("again?", func(context.Context) (int, error) {
				if round.Add(1) < rounds {
					return 0, nil
				}
				return 1, nil
			})
			g.Add("start", nil).Precede(a)
			a.Precede(p1, p2)
			p1.Precede(x)
			p2.Precede(x, c)
			c.Precede(a, g.Add("exit", nil))
			if err := e.Run(context.Background(), g); err != nil {
				t.Fatal(err)
			}
			if got := joins.Load(); got != rounds {
				t.Fatalf("X ran %d times, want once per round (%d)", got, rounds)
			}
		})
	}
}
