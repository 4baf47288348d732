package linediff

// This file places each run of changed lines where git places it. A run
// whose first line equals the line after it can slide down by one, and one
// whose last line equals the line before it can slide up, without changing
// what the diff says; git slides each run as far as it goes, merging it
// with any run it meets, then settles it: aligned with a run of the other
// file where it can be, otherwise where the indent heuristic scores best.

// group is a run of changed lines [start, end) of one file; an empty group
// (start == end) stands for the gap before line start.
type group struct{ start, end int }

// firstGroup returns the group at the top of s.
func (s *side) firstGroup() group {
	var g group
	for s.changed(g.end) {
		g.end++
	}
	return g
}

// nextGroup moves g to the next group, possibly empty, and reports false
// when g is the last.
func (s *side) nextGroup(g *group) bool {
	if g.end == s.lines() {
		return false
	}
	g.start = g.end + 1
	g.end = g.start
	for s.changed(g.end) {
		g.end++
	}
	return true
}

// prevGroup moves g to the previous group, possibly empty, and reports
// false when g is the first.
func (s *side) prevGroup(g *group) bool {
	if g.start == 0 {
		return false
	}
	g.end = g.start - 1
	g.start = g.end
	for s.changed(g.start - 1) {
		g.start--
	}
	return true
}

// slideDown moves g down one line if its first line equals the line after
// it, absorbing a group it then touches, and reports whether it moved.
func (s *side) slideDown(g *group) bool {
	if g.end < s.lines() && s.class[g.start] == s.class[g.end] {
		s.setChanged(g.start, false)
		s.setChanged(g.end, true)
		g.start++
		g.end++
		for s.changed(g.end) {
			g.end++
		}
		return true
	}
	return false
}

// slideUp moves g up one line if its last line equals the line before it,
// absorbing a group it then touches, and reports whether it moved.
func (s *side) slideUp(g *group) bool {
	if g.start > 0 && s.class[g.start-1] == s.class[g.end-1] {
		g.start--
		g.end--
		s.setChanged(g.start, true)
		s.setChanged(g.end, false)
		for s.changed(g.start - 1) {
			g.start--
		}
		return true
	}
	return false
}

// maxSliding bounds how many placements of a run the indent heuristic
// scores.
const maxSliding = 100

// compact settles every run of changed lines of s; o is the other file,
// whose group facing s's current one is tracked alongside (each unchanged
// line of one file pairs with one of the other, so the n-th group of s
// faces the n-th group of o). Moving s's run past an unchanged line moves
// o's facing group past its pair.
func (d *Differ) compact(s, o *side) {
	g, og := s.firstGroup(), o.firstGroup()
	for {
		if g.end != g.start {
			var size, earliestEnd int
			endMatchingOther := -1
			for {
				size = g.end - g.start
				endMatchingOther = -1
				for s.slideUp(&g) {
					o.prevGroup(&og)
				}
				earliestEnd = g.end
				if og.end > og.start {
					endMatchingOther = g.end
				}
				for s.slideDown(&g) {
					o.nextGroup(&og)
					if og.end > og.start {
						endMatchingOther = g.end
					}
				}
				if size == g.end-g.start {
					break
				}
				// The run absorbed another while sliding: slide again.
			}

			switch {
			case g.end == earliestEnd:
				// The run cannot move.
			case endMatchingOther != -1:
				// Line the run up with the lowest place where the other
				// file has changes facing it, so that one change reads as
				// one hunk rather than a deletion and an insertion.
				for og.end == og.start {
					s.slideUp(&g)
					o.prevGroup(&og)
				}
			default:
				best := s.bestShift(g, size, earliestEnd)
				for g.end > best {
					s.slideUp(&g)
					o.prevGroup(&og)
				}
			}
		}
		if !s.nextGroup(&g) {
			break
		}
		o.nextGroup(&og)
		// Where both files go on with unchanged lines, every group is empty
		// and facing an empty one: jump to the last of them.
		if g.start == g.end && og.start == og.end {
			if k := min(s.unchangedRun(g.end), o.unchangedRun(og.end)) - 1; k > 0 {
				g.start, g.end = g.start+k, g.end+k
				og.start, og.end = og.start+k, og.end+k
			}
		}
	}
}

// bestShift returns the end the indent heuristic picks for the run g of
// size lines, slid down as far as it goes, which could end as high as
// earliestEnd. A run placed there implies two splits between changed and
// unchanged text, above and below it; each placement is scored by both
// splits, and of the placements that score lowest the lowest in the file
// is taken. Only the last maxSliding placements are tried, and none that
// ends more than one line above the run's bottom-most placement's start.
func (s *side) bestShift(g group, size, earliestEnd int) int {
	shift := max(earliestEnd, g.end-size-1, g.end-maxSliding)
	best := -1
	var bestScore score
	for ; shift <= g.end; shift++ {
		var sc score
		sc.add(s.measure(shift))
		sc.add(s.measure(shift - size))
		if best == -1 || sc.cmp(bestScore) <= 0 {
			bestScore = sc
			best = shift
		}
	}
	return best
}
