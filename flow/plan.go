package flow

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// plan is a graph compiled for running: tasks as dense indices, successors in
// one array (compressed sparse rows), the strong in-degree of every task, and
// the source tasks. It is immutable once built, so any number of runs may
// share it; each run keeps its own arrival counters (see frame).
type plan struct {
	name    string
	nodes   []node
	extra   []nodeExtra // per node, beside nodes to keep the hot array small
	succ    []int32     // node i's successors are succ[nodes[i].lo:nodes[i].hi]
	strong  []int32     // strong in-degree per node: arrivals that make it ready
	sources []int32     // nodes with no predecessor at all, in the order they were added
	hasCond bool        // some node is a condition task, so nodes may run more than once

	runs sync.Pool // *runState sized for this plan, reused across runs
}

// node is one compiled task: what the scheduler reads for every task, in 24
// bytes, so that a chain walks through cache lines shared by neighbours.
type node struct {
	kind   kind
	lo, hi int32 // successors: succ[lo:hi], in Precede order
	work   func(context.Context) error
}

// nodeExtra is what only condition and subflow tasks, and error messages,
// read.
type nodeExtra struct {
	cond func(context.Context) (int, error)
	sub  func(context.Context, *Subflow) error
	name string
}

// label is node i's name for messages.
func (p *plan) label(i int32) string { return label(p.extra[i].name, i) }

// compiled returns the graph's plan, compiling it if the graph changed since
// the last call, or the building or validation error.
func (g *Graph) compiled() (*plan, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return nil, g.err
	}
	if g.plan == nil && g.planErr == nil {
		g.plan, g.planErr = compile(g.name, g.tasks)
	}
	return g.plan, g.planErr
}

// compile flattens tasks into a plan and validates it: a cycle of strong
// edges, or a non-empty graph without a source, is an error naming the tasks.
func compile(name string, tasks []*Task) (*plan, error) {
	n := len(tasks)
	p := &plan{name: name, nodes: make([]node, n), extra: make([]nodeExtra, n), strong: make([]int32, n)}
	edges := 0
	for _, t := range tasks {
		edges += len(t.succ)
	}
	p.succ = make([]int32, 0, edges)
	hasPred := make([]bool, n)
	for i, t := range tasks {
		nd := &p.nodes[i]
		*nd = node{kind: t.kind, work: t.work}
		p.extra[i] = nodeExtra{cond: t.cond, sub: t.sub, name: t.name}
		nd.lo = int32(len(p.succ))
		for _, s := range t.succ {
			p.succ = append(p.succ, s.id)
			hasPred[s.id] = true
			if t.kind != kindCond {
				p.strong[s.id]++
			}
		}
		nd.hi = int32(len(p.succ))
		if t.kind == kindCond {
			p.hasCond = true
		}
	}
	for i := range p.nodes {
		if !hasPred[i] {
			p.sources = append(p.sources, int32(i))
		}
	}
	if err := p.checkCycles(); err != nil {
		return nil, err
	}
	if n > 0 && len(p.sources) == 0 {
		return nil, fmt.Errorf("flow: graph %q: %w", name, ErrNoSource)
	}
	return p, nil
}

// checkCycles runs Kahn's algorithm over the strong edges. Nodes it cannot
// remove lie on, or after, a strong cycle; walking strong predecessors from
// one of them must come back to a node already seen, and that loop is named
// in the error.
func (p *plan) checkCycles() error {
	n := len(p.nodes)
	indeg := make([]int32, n)
	copy(indeg, p.strong)
	queue := make([]int32, 0, n)
	for i := range indeg {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for head := 0; head < len(queue); head++ {
		u := &p.nodes[queue[head]]
		if u.kind == kindCond {
			continue // weak edges do not count
		}
		for _, s := range p.succ[u.lo:u.hi] {
			if indeg[s]--; indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	if len(queue) == n {
		return nil
	}
	// Every remaining node has a remaining strong predecessor.
	pred := make([]int32, n)
	for i := range pred {
		pred[i] = -1
	}
	start := int32(-1)
	for u := range p.nodes {
		if indeg[u] == 0 || p.nodes[u].kind == kindCond {
			continue
		}
		for _, s := range p.succ[p.nodes[u].lo:p.nodes[u].hi] {
			if indeg[s] > 0 {
				pred[s] = int32(u)
				start = s
			}
		}
	}
	seen := make([]int32, n) // position+1 on the walk
	var walk []int32
	v := start
	for seen[v] == 0 {
		walk = append(walk, v)
		seen[v] = int32(len(walk))
		v = pred[v]
	}
	back := walk[seen[v]-1:] // the cycle, walked against its edges
	cycle := make([]int32, len(back))
	for i, u := range back {
		cycle[len(back)-1-i] = u
	}
	// Start the cycle at its first-added task, so the message is stable.
	low := 0
	for i, u := range cycle {
		if u < cycle[low] {
			low = i
		}
	}
	cycle = append(append([]int32(nil), cycle[low:]...), cycle[:low]...)
	names := make([]string, 0, len(cycle)+1)
	for _, u := range cycle {
		names = append(names, fmt.Sprintf("%q", p.label(u)))
	}
	names = append(names, names[0])
	return fmt.Errorf("flow: graph %q: %w: %s", p.name, ErrCycle, strings.Join(names, " -> "))
}
