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
// it to compare engines. Allowlist and path regexes always use the
// standard library: they run on short strings, where its low per-call cost
// wins.
var ruleEngine = engineAuto

// re2MinInsts is the program size from which a rule's regex goes to RE2
// when it has no literal prefix. Below it, or with a literal prefix (which
// the standard library finds with a fast substring search), the standard
// library is faster on the short windows the detector runs regexes on;
// above it, the standard library's NFA slows down in proportion to the
// program while RE2's DFA does not. Measured on Go source; see doc.go.
const re2MinInsts = 150

// chooseEngine picks the engine for a rule's regex.
func chooseEngine(expr string, tree *syntax.Regexp) engine {
	if ruleEngine != engineAuto {
		return ruleEngine
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil || len(prog.Inst) < re2MinInsts {
		return engineStdlib
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
