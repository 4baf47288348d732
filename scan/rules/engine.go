package rules

import (
	"regexp"
	"regexp/syntax"

	re2 "github.com/wasilibs/go-re2"
)

// matcher is the part of a compiled regular expression the detector uses.
// The standard library's *regexp.Regexp satisfies it, and so does go-re2's
// *re2.Regexp. Both implement RE2 syntax with leftmost-first semantics;
// they differ on invalid UTF-8, where the standard library reads each bad
// byte as U+FFFD (matched by "." and negated classes) and RE2 matches
// nothing, so go-re2 only ever sees valid UTF-8 (see rawMatches).
type matcher interface {
	Match(b []byte) bool
	MatchString(s string) bool
	FindIndex(b []byte) []int
	FindAllIndex(b []byte, n int) [][]int
	FindSubmatchIndex(b []byte) []int
	NumSubexp() int
}

// engine names a regex implementation.
type engine int

const (
	engineAuto   engine = iota // choose per rule (see chooseEngine)
	engineStdlib               // regexp
	engineRE2                  // github.com/wasilibs/go-re2
)

// ruleEngine is the engine rule regexes use; tests and benchmarks override
// it to compare engines. It is engineAuto, except under the race detector
// (see race.go): go-re2 runs RE2 as Go code translated from WebAssembly,
// which the race detector slows down about a hundredfold, so race-enabled
// builds, the test binaries of every package that scans, match with the
// standard library only. The findings are the same either way (go-re2 is
// only ever a faster engine for the same matches). Allowlist and path
// regexes always use the standard library: they run on short strings,
// where its low per-call cost wins.
var ruleEngine = defaultEngine

// chooseEngine picks the engine for a regex, given the preference
// (ruleEngine) and its standard-library compilation. The standard library
// has the lowest cost per call and, when the regex starts with a literal,
// skips to it with a fast substring search, which makes it several times
// faster than go-re2 on such rules. Everywhere else go-re2's DFA wins: its
// cost does not grow with the size of the program (gitleaks'
// generic-api-key compiles to 554 instructions and runs 2.7 times faster
// under RE2) or with long windows (curl-auth-user, 143 instructions, whose
// windows reach to the buffer's end: 5.6 times faster). Measured per rule
// on Go source; see doc.go.
func chooseEngine(pref engine, std matcher) engine {
	if pref != engineAuto {
		return pref
	}
	if re, ok := std.(*regexp.Regexp); ok {
		if prefix, _ := re.LiteralPrefix(); prefix != "" {
			return engineStdlib
		}
	}
	return engineRE2
}

// lazyForms are the regexes of a rule that Compile does not build: the
// go-re2 forms and the match core. Compiling them for every rule is most
// of what Compile used to cost (go-re2 compiles several times slower than
// the standard library, some hundredfold under the race detector), and
// most rules never run on a given tree: on the Go source tree, 30 of
// gitleaks' 222 rules open a window. So each rule builds them on its first
// run (rule.forms, under a sync.Once), and a Detector costs little more
// than parsing its regexes.
//
// Every field is indexed by window form, as rule.std is. fast holds the
// rule's regex compiled by the engine chosen for speed (rule.engine); it
// is std itself when that is the standard library. test decides whether
// a window holds a match at all (see matchCore), with testStd as its
// standard-library fallback for invalid UTF-8 and testEngine its engine.
type lazyForms struct {
	fast          [4]matcher
	fastEngine    engine
	test, testStd [4]matcher
	testEngine    engine
}

// finder returns the form v of the rule's regex for finding matches in a
// text, valid saying whether the text is valid UTF-8 (go-re2 is used only
// on valid text; see matcher).
func (f *lazyForms) finder(r *rule, v int, valid bool) matcher {
	if f.fastEngine != engineStdlib && !valid {
		return r.std[v]
	}
	return f.fast[v]
}

// tester returns the form v of the match core (or of the regex), for
// deciding whether a text holds a match, as finder does.
func (f *lazyForms) tester(v int, valid bool) matcher {
	if f.testEngine != engineStdlib && !valid {
		return f.testStd[v]
	}
	return f.test[v]
}

// needsValidity reports whether finder or tester depend on the text being
// valid UTF-8.
func (f *lazyForms) needsValidity() bool {
	return f.fastEngine != engineStdlib || f.testEngine != engineStdlib
}

// forms returns the rule's lazily built regexes, building them on the
// first call. Safe for concurrent use.
func (r *rule) forms() *lazyForms {
	r.once.Do(func() { r.lazy = r.buildForms() })
	return r.lazy
}

// buildForms compiles the lazy forms. go-re2 is not the reference, so a
// regex it rejects (the standard library accepted it at Compile) is run
// by the standard library instead, which gives the same matches; the
// same goes for a match core that does not compile.
func (r *rule) buildForms() *lazyForms {
	f := &lazyForms{fast: r.std, fastEngine: engineStdlib}
	if r.engine != engineStdlib {
		if fast, err := compileForms(r.engine, r.source, r.tree, r.asserts); err == nil {
			f.fast, f.fastEngine = fast, r.engine
		}
	}
	f.test, f.testStd, f.testEngine = f.fast, r.std, f.fastEngine
	if core, ok := matchCore(r.tree); ok {
		expr := core.String()
		if std, err := compileForms(engineStdlib, expr, core, r.asserts); err == nil {
			f.testStd, f.test, f.testEngine = std, std, chooseEngine(r.choice, std[0])
			if f.testEngine != engineStdlib {
				if test, err := compileForms(f.testEngine, expr, core, r.asserts); err == nil {
					f.test = test
				} else {
					f.testEngine = engineStdlib
				}
			}
		}
	}
	return f
}

// matchCore returns the part of re that decides whether re matches at
// all: re with the leading and trailing elements of its top-level
// concatenation removed that can match the empty string at any position
// (a star, a question mark, a {0,n} repeat: `[\w.-]{0,50}?` at the front
// of gitleaks' generic-api-key). A match of re contains a match of the
// core; a match of the core extends to one of re by letting the removed
// elements match empty. So re matches a text exactly when the core does,
// and the core, smaller and without the counters that the removed parts
// add to every state, is cheaper to run and to build a DFA for: a cold
// go-re2 spends 340 ms deciding generic-api-key's windows on the Go
// source tree, and 50 ms with its core. Zero-width assertions are kept,
// since they do not hold everywhere. false if nothing can be removed, or
// everything could.
func matchCore(re *syntax.Regexp) (*syntax.Regexp, bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil, false
	}
	subs := re.Sub
	for len(subs) > 0 && nullableEverywhere(subs[0]) {
		subs = subs[1:]
	}
	for len(subs) > 0 && nullableEverywhere(subs[len(subs)-1]) {
		subs = subs[:len(subs)-1]
	}
	if len(subs) == 0 || len(subs) == len(re.Sub) {
		return nil, false
	}
	if len(subs) == 1 {
		return subs[0], true
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}, true
}

// nullableEverywhere reports whether re can match the empty string at any
// position, whatever the text around it.
func nullableEverywhere(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || nullableEverywhere(re.Sub[0])
	case syntax.OpCapture, syntax.OpPlus:
		return nullableEverywhere(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !nullableEverywhere(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if nullableEverywhere(sub) {
				return true
			}
		}
	}
	return false
}

// compileWith compiles expr with the given engine.
func compileWith(e engine, expr string) (matcher, error) {
	if e == engineRE2 {
		re, err := re2.Compile(expr)
		if err != nil {
			return nil, err
		}
		return re, nil
	}
	return compileRegex(expr)
}

// compileRegex compiles an expression with the standard library.
func compileRegex(expr string) (matcher, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return re, nil
}
