package rules

import (
	"math"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file derives a second necessary condition on a rule's matches, next
// to the anchor literals: a run. Many secrets are long runs of one kind of
// byte (`[a-z0-9]{24}`, `[\w-]{90,120}`, `[0-9a-f]{32}`), and a window
// around a common keyword seldom holds one: gitleaks' vault-service-token
// has the keyword "s.", which occurs every few hundred bytes of Go source,
// while its match needs 24 letters or digits in a row. Looking for the run
// costs a table lookup per byte of the window; calling go-re2 costs about
// half a microsecond before it reads a byte. So a window without the run
// is skipped without calling the regex, and so is a whole buffer.

// byteRun says that every match of a regex contains min consecutive bytes
// from the set in.
//
// Soundness: the analysis counts runes, and each rune the regex consumes
// is at least one byte, every byte of it in the set. ASCII members of a
// rune set are themselves; any non-ASCII member adds every byte from 0x80
// to 0xff, which covers its UTF-8 encoding and also each invalid byte that
// the standard library reads as U+FFFD. Zero-width assertions consume
// nothing and interrupt nothing. The rare runes (see rareRunes) are left
// out, so that (?i)[a-z] is not taken to hold non-ASCII bytes for the
// sake of U+212A and U+017F: the run holds only on buffers without them,
// those Scan does not send to the slow path.
type byteRun struct {
	in  [256]bool
	min int
}

// Thresholds for keeping a run: long enough, and a set small enough, to
// rule out most windows (see useful).
const (
	minRunLen   = 8
	maxRunBytes = 200
)

// has reports whether data holds min consecutive bytes from the set.
func (r *byteRun) has(data []byte) bool {
	n := 0
	for _, c := range data {
		if !r.in[c] {
			n = 0
			continue
		}
		if n++; n >= r.min {
			return true
		}
	}
	return false
}

// runPart summarizes a node for the run analysis. pure says that every
// byte the node matches is in set (a node that matches only the empty
// string is pure with an empty set) and that it matches at least min
// runes; literal, that its bytes come from literal text only; best is the
// best run known inside the node's matches that is not made of literals
// only, min 0 if none.
type runPart struct {
	pure, literal bool
	set           [256]bool
	min           int
	best          byteRun
}

// requiredRun returns the run every match of re contains, if one is worth
// checking.
func requiredRun(re *syntax.Regexp) (*byteRun, bool) {
	p := runOf(re)
	if !useful(&p.best) {
		return nil, false
	}
	return &p.best, true
}

// useful reports whether a run is worth looking for: long, and over a set
// that leaves out enough bytes.
func useful(r *byteRun) bool {
	return r.min >= minRunLen && setSize(r) <= maxRunBytes
}

// better returns the more useful of two runs, either of which is sound:
// one worth checking over one that is not, then the one that rules out
// more text by a crude model of it (printable bytes drawn at random: the
// chance that min of them fall in the set). The model says nothing of
// literal text, and candidates made only of literals are not offered
// (see runPart.literal): the windows of a rule sit around its keywords,
// which usually are those literals.
func better(a, b byteRun) byteRun {
	if ua, ub := useful(&a), useful(&b); ua != ub {
		if ub {
			return b
		}
		return a
	}
	if bits(&b) > bits(&a) {
		return b
	}
	return a
}

// bits is -log2 of the chance that min random printable bytes all fall in
// the run's set.
func bits(r *byteRun) float64 {
	if r.min == 0 {
		return 0
	}
	return -float64(r.min) * math.Log2(float64(min(setSize(r), 96))/96)
}

func setSize(r *byteRun) int {
	n := 0
	for _, in := range r.in {
		if in {
			n++
		}
	}
	return n
}

func runOf(re *syntax.Regexp) runPart {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return runPart{pure: true, literal: true}
	case syntax.OpLiteral:
		var p runPart
		p.pure, p.literal = true, true
		for _, r := range re.Rune {
			addRune(&p.set, r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					addRune(&p.set, f)
				}
			}
		}
		p.min = len(re.Rune)
		return p
	case syntax.OpCharClass:
		var p runPart
		if len(re.Rune) == 0 {
			return runPart{} // matches nothing: no run to promise, none needed
		}
		p.pure, p.min = true, 1
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi; r++ {
				if r >= utf8.RuneSelf && hi-r >= rune(len(rareRunes)) {
					addRune(&p.set, utf8.RuneError) // some rune here is not rare
					break
				}
				addRune(&p.set, r)
			}
		}
		p.best = byteRun{in: p.set, min: 1}
		return p
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		p := runPart{pure: true, min: 1}
		for c := range p.set {
			p.set[c] = true
		}
		if re.Op == syntax.OpAnyCharNotNL {
			p.set['\n'] = false
		}
		p.best = byteRun{in: p.set, min: 1}
		return p
	case syntax.OpCapture:
		return runOf(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		// Possibly absent: pure (when the child is) but promising nothing.
		sub := runOf(re.Sub[0])
		return runPart{pure: sub.pure, literal: sub.literal, set: sub.set}
	case syntax.OpPlus:
		return runOf(re.Sub[0]) // at least once
	case syntax.OpRepeat:
		sub := runOf(re.Sub[0])
		if re.Min == 0 {
			return runPart{pure: sub.pure, literal: sub.literal, set: sub.set}
		}
		p := sub
		if sub.pure {
			p.min = sub.min * re.Min
			if !sub.literal {
				p.best = better(sub.best, byteRun{in: sub.set, min: p.min})
			}
		}
		return p
	case syntax.OpConcat:
		return concatRun(re.Sub)
	case syntax.OpAlternate:
		var p runPart
		for i, sub := range re.Sub {
			s := runOf(sub)
			if i == 0 {
				p = s
				continue
			}
			p.pure = p.pure && s.pure
			p.literal = p.literal && s.literal
			p.min = min(p.min, s.min)
			for c := range p.set {
				p.set[c] = p.set[c] || s.set[c]
			}
			// One branch or another matches: a run promised by every
			// branch is the union of their sets at the shortest length.
			for c := range p.best.in {
				p.best.in[c] = p.best.in[c] || s.best.in[c]
			}
			p.best.min = min(p.best.min, s.best.min)
		}
		return p
	}
	return runPart{} // OpNoMatch and anything unknown: promise nothing
}

// concatRun joins the children of a concatenation: a run may span
// consecutive pure children, its set the union of theirs and its length
// the sum of their minimums, or lie inside one child.
func concatRun(subs []*syntax.Regexp) runPart {
	parts := make([]runPart, len(subs))
	p := runPart{pure: true, literal: true}
	for i, sub := range subs {
		parts[i] = runOf(sub)
		p.best = better(p.best, parts[i].best)
		p.pure = p.pure && parts[i].pure
		p.literal = p.literal && parts[i].literal
		p.min += parts[i].min
		for c := range p.set {
			p.set[c] = p.set[c] || parts[i].set[c]
		}
	}
	for i := range parts {
		if !parts[i].pure {
			continue
		}
		span, literal := byteRun{}, true
		for j := i; j < len(parts) && parts[j].pure; j++ {
			span.min += parts[j].min
			for c := range span.in {
				span.in[c] = span.in[c] || parts[j].set[c]
			}
			if literal = literal && parts[j].literal; !literal {
				p.best = better(p.best, span)
			}
		}
	}
	return p
}

// addRune adds the bytes of r's encodings to set: r itself if ASCII,
// nothing if r is a rare rune, else every byte from 0x80 up.
func addRune(set *[256]bool, r rune) {
	if r < utf8.RuneSelf && r >= 0 {
		set[r] = true
		return
	}
	if isRareRune(r) {
		return
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		set[c] = true
	}
}
