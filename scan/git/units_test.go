package git

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
)

// TestChangedRegionHoldsEveryAddedLine: for random pairs of files made of
// few distinct lines (so that git's diff has many equal lines to slide
// over), blank lines, indentation and missing final newlines, every line a
// hunk of git's diff adds lies within changedRegion. The history scan
// skips a change whose region holds no keyword; this is why that loses
// nothing.
func TestChangedRegionHoldsEveryAddedLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a\n", "b\n", "\n", "  a\n", "\tb\n", "}\n", "{\n", "key = x\n", "c"}
	var d linediff.Differ
	n := 20000
	if testing.Short() {
		n = 3000
	}
	for i := range n {
		old := randomText(rng, alphabet, rng.IntN(30))
		new := mutate(rng, old, alphabet)
		if i%7 == 0 {
			new = strings.TrimSuffix(new, "\n")
		}
		nb := []byte(new)
		region := changedRegion([]byte(old), nb)
		lo := regionOffset(nb, region) // region is a subslice of nb
		hi := lo + len(region)
		starts := lineStarts(nb, nil)
		for _, h := range d.Diff([]byte(old), nb, nil) {
			if h.NewLines == 0 {
				continue
			}
			a, b := starts[h.NewStart], starts[h.NewStart+h.NewLines]
			if a < lo || b > hi {
				t.Fatalf("old %q\nnew %q\nhunk %+v adds [%d,%d) outside the region [%d,%d) %q", old, new, h, a, b, lo, hi, region)
			}
		}
	}
}

func randomText(rng *rand.Rand, alphabet []string, n int) string {
	var b strings.Builder
	for range n {
		l := alphabet[rng.IntN(len(alphabet))]
		if !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		b.WriteString(l)
	}
	return b.String()
}

// mutate inserts, deletes and replaces a few runs of lines.
func mutate(rng *rand.Rand, text string, alphabet []string) string {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for range 1 + rng.IntN(3) {
		at := rng.IntN(len(lines) + 1)
		switch rng.IntN(3) {
		case 0:
			ins := strings.SplitAfter(randomText(rng, alphabet, 1+rng.IntN(4)), "\n")
			ins = ins[:len(ins)-1]
			lines = append(lines[:at], append(ins, lines[at:]...)...)
		case 1:
			if at < len(lines) {
				end := min(len(lines), at+1+rng.IntN(3))
				lines = append(lines[:at], lines[end:]...)
			}
		default:
			if at < len(lines) {
				lines[at] = alphabet[rng.IntN(len(alphabet))]
				if !strings.HasSuffix(lines[at], "\n") {
					lines[at] += "\n"
				}
			}
		}
	}
	return strings.Join(lines, "")
}

// regionOffset returns the offset of sub (a subslice of b) in b.
func regionOffset(b, sub []byte) int {
	if len(sub) == 0 {
		// An empty region: any added line is outside it; place it past
		// the end so the test fails on any.
		return len(b) + 1
	}
	for i := 0; i+len(sub) <= len(b); i++ {
		if &b[i] == &sub[0] {
			return i
		}
	}
	panic("not a subslice")
}
