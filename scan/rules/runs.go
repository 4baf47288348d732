package rules

import (
	"math"
	"math/bits"
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

// byteSet is a set of bytes, for the analysis.
type byteSet [4]uint64

func (b *byteSet) add(c byte) { b[c>>6] |= 1 << (c & 63) }
func (b *byteSet) union(o *byteSet) {
	b[0], b[1], b[2], b[3] = b[0]|o[0], b[1]|o[1], b[2]|o[2], b[3]|o[3]
}
func (b *byteSet) size() int {
	return bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) + bits.OnesCount64(b[2]) + bits.OnesCount64(b[3])
}
func (b *byteSet) contains(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }

// addRune adds the bytes of r's encodings: r itself if ASCII, nothing if r
// is a rare rune, else every byte from 0x80 up.
func (b *byteSet) addRune(r rune) {
	switch {
	case r >= 0 && r < utf8.RuneSelf:
		b.add(byte(r))
	case !isRareRune(r):
		b[2], b[3] = ^uint64(0), ^uint64(0)
	}
}

// runCand is a candidate run: min bytes from set.
type runCand struct {
	set byteSet
	min int
}

// runPart summarizes a node for the run analysis. pure says that every
// byte the node matches is in set (a node that matches only the empty
// string is pure with an empty set) and that it matches at least min
// runes; literal, that its bytes come from literal text only; best is the
// best run known inside the node's matches that is not made of literals
// only, min 0 if none.
type runPart struct {
	pure, literal bool
	set           byteSet
	min           int
	best          runCand
}

// requiredRun returns the run every match of re contains, if one is worth
// checking.
func requiredRun(re *syntax.Regexp) (*byteRun, bool) {
	p := runOf(re)
	if !p.best.useful() {
		return nil, false
	}
	r := &byteRun{min: p.best.min}
	for c := range r.in {
		r.in[c] = p.best.set.contains(byte(c))
	}
	return r, true
}

// useful reports whether a run is worth looking for: long, and over a set
// that leaves out enough bytes.
func (r *runCand) useful() bool {
	return r.min >= minRunLen && r.set.size() <= maxRunBytes
}

// better returns the more useful of two runs, either of which is sound:
// one worth checking over one that is not, then the one that rules out
// more text by a crude model of it (printable bytes drawn at random: the
// chance that min of them fall in the set). The model says nothing of
// literal text, and candidates made only of literals are not offered
// (see runPart.literal): the windows of a rule sit around its keywords,
// which usually are those literals.
func better(a, b runCand) runCand {
	if ua, ub := a.useful(), b.useful(); ua != ub {
		if ub {
			return b
		}
		return a
	}
	if b.bits() > a.bits() {
		return b
	}
	return a
}

// bits is -log2 of the chance that min random printable bytes all fall in
// the run's set.
func (r *runCand) bits() float64 {
	if r.min == 0 {
		return 0
	}
	return -float64(r.min) * math.Log2(float64(min(r.set.size(), 96))/96)
}

func runOf(re *syntax.Regexp) runPart {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return runPart{pure: true, literal: true}
	case syntax.OpLiteral:
		p := runPart{pure: true, literal: true, min: len(re.Rune)}
		for _, r := range re.Rune {
			p.set.addRune(r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					p.set.addRune(f)
				}
			}
		}
		return p
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return runPart{} // matches nothing: no run to promise, none needed
		}
		p := runPart{pure: true, min: 1}
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi; r++ {
				if r >= utf8.RuneSelf && hi-r >= rune(len(rareRunes)) {
					p.set.addRune(utf8.RuneError) // some rune here is not rare
					break
				}
				p.set.addRune(r)
			}
		}
		p.best = runCand{p.set, 1}
		return p
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		p := runPart{pure: true, min: 1}
		p.set = byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		if re.Op == syntax.OpAnyCharNotNL {
			p.set[0] &^= 1 << '\n'
		}
		p.best = runCand{p.set, 1}
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
				p.best = better(sub.best, runCand{sub.set, p.min})
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
			p.set.union(&s.set)
			// One branch or another matches: a run promised by every
			// branch is the union of their sets at the shortest length.
			p.best.set.union(&s.best.set)
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
		p.set.union(&parts[i].set)
	}
	for i := range parts {
		if !parts[i].pure {
			continue
		}
		var span runCand
		literal := true
		for j := i; j < len(parts) && parts[j].pure; j++ {
			span.min += parts[j].min
			span.set.union(&parts[j].set)
			if literal = literal && parts[j].literal; !literal {
				p.best = better(p.best, span)
			}
		}
	}
	return p
}
