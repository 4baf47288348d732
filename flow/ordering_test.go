package flow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
)

// TaskFlow-RS's integration cases (its tests/integration_tests.rs), as
// graphs whose every edge the run must respect.
var seedCases = []struct {
	name string
	d    dag
}{
	{"simple", dag{n: 1}},
	{"sequential", dag{n: 3, edges: [][2]int{{0, 1}, {1, 2}}}},
	{"diamond", dag{n: 4, edges: [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}}},
	{"multiple successors", dag{n: 5, edges: [][2]int{{0, 1}, {0, 2}, {0, 3}, {0, 4}}}},
	{"multiple predecessors", dag{n: 5, edges: [][2]int{{0, 4}, {1, 4}, {2, 4}, {3, 4}}}},
	{"complex 10-node", dag{n: 10, edges: [][2]int{
		{0, 1}, {0, 2}, {1, 3}, {2, 3}, {2, 4}, {3, 5}, {4, 5},
		{4, 6}, {5, 7}, {6, 7}, {7, 8}, {1, 8}, {8, 9}, {6, 9},
	}}},
	{"independent", dag{n: 64}},
	{"fan-out and fan-in of 1000", fanOutIn(1000)}, // spills the worker's ring
	{"duplicate edges", dag{n: 3, edges: [][2]int{{0, 1}, {0, 1}, {1, 2}, {0, 2}, {0, 2}}}},
}

// fanOutIn is one source, n middle tasks after it, and one sink after them.
func fanOutIn(n int) dag {
	d := dag{n: n + 2}
	for i := 1; i <= n; i++ {
		d.edges = append(d.edges, [2]int{0, i}, [2]int{i, n + 1})
	}
	return d
}

func TestRunRespectsEveryEdge(t *testing.T) {
	for _, tc := range seedCases {
		for _, workers := range workerCounts {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				e := newExec(t, workers)
				rec := newRecorder(tc.d.n)
				g, _ := tc.d.build(tc.name, rec)
				if err := e.Run(context.Background(), g); err != nil {
					t.Fatal(err)
				}
				tc.d.checkRun(t, rec, 1)
			})
		}
	}
}

// TestRandomDAGsMatchTopologicalReference runs random DAGs of 1 to 2000
// tasks and compares each run with the reference topological order: the
// same tasks run, each exactly once, and every edge is respected.
func TestRandomDAGsMatchTopologicalReference(t *testing.T) {
	graphs := 60
	if testing.Short() {
		graphs = 20
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range graphs {
		n := 1 + rng.IntN(2000)
		if i < 3 {
			n = []int{1, 2, 2000}[i] // always cover both ends
		}
		d := randomDAG(rng, n, 1+rng.IntN(6))
		workers := workerCounts[i%len(workerCounts)]
		t.Run(fmt.Sprintf("n=%d/edges=%d/workers=%d", n, len(d.edges), workers), func(t *testing.T) {
			e := newExec(t, workers)
			rec := newRecorder(n)
			g, _ := d.build("random", rec)
			const runs = 3
			for range runs { // reuses the pooled run state
				if err := e.Run(context.Background(), g); err != nil {
					t.Fatal(err)
				}
			}
			d.checkRun(t, rec, runs)
		})
	}
}

// TestRunNRunsSequentially checks that RunN's runs do not overlap: when the
// k-th task start of the whole RunN happens, every task of the runs before
// run k/n has already ended.
func TestRunNRunsSequentially(t *testing.T) {
	for _, workers := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			e := newExec(t, workers)
			d := randomDAG(rand.New(rand.NewPCG(3, 4)), 200, 3)
			const runs = 7
			var started, ended, early atomic.Int64
			g := New("runs")
			tasks := make([]*Task, d.n)
			for i := range tasks {
				tasks[i] = g.Add("", func(context.Context) error {
					k := started.Add(1) - 1
					if ended.Load() < k/int64(d.n)*int64(d.n) {
						early.Add(1)
					}
					ended.Add(1)
					return nil
				})
			}
			for _, ed := range d.edges {
				tasks[ed[0]].Precede(tasks[ed[1]])
			}
			if err := e.RunN(context.Background(), g, runs); err != nil {
				t.Fatal(err)
			}
			if got := ended.Load(); got != runs*int64(d.n) {
				t.Fatalf("%d task runs, want %d", got, runs*d.n)
			}
			if n := early.Load(); n != 0 {
				t.Fatalf("%d tasks started before the previous run had ended", n)
			}
		})
	}
}

func TestRunNCounts(t *testing.T) {
	e := newExec(t, 2)
	tests := []struct {
		n       int
		wantRun int32
		wantErr bool
	}{{0, 0, false}, {1, 1, false}, {5, 5, false}, {-1, 0, true}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("n=%d", tc.n), func(t *testing.T) {
			rec := newRecorder(3)
			g, _ := dag{n: 3, edges: [][2]int{{0, 1}, {1, 2}}}.build("count", rec)
			err := e.RunN(context.Background(), g, tc.n)
			if (err != nil) != tc.wantErr {
				t.Fatalf("RunN(%d) error = %v, want error %v", tc.n, err, tc.wantErr)
			}
			for i := range 3 {
				if got := rec.runs[i].Load(); got != tc.wantRun {
					t.Fatalf("task %d ran %d times, want %d", i, got, tc.wantRun)
				}
			}
		})
	}
}

func TestEmptyGraphRunsNothing(t *testing.T) {
	e := newExec(t, 2)
	if err := e.Run(context.Background(), New("empty")); err != nil {
		t.Fatal(err)
	}
}

func TestNilFunctionIsAPlaceholder(t *testing.T) {
	e := newExec(t, 2)
	rec := newRecorder(2)
	g := New("placeholder")
	a := g.Add("a", rec.task(0))
	join := g.Add("join", nil)
	b := g.Add("b", rec.task(1))
	a.Precede(join)
	join.Precede(b)
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	dag{n: 2, edges: [][2]int{{0, 1}}}.checkRun(t, rec, 1)
}

// TestGraphChangesApplyToLaterRuns: the compiled plan is rebuilt after a
// change, so a run started after Add and Precede sees them.
func TestGraphChangesApplyToLaterRuns(t *testing.T) {
	e := newExec(t, 2)
	rec := newRecorder(3)
	g := New("grow")
	a := g.Add("a", rec.task(0))
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	b := g.Add("b", rec.task(1))
	c := g.Add("c", rec.task(2))
	a.Precede(b)
	c.Succeed(b)
	if err := e.Run(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int32{2, 1, 1} {
		if got := rec.runs[i].Load(); got != want {
			t.Fatalf("task %d ran %d times, want %d", i, got, want)
		}
	}
	if rec.end[0].Load() >= rec.start[1].Load() {
		t.Fatal("b started before a ended")
	}
	if rec.end[1].Load() >= rec.start[2].Load() {
		t.Fatal("c started before b ended")
	}
}

// TestSharedQueueStrategy: with spindle's Shared strategy every spawn goes to
// the one injector (no private next slot); graphs still run correctly.
func TestSharedQueueStrategy(t *testing.T) {
	e := NewExecutor(spindle.Config{Workers: 2, Queue: spindle.Shared})
	defer e.Close()
	for _, tc := range seedCases {
		rec := newRecorder(tc.d.n)
		g, _ := tc.d.build(tc.name, rec)
		if err := e.Run(context.Background(), g); err != nil {
			t.Fatal(err)
		}
		tc.d.checkRun(t, rec, 1)
	}
	var body, done atomic.Int32
	if err := e.Run(context.Background(), loopGraph(50, &body, &done)); err != nil || body.Load() != 50 || done.Load() != 1 {
		t.Fatalf("loop under Shared: err %v, body %d, done %d", err, body.Load(), done.Load())
	}
}
