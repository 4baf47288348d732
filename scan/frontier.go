package scan

import (
	"sync"
	"sync/atomic"
)

// frontier bounds the objects of the task graph: a count of objects in
// flight, bounded by capacity. An Enumerate task takes a permit with
// tryAcquire before it spawns an object's first Fetch; the permit goes back
// when the object's last task finishes (object.release). tryAcquire never
// blocks, so a worker is never stuck waiting for a permit that only another
// task on the same worker could free.
//
// When the frontier is full, re-enqueueing the Enumerate task would spin on
// this executor: the injector is looked at before any victim is robbed, so
// a worker whose own queues are empty would pop its re-enqueued Enumerate
// again and again while the tasks that hold the permits sit on other
// workers. Instead, a full frontier takes the task
// itself: park puts it on a FIFO wait list, and release hands the freed
// permit to the oldest parked task, which is spawned again holding it
// (enumJob.permit). Nothing blocks, nothing spins, no discovered object is
// dropped, and a woken task cannot lose its permit to a task that did not
// wait: the wait list is served in order.
//
// Progress: a task parks only when every permit is held, and every holder
// releases its permit in time (an object when its last task ends; a woken
// task that finds no file to spend it on, at once). Each release goes to
// the oldest waiter if there is one, so every parked task is eventually
// woken.
//
// Lost wake-ups are ruled out Dekker-style: park sets parked before it
// reads inFlight, and release decrements inFlight before it reads parked.
// Both are sequentially consistent atomics, so either park sees the freed
// permit (and does not park) or release sees parked and takes the lock,
// under which it re-acquires the permit for the oldest waiter.
type frontier struct {
	capacity int64
	// inFlight counts permits held, 0 <= inFlight <= capacity, including
	// the permits handed to woken tasks. Changed only by tryAcquire's CAS
	// and release's decrement.
	inFlight atomic.Int64
	// parked is true while waiters may be non-empty. It is set under mu
	// before a waiter is added and cleared under mu when the list empties;
	// release reads it without the lock to skip mu on the common path.
	parked atomic.Bool

	mu      sync.Mutex
	waiters []*enumJob // Enumerate tasks waiting for a permit, oldest first; guarded by mu
	peak    int        // most waiters at once, guarded by mu (for tests)
}

func newFrontier(capacity int) *frontier {
	return &frontier{capacity: int64(max(capacity, 1))}
}

// tryAcquire takes a permit if one is free. It never blocks.
func (f *frontier) tryAcquire() bool {
	for {
		n := f.inFlight.Load()
		if n >= f.capacity {
			return false
		}
		if f.inFlight.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release returns a permit. If Enumerate tasks are parked, it takes a
// permit again for the oldest and returns that task, holding it; the
// caller must spawn it. Each permit is released exactly once
// (object.release guarantees it); a release without a permit panics, as it
// is a bug in the engine.
func (f *frontier) release() *enumJob {
	if f.inFlight.Add(-1) < 0 {
		panic("scan: frontier released more permits than it granted")
	}
	if !f.parked.Load() {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.handOffLocked()
}

// handOffLocked gives a free permit, if there is one, to the oldest waiter
// and returns it. If another task took the freed permit first, that task
// will release it later, and the waiter gets it then.
func (f *frontier) handOffLocked() *enumJob {
	if len(f.waiters) == 0 || !f.tryAcquire() {
		return nil
	}
	j := f.waiters[0]
	j.permit = true
	f.waiters[0] = nil
	f.waiters = f.waiters[1:]
	if len(f.waiters) == 0 {
		f.parked.Store(false)
		f.waiters = nil // let the backing array go
	}
	return j
}

// park queues j until a permit is handed to it. It returns false, and
// keeps nothing, if a permit is free: the caller should try again at once.
func (f *frontier) park(j *enumJob) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.parked.Store(true)
	if f.inFlight.Load() < f.capacity {
		if len(f.waiters) == 0 {
			f.parked.Store(false)
		}
		return false
	}
	f.waiters = append(f.waiters, j)
	f.peak = max(f.peak, len(f.waiters))
	return true
}

// drain removes and returns every parked task. After an aborted run, parked
// tasks may never be woken; the engine drains them to close their
// directories. Parked tasks hold no permit.
func (f *frontier) drain() []*enumJob {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.waiters
	f.waiters = nil
	f.parked.Store(false)
	return w
}

// bufferPool is the bounded pool of chunk buffers that carry a chunk from
// a Fetch task to a Scan task. Buffers are made on demand, up to limit, and
// recycled through free, whose capacity is limit, so put never blocks. get
// never blocks either: it returns nil when every buffer is in use, and the
// Fetch task then reads into its worker's own buffer and scans inline.
type bufferPool struct {
	free  chan *chunk
	made  atomic.Int64 // buffers allocated so far, <= limit
	limit int64
	size  int // capacity of each buffer: overlap + chunk size
}

func newBufferPool(limit, size int) *bufferPool {
	limit = max(limit, 0)
	return &bufferPool{free: make(chan *chunk, limit), limit: int64(limit), size: size}
}

func (p *bufferPool) get() *chunk {
	select {
	case c := <-p.free:
		return c
	default:
	}
	for {
		n := p.made.Load()
		if n >= p.limit {
			return nil
		}
		if p.made.CompareAndSwap(n, n+1) {
			return &chunk{buf: make([]byte, p.size), pooled: true}
		}
	}
}

func (p *bufferPool) put(c *chunk) {
	c.n = 0
	p.free <- c
}
