package rules

import (
	"regexp"
	"regexp/syntax"
	"sync"
	"sync/atomic"
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
	test, find                  *formSet
}

// formSet is a regex in every window form (indexed as in compileForms),
// compiled by the standard library (std) and, when go-re2 is the faster
// engine for it, by go-re2 too (fast), once the rule has given the
// standard library enough text that go-re2's cost to compile pays off.
// go-re2 compiles a regex in about a millisecond and builds its DFA
// state by state as texts reach them; the standard library compiles in
// tens of microseconds and matches short texts at once. Most rules that
// a history meets at all see a few windows of a few hundred bytes, and
// for them go-re2's start-up was most of what matching cost: on
// gitleaks' own history (112 of gitleaks' rules met), a scan spent 0.6 s
// of CPU in the rules' regexes, 0.3 s of it compiling and warming up the
// go-re2 forms of rules that then matched a few kilobytes. So a rule
// matches with the standard library until the bytes it gave it, times
// its program's size, reach switchWork; go-re2 takes over from there.
// go-re2 cannot match invalid UTF-8 as the standard library does (see
// matcher): such text stays with std.
type formSet struct {
	std    [4]matcher
	engine engine // the engine fast is compiled with; the standard library's: none
	fast   atomic.Pointer[[4]matcher]
	work   atomic.Int64 // the bytes std matched, times cost
	once   sync.Once
	// What compiling fast needs.
	expr string
	tree *syntax.Regexp
	a    assertions
	cost int64 // the size of the standard library's program, at least 1
}

// switchWork is how much text, weighted by program size, a rule's regex
// matches with the standard library before go-re2 compiles it: for
// gitleaks' generic-api-key (554 instructions) about 7 KB, for a rule of
// 50 instructions 80 KB; either costs the standard library about as much
// as compiling and warming up go-re2's forms.
const switchWork = 4 << 20

// newFormSet returns the forms of expr (tree), std compiled already, fast
// to compile with e when the work done calls for it.
func newFormSet(std [4]matcher, e engine, expr string, tree *syntax.Regexp, a assertions) *formSet {
	f := &formSet{std: std, engine: e, expr: expr, tree: tree, a: a, cost: 1}
	if e != engineStdlib {
		if prog, err := syntax.Compile(tree.Simplify()); err == nil {
			f.cost = int64(max(1, len(prog.Inst)))
		}
	}
	return f
}

// pick returns form v for a text of n bytes; valid says whether the text
// is valid UTF-8, and is called only when it matters.
func (f *formSet) pick(v, n int, valid func() bool) matcher {
	if f.engine == engineStdlib {
		return f.std[v]
	}
	fast := f.fast.Load()
	if fast == nil && f.work.Add(int64(n)*f.cost) >= switchWork {
		f.once.Do(f.compileFast)
		fast = f.fast.Load()
	}
	if fast != nil && valid() {
		return fast[v]
	}
	return f.std[v]
}

// compileFast compiles the fast forms. go-re2 is not the reference, so if
// it rejects a regex the standard library accepted, the standard
// library's forms, which give the same matches, go on.
func (f *formSet) compileFast() {
	if fast, err := compileForms(f.engine, f.expr, f.tree, f.a, nil); err == nil {
		f.fast.Store(&fast)
	}
}

// validity returns a func for pick that reports whether text is valid
// UTF-8 and remembers it in *known (-1: not known yet).
func validity(text []byte, known *int8) func() bool {
	return func() bool {
		if *known < 0 {
			*known = b2i8(utf8.Valid(text))
		}
		return *known == 1
	}
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
			r.lazy.test = r.findForms()
			return
		}
		expr := regexText(core, false, false)
		std, err := compileForms(engineStdlib, expr, core, r.asserts, nil)
		if err != nil {
			r.lazy.test = r.findForms() // unreachable; the regex itself decides as well
			return
		}
		r.lazy.test = newFormSet(std, chooseEngine(r.choice, core), expr, core, r.asserts)
	})
	return r.lazy.test
}

// findForms returns the rule's regex in every form.
func (r *rule) findForms() *formSet {
	r.lazy.findOnce.Do(func() {
		r.stdForms()
		r.lazy.find = newFormSet(r.lazy.std, r.engine, r.source, r.tree, r.asserts)
	})
	return r.lazy.find
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
