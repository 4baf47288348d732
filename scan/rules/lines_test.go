package rules

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// plainLine is gitleaks' line for a finding, computed by searching the
// buffer as gitleaks does: the reference for Scratch.gitleaksLine.
func plainLine(data []byte, start, end int) (lo, hi int) {
	if bytes.IndexByte(data, '\n') < 0 {
		return 0, len(data)
	}
	if start+1 > len(data) || bytes.IndexByte(data[start+1:], '\n') < 0 {
		hi = end
		for hi < len(data) && data[hi] != '\n' && data[hi] != '\r' {
			hi++
		}
		return 0, hi
	}
	lo = max(bytes.LastIndexByte(data[:start+1], '\n'), 0)
	hi = end
	if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
		hi = end + i
	}
	return lo, hi
}

// TestLineQueriesAnswerLikeAPlainSearch checks every line question of the
// index against a plain search, at every offset of random buffers: with
// and without newlines, with '\r', with inline-allow markers, and with
// questions in and out of order (the '\r' memo must not leak).
func TestLineQueriesAnswerLikeAPlainSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	pieces := []string{"a", "b c", "\n", "\r", "\r\n", "gitleaks:allow", "spindle:allow", "gitleaks:al", "\n\n"}
	iters := 300
	if testing.Short() {
		iters = 60
	}
	for it := range iters {
		var b bytes.Buffer
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if it%4 == 0 {
			b = *bytes.NewBuffer(bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte(" "))) // one line
		}
		data := b.Bytes()
		s := &Scratch{}
		for q := range 3 * (len(data) + 1) {
			start := q % (len(data) + 1)
			if q >= len(data)+1 {
				start = rng.IntN(len(data) + 1) // out of order
			}
			end := min(len(data), start+rng.IntN(4))
			if rng.IntN(5) == 0 {
				end = max(0, start-rng.IntN(3)) // end before start: a match of newlines only
			}
			lo, hi := s.gitleaksLine(data, start, end)
			if wlo, whi := plainLine(data, start, end); lo != wlo || hi != whi {
				t.Fatalf("data %q, start %d, end %d: line [%d,%d), want [%d,%d)", data, start, end, lo, hi, wlo, whi)
			}
			if hi >= lo {
				want := bytes.Contains(data[lo:hi], gitleaksAllow) || bytes.Contains(data[lo:hi], spindleAllow)
				if got := s.inlineAllowed(data, lo, hi); got != want {
					t.Fatalf("data %q, line [%d,%d): inline allow %v, want %v", data, lo, hi, got, want)
				}
			}
			if got, want := s.lineEnd(data, start), bytes.IndexByte(data[start:], '\n'); (want < 0 && got != len(data)) || (want >= 0 && got != start+want) {
				t.Fatalf("data %q: lineEnd(%d) = %d", data, start, got)
			}
			if got, want := s.lineStart(data, start), bytes.LastIndexByte(data[:start], '\n')+1; got != want {
				t.Fatalf("data %q: lineStart(%d) = %d, want %d", data, start, got, want)
			}
			if got, want := s.newlinesBefore(data, start), bytes.Count(data[:start], []byte{'\n'}); got != want {
				t.Fatalf("data %q: newlinesBefore(%d) = %d, want %d", data, start, got, want)
			}
		}
	}
}
