package fork

import (
	"math"
	"testing"
	"time"
	"unsafe"
)

// TestTaskIsWholeCacheLines checks the layout that keeps two workers' Tasks
// off each other's cache lines (see cacheLine).
func TestTaskIsWholeCacheLines(t *testing.T) {
	if size := unsafe.Sizeof(Task{}); size%cacheLine != 0 {
		t.Fatalf("sizeof(Task) = %d, not a multiple of %d", size, cacheLine)
	}
}

func TestSpanCutsAndClaimsAtTheEndsOfInt(t *testing.T) {
	cases := []struct {
		next, hi        int
		wantLo, wantHi  int
		wantOK          bool
		stride, wantEnd int
	}{
		{0, 10, 5, 10, true, 4, 4},
		{0, 1, 0, 1, true, 256, 1},
		{3, 3, 0, 0, false, 1, 3},
		{math.MinInt, math.MaxInt, -1, math.MaxInt, true, 256, math.MinInt + 256},
		{math.MaxInt - 2, math.MaxInt, math.MaxInt - 1, math.MaxInt, true, 256, math.MaxInt},
	}
	for _, c := range cases {
		s := span{next: c.next, hi: c.hi}
		lo, hi, ok := s.cut()
		if lo != c.wantLo || hi != c.wantHi || ok != c.wantOK {
			t.Errorf("cut [%d, %d) = %d, %d, %v; want %d, %d, %v", c.next, c.hi, lo, hi, ok, c.wantLo, c.wantHi, c.wantOK)
		}
		if ok && s.hi != lo {
			t.Errorf("cut [%d, %d) kept [%d, %d), want up to %d", c.next, c.hi, s.next, s.hi, lo)
		}
		s = span{next: c.next, hi: c.hi}
		if end := s.claim(c.next, c.stride); end != c.wantEnd || s.next != end {
			t.Errorf("claim(%d, %d) in [%d, %d) = %d (next %d), want %d", c.next, c.stride, c.next, c.hi, end, s.next, c.wantEnd)
		}
	}
}

// TestAwaitTakesTheToken checks the idle wait: whether the wake-up comes
// before it starts, while it polls, or after it has parked, await returns
// having taken exactly the one token.
func TestAwaitTakesTheToken(t *testing.T) {
	p := &Pool{}
	for _, c := range []struct {
		name  string
		spin  time.Duration
		delay time.Duration // -1: the token is there before await starts
	}{
		{"token first", time.Millisecond, -1},
		{"while polling", 50 * time.Millisecond, time.Millisecond},
		{"after parking", 100 * time.Microsecond, 20 * time.Millisecond},
		{"no polling", 0, time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			task := newTask(p)
			if c.delay < 0 {
				task.wake <- struct{}{}
			} else {
				go func() {
					time.Sleep(c.delay)
					task.wake <- struct{}{}
				}()
			}
			task.await(c.spin)
			if n := len(task.wake); n != 0 {
				t.Fatalf("%d tokens left after await", n)
			}
		})
	}
}
