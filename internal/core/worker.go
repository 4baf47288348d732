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
	// claimed[cpos:cend] are tasks this worker holds privately and runs in
	// order: up to maxClaim taken from its own ring in one PopBatch (one
	// fence for several tasks instead of one each), or a batch of up to half
	// a ring taken from the injector, which then never touches the ring: a
	// stream of tiny injected tasks costs a lock per batch and nothing per
	// task. Thieves cannot see private tasks, so as soon as a sibling is
	// searching or parked, the worker moves all but the next one onto its
	// ring (see share). len(claimed) is the ring's capacity / 2.
	claimed    []T
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
		if w.cend-w.cpos > 1 && p.wantsWork() {
			w.share()
		}
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

// popInjector takes a batch from the injector: one task to run, the rest
// held privately in claimed (see there). The batch is at most half a ring
// and at most a 1/workers share of the injector, so siblings find work there
// too. With private tasks in hand (a fairness turn taken from the next
// slot) it takes one task only.
func (w *Worker[T]) popInjector() (t T, ok bool) {
	p := w.pool
	if p.Injector.Len() == 0 {
		return t, false
	}
	if w.cpos < w.cend {
		if t, ok = p.Injector.Pop(); ok {
			w.C.InjectorPops++
		}
		return t, ok
	}
	n := p.Injector.PopBatch(w.claimed, p.cfg.Workers)
	if n == 0 {
		return t, false
	}
	var zero T
	t, w.claimed[0] = w.claimed[0], zero
	w.cpos, w.cend = 1, n
	w.C.InjectorPops += uint64(n)
	return t, true
}

// wantsWork reports whether some worker is searching for work or parked: a
// worker holding private tasks then shares them. Two loads of lines that
// only change when a worker starts or stops searching.
func (p *Pool[T]) wantsWork() bool {
	return p.spinning.Load() > 0 || p.parked.Load() > 0
}

// share moves the private tasks but the next one onto the ring, where
// siblings can steal them (any that do not fit go to the injector), and
// wakes a parked sibling if nobody is searching.
func (w *Worker[T]) share() {
	p := w.pool
	from := w.cpos + 1
	k := from + w.ring.PushBatch(w.claimed[from:w.cend])
	if k < w.cend {
		p.Injector.PushBatch(w.claimed[k:w.cend])
	}
	clear(w.claimed[from:w.cend])
	w.cend = from
	p.work.Set(w.ID)
	if p.spinning.Load() == 0 && p.idle.Any() {
		w.hoard = 0
		w.C.Wakeups++
		p.wakeN(1)
	}
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
// simulator: find a task, run it, and release its unit of the state word; or,
// with nothing to do, consult the idle policy. It is Take, run and Finish, or
// Idle; the executor calls those directly, so that the task's function is
// called without an adapter in between.
func (w *Worker[T]) Step(run func(T), idle IdlePolicy) Result {
	t, src, victim, ok := w.take()
	if !ok {
		return w.Idle(idle)
	}
	run(t)
	w.Finish()
	return Result{Kind: Ran, Source: src, Victim: victim}
}

// Take returns the next task in the policy's order and marks the worker as
// running it; the caller runs it and then calls Finish. ok is false when
// there is no task or the run is over: the caller then calls Idle. No defer
// guards the task: a panic unwinds to the caller's recover (once per worker
// loop, or StepRecover), which hands it to TaskPanicked or TaskRecovered;
// Running tells them that the panic came from the task and not from the
// policy.
//
// The common cases, the next slot and a private claim, are handled here
// without a call; pop has the full order.
func (w *Worker[T]) Take() (t T, ok bool) {
	p := w.pool
	var zero T
	switch {
	case p.tracing:
	case w.hasNext:
		// A chain of tasks that each spawn one successor never leaves the
		// next slot, so it counts fairness ticks too (see pop).
		if (w.tick+1)%fairnessTick == 0 && p.Injector.Len() > 0 {
			break
		}
		w.tick++
		t, w.next, w.hasNext = w.next, zero, false
		w.C.LocalPops++
		return w.started(t)
	case w.cpos < w.cend:
		if w.cend-w.cpos > 1 && p.wantsWork() {
			break
		}
		t, w.claimed[w.cpos] = w.claimed[w.cpos], zero
		w.cpos++
		w.C.LocalPops++
		if p.done.Load() || w.spinning {
			return w.started(t)
		}
		// started, inline: this is the path of every task of a batch.
		w.idleRounds = 0
		w.C.TasksRun++
		w.running = true
		return t, true
	}
	t, _, _, ok = w.take()
	return t, ok
}

// started finishes a take from the next slot or a private claim. The worker
// ran the task that filled them and has not searched since, so it is not
// a searcher; the check costs little and keeps the count exact regardless.
func (w *Worker[T]) started(t T) (T, bool) {
	if w.pool.done.Load() {
		var zero T
		return zero, false // abandoned, as in take
	}
	if w.spinning {
		w.stopSpinning(true)
	}
	w.idleRounds = 0
	w.C.TasksRun++
	w.running = true
	return t, true
}

func (w *Worker[T]) take() (t T, src Source, victim int, ok bool) {
	p := w.pool
	t, src, victim, ok = w.pop()
	if !ok || p.done.Load() {
		// Shutdown (or a panic elsewhere) may land while we pop: the task
		// stays abandoned, which narrows "a task taken before Shutdown
		// returned may still start" to the few instructions from here to
		// the run. Idle sees done and exits.
		var zero T
		return zero, 0, -1, false
	}
	w.idleRounds = 0
	if w.spinning {
		w.stopSpinning(true)
	}
	w.C.TasksRun++
	if p.tracing {
		p.trace(Event{Kind: EvRun, Worker: w.ID, Source: src, Victim: victim})
	}
	w.running = true
	return t, src, victim, true
}

// Finish releases the unit of the task Take returned, which has returned:
// in a batch with others (see owed), or to the task it spawned into the next
// slot, which inherits it.
func (w *Worker[T]) Finish() {
	w.running = false
	if !w.hasNext { // else the task's unit passes to the task in the next slot
		w.owed++
	}
	// One call for both rare cases keeps Finish small enough to inline
	// into the executor's loop.
	if w.owed >= maxOwed || w.C.TasksRun&255 == 0 {
		via(w, (*Worker[T]).finishRare)
	}
}

// via calls f(w): the inliner prices a call through a function parameter
// lower than a method call, which keeps Finish within its budget.
func via[T any](w *Worker[T], f func(*Worker[T])) { f(w) }

// finishRare is Finish's rare work: settle the owed units once there are
// maxOwed of them, and publish the counters every 256 tasks.
func (w *Worker[T]) finishRare() {
	if w.owed >= maxOwed {
		w.settle()
	}
	if w.C.TasksRun&255 == 0 {
		w.Publish()
	}
}

// Idle is what a worker does when Take found nothing: Exit when the run is
// over, otherwise it becomes a searcher and asks the idle policy whether to
// spin (NoWork), yield (NoWork with Yield) or park (Park: the caller calls
// PrepareParking).
func (w *Worker[T]) Idle(idle IdlePolicy) Result {
	p := w.pool
	if p.done.Load() {
		w.settle()
		w.stopSpinning(false)
		return Result{Kind: Exit}
	}
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
	p.parked.Add(1)
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
		p.parked.Add(-1)
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
