package deque

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"weak"
)

// checkRingAtRest verifies the invariants that hold whenever no operation is in
// flight:
//
//   - top <= bottom and bottom-top <= Cap;
//   - every slot's seq names the position in [top, top+Cap) that the slot
//     serves, so the owner can write it as soon as bottom reaches it;
//   - every slot that does not hold a live position (one in [top, bottom)) is
//     zero, so the ring does not keep consumed tasks reachable.
func checkRingAtRest[T comparable](t *testing.T, r *Ring[T]) {
	t.Helper()
	top, bottom := r.top.Load(), r.bottom.Load()
	if bottom < top || bottom-top > uint64(len(r.slots)) {
		t.Fatalf("top=%d bottom=%d cap=%d: indexes out of order", top, bottom, len(r.slots))
	}
	var zero T
	for i := range r.slots {
		want := top + ((uint64(i) - top) & r.mask)
		if got := r.slots[i].seq.Load(); got != want {
			t.Fatalf("slot %d: seq=%d, want %d (top=%d bottom=%d)", i, got, want, top, bottom)
		}
		if want >= bottom && r.slots[i].val != zero {
			t.Fatalf("slot %d: consumed slot still holds %v (top=%d bottom=%d)", i, r.slots[i].val, top, bottom)
		}
	}
}

func TestNewRingRoundsCapacityUpToPowerOfTwo(t *testing.T) {
	tests := []struct {
		asked, want int
	}{
		{-1, 2}, {0, 2}, {1, 2}, {2, 2}, {3, 4}, {4, 4}, {5, 8},
		{100, 128}, {255, 256}, {256, 256}, {257, 512}, {1 << 16, 1 << 16},
	}
	for _, tt := range tests {
		r := NewRing[int](tt.asked)
		if r.Cap() != tt.want {
			t.Errorf("NewRing(%d).Cap() = %d, want %d", tt.asked, r.Cap(), tt.want)
		}
		if r.mask != uint64(r.Cap()-1) {
			t.Errorf("NewRing(%d): mask = %#x, want %#x", tt.asked, r.mask, r.Cap()-1)
		}
		if r.Len() != 0 {
			t.Errorf("NewRing(%d).Len() = %d, want 0", tt.asked, r.Len())
		}
		checkRingAtRest(t, r)
	}
}

var ringCaps = []int{2, 4, 8, 256}

func TestRingOwnerPopIsLIFO(t *testing.T) {
	for _, c := range ringCaps {
		r := NewRing[int](c)
		for v := 1; v <= c; v++ {
			if !r.Push(v) {
				t.Fatalf("cap %d: Push(%d) failed below capacity", c, v)
			}
		}
		for want := c; want >= 1; want-- {
			got, ok := r.Pop()
			if !ok || got != want {
				t.Fatalf("cap %d: Pop() = %d, %v; want %d, true", c, got, ok, want)
			}
		}
		checkRingAtRest(t, r)
	}
}

func TestRingStealIsFIFO(t *testing.T) {
	for _, c := range ringCaps {
		r := NewRing[int](c)
		for v := 1; v <= c; v++ {
			r.Push(v)
		}
		for want := 1; want <= c; want++ {
			got, ok := r.Steal()
			if !ok || got != want {
				t.Fatalf("cap %d: Steal() = %d, %v; want %d, true", c, got, ok, want)
			}
		}
		checkRingAtRest(t, r)
	}
}

func TestRingPushFailsWhenFullAndLeavesContentsIntact(t *testing.T) {
	for _, c := range ringCaps {
		r := NewRing[int](c)
		for v := 1; v <= c; v++ {
			r.Push(v)
		}
		if r.Push(-1) {
			t.Fatalf("cap %d: Push into a full ring succeeded", c)
		}
		if r.Len() != c {
			t.Fatalf("cap %d: Len() = %d after failed Push, want %d", c, r.Len(), c)
		}
		// Freeing one slot at either end makes exactly one more Push fit.
		r.Steal()
		if !r.Push(c + 1) {
			t.Fatalf("cap %d: Push after a Steal freed a slot failed", c)
		}
		if r.Push(-1) {
			t.Fatalf("cap %d: Push into a refilled ring succeeded", c)
		}
		var got []int
		for {
			v, ok := r.Steal()
			if !ok {
				break
			}
			got = append(got, v)
		}
		want := make([]int, 0, c)
		for v := 2; v <= c+1; v++ {
			want = append(want, v)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("cap %d: contents after failed Push = %v, want %v", c, got, want)
		}
		checkRingAtRest(t, r)
	}
}

func TestRingPopAndStealOnEmptyReturnZeroFalse(t *testing.T) {
	tests := []struct {
		name  string
		setup func(r *Ring[int])
	}{
		{"new", func(*Ring[int]) {}},
		{"drained by Pop", func(r *Ring[int]) { r.Push(1); r.Push(2); r.Pop(); r.Pop() }},
		{"drained by Steal", func(r *Ring[int]) { r.Push(1); r.Push(2); r.Steal(); r.Steal() }},
		{"last taken by Pop", func(r *Ring[int]) { r.Push(1); r.Steal(); r.Push(2); r.Pop() }},
		{"drained by StealHalf", func(r *Ring[int]) {
			r.Push(1)
			r.StealHalf(4, func(int) {})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing[int](4)
			tt.setup(r)
			// Repeat so a failed Pop that corrupted bottom would show up.
			for range 3 {
				if v, ok := r.Pop(); ok || v != 0 {
					t.Fatalf("Pop() on empty = %d, %v", v, ok)
				}
				if v, ok := r.Steal(); ok || v != 0 {
					t.Fatalf("Steal() on empty = %d, %v", v, ok)
				}
				if n := r.StealHalf(4, func(v int) { t.Fatalf("StealHalf on empty moved %d", v) }); n != 0 {
					t.Fatalf("StealHalf on empty = %d", n)
				}
				if r.Len() != 0 {
					t.Fatalf("Len() on empty = %d", r.Len())
				}
			}
			checkRingAtRest(t, r)
			if !r.Push(7) {
				t.Fatal("Push after empty operations failed")
			}
			if v, ok := r.Pop(); !ok || v != 7 {
				t.Fatalf("Pop() = %d, %v; want 7, true", v, ok)
			}
		})
	}
}

func TestRingStealHalfTakesCeilHalfCappedByMax(t *testing.T) {
	tests := []struct {
		n, max, want int
	}{
		{n: 1, max: 8, want: 1},
		{n: 2, max: 8, want: 1},
		{n: 3, max: 8, want: 2},
		{n: 4, max: 8, want: 2},
		{n: 7, max: 8, want: 4},
		{n: 8, max: 8, want: 4},
		{n: 8, max: 3, want: 3},
		{n: 8, max: 1, want: 1},
		{n: 5, max: 0, want: 0},
		{n: 256, max: 256, want: 128},
		{n: 256, max: 100, want: 100},
	}
	for _, tt := range tests {
		r := NewRing[int](tt.n)
		// Offset the indexes so the stolen run crosses the end of the slots.
		for range r.Cap() - 1 {
			r.Push(0)
			r.Steal()
		}
		for v := 1; v <= tt.n; v++ {
			r.Push(v)
		}
		var got []int
		moved := r.StealHalf(tt.max, func(v int) { got = append(got, v) })
		if moved != tt.want || len(got) != tt.want {
			t.Errorf("n=%d max=%d: StealHalf moved %d (put called %d times), want %d",
				tt.n, tt.max, moved, len(got), tt.want)
			continue
		}
		for i, v := range got {
			if v != i+1 {
				t.Errorf("n=%d max=%d: StealHalf moved %v, want the oldest %d in order", tt.n, tt.max, got, tt.want)
				break
			}
		}
		if r.Len() != tt.n-tt.want {
			t.Errorf("n=%d max=%d: Len() = %d after StealHalf, want %d", tt.n, tt.max, r.Len(), tt.n-tt.want)
		}
		// The rest is still there, newest at the owner's end.
		if v, ok := r.Pop(); tt.want < tt.n && (!ok || v != tt.n) {
			t.Errorf("n=%d max=%d: Pop() = %d, %v after StealHalf, want %d", tt.n, tt.max, v, ok, tt.n)
		}
		checkRingAtRest(t, r)
	}
}

func TestRingPushBatchAddsWhatFitsInOrder(t *testing.T) {
	tests := []struct {
		cap, queued, batch, want int
	}{
		{cap: 8, queued: 0, batch: 0, want: 0},
		{cap: 8, queued: 0, batch: 5, want: 5},
		{cap: 8, queued: 0, batch: 8, want: 8},
		{cap: 8, queued: 0, batch: 9, want: 8},
		{cap: 8, queued: 5, batch: 5, want: 3},
		{cap: 8, queued: 8, batch: 1, want: 0},
		{cap: 2, queued: 1, batch: 4, want: 1},
	}
	for _, tt := range tests {
		r := NewRing[int](tt.cap)
		// Offset the indexes so the batch crosses the end of the slots.
		for range tt.cap - 1 {
			r.Push(0)
			r.Steal()
		}
		for v := 1; v <= tt.queued; v++ {
			r.Push(v)
		}
		batch := make([]int, tt.batch)
		for i := range batch {
			batch[i] = tt.queued + 1 + i
		}
		if n := r.PushBatch(batch); n != tt.want {
			t.Errorf("cap %d, %d queued: PushBatch(%d values) = %d, want %d", tt.cap, tt.queued, tt.batch, n, tt.want)
			continue
		}
		checkRingAtRest(t, r)
		var got []int
		for {
			v, ok := r.Steal()
			if !ok {
				break
			}
			got = append(got, v)
		}
		want := make([]int, tt.queued+tt.want)
		for i := range want {
			want[i] = i + 1
		}
		if !slices.Equal(got, want) {
			t.Errorf("cap %d, %d queued: after PushBatch(%d values) the ring holds %v, want %v", tt.cap, tt.queued, tt.batch, got, want)
		}
	}
}

// reversed returns a reversed copy of vs.
func reversed(vs []int) []int {
	out := slices.Clone(vs)
	slices.Reverse(out)
	return out
}

func TestRingPopBatchTakesNewestFirst(t *testing.T) {
	tests := []struct {
		cap, queued, dst, want int
	}{
		{cap: 8, queued: 0, dst: 4, want: 0},
		{cap: 8, queued: 5, dst: 0, want: 0},
		{cap: 8, queued: 5, dst: 3, want: 3}, // leaves some: no CAS
		{cap: 8, queued: 5, dst: 5, want: 5}, // takes the last: CAS on top
		{cap: 8, queued: 5, dst: 9, want: 5}, // capped by the ring
		{cap: 8, queued: 8, dst: 8, want: 8},
		{cap: 2, queued: 1, dst: 1, want: 1},
		{cap: 2, queued: 2, dst: 1, want: 1},
	}
	for _, tt := range tests {
		r := NewRing[int](tt.cap)
		// Offset the indexes so the batch crosses the end of the slots.
		for range tt.cap - 1 {
			r.Push(0)
			r.Steal()
		}
		var model []int
		for v := 1; v <= tt.queued; v++ {
			r.Push(v)
			model = append(model, v)
		}
		dst := make([]int, tt.dst)
		n := r.PopBatch(dst)
		if want := reversed(model[tt.queued-tt.want:]); n != tt.want || !slices.Equal(dst[:n], want) {
			t.Errorf("cap %d, %d queued: PopBatch(dst[%d]) = %d %v, want %v", tt.cap, tt.queued, tt.dst, n, dst[:n], want)
			continue
		}
		checkRingAtRest(t, r)
		// The ring goes on working at both ends.
		if !r.Push(100) {
			t.Errorf("cap %d, %d queued: Push after PopBatch failed", tt.cap, tt.queued)
		}
		if v, ok := r.Steal(); !ok || (tt.want < tt.queued && v != 1) || (tt.want == tt.queued && v != 100) {
			t.Errorf("cap %d, %d queued: Steal() after PopBatch = %d, %v", tt.cap, tt.queued, v, ok)
		}
		checkRingAtRest(t, r)
	}
}

func TestRingWrapsAroundOverManyLaps(t *testing.T) {
	for _, c := range []int{2, 4, 16} {
		r := NewRing[int](c)
		next, want := 1, 1 // next value to push; next value a thief must see
		const laps = 1000
		for range laps * c {
			// Keep the ring between half and completely full, so every slot
			// is reused once per lap, by both Push paths.
			for r.Len() < c {
				if !r.Push(next) {
					t.Fatalf("cap %d: Push(%d) failed with Len %d", c, next, r.Len())
				}
				next++
			}
			v, ok := r.Steal()
			if !ok || v != want {
				t.Fatalf("cap %d: Steal() = %d, %v; want %d", c, v, ok, want)
			}
			want++
		}
		if r.top.Load() < uint64(laps*c) {
			t.Fatalf("cap %d: only %d positions used, want >= %d", c, r.top.Load(), laps*c)
		}
		checkRingAtRest(t, r)
	}
}

// TestRingMatchesSequentialDeque drives a ring from one goroutine with random
// operations and compares every result with a slice-backed deque. From a single
// goroutine there is no thief mid-read, so Push must fail exactly when the ring
// is full, PushBatch must add exactly what fits, PopBatch must take exactly
// min(len(dst), Len()) newest-first, and the at-rest invariants must hold
// after every step.
func TestRingMatchesSequentialDeque(t *testing.T) {
	steps := 20000
	if testing.Short() {
		steps = 4000
	}
	for _, c := range []int{2, 4, 8, 64} {
		rng := rand.New(rand.NewPCG(uint64(c), 1))
		r := NewRing[int](c)
		var model []int
		next := 1
		for step := range steps {
			switch op := rng.IntN(14); {
			case op >= 12:
				dst := make([]int, rng.IntN(c+2))
				want := min(len(dst), len(model))
				n := r.PopBatch(dst)
				if n != want || !slices.Equal(dst[:n], reversed(model[len(model)-want:])) {
					t.Fatalf("cap %d step %d: PopBatch(dst[%d]) = %d %v; model %v", c, step, len(dst), n, dst[:n], model)
				}
				model = model[:len(model)-want]
			case op >= 10:
				batch := make([]int, rng.IntN(c+2))
				for i := range batch {
					batch[i] = next + i
				}
				want := min(len(batch), c-len(model))
				if n := r.PushBatch(batch); n != want {
					t.Fatalf("cap %d step %d: PushBatch(%d values) with %d queued = %d, want %d", c, step, len(batch), len(model), n, want)
				}
				model = append(model, batch[:want]...)
				next += len(batch)
			case op < 4:
				ok := r.Push(next)
				if ok != (len(model) < c) {
					t.Fatalf("cap %d step %d: Push with %d queued = %v", c, step, len(model), ok)
				}
				if ok {
					model = append(model, next)
				}
				next++
			case op < 6:
				v, ok := r.Pop()
				if ok != (len(model) > 0) || ok && v != model[len(model)-1] {
					t.Fatalf("cap %d step %d: Pop() = %d, %v; model %v", c, step, v, ok, model)
				}
				if ok {
					model = model[:len(model)-1]
				}
			case op < 8:
				v, ok := r.Steal()
				if ok != (len(model) > 0) || ok && v != model[0] {
					t.Fatalf("cap %d step %d: Steal() = %d, %v; model %v", c, step, v, ok, model)
				}
				if ok {
					model = model[1:]
				}
			default:
				limit := 1 + rng.IntN(c)
				want := min((len(model)+1)/2, limit)
				var got []int
				n := r.StealHalf(limit, func(v int) { got = append(got, v) })
				if n != want || !slices.Equal(got, model[:want]) {
					t.Fatalf("cap %d step %d: StealHalf(%d) = %d %v; model %v", c, step, limit, n, got, model)
				}
				model = model[want:]
			}
			if r.Len() != len(model) {
				t.Fatalf("cap %d step %d: Len() = %d, model has %d", c, step, r.Len(), len(model))
			}
			checkRingAtRest(t, r)
		}
	}
}

func TestRingConsumedSlotsAreZeroed(t *testing.T) {
	tests := []struct {
		name    string
		consume func(r *Ring[*int]) int // returns how many it consumed
	}{
		{"Pop below top", func(r *Ring[*int]) int { r.Pop(); return 1 }},
		{"Pop of last element", func(r *Ring[*int]) int {
			n := 0
			for r.Len() > 0 {
				r.Pop()
				n++
			}
			return n
		}},
		{"Steal", func(r *Ring[*int]) int { r.Steal(); return 1 }},
		{"PopBatch below top", func(r *Ring[*int]) int { return r.PopBatch(make([]*int, 3)) }},
		{"PopBatch to empty", func(r *Ring[*int]) int { return r.PopBatch(make([]*int, 8)) }},
		{"StealHalf", func(r *Ring[*int]) int { return r.StealHalf(8, func(*int) {}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing[*int](8)
			for i := range 5 {
				r.Push(new(i))
			}
			before := r.Len()
			if n := tt.consume(r); n == 0 || r.Len() != before-n {
				t.Fatalf("consumed %d, Len %d -> %d", n, before, r.Len())
			}
			checkRingAtRest(t, r)
		})
	}
}

// gcProbe is a task stand-in, big enough to stay out of the tiny allocator,
// whose blocks can keep unrelated objects alive.
type gcProbe struct {
	id int
	_  [56]byte
}

// pushProbes pushes n fresh probes and returns weak pointers to them; the
// only strong references left are the ring's.
func pushProbes(t *testing.T, push func(*gcProbe) bool, n int) []weak.Pointer[gcProbe] {
	t.Helper()
	ws := make([]weak.Pointer[gcProbe], n)
	for i := range ws {
		p := &gcProbe{id: i}
		ws[i] = weak.Make(p)
		if !push(p) {
			t.Fatalf("push of probe %d failed", i)
		}
	}
	return ws
}

// collected reports which probes the garbage collector has freed.
func collected(ws []weak.Pointer[gcProbe]) []bool {
	runtime.GC()
	runtime.GC()
	out := make([]bool, len(ws))
	for i, w := range ws {
		out[i] = w.Value() == nil
	}
	return out
}

func TestRingDoesNotRetainConsumedTasks(t *testing.T) {
	tests := []struct {
		name    string
		consume func(r *Ring[*gcProbe]) // consumes probes 2, 3 (owner end) or 0, 1 (thief end)
		freed   []bool
	}{
		{"Pop", func(r *Ring[*gcProbe]) { r.Pop(); r.Pop() }, []bool{false, false, true, true}},
		{"Steal", func(r *Ring[*gcProbe]) { r.Steal(); r.Steal() }, []bool{true, true, false, false}},
		{"PopBatch", func(r *Ring[*gcProbe]) { r.PopBatch(make([]*gcProbe, 2)) }, []bool{false, false, true, true}},
		{"PopBatch to empty", func(r *Ring[*gcProbe]) { r.PopBatch(make([]*gcProbe, 8)) }, []bool{true, true, true, true}},
		{"StealHalf", func(r *Ring[*gcProbe]) { r.StealHalf(4, func(*gcProbe) {}) }, []bool{true, true, false, false}},
		{"Pop to empty", func(r *Ring[*gcProbe]) {
			for r.Len() > 0 {
				r.Pop()
			}
		}, []bool{true, true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing[*gcProbe](4)
			ws := pushProbes(t, r.Push, 4)
			tt.consume(r)
			if got := collected(ws); !slices.Equal(got, tt.freed) {
				t.Fatalf("collected = %v, want %v (a consumed task is still reachable, or a queued one was lost)", got, tt.freed)
			}
			runtime.KeepAlive(r)
		})
	}
}

// TestRingPushWaitsForThiefStillReadingSlot simulates a thief that has won the
// CAS for a position but not yet read and released its slot, and checks that
// the owner does not overwrite that slot a lap later.
func TestRingPushWaitsForThiefStillReadingSlot(t *testing.T) {
	for _, c := range []int{2, 4, 8} {
		r := NewRing[int](c)
		for v := 1; v <= c; v++ {
			r.Push(v)
		}
		// The stalled thief: claim position 0 exactly as Steal does, stop
		// before reading the slot.
		if !r.top.CompareAndSwap(0, 1) {
			t.Fatal("claim of position 0 failed")
		}
		if r.Len() != c-1 {
			t.Fatalf("cap %d: Len() = %d with one claimed, want %d", c, r.Len(), c-1)
		}
		if r.Push(-1) {
			t.Fatalf("cap %d: Push overwrote slot 0 while its thief was still reading it", c)
		}
		if n := r.PushBatch([]int{-1, -2}); n != 0 {
			t.Fatalf("cap %d: PushBatch wrote %d values past the slot a thief was still reading", c, n)
		}
		if got := r.slots[0].val; got != 1 {
			t.Fatalf("cap %d: slot 0 = %d under the stalled thief, want 1", c, got)
		}
		// Other consumers still make progress meanwhile.
		if v, ok := r.Steal(); !ok || v != 2 {
			t.Fatalf("cap %d: Steal() beside a stalled thief = %d, %v; want 2", c, v, ok)
		}
		// The thief finishes: read, zero, release for position 0+cap.
		s := &r.slots[0]
		if s.val != 1 {
			t.Fatalf("stalled thief read %d, want 1", s.val)
		}
		s.val = 0
		s.seq.Store(uint64(c))
		if !r.Push(c + 1) {
			t.Fatalf("cap %d: Push after the thief released slot 0 failed", c)
		}
		checkRingAtRest(t, r)
		// The owner's newest element is the one just written over slot 0.
		if v, ok := r.Pop(); !ok || v != c+1 {
			t.Fatalf("cap %d: Pop() = %d, %v; want %d", c, v, ok, c+1)
		}
	}
}

// TestRingPopBatchLeavesSlotOfStalledThief has the owner batch-pop
// everything while a thief that claimed the oldest position has not yet read
// it: the batch must stop above that position, and the slot must stay blocked
// for the owner until the thief releases it.
func TestRingPopBatchLeavesSlotOfStalledThief(t *testing.T) {
	for _, c := range []int{2, 4, 8} {
		r := NewRing[int](c)
		for v := 1; v <= c; v++ {
			r.Push(v)
		}
		if !r.top.CompareAndSwap(0, 1) { // the thief claims position 0
			t.Fatal("claim of position 0 failed")
		}
		dst := make([]int, c)
		n := r.PopBatch(dst)
		if want := reversed(seq(2, c)); !slices.Equal(dst[:n], want) {
			t.Fatalf("cap %d: PopBatch beside a stalled thief = %v, want %v", c, dst[:n], want)
		}
		if r.slots[0].val != 1 {
			t.Fatalf("cap %d: slot 0 = %d under the stalled thief, want 1", c, r.slots[0].val)
		}
		// Positions 0 and 1 are consumed, so the owner refills positions 2
		// to c-1 and is refused at position c, which maps to the blocked slot.
		pushed := 0
		for r.Push(100 + pushed) {
			pushed++
		}
		if pushed != c-2 {
			t.Fatalf("cap %d: pushed %d beside a stalled thief, want %d", c, pushed, c-2)
		}
		s := &r.slots[0] // the thief finishes
		s.val = 0
		s.seq.Store(uint64(c))
		if !r.Push(-1) {
			t.Fatalf("cap %d: Push after the thief released its slot failed", c)
		}
		checkRingAtRest(t, r)
	}
}
