package linediff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/spindle-go/spindle/internal/lincheck"
)

// The complexity checks of the line diff (internal/lincheck): the diff
// of two files of n bytes against that of 8n, on the shapes that make a
// diff work hardest.
//
//	go test -run '^TestLinear' -count 1 ./scan/git/internal/linediff          # full sizes
//	go test -short -run '^TestLinear' -count 1 ./scan/git/internal/linediff   # CI's
//
// Git's Myers search with its heuristics is not linear: it stops a box's
// search after about √N edits (N the lines searched), so a box costs up
// to N·√N, 8^1.5 ≈ 23× at 8n. Diff must reproduce git's hunks exactly, so
// the bound here is that of git's algorithm: slack 4 (32× at 8n) where
// quadratic would be 64×. (git diff --no-index on the few-classes shape
// took 0.03, 1.2 and 16.9 s at 32 KiB, 256 KiB and 2 MiB.)

type diffPair struct{ a, b []byte }

// linesOf writes lines line(i) until n bytes.
func linesOf(n int, line func(i int) string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		b.WriteString(line(i))
	}
	return b.Bytes()
}

// diffShapes are pairs of files of about n bytes; scale divides n for
// the shapes that are costly per byte.
var diffShapes = []struct {
	name  string
	scale int
	make  func(n int) diffPair
}{
	{"equal-lines-one-inserted", 1, func(n int) diffPair {
		a := bytes.Repeat([]byte("x\n"), n/2)
		b := append(append(append([]byte{}, a[:n/2]...), "y\n"...), a[n/2:]...)
		return diffPair{a, b}
	}},
	{"distinct-lines-few-changes", 1, func(n int) diffPair {
		a := linesOf(n, func(i int) string { return fmt.Sprintf("line %d of the file\n", i) })
		b := bytes.Clone(a)
		for _, at := range []int{len(b) / 5, len(b) / 2, 4 * len(b) / 5} {
			b[at] = '#'
		}
		return diffPair{a, b}
	}},
	{"every-tenth-line-changed", 1, func(n int) diffPair {
		a := linesOf(n, func(i int) string { return fmt.Sprintf("value %d\n", i) })
		b := linesOf(n, func(i int) string {
			if i%10 == 0 {
				return fmt.Sprintf("other %d\n", i)
			}
			return fmt.Sprintf("value %d\n", i)
		})
		return diffPair{a, b}
	}},
	{"nothing-in-common", 1, func(n int) diffPair {
		return diffPair{
			linesOf(n, func(i int) string { return fmt.Sprintf("a%d\n", i) }),
			linesOf(n, func(i int) string { return fmt.Sprintf("b%d\n", i) }),
		}
	}},
	{"alternating-swapped", 1, func(n int) diffPair {
		return diffPair{bytes.Repeat([]byte("a\nb\n"), n/4), bytes.Repeat([]byte("b\na\n"), n/4)}
	}},
	{"few-classes-random", 8, func(n int) diffPair {
		r := rand.New(rand.NewPCG(1, 2))
		pick := func(int) string { return []string{"{\n", "}\n", "\n", "x\n"}[r.IntN(4)] }
		return diffPair{linesOf(n, pick), linesOf(n, pick)}
	}},
	{"block-moved", 1, func(n int) diffPair {
		a := linesOf(n, func(i int) string { return fmt.Sprintf("f%d()\n", i) })
		cut := bytes.IndexByte(a[len(a)/2:], '\n') + len(a)/2 + 1
		return diffPair{a, append(append([]byte{}, a[cut:]...), a[:cut]...)}
	}},
	{"one-long-line", 1, func(n int) diffPair {
		a := bytes.Repeat([]byte("k"), n)
		b := bytes.Clone(a)
		b[n/2] = 'j'
		return diffPair{a, b}
	}},
}

func TestLinearDiff(t *testing.T) {
	n := lincheck.Size(32<<10, 256<<10)
	for _, sh := range diffShapes {
		t.Run(sh.name, func(t *testing.T) {
			var d Differ
			var hunks []Hunk
			lincheck.Check(t, n/sh.scale, sh.make, func(p diffPair) { hunks = d.Diff(p.a, p.b, hunks[:0]) },
				lincheck.Options{Slack: 4, NoAllocs: true})
		})
	}
}

func TestLinearSimilarity(t *testing.T) {
	n := lincheck.Size(64<<10, 1<<20)
	for _, sh := range diffShapes {
		t.Run(sh.name, func(t *testing.T) {
			// Signatures take their scratch from a sync.Pool, which a
			// collection empties: what one call allocates depends on when
			// the last collection ran, so only time is compared.
			lincheck.Check(t, n, sh.make, func(p diffPair) {
				Similarity(NewSignature(p.a), NewSignature(p.b), 0)
			}, lincheck.Options{NoAllocs: true})
		})
	}
}
