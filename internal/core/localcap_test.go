package core

import "testing"

// TestLocalCapRoundsUpToAPowerOfTwo checks that a small LocalCap is rounded
// up (to at least 2, the ring's minimum) as Config.LocalCap documents, not
// replaced by the default, and that 0 means the default.
func TestLocalCapRoundsUpToAPowerOfTwo(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 256}, {1, 2}, {2, 2}, {3, 4}, {100, 128}} {
		_, ws := NewPool[int](Config{Workers: 1, LocalCap: tc.in, Waker: nopWaker{}})
		if got := ws[0].ring.Cap(); got != tc.want {
			t.Errorf("LocalCap %d: ring capacity %d, want %d", tc.in, got, tc.want)
		}
	}
}
