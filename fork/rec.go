package fork

import "unsafe"

// Rec is the fork/join context of one recursive function, fn, of type
// func(*Rec[In, Out], In) Out: the cheapest way to fork in this package.
// Fork(in) records the call fn(r, in) on a stack of inputs typed In, and
// Join pops it; as with Future, Join reports false when nobody took the
// call, and the caller makes it itself:
//
//	func sum(r *fork.Rec[*Node, int], n *Node) int {
//		if n.Left == nil || n.Right == nil {
//			return sumSeq(n)
//		}
//		r.Fork(n.Right)
//		s := n.Val + sum(r, n.Left)
//		right, ok := r.Join()
//		if !ok {
//			right = sum(r, n.Right) // nobody took the fork: call it here
//		}
//		return s + right
//	}
//
//	total := fork.Recurse(p, sum, root)
//
// What makes it cheaper than Future is that the forked function is fixed
// (it is the function Recurse was given) and the stack is typed: Fork
// stores the input in the next slot and counts the heartbeat's tick, with
// no type check and no function value to store; Join decrements the depth
// and compares it with the oldest fork a heartbeat promoted. Both inline
// into the caller. The package doc gives the instruction counts.
//
// Joins pair with forks like calls with returns: Join joins the most
// recent fork not joined yet. A function that returns with forks it did
// not join, or a Join with no fork left, panics (when the function given
// to Recurse returns, at the latest). A Rec belongs to the worker running
// the function: keep it out of closures that other goroutines run. Use
// Task for Future, For, Reduce and Join2 inside fn.
type Rec[In, Out any] struct {
	// w packs the number of forks not joined yet (low 32 bits) and the
	// heartbeat countdown (high 32 bits, minus the forks left before the
	// next clock read), as Task.w does. Fork adds tickUnit+1, Join
	// subtracts 1. len(ins) >= depth + forks left, so Fork needs no bounds
	// check (see rearm).
	w uint64
	// lim: the forks below it have been promoted (they are ready or taken);
	// Join's fast path is for the forks at or above it.
	lim int32
	// base is &ins[0].
	base unsafe.Pointer
	ins  []In
	fn   func(*Rec[In, Out], In) Out
	t    *Task
	// self is r as a recFrame, for the calls out of line.
	self recFrame
	// jobs[d] is the promoted job of fork d, for d < lim.
	jobs []*recJob[In, Out]
	none result[Out] // the slow path's answer when nobody took the fork
	slot int         // r's slot in t.slots while it runs
	busy bool        // running: not reusable
	_    pad
}

// recFrame is a Rec as the out-of-line paths see it.
type recFrame interface {
	record
	beatRec()
	joinPromoted() unsafe.Pointer
}

// recMaxPeriod bounds a Rec's countdown: the stack of inputs is kept
// this many slots ahead of the depth, so the bound keeps it small.
const recMaxPeriod = 4096

// Fork records the call fn(r, in) so that an idle worker may take it. It
// does not run it: unless a heartbeat hands it to another worker before
// the matching Join, Join reports false and the caller makes the call.
func (r *Rec[In, Out]) Fork(in In) {
	w := r.w
	*(*In)(unsafe.Add(r.base, uintptr(uint32(w))*unsafe.Sizeof(in))) = in
	w += tickUnit + 1
	r.w = w
	if int64(w) >= 0 {
		viaRec(r.self, recFrame.beatRec)
	}
}

// Join joins the most recent fork not joined yet. If another worker took
// it, Join waits for it and returns its result and true; otherwise it
// returns the zero Out and false, and the caller must make the call
// itself. A panic in the call on another worker reaches Join with the
// same value.
func (r *Rec[In, Out]) Join() (out Out, taken bool) {
	w := r.w - 1
	if int32(w) < r.lim {
		res := (*result[Out])(viaJoin(r.self, recFrame.joinPromoted))
		return res.out, res.taken
	}
	r.w = w
	return
}

// result is what Join's slow path returns: the output of a taken fork, or
// the zero value and false. One pointer for both keeps the slow path a
// single edge into the caller's test of taken, which the compiler then
// skips on the fast path.
type result[Out any] struct {
	out   Out
	taken bool
}

// Tick is the heartbeat check, as Task.Tick: call it in long loops that
// neither fork nor join.
func (r *Rec[In, Out]) Tick() {
	r.w += tickUnit
	if int64(r.w) >= 0 {
		viaRec(r.self, recFrame.beatRec)
	}
}

// Task returns the Task of the worker running r, for Future, Join2, For,
// Reduce and nested Recurse calls inside fn.
func (r *Rec[In, Out]) Task() *Task { return r.t }

// viaRec and viaJoin call f: a call through a function parameter is what
// the inliner prices low (see via1).
func viaRec(r recFrame, f func(recFrame)) { f(r) }

func viaJoin(r recFrame, f func(recFrame) unsafe.Pointer) unsafe.Pointer { return f(r) }

// Recurse runs fn(r, in) on the calling goroutine as the root of a
// fork/join computation, as Call does, with a Rec for fn: r.Fork forks
// calls of fn itself.
func Recurse[In, Out any](p *Pool, fn func(r *Rec[In, Out], in In) Out, in In) Out {
	t := p.acquire()
	defer p.release(t)
	out := RecurseTask(t, fn, in)
	t.checkBalanced(0, "Recurse's function")
	return out
}

// RecurseTask runs fn(r, in) on t's worker with a Rec for fn: Recurse
// inside a computation already running (a Call's function, a job, a loop
// body, or another Rec's function through its Task).
func RecurseTask[In, Out any](t *Task, fn func(r *Rec[In, Out], in In) Out, in In) Out {
	r := pushRec(t, fn)
	out := fn(r, in)
	if r.depth() != 0 {
		t.checkBalanced(r.slot, "a Recurse function") // unwinds and panics
	}
	t.checkBalanced(r.slot+1, "a Recurse function")
	r.busy = false
	t.setDepth(r.slot)
	t.bottom = min(t.bottom, r.slot)
	return out
}

// pushRec puts a Rec for fn on t's job stack, reusing the one in the
// slot if it has the right type.
func pushRec[In, Out any](t *Task, fn func(*Rec[In, Out], In) Out) *Rec[In, Out] {
	d := t.depth()
	r, _ := t.slots[d].(*Rec[In, Out])
	if r == nil || r.busy {
		t.reserve(d)
		if old := t.slots[d]; old != nil {
			old.scrub()
		}
		r = &Rec[In, Out]{t: t}
		r.self = r
		r.ins = make([]In, 64)
		r.base = unsafe.Pointer(&r.ins[0])
		t.slots[d] = r
	}
	r.t, r.fn, r.slot, r.busy = t, fn, d, true
	r.w, r.lim = 0, 0
	r.rearm()
	t.setDepth(d + 1)
	return r
}

func (r *Rec[In, Out]) depth() int { return int(int32(r.w)) }

// rearm starts a countdown of the Task's tick period (at most
// recMaxPeriod) and grows the stack of inputs so that the forks it
// allows fit.
func (r *Rec[In, Out]) rearm() {
	period := min(r.t.period, recMaxPeriod)
	d := r.depth()
	if need := d + period + 1; need > len(r.ins) {
		ins := make([]In, max(need, 2*len(r.ins)))
		copy(ins, r.ins[:d])
		r.ins = ins
		r.base = unsafe.Pointer(&r.ins[0])
	}
	r.w = uint64(uint32(d)) | uint64(-int64(period))<<32
}

// beatRec is Fork's and Tick's slow path: a clock read, perhaps a
// promotion (see Task.beat), and a new countdown.
//
//go:noinline
func (r *Rec[In, Out]) beatRec() {
	if r.depth() > len(r.ins) || r.t == nil {
		panic("fork: internal error: Rec stack overflow")
	}
	r.t.beat()
	// The Task's period may grow past what a Rec uses; capped, it stays
	// right for the Task's own countdown when the Rec returns.
	r.t.period = min(r.t.period, recMaxPeriod)
	r.rearm()
}

// joinPromoted is Join's slow path: the fork was promoted, or there is no
// fork to join. It pops the fork, waits for it if another worker took it
// or makes the call here if nobody did, and returns a pointer to the
// output.
//
//go:noinline
func (r *Rec[In, Out]) joinPromoted() unsafe.Pointer {
	d := r.depth() - 1
	if d < 0 {
		panic("fork: Rec.Join without a fork to join")
	}
	if r.t.depth() != r.slot+1 {
		panic("fork: Rec.Join with a Future, loop or nested Recurse above it not finished")
	}
	t := r.t
	j := r.jobs[d]
	r.jobs[d] = nil
	// While we wait, this worker may run other jobs; nothing of r may be
	// offered meanwhile (they run with bottom at their own base).
	saved := t.bottom
	t.bottom = t.depth()
	p := t.pool
	p.mu.Lock()
	taken := t.joinShared(j)
	p.mu.Unlock()
	t.bottom = saved
	r.w = r.w&^(tickUnit-1) | uint64(uint32(d))
	r.lim = int32(d)
	if pv, ok := j.takePanic(); ok {
		panic(pv)
	}
	if !taken {
		return unsafe.Pointer(&r.none)
	}
	return unsafe.Pointer(&j.result)
}

// offer promotes r's oldest fork not promoted yet. r stays where it is on
// the job stack (it is not exhausted: it forks again), so when it has
// nothing to offer it says so, and the heartbeat stops there.
func (r *Rec[In, Out]) offer(t *Task) (published, exhausted bool) {
	if int(r.lim) >= r.depth() {
		return false, false
	}
	d := int(r.lim)
	j := &recJob[In, Out]{header: header{owner: t, idx: -1}, fn: r.fn, in: r.ins[d]}
	for len(r.jobs) <= d {
		r.jobs = append(r.jobs, nil)
	}
	r.jobs[d] = j
	r.lim = int32(d + 1)
	if tracing {
		traceOffer(t, &j.header, any(j.in))
	}
	t.pool.publishLocked(j)
	return true, false
}

// abandon settles r's promoted forks after a panic unwound past the
// frames that would have joined them, and frees r.
func (r *Rec[In, Out]) abandon(t *Task, _ bool) {
	n := min(int(r.lim), r.depth(), len(r.jobs))
	t.pool.mu.Lock()
	for d := n - 1; d >= 0; d-- {
		if j := r.jobs[d]; j != nil {
			settle(t, j)
			r.jobs[d] = nil
		}
	}
	t.pool.mu.Unlock()
	r.w, r.lim, r.busy = 0, 0, false
	r.rearm()
}

func (r *Rec[In, Out]) scrub() {
	clear(r.ins)
	clear(r.jobs)
	r.fn = nil
}

// recJob is a promoted fork of a Rec: it runs fn(r', in) with a Rec r' of
// the worker that took it.
type recJob[In, Out any] struct {
	header
	fn func(*Rec[In, Out], In) Out
	in In
	result[Out]
}

func (j *recJob[In, Out]) execute(t *Task) {
	j.out = RecurseTask(t, j.fn, j.in)
	j.taken = true
}
