package deque

import (
	"reflect"
	"sync"
	"sync/atomic"
)

// segmentSize is the number of tasks per injector segment.
const segmentSize = 1024

// maxSpareSegments bounds the segments an injector keeps for reuse after it
// drains, so a burst does not pin its peak memory forever.
const maxSpareSegments = 8

// Injector is the unbounded multi-producer multi-consumer FIFO that external
// producers push into and that absorbs spills from full rings.
//
// It is a linked list of fixed-size segments behind a mutex. Every producer
// and consumer pays one lock acquisition, but consumers take batches
// (PopBatch) and producers can push batches (PushBatch), so the lock is
// amortised over many tasks; this is the same trade the Go runtime makes for
// its global run queue. Segments mean growth never copies queued tasks and
// never needs one huge allocation, and drained segments are recycled (up to
// maxSpareSegments), so a steady stream of bursts does not churn the garbage
// collector. An atomic length lets workers test for work without taking the
// lock, which keeps idle polling and the pre-park re-check off the mutex.
type Injector[T any] struct {
	n    atomic.Int64 // number of elements; written under mu, read anywhere
	mu   sync.Mutex
	head *segment[T] // oldest segment; nil when empty
	tail *segment[T] // newest segment
	// head.lo is the index of the oldest element in head; tail.hi is one past
	// the newest in tail.
	spare []*segment[T]
}

type segment[T any] struct {
	lo, hi int
	next   *segment[T]
	vals   [segmentSize]T
}

// Len returns the number of queued elements. Lock-free.
func (q *Injector[T]) Len() int { return int(q.n.Load()) }

// Push appends v.
func (q *Injector[T]) Push(v T) {
	q.mu.Lock()
	s := q.tailWithRoom()
	s.vals[s.hi] = v
	s.hi++
	q.n.Add(1)
	q.mu.Unlock()
}

// PushBatch appends vs in order, under one lock acquisition.
func (q *Injector[T]) PushBatch(vs []T) {
	if len(vs) == 0 {
		return
	}
	q.mu.Lock()
	for rest := vs; len(rest) > 0; {
		s := q.tailWithRoom()
		k := copy(s.vals[s.hi:], rest)
		s.hi += k
		rest = rest[k:]
	}
	q.n.Add(int64(len(vs)))
	q.mu.Unlock()
}

// tailWithRoom returns a tail segment with at least one free slot. Caller
// holds mu.
func (q *Injector[T]) tailWithRoom() *segment[T] {
	if q.tail != nil && q.tail.hi < segmentSize {
		return q.tail
	}
	var s *segment[T]
	if k := len(q.spare); k > 0 {
		s = q.spare[k-1]
		q.spare = q.spare[:k-1]
	} else {
		s = newSegment[T]()
	}
	if q.tail == nil {
		q.head = s
	} else {
		q.tail.next = s
	}
	q.tail = s
	return s
}

// Pop removes and returns the oldest element.
func (q *Injector[T]) Pop() (T, bool) {
	var v [1]T
	if q.PopBatch(v[:], 1) == 0 {
		return v[0], false
	}
	return v[0], true
}

// PopBatch removes up to len(dst) of the oldest elements into dst, oldest
// first, and returns how many it took. It takes at most a 1/share fraction of
// the queue (rounded up) so that one worker does not drain work its siblings
// could start on; share <= 1 means no such limit. The copy happens under the
// lock; the caller distributes the batch after the lock is released.
func (q *Injector[T]) PopBatch(dst []T, share int) int {
	if q.n.Load() == 0 || len(dst) == 0 {
		return 0
	}
	q.mu.Lock()
	n := int(q.n.Load())
	k := n
	if share > 1 {
		k = (n + share - 1) / share
	}
	if k > len(dst) {
		k = len(dst)
	}
	var zero T
	taken := 0
	for taken < k {
		s := q.head
		m := copy(dst[taken:k], s.vals[s.lo:s.hi])
		for i := s.lo; i < s.lo+m; i++ {
			s.vals[i] = zero // do not retain taken tasks
		}
		s.lo += m
		taken += m
		if s.lo == s.hi && (s.hi == segmentSize || s != q.tail) {
			q.head = s.next
			if q.head == nil {
				q.tail = nil
			}
			q.recycle(s)
		}
	}
	if q.head == q.tail && q.head != nil && q.head.lo == q.head.hi {
		// Drained a partly filled tail: rewind it rather than drop it.
		q.head.lo, q.head.hi = 0, 0
	}
	q.n.Add(int64(-taken))
	q.mu.Unlock()
	return taken
}

// recycle keeps a drained segment for reuse. Caller holds mu.
func (q *Injector[T]) recycle(s *segment[T]) {
	s.lo, s.hi, s.next = 0, 0, nil
	if len(q.spare) >= maxSpareSegments {
		freeSegment(s)
		return
	}
	q.spare = append(q.spare, s)
}

// segmentPools holds one sync.Pool of drained segments per task type, shared
// by every injector of that type. A burst that queues a million tasks needs a
// thousand segments; pooling them means the next burst, or the next executor,
// reuses them instead of allocating megabytes and waking the garbage
// collector. sync.Pool lets the GC reclaim them when they go unused.
var segmentPools sync.Map // reflect.Type -> *sync.Pool

func poolFor[T any]() *sync.Pool {
	key := reflect.TypeFor[T]()
	if p, ok := segmentPools.Load(key); ok {
		return p.(*sync.Pool)
	}
	p, _ := segmentPools.LoadOrStore(key, &sync.Pool{New: func() any { return new(segment[T]) }})
	return p.(*sync.Pool)
}

func newSegment[T any]() *segment[T] { return poolFor[T]().Get().(*segment[T]) }

// freeSegment returns a drained segment (every slot already zeroed) to the
// shared pool.
func freeSegment[T any](s *segment[T]) { poolFor[T]().Put(s) }

// Drain removes every element and releases the segments. Used when an
// executor abandons queued work, so the garbage collector does not keep
// abandoned tasks alive. It returns how many elements it dropped.
func (q *Injector[T]) Drain() int {
	q.mu.Lock()
	n := int(q.n.Load())
	q.head, q.tail, q.spare = nil, nil, nil
	q.n.Store(0)
	q.mu.Unlock()
	return n
}
