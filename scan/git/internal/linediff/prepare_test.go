package linediff

import (
	"bytes"
	"testing"
)

// TestCommonPrefix: the block and word comparisons agree with a byte loop
// wherever the first difference falls (inside a 256-byte block, inside an
// 8-byte word, in the tail) and whatever the lengths.
func TestCommonPrefix(t *testing.T) {
	naive := func(a, b []byte) int {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		return i
	}
	base := bytes.Repeat([]byte("0123456789abcdef\n"), 60)
	for _, n := range []int{0, 1, 7, 8, 9, 255, 256, 257, 600, len(base)} {
		for _, at := range []int{0, 1, 7, 8, 100, 255, 256, 263, 511, 599, n - 1} {
			a := base[:n]
			b := bytes.Clone(base[:n])
			if at >= 0 && at < n {
				b[at] ^= 0x20
			}
			for _, pair := range [][2][]byte{{a, b}, {a, b[:n/2]}, {a[:n/3], b}} {
				if got, want := CommonPrefix(pair[0], pair[1]), naive(pair[0], pair[1]); got != want {
					t.Errorf("n %d, differ at %d, lengths %d/%d: %d, want %d", n, at, len(pair[0]), len(pair[1]), got, want)
				}
			}
		}
	}
}
