package fork

import (
	"sync/atomic"
	"unsafe"
)

// Frame is one fork of a recursive function run by Recurse: the cheapest
// way to fork in this package. The function receives the frame of its
// caller, f; f.Fork(in) returns a new frame g that records the call
// fn(&g, in), the function passes &g down while it works, and g.Join(fn)
// returns the call's result: another worker's, if one took the fork, or
// else the result of the call made there, fn(f, in):
//
//	func sum(f *fork.Frame[*Node, int], n *Node) int {
//		if n.Left == nil || n.Right == nil {
//			return sumSeq(n)
//		}
//		g := f.Fork(n.Right)
//		s := n.Val + sum(&g, n.Left)
//		return s + g.Join(sum) // sum(f, n.Right), unless a worker took it
//	}
//
//	total := fork.Recurse(p, sum, root)
//
// Frames live in the variables of the recursive function, on the
// goroutine's stack, linked to their callers' frames: a fork is three
// stores to the stack and a join two loads and a compare before the
// call, with no depth to count and no write barrier (see the package
// doc, What an untaken fork costs). A heartbeat reaches a running Recurse
// as a signal (see Pool.beat): at its next Join the worker walks the
// frames up to the oldest fork nobody has taken, the biggest piece of
// work left, and offers it to idle workers.
//
// The rules, which keep frames on the stack and the chain sound:
//   - Write fn as a named function (or method) that calls itself
//     directly. A call through a func variable or an interface makes
//     every frame escape to the heap: it still works, at an allocation
//     per fork.
//   - Join with the function Recurse runs (the one that forks): a
//     worker that takes the fork runs that function, and Join calls the
//     one it is given.
//   - Pass &g only to the calls made between g's Fork and its Join, and
//     call with f once g is joined. Join a frame once, and join frames
//     in the reverse order of their forks, as calls return. A fork is not
//     seen by anyone after its function returns, so a frame that is never
//     joined is a call that was never made, unless another worker took it:
//     then Recurse panics when the function returns.
//   - Do not copy a Frame (go vet reports copies), and keep frames out of
//     closures that other goroutines run: a frame belongs to the worker
//     that runs the function.
//   - Use Task for Future, Join2, For, Reduce and nested Recurse calls
//     inside fn. While such a computation runs, the Recurse's own forks
//     wait for it to finish before a heartbeat may offer them.
type Frame[In, Out any] struct {
	_ noCopy
	// m is the Rec's mark while the fork is pending; a promoted fork's
	// frame points to its job's mark, and the root frame to the Rec's
	// root mark, whose signals are always set, so that Join tests one
	// word for all three.
	m    *mark[In, Out]
	prev *Frame[In, Out]
	in   In
}

// mark is what a frame's Join tests: the heartbeat's signal of its Rec
// (the mark is the Rec's own), or a signal always set that says the frame
// is special: the frame of a promoted fork (the mark is in the fork's
// job) or the root frame (the Rec's root mark).
type mark[In, Out any] struct {
	sig int32 // read and written with sync/atomic
	// home is the Rec's own mark, the one a Fork puts in the new frame:
	// &live.mark, loaded rather than computed so that Fork needs no nil
	// check.
	home *mark[In, Out]
	live *rec[In, Out]    // the Rec
	job  *recJob[In, Out] // the promoted fork, in a job's mark
	// join is Join's slow path, as a function of the frame: joinFrame.
	join func(unsafe.Pointer) unsafe.Pointer
}

// noCopy makes go vet's copylocks check report copies of a Frame.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Fork records the call fn(&g, in) in a new frame g, for an idle worker
// to take. It does not make the call: unless a heartbeat hands it to
// another worker before g.Join, Join makes the call.
func (f *Frame[In, Out]) Fork(in In) Frame[In, Out] {
	return Frame[In, Out]{m: f.m.home, prev: f, in: in}
}

// Join joins the fork that made g and returns the result of its call. If
// another worker took the fork, Join waits for it (a panic in the call
// reaches Join with the same value); otherwise it makes the call here,
// fn(f, in) with f the frame g was forked from. fn must be the function
// Recurse runs, which is what a worker that takes the fork calls (and
// what Join's slow path calls, after a heartbeat).
//
// Making the call inside Join, from the frame's own fields, spares the
// caller from keeping f and the input alive across its calls between
// Fork and Join: two spills and a reload fewer, for the two instructions
// of a call through a function value (the compiler does not turn it into
// a direct call, even with Join inlined and fn known).
func (g *Frame[In, Out]) Join(fn func(f *Frame[In, Out], in In) Out) Out {
	if atomic.LoadInt32(&g.m.sig) == 0 {
		return fn(g.prev, g.in)
	}
	return *(*Out)(viaFrame(unsafe.Pointer(g), g.m.join))
}

// Tick is the heartbeat check, as Task.Tick: call it in long loops that
// neither fork nor join, so that the forks made before the loop can move
// to idle workers while it runs.
func (f *Frame[In, Out]) Tick() {
	if r := f.m.live; atomic.LoadInt32(&r.sig) != 0 {
		viaFrame(unsafe.Pointer(f), r.tick)
	}
}

// Task returns the Task of the worker running f, for Future, Join2, For,
// Reduce and nested Recurse calls inside the function.
func (f *Frame[In, Out]) Task() *Task { return f.m.live.t }

// viaFrame calls f(p), with p hidden from escape analysis (noescape): a
// call through a function parameter is what the inliner prices low (see
// via1), which keeps Join within its budget.
func viaFrame(p unsafe.Pointer, f func(unsafe.Pointer) unsafe.Pointer) unsafe.Pointer {
	return f(noescape(p))
}

// noescape hides p from escape analysis. Join's slow path is an indirect
// call, whose arguments the compiler must assume escape; without this,
// every frame would be moved to the heap. The slow path keeps no pointer
// to a frame beyond its return (it stores only the inputs, which are
// values of the user's, in the heap, and passes the caller's frame only
// to the calls it makes), so the frames may stay on the stack. The pointer passes through a uintptr, which escape analysis does
// not follow, as in the runtime's function of the same name, and is read
// back through memory so that no uintptr is converted to a pointer.
//
// While the pointer is a uintptr the stack must not move (a move adjusts
// pointers, not integers, and the slow path would then read and mark the
// frames of the stack's old copy): nosplit keeps the stack check out, and
// nocheckptr keeps out the call that -race adds to the conversion, which
// could grow the stack between the store and the load.
//
//go:nosplit
//go:nocheckptr
func noescape(p unsafe.Pointer) unsafe.Pointer {
	x := uintptr(p)
	return *(*unsafe.Pointer)(unsafe.Pointer(&x))
}

// rec is the context of one Recurse computation on one worker (a Rec in
// the comments): the function, the heartbeat's signal, and the forks
// promoted so far. Frames point to it.
type rec[In, Out any] struct {
	// mark is the Rec's own mark, the one pending frames point to (its
	// fields are the Rec's: sig, live, join): its sig is set to 1 by the
	// pool's heartbeat (Pool.beat) when a worker is idle, and the next
	// Join (or Tick) sees it.
	mark[In, Out]
	t  *Task
	fn func(*Frame[In, Out], In) Out
	// tick is Tick's slow path, as a function of a frame pointer.
	tick func(unsafe.Pointer) unsafe.Pointer
	// root is the frame fn is first called with, marked with rootMark
	// (signal always set), so that the walk up the frames stops there and
	// Join of it panics.
	root     Frame[In, Out]
	rootMark mark[In, Out]
	// jobs are the promoted forks not joined yet, usually oldest first.
	jobs    []*recJob[In, Out]
	prevHot *int32 // t.hot when this Rec started
	slot    int    // r's slot in t.slots while it runs
	busy    bool   // running: not reusable
	_       pad
}

// firstBeat is the fraction of a heartbeat after which the first
// heartbeat of a Recurse comes: soon enough that an idle worker waits a
// quarter heartbeat for the first promotion rather than a whole one (on
// two workers, 5% of a 2ms computation), late enough that a computation
// of a few microseconds never pays for one.
const firstBeat = 4

// maxWalk bounds the walk from a signalled frame up to the oldest fork
// not promoted yet, so that a deep chain of forks (a recursion down a list)
// costs a bounded time per heartbeat: past it, the frame reached is
// promoted, a younger fork than the oldest.
const maxWalk = 1024

// Recurse runs fn(f, in) on the calling goroutine as the root of a
// fork/join computation, as Call does, with f the root Frame: f.Fork
// forks calls of fn itself.
func Recurse[In, Out any](p *Pool, fn func(f *Frame[In, Out], in In) Out, in In) Out {
	t := p.acquire()
	defer p.release(t)
	out := RecurseTask(t, fn, in)
	t.checkBalanced(0, "Recurse's function")
	return out
}

// RecurseTask runs fn(f, in) on t's worker, with f a root Frame: Recurse
// inside a computation already running (a Call's function, a job, a loop
// body, or another Recurse's function through its Frame's Task).
func RecurseTask[In, Out any](t *Task, fn func(f *Frame[In, Out], in In) Out, in In) Out {
	r := pushRec(t, fn)
	out := fn(&r.root, in)
	if len(r.jobs) != 0 {
		t.checkBalanced(r.slot, "a Recurse function") // unwinds and panics
	}
	t.checkBalanced(r.slot+1, "a Recurse function")
	r.exit()
	t.setDepth(r.slot)
	t.bottom = min(t.bottom, r.slot)
	return out
}

// pushRec puts a Rec for fn on t's job stack, reusing the one in the
// slot if it has the right type, and makes it the Task's hot Rec.
func pushRec[In, Out any](t *Task, fn func(*Frame[In, Out], In) Out) *rec[In, Out] {
	d := t.depth()
	r, _ := t.slots[d].(*rec[In, Out])
	if r == nil || r.busy {
		t.reserve(d)
		if old := t.slots[d]; old != nil {
			old.scrub()
		}
		r = &rec[In, Out]{t: t}
		r.join, r.tick = joinFrame[In, Out], tickFrame[In, Out]
		r.home, r.live = &r.mark, r
		r.rootMark = mark[In, Out]{sig: 1, home: &r.mark, live: r, join: r.join}
		r.root.m = &r.rootMark
		t.slots[d] = r
	}
	r.t, r.fn, r.slot, r.busy = t, fn, d, true
	atomic.StoreInt32(&r.sig, 0)
	t.setDepth(d + 1)
	r.prevHot = t.hot.Swap(&r.sig)
	if p := t.pool; p.recs.Add(1) == 1 {
		// The first heartbeat comes a quarter heartbeat after the start
		// (firstBeat), so that a Recurse shorter than that never pays for
		// a promotion.
		p.lastBeat.Store(int64(clock() - p.heartbeat + p.heartbeat/firstBeat))
		if p.beaterParked.Load() && p.nsleep.Load() > 0 && p.npoll.Load() == 0 {
			p.wakeBeater() // idle workers have parked: nobody else beats
		}
	}
	return r
}

// exit ends r's run: the Task's hot Rec is the one before it again.
func (r *rec[In, Out]) exit() {
	r.t.hot.Store(r.prevHot)
	r.prevHot = nil
	r.t.pool.recs.Add(-1)
	r.busy = false
}

// joinFrame is Join's slow path: a heartbeat signal, a promoted fork, or
// Join of the root frame. It answers the signal (see beat), then joins
// the fork: it waits for it if another worker took it, and makes the
// call otherwise. It returns a pointer to the output.
func joinFrame[In, Out any](p unsafe.Pointer) unsafe.Pointer {
	g := (*Frame[In, Out])(p)
	r := g.m.live
	if g == &r.root {
		panic("fork: Join of the Frame that Recurse passed in: join only the frames that Fork returns")
	}
	if atomic.LoadInt32(&r.sig) != 0 {
		r.beat(g.prev)
	}
	j := g.m.job
	if j == nil {
		// A signal only: at most one a heartbeat, so the output can go to
		// a new cell (one in the Rec would keep the last output alive).
		out := new(Out)
		*out = r.fn(g.prev, g.in)
		return unsafe.Pointer(out)
	}
	g.m = &r.mark
	if !r.joinPromoted(j) {
		j.out = r.fn(g.prev, g.in) // withdrawn: nobody took it
	}
	return unsafe.Pointer(&j.out)
}

// tickFrame is Tick's slow path.
func tickFrame[In, Out any](p unsafe.Pointer) unsafe.Pointer {
	f := (*Frame[In, Out])(p)
	f.m.live.beat(f)
	return nil
}

// beat answers a heartbeat signal at frame from, the newest frame whose
// fork may be offered: if a worker is idle, it offers the oldest record of
// the Task that still has work to give, which is the oldest fork between
// from and the root when nothing older is left (see Task.beat).
//
//go:noinline
func (r *rec[In, Out]) beat(from *Frame[In, Out]) {
	atomic.StoreInt32(&r.sig, 0)
	t := r.t
	p := t.pool
	if p.nsleep.Load() == 0 || t.depth() != r.slot+1 {
		return // nobody would take it, or (Tick) something runs above r
	}
	// The Task's heartbeat moves bottom past r when it meets it (offer),
	// to split the loops above; they are done now.
	t.bottom = min(t.bottom, r.slot)
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.sleepers) > 0 && t.bottom < r.slot {
		published, exhausted := t.slots[t.bottom].offer(t)
		if exhausted {
			t.bottom++
		}
		if published {
			return
		}
		if !exhausted {
			return // another Recurse below, busy with something else
		}
	}
	if len(p.sleepers) == 0 {
		return
	}
	var oldest *Frame[In, Out]
	for f, n := from, 0; f != nil && f.m == &r.mark && n < maxWalk; f, n = f.prev, n+1 {
		oldest = f
	}
	if oldest == nil {
		if tracing {
			traceBeat(t, beatEmpty, 0)
		}
		return
	}
	j := &recJob[In, Out]{header: header{owner: t, idx: -1}, fn: r.fn, in: oldest.in}
	j.mark = mark[In, Out]{sig: 1, home: &r.mark, live: r, job: j, join: r.join}
	oldest.m = &j.mark
	r.jobs = append(r.jobs, j)
	if tracing {
		traceOffer(t, &j.header, any(j.in))
	}
	p.publishLocked(j)
	if tracing {
		traceBeat(t, beatPromoted, 1)
	}
}

// joinPromoted waits for the promoted fork j and reports true, or runs
// nothing and reports false if it is still ready (it withdraws it).
func (r *rec[In, Out]) joinPromoted(j *recJob[In, Out]) (taken bool) {
	t := r.t
	if t.depth() != r.slot+1 {
		panic("fork: Frame.Join with a Future, loop or nested Recurse above it not finished")
	}
	i := len(r.jobs) - 1
	for i >= 0 && r.jobs[i] != j {
		i--
	}
	if i < 0 {
		panic("fork: Join of a Frame joined before")
	}
	r.jobs = append(r.jobs[:i], r.jobs[i+1:]...)
	// While we wait, this worker may run other jobs; nothing of r may be
	// offered meanwhile (they run with bottom at their own base).
	saved := t.bottom
	t.bottom = t.depth()
	p := t.pool
	p.mu.Lock()
	taken = t.joinShared(j)
	p.mu.Unlock()
	t.bottom = saved
	if pv, ok := j.takePanic(); ok {
		panic(pv)
	}
	return taken
}

// offer is the Task's heartbeat meeting r on the job stack. The frames
// are on the stack of the function running, out of the heartbeat's reach
// while something above r runs (a loop or a Future in fn): r says it is
// exhausted, so the heartbeat moves on to split that; r's own forks wait
// for r's next signal.
func (r *rec[In, Out]) offer(*Task) (published, exhausted bool) { return false, true }

// abandon settles r's promoted forks after a panic unwound past the
// frames that would have joined them, and frees r.
func (r *rec[In, Out]) abandon(t *Task, _ bool) {
	t.pool.mu.Lock()
	for i := len(r.jobs) - 1; i >= 0; i-- {
		settle(t, r.jobs[i])
		r.jobs[i] = nil
	}
	t.pool.mu.Unlock()
	r.jobs = r.jobs[:0]
	if r.busy {
		r.exit()
	}
}

func (r *rec[In, Out]) scrub() {
	clear(r.jobs[:cap(r.jobs)])
	r.fn = nil
}

// recJob is a promoted fork: it runs fn(f, in) with a root frame of the
// worker that took it.
type recJob[In, Out any] struct {
	header
	fn   func(*Frame[In, Out], In) Out
	in   In
	out  Out
	mark mark[In, Out] // the mark of the promoted fork's frame
}

func (j *recJob[In, Out]) execute(t *Task) {
	j.out = RecurseTask(t, j.fn, j.in)
}
