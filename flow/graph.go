package flow

import (
	"context"
	"fmt"
	"strconv"
	"sync"
)

// kind says how a task runs and what its out-edges mean.
type kind uint8

const (
	kindWork    kind = iota // fn(ctx) error; out-edges are strong
	kindCond                // fn(ctx) (int, error); out-edges are weak, one is taken
	kindSubflow             // fn(ctx, *Subflow) error; children joined before out-edges
)

// Graph is a task graph: tasks and the dependencies between them. Build it
// with Add, AddCondition, AddSubflow and Task.Precede/Succeed, then run it
// with an Executor as often as you like, from as many goroutines as you like.
//
// Building is safe for concurrent use, and so is changing a graph while runs
// of it are in flight: each Run works on an immutable snapshot (the compiled
// plan) taken when it starts, so in-flight runs do not see the change.
type Graph struct {
	name string

	mu      sync.Mutex
	tasks   []*Task
	err     error // first building error (foreign or nil task); sticky
	plan    *plan // compiled snapshot of tasks; nil after any change
	planErr error // why the last compile failed; cleared with plan
}

// Task is a node of a Graph. It belongs to the graph that created it; edges
// may join only tasks of the same graph.
type Task struct {
	g    *Graph
	id   int32
	name string
	kind kind
	work func(context.Context) error
	cond func(context.Context) (int, error)
	sub  func(context.Context, *Subflow) error
	succ []*Task // in Precede order: a condition's index picks from this
}

// New returns an empty graph. The name appears in errors and in WriteDOT.
func New(name string) *Graph { return &Graph{name: name} }

// Name returns the name given to New (for a subflow: the subflow task's name).
func (g *Graph) Name() string { return g.name }

// Add adds a task that runs fn. When fn returns a non-nil error the run
// stops: tasks not yet started are skipped and Run returns the error. A nil
// fn makes a task that does nothing, useful as a join point. An empty name is
// shown as "task<N>", N the task's index in its graph.
func (g *Graph) Add(name string, fn func(ctx context.Context) error) *Task {
	return g.add(&Task{name: name, kind: kindWork, work: fn})
}

// AddSubflow adds a task that builds a child graph at run time: fn adds tasks
// to sf, and once fn returns they run on the executor's workers. The subflow
// task counts as finished, and its successors may start, only when every child
// (and every child of a nested subflow) has finished. No worker waits for the
// children: the last child to finish continues with the subflow's successors.
// A nil fn makes an empty subflow.
func (g *Graph) AddSubflow(name string, fn func(ctx context.Context, sf *Subflow) error) *Task {
	return g.add(&Task{name: name, kind: kindSubflow, sub: fn})
}

// AddCondition adds a condition task: fn returns the index of the one
// successor to run next, in the order the successors were added with
// Precede. Edges out of a condition task are weak (see the package doc): they
// do not count toward a successor's dependencies, which is what lets a
// condition task close a loop. An index out of range is an error
// (ErrConditionIndex) that stops the run. fn must not be nil.
func (g *Graph) AddCondition(name string, fn func(ctx context.Context) (int, error)) *Task {
	t := g.add(&Task{name: name, kind: kindCond, cond: fn})
	if fn == nil {
		g.fail(fmt.Errorf("flow: graph %q: condition task %q: %w", g.name, t.Name(), ErrNilTask))
	}
	return t
}

func (g *Graph) add(t *Task) *Task {
	g.mu.Lock()
	defer g.mu.Unlock()
	t.g = g
	t.id = int32(len(g.tasks))
	g.tasks = append(g.tasks, t)
	g.changedLocked()
	return t
}

// changedLocked drops the compiled plan after a change. Caller holds g.mu.
func (g *Graph) changedLocked() { g.plan, g.planErr = nil, nil }

// fail records the graph's first building error; Run reports it.
func (g *Graph) fail(err error) {
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.mu.Unlock()
}

// Name returns the task's name ("task<N>" if it was added with none).
func (t *Task) Name() string { return label(t.name, t.id) }

// label is a task's name, or "task<id>" for an unnamed one. Computing it on
// demand keeps unnamed tasks (typical of subflows built in loops) free of a
// string allocation each.
func label(name string, id int32) string {
	if name != "" {
		return name
	}
	return "task" + strconv.Itoa(int(id))
}

// Precede makes t a predecessor of each task in next and returns t. For a
// condition task, successors are numbered in the order they are added. A task
// of another graph, or a nil task, is not linked: the error is recorded in
// the graph (both graphs, for a foreign task) and returned by Run.
func (t *Task) Precede(next ...*Task) *Task {
	g := t.g
	var foreign []*Task
	g.mu.Lock()
	for _, n := range next {
		switch {
		case n == nil:
			if g.err == nil {
				g.err = fmt.Errorf("flow: graph %q: %q precedes a nil task: %w", g.name, t.Name(), ErrNilTask)
			}
		case n.g != g:
			foreign = append(foreign, n)
		default:
			t.succ = append(t.succ, n)
		}
	}
	g.changedLocked()
	g.mu.Unlock()
	for _, n := range foreign {
		err := fmt.Errorf("flow: task %q of graph %q precedes task %q of graph %q: %w",
			t.Name(), g.name, n.Name(), n.g.name, ErrForeignTask)
		g.fail(err)
		n.g.fail(err)
	}
	return t
}

// Succeed makes each task in prev a predecessor of t and returns t. It is
// Precede seen from the other end: p.Precede(t) for each p, in order.
func (t *Task) Succeed(prev ...*Task) *Task {
	for _, p := range prev {
		if p == nil {
			t.g.fail(fmt.Errorf("flow: graph %q: %q succeeds a nil task: %w", t.g.name, t.Name(), ErrNilTask))
			continue
		}
		p.Precede(t)
	}
	return t
}

// Subflow is the builder a subflow task's function receives: the child graph
// it fills in. Its methods are those of Graph; tasks added to it may be
// linked only with each other. It is valid only until the function returns:
// tasks added later are never run.
type Subflow struct {
	g Graph
}

// Name returns the subflow task's name.
func (sf *Subflow) Name() string { return sf.g.name }

// Add adds a child task; see Graph.Add.
func (sf *Subflow) Add(name string, fn func(ctx context.Context) error) *Task {
	return sf.g.Add(name, fn)
}

// AddSubflow adds a nested subflow; see Graph.AddSubflow.
func (sf *Subflow) AddSubflow(name string, fn func(ctx context.Context, sf *Subflow) error) *Task {
	return sf.g.AddSubflow(name, fn)
}

// AddCondition adds a child condition task; see Graph.AddCondition.
func (sf *Subflow) AddCondition(name string, fn func(ctx context.Context) (int, error)) *Task {
	return sf.g.AddCondition(name, fn)
}
