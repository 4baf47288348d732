package fork

import (
	"errors"
	"sync/atomic"
	"time"
	"unsafe"
)

// cacheLine is the size of a cache line. The structures written on every
// fork or loop iteration must not share a line with another worker's:
// two workers writing one line would cost more than the fork itself. A
// Task is a whole number of lines, so the allocator (whose size classes
// that are multiples of 64 bytes keep objects line-aligned) gives it lines
// of its own. Job records and loop frames, whose size depends on type
// parameters, end with a line of padding, so a record written by one
// worker is never followed on the same line by another worker's; the
// slots of one Task are usually allocated together, and a slot's
// predecessor is then a record of the same worker.
const cacheLine = 64

type pad [cacheLine]byte

// Heartbeat clock tuning. A worker reads the clock once every `period`
// ticks and adapts period so that reads land about checksPerBeat times per
// heartbeat: often enough to beat on time, rarely enough that the clock
// (about 25 ns) costs nothing measurable.
const (
	checksPerBeat = 4
	initialPeriod = 64
	maxPeriod     = 1 << 20
)

// Task is one worker's view of the computation: its job stack and its
// heartbeat clock. Every function that runs under a Pool receives the *Task
// of the worker running it and must pass that same *Task to Fork, Join,
// Join2, For, Reduce and Tick. A *Task must not be kept or used by another
// goroutine: a closure that captures an outer *Task and runs as a forked job
// would use another worker's Task.
type Task struct {
	// Owner-only fields, touched on every fork and join.

	// w packs the depth of the job stack (low 32 bits) and the heartbeat
	// countdown (high 32 bits) into one word, so that counting a tick costs
	// Join no memory access of its own: Join stores the depth anyway. The
	// high half holds minus the ticks left until the next clock read. Fork
	// adds 1; Join adds tickUnit-1 (one record popped, one tick counted);
	// Tick adds tickUnit. The word turning non-negative means a clock read
	// is due. slots[:depth] belong to forks (and For/Reduce loops) that
	// have not been joined yet.
	w uint64
	// bottom is the oldest record the heartbeat may still offer: every fork
	// record below it has been promoted (it is ready or taken), and loops
	// below it cannot be split any more. Fork records at or above bottom
	// are local, so their Join is the fast path. bottom <= depth.
	bottom int
	// base is &slots[0]: Fork reads slots[depth] through it without a
	// bounds check, which the invariant len(slots) > depth makes safe.
	base unsafe.Pointer
	// slots is the job stack, indexed by depth. A slot keeps its record after
	// the join, so a later fork at the same depth with the same types reuses
	// it: that is what makes an untaken fork allocation-free.
	slots []record
	pool  *Pool

	// Heartbeat clock, owner-only: ticks between clock reads, the last
	// read, and the last promotion (or the start of the Call).
	period    int
	lastCheck time.Duration
	lastBeat  time.Duration
	// busySince is when the Task last started work after waiting (or
	// its Call started): a Task idle after a heartbeat or more of work
	// asks for a promotion at once (see await).
	busySince time.Duration

	// Guarded by pool.mu.
	sleeping bool          // parked in Pool.sleepLocked, listed in sleepers
	joining  bool          // waiting for a job of its own (see waitFor)
	wake     chan struct{} // capacity 1; see Pool.wakeLocked

	// hot is the signal of the innermost Rec running on this Task, or
	// nil: the heartbeat stores 1 there (see Pool.beat).
	hot atomic.Pointer[int32]

	// A Task is a whole number of cache lines (see cacheLine and
	// TestTaskIsWholeCacheLines). The fields are not in an embedded
	// struct: the inliner counts every selector, and Fork's budget is tight.
	_ [16]byte
}

// tickUnit is one tick in Task.w's countdown half.
const tickUnit = 1 << 32

// depth returns the number of records on the job stack.
func (t *Task) depth() int { return int(uint32(t.w)) }

// setDepth sets the depth of the job stack, keeping the countdown.
func (t *Task) setDepth(d int) { t.w = t.w&^(tickUnit-1) | uint64(uint32(d)) }

// ticks returns the countdown half of w: minus the ticks left until the
// next clock read. Loops compare it before and after a block to see whether
// the bodies ticked.
func (t *Task) ticks() int64 { return int64(t.w) >> 32 }

// rearm starts a new countdown of period ticks.
func (t *Task) rearm() { t.w = uint64(uint32(t.w)) | uint64(-int64(t.period))<<32 }

// slotAt returns slots[d] without a bounds check; d < len(slots).
func (t *Task) slotAt(d uint32) record {
	return *(*record)(unsafe.Add(t.base, uintptr(d)*unsafe.Sizeof(record(nil))))
}

func newTask(p *Pool) *Task {
	t := &Task{
		pool:   p,
		slots:  make([]record, 1, 16), // len(slots) > depth always
		period: initialPeriod,
		wake:   make(chan struct{}, 1),
	}
	t.base = unsafe.Pointer(&t.slots[0])
	t.rearm()
	return t
}

// Tick is the heartbeat check: a countdown (a decrement and a branch) that
// every so often reads the clock and, once a heartbeat has passed and some
// worker is idle, offers the oldest job this worker has forked and not
// started. Join and every iteration of For and Reduce tick. Call Tick
// yourself in a long loop that neither forks nor joins, so that the jobs
// forked before the loop can move to idle workers while it runs.
func (t *Task) Tick() {
	t.w += tickUnit
	if int64(t.w) >= 0 {
		t.beat()
	}
}

// tickN counts n ticks at once (a loop's block of n indices, n <= maxStride).
func (t *Task) tickN(n int) {
	t.w += uint64(n) << 32
	if int64(t.w) >= 0 {
		t.beat()
	}
}

// beat is Tick's slow path.
//
//go:noinline
func (t *Task) beat() {
	p := t.pool
	now := clock()
	target := p.heartbeat / checksPerBeat
	elapsed := now - t.lastCheck
	t.lastCheck = now
	switch {
	case elapsed < target/2 && t.period < maxPeriod:
		t.period *= 2
	case elapsed > 2*target && t.period > 1:
		t.period /= 2
	}
	t.rearm()
	// At most one promotion per heartbeat. lastBeat moves only when a
	// promotion happens, so a worker that goes idle is served at the next
	// clock check (a quarter heartbeat away), not a full heartbeat after a
	// beat that found nobody idle.
	if now-t.lastBeat < p.heartbeat || p.nsleep.Load() == 0 || t.bottom >= t.depth() {
		if tracing {
			switch {
			case now-t.lastBeat < p.heartbeat:
				traceBeat(t, beatEarly, 0)
			case p.nsleep.Load() == 0:
				traceBeat(t, beatBusy, 0)
			default:
				traceBeat(t, beatEmpty, 0)
			}
		}
		return // too soon, nobody would take it, or nothing to offer
	}
	t.lastBeat = now
	offered := 0
	p.mu.Lock()
	// Offer the oldest record that still has work to give. A fork record
	// is promoted whole; a loop gives away half of what it has left and
	// stays at bottom, so the next beat can split it again.
	for len(p.sleepers) > 0 && t.bottom < t.depth() {
		published, exhausted := t.slots[t.bottom].offer(t)
		if exhausted {
			t.bottom++
		}
		if published {
			offered++
			break
		}
		if !exhausted {
			break // a Rec with nothing to offer now: it stays the oldest
		}
	}
	p.mu.Unlock()
	if tracing {
		traceBeat(t, beatPromoted, offered)
	}
}

var epoch = time.Now()

// clock returns monotonic time since the package started.
func clock() time.Duration { return time.Since(epoch) }

// resetClock restarts the tick countdown, so that time spent asleep or
// between jobs does not skew the tick period.
func (t *Task) resetClock() {
	t.lastCheck = clock()
	t.rearm()
}

// errGoexit is what a joiner sees when the job it waits for ended with
// runtime.Goexit on another worker.
var errGoexit = errors.New("fork: a forked job called runtime.Goexit")

// run executes a job taken from the ready list on t. A panic is caught and
// stored for the joiner; nested records the panic unwound past are
// abandoned first, so that when the joiner wakes, nothing the job forked is
// still running.
func (t *Task) run(s shared) {
	h := s.head()
	base := t.depth()
	saved := t.bottom
	// Records below base belong to frames suspended under this job. They
	// are not offered while it runs: bottom is restored to its saved value
	// when the job ends, which must not lose a promotion.
	t.bottom = base
	t.resetClock()
	if tracing {
		traceRun(t, h, true)
	}
	finished := false
	defer func() {
		if !finished {
			r := recover()
			if r == nil {
				r = errGoexit // Goexit: recover reports nothing, unwinding goes on
			}
			t.unwind(base)
			h.panicked, h.pv = true, r
		}
		t.bottom = saved
		if tracing {
			traceRun(t, h, false)
		}
		p := t.pool
		p.mu.Lock()
		p.completeLocked(h)
		p.mu.Unlock()
	}()
	s.execute(t)
	t.checkBalanced(base, "a forked job")
	finished = true
}

// checkBalanced panics if a function returned with forks it did not join.
// Their records are abandoned first, so the Task stays consistent.
func (t *Task) checkBalanced(base int, who string) {
	if t.depth() != base {
		t.unwind(base)
		panic("fork: " + who + " returned without joining every fork it made")
	}
}

// waitFor blocks until h is done, running other ready jobs meanwhile (so a
// joiner whose job was taken keeps its core busy) and sleeping when there
// are none. Called and returns with pool.mu held.
func (t *Task) waitFor(h *header) {
	p := t.pool
	for h.status != statusDone {
		if s := p.takeLocked(); s != nil {
			p.mu.Unlock()
			t.run(s)
			p.mu.Lock()
			continue
		}
		if tracing {
			traceNothing(t)
		}
		t.joining = true
		p.sleepLocked(t)
		t.joining = false
	}
	// If a publisher woke us but our own job finished first, pass the
	// wake-up on so the ready job does not wait for the next heartbeat.
	if len(p.ready) > 0 && len(p.sleepers) > 0 {
		p.wakeLocked(p.sleepers[len(p.sleepers)-1])
	}
	t.resetClock()
}

// joinShared finishes a promoted job: it withdraws it if nobody took it yet
// (reporting false so the caller runs it inline), or waits for it. Called
// and returns with pool.mu held.
func (t *Task) joinShared(s shared) (taken bool) {
	h := s.head()
	if h.status == statusShared {
		t.pool.unshareLocked(s)
		return false
	}
	t.waitFor(h)
	return true
}

// unwind abandons the records in slots[base:depth], newest first, after a
// panic (or Goexit) unwound past the frames that would have joined them:
// offered jobs are withdrawn, taken ones are waited for, and panics they
// raised are dropped in favour of the one already in flight.
func (t *Task) unwind(base int) {
	promoted := t.bottom
	// While we wait below, this worker may run other jobs; none of the
	// abandoned records may be offered in the meantime.
	t.bottom = t.depth()
	for i := t.depth() - 1; i >= base; i-- {
		t.slots[i].abandon(t, i < promoted)
	}
	t.setDepth(base)
	t.bottom = min(promoted, base)
}

// scrub drops the references the records keep to user functions, inputs
// and results, so that a pool does not keep a finished computation's data
// alive.
func (t *Task) scrub() {
	for _, r := range t.slots {
		if r == nil {
			break // slots are filled from the bottom
		}
		r.scrub()
	}
}

// install puts a new record r, whose header is h, on top of the stack,
// replacing the record of another type that held the slot, if any.
//
//go:noinline
func (t *Task) install(r record, h *header) {
	d := t.depth()
	h.owner, h.idx = t, d
	if old := t.slots[d]; old != nil {
		old.scrub()
	}
	t.slots[d] = r
	t.reserve(d)
}

// reserve keeps the invariant len(slots) > depth for a record about to be
// pushed at slots[d].
func (t *Task) reserve(d int) {
	if d+1 == len(t.slots) {
		t.slots = append(t.slots, nil)
		t.base = unsafe.Pointer(&t.slots[0])
	}
}
