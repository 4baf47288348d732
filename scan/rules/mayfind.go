package rules

// MayFind reports whether Scan (with ScanPath) could report anything for
// data at path. It is false only when that is certain: the path is not
// skipped, no path-only rule applies to it, every rule that applies has
// keywords and none of them occurs in data (as Scan's own keyword gate
// decides it, lower-casing included), and, with decoding on, data holds
// no encoded text that decoding could turn into a keyword. A history scan
// asks it about the region of a file that a commit changed, to skip the
// line diff of changes that cannot hold a finding.
func (s *Scratch) MayFind(path string, data []byte) bool {
	s.setPath(path)
	if s.skip {
		return false
	}
	d := s.d
	for _, i := range d.pathOnly {
		if s.active[i] {
			return true
		}
	}
	if len(data) == 0 {
		return false
	}
	if s.gateHit(data) {
		return true
	}
	slow := s.sortHits(data)
	// Not slow, every hit is of an ASCII keyword, and gateHit has looked
	// for each hit's rules: the keyword gates are decided, only a rule
	// without keywords could run. Slow (rare runes, or a non-ASCII keyword
	// in play), a gate is decided on the lower-cased text, as Scan does.
	if slow || d.ungated {
		for _, r := range d.rules {
			if r.PathOnly || r.skipReport || !s.active[r.index] {
				continue
			}
			if s.gateOpen(r, data, slow) {
				return true
			}
		}
	}
	if d.decodeDepth > 0 && len(d.enc.findCandidates(data, 0, len(data), nil)) > 0 {
		return true
	}
	return false
}

// gateHit runs the keyword automaton over data in pieces that double in
// size from mayFindPiece, and reports whether it met a keyword of ASCII
// bytes that opens the gate of a rule active for the path: then MayFind
// is true whatever else data holds (the keyword occurs in the lower-cased
// text as well, so the gate is open on Scan's slow path too), and the
// rest of data is not searched. Otherwise s.hits holds every occurrence
// in data, as prefilter's search finds them. A change that can hold a
// finding usually shows a keyword early in the region, and a history
// scan asks about a region of a few kilobytes for most changes.
func (s *Scratch) gateHit(data []byte) bool {
	d := s.d
	kw := d.keywords
	overlap := kw.maxLen - 1
	s.hits = s.hits[:0]
	piece := mayFindPiece
	for lo := 0; lo < len(data); lo += piece {
		if lo > 0 {
			piece = min(2*piece, maxMayFindPiece)
		}
		hi := min(lo+piece, len(data))
		// Every occurrence that ends in (lo, hi] starts at or after from;
		// those that end at or before lo were the last piece's.
		from := max(lo-overlap, 0)
		n := len(s.hits)
		s.hits = kw.find(data[from:hi], s.hits, &s.kw)
		k := n
		for _, h := range s.hits[n:] {
			h.end += from
			if h.end <= lo {
				continue
			}
			s.hits[k] = h
			k++
			if h.pattern >= d.rareFrom {
				continue // a rare rune: no keyword
			}
			for _, i := range d.opens[h.pattern] {
				if s.active[i] {
					s.hits = s.hits[:k]
					s.forget()
					return true
				}
			}
		}
		s.hits = s.hits[:k]
	}
	return false
}

// mayFindPiece and maxMayFindPiece bound the pieces gateHit searches.
const (
	mayFindPiece    = 1 << 10
	maxMayFindPiece = 64 << 10
)
