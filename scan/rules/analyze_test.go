package rules

import (
	"math/rand/v2"
	"reflect"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestRareRunesComplete proves rareRunes lists every rune on which ASCII
// folding and Go's case handling disagree: runes that strings.ToLower maps
// to text containing ASCII, and runes whose case-folding orbit contains an
// ASCII letter.
func TestRareRunesComplete(t *testing.T) {
	if testing.Short() {
		t.Skip("walks all of Unicode")
	}
	var found []rune
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		rare := false
		for _, c := range []byte(strings.ToLower(string(r))) {
			rare = rare || c < utf8.RuneSelf
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			rare = rare || f < utf8.RuneSelf
		}
		if rare {
			found = append(found, r)
		}
	}
	if !slices.Equal(found, rareRunes) {
		t.Errorf("rare runes %U, list has %U", found, rareRunes)
	}
}

// TestKeywordAutomatonFindsEveryOccurrence compares the automaton with a
// naive search for every pattern at every offset, case-insensitively for
// ASCII, on buffers long enough to use both scanning streams.
func TestKeywordAutomatonFindsEveryOccurrence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "abAB_-é\n"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	iters := 200
	if testing.Short() {
		iters = 30
	}
	for i := range iters {
		var patterns []string
		for range 1 + rng.IntN(12) {
			patterns = append(patterns, foldString(word(1+rng.IntN(6))))
		}
		d := newKeywordDFA(patterns)
		text := []byte(word(rng.IntN(9) * 100)) // one chain and four
		var want []hit
		folded := []byte(foldString(string(text)))
		for end := 1; end <= len(text); end++ {
			for p, pat := range patterns {
				if end >= len(pat) && string(folded[end-len(pat):end]) == pat {
					want = append(want, hit{p, end})
				}
			}
		}
		var spare lateHits
		got := d.scanDFA(text, 0, nil, &spare)
		sortHits := func(h []hit) {
			slices.SortFunc(h, func(a, b hit) int {
				if a.end != b.end {
					return a.end - b.end
				}
				return a.pattern - b.pattern
			})
		}
		if !slices.IsSortedFunc(got, func(a, b hit) int { return a.end - b.end }) {
			t.Fatalf("case %d: hits not in end order", i)
		}
		sortHits(got)
		sortHits(want)
		if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("case %d: patterns %q: got %d hits, want %d", i, patterns, len(got), len(want))
		}
	}
}

func parse(t *testing.T, expr string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

func TestExactSetFoldsAndExpandsSmallSets(t *testing.T) {
	cases := map[string][]string{
		`abc`:                {"abc"},
		`(?i)aBc`:            {"abc"},
		`[Aa]pi`:             {"api"},
		`x[_.-]?y`:           {"x-y", "x.y", "x_y", "xy"},
		`(?:ab|cd)e`:         {"abe", "cde"},
		`A{3}`:               {"aaa"},
		`(?i)k`:              {"k"}, // the Kelvin sign is left to the slow path
		`é`:                  {"é"},
		`[a-z]`:              nil,
		`a*`:                 nil,
		`a.b`:                nil,
		"\\x{FFFD}":          nil, // stands for any invalid byte too
		`\bkey\b`:            {"key"},
		`[^\x00-\x{10FFFF}]`: {},
	}
	for expr, want := range cases {
		got := newAnalyzer().exactSet(parse(t, expr))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("exactSet(%s) = %q, want %q", expr, got, want)
		}
	}
}

func TestKeywordAnchoringProvesKeywordsInEveryMatch(t *testing.T) {
	cases := []struct {
		expr     string
		keywords []string
		want     bool
	}{
		{`ghp_[A-Za-z0-9]{36}`, []string{"ghp_"}, true},
		{`(?i)\b(AKIA|ASIA|A3T[A-Z0-9])[A-Z2-7]{16}\b`, []string{"akia", "asia", "a3t"}, true},
		{`(?i)api[_-]?key=\w+`, []string{"api_key", "api-key", "apikey"}, true},
		{`(?i)api[_.-]?key=\w+`, []string{"api_key", "api-key", "apikey"}, false}, // "api.key" is not a keyword
		{`[0-9]{4}-[0-9]{4}`, []string{"card"}, false},
		{`(?:token|secret)=\w+|pw=\w+`, []string{"token", "secret"}, false},
		{`x?(?:key)+`, []string{"key"}, true},
		{`(?:key)*`, []string{"key"}, false},
	}
	for _, c := range cases {
		_, got := newAnalyzer().keywordAnchoring(parse(t, c.expr), containsKeyword(c.keywords))
		if got != c.want {
			t.Errorf("%s with %q: %v, want %v", c.expr, c.keywords, got, c.want)
		}
	}
}

func TestReachBoundsTheMatchAroundTheKeyword(t *testing.T) {
	cases := []struct {
		expr        string
		left, right bound
	}{
		// left counts back from the keyword's end, right on from its start.
		{`\bghp_[a-z]{36}\b`, bound{bytesReach(4), bytesReach(4)}, bound{bytesReach(40), {steps: []int{4, 0}}}},
		{`x{0,3}key[^\n]*`, bound{bytesReach(6), bytesReach(6)}, bound{{steps: []int{3, 0}}, {steps: []int{3, 0}}}},
		{`BEGIN[\s\S]*END`, bound{bytesReach(5), bytesReach(5)}, bound{infReach, infReach}},
	}
	for _, c := range cases {
		a, ok := newAnalyzer().keywordAnchoring(parse(t, c.expr), containsKeyword([]string{"ghp_", "key", "begin"}))
		if !ok {
			t.Errorf("%s: no anchoring", c.expr)
			continue
		}
		if !reflect.DeepEqual(a.left, c.left) || !reflect.DeepEqual(a.right, c.right) {
			t.Errorf("%s: left %v right %v, want %v %v", c.expr, a.left, a.right, c.left, c.right)
		}
	}
}

func TestDerivedAnchoringPicksSelectiveLiterals(t *testing.T) {
	cases := map[string][]string{
		`\b[a-z]{2}_live_[0-9a-f]{6}`: {"_live_"},
		`-----BEGIN [A-Z]+ KEY-----`:  {"-----begin "},
		`[0-9]+(?:foo|bar)`:           {"bar", "foo"},
		`[a-z]+[0-9]+`:                nil,
		`[A-Z]{3}[0-9]{3}`:            nil,
	}
	for expr, want := range cases {
		a, ok := newAnalyzer().derivedAnchoring(parse(t, expr))
		if !ok || literalScore(a.set) < minAnchorScore {
			a.set = nil // Compile scans the whole buffer instead
		}
		if !reflect.DeepEqual(a.set, want) {
			t.Errorf("%s: %q, want %q", expr, a.set, want)
		}
	}
}

// TestAnchorFilters checks which rules get the anchor-hit filters and
// what they test: startsAtWordBoundary (an anchor occurrence after a word
// byte starts no match) and followAfterAnchor (what must follow a match's
// anchor element). The equivalence tests (word-start and semi-generic in
// trickyTOML, the built-in rules and gitleaks') check the results they
// give against the whole-buffer regex.
func TestAnchorFilters(t *testing.T) {
	for _, c := range []struct {
		regex     string
		anchors   []string
		wordStart bool
		follow    string // "max skip|next" for a few probe bytes, "" for none
	}{
		{`\b(ey[a-z0-9]{17,})`, []string{"ey"}, true, ""}, // unbounded after the anchor
		{`\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))`, []string{"hvs.", "s."}, true, ""},
		{`(?i)\b(?:ab|cd)x`, []string{"ab", "cd"}, true, "0 |x"},
		{`\b-tok[0-9]{4}`, []string{"-tok"}, false, ""},         // the anchor starts with a non-word byte
		{`\bkey[0-9]{4}|ey[0-9]{4}`, []string{"ey"}, false, ""}, // a branch without \b
		{`[\w.-]{0,50}?(?i:(?:key|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3})(?:=|:)([a-z0-9]{16})`, []string{"key", "token"}, false, "23  a0x|=:"},
		{`key[a-z]*=x`, []string{"key"}, false, ""},      // unbounded
		{`key[a-z=]{0,3}=x`, []string{"key"}, false, ""}, // = is both skipped and next
		{`key[^\n]{0,3}=x`, []string{"key"}, false, ""},  // non-ASCII in the skip class
	} {
		tree, err := syntax.Parse(c.regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		an := newAnalyzer()
		if got := an.startsAtWordBoundary(tree, c.anchors); got != c.wordStart {
			t.Errorf("%s: startsAtWordBoundary %v, want %v", c.regex, got, c.wordStart)
		}
		f := an.followAfterAnchor(tree, c.anchors)
		got := ""
		if f != nil {
			got = strconv.Itoa(f.max)
			var skip, next string
			for _, b := range []byte(" a0=:|x") {
				if f.skip[b] {
					skip += string(b)
				}
				if f.next[b] {
					next += string(b)
				}
			}
			if skip != "" || next != "" {
				got += " " + skip + "|" + next
			}
		}
		if got != c.follow {
			t.Errorf("%s: follow %q, want %q", c.regex, got, c.follow)
		}
	}
	f := newAnalyzer().followAfterAnchor(mustParse(t, `[\w.-]{0,50}?(?i:(?:key)(?:[ \t\w.-]{0,3})[\s'"]{0,1})(?:=|:)([a-z0-9]{4})`), []string{"key"})
	for _, c := range []struct {
		text string
		ok   bool
	}{
		// The test is necessary, not sufficient: "key_idx=" has four bytes
		// of the classes before '=', though not in the order they come.
		{"key=", true}, {"key  : ", true}, {"key_id ='", true}, {"key_i\"=", true}, {"key_idx=", true},
		{"key_idx =", false}, {"key", false}, {"key)", false}, {"key\u00e9=", false}, {"key -", false},
	} {
		if got := f.ok([]byte(c.text), 3); got != c.ok {
			t.Errorf("follow.ok(%q) = %v, want %v", c.text, got, c.ok)
		}
	}
}
