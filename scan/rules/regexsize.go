package rules

import (
	"fmt"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file refuses regular expressions too large to run, before any
// engine sees them. The standard library compiles whatever it parses, in
// time and memory linear in the program, and its NFA then spends time
// proportional to the program on every byte; go-re2 compiles to byte
// automata, where a Unicode class costs a node per UTF-8 byte range:
// `\pL{1000}`, nine bytes of text and 1,002 instructions for the standard
// library, is 1.2 million RE2 instructions, and RE2 then prints "DFA out
// of memory" to the process's standard error and falls back to a slower
// engine. So a regex is bounded twice: by its length, which bounds the
// parser, and by an estimate of its compiled size counted in UTF-8 byte
// ranges, which bounds both engines. Calibrated against the memory RE2
// needs to compile each regex of the built-in rules and gitleaks' (found
// by bisecting go-re2's memory limit), the estimate is within a factor
// of about two of RE2's own instruction count, either way; the largest,
// a JWT regex with three {10,1000} repeats, estimates at 18,000.

const (
	// maxRegexLen is the longest regex a config may hold, in bytes.
	// gitleaks' longest pattern is 1.1 KB.
	maxRegexLen = 32 << 10
	// maxRegexSize bounds regexSize. RE2 gives up building its DFA near
	// 300,000 instructions (with go-re2's memory budget), five times what
	// this allows even where the estimate is low.
	maxRegexSize = 50_000
)

// parseBoundedRegex parses expr as the standard library does, refusing it
// if it is longer than maxRegexLen or would compile to more than
// maxRegexSize instructions. what names it in the problem returned
// ("regex", "path regex"); problem is "" when it is fine.
func parseBoundedRegex(what, expr string) (re *syntax.Regexp, problem string) {
	if len(expr) > maxRegexLen {
		return nil, fmt.Sprintf("%s too long: %d bytes (at most %d)", what, len(expr), maxRegexLen)
	}
	re, err := parseRegex(expr)
	if err != nil {
		return nil, "invalid " + what + ": " + regexErrText(err)
	}
	if n := regexSize(re); n > maxRegexSize {
		return nil, fmt.Sprintf("%s too large: it compiles to about %d instructions (at most %d)", what, n, maxRegexSize)
	}
	return re, ""
}

// emptyMatchProblem refuses a rule regex that can match the empty string.
// gitleaks reports such a match as a finding with an empty secret, one at
// every position of the text where it matches empty (16 findings in a
// 17-byte file for `a*`); that is never a secret, and the regex would
// scan every byte of every file. No rule of the built-in set or of
// gitleaks' can match empty.
func emptyMatchProblem(re *syntax.Regexp) string {
	if canMatchEmpty(re) {
		return "regex can match the empty string, which would be an empty finding at every position it matches; make it match at least one character"
	}
	return ""
}

// canMatchEmpty reports whether re can match the empty string at some
// position of some text. Zero-width assertions are taken to hold (some
// text has a word boundary, a line start, ...), so it may say yes for a
// regex whose assertions contradict each other, which then matches
// nothing at all.
func canMatchEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return canMatchEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || canMatchEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !canMatchEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if canMatchEmpty(sub) {
				return true
			}
		}
	}
	return false
}

// sizeCap is where regexSize stops counting, far above any limit, so
// that nested repeats cannot overflow it.
const sizeCap = 1 << 40

// regexSize estimates the instructions re compiles to, counting each
// UTF-8 byte range as one, as RE2 does. RE2 shares common suffixes of
// byte sequences (fewer instructions) and spends an instruction per
// range of a class (more); the standard library's program is never
// larger, since it matches a whole class in one instruction.
func regexSize(re *syntax.Regexp) int {
	add := func(a, b int) int { return min(a+b, sizeCap) }
	mul := func(a, n int) int {
		if n == 0 {
			return 0
		}
		if a > sizeCap/n {
			return sizeCap
		}
		return a * n
	}
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n = add(n, literalSize(r, re.Flags&syntax.FoldCase != 0))
		}
		return max(n, 1)
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n = add(n, utf8RangeSize(re.Rune[i], re.Rune[i+1]))
		}
		return max(n, 1)
	case syntax.OpAnyChar:
		return utf8RangeSize(0, unicode.MaxRune)
	case syntax.OpAnyCharNotNL:
		return utf8RangeSize(0, '\n'-1) + utf8RangeSize('\n'+1, unicode.MaxRune)
	case syntax.OpCapture:
		return add(regexSize(re.Sub[0]), 2)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return add(regexSize(re.Sub[0]), 1)
	case syntax.OpRepeat:
		// x{n,m} compiles to n copies of x and m-n optional ones, x{n,}
		// to n copies and a loop.
		sub := regexSize(re.Sub[0])
		if re.Max < 0 {
			return add(mul(add(sub, 1), max(re.Min, 1)), 1)
		}
		return add(mul(add(sub, 1), max(re.Max, 1)), 1)
	case syntax.OpConcat, syntax.OpAlternate:
		n := 1
		for _, sub := range re.Sub {
			n = add(n, add(regexSize(sub), 1))
		}
		return n
	}
	return 1 // empty-width assertions, the empty match, no match
}

// literalSize is the byte ranges of one literal rune: its UTF-8 bytes, or
// under case folding those of every rune it folds to ('k' matches K, k
// and the Kelvin sign).
func literalSize(r rune, fold bool) int {
	n := utf8.RuneLen(max(r, 0))
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n += utf8.RuneLen(f)
		}
	}
	return max(n, 1)
}

// utf8RangeSize is how many byte ranges match the runes lo..hi in UTF-8:
// the range is cut where the encoded length changes, then into runs that
// share every leading byte but the last that varies (the construction
// RE2 and the standard library's UTF-8 tables use), and each run costs
// one range per byte.
func utf8RangeSize(lo, hi rune) int {
	n := 0
	for size, top := range [...]rune{0x7f, 0x7ff, 0xffff, unicode.MaxRune} {
		if lo > hi {
			break
		}
		if lo > top {
			continue
		}
		n += (size + 1) * utf8Runs(lo, min(hi, top), size+1)
		lo = top + 1
	}
	return n
}

// utf8Runs counts the runs of lo..hi, all runes of the same encoded
// length n, that are each a sequence of byte ranges.
func utf8Runs(lo, hi rune, n int) int {
	for i := 1; i < n; i++ {
		m := rune(1)<<(6*i) - 1
		if lo&^m == hi&^m {
			continue
		}
		if lo&m != 0 {
			return utf8Runs(lo, lo|m, n) + utf8Runs((lo|m)+1, hi, n)
		}
		if hi&m != m {
			return utf8Runs(lo, (hi&^m)-1, n) + utf8Runs(hi&^m, hi, n)
		}
	}
	return 1
}
