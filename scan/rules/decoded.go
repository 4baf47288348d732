package rules

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// This file scans decoded text, gitleaks' --max-decode-depth: after the
// rules have run over a buffer, the encoded text in it (encoded.go) is
// decoded and the rules run again over the decoded text in its context;
// what they find there is reported at the place of the encoded text, and
// the decoded text is searched again, to the configured depth.
//
// gitleaks substitutes every decoded segment into the whole fragment and
// scans all of it again at each depth, keeping the findings that overlap a
// decoded segment. Scanning the whole buffer again for every buffer that
// holds a decodable string would double the cost of a scan (most source
// trees hold some), so the rules run over windows instead: each decoded
// segment with decodeContext bytes of its text on either side, the windows
// of segments closer than that merged. A finding needs its keyword and its
// match within the window; the rules' context (a key name before a value,
// the rest of a line) lies well within decodeContext bytes of the value.
//
// Regions. Encoded text at the next depth is not local, though: a
// candidate there can be a run that joins decoded text to kilobytes of
// text beside it (base64 whose padding a JSON encoder wrote as \u003d is
// one run only once the \u003d is decoded), and which candidates a regex
// scan finds depends on where the one before ended. So the text of each
// depth is built, and searched for encoded text, in regions of whole
// lines: the lines that hold decoded segments or lie within decodeContext
// bytes of one, the regions of segments whose lines meet merged, so that
// all the segments of a line are in one region. Candidates do not cross
// lines (but for a run of U+XXXX code points, whose white space may be a
// newline: a line that ends in one does not end a region), so a region's
// candidates are those of gitleaks' whole text on those lines, and lines
// outside every region hold nothing new to decode: their text, and so
// their candidates, are those of the depth above. As gitleaks does, every
// candidate of a region is decoded, not only those that touch decoded
// text: a run that the depth above could not decode whole can leave a new
// candidate beside it that touches nothing decoded. The cost beyond the
// windows is a copy of a region's lines and a search of them for
// candidates, about a nanosecond a byte, and only where text decodes.
//
// Chunk boundaries. A decoded finding spans at least its encoded segment
// (as in gitleaks, a match inside decoded text is placed on the whole
// segment, and one that reaches past it on the segment plus what it
// reaches), so it ends at or after the segment's end, and what decides it
// lies within maxSegment+decodeContext bytes before its end and
// decodeContext bytes after. Decoding raises MaxWindow to the detector's
// encodings' window, more than both, so the chunk that owns the finding
// (the one with MaxWindow bytes on each side of its end) sees the segment
// and its context whole, and the chunks that see it cut (a run that
// touches a buffer's edge) do not own it: an encoded string across a chunk
// boundary is found once, by the chunk that holds it. The price is the
// overlap a chunked object carries from chunk to chunk (2*MaxWindow; see
// encodings for the two budgets); objects that fit one chunk, most files
// and every diff of a history, pay nothing. Nested encodings can reach
// further (a run of depth 2 beside a long segment of depth 1); a line
// longer than the window, cut by a chunk, is where a chunked scan and a
// whole one can differ, as with runs beyond the budget.
//
// Repeats. gitleaks scans the whole text again at each depth and keeps
// every match that touches text decoded at that depth, so a secret found
// at depth 1 beside (or inside) text decoded at depth 2 is reported again,
// tagged decode-depth:2; and it reports every match, so one secret twice
// in one encoded string (both placed on the string) is two findings. With
// Settings.GitleaksDecoding both are kept, as gitleaks reports them;
// otherwise a rule's finding at one place with one secret is reported
// once, at the lowest depth.
//
// Spanning matches. A few rules match across lines without a bound (a
// private key's `[\s\S-]{64,}?`, a Kubernetes secret's YAML, a curl
// command's continuation lines: rule.spans), so a match can overlap a
// decoded segment from further away than any window reaches: an armored
// PGP key whose user-ID line happens to be base64 of printable text is
// one match from its BEGIN line to its END line at depth 1 as at depth 0,
// and gitleaks reports it at both. With Settings.GitleaksDecoding, when
// such a rule's keyword occurs in data, every depth is one region, the
// whole text: the spanning rules run over all of it and the others in
// their windows. When the keyword first occurs in text decoded at a
// deeper level, that level and those below are one region each: the
// whole of the region above (a key wholly inside encoded text is inside
// it; one whose BEGIN line is encoded twice and whose END line lies
// kilobytes away in plain text is where this and gitleaks can differ).
// The cost is a keyword pass and the spanning rules' windows over the
// whole buffer, on buffers that both hold such a keyword and decode.
// Spindle's own decoding keeps to windows: there a whole key found again
// because one of its lines decodes is the same finding with a line
// garbled.
//
// Generic findings. gitleaks drops a generic rule's finding when a
// specific rule's finding on the same line holds its secret, over the
// findings of every depth together and with the lines of the original
// text (where decoded findings are placed). The windows apply that filter
// to their own findings with their own lines, which can differ (decoded
// text has lines of its own, and a window holds part of a line), so
// decoded and raw findings are filtered again together
// (dropGenericAcrossDepths).
//
// Markup. \xXX escapes and HTML references (spindle's kinds) occur in
// source code beside text that is not encoded at all, and decoding them
// can join a line's markup to what follows into a match nobody wrote (a
// private key's header in an HTML fragment, running on into the next
// lines). A finding that owes to one of these kinds must therefore lie on
// a single line of the scanned text.

const decodeContext = 512

// window is what a decoded finding depends on: a whole segment and its
// context on either side, the least MaxWindow can be with decoding on.
func (en encodings) window() int { return en.maxSegment + 2*decodeContext }

// decodeState is a Scratch's working memory for decoding.
type decodeState struct {
	data   []byte // the buffer Scan was given
	levels []*decodeLevel
	out    []found   // decoded findings, in data's offsets
	lines  []lineRef // dropGenericAcrossDepths' working list
	result []found   // what scanDecoded returns
}

// lineRef is a finding of any depth and the line of data it starts on.
type lineRef struct {
	line int
	f    *found
}

// decodeLevel is one depth of decoding: the segments decoded from the text
// of the level above (data at depth 1), and the region being scanned.
type decodeLevel struct {
	scratch *Scratch  // scans this level's windows
	cands   []segment // candidates, then the decoded segments of the pass
	dec     []byte    // decoded bytes of every segment of the pass
	segs    []segment // the current region's segments: lo, hi in the text above; dlo, dhi in text
	orig    [][2]int  // per segment of segs: its place in data
	rlo     int       // where text starts in the text above
	text    []byte    // the current region: the text above with segs decoded
}

func (s *Scratch) level(j int) *decodeLevel {
	st := s.dec
	for len(st.levels) <= j {
		st.levels = append(st.levels, &decodeLevel{scratch: s.d.NewScratch()})
	}
	return st.levels[j]
}

// scanDecoded returns the findings in the decoded text of data, sorted by
// Start. It must follow collect over the same data: s.found holds the
// findings of the rules over data itself (depth 0), and gitleaks' generic
// filter, which takes the findings of every depth together, may mark some
// of them dropped (dropGenericAcrossDepths).
//
// With Settings.GitleaksDecoding it returns gitleaks' list: every finding
// of every depth, a finding repeated at each depth where it touches newly
// decoded text, and the two matches of one secret found twice in one
// encoded string (which share its span) both. Each match is found once:
// the regions of a depth are disjoint, and so are the windows of a region.
// Otherwise a rule's finding at one place with one secret is reported
// once: at depth 0 if the rules found it in data itself, else at the
// lowest depth.
func (d *Detector) scanDecoded(s *Scratch, path string, data []byte) []found {
	if s.dec == nil {
		s.dec = &decodeState{}
	}
	st := s.dec
	st.data, st.out = data, st.out[:0]
	d.decodePass(s, path, 1, data, nil, false)
	st.data = nil
	if len(st.out) == 0 {
		return nil
	}
	d.dropGenericAcrossDepths(s, data)
	slices.SortFunc(st.out, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.rule, b.rule),
			strings.Compare(a.Secret, b.Secret), cmp.Compare(decodeDepthOf(a.Tags), decodeDepthOf(b.Tags)),
			slices.Compare(a.Tags, b.Tags), strings.Compare(a.Match.Match, b.Match.Match))
	})
	if d.gitleaksDec {
		return st.out
	}
	res := keepOnce(st.result[:0], st.out, s.found)
	clear(st.out) // drop the references to this buffer's strings
	st.result = res
	return res
}

// keepOnce appends to res the findings of out (sorted, lowest depth first
// among equal ones) that spindle's own decoding reports: one per rule,
// span and secret, and none that raw, the findings of depth 0 sorted by
// Start, already reports.
func keepOnce(res []found, out []found, raw []found) []found {
	for i := range out {
		f := &out[i]
		if i > 0 && f.Start == out[i-1].Start && f.End == out[i-1].End && f.rule == out[i-1].rule && f.Secret == out[i-1].Secret {
			continue
		}
		j, _ := slices.BinarySearchFunc(raw, f.Start, func(r found, start int) int { return cmp.Compare(r.Start, start) })
		dup := false
		for ; j < len(raw) && raw[j].Start == f.Start; j++ {
			if r := &raw[j]; !r.dropped && r.End == f.End && r.rule == f.rule && r.Secret == f.Secret {
				dup = true
				break
			}
		}
		if !dup {
			res = append(res, *f)
		}
	}
	return res
}

// dropGenericAcrossDepths applies gitleaks' generic filter (finding.go's
// dropGenericDuplicates) to the findings of every depth together, as
// gitleaks applies it to all the findings of a fragment: a finding of a
// generic rule, raw (s.found) or decoded (s.dec.out), is dropped when a
// finding of a non-generic rule, of any depth, starts on the same line of
// data and has a secret containing its secret; spindle's own built-in
// rules give way the same way to every other rule (ruleRank). Lines are those of data,
// where decoded findings are placed: the lines of a window's text (on
// which collect filtered the window's findings) can differ, since decoded
// text can hold newlines.
func (d *Detector) dropGenericAcrossDepths(s *Scratch, data []byte) {
	st := s.dec
	yields := false
	for i := range st.out {
		if d.rules[st.out[i].rule].rank < maxRank {
			yields = true
			break
		}
	}
	for i := range s.found {
		if !yields && !s.found[i].dropped && d.rules[s.found[i].rule].rank < maxRank {
			yields = true
		}
	}
	if !yields {
		return
	}
	refs := st.lines[:0]
	for i := range s.found {
		if f := &s.found[i]; !f.dropped {
			refs = append(refs, lineRef{s.newlinesBefore(data, f.Start), f})
		}
	}
	for i := range st.out {
		f := &st.out[i]
		refs = append(refs, lineRef{s.newlinesBefore(data, f.Start), f})
	}
	slices.SortFunc(refs, func(a, b lineRef) int { return cmp.Compare(a.line, b.line) })
	for lo := 0; lo < len(refs); {
		hi := lo + 1
		for hi < len(refs) && refs[hi].line == refs[lo].line {
			hi++
		}
		line := refs[lo:hi]
		for _, g := range line {
			rank := d.rules[g.f.rule].rank
			if rank == maxRank {
				continue
			}
			for _, o := range line {
				if o.f.rule != g.f.rule && d.rules[o.f.rule].rank > rank && strings.Contains(o.f.Secret, g.f.Secret) {
					g.f.dropped = true
					break
				}
			}
		}
		lo = hi
	}
	clear(refs)
	st.lines = refs[:0]
	st.out = slices.DeleteFunc(st.out, func(f found) bool { return f.dropped })
}

// decodeDepthOf is the depth a decoded finding's tags name (decodedTags
// puts it last).
func decodeDepthOf(tags []string) int {
	if len(tags) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(tags[len(tags)-1], "decode-depth:"))
	return n
}

// decodePass decodes, at depth j, the candidates in text, scans the
// regions around them, and goes one level deeper in each region. text is
// data at depth 1, else a region of the depth above, whose decoded ranges
// are focus (sorted, disjoint). As in gitleaks, every candidate is tried,
// not only those that overlap focus: a candidate beside decoded text can
// be new without touching it (a run that ended at a code point the level
// above could not decode, now one candidate shorter), and one that is not
// new did not decode above and does not now. A candidate takes the kinds
// of the decoded ranges it overlaps, or touches, as in gitleaks.
//
// whole says that the depth above was scanned whole for the rules whose
// matches span lines (see Spanning matches above); this depth is then
// too, and so is any depth whose decoded text holds such a rule's keyword.
func (d *Detector) decodePass(s *Scratch, path string, j int, text []byte, focus []segment, whole bool) {
	L := s.level(j)
	en := d.enc
	if s.whole && d.gitleaksDec {
		en.maxSegment = max(en.maxSegment, len(text)) // no chunk to fit in (ScanWhole)
	}
	L.cands = en.findCandidates(text, 0, len(text), L.cands[:0])
	L.dec = L.dec[:0]
	segs := L.cands[:0]
	next := 0 // the first of focus that does not end before the candidate
	for _, c := range L.cands {
		if c.kind == 0 {
			continue
		}
		c.kinds = c.kind
		for next < len(focus) && focus[next].dhi < c.lo {
			next++
		}
		for _, f := range focus[next:] {
			if f.dlo > c.hi {
				break
			}
			c.kinds |= f.kinds
		}
		n := len(L.dec)
		var ok bool
		if L.dec, ok = decode(L.dec, text[c.lo:c.hi], c.kind); !ok {
			continue
		}
		c.dlo, c.dhi = n, len(L.dec) // in the arena until the region is built
		segs = append(segs, c)
	}
	if len(segs) == 0 {
		return
	}
	if d.spanning != nil && !whole {
		// At depth 1, s.count holds the keyword hits in data itself (Scan
		// ran collect over it); deeper, the text above was data's with
		// decoded text in it, whose keywords were looked for in turn.
		whole = j == 1 && s.spanningGateOpen()
		if !whole {
			L.scratch.prefilter(L.dec)
			whole = L.scratch.spanningGateOpen()
		}
	}
	if whole {
		d.scanRegion(s, path, j, text, segs, 0, len(text), true)
		return
	}
	// Regions: whole lines (see Regions above), each line searched for its
	// ends once.
	for a, end := 0, 0; a < len(segs); {
		lo := lineStart(text, max(end, segs[a].lo-decodeContext), end)
		hi := lineEnd(text, min(len(text), max(lo, segs[a].hi+decodeContext)))
		b := a + 1
		for ; b < len(segs); b++ {
			if x := segs[b].lo - decodeContext; x > hi && lineStart(text, x, hi) > hi {
				break
			}
			if x := min(len(text), segs[b].hi+decodeContext); x > hi {
				hi = lineEnd(text, x)
			}
		}
		d.scanRegion(s, path, j, text, segs[a:b], lo, hi, false)
		a, end = b, hi
	}
}

// lineStart returns the start of the line of text that holds x, looking
// back no further than floor, where it stops: the position after a
// newline, or 0. A newline after a U+XXXX code point does not end a line
// here, since a run of them (encoded.go) may go on past it.
func lineStart(text []byte, x, floor int) int {
	for x > floor {
		i := bytes.LastIndexByte(text[floor:x], '\n')
		if i < 0 {
			return floor
		}
		i += floor
		if !codePointBefore(text, i) {
			return i + 1
		}
		x = i
	}
	return floor
}

// lineEnd returns the end of the line of text that holds x: after its
// newline, or len(text). See lineStart for code points.
func lineEnd(text []byte, x int) int {
	for x < len(text) {
		i := bytes.IndexByte(text[x:], '\n')
		if i < 0 {
			return len(text)
		}
		i += x
		if !codePointBefore(text, i) {
			return i + 1
		}
		x = i + 1
	}
	return len(text)
}

// codePointBefore reports whether the newline at text[i] follows a U+XXXX
// code point.
func codePointBefore(text []byte, i int) bool {
	return i >= 6 && text[i-6] == 'U' && text[i-5] == '+' && isHex4(text[i-4:i])
}

// spanningGateOpen reports whether a rule whose matches span lines may
// run on the buffer s.prefilter last searched.
func (s *Scratch) spanningGateOpen() bool {
	for i, r := range s.d.rules {
		if !s.d.spanning[i] {
			continue
		}
		if r.gate == nil {
			return true
		}
		for _, p := range r.gate {
			if s.count[p] > 0 {
				return true
			}
		}
	}
	return false
}

// scanRegion builds the region text[rlo:rhi] of segs (consecutive decoded
// segments of text) at depth j, scans its windows, and decodes on inside
// it. whole says that the region is the whole text and that the rules
// whose matches span lines are run over all of it, the others in the
// windows.
func (d *Detector) scanRegion(s *Scratch, path string, j int, text []byte, segs []segment, rlo, rhi int, whole bool) {
	L := s.level(j)
	L.rlo = rlo
	L.text = L.text[:0]
	L.orig = L.orig[:0]
	at := rlo
	for i := range segs {
		sg := &segs[i]
		L.text = append(L.text, text[at:sg.lo]...)
		dec := L.dec[sg.dlo:sg.dhi]
		sg.dlo = len(L.text)
		L.text = append(L.text, dec...)
		sg.dhi = len(L.text)
		at = sg.hi
		lo, hi := s.mapUp(j-1, sg.lo, sg.hi)
		L.orig = append(L.orig, [2]int{lo, hi})
	}
	L.text = append(L.text, text[at:rhi]...)
	L.segs = segs
	if whole {
		L.scratch.only = d.windowed
	}
	for a := 0; a < len(segs); {
		b := a + 1
		for b < len(segs) && segs[b].lo-segs[b-1].hi <= 2*decodeContext {
			b++
		}
		wlo := max(0, segs[a].dlo-decodeContext)
		whi := min(len(L.text), segs[b-1].dhi+decodeContext)
		d.keepDecoded(s, j, segs[a:b], wlo, d.collect(L.scratch, path, L.text[wlo:whi]))
		a = b
	}
	if whole {
		L.scratch.only = d.spanning
		d.keepDecoded(s, j, segs, 0, d.collect(L.scratch, path, L.text))
		L.scratch.only = nil
	}
	if j < d.decodeDepth {
		// The region text is L.text; the next level overwrites only its
		// own level's state.
		d.decodePass(s, path, j+1, L.text, segs, whole)
	}
}

// keepDecoded reports the findings fs of the rules in the region text of
// depth j from offset wlo on that overlap one of segs. The rules run over
// windows: segs, consecutive segments of the region closer than
// 2*decodeContext to each other, with decodeContext bytes of the region's
// text on either side. The windows of a region are disjoint: the segments
// of the next lie further away. The rules whose matches span lines run
// over the whole text instead when the level is scanned whole (wlo is
// then 0 and segs all the level's segments).
func (d *Detector) keepDecoded(s *Scratch, j int, segs []segment, wlo int, fs []found) {
	data := s.dec.data
	for _, f := range fs {
		if f.rawStart < 0 {
			continue
		}
		// A generic finding that collect dropped for a specific one on
		// its line of the window is judged again with the lines of data,
		// among the findings of every depth (dropGenericAcrossDepths).
		f.dropped = false
		// gitleaks decides overlaps, and places the match, with the
		// regex's match before newlines are trimmed from it.
		start, end := wlo+f.rawStart, wlo+f.rawEnd
		var kinds encKind
		for _, sg := range segs {
			if sg.dlo <= end && start <= sg.dhi {
				kinds |= sg.kinds
			}
		}
		if kinds == 0 {
			continue // found in the text around the segments: the level above reports it
		}
		lo, hi := s.mapUp(j, start, end)
		if kinds&(encEscape|encHTML) != 0 && bytes.IndexByte(data[lo:hi], '\n') >= 0 {
			continue // a match across lines of markup (see Markup above)
		}
		if !d.ignoreAllow {
			if a, b := s.gitleaksLine(data, lo, hi); s.inlineAllowed(data, a, b) {
				continue
			}
		}
		f.Start, f.End, f.SecretStart, f.SecretEnd = lo, hi, lo, hi
		if lo < hi && data[lo] == '\n' {
			f.Start++ // gitleaks puts a match that starts on a newline on the next line
		}
		f.Tags = decodedTags(f.Tags, kinds, j)
		f.line = -1
		s.dec.out = append(s.dec.out, f)
	}
}

// mapUp maps the range [a, b) of depth j's region text to offsets in the
// buffer Scan was given (depth 0), as gitleaks does: a range inside a
// decoded segment is placed on the segment's encoded text, one that
// reaches past decoded segments on their encoded text plus what it
// reaches, and text outside segments maps to itself.
func (s *Scratch) mapUp(j, a, b int) (int, int) {
	for ; j > 0; j-- {
		L := s.dec.levels[j]
		lo, hi, any := 0, 0, false
		// The segments are sorted and disjoint: start at the first that
		// does not end before a.
		i, _ := slices.BinarySearchFunc(L.segs, a, func(sg segment, a int) int { return cmp.Compare(sg.dhi, a) })
		for ; i < len(L.segs) && L.segs[i].dlo <= b; i++ {
			sg := L.segs[i]
			if sg.dlo <= a && b <= sg.dhi {
				return L.orig[i][0], L.orig[i][1]
			}
			x, y := sg.lo+min(a-sg.dlo, 0), sg.hi+max(b-sg.dhi, 0)
			if !any {
				lo, hi, any = x, y, true
			} else {
				lo, hi = min(lo, x), max(hi, y)
			}
		}
		if !any {
			lo, hi = L.rawUp(a), L.rawUp(b)
		}
		a, b = lo, hi
	}
	return a, b
}

// rawUp maps an offset of the region text outside its decoded segments to
// the text above.
func (L *decodeLevel) rawUp(x int) int {
	// The last segment that ends at or before x decides the shift.
	i, _ := slices.BinarySearchFunc(L.segs, x+1, func(sg segment, t int) int { return cmp.Compare(sg.dhi, t) })
	if i == 0 {
		return L.rlo + x
	}
	sg := L.segs[i-1]
	return sg.hi + (x - sg.dhi)
}

// decodedTags returns the rule's tags followed by gitleaks' decoding tags:
// decoded:<kind> for each kind of encoding the finding went through, then
// decode-depth:<n>.
func decodedTags(ruleTags []string, kinds encKind, depth int) []string {
	tags := make([]string, 0, len(ruleTags)+3)
	tags = append(tags, ruleTags...)
	for i, name := range encNames {
		if kinds&(1<<i) != 0 {
			tags = append(tags, "decoded:"+name)
		}
	}
	return append(tags, "decode-depth:"+strconv.Itoa(depth))
}
