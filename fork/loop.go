package fork

// A loop runs its range in order on its own worker, a block of indices at a
// time. Its frame sits on the job stack like a fork's record, and it records
// the end of the block it has claimed;
// when a heartbeat finds the frame the oldest offerable record, it cuts the
// untouched rest of the range in two and publishes the upper half as a piece
// that runs as a loop of its own wherever it is taken. So a loop is split
// only as often as heartbeats and idle workers ask for it: no grain size.

// span is the state a loop shares with the heartbeat, owner-only.
type span struct {
	idx  int // the slot index; immutable
	next int // first index not claimed yet: the heartbeat splits [next, hi)
	hi   int // end of the range this worker still owns
}

// maxStride bounds the block of indices a loop claims at once: a block
// cannot be split, so it must stay short next to a heartbeat even when the
// estimate of the cost of an iteration is off.
const maxStride = 256

// claim reserves the block [i, i+stride) of the range (or what is left of
// it) and returns its end.
func (s *span) claim(i, stride int) int {
	end := s.hi
	if uint(end-i) > uint(stride) { // uint: no overflow at the ends of int
		end = i + stride
	}
	s.next = end
	return end
}

// nextStride sizes a loop's next block. If the bodies of the last block
// ticked themselves (they fork, join or call Tick: the countdown moved
// beyond the loop's own ticks), their cost is unknown and may be large, so
// the loop goes one index at a time. Otherwise the loop's ticks are the
// only ones, and the tick period, which the clock adapts to about a
// quarter heartbeat's worth of ticks, says how cheap an index is: a block
// is a 64th of that, at least one index and at most maxStride.
func nextStride(t *Task, ticksBefore int64) int {
	if t.ticks() != ticksBefore {
		return 1
	}
	return min(max(t.period>>6, 1), maxStride)
}

// cut gives the upper half of the untouched range away, returning it, or
// reports false if there is nothing left to give.
func (s *span) cut() (lo, hi int, ok bool) {
	if s.hi <= s.next {
		return 0, 0, false
	}
	mid := s.next + int(uint(s.hi-s.next)/2) // uint: the range may exceed MaxInt
	lo, hi = mid, s.hi
	s.hi = mid
	return lo, hi, true
}

// forFrame is For's record.
type forFrame struct {
	span
	// The block being run: where it started, how long the next may be,
	// and the countdown when it started (see nextStride).
	start, stride int
	before        int64
	body          func(*Task, int)
	pieces        []*forPiece // given away, oldest (highest range) first
	_             pad
}

// forPiece is a part of a For range running as a job.
type forPiece struct {
	header
	lo, hi int
	body   func(*Task, int)
}

func (pc *forPiece) execute(t *Task) { For(t, pc.lo, pc.hi, pc.body) }

func (fr *forFrame) offer(t *Task) (published, exhausted bool) {
	lo, hi, ok := fr.cut()
	if !ok {
		return false, true
	}
	pc := &forPiece{header: header{owner: t, idx: -1}, lo: lo, hi: hi, body: fr.body}
	fr.pieces = append(fr.pieces, pc)
	if tracing {
		traceOffer(t, &pc.header, hi-lo)
	}
	t.pool.publishLocked(pc)
	return true, false
}

func (fr *forFrame) abandon(t *Task, _ bool) {
	t.pool.mu.Lock()
	for _, pc := range fr.pieces {
		settle(t, pc)
	}
	t.pool.mu.Unlock()
	clear(fr.pieces)
	fr.pieces = fr.pieces[:0]
}

func (fr *forFrame) scrub() { fr.body = nil }

// For calls body(t, i) for every i in [lo, hi), potentially in parallel.
// There is no grain size to tune: the range runs in order on the calling
// worker, and each heartbeat that finds an idle worker hands it the upper
// half of what is left (recursively, wherever that half runs). A loop of
// cheap bodies thus costs about a plain loop when it runs alone, and spreads
// over the pool when it runs long enough to matter.
//
// For returns when every body has returned. A panic in a body reaches the
// caller of For with its original value, after the rest of the range that
// was given away has finished (the first panic wins). body may fork and
// join (and must join what it forks); the heartbeat offers those jobs only
// once the loop's own range is no longer worth splitting.
//
// For inlines into its caller, and with it a body written as a function
// literal: the loop then costs about what a plain loop with the body
// written inline costs. The pieces given away cannot do that: they call
// body through its function value, so for very cheap bodies a piece runs
// up to twice as slowly per index as the caller's own part. body is kept
// in the loop's record for them, so a closure that captures variables
// costs one allocation per For call, not per element.
func For(t *Task, lo, hi int, body func(t *Task, i int)) {
	// For is small enough to inline into its caller, so body is usually a
	// known function there, inlined into the loop below: a loop of cheap
	// bodies then runs at the speed of a plain loop. Everything else
	// happens once per block, in forStep, reached through a function
	// parameter (see via1).
	for i, end := lo, lo; ; i++ {
		if i == end {
			if end = viaStep(t, lo, i, hi, body, (*Task).forStep); i == end {
				return
			}
		}
		body(t, i)
	}
}

func viaStep(t *Task, lo, i, hi int, body func(*Task, int), f func(*Task, int, int, int, func(*Task, int)) int) int {
	return f(t, lo, i, hi, body)
}

// forStep runs between the blocks of a For [lo, hi) and returns the end of
// the next block, or i when the loop is over. Before the first block
// (i == lo) it pushes the loop's frame; after each block it accounts for
// it and claims the next; after the last it joins the pieces given away and
// pops the frame. Between blocks the frame is the top of the job stack.
//
//go:noinline
func (t *Task) forStep(lo, i, hi int, body func(*Task, int)) int {
	var fr *forFrame
	if i == lo {
		if i >= hi {
			return i
		}
		fr = pushFor(t)
		fr.hi, fr.body, fr.stride = hi, body, 1
	} else {
		var ok bool
		if fr, ok = t.slots[t.depth()-1].(*forFrame); !ok {
			// A body forked without joining: the frame is not on top.
			d := t.depth() - 1
			for ; d >= 0 && !ok; d-- {
				_, ok = t.slots[d].(*forFrame)
			}
			t.checkBalanced(d+2, "a For body")
		}
		fr.stride = nextStride(t, fr.before)
		// Tick before reading hi again: a heartbeat may give away the
		// rest of the range from i on.
		t.tickN(i - fr.start)
	}
	if i < fr.hi {
		fr.start = i
		end := fr.claim(i, fr.stride)
		fr.before = t.ticks()
		return end
	}
	// The frame stays on the stack until its pieces are in: a piece run
	// inline must not reuse this slot.
	if len(fr.pieces) > 0 {
		joinForPieces(t, fr)
	}
	popLoop(t, fr.idx)
	return i
}

// pushFor puts a For frame on the job stack, reusing the slot's record.
func pushFor(t *Task) *forFrame {
	d := t.depth()
	fr, _ := t.slots[d].(*forFrame)
	if fr == nil {
		fr = newFrame(t, func(d int) *forFrame { return &forFrame{span: span{idx: d}} })
	}
	t.setDepth(d + 1)
	return fr
}

// newFrame installs a fresh loop record at slots[t.depth].
func newFrame[F record](t *Task, make func(d int) F) F {
	d := t.depth()
	t.reserve(d)
	if old := t.slots[d]; old != nil {
		old.scrub()
	}
	fr := make(d)
	t.slots[d] = fr
	return fr
}

// checkLoopBalanced panics if a loop body left forks unjoined.
func checkLoopBalanced(t *Task, d int) {
	if t.depth()-1 != d {
		t.checkBalanced(d+1, "a For or Reduce body")
	}
}

// popLoop takes a loop's frame off the job stack.
func popLoop(t *Task, d int) {
	t.setDepth(d)
	t.bottom = min(t.bottom, d)
}

// joinForPieces waits for the pieces a For gave away, newest first, running
// the ones nobody took inline. It re-panics with the first panic.
//
//go:noinline
func joinForPieces(t *Task, fr *forFrame) {
	var pv any
	failed := false
	for i := len(fr.pieces) - 1; i >= 0; i-- {
		pc := fr.pieces[i]
		fr.pieces[i] = nil
		joinPiece(t, pc)
		if v, ok := pc.takePanic(); ok && !failed {
			pv, failed = v, true
		}
	}
	fr.pieces = fr.pieces[:0]
	if failed {
		panic(pv)
	}
}

// joinPiece finishes a published loop piece: withdraws and runs it here if
// nobody took it, or waits for it. Either way a panic ends up stored in the
// piece, so that the loop can finish every piece before re-panicking.
func joinPiece(t *Task, s shared) {
	p := t.pool
	p.mu.Lock()
	taken := t.joinShared(s)
	p.mu.Unlock()
	if !taken {
		s.head().status = statusTaken // run completes it, as for a thief
		t.run(s)
	}
}

// reduceFrame is Reduce's record.
type reduceFrame[R any] struct {
	span
	zero   R
	leaf   func(*Task, int) R
	merge  func(a, b R) R
	pieces []*reducePiece[R]
	_      pad
}

// reducePiece is a part of a Reduce range running as a job.
type reducePiece[R any] struct {
	header
	lo, hi int
	zero   R
	leaf   func(*Task, int) R
	merge  func(a, b R) R
	out    R
}

func (pc *reducePiece[R]) execute(t *Task) {
	pc.out = Reduce(t, pc.lo, pc.hi, pc.zero, pc.leaf, pc.merge)
}

func (fr *reduceFrame[R]) offer(t *Task) (published, exhausted bool) {
	lo, hi, ok := fr.cut()
	if !ok {
		return false, true
	}
	pc := &reducePiece[R]{header: header{owner: t, idx: -1}, lo: lo, hi: hi, zero: fr.zero, leaf: fr.leaf, merge: fr.merge}
	fr.pieces = append(fr.pieces, pc)
	if tracing {
		traceOffer(t, &pc.header, hi-lo)
	}
	t.pool.publishLocked(pc)
	return true, false
}

func (fr *reduceFrame[R]) abandon(t *Task, _ bool) {
	t.pool.mu.Lock()
	for _, pc := range fr.pieces {
		settle(t, pc)
	}
	t.pool.mu.Unlock()
	clear(fr.pieces)
	fr.pieces = fr.pieces[:0]
}

func (fr *reduceFrame[R]) scrub() {
	var zero R
	fr.zero, fr.leaf, fr.merge = zero, nil, nil
}

// Reduce folds leaf(t, i) for every i in [lo, hi) with merge, potentially in
// parallel, and returns the result (zero for an empty range). Like For, it
// needs no grain size: the range runs in order here and heartbeats give the
// upper half of what is left to idle workers, each of which folds its part
// starting from zero. The parts are merged in index order, so merge must be
// associative and zero an identity for it (merge need not be commutative).
//
// A panic in leaf or merge reaches the caller with its original value, after
// the parts given away have finished. leaf, merge and zero are kept in the
// loop's record: capturing closures cost one allocation per Reduce call.
func Reduce[R any](t *Task, lo, hi int, zero R, leaf func(t *Task, i int) R, merge func(a, b R) R) R {
	if lo >= hi {
		return zero
	}
	fr := pushReduce[R](t)
	fr.hi, fr.zero, fr.leaf, fr.merge = hi, zero, leaf, merge
	acc := zero
	for i, stride := lo, 1; ; {
		start, end := i, fr.claim(i, stride)
		before := t.ticks()
		acc = reduceBlock(t, i, end, acc, leaf, merge)
		i = end
		stride = nextStride(t, before)
		t.tickN(end - start)
		if i >= fr.hi {
			break
		}
	}
	checkLoopBalanced(t, fr.idx)
	if len(fr.pieces) > 0 {
		acc = joinReducePieces(t, fr, acc)
	}
	popLoop(t, fr.idx)
	return acc
}

// reduceBlock folds leaf over [i, end) into acc; see forBlock.
//
//go:noinline
func reduceBlock[R any](t *Task, i, end int, acc R, leaf func(*Task, int) R, merge func(a, b R) R) R {
	for ; i < end; i++ {
		acc = merge(acc, leaf(t, i))
	}
	return acc
}

func pushReduce[R any](t *Task) *reduceFrame[R] {
	d := t.depth()
	fr, _ := t.slots[d].(*reduceFrame[R])
	if fr == nil {
		fr = newFrame(t, func(d int) *reduceFrame[R] { return &reduceFrame[R]{span: span{idx: d}} })
	}
	t.setDepth(d + 1)
	return fr
}

// joinReducePieces merges the pieces a Reduce gave away into acc. The newest
// piece holds the range right after the loop's own, so merging newest first
// keeps index order.
//
//go:noinline
func joinReducePieces[R any](t *Task, fr *reduceFrame[R], acc R) R {
	var pv any
	failed := false
	var zero R
	for i := len(fr.pieces) - 1; i >= 0; i-- {
		pc := fr.pieces[i]
		fr.pieces[i] = nil
		joinPiece(t, pc)
		if v, ok := pc.takePanic(); ok {
			if !failed {
				pv, failed = v, true
			}
			continue
		}
		if !failed {
			acc = fr.merge(acc, pc.out)
		}
		pc.out = zero
	}
	fr.pieces = fr.pieces[:0]
	if failed {
		panic(pv)
	}
	return acc
}
