package linediff

import (
	"bytes"
	"hash/maphash"
)

// Hunk is one change as `git diff -U0` prints it: lines
// [OldStart, OldStart+OldLines) of the old file are replaced by lines
// [NewStart, NewStart+NewLines) of the new file. Indexes are 0-based line
// numbers; an insertion has OldLines == 0 and OldStart the index of the old
// line it goes before, a deletion NewLines == 0 likewise.
//
// git's header `@@ -s,c +t,d @@` numbers lines from 1 and, for an empty
// side, names the line before the gap: OldStart is s-1 when c > 0 and s
// when c == 0 (the same for t and d).
type Hunk struct{ OldStart, OldLines, NewStart, NewLines int }

// MaxSize is the largest input git's line diff accepts (xdiff's limit,
// 1 GiB less 1 MiB). Diff reports larger inputs that differ as one hunk
// replacing every line, which loses no added line. git itself treats files
// over core.bigFileThreshold (512 MiB by default) as binary before the
// line diff is reached; that choice, like IsBinary's, is the caller's.
const MaxSize = 1<<30 - 1<<20

// A Differ holds the working memory of Diff, reused from one call to the
// next so that diffing allocates only while a Differ grows to the largest
// input it has met; it keeps that memory (about 100 to 150 bytes per line
// of the largest pair) until it is dropped, but no reference to the inputs.
// A Differ is not safe for concurrent use: give each worker its own. The
// zero value is ready to use.
type Differ struct {
	seed   maphash.Seed
	seeded bool

	old, new side
	// whole is the length of the new file when the last Diff answered
	// with one hunk of whole files, without splitting lines (-1 when it
	// split them): what Span needs to place that hunk.
	whole int

	// classes is an open-addressing hash table of the equivalence classes
	// of lines, sized to a power of two at least twice the number of lines
	// to classify; a class's number is its slot's index.
	classes []class

	// What the discarding step and the Myers search work on.
	action []uint8 // per line of the middle region: matchNone, matchFew or matchMany
	kv     []int   // the forward and backward furthest-reach vectors
	boxes  []box   // sub-problems the divide and conquer still owes
}

// side is one file of a diff: its lines, their classes, and which lines the
// diff marks as changed. Lines are indexed from 0; changedBuf carries one
// unchanged sentinel before line 0 and one after the last line, so a scan
// for the end of a run of changes stops without a bounds test.
type side struct {
	data   []byte  // the (tail-trimmed) input
	starts []int32 // line i is data[starts[i]:starts[i+1]]; len = lines+1
	class  []int32 // class of each line
	// changedBuf[i+1] is 1 when line i is changed, 0 when not;
	// changedBuf[0] and changedBuf[lines+1] stay 0. Bytes, not bools, so
	// that a run of unchanged lines is skipped with bytes.IndexByte.
	changedBuf []byte

	// kept lists, in order, the lines handed to the Myers search (those
	// the discarding step keeps), and keptClass their classes.
	kept      []int32
	keptClass []int32
}

// class is one slot of the class table: a set of equal lines, with the
// line that first showed it and how many lines of each file it holds.
type class struct {
	hash  uint64
	line  int32    // the representative line
	where uint8    // 0: an empty slot; 1: line is in the old file; 2: in the new
	count [2]int32 // lines of the old and of the new file in the class
}

// box is a sub-problem of the Myers search: kept records [off1, lim1) of
// the old file against [off2, lim2) of the new one. needMin turns the cost
// heuristics off, as the split that produced the box asks.
type box struct {
	off1, lim1, off2, lim2 int
	needMin                bool
}

func (s *side) lines() int { return len(s.starts) - 1 }

// Footprint returns about how many bytes of working memory d holds: what
// its largest pair so far made it grow. A caller that keeps a Differ from
// pair to pair can let go of one grown large (a Differ's zero value is
// ready to use).
func (d *Differ) Footprint() int {
	n := 24*cap(d.classes) + cap(d.action) + 8*cap(d.kv) + 40*cap(d.boxes)
	for _, s := range [2]*side{&d.old, &d.new} {
		n += 4*(cap(s.starts)+cap(s.class)+cap(s.kept)+cap(s.keptClass)) + cap(s.changedBuf)
	}
	return n
}

func (s *side) line(i int) []byte { return s.data[s.starts[i]:s.starts[i+1]] }

func (s *side) changed(i int) bool { return s.changedBuf[i+1] != 0 }

func (s *side) setChanged(i int, v bool) {
	var b byte
	if v {
		b = 1
	}
	s.changedBuf[i+1] = b
}

// unchangedRun returns how many lines from line i on are unchanged (0 when
// i is changed or past the last line).
func (s *side) unchangedRun(i int) int {
	n := s.lines()
	if i >= n {
		return 0
	}
	k := bytes.IndexByte(s.changedBuf[i+1:n+1], 1)
	if k < 0 {
		return n - i
	}
	return k
}

// Diff appends to dst the hunks of `git diff -U0` from a to b, in order,
// and returns dst. It reproduces git's default line diff exactly: Myers'
// algorithm with git's heuristics (not --minimal), the indent heuristic,
// no whitespace options. Binary content is diffed like text: ask IsBinary
// first where git would say "Binary files differ".
func (d *Differ) Diff(a, b []byte, dst []Hunk) []Hunk {
	d.whole = len(b)
	if bytes.Equal(a, b) {
		return dst
	}
	if len(a) == 0 || len(b) == 0 || len(a) > MaxSize || len(b) > MaxSize {
		// An added or deleted file is one hunk; so is, for want of better,
		// an input too large for git to diff.
		return append(dst, Hunk{0, countLines(a), 0, countLines(b)})
	}
	d.whole = -1
	na, nb := cutCommonTail(a, b)
	d.prepare(a[:na], b[:nb])
	d.search()
	d.compact(&d.old, &d.new)
	d.compact(&d.new, &d.old)
	dst = d.hunks(dst)
	d.old.data, d.new.data = nil, nil // the caller's buffers are not ours to keep alive
	return dst
}

// Span returns where the lines that h adds lie in the new file of the last
// call to Diff, h being one of the hunks that call returned: from the
// start of line h.NewStart to the end of its last line (lo == hi when it
// adds none). The diff has split the new file into lines already, so a
// caller that wants the added bytes need not split it again.
func (d *Differ) Span(h Hunk) (lo, hi int) {
	if d.whole >= 0 {
		if h.NewLines == 0 {
			return 0, 0
		}
		return 0, d.whole
	}
	s := d.new.starts
	return int(s[h.NewStart]), int(s[h.NewStart+h.NewLines])
}

// countLines returns the number of lines of data, a final line without a
// newline included.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// cutCommonTail returns the lengths of a and b that the line diff sees. It
// drops the longest common tail that is a whole number of 1 KiB blocks, then
// gives back the dropped bytes up to and including the first newline among
// them, so that both inputs still end on a whole line. With no context
// lines wanted, git diffs only what is left, and since what is left changes
// the files' line counts and ends, it changes which lines the diff pairs
// and where the indent heuristic places a change.
func cutCommonTail(a, b []byte) (int, int) {
	const block = 1024
	smaller := min(len(a), len(b))
	trimmed := 0
	for trimmed+block <= smaller &&
		bytes.Equal(a[len(a)-trimmed-block:len(a)-trimmed], b[len(b)-trimmed-block:len(b)-trimmed]) {
		trimmed += block
	}
	if trimmed == 0 {
		return len(a), len(b)
	}
	recovered := trimmed
	if i := bytes.IndexByte(a[len(a)-trimmed:], '\n'); i >= 0 {
		recovered = i + 1
	}
	cut := trimmed - recovered
	return len(a) - cut, len(b) - cut
}

// splitLines records the line starts of data in s.starts. The first
// len(shared) lines, which end at offset prefix, are those of another file
// with the same first prefix bytes: their starts are copied, not searched
// for again.
func (s *side) splitLines(data []byte, shared []int32, prefix int) {
	s.data = data
	s.starts = append(s.starts[:0], shared...)
	off := 0
	if len(shared) > 0 {
		off = prefix
	}
	for off < len(data) {
		s.starts = append(s.starts, int32(off))
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	s.starts = append(s.starts, int32(len(data)))
}

// hunks appends to dst the runs of changed lines, each with the run of the
// other file it faces. Unchanged lines pair up in order (both files have
// as many), so walking both files from the top, a hunk is what lies
// between two consecutive pairs.
func (d *Differ) hunks(dst []Hunk) []Hunk {
	o, n := &d.old, &d.new
	n1, n2 := o.lines(), n.lines()
	i1, i2 := 0, 0
	for i1 < n1 || i2 < n2 {
		// Skip the pairs of unchanged lines.
		k := min(o.unchangedRun(i1), n.unchangedRun(i2))
		i1, i2 = i1+k, i2+k
		if i1 >= n1 && i2 >= n2 {
			break
		}
		s1, s2 := i1, i2
		for i1 < n1 && o.changed(i1) {
			i1++
		}
		for i2 < n2 && n.changed(i2) {
			i2++
		}
		if i1 == s1 && i2 == s2 {
			// Unreachable while both files keep as many unchanged lines;
			// stepping on keeps the loop finite whatever happens.
			i1, i2 = i1+1, i2+1
			continue
		}
		dst = append(dst, Hunk{s1, i1 - s1, s2, i2 - s2})
	}
	return dst
}
