package scan

import (
	"sync"
	"sync/atomic"
)

// frontier is the ObjectFrontier of the task graph: a count of objects in
// flight, bounded by capacity. An Enumerate task takes a permit with
// tryAcquire before it spawns an object's first Fetch; the permit goes back
// when the object's last task finishes (object.release). tryAcquire never
// blocks, so a worker is never stuck waiting for a permit that only another
// task on the same worker could free.
//
// When the frontier is full, the seed re-enqueues the Enumerate task. On
// this executor a plain re-enqueue spins: the injector is looked at before
// any victim is robbed, so a worker whose own queues are empty would pop its
// re-enqueued Enumerate again and again while the tasks that hold the
// permits sit on other workers. Instead, a full frontier takes the task
// itself: park puts it on a wait list, and the release that frees the next
// permit hands one parked task back to be spawned again. Nothing blocks,
// nothing spins, and no discovered object is ever dropped.
//
// Lost wake-ups are ruled out Dekker-style: park sets parked before it
// re-reads inFlight, and release decrements inFlight before it reads
// parked. Both are sequentially consistent atomics, so either park sees the
// freed permit (and refuses to park: the caller retries) or release sees
// parked and takes the lock, under which the wait list is consistent.
type frontier struct {
	capacity int64
	// inFlight counts permits held, 0 <= inFlight <= capacity. Changed only
	// by tryAcquire's CAS and release's decrement.
	inFlight atomic.Int64
	// parked is true while waiters may be non-empty. It is set under mu
	// before a waiter is added and cleared under mu when the list empties;
	// release reads it without the lock to skip mu on the common path.
	parked atomic.Bool

	mu      sync.Mutex
	waiters []*dirJob // Enumerate tasks waiting for a permit, guarded by mu
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

// release returns a permit and, if an Enumerate task is parked, hands one
// back; the caller must spawn it. Each permit is released exactly once
// (object.release guarantees it); a release without a permit panics, as it
// is a bug in the engine.
func (f *frontier) release() *dirJob {
	if f.inFlight.Add(-1) < 0 {
		panic("scan: frontier released more permits than it granted")
	}
	if !f.parked.Load() {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.waiters)
	if n == 0 {
		return nil
	}
	j := f.waiters[n-1]
	f.waiters[n-1] = nil
	f.waiters = f.waiters[:n-1]
	if n == 1 {
		f.parked.Store(false)
	}
	return j
}

// park queues j until a permit is released. It returns false, and keeps
// nothing, if a permit became free since the caller's failed tryAcquire: the
// caller should try again at once.
func (f *frontier) park(j *dirJob) bool {
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
	return true
}

// drain removes and returns every parked task. After an aborted run, parked
// tasks may never be woken; the engine drains them to close their
// directories.
func (f *frontier) drain() []*dirJob {
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
