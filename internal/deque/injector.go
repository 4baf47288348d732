package deque

import (
	"sync"
	"sync/atomic"
)

// Injector is the unbounded multi-producer multi-consumer FIFO that external
// producers push into and that absorbs spills from full rings.
//
// It is a growable circular buffer behind a mutex. Every producer and consumer
// pays one lock acquisition, but consumers take batches (PopBatch) and
// producers can push batches (PushBatch), so the lock is amortised over many
// tasks; this is the same trade the Go runtime makes for its global run queue.
// An atomic length lets workers test for work without taking the lock, which
// keeps idle polling and the pre-park re-check off the mutex.
type Injector[T any] struct {
	n    atomic.Int64 // number of elements; written under mu, read anywhere
	mu   sync.Mutex
	buf  []T // circular; len(buf) is a power of two or zero
	head int // index of the oldest element
}

// Len returns the number of queued elements. Lock-free.
func (q *Injector[T]) Len() int { return int(q.n.Load()) }

// Push appends v.
func (q *Injector[T]) Push(v T) {
	q.mu.Lock()
	n := int(q.n.Load())
	q.grow(n + 1)
	q.buf[(q.head+n)&(len(q.buf)-1)] = v
	q.n.Store(int64(n + 1))
	q.mu.Unlock()
}

// PushBatch appends vs in order, under one lock acquisition.
func (q *Injector[T]) PushBatch(vs []T) {
	if len(vs) == 0 {
		return
	}
	q.mu.Lock()
	n := int(q.n.Load())
	q.grow(n + len(vs))
	m := len(q.buf) - 1
	for i, v := range vs {
		q.buf[(q.head+n+i)&m] = v
	}
	q.n.Store(int64(n + len(vs)))
	q.mu.Unlock()
}

// Pop removes and returns the oldest element.
func (q *Injector[T]) Pop() (T, bool) {
	var zero T
	if q.n.Load() == 0 {
		return zero, false
	}
	q.mu.Lock()
	n := int(q.n.Load())
	if n == 0 {
		q.mu.Unlock()
		return zero, false
	}
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n.Store(int64(n - 1))
	q.mu.Unlock()
	return v, true
}

// PopBatch removes up to len(dst) of the oldest elements into dst, oldest
// first, and returns how many it took. It takes at most a 1/share fraction of
// the queue (rounded up) so that one worker does not drain work its siblings
// could start on; share <= 1 means no such limit. The copy happens under the
// lock; the caller distributes the batch after the lock is released.
func (q *Injector[T]) PopBatch(dst []T, share int) int {
	var zero T
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
	m := len(q.buf) - 1
	for i := 0; i < k; i++ {
		j := (q.head + i) & m
		dst[i] = q.buf[j]
		q.buf[j] = zero
	}
	if k > 0 {
		q.head = (q.head + k) & m
		q.n.Store(int64(n - k))
	}
	q.mu.Unlock()
	return k
}

// Drain removes every element. Used when an executor abandons queued work, so
// the garbage collector does not keep abandoned tasks alive.
func (q *Injector[T]) Drain() int {
	q.mu.Lock()
	n := int(q.n.Load())
	q.buf, q.head = nil, 0
	q.n.Store(0)
	q.mu.Unlock()
	return n
}

// grow makes room for need elements. Caller holds mu.
func (q *Injector[T]) grow(need int) {
	if need <= len(q.buf) {
		return
	}
	size := 64
	for size < need {
		size <<= 1
	}
	nb := make([]T, size)
	n := int(q.n.Load())
	if len(q.buf) > 0 {
		m := len(q.buf) - 1
		for i := 0; i < n; i++ {
			nb[i] = q.buf[(q.head+i)&m]
		}
	}
	q.buf, q.head = nb, 0
}
