package rules

import (
	"regexp"

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
// it to compare engines. Allowlist and path regexes always use the
// standard library: they run on short strings, where its low per-call cost
// wins.
var ruleEngine = engineAuto

// chooseEngine picks the engine for a rule's regex. The standard library
// has the lowest cost per call and, when the regex starts with a literal,
// skips to it with a fast substring search, which makes it several times
// faster than go-re2 on such rules. Everywhere else go-re2's DFA wins: its
// cost does not grow with the size of the program (gitleaks'
// generic-api-key compiles to 554 instructions and runs 2.7 times faster
// under RE2) or with long windows (curl-auth-user, 143 instructions, whose
// windows reach to the buffer's end: 5.6 times faster). Measured per rule
// on Go source; see doc.go.
func chooseEngine(expr string) engine {
	if ruleEngine != engineAuto {
		return ruleEngine
	}
	if re, err := regexp.Compile(expr); err == nil {
		if prefix, _ := re.LiteralPrefix(); prefix != "" {
			return engineStdlib
		}
	}
	return engineRE2
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
