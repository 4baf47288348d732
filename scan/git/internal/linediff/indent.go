package linediff

// This file scores the split between changed and unchanged lines for the
// indent heuristic (git's diff.indentHeuristic, on by default). The
// measures and weights are git's, which were fitted on a corpus of
// human-judged diffs; changing any of them changes where hunks land.

const (
	// maxIndent caps a line's measured indentation.
	maxIndent = 200
	// maxBlanks caps how many blank lines next to a split are counted.
	maxBlanks = 20

	startOfFilePenalty      = 1   // no non-blank line above the split
	endOfFilePenalty        = 21  // no non-blank line below the split
	totalBlankWeight        = -30 // per blank line around the split
	postBlankWeight         = 6   // per blank line below the split
	indentPenalty           = -4  // the line below is indented more than the one above
	indentWithBlankPenalty  = 10  // the same with blank lines around
	outdentPenalty          = 24  // indented less than above, and less than the line after it
	outdentWithBlankPenalty = 17
	dedentPenalty           = 23 // indented less than above, not less than the line after it
	dedentWithBlankPenalty  = 17
	indentWeight            = 60 // weight of comparing the effective indents
)

// isSpace is git's isspace, which unlike C's knows only these four.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// indentOf returns the indentation of line in columns, a tab advancing to
// the next multiple of 8, capped at maxIndent; -1 when the line is blank
// (only spaces, tabs, CR and LF). Other whitespace a line starts with (CR
// amid the indentation) counts for no column.
func indentOf(line []byte) int {
	n := 0
	for _, c := range line {
		if !isSpace(c) {
			return n
		}
		if c == ' ' {
			n++
		} else if c == '\t' {
			n += 8 - n%8
		}
		if n >= maxIndent {
			return maxIndent
		}
	}
	return -1
}

// measurement describes the text around a split just above line split.
type measurement struct {
	endOfFile  bool // no line below the split
	indent     int  // indentation of the line below the split, -1 if blank or none
	preBlank   int  // blank lines right above the split
	preIndent  int  // indentation of the nearest non-blank line above, -1 if none
	postBlank  int  // blank lines after the line below the split
	postIndent int  // indentation of the nearest non-blank line after that, -1 if none
}

// measure measures the split of s just above line split. A run of
// maxBlanks blank lines ends the look, as if a line of indentation 0
// followed it.
func (s *side) measure(split int) measurement {
	var m measurement
	n := s.lines()
	if split >= n {
		m.endOfFile = true
		m.indent = -1
	} else {
		m.indent = indentOf(s.line(split))
	}
	m.preIndent = -1
	for i := split - 1; i >= 0; i-- {
		m.preIndent = indentOf(s.line(i))
		if m.preIndent != -1 {
			break
		}
		m.preBlank++
		if m.preBlank == maxBlanks {
			m.preIndent = 0
			break
		}
	}
	m.postIndent = -1
	for i := split + 1; i < n; i++ {
		m.postIndent = indentOf(s.line(i))
		if m.postIndent != -1 {
			break
		}
		m.postBlank++
		if m.postBlank == maxBlanks {
			m.postIndent = 0
			break
		}
	}
	return m
}

// score is the badness of a placement, summed over its splits: the
// effective indents and the penalties. Lower is better.
type score struct{ effectiveIndent, penalty int }

// add adds the badness of the split m to sc.
func (sc *score) add(m measurement) {
	if m.preIndent == -1 && m.preBlank == 0 {
		sc.penalty += startOfFilePenalty
	}
	if m.endOfFile {
		sc.penalty += endOfFilePenalty
	}
	// Blank lines below the split, the line right below it included.
	postBlank := 0
	if m.indent == -1 {
		postBlank = 1 + m.postBlank
	}
	totalBlank := m.preBlank + postBlank
	sc.penalty += totalBlankWeight*totalBlank + postBlankWeight*postBlank

	indent := m.indent
	if indent == -1 {
		indent = m.postIndent
	}
	anyBlanks := totalBlank != 0
	sc.effectiveIndent += indent // -1 at the end of the file

	switch {
	case indent == -1 || m.preIndent == -1:
	case indent > m.preIndent:
		sc.penalty += pick(anyBlanks, indentWithBlankPenalty, indentPenalty)
	case indent == m.preIndent:
	case m.postIndent != -1 && m.postIndent > indent:
		// Less indented than above and more below: likely a block's start.
		sc.penalty += pick(anyBlanks, outdentWithBlankPenalty, outdentPenalty)
	default:
		// Less indented than above: likely a block's end.
		sc.penalty += pick(anyBlanks, dedentWithBlankPenalty, dedentPenalty)
	}
}

func pick(cond bool, yes, no int) int {
	if cond {
		return yes
	}
	return no
}

// cmp compares two scores: negative when sc is better than o. Effective
// indents count only by their order, weighted by indentWeight.
func (sc score) cmp(o score) int {
	c := 0
	if sc.effectiveIndent > o.effectiveIndent {
		c = 1
	} else if sc.effectiveIndent < o.effectiveIndent {
		c = -1
	}
	return indentWeight*c + sc.penalty - o.penalty
}
