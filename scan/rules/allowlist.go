package rules

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// allowlist is a compiled Allowlist. Its semantics follow gitleaks:
//
//   - Condition OR: a file whose path matches is skipped (for the rule, or
//     entirely for a global allowlist), and a finding is dropped if a regex
//     matches its target or its secret contains a stop word.
//   - Condition AND: every check present (commits, paths, regexes, stop
//     words) must pass. A commit never passes in a directory scan.
//   - Regexes are combined into one alternation, textually, like gitleaks;
//     a regex "passes" only if its leftmost match is non-empty.
type allowlist struct {
	and       bool
	commits   bool            // has commits: such AND allowlists never pass in Scan
	commitSet map[string]bool // the commits, for CommitAllows
	paths     *pathRegex
	regexes   matcher
	target    string   // "secret", "match" or "line"
	stopCheck bool     // has stop words
	stopText  []string // lower-cased, for secrets that are not ASCII
	// stopwords is the automaton of the folded stop words, built on the
	// first secret it must judge: gitleaks' global allowlist has about
	// 1,500 of them, a third of the time compiling its configuration
	// took, and a scan that finds nothing never needs them.
	stopwords *lazyKeywords

	// filter says whether regexes match a text at all, for a large
	// program (see regexPasses); nil for a small one.
	filter *lazyFilter
}

// lazyFilter is a pathRegex of an allowlist's regexes, compiled on first
// use: it answers whether the regexes match a text anywhere exactly as
// the standard library does, running only the alternatives whose
// literals the text holds (path.go). Safe for concurrent use.
type lazyFilter struct {
	expr string
	once sync.Once
	re   *pathRegex // nil if it did not compile (it cannot: the regex did)
}

// lazyKeywords is a keyword automaton built on first use. Safe for
// concurrent use.
type lazyKeywords struct {
	words []string
	once  sync.Once
	dfa   *keywordDFA
}

// get returns the automaton, building it the first time.
func (k *lazyKeywords) get() *keywordDFA {
	k.once.Do(func() { k.dfa = newKeywordDFA(k.words) })
	return k.dfa
}

// matches reports whether the regexes match text somewhere; true when
// the filter is unavailable.
func (f *lazyFilter) matches(text []byte) bool {
	f.once.Do(func() { f.re, _ = compilePathRegex(f.expr) })
	return f.re == nil || f.re.MatchString(string(text))
}

func compileAllowlist(a Allowlist, global bool) (*allowlist, string) {
	if p := validateAllowlist(&a, global); p != "" {
		return nil, p
	}
	c := &allowlist{
		and:       a.Condition == "AND",
		commits:   len(a.Commits) > 0,
		target:    a.RegexTarget,
		stopCheck: len(a.StopWords) > 0,
	}
	for _, id := range a.Commits {
		if c.commitSet == nil {
			c.commitSet = map[string]bool{}
		}
		c.commitSet[id] = true
	}
	var err error
	if len(a.Paths) > 0 {
		if c.paths, err = compilePathRegex(joinAlternatives(a.Paths)); err != nil {
			return nil, "invalid path regex: " + regexErrText(err)
		}
	}
	if len(a.Regexes) > 0 {
		expr := joinAlternatives(a.Regexes)
		tree, err := parseRegex(expr)
		if err != nil {
			return nil, "invalid regex: " + regexErrText(err)
		}
		if c.regexes, err = compileRegex(expr); err != nil {
			return nil, "invalid regex: " + regexErrText(err)
		}
		if largeProgram(tree) {
			c.filter = &lazyFilter{expr: expr}
		}
	}
	var words []string
	for _, w := range a.StopWords {
		if w = strings.ToLower(w); w != "" {
			c.stopText = append(c.stopText, w)
			words = append(words, foldString(w))
		}
	}
	if len(words) > 0 {
		c.stopwords = &lazyKeywords{words: words}
	}
	return c, ""
}

// skipsFile reports whether the allowlist excludes path before any content
// is read: an OR allowlist whose path regex matches, or an AND allowlist
// with only path checks that all pass.
func (a *allowlist) skipsFile(path string) bool {
	pathOK := a.paths != nil && a.paths.MatchString(path)
	if !a.and {
		return pathOK
	}
	if a.regexes != nil || a.stopCheck || a.commits {
		return false // decided per finding (or never, for commits)
	}
	return a.paths != nil && pathOK
}

// fileAllowed reports whether any of the rule's allowlists excludes path.
func fileAllowed(list []*allowlist, path string) bool {
	if path == "" {
		return false
	}
	for _, a := range list {
		if a.skipsFile(path) {
			return true
		}
	}
	return false
}

// regexPasses is gitleaks' RegexAllowed: false for an empty target, else
// whether the leftmost match is non-empty.
func (a *allowlist) regexPasses(target []byte) bool {
	if a.regexes == nil || len(target) == 0 {
		return false
	}
	// A large program runs on the standard library's NFA, at a cost per
	// byte that grows with it (gitleaks' generic-api-key has an
	// allowlist of some 2,000 instructions, run on each candidate's
	// match); most texts hold no literal of any of its alternatives.
	if a.filter != nil && !a.filter.matches(target) {
		return false
	}
	loc := a.regexes.FindIndex(target)
	return loc != nil && loc[1] > loc[0]
}

// hasStopword reports whether secret contains a stop word, comparing in
// lower case.
func (a *allowlist) hasStopword(secret []byte) bool {
	if len(a.stopText) == 0 || len(secret) == 0 {
		return false
	}
	ascii := true
	for _, c := range secret {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii && a.stopwords != nil {
		// The automaton folds ASCII, which is strings.ToLower on ASCII text.
		return a.stopwords.get().first(secret) >= 0
	}
	lower := strings.ToLower(string(secret))
	for _, w := range a.stopText {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// dropsFinding reports whether the allowlist drops a finding whose line
// is data[lineLo:lineHi].
func (a *allowlist) dropsFinding(s *Scratch, path string, secret, match, data []byte, lineLo, lineHi int) bool {
	regexPasses := func() bool {
		switch a.target {
		case "match":
			return a.regexPasses(match)
		case "line":
			return s.lineRegexPasses(a, data, lineLo, lineHi)
		}
		return a.regexPasses(secret)
	}
	if !a.and {
		return a.hasStopword(secret) || regexPasses() // the cheap check first
	}
	if a.commits {
		return false
	}
	if a.paths != nil && (path == "" || !a.paths.MatchString(path)) {
		return false
	}
	if a.regexes != nil && !regexPasses() {
		return false
	}
	if a.stopCheck && !a.hasStopword(secret) {
		return false
	}
	return true
}

// lineVerdict remembers whether an allowlist's regexes pass on a line.
type lineVerdict struct {
	a      *allowlist
	lo, hi int
	passes bool
}

// lineRegexPasses is a.regexPasses(data[lo:hi]) for a finding's line,
// remembered: every finding on a line asks the same question, and a line
// can be the whole buffer (a minified file), which a regex would otherwise
// read once per finding. The memory holds the last few answers and is
// cleared for each buffer.
func (s *Scratch) lineRegexPasses(a *allowlist, data []byte, lo, hi int) bool {
	for _, v := range s.lineVerdicts {
		if v.a == a && v.lo == lo && v.hi == hi {
			return v.passes
		}
	}
	passes := a.regexPasses(data[lo:hi])
	if len(s.lineVerdicts) == cap(s.lineVerdicts) && len(s.lineVerdicts) >= 8 {
		copy(s.lineVerdicts, s.lineVerdicts[1:])
		s.lineVerdicts = s.lineVerdicts[:len(s.lineVerdicts)-1]
	}
	s.lineVerdicts = append(s.lineVerdicts, lineVerdict{a, lo, hi, passes})
	return passes
}

// The inline suppressions (see Scratch.inlineAllowed).
var (
	gitleaksAllow = []byte("gitleaks:allow")
	spindleAllow  = []byte("spindle:allow")
)
