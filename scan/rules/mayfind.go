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
	slow := s.prefilter(data)
	// With no keyword in data, as ASCII (not slow), every keyword gate is
	// closed: only a rule without keywords could run.
	if slow || len(s.hits) > 0 || d.ungated {
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
