package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/internal/deque"
)

// WakeOnHoard is the number of tasks a worker pushes onto its own ring,
// without anyone noticing, before it wakes a parked sibling to come and steal.
const WakeOnHoard = 32

// fairnessTick: every this many tasks a worker looks at the injector before
// its own ring, so external work is not starved by a worker that keeps
// feeding itself (the Go runtime uses 61 for the same purpose).
const fairnessTick = 61

// Waker is how the policy wakes a parked worker. The executor sends a permit
// on the worker's channel; the simulator marks the virtual worker runnable.
// Wake must not block, and a wake that arrives before the worker parks must
// not be lost (a permit, not a notification).
type Waker interface {
	Wake(worker int)
}

// Tracer receives one event per scheduling decision. The executor installs
// none (nil: one predictable branch per step); the simulator records them.
type Tracer interface {
	Trace(ev Event)
}

// Config is the policy's part of the executor's configuration.
type Config struct {
	Workers    int
	Seed       uint64
	StealTries int
	SpinIters  int
	LocalCap   int
	Shared     bool // one MPMC queue for everything instead of per-worker rings
	Waker      Waker
	Tracer     Tracer
	// OnDone runs once, when the run is over (drained after Close, or stopped
	// by Shutdown or a panic). It must not block.
	OnDone func()
}

// Pool is the state shared by all workers of one executor or simulation: the
// gate word, the queues, and the idle bookkeeping.
type Pool[T any] struct {
	State    State
	Injector deque.Injector[T]
	rings    []*deque.Ring[T]
	work     *deque.Bitmask // rings that may hold work (a hint)
	idle     *deque.Bitmask // parked workers; a waker claims one with TryClear
	spinning atomic.Int32   // workers searching for work, not parked
	// parked counts the bits set in idle, give or take the moments between a
	// bit's change and the count's: a hint for wantsWork, which runs per
	// task and should not call into the bitmask. The wake-up protocol reads
	// idle itself.
	parked   atomic.Int32
	done     atomic.Bool // monotonic: once true the workers exit
	doneOnce sync.Once
	wakeRR   atomic.Uint32 // rotates the starting point of wake searches

	panicMu    sync.Mutex
	panicVal   any
	panicStack []byte
	panicked   atomic.Bool

	tracing bool // cfg.Tracer != nil, as one byte to test per task
	cfg     Config
}

// NewPool builds the shared state and one Worker per configured worker.
func NewPool[T any](cfg Config) (*Pool[T], []*Worker[T]) {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.StealTries < 1 {
		cfg.StealTries = 1
	}
	if cfg.LocalCap < 1 {
		cfg.LocalCap = 256 // NewRing rounds any other value up to a power of two >= 2
	}
	p := &Pool[T]{
		work: deque.NewBitmask(cfg.Workers),
		idle: deque.NewBitmask(cfg.Workers),
		cfg:  cfg,
	}
	p.tracing = cfg.Tracer != nil
	p.State.Init()
	ws := make([]*Worker[T], cfg.Workers)
	if !cfg.Shared {
		p.rings = make([]*deque.Ring[T], cfg.Workers)
	}
	for i := range ws {
		w := &Worker[T]{ID: i, pool: p, rng: seedFor(cfg.Seed, i), victims: seedFor(cfg.Seed, i)}
		if !cfg.Shared {
			p.rings[i] = deque.NewRing[T](cfg.LocalCap)
			w.ring = p.rings[i]
			w.batch = make([]T, p.rings[i].Cap()/2)
			w.claimed = make([]T, max(maxClaim, p.rings[i].Cap()/2))
		}
		ws[i] = w
	}
	return p, ws
}

// Workers returns the number of workers.
func (p *Pool[T]) Workers() int { return p.cfg.Workers }

// Done reports whether the run is over and workers should exit.
func (p *Pool[T]) Done() bool { return p.done.Load() }

// Spinning returns the number of workers currently searching for work.
func (p *Pool[T]) Spinning() int { return int(p.spinning.Load()) }

// Parked reports whether worker i has announced that it is parked.
func (p *Pool[T]) Parked(i int) bool { return p.idle.Has(i) }

// Spawn accepts t from outside the workers if the gate is open.
func (p *Pool[T]) Spawn(t T) bool {
	if !p.State.TryAcquire(1) {
		return false
	}
	p.Injector.Push(t)
	p.wakeOne()
	return true
}

// SpawnBatch accepts all of ts or none of them. It wakes at most one parked
// worker per task and never more than there are workers.
func (p *Pool[T]) SpawnBatch(ts []T) bool {
	if len(ts) == 0 {
		return p.State.Accepting()
	}
	if !p.State.TryAcquire(uint64(len(ts))) {
		return false
	}
	p.Injector.PushBatch(ts)
	p.wakeN(len(ts))
	return true
}

// Close shuts the gate. Accepted tasks still run; when the last one finishes
// the run is over. Returns once the gate is shut, not when the run is over.
func (p *Pool[T]) Close() {
	if p.State.Close() {
		p.finish()
	}
}

// Shutdown shuts the gate and ends the run now: workers finish the task in
// hand and exit; queued tasks are abandoned. The injector is emptied at once;
// tasks in rings and next slots are released when the executor is collected.
func (p *Pool[T]) Shutdown() {
	p.State.Close()
	p.finish()
	p.Injector.Drain()
}

// Panic returns the first panic a task raised, if any.
func (p *Pool[T]) Panic() (val any, stack []byte, ok bool) {
	if !p.panicked.Load() {
		return nil, nil, false
	}
	p.panicMu.Lock()
	defer p.panicMu.Unlock()
	return p.panicVal, p.panicStack, true
}

func (p *Pool[T]) recordPanic(val any, stack []byte) {
	p.panicMu.Lock()
	if !p.panicked.Load() {
		p.panicVal, p.panicStack = val, stack
		p.panicked.Store(true)
	}
	p.panicMu.Unlock()
	p.Shutdown()
}

// finish ends the run exactly once: workers see done on their next step and
// every parked worker is woken so it can see it.
func (p *Pool[T]) finish() {
	p.doneOnce.Do(func() {
		p.done.Store(true)
		p.trace(Event{Kind: EvDone, Worker: -1})
		for i := 0; i < p.cfg.Workers; i++ {
			if p.idle.TryClear(i) {
				p.parked.Add(-1)
				p.spinning.Add(1) // as in wakeN: the woken worker counts as searching
				p.cfg.Waker.Wake(i)
			}
		}
		if p.cfg.OnDone != nil {
			p.cfg.OnDone()
		}
	})
}

// hasVisibleWork reports whether any queue holds a task, looking at every
// ring directly rather than trusting the work bitmask. It is the re-check a
// worker makes after announcing that it is about to park.
func (p *Pool[T]) hasVisibleWork() bool {
	if p.Injector.Len() > 0 {
		return true
	}
	for _, r := range p.rings {
		if r.Len() > 0 {
			return true
		}
	}
	return false
}

// wakeOne wakes a parked worker if work was just published and nobody is
// already searching for it. A searcher that finds the work and stops
// searching wakes the next one if more work is visible (see stopSpinning), so
// a burst of work ramps workers up one by one without a thundering herd.
//
// Lost wakeups are impossible: the publisher stores the work, then loads
// spinning and idle; a worker about to park stores its idle bit (after
// leaving spinning), then loads the queues. With sequentially consistent
// atomics one of the two sees the other's store.
func (p *Pool[T]) wakeOne() {
	if p.spinning.Load() > 0 {
		return
	}
	p.wakeN(1)
}

// wakeN claims and wakes up to n parked workers, regardless of searchers.
func (p *Pool[T]) wakeN(n int) {
	if n > p.cfg.Workers {
		n = p.cfg.Workers
	}
	start := int(p.wakeRR.Add(1)) % p.cfg.Workers
	for n > 0 {
		i := p.idle.Next(start)
		if i < 0 {
			return
		}
		if p.idle.TryClear(i) {
			p.parked.Add(-1)
			// The woken worker counts as searching from now on, so that
			// concurrent publishers do not wake a second one for the same work.
			p.spinning.Add(1)
			p.trace(Event{Kind: EvWake, Worker: i})
			p.cfg.Waker.Wake(i)
			n--
		}
		start = i
	}
}

func (p *Pool[T]) trace(ev Event) {
	if p.tracing {
		p.cfg.Tracer.Trace(ev)
	}
}

// TieredIdle is the production idle policy: spin (trying every queue) for
// SpinIters rounds, yielding the processor every 16th round so a producer on
// the same core can run, then park. ParkTimeout, if non-zero, bounds each
// park; correctness never depends on it.
type TieredIdle struct {
	SpinIters   int
	ParkTimeout time.Duration
}

// Action says what an idle worker does after an empty round.
func (t TieredIdle) Action(round int) IdleAction {
	if round > t.SpinIters {
		return IdlePark
	}
	if round&15 == 0 {
		return IdleYield
	}
	return IdleSpin
}
