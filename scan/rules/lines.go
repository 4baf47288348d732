package rules

import (
	"bytes"
	"slices"
)

// This file answers the line questions a scan asks about its buffer
// (where the line around an offset starts and ends, how many lines come
// before it, whether it carries an inline allow) in time that does not
// depend on how long the line is or where it sits in the buffer.
//
// Asked naively, each is a search from the offset to a newline, or from
// the buffer's start, and a buffer dense with findings asks once per
// finding and per keyword hit: on a minified file, one line of a megabyte,
// every question scanned up to a megabyte, and the scan went quadratic.
// Instead, a question searches at most lineProbe bytes by itself (enough
// for the lines of ordinary text, so most buffers need nothing more); a
// longer search indexes the buffer's newlines, once (one pass of
// bytes.IndexByte), and that question and all later ones binary-search
// the index. The inline-allow markers are indexed the same way. What is
// left per finding is a few bounded searches, and gitleaks' own
// per-finding work.

// lineIndex holds the index of one buffer. It is part of a Scratch and
// reset by Scratch.prefilter for each buffer.
type lineIndex struct {
	built bool
	nl    []int // offsets of the '\n' bytes, ascending

	allowBuilt bool
	allows     [2][]int // start offsets of gitleaksAllow and spindleAllow, ascending

	crFrom, crAt int // data[crFrom:crAt] holds no '\r' and crAt is a '\r' or the end (crAt > 0 when set)
}

// newlines returns the offsets of the '\n' bytes in data.
func (s *Scratch) newlines(data []byte) []int {
	x := &s.lines
	if !x.built {
		x.nl = x.nl[:0]
		for i := 0; ; {
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				break
			}
			x.nl = append(x.nl, i+j)
			i += j + 1
		}
		x.built = true
	}
	return x.nl
}

// newlinesBefore returns the number of '\n' bytes in data[:x].
func (s *Scratch) newlinesBefore(data []byte, x int) int {
	i, _ := slices.BinarySearch(s.newlines(data), x)
	return i
}

// lineProbe is how far the line questions search by themselves before
// they build the index: far enough for the lines of ordinary text, so
// that most buffers never need the index.
const lineProbe = 256

// nextNewline returns the index of the first '\n' at or after x, or -1.
func (s *Scratch) nextNewline(data []byte, x int) int {
	if x >= len(data) {
		return -1
	}
	if !s.lines.built {
		end := min(len(data), x+lineProbe)
		if i := bytes.IndexByte(data[x:end], '\n'); i >= 0 {
			return x + i
		}
		if end == len(data) {
			return -1
		}
	}
	nl := s.newlines(data)
	if i, _ := slices.BinarySearch(nl, x); i < len(nl) {
		return nl[i]
	}
	return -1
}

// prevNewline returns the index of the last '\n' before x, or -1.
func (s *Scratch) prevNewline(data []byte, x int) int {
	if !s.lines.built {
		lo := max(0, x-lineProbe)
		if i := bytes.LastIndexByte(data[lo:x], '\n'); i >= 0 {
			return lo + i
		}
		if lo == 0 {
			return -1
		}
	}
	nl := s.newlines(data)
	if i, _ := slices.BinarySearch(nl, x); i > 0 {
		return nl[i-1]
	}
	return -1
}

// lineEnd returns the index of the first '\n' at or after x, or len(data).
func (s *Scratch) lineEnd(data []byte, x int) int {
	if i := s.nextNewline(data, x); i >= 0 {
		return i
	}
	return len(data)
}

// lineStart returns one past the last '\n' before x, or 0.
func (s *Scratch) lineStart(data []byte, x int) int {
	return s.prevNewline(data, x) + 1
}

// gitleaksLine returns the bounds of what gitleaks calls the finding's
// line, for the inline-allow check and regexTarget = "line": from the '\n'
// before the start (inclusive, or 0) to the first '\n' at or after end
// (or end itself).
// Two gitleaks quirks are kept: a buffer without any '\n' is one line, and
// a match on an unterminated last line gets a "line" that begins at the
// start of the buffer and ends at the next '\r' or the end.
func (s *Scratch) gitleaksLine(data []byte, start, end int) (lo, hi int) {
	x := min(start+1, len(data))
	before, after := s.prevNewline(data, x), s.nextNewline(data, x) // around start, inclusive before
	switch {
	case before < 0 && after < 0:
		return 0, len(data)
	case after < 0:
		// No '\n' after start: the line runs to the first '\n' or '\r' at
		// or after end (a '\n' there is possible only if end <= start).
		return 0, min(s.lineEnd(data, end), s.nextCR(data, end))
	}
	lo = max(before, 0)
	hi = end // gitleaks' line stops at end when no '\n' follows
	if i := s.nextNewline(data, end); i >= 0 {
		hi = i
	}
	return lo, hi
}

// nextCR returns the index of the first '\r' at or after x, or len(data).
// It remembers its last answer, which also answers every x from the last
// question up to it: the findings of a rule come in order, so a long last
// line is searched once per rule, not once per finding.
func (s *Scratch) nextCR(data []byte, x int) int {
	m := &s.lines
	if m.crAt > 0 && m.crFrom <= x && x <= m.crAt {
		return m.crAt
	}
	at := len(data)
	if i := bytes.IndexByte(data[x:], '\r'); i >= 0 {
		at = x + i
	}
	m.crFrom, m.crAt = x, at
	return at
}

// inlineAllowed reports whether data[lo:hi] (a finding's line) holds
// "gitleaks:allow" or "spindle:allow".
func (s *Scratch) inlineAllowed(data []byte, lo, hi int) bool {
	x := &s.lines
	if !x.allowBuilt {
		for k, marker := range [2][]byte{gitleaksAllow, spindleAllow} {
			x.allows[k] = x.allows[k][:0]
			for i := 0; ; {
				j := bytes.Index(data[i:], marker)
				if j < 0 {
					break
				}
				x.allows[k] = append(x.allows[k], i+j)
				i += j + 1
			}
		}
		x.allowBuilt = true
	}
	for k, marker := range [2][]byte{gitleaksAllow, spindleAllow} {
		// The first marker starting in the line is the one most likely to
		// end in it too; markers of one kind all have the same length.
		starts := x.allows[k]
		if i, _ := slices.BinarySearch(starts, lo); i < len(starts) && starts[i]+len(marker) <= hi {
			return true
		}
	}
	return false
}

// lineCol returns gitleaks' line index (newlines before Start) and column
// of a finding. gitleaks counts the column from the '\n' before the match
// (or from 1 on the first line), so columns after the first line are one
// more than the usual 1-based column; it is kept for withinColumns.
func (s *Scratch) lineCol(data []byte, f *found) (line, col int) {
	if f.rawStart < 0 {
		return 0, 0 // path-only finding
	}
	if f.line < 0 {
		f.line = s.newlinesBefore(data, f.Start)
	}
	prev := 0 // the last '\n' at or before rawStart, or 0
	if i := s.newlinesBefore(data, f.rawStart+1); i > 0 {
		prev = s.lines.nl[i-1]
	}
	return f.line, f.rawStart - prev + 1
}
