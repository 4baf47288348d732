package rules

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file lets a rule of the form X{0,n}? C, where X is one ASCII
// character class, find its matches with C alone. gitleaks writes most of
// its service rules that way (`[\w.-]{0,50}?(?:adafruit)(?:[ \t\w.-]{0,20})
// ...`, and generic-api-key), and the lazy counter at the front is what
// makes RE2's DFA for such a regex expensive: it counts the X bytes before
// every keyword-like run, which multiplies the states, each built at a
// cost of microseconds the first time it is reached. On the Go source
// tree, go-re2 spent 240 ms of CPU warming up the DFAs of generic-api-key
// alone to locate matches in 498 windows, in every process. C, the match
// core (see matchCore), has no such counter.
//
// The matches of R = X{0,n}? C, as FindAll reports them (leftmost-first,
// each search starting where the last match ended), follow from C's:
//
//   - A search from pos finds R's leftmost match start s. R matches from s'
//     exactly when C matches at some q >= s' with text[s':q] a run of at
//     most n X bytes. Let c be the leftmost position >= pos where C
//     matches, and s(c) the leftmost s' >= pos from which a run of at most
//     n X bytes reaches c. No q > c does better: a run from s' < s(c) to q
//     would contain one from s' to c, shorter, so s(c) would not be
//     leftmost. So s = s(c).
//   - From s, the lazy X{0,n}? tries the fewest X bytes first, and C
//     matches at no position between s and c (c is the leftmost), so the
//     match is text[s:c] followed by C's preferred match at c: the one C's
//     own leftmost-first search from pos reports, (c, e).
//   - C cannot match the empty string, so neither can R, and both searches
//     continue from e: the next match of R comes from the next match of C.
//
// So FindAll(R) is FindAll(C) with each start moved left over at most n X
// bytes, never past the end of the previous match (or the window's
// start). X must be ASCII (each rune one byte, so counting bytes counts
// runes, and a non-ASCII byte is never in X), leaving out the rare runes
// that (?i) adds to \w and [k] (such text takes Scan's slow path, which
// does not use this), and the lazy form matters: a greedy X{0,n} would
// prefer the latest C match that its run reaches.

// lazyPrefix is X and n, for a rule whose regex is X{0,n}? C.
type lazyPrefix struct {
	in  [utf8.RuneSelf]bool // X
	max int                 // n; -1 when unbounded (X*?)
}

// lazyPrefixOf returns the lazy prefix of re, if re is X{0,n}? C with X an
// ASCII class and C its match core, which must not match the empty
// string.
func lazyPrefixOf(re *syntax.Regexp) (*lazyPrefix, bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	core, ok := matchCore(re)
	if !ok || re.Op != syntax.OpConcat || len(re.Sub) < 2 || minRunes(core) == 0 {
		return nil, false
	}
	// The core must be all of re but its first element.
	rest := re.Sub[1:]
	if len(rest) == 1 {
		if core != rest[0] {
			return nil, false
		}
	} else if core.Op != syntax.OpConcat || len(core.Sub) != len(rest) || &core.Sub[0] != &rest[0] {
		return nil, false
	}
	first := re.Sub[0]
	p := &lazyPrefix{max: -1}
	switch {
	case first.Flags&syntax.NonGreedy == 0:
		return nil, false
	case first.Op == syntax.OpStar:
	case first.Op == syntax.OpRepeat && first.Min == 0:
		p.max = first.Max
	default:
		return nil, false
	}
	x := first.Sub[0]
	switch x.Op {
	case syntax.OpCharClass:
		for i := 0; i < len(x.Rune); i += 2 {
			for r := x.Rune[i]; r <= x.Rune[i+1]; r++ {
				if !p.add(r) {
					return nil, false
				}
			}
		}
	case syntax.OpLiteral:
		if len(x.Rune) != 1 || !p.add(x.Rune[0]) {
			return nil, false
		}
		if x.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(x.Rune[0]); f != x.Rune[0]; f = unicode.SimpleFold(f) {
				if !p.add(f) {
					return nil, false
				}
			}
		}
	default:
		return nil, false
	}
	return p, true
}

// add adds r to X, ignoring rare runes; false if r is not ASCII.
func (p *lazyPrefix) add(r rune) bool {
	if isRareRune(r) {
		return true
	}
	if r < 0 || r >= utf8.RuneSelf {
		return false
	}
	p.in[r] = true
	return true
}

// extend moves the start c of a match of C left over at most max X bytes
// of text, stopping at floor.
func (p *lazyPrefix) extend(text []byte, c, floor int) int {
	s := c
	for s > floor && (p.max < 0 || c-s < p.max) {
		b := text[s-1]
		if b >= utf8.RuneSelf || !p.in[b] {
			break
		}
		s--
	}
	return s
}

// minRunes returns the fewest runes a match of re consumes (zero-width
// assertions consume none); a large number for a regex that matches
// nothing.
func minRunes(re *syntax.Regexp) int {
	const never = 1 << 30
	switch re.Op {
	case syntax.OpNoMatch:
		return never
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return never
		}
		return 1
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minRunes(re.Sub[0])
	case syntax.OpRepeat:
		return min(never, re.Min*minRunes(re.Sub[0]))
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = min(never, n+minRunes(sub))
		}
		return n
	case syntax.OpAlternate:
		n := never
		for _, sub := range re.Sub {
			n = min(n, minRunes(sub))
		}
		return n
	}
	return 0 // star, quest, empty, assertions
}
