package linediff

import (
	"os"
	"slices"
	"sync"
	"testing"
)

var fuzzDiffers = sync.Pool{New: func() any { return new(Differ) }}

// FuzzDiff checks that Diff's hunks are ordered, separated, in range and
// turn the old input into the new one. With LINEDIFF_FUZZ_GIT set (and git
// on PATH) it also compares them with git's, one git run per input.
func FuzzDiff(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nc\nd\n"))
	f.Add([]byte(""), []byte("x"))
	f.Add([]byte("x\r\ny"), []byte("x\ny\n"))
	withGit := os.Getenv("LINEDIFF_FUZZ_GIT") != ""
	f.Fuzz(func(t *testing.T, a, b []byte) {
		d := fuzzDiffers.Get().(*Differ)
		defer fuzzDiffers.Put(d)
		hunks := d.Diff(a, b, nil)
		if err := checkHunks(a, b, hunks); err != nil {
			t.Fatalf("%v\n%s", err, formatHunks(hunks))
		}
		if err := checkSpans(d, b, hunks); err != nil {
			t.Fatal(err)
		}
		if withGit && !IsBinary(a) && !IsBinary(b) {
			want, binary := gitHunks(t, []pair{{"fuzz", a, b}})
			if !binary[0] && formatHunks(want[0]) != formatHunks(hunks) {
				t.Fatalf("hunks differ from git's\n got: %s\nwant: %s", formatHunks(hunks), formatHunks(want[0]))
			}
		}
	})
}

// FuzzSimilarity checks that scores stay in range, that a blob is wholly
// similar to itself when every byte of it is in a complete span, and that
// SizesAllow's verdict holds.
func FuzzSimilarity(f *testing.F) {
	f.Add([]byte("a\nb\n"), []byte("a\nc\n"), 30000)
	f.Add([]byte("\x00\r\n"), []byte("x\r\n"), 0)
	f.Fuzz(func(t *testing.T, a, b []byte, minScore int) {
		if minScore < 0 || minScore > MaxScore {
			return
		}
		sa, sb := NewSignature(a), NewSignature(b)
		if !slices.Equal(sa.spans, referenceSignature(a, false)) {
			t.Fatalf("spans of %q differ from the byte-at-a-time rule's", a)
		}
		s := Similarity(sa, sb, minScore)
		if s < 0 || s > MaxScore {
			t.Fatalf("score %d out of range", s)
		}
		if s > 0 && !SizesAllow(int64(len(a)), int64(len(b)), minScore) {
			t.Fatalf("score %d for sizes SizesAllow rejects", s)
		}
		if len(a) > 0 && a[len(a)-1] == '\n' && !IsBinary(a) && !containsCR(a) {
			if got := Similarity(sa, sa, minScore); got != MaxScore {
				t.Fatalf("self-similarity %d", got)
			}
		}
	})
}

func containsCR(b []byte) bool {
	for _, c := range b {
		if c == '\r' {
			return true
		}
	}
	return false
}
