package lincheck

import (
	"bytes"
	"fmt"
	"testing"
)

// recorder is a testing.TB that keeps the failures it is given.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

func (r *recorder) Logf(format string, args ...any) { r.TB.Logf(format, args...) }

func input(n int) []byte { return bytes.Repeat([]byte("ab"), n/2) }

var sink int

// scanOnce touches each byte once: linear.
func scanOnce(b []byte) {
	for _, c := range b {
		sink += int(c)
	}
}

// scanFromEach walks the rest of the input from every position, as the
// escape-run bug did: quadratic in time, no allocation.
func scanFromEach(b []byte) {
	for i := range b {
		for _, c := range b[i:] {
			if c == 'z' {
				break
			}
			sink += int(c)
		}
	}
}

// copyPrefixes allocates a copy of a growing prefix every 64 bytes:
// quadratic in bytes allocated.
func copyPrefixes(b []byte) {
	for i := 64; i <= len(b); i += 64 {
		sink += len(bytes.Clone(b[:i]))
	}
}

func TestLinearFunctionPasses(t *testing.T) {
	r := &recorder{TB: t}
	Check(r, 1<<16, input, scanOnce, Options{})
	Check(r, 1<<16, input, func(b []byte) { sink += len(bytes.Clone(b)) }, Options{})
	if len(r.failed) != 0 {
		t.Fatalf("a linear function failed the check: %q", r.failed)
	}
}

func TestQuadraticTimeFails(t *testing.T) {
	r := &recorder{TB: t}
	Check(r, 2000, input, scanFromEach, Options{Attempts: 1})
	if len(r.failed) != 1 {
		t.Fatalf("a quadratic walk gave %d failures, want 1 (time): %q", len(r.failed), r.failed)
	}
}

func TestQuadraticAllocationFails(t *testing.T) {
	r := &recorder{TB: t}
	Check(r, 1<<14, input, copyPrefixes, Options{Attempts: 1})
	found := false
	for _, f := range r.failed {
		found = found || bytes.Contains([]byte(f), []byte("allocation"))
	}
	if !found {
		t.Fatalf("copying growing prefixes did not fail the allocation check: %q", r.failed)
	}
}

func TestSizeIsShortUnderShort(t *testing.T) {
	want := 2
	if testing.Short() {
		want = 1
	}
	if got := Size(1, 2); got != want {
		t.Fatalf("Size(1, 2) = %d, want %d (short %v)", got, want, testing.Short())
	}
}
