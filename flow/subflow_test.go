package flow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
)

// TestSubflowJoinsBeforeSuccessors is TaskFlow-RS's subflow case: A -> S -> B
// where S spawns children x -> y and z; B starts only after all three.
func TestSubflowJoinsBeforeSuccessors(t *testing.T) {
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			rec := newRecorder(5) // a, x, y, z, b
			g := New("sub")
			a := g.Add("A", rec.task(0))
			s := g.AddSubflow("S", func(_ context.Context, sf *Subflow) error {
				x := sf.Add("x", rec.task(1))
				y := sf.Add("y", rec.task(2))
				sf.Add("z", rec.task(3))
				x.Precede(y)
				return nil
			})
			b := g.Add("B", rec.task(4))
			a.Precede(s)
			s.Precede(b)
			if err := e.RunN(context.Background(), g, 3); err != nil {
				t.Fatal(err)
			}
			dag{n: 5, edges: [][2]int{{0, 1}, {0, 3}, {1, 2}, {2, 4}, {3, 4}}}.checkRun(t, rec, 3)
		})
	}
}

// TestNestedSubflowsJoin: subflows nest; a subflow completes only when its
// grandchildren have. One worker must not deadlock (go-taskflow's subflows
// block a worker and need more workers than nesting levels).
func TestNestedSubflowsJoin(t *testing.T) {
	const depth, fan = 6, 3
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			var leaves atomic.Int64
			var nest func(level int) func(context.Context, *Subflow) error
			nest = func(level int) func(context.Context, *Subflow) error {
				return func(_ context.Context, sf *Subflow) error {
					for i := range fan {
						if level == depth {
							sf.Add(fmt.Sprint("leaf", i), func(context.Context) error { leaves.Add(1); return nil })
						} else {
							sf.AddSubflow(fmt.Sprint("sub", i), nest(level+1))
						}
					}
					return nil
				}
			}
			g := New("nest")
			var seen int64
			root := g.AddSubflow("root", nest(1))
			root.Precede(g.Add("after", func(context.Context) error { seen = leaves.Load(); return nil }))
			if err := e.Run(context.Background(), g); err != nil {
				t.Fatal(err)
			}
			want := int64(1)
			for range depth {
				want *= fan
			}
			if seen != want {
				t.Fatalf("successor saw %d leaves done, want all %d", seen, want)
			}
		})
	}
}

// TestRandomSubflowsJoin: random DAGs whose tasks are randomly subflows
// that build random child DAGs; every child of a subflow task must end before
// any successor of that task starts.
func TestRandomSubflowsJoin(t *testing.T) {
	graphs := 30
	if testing.Short() {
		graphs = 10
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range graphs {
		n := 1 + rng.IntN(300)
		d := randomDAG(rng, n, 3)
		children := make([]dag, n)
		for j := range children {
			if rng.IntN(3) == 0 {
				children[j] = randomDAG(rng, 1+rng.IntN(50), 2)
			}
		}
		workers := workerCounts[i%len(workerCounts)]
		t.Run(fmt.Sprintf("n=%d/workers=%d", n, workers), func(t *testing.T) {
			e := newExec(t, workers)
			rec := newRecorder(n)
			childEnd := make([]atomic.Int64, n) // latest end among j's children
			g := New("random-sub")
			tasks := make([]*Task, n)
			for j := range tasks {
				cd := children[j]
				if cd.n == 0 {
					tasks[j] = g.Add(fmt.Sprint("n", j), rec.task(j))
					continue
				}
				tasks[j] = g.AddSubflow(fmt.Sprint("s", j), func(ctx context.Context, sf *Subflow) error {
					_ = rec.task(j)(ctx) // the subflow function itself
					ct := make([]*Task, cd.n)
					for k := range ct {
						ct[k] = sf.Add(fmt.Sprint("c", k), func(context.Context) error {
							s := rec.seq.Add(1)
							for {
								old := childEnd[j].Load()
								if s <= old || childEnd[j].CompareAndSwap(old, s) {
									return nil
								}
							}
						})
					}
					for _, ed := range cd.edges {
						ct[ed[0]].Precede(ct[ed[1]])
					}
					return nil
				})
			}
			for _, ed := range d.edges {
				tasks[ed[0]].Precede(tasks[ed[1]])
			}
			if err := e.Run(context.Background(), g); err != nil {
				t.Fatal(err)
			}
			d.checkRun(t, rec, 1)
			for _, ed := range d.edges {
				if c := childEnd[ed[0]].Load(); c != 0 && c >= rec.start[ed[1]].Load() {
					t.Fatalf("n%d started before a child of subflow s%d ended", ed[1], ed[0])
				}
			}
		})
	}
}

func TestSubflowErrorsStopTheRun(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		fn      func(context.Context, *Subflow) error
		wantIs  error
		wantMsg string
	}{
		{"function error", func(context.Context, *Subflow) error { return boom }, boom, `task "S"`},
		{"child error", func(_ context.Context, sf *Subflow) error {
			sf.Add("c", func(context.Context) error { return boom })
			return nil
		}, boom, `task "S/c"`},
		{"nested child error", func(_ context.Context, sf *Subflow) error {
			sf.AddSubflow("inner", func(_ context.Context, sf *Subflow) error {
				sf.Add("leaf", func(context.Context) error { return boom })
				return nil
			})
			return nil
		}, boom, `task "S/inner/leaf"`},
		{"child cycle", func(_ context.Context, sf *Subflow) error {
			a, b := sf.Add("a", nil), sf.Add("b", nil)
			a.Precede(b)
			b.Precede(a)
			sf.Add("c", nil)
			return nil
		}, ErrCycle, `"a" -> "b" -> "a"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newExec(t, 2)
			var after atomic.Bool
			g := New("g")
			g.AddSubflow("S", tc.fn).Precede(g.Add("after", func(context.Context) error { after.Store(true); return nil }))
			err := e.Run(context.Background(), g)
			if !errors.Is(err, tc.wantIs) {
				t.Fatalf("err = %v, want %v", err, tc.wantIs)
			}
			if !containsAll(err.Error(), tc.wantMsg) {
				t.Fatalf("error %q does not contain %q", err, tc.wantMsg)
			}
			if after.Load() {
				t.Fatal("the subflow's successor ran after a failure inside it")
			}
		})
	}
}

// TestSubflowChildCannotLinkOutside: a child task preceding a task of the
// enclosing graph is a foreign edge, an error.
func TestSubflowChildCannotLinkOutside(t *testing.T) {
	e := newExec(t, 2)
	g := New("g")
	outside := g.Add("outside", nil)
	g.AddSubflow("S", func(_ context.Context, sf *Subflow) error {
		sf.Add("child", nil).Precede(outside)
		return nil
	})
	if err := e.Run(context.Background(), g); !errors.Is(err, ErrForeignTask) {
		t.Fatalf("err = %v, want ErrForeignTask", err)
	}
}

func TestEmptySubflowCompletesAtOnce(t *testing.T) {
	e := newExec(t, 2)
	var after atomic.Int32
	g := New("g")
	a := g.AddSubflow("empty", func(context.Context, *Subflow) error { return nil })
	b := g.AddSubflow("nil", nil)
	c := g.Add("after", func(context.Context) error { after.Add(1); return nil })
	a.Precede(c)
	b.Precede(c)
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if after.Load() != 1 {
		t.Fatal("successor of empty subflows did not run exactly once")
	}
}

// TestSubflowInsideLoop: a subflow task in a condition loop builds and joins
// a fresh child graph every round.
func TestSubflowInsideLoop(t *testing.T) {
	const rounds, kids = 20, 5
	e := newExec(t, 2)
	var done atomic.Int32
	var bad atomic.Int32
	g := New("loop-sub")
	var round int
	s := g.AddSubflow("S", func(_ context.Context, sf *Subflow) error {
		for range kids {
			sf.Add("", func(context.Context) error { done.Add(1); return nil })
		}
		return nil
	})
	check := g.AddCondition("again?", func(context.Context) (int, error) {
		round++
		if done.Load() != int32(round*kids) {
			bad.Add(1)
		}
		if round < rounds {
			return 0, nil
		}
		return 1, nil
	})
	g.Add("start", nil).Precede(s)
	s.Precede(check)
	check.Precede(s, g.Add("end", nil))
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if bad.Load() != 0 || done.Load() != rounds*kids {
		t.Fatalf("children done %d (want %d), %d rounds saw unfinished children", done.Load(), rounds*kids, bad.Load())
	}
}

// TestConditionLoopInsideSubflow: a subflow's children may loop through a
// condition task; the subflow joins when the loop exits. The executor uses
// the default worker count.
func TestConditionLoopInsideSubflow(t *testing.T) {
	e := NewExecutor(spindle.Config{})
	defer e.Close()
	const iters = 25
	var body atomic.Int32
	var name string
	var seen int32
	g := New("g")
	s := g.AddSubflow("S", func(_ context.Context, sf *Subflow) error {
		name = sf.Name()
		init := sf.Add("init", nil)
		b := sf.Add("body", func(context.Context) error { body.Add(1); return nil })
		c := sf.AddCondition("again?", func(context.Context) (int, error) {
			if body.Load() < iters {
				return 0, nil
			}
			return 1, nil
		})
		init.Precede(b)
		b.Precede(c)
		c.Precede(b, sf.Add("exit", nil))
		return nil
	})
	s.Precede(g.Add("after", func(context.Context) error { seen = body.Load(); return nil }))
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	if name != "S" || seen != iters {
		t.Fatalf("subflow named %q, successor saw %d iterations; want \"S\" and %d", name, seen, iters)
	}
}
