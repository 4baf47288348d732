package deque

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// checkInjectorAtRest verifies the invariants that hold between operations:
//
//   - the segments from head link to tail, and hold Len elements in all;
//   - only the head has taken elements before lo, and only the tail has room
//     after hi (so FIFO order is list order, then index order);
//   - every cell outside a segment's [lo, hi) is zero, and so is every spare
//     segment, so taken tasks are not retained;
//   - at most maxSpareSegments spares are kept.
func checkInjectorAtRest[T comparable](t *testing.T, q *Injector[T]) {
	t.Helper()
	if (q.head == nil) != (q.tail == nil) {
		t.Fatalf("head=%p tail=%p: one nil without the other", q.head, q.tail)
	}
	var zero T
	checkZeroOutside := func(what string, s *segment[T]) {
		for i := range s.vals {
			if (i < s.lo || i >= s.hi) && s.vals[i] != zero {
				t.Fatalf("%s: cell %d outside [%d, %d) still holds %v", what, i, s.lo, s.hi, s.vals[i])
			}
		}
	}
	n := 0
	for s := q.head; s != nil; s = s.next {
		if s.lo < 0 || s.lo > s.hi || s.hi > segmentSize {
			t.Fatalf("segment with lo=%d hi=%d", s.lo, s.hi)
		}
		if s != q.head && s.lo != 0 {
			t.Fatalf("non-head segment starts at %d", s.lo)
		}
		if s != q.tail && s.hi != segmentSize {
			t.Fatalf("non-tail segment ends at %d, before %d", s.hi, segmentSize)
		}
		if s.next == nil && s != q.tail {
			t.Fatal("list from head ends before tail")
		}
		checkZeroOutside("queued segment", s)
		n += s.hi - s.lo
	}
	if n != q.Len() {
		t.Fatalf("segments hold %d elements, Len() = %d", n, q.Len())
	}
	if len(q.spare) > maxSpareSegments {
		t.Fatalf("%d spare segments kept, limit %d", len(q.spare), maxSpareSegments)
	}
	for _, s := range q.spare {
		if s.lo != 0 || s.hi != 0 || s.next != nil {
			t.Fatalf("spare segment not reset: lo=%d hi=%d next=%p", s.lo, s.hi, s.next)
		}
		checkZeroOutside("spare segment", s)
	}
}

// drainInOrder pops q until it is empty.
func drainInOrder(q *Injector[int]) []int {
	var got []int
	for {
		v, ok := q.Pop()
		if !ok {
			return got
		}
		got = append(got, v)
	}
}

func seq(from, to int) []int {
	var s []int
	for v := from; v <= to; v++ {
		s = append(s, v)
	}
	return s
}

func TestInjectorZeroValueIsEmpty(t *testing.T) {
	var q Injector[int]
	if q.Len() != 0 {
		t.Fatalf("Len() = %d", q.Len())
	}
	if v, ok := q.Pop(); ok || v != 0 {
		t.Fatalf("Pop() = %d, %v", v, ok)
	}
	if n := q.PopBatch(make([]int, 8), 1); n != 0 {
		t.Fatalf("PopBatch = %d", n)
	}
	if n := q.Drain(); n != 0 {
		t.Fatalf("Drain() = %d", n)
	}
	q.Push(1)
	if v, ok := q.Pop(); !ok || v != 1 {
		t.Fatalf("Pop() after Push(1) = %d, %v", v, ok)
	}
	checkInjectorAtRest(t, &q)
}

func TestInjectorIsFIFOAcrossSegments(t *testing.T) {
	const S = segmentSize
	tests := []struct {
		name                 string
		first, popped, total int // push 1..first, pop popped, push first+1..total
	}{
		{"within one segment", 10, 5, 60},
		{"fill one segment exactly", 0, 0, S},
		{"spill into a second segment", S, 0, S + 1},
		{"head segment drained while the next fills", S - 1, S - 2, 3 * S},
		{"head on a segment boundary", 2 * S, S, 2*S + 5},
		{"many segments", 0, 0, 20 * S},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q Injector[int]
			for v := 1; v <= tt.first; v++ {
				q.Push(v)
			}
			for want := 1; want <= tt.popped; want++ {
				if v, ok := q.Pop(); !ok || v != want {
					t.Fatalf("Pop() = %d, %v; want %d", v, ok, want)
				}
			}
			for v := tt.first + 1; v <= tt.total; v++ {
				q.Push(v)
			}
			if q.Len() != tt.total-tt.popped {
				t.Fatalf("Len() = %d, want %d", q.Len(), tt.total-tt.popped)
			}
			checkInjectorAtRest(t, &q)
			if got, want := drainInOrder(&q), seq(tt.popped+1, tt.total); !slices.Equal(got, want) {
				t.Fatalf("popped %v, want %v", got, want)
			}
			checkInjectorAtRest(t, &q)
		})
	}
}

func TestInjectorPushBatchKeepsOrder(t *testing.T) {
	var q Injector[int]
	q.Push(1)
	q.PushBatch(nil)
	q.PushBatch(seq(2, 5))
	q.Push(6)
	q.PushBatch(seq(7, 3*segmentSize+9)) // spans several segments
	checkInjectorAtRest(t, &q)
	if got, want := drainInOrder(&q), seq(1, 3*segmentSize+9); !slices.Equal(got, want) {
		t.Fatalf("popped %v, want %v", got, want)
	}
	if allocs := testing.AllocsPerRun(100, func() { q.PushBatch(nil) }); allocs != 0 {
		t.Fatalf("PushBatch(nil) allocates %v times", allocs)
	}
}

func TestInjectorPopBatchTakesItsShare(t *testing.T) {
	tests := []struct {
		queued, dst, share, want int
	}{
		{queued: 10, dst: 4, share: 1, want: 4},    // capped by dst
		{queued: 3, dst: 8, share: 1, want: 3},     // capped by the queue
		{queued: 10, dst: 8, share: 0, want: 8},    // share <= 1: no share limit
		{queued: 10, dst: 8, share: -3, want: 8},   // likewise
		{queued: 10, dst: 8, share: 2, want: 5},    // half
		{queued: 10, dst: 8, share: 3, want: 4},    // ceil(10/3)
		{queued: 10, dst: 2, share: 3, want: 2},    // share, then dst
		{queued: 1, dst: 8, share: 16, want: 1},    // rounding up leaves one
		{queued: 100, dst: 64, share: 4, want: 25}, // a worker's batch
		{queued: 5, dst: 0, share: 1, want: 0},     // nowhere to put it
		{queued: 0, dst: 8, share: 1, want: 0},
	}
	for _, tt := range tests {
		var q Injector[int]
		q.PushBatch(seq(1, tt.queued))
		dst := make([]int, tt.dst)
		got := q.PopBatch(dst, tt.share)
		if got != tt.want || !slices.Equal(dst[:got], seq(1, tt.want)) {
			t.Errorf("%d queued: PopBatch(dst[%d], %d) = %d %v; want %d, the oldest first",
				tt.queued, tt.dst, tt.share, got, dst[:got], tt.want)
		}
		if q.Len() != tt.queued-tt.want {
			t.Errorf("%d queued: Len() = %d after PopBatch, want %d", tt.queued, q.Len(), tt.queued-tt.want)
		}
		if rest := drainInOrder(&q); !slices.Equal(rest, seq(tt.want+1, tt.queued)) {
			t.Errorf("%d queued: left %v, want %v", tt.queued, rest, seq(tt.want+1, tt.queued))
		}
	}
}

func TestInjectorDrainEmptiesAndStaysUsable(t *testing.T) {
	var q Injector[int]
	q.PushBatch(seq(1, 100))
	q.Pop()
	if n := q.Drain(); n != 99 {
		t.Fatalf("Drain() = %d, want 99", n)
	}
	if q.Len() != 0 {
		t.Fatalf("Len() = %d after Drain", q.Len())
	}
	if v, ok := q.Pop(); ok {
		t.Fatalf("Pop() after Drain = %d", v)
	}
	q.PushBatch(seq(1, 3))
	if got := drainInOrder(&q); !slices.Equal(got, seq(1, 3)) {
		t.Fatalf("after Drain and PushBatch, popped %v", got)
	}
	checkInjectorAtRest(t, &q)
}

// TestInjectorMatchesSequentialQueue drives an injector with random
// operations from one goroutine and compares every result with a slice. The
// mix alternates between filling and emptying phases so the queue grows over
// several segments and shrinks back, recycling them.
func TestInjectorMatchesSequentialQueue(t *testing.T) {
	steps := 40000
	if testing.Short() {
		steps = 5000
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var q Injector[int]
	var model []int
	next, longest := 1, 0
	dst := make([]int, 64)
	for step := range steps {
		op := rng.IntN(100)
		if (step/400)%2 == 1 && rng.IntN(5) > 0 { // emptying phase: mostly takes
			op = 70 + rng.IntN(30)
		}
		switch {
		case op < 35:
			q.Push(next)
			model = append(model, next)
			next++
		case op < 70:
			k := rng.IntN(100)
			batch := seq(next, next+k-1)
			q.PushBatch(batch)
			model = append(model, batch...)
			next += k
		case op < 85:
			v, ok := q.Pop()
			if ok != (len(model) > 0) || ok && v != model[0] {
				t.Fatalf("step %d: Pop() = %d, %v; model head %v", step, v, ok, model[:min(1, len(model))])
			}
			if ok {
				model = model[1:]
			}
		case op < 99 || rng.IntN(20) > 0:
			d, share := rng.IntN(len(dst)+1), rng.IntN(6)
			want := len(model)
			if share > 1 {
				want = (want + share - 1) / share
			}
			want = min(want, d)
			got := q.PopBatch(dst[:d], share)
			if got != want || !slices.Equal(dst[:got], model[:want]) {
				t.Fatalf("step %d: PopBatch(dst[%d], %d) = %d %v; want %v", step, d, share, got, dst[:got], model[:want])
			}
			model = model[want:]
		default:
			if n := q.Drain(); n != len(model) {
				t.Fatalf("step %d: Drain() = %d, model has %d", step, n, len(model))
			}
			model = nil
		}
		if q.Len() != len(model) {
			t.Fatalf("step %d: Len() = %d, model has %d", step, q.Len(), len(model))
		}
		longest = max(longest, len(model))
		checkInjectorAtRest(t, &q)
	}
	if longest < 3*segmentSize {
		t.Fatalf("the queue never grew past %d elements; the walk does not cross segments", longest)
	}
	t.Logf("longest queue: %d elements (%d segments)", longest, (longest+segmentSize-1)/segmentSize)
}

func TestInjectorDoesNotRetainTakenTasks(t *testing.T) {
	tests := []struct {
		name  string
		take  func(q *Injector[*gcProbe]) // takes probes 0 and 1, or all
		freed []bool
	}{
		{"Pop", func(q *Injector[*gcProbe]) { q.Pop(); q.Pop() }, []bool{true, true, false, false}},
		{"PopBatch", func(q *Injector[*gcProbe]) { q.PopBatch(make([]*gcProbe, 2), 1) }, []bool{true, true, false, false}},
		{"Drain", func(q *Injector[*gcProbe]) { q.Drain() }, []bool{true, true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q Injector[*gcProbe]
			ws := pushProbes(t, func(p *gcProbe) bool { q.Push(p); return true }, 4)
			tt.take(&q)
			if got := collected(ws); !slices.Equal(got, tt.freed) {
				t.Fatalf("collected = %v, want %v (a taken task is still reachable, or a queued one was lost)", got, tt.freed)
			}
			runtime.KeepAlive(&q)
		})
	}
}

// TestInjectorReusesSegments checks that a queue that keeps cycling through
// segments, as a steady stream of bursts does, allocates nothing once it has
// warmed up, and that it keeps no more than maxSpareSegments spares after a
// burst larger than that.
func TestInjectorReusesSegments(t *testing.T) {
	var q Injector[int]
	batch := seq(1, segmentSize/2+3) // odd size, so segment boundaries move
	dst := make([]int, 100)
	cycle := func() {
		q.PushBatch(batch)
		q.Push(0)
		for q.PopBatch(dst, 1) > 0 {
		}
	}
	cycle()
	if allocs := testing.AllocsPerRun(50, cycle); allocs != 0 {
		t.Fatalf("a warmed-up push/pop cycle allocates %v times", allocs)
	}
	big := make([]int, (maxSpareSegments+4)*segmentSize)
	q.PushBatch(big)
	for q.PopBatch(dst, 1) > 0 {
	}
	checkInjectorAtRest(t, &q)
	if len(q.spare) != maxSpareSegments {
		t.Fatalf("after a %d-segment burst, %d spares kept, want %d", maxSpareSegments+4, len(q.spare), maxSpareSegments)
	}
}
