package fork_test

import (
	"testing"
	"time"

	"github.com/spindle-go/spindle/fork"
)

// quiet pools never promote: one worker, or a heartbeat longer than the
// test, so every fork stays untaken.
var quiet = []fork.Config{
	{Workers: 1},
	{Workers: 2, Heartbeat: time.Hour},
}

func sumRange(_ *fork.Task, i int) int { return i }
func add(a, b int) int                 { return a + b }
func nothing(*fork.Task, int)          {}
func one(*fork.Task) int               { return 1 }

func TestUntakenForkAllocatesNothing(t *testing.T) {
	root := balanced(1, 1023)
	cases := []struct {
		name string
		f    func(t *fork.Task, n *node) int
	}{
		{"Future", sumFork},
		{"Join2 without captures", func(t *fork.Task, _ *node) int {
			a, b := fork.Join2(t, one, one)
			return a + b
		}},
		{"For with a top-level body", func(t *fork.Task, _ *node) int {
			fork.For(t, 0, 1000, nothing)
			return 0
		}},
		{"Reduce with top-level functions", func(t *fork.Task, _ *node) int {
			return fork.Reduce(t, 0, 1000, 0, sumRange, add)
		}},
	}
	for _, c := range quiet {
		for _, tc := range cases {
			t.Run(name(c)+"/"+tc.name, func(t *testing.T) {
				p := fork.NewPool(c)
				defer p.Close()
				fork.Call(p, tc.f, root) // the first fork at each depth makes the records
				if allocs := testing.AllocsPerRun(100, func() { fork.Call(p, tc.f, root) }); allocs != 0 {
					t.Fatalf("%v allocations per Call, want 0", allocs)
				}
			})
		}
	}
}

func TestJoin2WithCapturesAllocatesOncePerCall(t *testing.T) {
	// The documented cost: fb is stored in the fork's record, so a
	// capturing fb moves to the heap; fa does not.
	p := fork.NewPool(fork.Config{Workers: 1})
	defer p.Close()
	x := 20
	f := func(t *fork.Task, _ int) int {
		a, b := fork.Join2(t,
			func(*fork.Task) int { return x },
			func(*fork.Task) int { return x + 1 })
		return a + b
	}
	fork.Call(p, f, 0)
	if allocs := testing.AllocsPerRun(100, func() { fork.Call(p, f, 0) }); allocs > 1 {
		t.Fatalf("%v allocations per Join2, want at most 1", allocs)
	}
}
