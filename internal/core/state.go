package core

import "sync/atomic"

const (
	// AcceptingBit is bit 0 of the state word: 1 while the gate is open.
	AcceptingBit = 1
	// CountUnit is one in-flight task in the state word (the count lives in
	// bits 1 and up).
	CountUnit = 2
)

// State is the gate word: (inFlight << 1) | accepting, in one atomic.
//
// Keeping both halves in one word is what makes "spawn only while open" and
// "done exactly once" hold without locks. Two separate atomics would let a
// spawner read accepting == 1, lose the CPU while Join closes the gate and sees
// zero tasks, and then add a task nobody will ever wait for (the TOCTOU race
// a naive design with two atomics has).
//
// Invariants:
//   - accepting goes 1 -> 0 once and never back.
//   - External spawns add only while accepting (CAS). Internal spawns (from a
//     running task) add unconditionally: the running task's own unit keeps the
//     count above zero, so the word cannot be terminal at that moment.
//   - The word reaches 0 (count 0, gate closed) exactly once, and the party
//     whose operation produced that value (the last Done, or Close when the
//     count was already 0) is the one that reports it.
//   - The count never underflows; Done panics if it would, since that is a
//     bookkeeping bug, not a user error.
type State struct {
	w atomic.Uint64
}

// Init opens the gate with zero tasks in flight.
func (s *State) Init() { s.w.Store(AcceptingBit) }

// Load returns the raw word.
func (s *State) Load() uint64 { return s.w.Load() }

// InFlight returns the number of accepted tasks not yet completed.
func (s *State) InFlight() uint64 { return s.w.Load() >> 1 }

// Accepting reports whether the gate is open.
func (s *State) Accepting() bool { return s.w.Load()&AcceptingBit != 0 }

// TryAcquire adds n tasks if and only if the gate is open, atomically with
// the check. It is the external-spawn path.
func (s *State) TryAcquire(n uint64) bool {
	for {
		old := s.w.Load()
		if old&AcceptingBit == 0 {
			return false
		}
		if s.w.CompareAndSwap(old, old+n*CountUnit) {
			return true
		}
	}
}

// TryAcquireOnce is one attempt of TryAcquire's loop: it reports (added,
// retry). The interleaving tests step through it one atomic operation at a
// time; production code uses TryAcquire.
func (s *State) TryAcquireOnce(old uint64, n uint64) (added, retry bool) {
	if old&AcceptingBit == 0 {
		return false, false
	}
	if s.w.CompareAndSwap(old, old+n*CountUnit) {
		return true, false
	}
	return false, true
}

// Add adds n tasks without looking at the gate. Only a running task may call
// it (its own unit keeps the word from being terminal).
func (s *State) Add(n uint64) { s.w.Add(n * CountUnit) }

// Done completes n tasks and reports whether this made the word terminal
// (no tasks in flight and the gate closed).
func (s *State) Done(n uint64) (terminal bool) {
	v := s.w.Add(-n * CountUnit)
	if v>>1 > (v+n*CountUnit)>>1 {
		panic("spindle/internal/core: in-flight count underflow")
	}
	return v == 0
}

// Close shuts the gate and reports whether this call made the word terminal:
// it was the first Close and nothing was in flight.
func (s *State) Close() (terminal bool) {
	old := s.w.And(^uint64(AcceptingBit))
	return old == AcceptingBit
}
