package deque

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// bitmaskSizes straddle the word boundaries: one word, a full word, one bit
// into a second word, a partial third word, and many words.
var bitmaskSizes = []int{1, 63, 64, 65, 130, 1000}

// refNext is Next's specification on a plain slice: the first set index at or
// after from, wrapping around, with an out-of-range from meaning 0.
func refNext(set []bool, from int) int {
	n := len(set)
	if from < 0 || from >= n {
		from = 0
	}
	for k := range n {
		if i := (from + k) % n; set[i] {
			return i
		}
	}
	return -1
}

func TestBitmaskMatchesReferenceSet(t *testing.T) {
	steps := 20000
	if testing.Short() {
		steps = 4000
	}
	for _, n := range bitmaskSizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := NewBitmask(n)
			if m.Len() != n || len(m.words) != (n+63)/64 {
				t.Fatalf("NewBitmask(%d): Len %d, %d words", n, m.Len(), len(m.words))
			}
			ref := make([]bool, n)
			rng := rand.New(rand.NewPCG(uint64(n), 3))
			// Bias indexes toward word edges, where off-by-one bugs live.
			index := func() int {
				if rng.IntN(2) == 0 {
					edges := []int{0, 63, 64, 127, 128, n - 1}
					if e := edges[rng.IntN(len(edges))]; e < n {
						return e
					}
				}
				return rng.IntN(n)
			}
			for step := range steps {
				i := index()
				switch op := rng.IntN(5); op {
				case 0:
					m.Set(i)
					ref[i] = true
				case 1:
					m.Clear(i)
					ref[i] = false
				case 2:
					if got := m.TryClear(i); got != ref[i] {
						t.Fatalf("step %d: TryClear(%d) = %v, want %v", step, i, got, ref[i])
					}
					ref[i] = false
				case 3:
					// Sparse sets exercise the wrap-around; clear most bits now
					// and then.
					for j := range ref {
						if ref[j] && rng.IntN(4) > 0 {
							m.Clear(j)
							ref[j] = false
						}
					}
				default:
					from := i
					if rng.IntN(8) == 0 {
						from = []int{-1, n, n + 64}[rng.IntN(3)]
					}
					if got, want := m.Next(from), refNext(ref, from); got != want {
						t.Fatalf("step %d: Next(%d) = %d, want %d", step, from, got, want)
					}
				}
				if m.Has(i) != ref[i] {
					t.Fatalf("step %d: Has(%d) = %v, want %v", step, i, m.Has(i), ref[i])
				}
				nonEmpty := false
				for _, b := range ref {
					nonEmpty = nonEmpty || b
				}
				if m.Any() != nonEmpty {
					t.Fatalf("step %d: Any() = %v, want %v", step, m.Any(), nonEmpty)
				}
			}
		})
	}
}

func TestBitmaskNextWrapsAround(t *testing.T) {
	tests := []struct {
		n    int
		set  []int
		from int
		want int
	}{
		{n: 1, set: nil, from: 0, want: -1},
		{n: 1, set: []int{0}, from: 0, want: 0},
		{n: 63, set: []int{62}, from: 62, want: 62},
		{n: 63, set: []int{3}, from: 4, want: 3}, // wraps within one word
		{n: 64, set: []int{63}, from: 0, want: 63},
		{n: 64, set: []int{0}, from: 63, want: 0},
		{n: 65, set: []int{64}, from: 0, want: 64},  // into the second word
		{n: 65, set: []int{0}, from: 64, want: 0},   // from the last word back to the first
		{n: 65, set: []int{10}, from: 11, want: 10}, // all the way round to the start word
		{n: 130, set: []int{5, 129}, from: 6, want: 129},
		{n: 130, set: []int{5, 129}, from: 129, want: 129},
		{n: 130, set: []int{5, 129}, from: 130, want: 5}, // out of range starts at 0
		{n: 130, set: []int{5, 129}, from: -1, want: 5},
		{n: 130, set: []int{70, 72}, from: 71, want: 72},
		{n: 130, set: []int{70}, from: 71, want: 70}, // same word, earlier bit, reached last
		{n: 1000, set: []int{999}, from: 0, want: 999},
		{n: 1000, set: []int{1}, from: 999, want: 1},
		{n: 1000, set: []int{640, 641}, from: 641, want: 641},
	}
	for _, tt := range tests {
		m := NewBitmask(tt.n)
		for _, i := range tt.set {
			m.Set(i)
		}
		if got := m.Next(tt.from); got != tt.want {
			t.Errorf("n=%d set=%v: Next(%d) = %d, want %d", tt.n, tt.set, tt.from, got, tt.want)
		}
	}
}

func TestBitmaskOverZeroIndexesIsEmpty(t *testing.T) {
	m := NewBitmask(0)
	if m.Len() != 0 || m.Any() || m.Next(0) != -1 || m.Next(5) != -1 {
		t.Fatalf("NewBitmask(0): Len %d, Any %v, Next(0) %d", m.Len(), m.Any(), m.Next(0))
	}
}

// TestBitmaskTryClearSucceedsOnceUnderContention has several goroutines race
// TryClear over the same indexes, as wakers racing to claim one parked worker
// do, and checks that each set index is claimed by exactly one of them.
func TestBitmaskTryClearSucceedsOnceUnderContention(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	const racers = 4
	for _, n := range []int{64, 65, 130, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			// One full mask per round; the racers live for the whole test
			// and line up at a barrier before each round, so they really
			// race instead of running one after another.
			masks := make([]*Bitmask, rounds)
			claims := make([][]atomic.Int32, rounds)
			for round := range rounds {
				masks[round] = NewBitmask(n)
				for i := range n {
					masks[round].Set(i)
				}
				claims[round] = make([]atomic.Int32, n)
			}
			bar := roundBarrier{parties: racers}
			var wg sync.WaitGroup
			for r := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for round := range rounds {
						bar.await(round)
						// Racers walk the indexes from different starts, so
						// every index sees both head-on and trailing races.
						for k := range n {
							i := (k + r*n/racers) % n
							if masks[round].TryClear(i) {
								claims[round][i].Add(1)
							}
						}
					}
				}()
			}
			wg.Wait()
			for round := range rounds {
				for i := range n {
					if c := claims[round][i].Load(); c != 1 {
						t.Fatalf("round %d: index %d claimed %d times, want exactly once", round, i, c)
					}
				}
				if masks[round].Any() {
					t.Fatalf("round %d: Any() after every index was claimed", round)
				}
			}
		})
	}
}

// TestBitmaskConcurrentUpdatesAreNotLost has goroutines that own interleaved
// indexes (so they share every word) Set and Clear them concurrently. Each
// owner must always read back its own last write, and the final set must be
// exactly what the owners left: a read-modify-write that lost a neighbour's
// update would show up as a flipped bit.
func TestBitmaskConcurrentUpdatesAreNotLost(t *testing.T) {
	iters := 20000
	if testing.Short() {
		iters = 3000
	}
	const owners = 4
	for _, n := range []int{64, 65, 130} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := NewBitmask(n)
			final := make([][]bool, owners)
			errs := make(chan error, owners)
			var wg sync.WaitGroup
			for o := range owners {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(n), uint64(o)))
					mine := make([]bool, n)
					for range iters {
						i := o + owners*rng.IntN((n-o+owners-1)/owners)
						switch rng.IntN(3) {
						case 0:
							m.Set(i)
							mine[i] = true
						case 1:
							m.Clear(i)
							mine[i] = false
						default:
							m.TryClear(i)
							mine[i] = false
						}
						if m.Has(i) != mine[i] {
							report(errs, fmt.Errorf("owner %d: Has(%d) = %v right after writing %v", o, i, m.Has(i), mine[i]))
							return
						}
					}
					final[o] = mine
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			for i := range n {
				want := final[i%owners][i]
				if m.Has(i) != want {
					t.Fatalf("index %d: Has = %v after the owners finished, want %v", i, m.Has(i), want)
				}
			}
		})
	}
}
