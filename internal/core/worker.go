package core

import (
	"runtime/debug"
	"sync/atomic"

	"github.com/spindle-go/spindle/internal/deque"
)

// IdleAction is what an idle worker does after a round that found no work.
type IdleAction uint8

const (
	IdleSpin  IdleAction = iota // try again at once
	IdleYield                   // yield the processor, then try again
	IdlePark                    // announce idle, re-check, and block until woken
)

// IdlePolicy maps the number of consecutive empty rounds to an action.
// TieredIdle is the executor's; the simulator supplies its own.
type IdlePolicy interface {
	Action(round int) IdleAction
}

// Source says where a worker found the task it ran.
type Source uint8

const (
	FromNext     Source = iota // the worker's LIFO "next" slot
	FromLocal                  // its own ring
	FromInjector               // the shared injector
	FromSteal                  // another worker's ring
)

func (s Source) String() string {
	return [...]string{"next", "local", "injector", "steal"}[s]
}

// StepKind is the outcome of one Step.
type StepKind uint8

const (
	Ran    StepKind = iota // ran one task
	NoWork                 // found nothing; keep searching (Yield says whether to yield first)
	Park                   // found nothing for long enough; call PrepareParking
	Exit                   // the run is over
)

// Result is what Step did.
type Result struct {
	Kind     StepKind
	Source   Source // for Ran
	Victim   int    // for Ran from FromSteal
	Yield    bool   // for NoWork
	Panicked bool   // for Ran: the task panicked (the run is being shut down)
}

// Counters are a worker's statistics. The worker writes them with plain
// stores; Publish copies them into atomics that any goroutine may read.
type Counters struct {
	TasksRun       uint64
	LocalPops      uint64 // next slot or own ring
	InjectorPops   uint64 // tasks taken from the injector (batches count each task)
	StealAttempts  uint64
	StealSuccesses uint64
	TasksStolen    uint64 // tasks moved from victims' rings
	Spills         uint64 // times a full ring moved half of itself to the injector
	Parks          uint64
	Wakeups        uint64 // parked workers this worker woke
}

const numCounters = 9

func (c *Counters) array() [numCounters]uint64 {
	return [numCounters]uint64{c.TasksRun, c.LocalPops, c.InjectorPops, c.StealAttempts,
		c.StealSuccesses, c.TasksStolen, c.Spills, c.Parks, c.Wakeups}
}

func countersFrom(a [numCounters]uint64) Counters {
	return Counters{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]}
}

// Worker is one worker's scheduling state. All methods except Snapshot are
// for the worker's own goroutine (in the simulator: the one goroutine).
type Worker[T any] struct {
	ID   int
	pool *Pool[T]
	ring *deque.Ring[T] // nil in Shared mode

	// next is the LIFO slot (as in the Go runtime and Tokio). The first task a
	// running task spawns goes here, invisible to thieves, and inherits the
	// spawner's in-flight unit when the spawner returns; so a chain of tasks
	// that each spawn one successor touches no shared memory at all.
	next    T
	hasNext bool
	// claimed holds tasks taken from the own ring in one PopBatch (one fence
	// for up to maxClaim tasks instead of one each), run newest first. They
	// are private, so a claim never takes more than half the ring.
	claimed    [maxClaim]T
	cpos, cend int
	hoard      int // ring pushes since this worker last woke a sibling
	tick       uint32
	rng        uint64 // Rand's, for tasks
	victims    uint64 // victim selection's: same seed, separate state
	spinning   bool
	running    bool // inside run(t): a panic now is the task's
	idleRounds int
	batch      []T
	// owed counts finished tasks whose units have not yet been subtracted
	// from the state word. Releasing them in batches keeps the contended
	// word out of the per-task path; a worker always pays its debt before it
	// looks beyond its own queues, so the run still ends as soon as the last
	// worker runs out of work.
	owed uint64

	C         Counters
	published [numCounters]atomic.Uint64
}

// Rand returns the next value of the worker's xorshift64* generator; the
// sequence is fixed by the seed and worker index. Victim selection draws
// from its own copy (victims), so the tasks' sequence does not depend on how
// often the worker searched.
func (w *Worker[T]) Rand() uint64 { return xorshift(&w.rng) }

func xorshift(s *uint64) uint64 {
	x := *s
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*s = x
	return x * 0x2545F4914F6CDD1D
}

func seedFor(seed uint64, id int) uint64 {
	s := seed ^ uint64(id+1)*0x9E3779B97F4A7C15
	if s == 0 {
		s = 0x853c49e6748fea9b
	}
	return s
}

// Spawn adds a task from inside a running task on this worker: into the next
// slot, pushing the previous occupant onto the ring. Only the goroutine
// running the current task may call it.
func (w *Worker[T]) Spawn(t T) {
	p := w.pool
	if p.cfg.Shared {
		p.State.Add(1)
		p.Injector.Push(t)
		p.wakeOne()
		return
	}
	if !w.hasNext {
		w.next, w.hasNext = t, true
		return
	}
	old := w.next
	w.next = t
	p.State.Add(1) // old leaves the next slot and needs a unit of its own
	w.push(old)
}

// SpawnGlobal adds a task from inside a running task onto the injector.
func (w *Worker[T]) SpawnGlobal(t T) {
	p := w.pool
	p.State.Add(1)
	p.Injector.Push(t)
	p.wakeOne()
}

// push puts an already-counted task on the ring, spilling half of the ring to
// the injector when it is full, and wakes a sibling when the ring has just
// become non-empty or has been hoarding.
func (w *Worker[T]) push(t T) {
	p := w.pool
	r := w.ring
	if !r.Push(t) {
		w.spill()
		if !r.Push(t) {
			p.Injector.Push(t)
		}
	}
	p.work.Set(w.ID)
	w.hoard++
	if w.hoard >= WakeOnHoard || r.Len() == 1 {
		if p.spinning.Load() == 0 && p.idle.Any() {
			w.hoard = 0
			w.C.Wakeups++
			p.wakeN(1)
		}
	}
}

// spill moves the older half of the ring to the injector in one batch.
func (w *Worker[T]) spill() {
	n := 0
	w.ring.StealHalf(len(w.batch), func(t T) { w.batch[n] = t; n++ })
	w.pool.Injector.PushBatch(w.batch[:n])
	clear(w.batch[:n])
	w.C.Spills++
	w.pool.trace(Event{Kind: EvSpill, Worker: w.ID, N: n})
}

// pop finds the next task in the policy's order: next slot, own ring (with a
// look at the injector every fairnessTick tasks), injector batch, then up to
// StealTries victims, each steal taking half the victim's ring.
func (w *Worker[T]) pop() (t T, src Source, victim int, ok bool) {
	p := w.pool
	if p.cfg.Shared {
		if t, ok = p.Injector.Pop(); ok {
			w.C.InjectorPops++
			return t, FromInjector, -1, true
		}
		w.settle()
		return t, 0, -1, false
	}
	if w.hasNext {
		t, w.hasNext = w.next, false
		var zero T
		w.next = zero
		// A chain of tasks that each spawn one successor never leaves the
		// next slot, so it counts fairness ticks too: on the tick, the
		// successor moves onto the ring (keeping its unit) and the
		// injector goes first.
		w.tick++
		if w.tick%fairnessTick != 0 || p.Injector.Len() == 0 {
			w.C.LocalPops++
			return t, FromNext, -1, true
		}
		w.push(t)
		if t, ok = w.popInjector(); ok {
			return t, FromInjector, -1, true
		}
	}
	if w.cpos < w.cend {
		var zero T
		t = w.claimed[w.cpos]
		w.claimed[w.cpos] = zero
		w.cpos++
		w.C.LocalPops++
		return t, FromLocal, -1, true
	}
	w.tick++
	if w.tick%fairnessTick == 0 {
		if t, ok = w.popInjector(); ok {
			return t, FromInjector, -1, true
		}
	}
	k := (w.ring.Len() + 1) / 2
	if k > maxClaim {
		k = maxClaim
	}
	if k < 1 {
		k = 1
	}
	if n := w.ring.PopBatch(w.claimed[:k]); n > 0 {
		var zero T
		t = w.claimed[0]
		w.claimed[0] = zero
		w.cpos, w.cend = 1, n
		w.C.LocalPops++
		return t, FromLocal, -1, true
	}
	w.settle()
	if t, ok = w.popInjector(); ok {
		return t, FromInjector, -1, true
	}
	return w.steal()
}

// popInjector takes a batch from the injector: one task to run, the rest onto
// the own ring. The batch is at most half a ring and at most a 1/workers share
// of the injector, so siblings find work there too.
func (w *Worker[T]) popInjector() (t T, ok bool) {
	p := w.pool
	if p.Injector.Len() == 0 {
		return t, false
	}
	room := w.ring.Cap() - w.ring.Len()
	if room > len(w.batch) {
		room = len(w.batch)
	}
	if room < 1 {
		room = 1
	}
	n := p.Injector.PopBatch(w.batch[:room], p.cfg.Workers)
	if n == 0 {
		return t, false
	}
	t = w.batch[0]
	if n > 1 {
		if k := 1 + w.ring.PushBatch(w.batch[1:n]); k < n {
			p.Injector.PushBatch(w.batch[k:n])
		}
	}
	clear(w.batch[:n])
	if n > 1 {
		p.work.Set(w.ID)
	}
	w.C.InjectorPops += uint64(n)
	return t, true
}

// steal tries up to StealTries victims that the work bitmask says may have
// work, starting from a random worker, and takes half of the first non-empty
// victim's ring.
func (w *Worker[T]) steal() (t T, src Source, victim int, ok bool) {
	p := w.pool
	n := p.cfg.Workers
	if n == 1 {
		return t, 0, -1, false
	}
	start := int(xorshift(&w.victims) % uint64(n))
	for try := 0; try < p.cfg.StealTries; try++ {
		v := p.work.Next(start)
		if v == w.ID {
			v = p.work.Next(v + 1)
		}
		if v < 0 || v == w.ID {
			return t, 0, -1, false
		}
		w.C.StealAttempts++
		got := 0
		room := w.ring.Cap() - w.ring.Len()
		if room > len(w.batch) {
			room = len(w.batch)
		}
		if room < 1 {
			room = 1 // the first stolen task is run, not pushed
		}
		p.rings[v].StealHalf(room, func(x T) {
			if got == 0 {
				t = x
			} else if !w.ring.Push(x) {
				p.Injector.Push(x)
			}
			got++
		})
		if got > 0 {
			w.C.StealSuccesses++
			w.C.TasksStolen += uint64(got)
			if got > 1 {
				p.work.Set(w.ID)
			}
			return t, FromSteal, v, true
		}
		// Found empty: clear its hint, then re-check so a push that raced
		// with the clear is not hidden (the owner sets the bit after its
		// push; we clear before this load).
		p.work.Clear(v)
		if p.rings[v].Len() > 0 {
			p.work.Set(v)
		}
		start = v + 1
	}
	return t, 0, -1, false
}

// Step is one turn of the worker loop, shared by the executor and the
// simulator: find a task, run it with panics recovered, and release its unit
// of the state word; or, with nothing to do, consult the idle policy.
func (w *Worker[T]) Step(run func(T), idle IdlePolicy) Result {
	p := w.pool
	if p.done.Load() {
		w.settle()
		w.stopSpinning(false)
		return Result{Kind: Exit}
	}
	t, src, victim, ok := w.pop()
	if !ok {
		if !w.spinning {
			w.spinning = true
			p.spinning.Add(1)
		}
		w.idleRounds++
		switch idle.Action(w.idleRounds) {
		case IdlePark:
			return Result{Kind: Park}
		case IdleYield:
			return Result{Kind: NoWork, Yield: true}
		}
		return Result{Kind: NoWork}
	}
	if p.done.Load() {
		// Shutdown (or a panic elsewhere) landed while we were popping: the
		// task stays abandoned, which narrows "a task taken before Shutdown
		// returned may still start" to the few instructions from here to run.
		w.settle()
		w.stopSpinning(false)
		return Result{Kind: Exit}
	}
	w.idleRounds = 0
	if w.spinning {
		w.stopSpinning(true)
	}
	w.C.TasksRun++
	if p.tracing {
		p.trace(Event{Kind: EvRun, Worker: w.ID, Source: src, Victim: victim})
	}
	// No defer here: a deferred recover per task costs more than the rest of
	// the step. A panic unwinds to the caller's recover (once per worker
	// loop, or StepRecover), which hands it to TaskPanicked; running tells
	// it that the panic came from the task and not from the policy.
	w.running = true
	run(t)
	w.running = false
	if !w.hasNext { // else the task's unit passes to the task in the next slot
		w.owed++
		if w.owed >= maxOwed {
			w.settle()
		}
	}
	if w.C.TasksRun&255 == 0 {
		w.Publish()
	}
	return Result{Kind: Ran, Source: src, Victim: victim}
}

// TaskPanicked does the bookkeeping for a task that panicked inside Step:
// the first panic is recorded, the run is shut down, and the task's unit is
// released (unless a task it spawned into the next slot inherited it: that
// task is abandoned and keeps the unit, so it counts as abandoned). It reports false if no task was running, meaning the panic came
// from the policy itself and the caller must re-raise it.
func (w *Worker[T]) TaskPanicked(val any, stack []byte) bool {
	if !w.running {
		return false
	}
	w.running = false
	w.pool.recordPanic(val, stack)
	if w.hasNext {
		// The task in the next slot inherited the unit and is abandoned
		// with it, so Join counts it in Abandoned; drop it for the GC.
		var zero T
		w.next, w.hasNext = zero, false
	} else {
		w.owed++
	}
	w.settle()
	return true
}

// TaskRecovered does the bookkeeping for a task that panicked (or called
// runtime.Goexit) inside Step when the caller keeps the run going: the task
// counts as finished, exactly as if it had returned, so a task it spawned
// into the next slot inherits its unit and runs. It reports false if no task
// was running, meaning the panic came from the policy itself and the caller
// must re-raise it.
func (w *Worker[T]) TaskRecovered() bool {
	if !w.running {
		return false
	}
	w.running = false
	if !w.hasNext {
		w.owed++
	}
	w.settle()
	return true
}

// Running reports whether the worker is inside a task's run call.
func (w *Worker[T]) Running() bool { return w.running }

// StepRecover is Step with the task's panic recovered and handed to
// TaskPanicked; the result then has Panicked set.
func (w *Worker[T]) StepRecover(run func(T), idle IdlePolicy) (r Result) {
	defer func() {
		if w.running {
			v := recover()
			if !w.TaskPanicked(v, debug.Stack()) {
				panic(v)
			}
			r = Result{Kind: Ran, Panicked: true}
		}
	}()
	return w.Step(run, idle)
}

// maxClaim bounds how many tasks a worker takes from its own ring at once.
const maxClaim = 8

// maxOwed bounds how many completions a worker holds back from the state word.
const maxOwed = 64

// settle subtracts the owed completions from the state word, ending the run
// if they were the last.
func (w *Worker[T]) settle() {
	if w.owed == 0 {
		return
	}
	n := w.owed
	w.owed = 0
	if w.pool.State.Done(n) {
		w.pool.finish()
	}
}

// stopSpinning leaves the searching state. If the worker found work and was
// the last searcher while more work is visible, it wakes a parked sibling to
// take the rest (the Go runtime's rule), which ramps up parallelism for bursts
// without waking everyone for every task.
func (w *Worker[T]) stopSpinning(foundWork bool) {
	if !w.spinning {
		return
	}
	w.spinning = false
	p := w.pool
	if p.spinning.Add(-1) == 0 && foundWork && p.idle.Any() && p.hasVisibleWork() {
		w.C.Wakeups++
		p.wakeN(1)
	}
}

// PrepareParking is the first half of parking: leave the searching state,
// announce this worker as parked, then re-check every queue. It returns true
// if the caller should now block until Wake(ID); false if work (or the end of
// the run) appeared meanwhile, in which case the worker is searching again.
func (w *Worker[T]) PrepareParking() bool {
	p := w.pool
	w.Publish()
	w.stopSpinning(false)
	p.idle.Set(w.ID)
	if p.hasVisibleWork() || p.done.Load() {
		w.Unparked()
		return false
	}
	w.C.Parks++
	p.trace(Event{Kind: EvPark, Worker: w.ID})
	return true
}

// Unparked is called after the worker's block returns (or PrepareParking
// backed out). If a waker claimed this worker it already counted it as
// searching; otherwise the worker withdraws its own idle announcement and
// counts itself.
func (w *Worker[T]) Unparked() {
	p := w.pool
	if p.idle.TryClear(w.ID) {
		p.spinning.Add(1)
	}
	w.spinning = true
	w.idleRounds = 0
}

// Exit publishes final counters when the worker leaves its loop.
func (w *Worker[T]) Exit() {
	w.stopSpinning(false)
	w.Publish()
}

// Publish copies the counters where Snapshot can read them.
func (w *Worker[T]) Publish() {
	a := w.C.array()
	for i := range a {
		w.published[i].Store(a[i])
	}
}

// Snapshot returns the last published counters. Safe from any goroutine.
func (w *Worker[T]) Snapshot() Counters {
	var a [numCounters]uint64
	for i := range a {
		a[i] = w.published[i].Load()
	}
	return countersFrom(a)
}

// PendingLocal reports how many tasks this worker holds privately (next slot
// and ring). For tests and the simulator.
func (w *Worker[T]) PendingLocal() int {
	n := 0
	if w.hasNext {
		n++
	}
	if w.ring != nil {
		n += w.ring.Len()
	}
	return n + w.cend - w.cpos
}
