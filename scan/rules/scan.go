package rules

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Scratch is one goroutine's working memory for Scan: the keyword hits,
// windows and findings of the buffer being scanned, and the rules active
// for the last path seen. Reusing it makes Scan allocation-free except for
// reported findings and regex work inside windows that may match. A
// Scratch must not be used by two goroutines at once.
type Scratch struct {
	d *Detector

	hits      []hit
	kw        keywordScan
	count     []int32 // per pattern: hits in this buffer
	offset    []int32 // per pattern: start of its hits in byPattern (len npatterns+1)
	fill      []int32
	byPattern []int // hit end offsets grouped by pattern, each group ascending
	spans     []span
	found     []found
	aux       []found

	lower        []byte // strings.ToLower of the buffer, on the slow path only
	lowerDone    bool
	inLower      []bool // per pattern: it occurs in lower
	lowerHits    []hit
	lowerKW      keywordScan
	validity     int8 // 0: not yet known, 1: data is valid UTF-8, 2: it is not
	lines        lineIndex
	lineVerdicts []lineVerdict // recent allowlist verdicts on lines of this buffer

	rareOnly bool // the buffer is on the slow path for rare runes alone (prefilter)

	path    string
	pathSet bool
	skip    bool
	active  []bool // per rule: not excluded for path by its path regex or allowlists
	only    []bool // per rule: it runs; nil: every rule runs (see exampleScratch)

	dec *decodeState // decoding's working memory (decoded.go); nil until needed
	// whole says the buffer is a whole object (ScanWhole): gitleaks'
	// decoding then has no budget on the length of encoded text.
	whole bool
}

type span struct{ lo, hi int }

// found is a finding under construction.
type found struct {
	Match
	rule     int
	rawStart int  // start of the regex match, before trimming newlines; -1 for a path match
	rawEnd   int  // its end, before trimming newlines (decoded.go places a decoded match with both)
	line     int  // line index in the buffer; -1 until computed
	dropped  bool // removed by dropGenericDuplicates, or implausible under Settings.SkipImplausible

	implausible bool // its rule's check tagged it (see checksum.go)
}

// NewScratch returns working memory for Scan.
func (d *Detector) NewScratch() *Scratch {
	s := &Scratch{
		d:      d,
		count:  make([]int32, d.npatterns),
		offset: make([]int32, d.npatterns+1),
		fill:   make([]int32, d.npatterns),
		active: make([]bool, len(d.rules)),
	}
	for i := range s.active {
		s.active[i] = true // setPath updates those in d.pathRules
	}
	return s
}

// setPath decides, once per path, what the path alone decides: whether a
// global allowlist skips the file, and which rules apply to it (the rules
// in d.pathRules; the others always apply). The engine asks about a file's
// path several times (before reading it, for its path-only rules, for
// each chunk), and the answers are the same every time.
func (s *Scratch) setPath(path string) {
	if s.pathSet && s.path == path {
		return
	}
	d := s.d
	s.path, s.pathSet = path, true
	s.skip = d.SkipPath(path)
	for _, i := range d.pathRules {
		r := d.rules[i]
		s.active[i] = !fileAllowed(r.allow, path) && (r.path == nil || r.path.MatchString(path))
	}
}

// SkipPath is Detector.SkipPath, remembered: a SkipPath, ScanPath or Scan
// of the same path with this Scratch right after it does not evaluate the
// path's regexes again.
func (s *Scratch) SkipPath(path string) bool {
	s.setPath(path)
	return s.skip
}

// ScanPath is Detector.ScanPath with the verdicts the Scratch remembers
// for path (see SkipPath).
func (s *Scratch) ScanPath(path string, emit func(Match)) {
	s.setPath(path)
	if s.skip {
		return
	}
	for _, i := range s.d.pathOnly {
		if r := s.d.rules[i]; s.active[i] && (s.only == nil || s.only[i]) {
			emit(Match{
				RuleID:      r.ID,
				Description: r.Description,
				Tags:        r.Tags,
				Match:       "file detected: " + path,
			})
		}
	}
}

// Scan reports the findings of the content rules in data, the content of
// the file at path (the path decides path-scoped rules and allowlists).
// Findings are emitted in order of Start. The result is the same as
// gitleaks' for a fragment holding data: for every rule whose keyword
// occurs in data (or that has none), every match of its regex over all of
// data, filtered by entropy, inline gitleaks:allow/spindle:allow, global
// and rule allowlists, composite-rule requirements and gitleaks' removal
// of generic findings that a specific rule also made. Scan uses windows
// around keyword hits to get there faster; doc.go explains why the result
// is the same.
//
// Unless decoding is off (Settings.MaxDecodeDepth), Scan then decodes the
// base64, hex, percent-encoded, escaped and HTML-encoded text in data and
// scans the decoded text, as gitleaks does: a finding in decoded text is
// placed on the encoded text (Start to End span it; Match and Secret are
// decoded) and tagged decoded:<kind> and decode-depth:<n>.
//
// Scan is safe for concurrent use with distinct Scratch values. A nil or
// foreign Scratch is replaced by a fresh one.
func (d *Detector) Scan(s *Scratch, path string, data []byte, emit func(Match)) {
	if s == nil || s.d != d {
		s = d.NewScratch()
	}
	s.whole = false
	d.scan(s, path, data, emit)
}

// ScanWhole is Scan for data that is all of an object, not a chunk of it:
// with Settings.GitleaksDecoding, encoded text is decoded however long it
// is, as gitleaks decodes a fragment, where Scan keeps to the budget that
// chunked scans can carry (MaxWindow). Otherwise it is Scan.
func (d *Detector) ScanWhole(s *Scratch, path string, data []byte, emit func(Match)) {
	if s == nil || s.d != d {
		s = d.NewScratch()
	}
	s.whole = true
	d.scan(s, path, data, emit)
	s.whole = false
	if len(data) > keepAfterWhole {
		s.dropLarge()
	}
}

// keepAfterWhole is the largest buffer after whose ScanWhole a Scratch
// keeps the working memory it grew: a worker meets an object of megabytes
// now and then, and should not hold its share of memory afterwards.
const keepAfterWhole = 1 << 20

// dropLarge lets go of the working memory that grows with the buffer
// scanned (every piece of it is reset for each buffer and grown again on
// demand).
func (s *Scratch) dropLarge() {
	s.hits, s.byPattern, s.spans, s.found, s.aux = nil, nil, nil, nil, nil
	s.lower, s.lowerHits = nil, nil
	s.lines = lineIndex{}
	s.dec = nil
}

func (d *Detector) scan(s *Scratch, path string, data []byte, emit func(Match)) {
	raw := d.collect(s, path, data)
	var dec []found
	if d.decodeDepth > 0 && len(data) > 0 && !s.skip {
		dec = d.scanDecoded(s, path, data)
	}
	// Both lists are sorted by Start: merge them.
	for len(raw) > 0 || len(dec) > 0 {
		if len(dec) == 0 || len(raw) > 0 && raw[0].Start <= dec[0].Start {
			if !raw[0].dropped {
				emit(raw[0].Match)
			}
			raw = raw[1:]
			continue
		}
		emit(dec[0].Match)
		dec = dec[1:]
	}
}

// collect runs the rules over data and returns their findings sorted by
// Start, those that gitleaks' final filter removes marked dropped. The
// slice is s.found, valid until s scans again.
func (d *Detector) collect(s *Scratch, path string, data []byte) []found {
	s.setPath(path)
	s.found = s.found[:0]
	if s.skip || len(data) == 0 {
		return nil
	}
	slow := s.prefilter(data)
	for _, r := range d.rules {
		if r.PathOnly || r.skipReport || !s.active[r.index] || (s.only != nil && !s.only[r.index]) || !s.gateOpen(r, data, slow) {
			continue
		}
		start := len(s.found)
		s.found = d.findRule(s, r, path, data, slow, s.found)
		if len(r.required) > 0 && len(s.found) > start {
			s.found = d.applyRequired(s, r, path, data, slow, s.found, start)
		}
	}
	if len(s.found) == 0 {
		return nil
	}
	slices.SortFunc(s.found, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.rule, b.rule))
	})
	d.dropGenericDuplicates(s, data)
	if d.skipImplausible {
		for i := range s.found {
			s.found[i].dropped = s.found[i].dropped || s.found[i].implausible
		}
	}
	return s.found
}

// prefilter runs the keyword automaton over data, groups the hits by
// pattern, and reports whether the buffer needs the slow path: it holds a
// rune on which ASCII folding and gitleaks' strings.ToLower disagree, or a
// non-ASCII byte while some keyword is non-ASCII.
func (s *Scratch) prefilter(data []byte) (slow bool) {
	s.hits = s.d.keywords.find(data, s.hits[:0], &s.kw)
	return s.sortHits(data)
}

// sortHits is prefilter once s.hits holds every keyword occurrence in
// data.
func (s *Scratch) sortHits(data []byte) (slow bool) {
	d := s.d
	clear(s.count)
	s.rareOnly = false
	for _, h := range s.hits {
		s.count[h.pattern]++
		if h.pattern >= d.rareFrom {
			slow = true
		}
	}
	if d.nonASCII {
		for _, c := range data {
			if c >= utf8.RuneSelf {
				return s.group(true)
			}
		}
	}
	// Only rare runes make this buffer slow: matches away from them are
	// found in windows as on the fast path (see rawMatches).
	s.rareOnly = slow
	return s.group(slow)
}

// group groups the hits of the buffer just searched by pattern and resets
// what the Scratch knows of the previous buffer; it returns slow.
func (s *Scratch) group(slow bool) bool {
	var sum int32
	for p, n := range s.count {
		s.offset[p], s.fill[p] = sum, sum
		sum += n
	}
	s.offset[len(s.count)] = sum
	s.byPattern = slices.Grow(s.byPattern[:0], int(sum))[:sum]
	for _, h := range s.hits {
		s.byPattern[s.fill[h.pattern]] = h.end
		s.fill[h.pattern]++
	}
	s.forget()
	return slow
}

// forget resets what the Scratch knows of the buffer it searched last.
func (s *Scratch) forget() {
	s.lowerDone, s.validity = false, 0
	s.lines.built, s.lines.allowBuilt, s.lines.crAt = false, false, 0
	s.lineVerdicts = s.lineVerdicts[:0]
}

// gateOpen is gitleaks' keyword test: does any of the rule's keywords occur
// in the lower-cased buffer?
func (s *Scratch) gateOpen(r *rule, data []byte, slow bool) bool {
	if r.gate == nil {
		return true
	}
	if !slow {
		for _, p := range r.gate {
			if s.count[p] > 0 {
				return true
			}
		}
		return false
	}
	if !s.lowerDone {
		// gitleaks lower-cases the buffer with strings.ToLower and looks
		// for each keyword in it. One pass of the automaton over that text
		// finds them all: it holds no upper-case ASCII, and the automaton
		// compares the folded keywords byte for byte, folding only ASCII.
		if s.inLower == nil {
			s.inLower = make([]bool, s.d.npatterns)
		}
		clear(s.inLower)
		if s.rareOnly {
			s.lowerAroundRare(data)
		} else {
			s.lower = append(s.lower[:0], strings.ToLower(string(data))...)
			s.lowerHits = s.d.keywords.find(s.lower, s.lowerHits[:0], &s.lowerKW)
			for _, h := range s.lowerHits {
				s.inLower[h.pattern] = true
			}
		}
		s.lowerDone = true
	}
	for _, p := range r.gate {
		if s.inLower[p] {
			return true
		}
	}
	return false
}

// findRule appends the rule's findings in data to out.
func (d *Detector) findRule(s *Scratch, r *rule, path string, data []byte, slow bool, out []found) []found {
	if r.PathOnly {
		if s.active[r.index] && r.path != nil {
			out = append(out, found{Match: Match{RuleID: r.ID, Description: r.Description, Tags: r.Tags,
				Match: "file detected: " + path}, rule: r.index, rawStart: -1, line: -1})
		}
		return out
	}
	if !s.active[r.index] {
		return out
	}
	s.rawMatches(r, data, slow, func(m0, m1 int) {
		out = d.finish(s, r, path, data, m0, m1, out)
	})
	return out
}

// rawMatches calls fn with every match of the rule's regex in data, in
// order: the same matches as r.reference().FindAllIndex(data, -1), found in
// windows around anchor hits when the rule has anchors and the buffer is on
// the fast path. The gate is not checked here. A text (a window, or the
// whole buffer) is searched only if it holds the rule's required run and
// its match core matches: both are necessary for a match, the second
// also sufficient (see runs.go and matchCore).
func (s *Scratch) rawMatches(r *rule, data []byte, slow bool, fn func(m0, m1 int)) {
	rare := slow && s.rareOnly
	if slow && !rare || r.anchors == nil {
		s.wholeMatches(r, data, slow, fn)
		return
	}
	for _, w := range s.windows(r, data, rare) {
		v := 0
		if w.lo > 0 {
			v |= 1
		}
		if w.hi < len(data) {
			v |= 2
		}
		win := data[w.lo:w.hi]
		if rare && hasRareRune(win) {
			// As wholeMatches' slow path, over the window: the regex
			// itself, which folds the rare runes as gitleaks' does.
			valid := int8(-1)
			for _, m := range r.findForms().pick(v, len(win), validity(win, &valid)).FindAllIndex(win, -1) {
				fn(w.lo+m[0], w.lo+m[1])
			}
			continue
		}
		if r.run != nil && !r.run.has(win) {
			continue
		}
		if !r.stdForms() {
			// No window forms (see stdForms); nothing was reported yet,
			// since this is the first window to need a regex.
			s.wholeMatches(r, data, slow, fn)
			return
		}
		matchesIn(r, win, v, -1, w.lo, fn)
	}
}

// wholeMatches is rawMatches over the whole buffer.
func (s *Scratch) wholeMatches(r *rule, data []byte, slow bool, fn func(m0, m1 int)) {
	if !slow && r.run != nil && !r.run.has(data) {
		return // no rare rune, so the run holds (runs.go)
	}
	if !r.stdForms() {
		for _, m := range r.reference().FindAllIndex(data, -1) {
			fn(m[0], m[1])
		}
		return
	}
	if slow {
		// A lazy prefix holds only on text without rare runes (prefix.go);
		// the regex itself holds everywhere.
		valid := func() bool { return s.valid(data) }
		for _, m := range r.findForms().pick(0, len(data), valid).FindAllIndex(data, -1) {
			fn(m[0], m[1])
		}
		return
	}
	valid := int8(-1) // not known yet, unless the Scratch knows it for this buffer
	if s.validity != 0 {
		valid = b2i8(s.valid(data))
	}
	matchesIn(r, data, 0, valid, 0, fn)
}

// matchesIn calls fn with the matches of the rule's regex in form v in text (a
// window, or the whole buffer of a buffer on the fast path), at offset
// base of the buffer. valid is 1 if text is known to be valid UTF-8, 0 if
// known not to be, -1 if not known yet. The match core decides whether
// there is any match; a rule with a lazy prefix finds its matches with
// the core as well (prefix.go), the others with the regex itself.
func matchesIn(r *rule, text []byte, v int, valid int8, base int, fn func(m0, m1 int)) {
	isValid := validity(text, &valid)
	core := r.testForms().pick(v, len(text), isValid)
	if r.prefix != nil {
		floor := 0
		for _, m := range core.FindAllIndex(text, -1) {
			fn(base+r.prefix.extend(text, m[0], floor), base+m[1])
			floor = m[1]
		}
		return
	}
	if !core.Match(text) {
		return
	}
	for _, m := range r.findForms().pick(v, len(text), isValid).FindAllIndex(text, -1) {
		fn(base+m[0], base+m[1])
	}
}

func b2i8(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// valid reports whether data is valid UTF-8, once per buffer.
func (s *Scratch) valid(data []byte) bool {
	if s.validity == 0 {
		s.validity = 2
		if utf8.Valid(data) {
			s.validity = 1
		}
	}
	return s.validity == 1
}

// windows returns the disjoint regions of data outside which the rule
// cannot match: around each anchor hit, from its left reach to its right
// reach, widened to safe cut points and merged. When they would cover most
// of the buffer, the whole buffer is returned instead.
func (s *Scratch) windows(r *rule, data []byte, rare bool) []span {
	d := s.d
	spans := s.spans[:0]
	groups := 0
	// group adds the spans of pattern p's hits, taken as anchors. A
	// group's spans come in order (bounds are monotone): overlapping ones
	// are merged as they come, so that dense hits leave few spans to sort.
	group := func(p int) {
		ends := s.byPattern[s.offset[p]:s.offset[p+1]]
		if len(ends) == 0 {
			return
		}
		groups++
		plen := int(d.keywords.lens[p])
		first := len(spans)
		wordStart := r.wordStart && p < d.rareFrom
		follow := r.follow
		if rare || p >= d.rareFrom {
			follow = nil // it leaves the rare runes out
		}
		for _, e := range ends {
			if wordStart && e > plen && isWordByte(data[e-plen-1]) {
				continue // after a word byte: it starts no match (startsAtWordBoundary)
			}
			if follow != nil && !follow.ok(data, e) {
				continue // not followed as the rule's anchor element must be (followAfterAnchor)
			}
			sp := span{s.leftOf(r.left, data, e), s.rightOf(r.right, data, e-plen)}
			if n := len(spans); n > first && sp.lo <= spans[n-1].hi {
				spans[n-1].hi = max(spans[n-1].hi, sp.hi)
				continue
			}
			spans = append(spans, sp)
		}
	}
	for _, p := range r.anchors {
		group(p)
	}
	if rare {
		// The automaton folds ASCII only, so it misses an anchor written
		// with a rare rune (a Kelvin sign for a k). Such an occurrence
		// holds the rune, so the rune stands in for it: the reach from the
		// rune's end back, and from its start on, is at least the reach
		// from the occurrence's (bounds are monotone), and the window holds
		// every match whose anchor it is.
		for p := d.rareFrom; p < d.npatterns; p++ {
			group(p)
		}
	}
	if groups > 1 {
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	}

	// Merge overlapping spans and widen each to cut points. A cut needs
	// no widening once it reaches the previous window (which merges) or
	// the next raw span (which is absorbed).
	out := spans[:0]
	total := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		i++
		for i < len(spans) && spans[i].lo <= cur.hi {
			cur.hi = max(cur.hi, spans[i].hi)
			i++
		}
		floor := 0
		if len(out) > 0 {
			floor = out[len(out)-1].hi
		}
		lo := cutLeft(data, cur.lo, floor, r.cutNL)
		for {
			ceil := len(data)
			if i < len(spans) {
				ceil = spans[i].lo
			}
			cur.hi = cutRight(data, cur.hi, ceil, r.cutNL)
			if i < len(spans) && cur.hi >= spans[i].lo {
				for i < len(spans) && spans[i].lo <= cur.hi {
					cur.hi = max(cur.hi, spans[i].hi)
					i++
				}
				continue
			}
			break
		}
		if n := len(out); n > 0 && lo <= out[n-1].hi {
			total += cur.hi - out[n-1].hi
			out[n-1].hi = cur.hi
		} else {
			total += cur.hi - lo
			out = append(out, span{lo, cur.hi})
		}
	}
	s.spans = out
	if total*4 >= len(data)*3 {
		s.spans = append(s.spans[:0], span{0, len(data)})
	}
	return s.spans
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// safeCut reports whether a window may end just before, or start just
// after, byte c: c is ASCII (so UTF-8 decoding agrees on both sides) and
// not a word byte (so \b and \B see the same thing at the edge), or '\n'
// when the regex has (?m)^ or $.
func safeCut(c byte, nl bool) bool {
	if nl {
		return c == '\n'
	}
	return c < utf8.RuneSelf && !isWordByte(c)
}

// cutLeft moves lo left to a safe cut, stopping at floor.
func cutLeft(data []byte, lo, floor int, nl bool) int {
	for lo > floor && !safeCut(data[lo-1], nl) {
		lo--
	}
	return lo
}

// cutRight moves hi right to a safe cut, stopping at ceil.
func cutRight(data []byte, hi, ceil int, nl bool) int {
	for hi < ceil && !safeCut(data[hi], nl) {
		hi++
	}
	return hi
}

// rightOf applies a right bound to position x: the nearer of its two
// reaches.
func (s *Scratch) rightOf(b bound, data []byte, x int) int {
	hi := s.rightReach(b[0], data, x)
	if b[1].inf != b[0].inf || !slices.Equal(b[1].steps, b[0].steps) {
		hi = min(hi, s.rightReach(b[1], data, x))
	}
	return hi
}

// leftOf applies a left bound to position x: the nearer of its two
// reaches.
func (s *Scratch) leftOf(b bound, data []byte, x int) int {
	lo := s.leftReach(b[0], data, x)
	if b[1].inf != b[0].inf || !slices.Equal(b[1].steps, b[0].steps) {
		lo = max(lo, s.leftReach(b[1], data, x))
	}
	return lo
}

// rightReach applies a right reach to position x.
func (s *Scratch) rightReach(r reach, data []byte, x int) int {
	if r.inf {
		return len(data)
	}
	x = min(x+r.steps[0], len(data))
	for _, a := range r.steps[1:] {
		x = min(s.lineEnd(data, x)+a, len(data))
	}
	return x
}

// leftReach applies a left reach to position x.
func (s *Scratch) leftReach(r reach, data []byte, x int) int {
	if r.inf {
		return 0
	}
	x = max(x-r.steps[0], 0)
	for _, a := range r.steps[1:] {
		x = max(s.lineStart(data, x)-a, 0)
	}
	return x
}

// hasRareRune reports whether b holds one of rareRunes.
func hasRareRune(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case 0xC4: // U+0130 is C4 B0
			if i+1 < len(b) && b[i+1] == 0xB0 {
				return true
			}
		case 0xC5: // U+017F is C5 BF
			if i+1 < len(b) && b[i+1] == 0xBF {
				return true
			}
		case 0xE2: // U+212A is E2 84 AA
			if i+2 < len(b) && b[i+1] == 0x84 && b[i+2] == 0xAA {
				return true
			}
		}
	}
	return false
}

// lowerAroundRare sets inLower as strings.ToLower of data would, for a
// buffer on the slow path for rare runes alone (every keyword ASCII),
// without lowering the whole buffer. ToLower and the automaton's ASCII
// folding agree but at two runes, U+0130 and U+212A, which lower to 'i'
// and 'k' (TestRareRunesComplete); an invalid byte becomes U+FFFD, which
// no keyword holds. So a keyword occurs in the lowered buffer iff the
// automaton found it in data, or it occurs in the lowered text around one
// of the two: within three bytes of data per keyword byte on either side.
func (s *Scratch) lowerAroundRare(data []byte) {
	d := s.d
	for p := range d.rareFrom {
		s.inLower[p] = s.count[p] > 0
	}
	reach := 3 * d.keywords.maxLen
	for p := d.rareFrom; p < d.npatterns; p++ {
		if r := rareRunes[p-d.rareFrom]; r != 0x0130 && r != 0x212A {
			continue
		}
		for _, e := range s.byPattern[s.offset[p]:s.offset[p+1]] {
			lo, hi := max(0, e-int(d.keywords.lens[p])-reach), min(len(data), e+reach)
			s.lower = append(s.lower[:0], strings.ToLower(string(data[lo:hi]))...)
			s.lowerHits = d.keywords.find(s.lower, s.lowerHits[:0], &s.lowerKW)
			for _, h := range s.lowerHits {
				s.inLower[h.pattern] = true
			}
		}
	}
}
