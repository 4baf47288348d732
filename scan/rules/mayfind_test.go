package rules

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mayFindTok is the keyword rule both MayFind tests start from.
const mayFindTok = `
[[rules]]
id = "tok"
regex = '''tok_[0-9a-f]{16}'''
keywords = ["tok_"]
`

// TestMayFindIsFalseOnlyWhenScanFindsNothing: over texts with and without
// keywords, encoded text and rare runes, MayFind never says false where
// Scan reports something, and says false for plain text.
func TestMayFindIsFalseOnlyWhenScanFindsNothing(t *testing.T) {
	d := mustDetector(t, mayFindTok+`
[[rules]]
id = "keyfile"
path = '''\.pem$'''
`)
	s := d.NewScratch()
	cases := []struct {
		path, text string
		may        bool
	}{
		{"a.go", "package main\nfunc main() {}\n", false},
		{"a.go", "x := \"tok_0123456789abcdef\"\n", true},
		{"a.go", "TOK_ in upper case\n", true},
		{"a.go", "", false},
		{"key.pem", "no keyword here\n", true},
		// base64 of "tok_0123456789abcdef": decoding could find it.
		{"a.go", "v = dG9rXzAxMjM0NTY3ODlhYmNkZWY=\n", true},
		{"a.go", "Kelvin K and long s ſ but no keyword\n", false},
	}
	for _, c := range cases {
		got := s.MayFind(c.path, []byte(c.text))
		if got != c.may {
			t.Errorf("MayFind(%q, %q) = %v, want %v", c.path, c.text, got, c.may)
		}
		found := 0
		d.Scan(s, c.path, []byte(c.text), func(Match) { found++ })
		s.ScanPath(c.path, func(Match) { found++ })
		if found > 0 && !got {
			t.Errorf("MayFind(%q, %q) = false, but Scan found %d", c.path, c.text, found)
		}
	}
	// Random-ish text built from keyword pieces never contradicts Scan.
	pieces := []string{"tok", "_", "0123456789abcdef", "TOK_", " ", "\n", "dG9r", "K", "ſ", "=="}
	for i := range 2000 {
		var b strings.Builder
		for j := 0; j < 12; j++ {
			b.WriteString(pieces[(i*7+j*13+i*j)%len(pieces)])
		}
		text := []byte(b.String())
		found := 0
		d.Scan(s, "a.txt", text, func(Match) { found++ })
		if found > 0 && !s.MayFind("a.txt", text) {
			t.Fatalf("MayFind false for %q, Scan found %d", text, found)
		}
	}
}

// TestMayFindWithARuleWithoutKeywords: a rule without keywords runs on
// every text, so MayFind is true on text holding no keyword at all; and
// false again once that rule is only a required part, never reported.
func TestMayFindWithARuleWithoutKeywords(t *testing.T) {
	for _, c := range []struct {
		extra string
		may   bool
	}{
		{"", true},
		{"skipReport = true\n", false},
	} {
		d := mustDetector(t, mayFindTok+`
[[rules]]
id = "digits"
regex = '''\b[0-9]{12}\b'''
`+c.extra)
		s := d.NewScratch()
		text := []byte("id = 123456789012\n")
		if got := s.MayFind("a.txt", text); got != c.may {
			t.Errorf("%q: MayFind = %v, want %v", c.extra, got, c.may)
		}
		found := 0
		d.Scan(s, "a.txt", text, func(Match) { found++ })
		if found > 0 != c.may {
			t.Errorf("%q: Scan found %d", c.extra, found)
		}
	}
}

// referenceMayFind decides what MayFind decides by one search of all of
// data for every keyword occurrence, then every rule's gate: the oracle
// for gateHit's early stop.
func referenceMayFind(s *Scratch, path string, data []byte) bool {
	s.setPath(path)
	if s.skip {
		return false
	}
	d := s.d
	for _, i := range d.pathOnly {
		if s.active[i] {
			return true
		}
	}
	if len(data) == 0 {
		return false
	}
	slow := s.prefilter(data)
	if slow || len(s.hits) > 0 || d.ungated {
		for _, r := range d.rules {
			if r.PathOnly || r.skipReport || !s.active[r.index] {
				continue
			}
			if s.gateOpen(r, data, slow) {
				return true
			}
		}
	}
	return d.decodeDepth > 0 && len(d.enc.findCandidates(data, 0, len(data), nil)) > 0
}

// TestMayFindAgreesWithOneSearch: MayFind, which searches data in pieces
// and stops at the first keyword that opens an active rule's gate, says
// what one search of all of data says, with keywords placed across the
// pieces' edges, rules that a path turns off, a non-ASCII keyword and rare
// runes; decoding on and off.
func TestMayFindAgreesWithOneSearch(t *testing.T) {
	const cfg = mayFindTok + `
[[rules]]
id = "pw"
regex = '''passw[o0]rd\s*=\s*\S{8,}'''
keywords = ["password", "passw0rd"]
[rules.allowlist]
paths = ['''\.md$''']

[[rules]]
id = "ru"
regex = '''пароль=\S+'''
keywords = ["пароль"]

[[rules]]
id = "only-go"
path = '''\.go$'''
regex = '''zzkey[0-9]{4}'''
keywords = ["zzkey"]
`
	rng := rand.New(rand.NewPCG(7, 29))
	words := []string{"tok_", "TOK_", "password", "PassW0rd", "пароль", "ПАРОЛЬ", "zzkey", "K", "ſ", "İ", "dG9rXzAxMjM0NTY3ODlhYmNkZWY="}
	edges := []int{1 << 10, 3 << 10, 7 << 10, 15 << 10, 31 << 10}
	n := 3000
	if testing.Short() {
		n = 400
	}
	for _, depth := range []int{-1, 0} {
		d := mustDetectorWith(t, cfg, Settings{MaxDecodeDepth: depth})
		s, ref := d.NewScratch(), d.NewScratch()
		for i := range n {
			size := rng.IntN(40 << 10)
			text := []byte(strings.Repeat("lorem ipsum dolor sit amet\n", size/27+1))[:size]
			for range rng.IntN(3) {
				w := words[rng.IntN(len(words))]
				at := rng.IntN(len(text) + 1)
				if rng.IntN(2) == 0 {
					// Across an edge of the pieces.
					at = edges[rng.IntN(len(edges))] - rng.IntN(len(w)+1)
				}
				if at < 0 || at+len(w) > len(text) {
					continue
				}
				copy(text[at:], w)
			}
			path := []string{"a.go", "b.txt", "c.md"}[i%3]
			if got, want := s.MayFind(path, text), referenceMayFind(ref, path, text); got != want {
				t.Fatalf("depth %d, %s, %d bytes: MayFind = %v, one search says %v", depth, path, len(text), got, want)
			}
		}
	}
}

// TestMayFindAgreesWithOneSearchOnBuiltinRules: the same on this
// repository's own files with the built-in rules, whole and cut at random.
func TestMayFindAgreesWithOneSearchOnBuiltinRules(t *testing.T) {
	d, err := Compile(Default())
	if err != nil {
		t.Fatal(err)
	}
	s, ref := d.NewScratch(), d.NewScratch()
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	err = filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || n >= 400 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, cut := range [][]byte{data, data[rng.IntN(len(data)+1):]} {
			if got, want := s.MayFind(path, cut), referenceMayFind(ref, path, cut); got != want {
				t.Fatalf("%s (%d bytes): MayFind = %v, one search says %v", path, len(cut), got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
