package flow

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// A strand is the unit of work handed to the spindle executor: a small value
// that runs tasks of one frame, one after another, on one worker. A node
// strand (hi == nodeStrand) starts at task lo; a claimer (hi >= 0) first runs
// the sources sources[lo:hi] it already holds, then claims more from the
// frame's cursor until none are left.
type strand struct {
	f      *frame
	lo, hi int32
}

const nodeStrand = -1

// Results of step and chain besides a node index to run next.
const (
	none    int32 = -1 // nothing to run inline; the strand still holds its unit
	handoff int32 = -2 // the strand's unit went to a strand it spawned (or to a subflow task): stop without releasing it
	halted  int32 = -3 // the run is stopping: skip the rest; the strand still holds its unit
)

// A frame is one graph being run: the root graph of a Run, or the children of
// one execution of a subflow task. It holds the dependency counters and the count
// of units in flight.
//
// Invariant: pending counts the frame's strands that are queued or running,
// plus its subflow tasks whose children have not all finished. Each holds one
// unit. Whoever takes pending to zero finishes the frame: for the root, it
// signals Run; for a subflow's frame, it completes the subflow task in the
// parent frame, using the unit that task held, and goes on with the parent's
// successors itself. Strands of a frame only ever add units while holding one,
// so pending cannot reach zero while work of the frame remains.
type frame struct {
	run  *runState
	plan *plan
	// arrivals counts, per node, the strong predecessors that have finished
	// in this run (atomic adds only). A node becomes ready on every
	// strong-in-degree-th arrival: once in a graph without condition tasks;
	// once per round in a loop. Counting up, never re-arming, leaves no
	// window in which a fast next round's arrival could be lost.
	arrivals []uint64
	parent   *frame // nil for the root frame
	pnode    int32  // the subflow task in parent that this frame belongs to

	_       [64]byte // pending and cursor are written by every worker
	pending atomic.Int64
	cursor  atomic.Int32 // sources[cursor:] are not yet claimed
}

// reset prepares the frame for a fresh run of its plan: no arrivals yet.
func (f *frame) reset() {
	clear(f.arrivals)
	f.cursor.Store(0)
}

// claimers is the number of claimer strands to start the frame with: one per
// worker, fewer when there are fewer sources.
func (f *frame) claimers() int {
	return int(min(f.run.ex.workers, int32(len(f.plan.sources))))
}

// runStrand is the spindle executor's run function.
func runStrand(s strand, w *worker) {
	f := s.f
	var res int32
	if s.hi == nodeStrand {
		res = f.chain(w, s.lo, nil)
	} else {
		res = f.claim(w, s.lo, s.hi)
	}
	if res != handoff {
		release(w, f)
	}
}

// release gives back one unit of f. If it was the last, f is finished: the
// root frame signals its Run; a subflow's frame completes its subflow task and
// this strand continues in the parent frame with the task's successors,
// holding the unit the subflow task held there.
func release(w *worker, f *frame) {
	for f.pending.Add(-1) == 0 {
		p := f.parent
		if p == nil {
			f.run.done <- struct{}{} // the last touch of the run by this strand
			return
		}
		n := f.pnode
		f = p
		if !f.run.stopping() && f.chain(w, f.ready(w, n, nil), nil) == handoff {
			return
		}
	}
}

// grab claims the next chunk of the frame's sources. Chunks shrink as the
// sources run out (guided self-scheduling: a chunk is the remainder divided
// by twice the worker count), so a few atomic operations hand out thousands
// of sources, and the last chunks are small enough to balance the workers.
func (f *frame) grab() (lo, hi int32) {
	n := int32(len(f.plan.sources))
	div := 2 * f.run.ex.workers
	for {
		c := f.cursor.Load()
		if c >= n {
			return 0, 0
		}
		k := max((n-c)/div, 1)
		if f.cursor.CompareAndSwap(c, c+k) {
			return c, c + k
		}
	}
}

// claim runs sources[lo:hi], then claims more until none are left. Each
// source is followed inline by its chain of single successors. When a task
// readies two or more successors (or starts a subflow), claim re-spawns itself
// with the rest of its chunk first, so that it lands behind the new work on
// the worker's ring where idle workers can steal it, and returns handoff.
func (f *frame) claim(w *worker, lo, hi int32) int32 {
	src := f.plan.sources
	for {
		for lo < hi {
			n := src[lo]
			lo++
			resume := strand{f: f, lo: lo, hi: hi}
			switch f.chain(w, n, &resume) {
			case handoff:
				return handoff
			case halted:
				return none
			}
		}
		if lo, hi = f.grab(); lo == hi {
			return none
		}
	}
}

// chain runs task n and then, as long as exactly one successor becomes ready,
// that successor, in this strand: a chain of tasks costs no scheduling at
// all. It stops when no successor is ready (none), when several are and have
// been spawned (handoff), or when the run is stopping (halted). The check
// before each task is the run context's Err, one atomic load.
func (f *frame) chain(w *worker, n int32, resume *strand) int32 {
	r := f.run
	for n >= 0 {
		if r.stopping() {
			return halted
		}
		n = f.step(w, n, resume)
	}
	return n
}

// step runs task n and returns the successor to run next in this strand, or
// none, handoff or halted. resume is the claimer to re-spawn before spawning
// anything (nil for a node strand).
func (f *frame) step(w *worker, n int32, resume *strand) int32 {
	p := f.plan
	nd := &p.nodes[n]
	switch nd.kind {
	case kindWork:
		if nd.work != nil {
			sc := w.Scratch
			sc.cur, sc.node = f, n
			err := nd.work(f.run.ctx)
			sc.cur = nil
			if err != nil {
				f.fail(n, err)
				return halted
			}
		}
		return f.ready(w, n, resume)
	case kindCond:
		sc := w.Scratch
		sc.cur, sc.node = f, n
		k, err := p.extra[n].cond(f.run.ctx)
		sc.cur = nil
		if err != nil {
			f.fail(n, err)
			return halted
		}
		if k < 0 || k >= int(nd.hi-nd.lo) {
			f.fail(n, fmt.Errorf("returned %d with %d successors: %w", k, nd.hi-nd.lo, ErrConditionIndex))
			return halted
		}
		return p.succ[int(nd.lo)+k]
	default:
		return f.subflow(w, n, resume)
	}
}

// ready adds an arrival to the counters of n's successors and returns the one
// that became ready, if exactly one did, or none. If several did, it spawns
// them all and returns handoff: the last one spawned lands in the worker's
// private next slot and runs next on this worker; the others go to its ring,
// where idle workers steal them. The strand's unit passes to resume if there
// is one (a claimer re-spawned ahead of them), else to one of them.
func (f *frame) ready(w *worker, n int32, resume *strand) int32 {
	p := f.plan
	nd := &p.nodes[n]
	first, count := none, 0
	for _, s := range p.succ[nd.lo:nd.hi] {
		// A task with one strong predecessor needs no counter: this is it.
		if st := uint64(p.strong[s]); st > 1 {
			a := atomic.AddUint64(&f.arrivals[s], 1)
			if a != st && (!p.hasCond || a%st != 0) {
				continue
			}
		}
		switch count {
		case 0:
			first = s
		case 1:
			w.Scratch.ready = append(w.Scratch.ready[:0], first, s)
		default:
			w.Scratch.ready = append(w.Scratch.ready, s)
		}
		count++
	}
	if count <= 1 {
		return first
	}
	// Add the new units before spawning anything, resume included: a spawned
	// strand may run and release at once on another worker (always so with
	// the Shared queue strategy), and pending must not touch zero meanwhile.
	if resume != nil {
		f.pending.Add(int64(count)) // the strand's unit goes to resume
		w.Spawn(*resume)
	} else {
		f.pending.Add(int64(count - 1)) // the strand's unit goes to one of them
	}
	for _, s := range w.Scratch.ready {
		w.Spawn(strand{f: f, lo: s, hi: nodeStrand})
	}
	return handoff
}

// subflow runs subflow task n: its function builds the child graph, which is
// compiled and started as a new frame. The task holds a unit of f until the
// child frame finishes (see release), so no worker waits for the children.
// That unit is the strand's own (for a claimer, a new one: the claimer's
// goes to its re-spawned self), so subflow returns handoff.
func (f *frame) subflow(w *worker, n int32, resume *strand) int32 {
	ex := &f.plan.extra[n]
	sf := &Subflow{g: Graph{name: f.plan.label(n)}}
	if ex.sub != nil {
		sc := w.Scratch
		sc.cur, sc.node = f, n
		err := ex.sub(f.run.ctx, sf)
		sc.cur = nil
		if err != nil {
			f.fail(n, err)
			return halted
		}
	}
	cp, err := sf.g.compiled()
	if err != nil {
		f.fail(n, err)
		return halted
	}
	if len(cp.nodes) == 0 {
		return f.ready(w, n, resume)
	}
	child := &frame{run: f.run, plan: cp, arrivals: make([]uint64, len(cp.nodes)), parent: f, pnode: n}
	c := child.claimers()
	child.pending.Store(int64(c))
	if resume != nil {
		f.pending.Add(1) // a unit for the subflow task, added before resume can release its own
		w.Spawn(*resume) // takes the strand's unit
	}
	for range c {
		w.Spawn(strand{f: child, hi: 0})
	}
	return handoff
}

// fail stops the run with err, naming the task (with its subflow path).
func (f *frame) fail(n int32, err error) {
	f.run.fail(fmt.Errorf("flow: graph %q: task %q: %w", f.root().plan.name, f.path(n), err))
}

func (f *frame) root() *frame {
	for f.parent != nil {
		f = f.parent
	}
	return f
}

// path names task n as "subflow/child/…" from the root graph down.
func (f *frame) path(n int32) string {
	var parts []string
	for ; f != nil; f = f.parent {
		parts = append(parts, f.plan.label(n))
		n = f.pnode
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "/")
}
