package fork

import "unsafe"

// job is the record behind a Future: the forked function and its input,
// and, if another worker ran it, the output. A job lives in one slot of its
// owner's job stack for the life of the Task and is reused by every fork at
// that depth with the same In and Out.
type job[In, Out any] struct {
	header
	fn  func(*Task, In) Out
	in  In
	out Out
	_   pad
}

func (j *job[In, Out]) execute(t *Task) { j.out = j.fn(t, j.in) }

func (j *job[In, Out]) offer(t *Task) (published, exhausted bool) {
	if tracing {
		traceOffer(t, &j.header, any(j.in))
	}
	t.pool.publishLocked(j)
	return true, true
}

func (j *job[In, Out]) abandon(t *Task, promoted bool) {
	if promoted {
		t.pool.mu.Lock()
		settle(t, j)
		t.pool.mu.Unlock()
	}
	var zero Out
	j.out = zero
}

func (j *job[In, Out]) scrub() {
	var in In
	var out Out
	j.fn, j.in, j.out = nil, in, out
}

// Future is a forked call of fn(t, in) whose result is joined later. Its
// zero value is ready for Fork; a Future is forked and joined once, on the
// same Task, and futures are joined in the reverse order of their forks
// (nested like function calls). Keep it in a local variable.
//
//	var f fork.Future[*Node, int]
//	f.Fork(t, sum, n.Right)
//	left := sum(t, n.Left)
//	right, ok := f.Join(t)
//	if !ok {
//		right = sum(t, n.Right) // nobody took it: run it here
//	}
//
// A Future holds one integer: the depth of its Task's job stack just after
// the Fork. The forked call itself is in the job record the Task keeps at
// that depth and reuses, on the heap, so the Future stays in the caller's
// frame.
type Future[In, Out any] struct {
	// top is Task.w just after the Fork; its low half is the depth above
	// the fork's record. Zero: not forked. It is not cleared by Join:
	// a second Join finds the job stack below top and panics.
	top uint64
}

// Fork records the call fn(t, in) so that an idle worker may take it. It
// does not run it: unless a heartbeat hands it to another worker before
// Join, Join reports false and the caller makes the call itself.
//
// Fork copies fn and in into a heap record owned by t. With fn a top-level
// function (or a method expression), an untaken fork allocates nothing
// (after the first fork at each depth). A closure that captures variables
// is stored too, so the compiler moves it, and what it captures, to the
// heap: one allocation per Fork. The same holds for an in that points into
// the caller's stack frame.
//
// Fork must not be called again on f before f is joined; a Future forked
// twice leaves a fork unjoined, which the enclosing Call or job reports by
// panicking when it returns.
func (f *Future[In, Out]) Fork(t *Task, fn func(*Task, In) Out, in In) {
	// Fork and Join must inline into the caller (a call would double the
	// cost of a fork), and the compiler prices a direct call in a generic
	// function at most of its inlining budget; a call through a function
	// parameter costs a fraction. So the typed work stays here, and the
	// untyped work is in non-generic functions reached through parameters
	// (see via2): the rare install is a real call.
	j, ok := (*(*record)(unsafe.Add(t.base, uintptr(uint32(t.w))<<4))).(*job[In, Out])
	if !ok {
		j = new(job[In, Out])
		via2(t, j, &j.header, (*Task).install)
	}
	j.fn, j.in = fn, in
	t.w++
	f.top = t.w
}

// Join waits for the forked call and returns its result with true if
// another worker took it. If nobody did, Join returns the zero Out and
// false, and the caller must make the call itself: Spice's scheme, which
// keeps an untaken fork as cheap as a plain call.
//
// If the job ran on another worker and panicked, Join panics with the
// same value (the stack trace is that of the re-panic; the value is
// unchanged, so errors.Is and type switches on it work).
//
// Join panics if f was not forked, was already joined, or is joined out
// of order (a Future forked after f is still unjoined). Joining on another
// Task than the Fork's panics too, at the Join or, at worst, when the
// function running on that Task returns.
func (f *Future[In, Out]) Join(t *Task) (out Out, taken bool) {
	top := f.top
	if w := t.w + tickUnit - 1; uint32(top) != uint32(t.w) || int64(w) >= 0 || int(uint32(top)) <= t.bottom {
		if r := via1(t, top, (*Task).joinSlow); r != nil {
			return (*job[In, Out])(r).out, true
		}
		return
	}
	t.w += tickUnit - 1
	return
}

// via1, via2 and via3 call f. Calls through a function parameter are what
// the inliner prices low (a constant function may inline after all), and a
// constant argument turns them into direct calls, inlined when f is small.
// They are distinct so that a chain through them is not taken for
// recursion.
func via1(t *Task, top uint64, f func(*Task, uint64) unsafe.Pointer) unsafe.Pointer { return f(t, top) }

func via2(t *Task, r record, h *header, f func(*Task, record, *header)) { f(t, r, h) }

// joinSlow is Join's rare path: the record was promoted, a clock read is
// due, or Join was misused. It pops the record and, if another worker ran
// the job, returns the record (its output is there), or nil if the caller
// must make the call itself. If the job panicked on the other worker,
// joinSlow panics with the same value.
//
//go:noinline
func (t *Task) joinSlow(top uint64) unsafe.Pointer {
	depth := t.depth()
	d := int(uint32(top)) - 1
	if d < 0 || d >= depth {
		panic("fork: Join on a Future that was not forked or is already joined (or was forked on another Task)")
	}
	if d != depth-1 {
		panic("fork: Join out of order (join futures in the reverse order of their forks) or on another Task")
	}
	t.w += tickUnit // this join's tick
	if d >= t.bottom {
		t.setDepth(d)
		if int64(t.w) >= 0 {
			t.beat()
		}
		return nil
	}
	// Promoted. The record stays on the stack while we wait, so that jobs
	// this worker runs meanwhile fork above it instead of reusing it; and
	// nothing at or below it may be offered.
	t.bottom = d + 1
	s := t.slots[d].(shared)
	h := s.head()
	p := t.pool
	p.mu.Lock()
	taken := t.joinShared(s)
	p.mu.Unlock()
	t.setDepth(d)
	t.bottom = d
	if pv, ok := h.takePanic(); ok {
		panic(pv)
	}
	if !taken {
		return nil
	}
	return recordPointer(s)
}

// recordPointer returns the pointer to the record an interface holds.
func recordPointer(r shared) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&r))[1] }

// Join2 runs fa and fb, potentially in parallel, and returns both results.
// fb is forked and fa runs on the calling worker; if nobody took fb by the
// time fa returns, fb runs here too. A panic in either reaches the caller of
// Join2 with its original value (if fa panics, fb is withdrawn, or waited
// for if it was taken, and its result dropped).
//
// fb is stored in the fork's record, so a closure that captures variables
// costs one allocation per Join2 (the compiler moves it to the heap);
// closures that capture nothing, and fa, cost none. Recursive code that
// must not allocate uses Future with a top-level function.
func Join2[A, B any](t *Task, fa func(*Task) A, fb func(*Task) B) (A, B) {
	w := t.w
	j, _ := t.slotAt(uint32(w)).(*thunk[B])
	if j == nil {
		j = new(thunk[B])
		via2(t, j, &j.header, (*Task).install)
	}
	j.fb = fb
	w++
	t.w = w
	a := fa(t)
	// The slow case first, as in Future.Join.
	if w2 := t.w + tickUnit - 1; uint32(w) != uint32(t.w) || int64(w2) >= 0 || int(uint32(w)) <= t.bottom {
		if via1(t, w, (*Task).joinSlow) != nil {
			return a, j.out
		}
	} else {
		t.w = w2
	}
	return a, fb(t)
}

// thunk is Join2's record: a Future's job specialised to a function of no
// input, so that Join2 stores fb itself rather than a generic adapter (an
// adapter instantiated in generic code is a closure, and would allocate).
type thunk[B any] struct {
	header
	fb  func(*Task) B
	out B
	_   pad
}

func (j *thunk[B]) execute(t *Task) { j.out = j.fb(t) }

func (j *thunk[B]) offer(t *Task) (published, exhausted bool) {
	if tracing {
		traceOffer(t, &j.header, nil)
	}
	t.pool.publishLocked(j)
	return true, true
}

func (j *thunk[B]) abandon(t *Task, promoted bool) {
	if promoted {
		t.pool.mu.Lock()
		settle(t, j)
		t.pool.mu.Unlock()
	}
	j.scrub()
}

func (j *thunk[B]) scrub() {
	var out B
	j.fb, j.out = nil, out
}
