package git

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
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

// TestGroupChangesWhenHashesCollide: changes are grouped into units by a
// 64-bit hash of what makes them distinct, and by comparing them where
// two share a hash. With a hash that makes every change collide, the
// units are the same as with the real one: the same changes, each with
// the commits that make it, in the same order; merges never grouped.
func TestGroupChangesWhenHashesCollide(t *testing.T) {
	id := func(b byte) odb.ID { var x odb.ID; x[0] = b; return x }
	mk := func(path string, old, new byte, mode odb.Mode) change {
		return change{path: path, oldID: id(old), newID: id(new), oldMode: mode, newMode: mode}
	}
	merge := change{path: "a", newID: id(9), newMode: odb.ModeFile, parents: []parentFile{{id(1), odb.ModeFile}, {}}}
	results := []commitResult{
		{changes: []change{mk("a", 1, 2, odb.ModeFile), mk("b", 1, 2, odb.ModeFile)}},
		{changes: []change{mk("a", 1, 2, odb.ModeFile), merge, mk("a", 1, 2, odb.ModeSymlink)}},
		{changes: []change{mk("b", 1, 2, odb.ModeFile), merge, mk("a", 1, 2, odb.ModeExecutable), mk("a", 2, 1, odb.ModeFile)}},
	}
	group := func() []string {
		h := &history{commits: make([]*commit, len(results)), tainted: make([]bool, len(results)), todo: []int32{0, 1, 2}}
		for i := range h.commits {
			h.commits[i] = &commit{}
		}
		if n := h.groupChanges(results); n != 9 {
			t.Fatalf("%d changes, want 9", n)
		}
		var out []string
		for _, u := range h.units {
			out = append(out, fmt.Sprintf("%s %x>%x %o merge=%v %v", u.path, u.oldID[0], u.newID[0], u.newMode, u.parents != nil, u.commits))
		}
		return out
	}
	want := group()
	defer func(f func(*unitKey, maphash.Seed) uint64) { unitHash = f }(unitHash)
	unitHash = func(*unitKey, maphash.Seed) uint64 { return 7 }
	got := group()
	if !slices.Equal(got, want) {
		t.Fatalf("with colliding hashes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// a 1>2 file at commits 0 and 1; the executable one is the same kind
	// (a file), so it joins them; b at 0 and 2; the link, the reverse
	// change and the two merges are units of their own.
	if len(want) != 6 || want[0] != "a 1>2 100644 merge=false [0 1 2]" || want[1] != "b 1>2 100644 merge=false [0 2]" {
		t.Fatalf("units:\n%s", strings.Join(want, "\n"))
	}
}
