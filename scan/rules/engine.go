package rules

import (
	"regexp"
	"regexp/syntax"
	"sync"
	"unicode"
	"unicode/utf8"

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
func chooseEngine(pref engine, tree *syntax.Regexp) engine {
	if pref != engineAuto {
		return pref
	}
	if !re2Usable() {
		return engineStdlib
	}
	if literalPrefix(tree) != "" {
		return engineStdlib
	}
	return engineRE2
}

// re2Usable reports, once per process, whether go-re2 can run here (see
// re2Fits): a scan under a virtual-memory limit of a few GiB matches with
// the standard library alone.
var re2Usable = sync.OnceValue(re2Fits)

// literalPrefix returns the literal text every match of tree starts
// with, as the standard library's LiteralPrefix gives it for the regex:
// literal runes from the start (case-folded ones only if they have no
// other case), through captures and nested concatenations, up to the
// first node that is anything else.
// TestLiteralPrefixIsTheStandardLibrarys holds it to LiteralPrefix.
func literalPrefix(tree *syntax.Regexp) string {
	var b []rune
	var walk func(re *syntax.Regexp) bool // false: the prefix ends here
	walk = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpLiteral:
			for _, c := range re.Rune {
				// A case-folded rune without other cases ('<', '-')
				// compiles to a plain one.
				if re.Flags&syntax.FoldCase != 0 && unicode.SimpleFold(c) != c {
					return false
				}
				b = append(b, c)
			}
			return true
		case syntax.OpCapture:
			return walk(re.Sub[0])
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				if !walk(sub) {
					return false
				}
			}
			return true
		case syntax.OpEmptyMatch:
			return true
		}
		return false
	}
	walk(tree)
	return string(b)
}

// lazyRef holds a rule's reference regex, compiled on first use.
type lazyRef struct {
	once sync.Once
	re   matcher
}

// reference returns the rule's regex compiled by the standard library,
// compiling it on the first call. Safe for concurrent use.
func (r *rule) reference() matcher {
	r.ref.once.Do(func() {
		re, err := compileRegex(r.source)
		if err != nil {
			// Compile parsed the regex with the flags the standard
			// library compiles it with, so this cannot happen.
			panic("rules: " + r.ID + ": " + err.Error())
		}
		r.ref.re = re
	})
	return r.ref.re
}

// submatches returns the leftmost match of the rule's regex in text,
// with its groups, as reference().FindSubmatchIndex(text) does: what
// finish takes a match's secret from. For a rule of the form X{0,n}? C
// (prefix.go) whose regex is not one capture group, it asks C instead, on
// ASCII text: C's leftmost match is where the regex's C part matches (the
// argument of prefix.go, from a search at the text's start), X holds no
// group, so C's groups, numbered alike, are the regex's; and C is the
// smaller program (gitleaks' generic-api-key: 454 instructions against
// 554), small enough for the standard library's backtracker rather than
// its NFA, several times faster on a match's few dozen bytes. Text with a
// byte >= 0x80 may hold a rune that (?i) adds to X, which the lazy prefix
// leaves out, so it gets the regex itself.
func (r *rule) submatches(text []byte) []int {
	if r.prefix != nil && r.tree.Op != syntax.OpCapture && isASCII(text) {
		if core := r.testForms().std[0]; core != nil {
			return core.FindSubmatchIndex(text)
		}
	}
	return r.reference().FindSubmatchIndex(text)
}

// isASCII reports whether b holds only bytes below 0x80.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lazyForms are the compiled regexes of a rule that Compile does not
// build: the window forms, the go-re2 forms and the match core. Compiling
// them for every rule would be most of what Compile costs (go-re2
// compiles several times slower than the standard library, some
// hundredfold under the race detector, and a window form is compiled from
// its syntax tree's String(), which is slow on large regexes), and most
// rules never need a regex on a given tree: on the Go source tree, under
// 50 of gitleaks' 222 rules get a window that holds their run. So each
// rule builds them when it first needs them, in parts, each under a
// sync.Once: std, the window forms of the reference; test, the forms that
// decide whether a text holds a match (the match core's, see matchCore,
// or the regex's own if it has none), when a window first gets that far;
// find, the forms that locate the matches, when a test first succeeds. A
// Detector costs little more than parsing and compiling its regexes once.
type lazyForms struct {
	stdOnce, testOnce, findOnce sync.Once
	std                         [4]matcher // nil if a window form did not compile
	test, find                  formSet
}

// formSet is a regex in every window form (indexed as in compileForms),
// compiled by the engine chosen for speed (fast) and by the standard
// library (std), which go-re2 needs on invalid UTF-8 (see matcher).
type formSet struct {
	fast, std [4]matcher
	engine    engine // fast's
}

// pick returns form v for a text; valid says whether the text is valid
// UTF-8, and needs to be computed only when f.engine is not the standard
// library.
func (f *formSet) pick(v int, valid bool) matcher {
	if f.engine != engineStdlib && !valid {
		return f.std[v]
	}
	return f.fast[v]
}

// stdForms returns the window forms of the reference regex, building them
// on the first call, or false if one does not compile (it cannot happen:
// a window form is the regex with some anchors replaced by a node that
// never matches; the caller then scans the whole buffer, which needs only
// the regex itself). Safe for concurrent use, as are testForms and
// findForms, which may be called only after stdForms returned true.
func (r *rule) stdForms() bool {
	r.lazy.stdOnce.Do(func() {
		if std, err := compileForms(engineStdlib, r.source, r.tree, r.asserts, r.reference()); err == nil {
			r.lazy.std = std
		}
	})
	return r.lazy.std[0] != nil
}

// testForms returns the forms that decide whether a text holds a match of
// the rule, building them on the first call.
func (r *rule) testForms() *formSet {
	r.lazy.testOnce.Do(func() {
		core, ok := matchCore(r.tree)
		if !ok {
			r.lazy.test = *r.findForms()
			return
		}
		expr := regexText(core, false, false)
		std, err := compileForms(engineStdlib, expr, core, r.asserts, nil)
		if err != nil {
			r.lazy.test = *r.findForms() // unreachable; the regex itself decides as well
			return
		}
		r.lazy.test = compileFast(formSet{fast: std, std: std, engine: engineStdlib},
			chooseEngine(r.choice, core), expr, core, r.asserts)
	})
	return &r.lazy.test
}

// findForms returns the rule's regex in every form, building the fast
// ones on the first call.
func (r *rule) findForms() *formSet {
	r.lazy.findOnce.Do(func() {
		r.stdForms()
		r.lazy.find = compileFast(formSet{fast: r.lazy.std, std: r.lazy.std, engine: engineStdlib},
			r.engine, r.source, r.tree, r.asserts)
	})
	return &r.lazy.find
}

// compileFast sets f's fast forms to expr compiled by e. go-re2 is not the
// reference, so if it rejects a regex the standard library accepted, f
// keeps the standard library's forms, which give the same matches.
func compileFast(f formSet, e engine, expr string, tree *syntax.Regexp, a assertions) formSet {
	if e == engineStdlib {
		return f
	}
	if fast, err := compileForms(e, expr, tree, a, nil); err == nil {
		f.fast, f.engine = fast, e
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

// maxBacktrackInsts is the largest program the standard library matches
// with its backtracker (regexp's maxBacktrackProg); a larger one runs on
// its NFA, whose cost per byte grows with the program: on gitleaks'
// generic-api-key (554 instructions) about 8,000 instructions per byte of
// text, a third of a millisecond for one finding's secret.
const maxBacktrackInsts = 500

// largeProgram reports whether the standard library runs tree on its NFA.
func largeProgram(tree *syntax.Regexp) bool {
	prog, err := syntax.Compile(tree.Simplify())
	return err == nil && len(prog.Inst) > maxBacktrackInsts
}
