package deque

import (
	"math/bits"
	"sync/atomic"
)

// Bitmask is a fixed-size set of worker indexes, safe for concurrent use. The
// executor keeps two: which rings may hold work (a hint that steers thieves
// away from empty victims) and which workers are parked (so a spawner can wake
// exactly one). It spans as many 64-bit words as needed, so any number of
// workers works; with 64 or fewer it is a single word.
type Bitmask struct {
	words []atomic.Uint64
	n     int
}

// NewBitmask returns an empty set over indexes [0, n).
func NewBitmask(n int) *Bitmask {
	// At least one word, so that Any can look at the first without a check.
	return &Bitmask{words: make([]atomic.Uint64, max(1, (n+63)/64)), n: n}
}

// Len returns the number of indexes the set ranges over.
func (m *Bitmask) Len() int { return m.n }

// Set adds i, which must be in [0, Len()). It skips the read-modify-write when i is already present, which
// is the common case for a busy ring that keeps its bit set.
func (m *Bitmask) Set(i int) {
	w := &m.words[i>>6]
	bit := uint64(1) << (i & 63)
	if w.Load()&bit == 0 {
		w.Or(bit)
	}
}

// Clear removes i.
func (m *Bitmask) Clear(i int) {
	w := &m.words[i>>6]
	bit := uint64(1) << (i & 63)
	if w.Load()&bit != 0 {
		w.And(^bit)
	}
}

// TryClear removes i and reports whether this call removed it. Exactly one of
// several racing callers succeeds, which is how a waker claims an idle worker.
func (m *Bitmask) TryClear(i int) bool {
	w := &m.words[i>>6]
	bit := uint64(1) << (i & 63)
	return w.And(^bit)&bit != 0
}

// Has reports whether i is present.
func (m *Bitmask) Has(i int) bool {
	return m.words[i>>6].Load()&(uint64(1)<<(i&63)) != 0
}

// Any reports whether the set is non-empty. It inlines: executors of up to
// 64 workers, one word, pay one load.
func (m *Bitmask) Any() bool {
	return m.words[0].Load() != 0 || len(m.words) > 1 && m.anyAfterFirst()
}

func (m *Bitmask) anyAfterFirst() bool {
	for i := 1; i < len(m.words); i++ {
		if m.words[i].Load() != 0 {
			return true
		}
	}
	return false
}

// Next returns the first index present at or after from, wrapping around, or
// -1 if the set is empty. Starting from a random index spreads thieves and
// wakers over the workers instead of piling onto the lowest index.
func (m *Bitmask) Next(from int) int {
	if m.n == 0 {
		return -1
	}
	if from >= m.n || from < 0 {
		from = 0
	}
	nw := len(m.words)
	wi := from >> 6
	// First word: only bits at or after from.
	if v := m.words[wi].Load() &^ (uint64(1)<<(from&63) - 1); v != 0 {
		return wi<<6 + bits.TrailingZeros64(v)
	}
	for k := 1; k <= nw; k++ {
		j := (wi + k) % nw
		v := m.words[j].Load()
		if j == wi {
			v &= uint64(1)<<(from&63) - 1 // wrapped: bits before from
		}
		if v != 0 {
			return j<<6 + bits.TrailingZeros64(v)
		}
	}
	return -1
}
