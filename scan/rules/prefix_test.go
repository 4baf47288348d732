package rules

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"
)

func TestLazyPrefixOfRecognizesOnlyLazyASCIIPrefixes(t *testing.T) {
	cases := []struct {
		expr string
		max  int // -2: not recognized
	}{
		{`(?i)[\w.-]{0,50}?(?:key|token)[ \t]*=[ \t]*([a-z0-9]{16})`, 50},
		{`[a-z]*?secret=[0-9]{8}`, -1},
		{`x{0,3}?yz`, 3},
		{`(?i)k{0,3}?yz`, 3},                       // U+212A is rare, left out
		{`[\w.-]{0,50}(?:key|token)=[0-9]{8}`, -2}, // greedy
		{`[é\w]{0,50}?key=[0-9]{8}`, -2},           // not ASCII
		{`[\w.-]{0,50}?key=[0-9]{8}[ \t]*`, -2},    // a trailing part is dropped too
		{`[\w.-]{0,50}?\b`, -2},                    // the rest can match empty
		{`key=[0-9]{8}`, -2},                       // no prefix
		{`(?:ab){0,3}?cd`, -2},                     // not one character
	}
	for _, c := range cases {
		p, ok := lazyPrefixOf(mustParse(t, c.expr))
		switch {
		case c.max == -2 && ok:
			t.Errorf("%s: recognized a lazy prefix of %d", c.expr, p.max)
		case c.max != -2 && !ok:
			t.Errorf("%s: no lazy prefix, want one of %d", c.expr, c.max)
		case ok && p.max != c.max:
			t.Errorf("%s: prefix of %d, want %d", c.expr, p.max, c.max)
		}
	}
}

// TestLazyPrefixFindsWhatTheRegexFinds checks the argument of prefix.go on
// every rule with a lazy prefix (most of gitleaks' rules): the matches of
// the core, moved left over the prefix, are the regex's matches, in every
// window form, on text without rare runes.
func TestLazyPrefixFindsWhatTheRegexFinds(t *testing.T) {
	texts := 30
	if testing.Short() {
		texts = 6
	}
	rules, matches := 0, 0
	for _, d := range []*Detector{defaultDetector(t), trickyDetector(t), gitleaksDetector(t)} {
		g := gen{rand.New(rand.NewPCG(13, 14))}
		trees := ruleTrees(t, d)
		for i, r := range d.rules {
			if r.PathOnly || r.prefix == nil || !r.stdForms() {
				continue
			}
			rules++
			test := r.testForms()
			for k := range texts {
				text := g.corpus(d.rules[i:i+1], trees[i:i+1], 50+30*k, false)
				for v := range 4 {
					var got [][]int
					matchesIn(r, text, v, -1, 0, func(m0, m1 int) { got = append(got, []int{m0, m1}) })
					want := r.lazy.std[v].FindAllIndex(text, -1)
					matches += len(want)
					if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
						t.Fatalf("rule %s, form %d, text %q:\ngot  %v\nwant %v (core engine %d)", r.ID, v, text, got, want, test.engine)
					}
				}
			}
		}
	}
	if rules == 0 || matches < rules {
		t.Errorf("%d rules with a lazy prefix, %d matches checked", rules, matches)
	}
}

// TestLiteralPrefixIsTheStandardLibrarys checks literalPrefix, which
// picks a rule's engine, against regexp's LiteralPrefix on every rule of
// the built-in set and of gitleaks' config, and on their match cores.
func TestLiteralPrefixIsTheStandardLibrarys(t *testing.T) {
	for _, d := range []*Detector{defaultDetector(t), gitleaksDetector(t)} {
		for _, r := range d.rules {
			if r.PathOnly {
				continue
			}
			trees := []*syntax.Regexp{r.tree}
			if core, ok := matchCore(r.tree); ok {
				trees = append(trees, core)
			}
			for _, tree := range trees {
				want, _ := regexp.MustCompile(tree.String()).LiteralPrefix()
				if got := literalPrefix(tree); got != want {
					t.Errorf("%s: %s: literalPrefix %q, LiteralPrefix %q", r.ID, tree, got, want)
				}
			}
		}
	}
}

// TestSubmatchesAreTheReferences checks rule.submatches, which asks a
// lazy-prefix rule's core for a match's groups, against the reference
// regex: the groups (what finish takes a secret from) and the end are the
// same; the start of the whole match, group 0, may differ, since the core
// leaves out the prefix. It checks every match of every such rule of the
// built-in set and of gitleaks' config in gitleaks' rule examples (an
// eighth of them with -short), and those matches with a rare rune or a
// byte >= 0x80 in front.
func TestSubmatchesAreTheReferences(t *testing.T) {
	var texts [][]byte
	for i, f := range gitleaksExampleFiles() {
		if testing.Short() && i%8 != 0 {
			continue
		}
		texts = append(texts, []byte(f.text))
	}
	compared := 0
	for _, d := range []*Detector{defaultDetector(t), gitleaksDetector(t)} {
		s := d.NewScratch()
		for _, text := range texts {
			slow := s.prefilter(text)
			for _, r := range d.rules {
				if r.PathOnly || r.prefix == nil {
					continue
				}
				s.rawMatches(r, text, slow, func(m0, m1 int) {
					match := text[m0:m1]
					for _, variant := range [][]byte{match, append([]byte("\u017f"), match...), append([]byte("\xff"), match...)} {
						compared++
						got, want := r.submatches(variant), r.reference().FindSubmatchIndex(variant)
						if len(got) != len(want) || len(got) > 0 && (got[1] != want[1] || !slices.Equal(got[2:], want[2:])) {
							t.Errorf("%s: submatches(%q) = %v, reference %v", r.ID, variant, got, want)
						}
					}
				})
			}
		}
	}
	if compared < 5000 {
		t.Errorf("only %d matches compared", compared)
	}
	t.Logf("%d matches compared", compared)
}
