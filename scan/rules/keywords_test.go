package rules

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// naiveHits finds every occurrence of every pattern by comparing at every
// offset, folding ASCII case.
func naiveHits(patterns []string, text []byte) []hit {
	var want []hit
	folded := []byte(foldString(string(text)))
	for end := 1; end <= len(text); end++ {
		for p, pat := range patterns {
			if end >= len(pat) && string(folded[end-len(pat):end]) == pat {
				want = append(want, hit{p, end})
			}
		}
	}
	return want
}

func sortHits(h []hit) {
	slices.SortFunc(h, func(a, b hit) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return a.pattern - b.pattern
	})
}

// TestFindReportsEveryOccurrenceInEveryMode checks keywordDFA.find against
// a naive search: with the pair filter on text where candidates are rare,
// with the hand-over to the automaton where they are dense, and with the
// automaton alone (a single-byte pattern, or a Scratch that remembers a
// dense buffer). Each pattern's hits must come in order of their ends.
func TestFindReportsEveryOccurrenceInEveryMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	alphabets := map[string]string{
		"dense":  "abAB_-é\n",
		"sparse": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.-\n\t\xc4\xb0\xe2\x84\xaa",
	}
	iters := 300
	if testing.Short() {
		iters = 60
	}
	for name, alphabet := range alphabets {
		word := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteByte(alphabet[rng.IntN(len(alphabet))])
			}
			return b.String()
		}
		for i := range iters {
			var patterns []string
			minLen := 2
			if i%5 == 0 {
				minLen = 1 // a single-byte pattern: no pair filter
			}
			for range 1 + rng.IntN(8) {
				patterns = append(patterns, foldString(word(minLen+rng.IntN(5))))
			}
			d := newKeywordDFA(patterns)
			var st keywordScan
			if i%7 == 0 {
				st.dense = 1 // a dense buffer was seen just before
			}
			text := []byte(word(rng.IntN(4) * 3000))
			got := d.find(text, nil, &st)
			for p := range patterns {
				var ends []int
				for _, h := range got {
					if h.pattern == p {
						ends = append(ends, h.end)
					}
				}
				if !slices.IsSorted(ends) {
					t.Fatalf("%s case %d: hits of pattern %q not in end order", name, i, patterns[p])
				}
			}
			want := naiveHits(patterns, text)
			sortHits(got)
			sortHits(want)
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("%s case %d: patterns %q: got %d hits, want %d", name, i, patterns, len(got), len(want))
			}
		}
	}
}

// TestFindHandsDenseBuffersToTheAutomaton checks the bookkeeping of the
// choice: a buffer dense in candidates sets the Scratch to use the
// automaton alone for the next denseBuffers buffers, and a sparse one
// leaves it on the filter.
func TestFindHandsDenseBuffersToTheAutomaton(t *testing.T) {
	d := newKeywordDFA([]string{"ab", "xyz"})
	cases := []struct {
		name      string
		text      string
		wantDense int
	}{
		{"sparse", strings.Repeat("the quick brown fox jumps over the lazy dog. ", 200), 0},
		{"dense", strings.Repeat("abab xyz ", 1000), denseBuffers},
	}
	for _, c := range cases {
		var st keywordScan
		d.find([]byte(c.text), nil, &st)
		if st.dense != c.wantDense {
			t.Errorf("%s: dense = %d, want %d", c.name, st.dense, c.wantDense)
		}
	}
}
