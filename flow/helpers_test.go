package flow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// workerCounts are the executor sizes most tests run under: one worker
// (everything serialised, no stealing), two (the CI machine), and more workers
// than cores (preemption inside the scheduler's critical paths). newExec puts
// the largest on spindle's Shared queue, where a spawned strand is visible to
// every worker at once instead of waiting in the spawner's private slot: that
// exposes any window in which a frame's pending count could touch zero early.
var workerCounts = []int{1, 2, 4}

func newExec(t testing.TB, workers int) *Executor {
	t.Helper()
	cfg := spindle.Config{Workers: workers}
	if workers > 2 {
		cfg.Queue = spindle.Shared
	}
	e := NewExecutor(cfg)
	t.Cleanup(e.Close)
	return e
}

// recorder records, for each task of a test graph, how many times it ran
// and the global sequence numbers of its last start and end.
type recorder struct {
	seq   atomic.Int64
	runs  []atomic.Int32
	start []atomic.Int64
	end   []atomic.Int64
}

func newRecorder(n int) *recorder {
	return &recorder{runs: make([]atomic.Int32, n), start: make([]atomic.Int64, n), end: make([]atomic.Int64, n)}
}

// task returns a task function that records task i.
func (r *recorder) task(i int) func(context.Context) error {
	return func(context.Context) error {
		r.start[i].Store(r.seq.Add(1))
		r.runs[i].Add(1)
		r.end[i].Store(r.seq.Add(1))
		return nil
	}
}

// dag is a test graph given by its edges over tasks 0..n-1.
type dag struct {
	n     int
	edges [][2]int
}

// build makes a flow.Graph of d whose tasks record into rec.
func (d dag) build(name string, rec *recorder) (*Graph, []*Task) {
	g := New(name)
	tasks := make([]*Task, d.n)
	for i := range tasks {
		tasks[i] = g.Add(fmt.Sprintf("n%d", i), rec.task(i))
	}
	for _, e := range d.edges {
		tasks[e[0]].Precede(tasks[e[1]])
	}
	return g, tasks
}

// topoOrder is the reference: Kahn's algorithm over d, sequentially. It
// returns nil if d has a cycle.
func (d dag) topoOrder() []int {
	indeg := make([]int, d.n)
	succ := make([][]int, d.n)
	for _, e := range d.edges {
		succ[e[0]] = append(succ[e[0]], e[1])
		indeg[e[1]]++
	}
	var order []int
	for i := range indeg {
		if indeg[i] == 0 {
			order = append(order, i)
		}
	}
	for h := 0; h < len(order); h++ {
		for _, s := range succ[order[h]] {
			if indeg[s]--; indeg[s] == 0 {
				order = append(order, s)
			}
		}
	}
	if len(order) != d.n {
		return nil
	}
	return order
}

// checkRun verifies one run of d recorded in rec: every task the reference
// order contains ran exactly once, and each edge's head started after its
// tail ended.
func (d dag) checkRun(t *testing.T, rec *recorder, times int32) {
	t.Helper()
	ref := d.topoOrder()
	if ref == nil {
		t.Fatal("test graph has a cycle")
	}
	for _, i := range ref {
		if got := rec.runs[i].Load(); got != times {
			t.Fatalf("task n%d ran %d times, want %d", i, got, times)
		}
	}
	for _, e := range d.edges {
		if u, v := rec.end[e[0]].Load(), rec.start[e[1]].Load(); u >= v {
			t.Fatalf("edge n%d -> n%d: n%d started (seq %d) before n%d ended (seq %d)", e[0], e[1], e[1], v, e[0], u)
		}
	}
}

// randomDAG returns a DAG on n nodes: each node j draws up to maxPred
// predecessors among the nodes before it (so it is acyclic), under a random
// permutation of the indices so that sources are not always the low ones.
func randomDAG(rng *rand.Rand, n, maxPred int) dag {
	perm := rng.Perm(n)
	d := dag{n: n}
	for j := 1; j < n; j++ {
		k := rng.IntN(maxPred + 1)
		for range k {
			i := rng.IntN(j)
			d.edges = append(d.edges, [2]int{perm[i], perm[j]})
		}
	}
	return d
}

// descendants marks the tasks reachable from task u (u excluded).
func (d dag) descendants(u int) []bool {
	succ := make([][]int, d.n)
	for _, e := range d.edges {
		succ[e[0]] = append(succ[e[0]], e[1])
	}
	seen := make([]bool, d.n)
	stack := append([]int(nil), succ[u]...)
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !seen[v] {
			seen[v] = true
			stack = append(stack, succ[v]...)
		}
	}
	return seen
}
