package rules

import (
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
