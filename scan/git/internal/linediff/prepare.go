package linediff

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
)

// This file turns two inputs into what the Myers search works on: lines,
// equivalence classes of equal lines over both files, and the short lists
// of lines worth searching once the common ends and the lines that cannot
// (or need not) be matched are set aside.

// What the discarding step decides for a line of the middle region, by how
// many lines of the other file share its class.
const (
	matchNone = 0 // no line of the other file is equal: changed for sure
	matchFew  = 1 // a few equal lines there: searched
	matchMany = 2 // at least the limit: searched unless among discarded lines
)

const (
	// matchLimitCap bounds the count that makes a class "many": the limit
	// is about the square root of the file's line count, capped here.
	matchLimitCap = 1024
	// runWindow bounds how far from a many-match line the discarding step
	// looks for the run of unmatched lines around it.
	runWindow = 100
	// runRatio: a many-match line is discarded when the run around it holds
	// more than one unmatched line for every runRatio-1 many-match lines.
	runRatio = 4
)

// roughSqrt is the square root git's thresholds use: the power of two 2^k
// with 4^(k-1) <= n < 4^k (1 for n <= 0). Its exact value decides where
// the thresholds fall, so it is not replaced by a true square root.
func roughSqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// prepare splits a and b into lines, classifies the lines, trims the common
// ends and chooses the lines the Myers search will see.
//
// The lines of the longest common prefix made of whole lines are the same
// bytes in both files, so they are split and hashed once and counted for
// both: in the history of a file most of each version is such a prefix.
// This is only a shortcut; the classes are those of classifying each file
// on its own.
func (d *Differ) prepare(a, b []byte) {
	if !d.seeded {
		d.seed = maphash.MakeSeed()
		d.seeded = true
	}
	p := commonLinesPrefix(a, b)
	d.old.splitLines(a, nil, p)
	// Lines [0, common) are the shared prefix: those that start before p.
	common, _ := slices.BinarySearch(d.old.starts, int32(p))
	d.new.splitLines(b, d.old.starts[:common], p)
	n1, n2 := d.old.lines(), d.new.lines()

	size := 16
	for size < 2*(n1+n2-common) {
		size <<= 1
	}
	d.classes = resize(d.classes, size)
	clear(d.classes)
	d.old.class = resize(d.old.class, n1)
	d.new.class = resize(d.new.class, n2)
	d.classify(&d.old, 0, 0, common, true)
	copy(d.new.class, d.old.class[:common])
	d.classify(&d.old, 0, common, n1, false)
	d.classify(&d.new, 1, common, n2, false)

	d.old.resetChanged()
	d.new.resetChanged()
	d.discard(common)
}

// commonLinesPrefix returns the length of the longest common prefix of a
// and b that ends with a newline (0 if there is none).
func commonLinesPrefix(a, b []byte) int {
	return bytes.LastIndexByte(a[:CommonPrefix(a, b)], '\n') + 1
}

// CommonPrefix returns the length of the longest common prefix of a and
// b: compared 256 bytes at a time (a vectorised comparison each), then
// eight at a time, the byte that differs found from their XOR.
func CommonPrefix(a, b []byte) int {
	const chunk = 256
	n := min(len(a), len(b))
	i := 0
	for i+chunk <= n && bytes.Equal(a[i:i+chunk], b[i:i+chunk]) {
		i += chunk
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// resize returns s with length n, reusing its array when it is big enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

func (s *side) resetChanged() {
	s.changedBuf = resize(s.changedBuf, s.lines()+2)
	clear(s.changedBuf)
}

// classify gives each line [from, to) of s (which is file 0, old, or 1,
// new) the class of the equal lines met before it, or a new class, and
// counts the class's lines in that file, or in both when both is set (the
// shared prefix). Lines are equal when their bytes are, the newline
// included: a last line without a newline differs from the same text with
// one. The hash only finds candidates; bytes are compared on every hit.
func (d *Differ) classify(s *side, file, from, to int, both bool) {
	classes := d.classes
	mask := uint64(len(classes) - 1)
	for i := from; i < to; i++ {
		line := s.line(i)
		h := maphash.Bytes(d.seed, line)
		j := h & mask
		for {
			cl := &classes[j]
			if cl.where == 0 {
				cl.hash, cl.line, cl.where = h, int32(i), uint8(file+1)
				break
			}
			if cl.hash == h && bytes.Equal(d.classLine(cl), line) {
				break
			}
			j = (j + 1) & mask
		}
		if both {
			classes[j].count[0]++
			classes[j].count[1]++
		} else {
			classes[j].count[file]++
		}
		s.class[i] = int32(j)
	}
}

// classLine returns the line that represents cl.
func (d *Differ) classLine(cl *class) []byte {
	if cl.where == 2 {
		return d.new.line(int(cl.line))
	}
	return d.old.line(int(cl.line))
}

// discard sets the common first and last lines aside (they are unchanged),
// then decides for each line between them whether the search sees it. The
// first common lines are the shared prefix, equal without a look.
func (d *Differ) discard(common int) {
	o, n := &d.old, &d.new
	n1, n2 := o.lines(), n.lines()
	lim := min(n1, n2)
	head := common
	for head < lim && o.class[head] == n.class[head] {
		head++
	}
	tail := 0
	for tail < lim-head && o.class[n1-1-tail] == n.class[n2-1-tail] {
		tail++
	}
	d.choose(o, head, n1-tail, 1)
	d.choose(n, head, n2-tail, 0)
}

// choose decides for lines [from, to) of s whether the search sees them;
// other is the index (0 old, 1 new) of the other file. A line whose class
// the other file lacks is changed whatever the search finds, so it is
// marked changed and left out. A line whose class the other file holds many
// times (at least the square-root limit) is left out too when it sits in a
// run of mostly unmatched lines: such lines rarely anchor a good match and
// cost the search the most. The rest are kept, in order, with their
// classes, for the search.
func (d *Differ) choose(s *side, from, to, other int) {
	limit := min(roughSqrt(s.lines()), matchLimitCap)
	classes := d.classes
	act := resize(d.action, to-from)
	d.action = act
	for i := from; i < to; i++ {
		nm := int(classes[s.class[i]].count[other])
		switch {
		case nm == 0:
			act[i-from] = matchNone
		case nm >= limit:
			act[i-from] = matchMany
		default:
			act[i-from] = matchFew
		}
	}
	kept := resize(s.kept, len(act))
	keptClass := resize(s.keptClass, len(act))
	nk := 0
	for k, a := range act {
		i := from + k
		if a == matchFew || a == matchMany && !amidUnmatched(act, k) {
			kept[nk] = int32(i)
			keptClass[nk] = s.class[i]
			nk++
		} else {
			s.setChanged(i, true)
		}
	}
	s.kept, s.keptClass = kept[:nk], keptClass[:nk]
}

// amidUnmatched reports whether the many-match line k of act should be
// left out of the search. It counts, within runWindow lines on each side,
// the run of lines that are unmatched or many-match, stopping at the first
// line with a few matches. The line goes when both runs contain unmatched
// lines and the unmatched lines outnumber the many-match ones (the line
// itself counted on each side) by more than runRatio-1 to 1.
func amidUnmatched(act []uint8, k int) bool {
	lo := max(0, k-runWindow)
	hi := min(len(act)-1, k+runWindow)
	noneBefore, manyBefore := 0, 1
	for j := k - 1; j >= lo; j-- {
		if act[j] == matchNone {
			noneBefore++
		} else if act[j] == matchMany {
			manyBefore++
		} else {
			break
		}
	}
	if noneBefore == 0 {
		return false
	}
	noneAfter, manyAfter := 0, 1
	for j := k + 1; j <= hi; j++ {
		if act[j] == matchNone {
			noneAfter++
		} else if act[j] == matchMany {
			manyAfter++
		} else {
			break
		}
	}
	if noneAfter == 0 {
		return false
	}
	many := manyBefore + manyAfter
	return many*runRatio < many+noneBefore+noneAfter
}
