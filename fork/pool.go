package fork

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Config sets up a Pool. The zero value is ready to use.
type Config struct {
	// Workers is the number of goroutines that run jobs, counting the
	// goroutine that calls Call: a Pool starts Workers-1 background workers,
	// and Workers == 1 runs everything on the caller. Zero or negative means
	// runtime.GOMAXPROCS(0).
	Workers int
	// Heartbeat is how often a busy worker offers its oldest forked job to
	// idle workers. Shorter beats split smaller pieces of work at a higher
	// bookkeeping cost; work that finishes within one beat never leaves its
	// worker (within a quarter beat, for Recurse, whose first beat comes
	// then; and a worker that falls idle after a beat or more of work asks
	// for a promotion at once). Zero or negative means 100µs.
	Heartbeat time.Duration
}

// DefaultHeartbeat is the heartbeat a Pool uses when Config.Heartbeat is zero.
const DefaultHeartbeat = 100 * time.Microsecond

// ErrClosed was the value Call panicked with on a closed Pool.
//
// Deprecated: Call no longer panics after Close: it runs the computation on
// the calling goroutine alone (see Call). Nothing returns ErrClosed now; it
// is kept so that code which tests for it still compiles.
var ErrClosed = errors.New("fork: Call on a closed Pool")

// Pool runs fork/join computations on a fixed set of workers. Create it with
// NewPool and release it with Close. All methods and Call are safe for
// concurrent use.
type Pool struct {
	heartbeat time.Duration
	workers   int
	spin      time.Duration // how long a sleeper polls before it parks

	// nsleep mirrors len(sleepers) so that a heartbeat can see without taking
	// mu that nobody would take an offered job. Written only under mu.
	nsleep atomic.Int32

	// recs counts the Recurse computations running on the pool's workers
	// (see RecurseTask). While it and nsleep are both positive, idle
	// workers and the beater goroutine signal them every heartbeat (see
	// beat); lastBeat is the clock at the last signal, or when the first of
	// them started. beaterParked says that the beater waits on beaterWake.
	recs         atomic.Int32
	npoll        atomic.Int32 // idle workers polling (see await), who beat
	lastBeat     atomic.Int64
	beaterParked atomic.Bool
	beaterWake   chan struct{} // capacity 1
	// tasks lists every Task of the pool (background workers' and
	// callers'), for signalling; replaced, never modified, under mu.
	tasks atomic.Pointer[[]*Task]

	mu sync.Mutex
	// ready holds promoted jobs nobody has taken yet, oldest first. Guarded by mu.
	ready []shared
	// sleepers are Tasks parked in sleep, waiting for ready work or for a
	// job of theirs to finish. A Task is in sleepers iff its sleeping flag is
	// set; whoever removes it sends exactly one token on its wake channel.
	// Guarded by mu.
	sleepers []*Task
	// spare holds the Tasks of finished Calls for reuse, so a Call in steady
	// state allocates nothing. Guarded by mu.
	spare  []*Task
	closed bool // guarded by mu

	wg sync.WaitGroup // background workers
}

// NewPool starts a pool with cfg.Workers-1 background workers. The workers
// park when there is nothing to do, so an idle Pool uses no CPU.
func NewPool(cfg Config) *Pool {
	p := &Pool{workers: cfg.Workers, heartbeat: cfg.Heartbeat}
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	if p.heartbeat <= 0 {
		p.heartbeat = DefaultHeartbeat
	}
	p.spin = min(spinBeats*p.heartbeat, maxSpin)
	p.beaterWake = make(chan struct{}, 1)
	p.wg.Add(p.workers - 1)
	for range p.workers - 1 {
		go p.work(p.newTask())
	}
	if p.workers > 1 {
		p.wg.Add(1)
		go p.beater()
	}
	return p
}

// Close stops the background workers and waits for them to exit. A worker
// busy with a job finishes that job first. Calls already running finish
// normally, on fewer workers (possibly only their caller), and so do Calls
// that start after Close: they run on their caller alone. Close is
// idempotent. It must not be called from inside a job of the same pool: it
// would wait for itself.
func (p *Pool) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		// Wake everyone: background workers see closed and exit, joiners
		// see their job is not done and go back to sleep.
		for len(p.sleepers) > 0 {
			p.wakeLocked(p.sleepers[len(p.sleepers)-1])
		}
		p.wakeBeater()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Call runs f(t, in) on the calling goroutine as the root of a fork/join
// computation and returns its result; the jobs f forks may run on the pool's
// other workers. Any number of goroutines may Call on one Pool at once.
//
// A panic in f, or in any job f forks (directly or not) and joins, reaches
// the caller of Call as a panic with the original value. Before it leaves
// Call, every job the computation forked has finished or been discarded, so
// nothing from it still runs afterwards and the pool stays usable.
//
// Call on a closed Pool still returns f's result, computed on the calling
// goroutine alone: a closed pool has no workers left to share the work, and
// a fork/join computation never needs more than its caller. Call has no
// error to return, so it does not make one up.
func Call[In, Out any](p *Pool, f func(t *Task, in In) Out, in In) Out {
	t := p.acquire()
	defer p.release(t)
	out := f(t, in)
	t.checkBalanced(0, "Call's function")
	return out
}

// acquire hands the caller of Call a Task of its own.
func (p *Pool) acquire() *Task {
	p.mu.Lock()
	var t *Task
	if n := len(p.spare); n > 0 {
		t = p.spare[n-1]
		p.spare[n-1] = nil
		p.spare = p.spare[:n-1]
	}
	p.mu.Unlock()
	if t == nil {
		t = p.newTask()
	}
	// The first heartbeat of a Call comes one Heartbeat after it starts:
	// a Call shorter than that never pays for a promotion.
	t.resetClock()
	t.lastBeat, t.busySince = t.lastCheck, t.lastCheck
	if tracing {
		traceCall(t, true)
	}
	return t
}

// release runs when Call returns or unwinds. On a panic (or runtime.Goexit)
// the job stack still holds the frames that were unwound past; abandoning
// them waits for their taken jobs and withdraws the offered ones, so the
// Task is clean for the next Call. The panic itself keeps going untouched,
// with its original value and stack.
func (p *Pool) release(t *Task) {
	if tracing {
		traceCall(t, false)
	}
	if t.depth() != 0 {
		t.unwind(0)
	}
	t.scrub()
	p.mu.Lock()
	p.spare = append(p.spare, t)
	p.mu.Unlock()
}

// work is a background worker's loop: take the oldest ready job, run it,
// sleep when there is none, exit once the pool is closed.
func (p *Pool) work(t *Task) {
	exited := false
	defer func() {
		if !exited {
			// A job called runtime.Goexit on this goroutine; run already
			// marked it done. Keep the pool at full strength.
			p.mu.Lock()
			if !p.closed {
				p.wg.Add(1)
				go p.work(t)
			}
			p.mu.Unlock()
		}
		p.wg.Done()
	}()
	p.mu.Lock()
	for !p.closed {
		if s := p.takeLocked(); s != nil {
			p.mu.Unlock()
			t.run(s)
			p.mu.Lock()
			continue
		}
		if tracing {
			traceNothing(t)
		}
		// Drop references to user data before parking: the records keep
		// the last fn and input of each depth alive otherwise.
		p.mu.Unlock()
		t.scrub()
		p.mu.Lock()
		if p.closed || len(p.ready) > 0 {
			continue
		}
		p.sleepLocked(t)
	}
	p.mu.Unlock()
	exited = true
}

// publishLocked makes s available to idle workers and wakes one of them,
// preferring a worker with nothing to do over a joiner waiting for its
// own job (which may want to return soon), and the one that slept last
// (its caches are the warmest).
func (p *Pool) publishLocked(s shared) {
	s.head().status = statusShared
	p.ready = append(p.ready, s)
	if len(p.sleepers) == 0 {
		return
	}
	pick := p.sleepers[len(p.sleepers)-1]
	for i := len(p.sleepers) - 1; i >= 0; i-- {
		if !p.sleepers[i].joining {
			pick = p.sleepers[i]
			break
		}
	}
	p.wakeLocked(pick)
}

// takeLocked removes and returns the oldest ready job, marking it taken, or
// returns nil.
func (p *Pool) takeLocked() shared {
	if len(p.ready) == 0 {
		return nil
	}
	s := p.ready[0]
	n := copy(p.ready, p.ready[1:])
	p.ready[n] = nil
	p.ready = p.ready[:n]
	s.head().status = statusTaken
	return s
}

// unshareLocked withdraws s, which must be ready (statusShared), so that
// its owner can run it inline.
func (p *Pool) unshareLocked(s shared) {
	for i, r := range p.ready {
		if r == s {
			n := copy(p.ready[i:], p.ready[i+1:])
			p.ready[i+n] = nil
			p.ready = p.ready[:i+n]
			s.head().status = statusLocal
			if tracing {
				traceWithdraw(s.head())
			}
			return
		}
	}
	panic("fork: internal error: shared job missing from the ready list")
}

// completeLocked marks h done and wakes its owner if it sleeps.
func (p *Pool) completeLocked(h *header) {
	h.status = statusDone
	if h.owner.sleeping {
		p.wakeLocked(h.owner)
	}
}

// sleepLocked waits until someone calls wakeLocked(t): it polls for the
// wake-up for a while, then parks (see await). It is called with mu held
// and returns with mu held.
func (p *Pool) sleepLocked(t *Task) {
	t.sleeping = true
	p.sleepers = append(p.sleepers, t)
	p.nsleep.Store(int32(len(p.sleepers)))
	if tracing {
		traceSleep(t, t.joining)
	}
	p.mu.Unlock()
	t.await(p.spin)
	if tracing {
		traceAwake(t)
	}
	p.mu.Lock()
}

// An idle worker waits for work by polling its wake channel before it
// parks on it (see the package doc and BenchmarkWakeUp). It polls for
// spinBeats heartbeats (at most maxSpin): long enough to be there for the
// next promotion, which comes within a heartbeat and a quarter (a busy
// worker promotes at most once a heartbeat, at a clock read, which comes
// every quarter heartbeat), also when it is the first promotion of the
// next Call, a heartbeat and a quarter after its start, which leaves the
// worker three quarters of a heartbeat between the end of its last job
// and the start of the next Call; and short enough that an idle pool
// parks right after a burst.
const (
	spinBeats = 3
	maxSpin   = time.Millisecond
	// spinPolls is how many times the wake channel is read between two
	// yields of the processor (runtime.Gosched, which lets other
	// goroutines run when there are more workers than processors) and
	// clock reads.
	spinPolls = 64
	// maxPollGap is the longest a round of polls and a yield may take
	// before the worker concludes it is losing its processor (see await).
	maxPollGap = 20 * time.Microsecond
)

// await returns once t's wake token has arrived: it polls the channel for
// up to spin, then parks on it.
//
// Polling pays only while the worker keeps its processor. When the clock
// shows a gap of more than maxPollGap between two rounds of polls, the
// worker was descheduled (the machine is busy with other processes) or
// its processor ran other goroutines, and it parks at once: a polling
// thread that the kernel has descheduled sees its token only at its next
// time slice, while a parked one is woken when the token is sent.
//
// While it polls, the worker beats for the running Recurses (Pool.beat);
// when it parks, it hands the beat to the beater goroutine.
func (t *Task) await(spin time.Duration) {
	p := t.pool
	if spin > 0 && len(t.wake) == 0 {
		p.npoll.Add(1)
		last := clock()
		deadline := last + spin
		if last-t.busySince >= p.heartbeat {
			// After a heartbeat or more of work, a promotion now costs
			// the busy workers no more than one a heartbeat would, and
			// this worker need not wait for the next beat.
			p.beatAt(last)
		}
	poll:
		for {
			for range spinPolls {
				if len(t.wake) > 0 {
					break poll
				}
			}
			now := clock()
			if now > deadline || now-last > maxPollGap {
				break
			}
			last = now
			p.beat(now)
			runtime.Gosched()
		}
		p.npoll.Add(-1)
	}
	// After the decrement: a Recurse that starts meanwhile sees no poller
	// and wakes the beater itself (see pushRec).
	if len(t.wake) == 0 && p.recs.Load() > 0 && p.beaterParked.Load() {
		p.wakeBeater()
	}
	<-t.wake
	t.busySince = clock()
}

// wakeLocked removes a sleeping t from sleepers and unparks it.
// Invariant: t.wake holds at most one token, because only the goroutine that
// clears t.sleeping sends and t sets it again only after receiving.
func (p *Pool) wakeLocked(t *Task) {
	for i, s := range p.sleepers {
		if s == t {
			last := len(p.sleepers) - 1
			p.sleepers[i] = p.sleepers[last]
			p.sleepers[last] = nil
			p.sleepers = p.sleepers[:last]
			p.nsleep.Store(int32(last))
			t.sleeping = false
			if tracing {
				traceWake(t)
			}
			t.wake <- struct{}{}
			return
		}
	}
	panic("fork: internal error: sleeping task missing from the sleepers list")
}

// beat is the heartbeat of Recurse computations. A Frame's fork counts no
// ticks (see Frame): while a Recurse runs and a worker is idle, every
// heartbeat, the Tasks' running Recs are signalled, and a signalled Rec
// promotes its oldest fork at its next Join. The idle workers beat as they
// poll for work (see await), which keeps time to the microsecond; once they
// have all parked, the beater goroutine does, on the runtime's timer,
// which wakes a goroutine no sooner than a millisecond when every other
// goroutine is parked (a kernel sleep would be on time, but the processor
// of a goroutine in a system call waits for the scheduler's monitor to
// take it back, up to 10ms, leaving a worker without one). Of two idle
// workers at the same instant, one signals: lastBeat is swapped.
func (p *Pool) beat(now time.Duration) {
	last := p.lastBeat.Load()
	if p.recs.Load() == 0 || now-time.Duration(last) < p.heartbeat || !p.lastBeat.CompareAndSwap(last, int64(now)) {
		return
	}
	p.signalRecs()
}

// beatAt signals the running Recurses now, whatever the time since the
// last beat: for a worker that falls idle after a heartbeat or more of
// work (see await), so that promotions stay at most one per heartbeat of
// work done per worker.
func (p *Pool) beatAt(now time.Duration) {
	if p.recs.Load() == 0 {
		return
	}
	p.lastBeat.Store(int64(now))
	p.signalRecs()
}

// signalRecs sets the signal of every Task's running Recurse.
func (p *Pool) signalRecs() {
	tasks := p.tasks.Load()
	if tasks == nil {
		return
	}
	for _, t := range *tasks {
		if s := t.hot.Load(); s != nil {
			atomic.StoreInt32(s, 1)
		}
	}
}

// beater beats while a Recurse runs and a worker is idle, and parks
// otherwise, so that an idle pool, and a pool whose workers are all busy,
// pay nothing for it.
func (p *Pool) beater() {
	defer p.wg.Done()
	for {
		p.beaterParked.Store(true)
		// Checked after the store: a Recurse that starts or a worker that
		// parks in between sees beaterParked and sends a token. While a
		// worker polls, it beats.
		for p.recs.Load() == 0 || p.nsleep.Load() == 0 || p.npoll.Load() > 0 {
			<-p.beaterWake
			if p.isClosed() {
				return
			}
		}
		p.beaterParked.Store(false)
		if wait := time.Duration(p.lastBeat.Load()) + p.heartbeat - clock(); wait > 0 {
			time.Sleep(wait)
		}
		if p.isClosed() {
			return
		}
		p.beat(clock())
	}
}

// wakeBeater sends the beater a token if it has none waiting.
func (p *Pool) wakeBeater() {
	select {
	case p.beaterWake <- struct{}{}:
	default:
	}
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// newTask makes a Task and lists it for beat.
func (p *Pool) newTask() *Task {
	t := newTask(p)
	p.mu.Lock()
	var tasks []*Task
	if old := p.tasks.Load(); old != nil {
		tasks = append(tasks, *old...)
	}
	tasks = append(tasks, t)
	p.tasks.Store(&tasks)
	p.mu.Unlock()
	return t
}
