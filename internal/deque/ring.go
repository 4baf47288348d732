package deque

import (
	"sync/atomic"
)

// Ring is a bounded Chase-Lev work-stealing deque of T.
//
// One goroutine, the owner, pushes and pops at the bottom (LIFO); any number of
// thieves take from the top (FIFO). Positions are unbounded uint64 counters and
// a position p lives in slot p & mask.
//
//	top    - next position a thief takes; advanced only by CAS (thieves, and the
//	         owner when it races a thief for the last element).
//	bottom - one past the newest element; written only by the owner.
//	the ring holds positions [top, bottom).
//
// Go's race detector (and Go's memory model) forbid the classic trick of
// reading a slot before the CAS that claims it, because a wrapped-around owner
// may be overwriting that slot. Instead a thief claims a position first (CAS on
// top) and reads the slot afterwards; the owner must then not reuse the slot
// until the thief has finished reading it. Each slot carries a sequence number
// that says which position it is free for:
//
//	seq == p         slot is free for position p; the owner may write it
//	                 (set when a thief, or the owner via CAS, consumed position
//	                 p-cap, or initially p == index).
//	seq != p         a thief that claimed position p-cap has not finished
//	                 reading; the owner treats the ring as full.
//
// Every value read is therefore ordered after its write and before its reuse by
// an atomic, so the ring is free of data races for any T, including structs
// with pointers. Consumed slots are zeroed so the garbage collector does not
// retain finished tasks.
type Ring[T any] struct {
	top    atomic.Uint64
	_      [56]byte // keep thieves' CAS traffic off the owner's line
	bottom atomic.Uint64
	_      [56]byte
	mask   uint64
	slots  []slot[T]
}

type slot[T any] struct {
	seq atomic.Uint64
	val T
}

// NewRing returns an empty ring holding up to capacity elements. capacity is
// rounded up to a power of two, at least 2.
func NewRing[T any](capacity int) *Ring[T] {
	n := 2
	for n < capacity {
		n <<= 1
	}
	r := &Ring[T]{mask: uint64(n - 1), slots: make([]slot[T], n)}
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
	return r
}

// Cap returns the ring's capacity.
func (r *Ring[T]) Cap() int { return len(r.slots) }

// Len returns the number of elements at the moment of the call. Safe from any
// goroutine; racing operations make it approximate.
func (r *Ring[T]) Len() int {
	t := r.top.Load()
	b := r.bottom.Load()
	if b <= t {
		return 0
	}
	return int(b - t)
}

// Push adds v at the bottom and reports whether it fit. It fails when the ring
// is full or when the slot it needs is still being read by a thief that claimed
// it a full lap ago. Owner only.
func (r *Ring[T]) Push(v T) bool {
	b := r.bottom.Load() // owner-written: no race with ourselves
	t := r.top.Load()
	if b-t >= uint64(len(r.slots)) {
		return false
	}
	s := &r.slots[b&r.mask]
	if s.seq.Load() != b {
		return false // a thief claimed position b-cap and is still reading it
	}
	s.val = v
	r.bottom.Store(b + 1) // publishes val to thieves that load bottom
	return true
}

// PushBatch adds vs in order at the bottom, as many as fit, with a single
// publishing store, and returns how many it added. Owner only.
func (r *Ring[T]) PushBatch(vs []T) int {
	b := r.bottom.Load()
	t := r.top.Load()
	free := uint64(len(r.slots)) - (b - t)
	n := 0
	for n < len(vs) && uint64(n) < free {
		s := &r.slots[(b+uint64(n))&r.mask]
		if s.seq.Load() != b+uint64(n) {
			break
		}
		s.val = vs[n]
		n++
	}
	if n > 0 {
		r.bottom.Store(b + uint64(n))
	}
	return n
}

// Pop removes and returns the newest element. Owner only.
func (r *Ring[T]) Pop() (T, bool) {
	var zero T
	b := r.bottom.Load()
	t := r.top.Load()
	if b == t {
		return zero, false // empty: skip the fence below on the common idle path
	}
	b--
	// Announce the pop before looking at top again: a thief that loads bottom
	// after this store will not claim position b; one that loaded it before
	// is caught by the CAS below (or by b > t meaning it cannot reach b).
	r.bottom.Store(b)
	t = r.top.Load()
	if t > b {
		r.bottom.Store(t) // a thief took the last element: restore bottom == top
		return zero, false
	}
	s := &r.slots[b&r.mask]
	if t < b {
		v := s.val
		s.val = zero
		// Position b will be pushed again next; its seq is still b.
		return v, true
	}
	// t == b: the last element; race thieves for it with a CAS on top.
	won := r.top.CompareAndSwap(t, t+1)
	r.bottom.Store(t + 1)
	if !won {
		return zero, false
	}
	v := s.val
	s.val = zero
	s.seq.Store(b + uint64(len(r.slots)))
	return v, true
}

// PopBatch removes up to len(dst) of the newest elements into dst, newest
// first, and returns how many it took. It costs one fence for the whole batch
// where Pop costs one per element; the price is that the taken elements are no
// longer stealable, so callers keep batches small. Owner only.
//
// Moving bottom down by k claims positions [b-k, b). A thief that loaded the
// old bottom can still claim position top, and only that one, so: if top is
// below the new bottom the batch is ours outright; otherwise everything above
// top is ours and position top is raced for with a CAS, as Pop does for the
// last element.
func (r *Ring[T]) PopBatch(dst []T) int {
	var zero T
	b := r.bottom.Load()
	t := r.top.Load()
	if b == t || len(dst) == 0 {
		return 0
	}
	k := uint64(len(dst))
	if size := b - t; k > size {
		k = size
	}
	nb := b - k
	r.bottom.Store(nb)
	t = r.top.Load()
	if t < nb {
		n := 0
		for p := b; p > nb; p-- {
			s := &r.slots[(p-1)&r.mask]
			dst[n] = s.val
			s.val = zero
			n++
		}
		return n // positions go back to the owner: seqs unchanged
	}
	if t >= b {
		r.bottom.Store(t) // thieves took everything
		return 0
	}
	n := 0
	for p := b - 1; p > t; p-- {
		s := &r.slots[p&r.mask]
		dst[n] = s.val
		s.val = zero
		n++
	}
	if r.top.CompareAndSwap(t, t+1) {
		s := &r.slots[t&r.mask]
		dst[n] = s.val
		s.val = zero
		s.seq.Store(t + uint64(len(r.slots)))
		n++
	}
	r.bottom.Store(t + 1)
	return n
}

// Steal removes and returns the oldest element. Safe from any goroutine,
// including the owner's (a spill steals from its own ring).
func (r *Ring[T]) Steal() (T, bool) {
	var zero T
	for {
		t := r.top.Load()
		b := r.bottom.Load()
		if t >= b {
			return zero, false
		}
		if !r.top.CompareAndSwap(t, t+1) {
			continue // another thief (or the owner's last-element pop) won
		}
		s := &r.slots[t&r.mask]
		v := s.val
		s.val = zero
		s.seq.Store(t + uint64(len(r.slots))) // release the slot for the next lap
		return v, true
	}
}

// StealHalf moves about half of r's elements (at least one, at most max) into
// dst by calling put for each, oldest first, and reports how many it moved.
// Each element is claimed with its own CAS, because the owner's CAS-free pop
// may take any element below a stale bottom; a batch claim could hand one
// element to two goroutines. Safe from any goroutine.
func (r *Ring[T]) StealHalf(max int, put func(T)) int {
	t := r.top.Load()
	b := r.bottom.Load()
	if t >= b {
		return 0
	}
	n := int((b - t + 1) / 2)
	if n > max {
		n = max
	}
	moved := 0
	for moved < n {
		v, ok := r.Steal()
		if !ok {
			break
		}
		put(v)
		moved++
	}
	return moved
}
