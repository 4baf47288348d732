package rules

import (
	"math"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// This file bounds how far a match extends (reaches, from the syntax
// tree's shape) and records the zero-width assertions that decide where a
// window may be cut. analyze.go uses both to turn an anchor set into
// windows.

// A reach bounds how far a match can extend from a position, in steps:
// steps[0] bytes, then to the next line end and steps[1] bytes more, and
// so on. Formally, for a start position p the end is at most
//
//	EOL(...EOL(EOL(p+steps[0])+steps[1])...)+steps[k]
//
// where EOL(x) is the index of the first '\n' at or after x. A left reach
// is the mirror image (BOL: one past the last '\n' before x). Every step
// function is monotone, which is what makes the window proof work (see
// doc.go). inf means no useful bound.
type reach struct {
	inf   bool
	steps []int
}

func bytesReach(n int) reach { return reach{steps: []int{n}} }

var (
	infReach  = reach{inf: true}
	lineReach = reach{steps: []int{0, 0}} // to the end of the line
)

// then composes r followed by s.
func (r reach) then(s reach) reach {
	if r.inf || s.inf {
		return infReach
	}
	steps := make([]int, 0, len(r.steps)+len(s.steps))
	steps = append(steps, r.steps...)
	steps[len(steps)-1] += s.steps[0]
	steps = append(steps, s.steps[1:]...)
	return normalReach(steps)
}

// normalReach merges EOL,+0,EOL into EOL (EOL is idempotent) and gives up
// when too many line ends remain.
func normalReach(steps []int) reach {
	out := steps[:1]
	for i := 1; i < len(steps); i++ {
		if i < len(steps)-1 && steps[i] == 0 {
			continue // EOL, +0, EOL, ... == EOL, ...
		}
		out = append(out, steps[i])
	}
	if len(out)-1 > maxReachLines {
		return infReach
	}
	return reach{steps: out}
}

// join bounds the larger of two reaches. Padding the shorter with trailing
// EOL steps only raises it (EOL(x) >= x), and raising each constant keeps
// an upper bound because every step is monotone.
func (r reach) join(s reach) reach {
	if r.inf || s.inf {
		return infReach
	}
	n := max(len(r.steps), len(s.steps))
	steps := make([]int, n)
	for i := range steps {
		if i < len(r.steps) {
			steps[i] = r.steps[i]
		}
		if i < len(s.steps) {
			steps[i] = max(steps[i], s.steps[i])
		}
	}
	return normalReach(steps)
}

// shape summarises one regex node: its longest match in bytes (-1 when
// unbounded) and whether a match can contain '\n'.
type shape struct {
	maxLen  int
	newline bool
}

func runeWidth(r rune) int {
	if r < 0 || r > unicode.MaxRune {
		return 1
	}
	return utf8.RuneLen(r)
}

// shapeOf computes re's shape. In fast mode the rare runes are ignored:
// windows are only used on buffers without them (see Detector.Scan).
func shapeOf(re *syntax.Regexp, fast bool) shape {
	switch re.Op {
	case syntax.OpLiteral:
		n, nl := 0, false
		for _, r := range re.Rune {
			w := runeWidth(r)
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					if !fast || !isRareRune(f) {
						w = max(w, runeWidth(f))
					}
				}
			}
			n += w
			nl = nl || r == '\n'
		}
		return shape{n, nl}
	case syntax.OpCharClass:
		w, nl := 0, false
		for i := 0; i < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if fast && lo == hi && isRareRune(lo) {
				continue
			}
			w = max(w, runeWidth(hi), runeWidth(lo))
			if lo <= '\n' && '\n' <= hi {
				nl = true
			}
			if lo <= 0xFFFD && 0xFFFD <= hi {
				w = max(w, 3) // RuneError stands for one invalid byte but is itself 3 wide
			}
		}
		return shape{w, nl}
	case syntax.OpAnyCharNotNL:
		return shape{utf8.UTFMax, false}
	case syntax.OpAnyChar:
		return shape{utf8.UTFMax, true}
	case syntax.OpCapture:
		return shapeOf(re.Sub[0], fast)
	case syntax.OpConcat:
		s := shape{}
		for _, sub := range re.Sub {
			t := shapeOf(sub, fast)
			s.newline = s.newline || t.newline
			if s.maxLen < 0 || t.maxLen < 0 {
				s.maxLen = -1
			} else {
				s.maxLen += t.maxLen
			}
		}
		return s
	case syntax.OpAlternate:
		s := shape{}
		for _, sub := range re.Sub {
			t := shapeOf(sub, fast)
			s.newline = s.newline || t.newline
			if s.maxLen < 0 || t.maxLen < 0 {
				s.maxLen = -1
			} else {
				s.maxLen = max(s.maxLen, t.maxLen)
			}
		}
		return s
	case syntax.OpQuest:
		return shapeOf(re.Sub[0], fast)
	case syntax.OpStar, syntax.OpPlus:
		t := shapeOf(re.Sub[0], fast)
		if t.maxLen != 0 {
			t.maxLen = -1
		}
		return t
	case syntax.OpRepeat:
		t := shapeOf(re.Sub[0], fast)
		switch {
		case t.maxLen == 0:
		case re.Max < 0 || t.maxLen < 0:
			t.maxLen = -1
		default:
			t.maxLen *= re.Max
		}
		return t
	}
	return shape{} // empty-width operators, EmptyMatch, NoMatch
}

// spansLines reports whether a match of re can run across lines for more
// than limit bytes: re repeats, without bound or past limit bytes, a
// piece that can match a newline (a private key's `[\s\S-]{64,}?`). A
// match of any other regex that is longer than limit is one long line.
func spansLines(re *syntax.Regexp, limit int) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if t := shapeOf(re.Sub[0], false); t.newline {
			if re.Op != syntax.OpRepeat || re.Max < 0 || t.maxLen < 0 || t.maxLen*re.Max > limit {
				return true
			}
		}
	}
	for _, sub := range re.Sub {
		if spansLines(sub, limit) {
			return true
		}
	}
	return false
}

// rightReach bounds how far a match of re extends right of its start.
// leftReach bounds how far it extends left of its end; it is computed by
// the same rules with concatenations read backwards.
//
// Both come as a bound: two reaches, each valid on its own. The first
// counts bytes wherever a length is bounded; the second ends newline-free
// runs longer than a few bytes at the line end. On ordinary text lines the
// second is tighter; on long lines (minified code) the first is. The
// detector intersects the windows they give.
func rightReach(re *syntax.Regexp) bound {
	return bound{reachOf(re, false, math.MaxInt), reachOf(re, false, lineRunBytes)}
}

func leftReach(re *syntax.Regexp) bound {
	return bound{reachOf(re, true, math.MaxInt), reachOf(re, true, lineRunBytes)}
}

// bound is a pair of reaches, each an upper bound on its own.
type bound [2]reach

func bytesBound(n int) bound { return bound{bytesReach(n), bytesReach(n)} }

func (b bound) then(c bound) bound { return bound{b[0].then(c[0]), b[1].then(c[1])} }
func (b bound) join(c bound) bound { return bound{b[0].join(c[0]), b[1].join(c[1])} }

// reachOf computes a reach; newline-free runs longer than short bytes are
// bounded by the line end instead of by their length.
func reachOf(re *syntax.Regexp, backwards bool, short int) reach {
	sh := shapeOf(re, true)
	if !sh.newline {
		// A run without '\n' ends at the line end at the latest.
		if sh.maxLen >= 0 && sh.maxLen <= short {
			return bytesReach(sh.maxLen)
		}
		return lineReach
	}
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar:
		return bytesReach(sh.maxLen)
	case syntax.OpCapture, syntax.OpQuest:
		return reachOf(re.Sub[0], backwards, short)
	case syntax.OpConcat:
		r := bytesReach(0)
		for i := range re.Sub {
			sub := re.Sub[i]
			if backwards {
				sub = re.Sub[len(re.Sub)-1-i]
			}
			if r = r.then(reachOf(sub, backwards, short)); r.inf {
				return r
			}
		}
		return r
	case syntax.OpAlternate:
		r := bytesReach(0)
		for _, sub := range re.Sub {
			if r = r.join(reachOf(sub, backwards, short)); r.inf {
				return r
			}
		}
		return r
	case syntax.OpRepeat:
		if re.Max < 0 {
			return infReach
		}
		if sh.maxLen >= 0 && sh.maxLen <= 4096 {
			return bytesReach(sh.maxLen)
		}
		one := reachOf(re.Sub[0], backwards, short)
		r := bytesReach(0)
		for k := 0; k < re.Max; k++ {
			if r = r.then(one); r.inf {
				return r
			}
		}
		return r
	}
	if sh.maxLen >= 0 {
		return bytesReach(sh.maxLen)
	}
	return infReach // Star or Plus over something that can span lines
}

// assertions records the zero-width operators that matter for cutting a
// window out of a buffer.
type assertions struct {
	beginText, endText bool // \A or ^ without (?m); \z or $ without (?m)
	beginLine, endLine bool // ^ or $ under (?m)
}

func assertionsOf(re *syntax.Regexp) assertions {
	var a assertions
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpBeginText:
			a.beginText = true
		case syntax.OpEndText:
			a.endText = true
		case syntax.OpBeginLine:
			a.beginLine = true
		case syntax.OpEndLine:
			a.endLine = true
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	walk(re)
	return a
}

// withoutTextAnchors returns a copy of re in which \A (when begin) and \z
// (when end) can never match. A window that does not start at the start of
// the buffer must not let \A match at its first byte, and likewise for \z.
func withoutTextAnchors(re *syntax.Regexp, begin, end bool) *syntax.Regexp {
	cp := *re
	switch {
	case begin && re.Op == syntax.OpBeginText, end && re.Op == syntax.OpEndText:
		return &syntax.Regexp{Op: syntax.OpNoMatch, Flags: re.Flags}
	}
	if len(re.Sub) > 0 {
		cp.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			cp.Sub[i] = withoutTextAnchors(sub, begin, end)
		}
	}
	return &cp
}
