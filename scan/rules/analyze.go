package rules

import (
	"math"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads a rule's regular expression (its regexp/syntax tree) and
// derives what the windowed matcher needs to know about it:
//
//   - which literal strings every match must contain (the keywords, when they
//     can be proved to occur in every match, or literals derived from the
//     regex itself);
//   - how far a match can reach to the left and to the right of such a
//     literal (a "reach", see below);
//   - whether the regex uses \A, \z or (?m)^/$, which decide where a window
//     may be cut.
//
// All strings produced here are "folded": ASCII letters lower-cased, every
// other byte kept. The keyword automaton folds the scanned bytes the same
// way, so a folded string found here is found there.

// Limits that keep the analysis cheap and its results useful.
const (
	maxExactStrings = 256 // most strings an exact set may hold
	maxExactLen     = 64  // longest string an exact set may hold
	maxClassRunes   = 16  // largest character class expanded into strings
	maxReachLines   = 8   // most line ends a reach may cross before it becomes infinite
	lineRunBytes    = 8   // in a line bound, a newline-free run longer than this ends at the line end
)

// rareRunes are the non-ASCII runes that break the equivalence between
// ASCII case folding and what gitleaks does: strings.ToLower maps U+0130 to
// "i" and U+212A to "k", and (?i) lets 'k' match U+212A and 's' match U+017F.
// A buffer that contains one of them is scanned by the slow, exact path
// (see Detector.Scan); the analysis below may therefore ignore them.
// TestRareRunesComplete proves the list complete by brute force.
var rareRunes = []rune{0x0130, 0x017F, 0x212A}

func isRareRune(r rune) bool {
	return r == 0x0130 || r == 0x017F || r == 0x212A
}

// foldString lower-cases the ASCII letters of s.
func foldString(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// runeStrings returns the folded encodings of the runes in rs (rare runes
// dropped), deduplicated and sorted.
func runeStrings(rs []rune) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if isRareRune(r) {
			continue
		}
		out = append(out, foldString(string(r)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// literalRune returns the folded strings one rune of an OpLiteral can match.
func literalRune(r rune, fold bool) []string {
	if r == utf8.RuneError {
		return nil // also matches any invalid byte: not a fixed string
	}
	if !fold {
		return runeStrings([]rune{r})
	}
	orbit := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	return runeStrings(orbit)
}

// classStrings expands a small character class into folded strings; nil if
// the class is too large.
func classStrings(ranges []rune) []string {
	n := 0
	for i := 0; i < len(ranges); i += 2 {
		if ranges[i] <= utf8.RuneError && utf8.RuneError <= ranges[i+1] {
			return nil // also matches any invalid byte: not a fixed string
		}
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClassRunes+len(rareRunes) {
			return nil
		}
	}
	rs := make([]rune, 0, n)
	for i := 0; i < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			rs = append(rs, r)
		}
	}
	out := runeStrings(rs)
	if len(out) > maxClassRunes {
		return nil
	}
	return out
}

// cross returns {x+y : x in a, y in b}, or nil when it would be too big.
func cross(a, b []string) []string {
	if len(a)*len(b) > maxExactStrings {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > maxExactLen {
				return nil
			}
			out = append(out, x+y)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func union(a, b []string) []string {
	out := append(slices.Clip(a), b...)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxExactStrings {
		return nil
	}
	return out
}

// analyzer memoizes the literal analyses of one regex's nodes; the set
// functions call each other on the same subtrees many times.
type analyzer struct {
	exact map[*syntax.Regexp][]string
	affix map[affixKey][]string
}

type affixKey struct {
	re     *syntax.Regexp
	suffix bool
}

func newAnalyzer() *analyzer {
	return &analyzer{exact: map[*syntax.Regexp][]string{}, affix: map[affixKey][]string{}}
}

// exactSet returns every folded string re can match, or nil when that set
// is unknown or too large. An empty non-nil slice means re matches nothing.
func (an *analyzer) exactSet(re *syntax.Regexp) []string {
	if set, ok := an.exact[re]; ok {
		return set
	}
	set := an.computeExact(re)
	an.exact[re] = set
	return set
}

func (an *analyzer) computeExact(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpNoMatch:
		return []string{}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}
	case syntax.OpLiteral:
		set := []string{""}
		for _, r := range re.Rune {
			rs := literalRune(r, re.Flags&syntax.FoldCase != 0)
			if rs == nil {
				return nil
			}
			if set = cross(set, rs); set == nil {
				return nil
			}
		}
		return set
	case syntax.OpCharClass:
		return classStrings(re.Rune)
	case syntax.OpCapture:
		return an.exactSet(re.Sub[0])
	case syntax.OpConcat:
		set := []string{""}
		for _, sub := range re.Sub {
			s := an.exactSet(sub)
			if s == nil {
				return nil
			}
			if set = cross(set, s); set == nil {
				return nil
			}
		}
		return set
	case syntax.OpAlternate:
		var set []string
		for _, sub := range re.Sub {
			s := an.exactSet(sub)
			if s == nil {
				return nil
			}
			if set = union(set, s); set == nil {
				return nil
			}
		}
		if set == nil {
			set = []string{}
		}
		return set
	case syntax.OpQuest:
		s := an.exactSet(re.Sub[0])
		if s == nil {
			return nil
		}
		return union([]string{""}, s)
	case syntax.OpRepeat:
		if re.Max < 0 {
			return nil
		}
		s := an.exactSet(re.Sub[0])
		if s == nil || re.Max > 4 && (len(s) != 1 || re.Max-re.Min > 4) {
			return nil
		}
		var set []string
		pow := []string{""}
		for k := 0; k <= re.Max; k++ {
			if k >= re.Min {
				if set = union(set, pow); set == nil {
					return nil
				}
			}
			if pow = cross(pow, s); pow == nil {
				return nil
			}
		}
		return set
	}
	return nil // AnyChar, Star, Plus, unbounded repeats
}

// affixSet returns a set of folded strings one of which every match of re
// starts with (suffix false) or ends with (suffix true). It is never nil;
// {""} says nothing.
func (an *analyzer) affixSet(re *syntax.Regexp, suffix bool) []string {
	k := affixKey{re, suffix}
	if set, ok := an.affix[k]; ok {
		return set
	}
	set := an.computeAffix(re, suffix)
	an.affix[k] = set
	return set
}

func (an *analyzer) computeAffix(re *syntax.Regexp, suffix bool) []string {
	if set := an.exactSet(re); set != nil {
		return set
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return an.affixSet(re.Sub[0], suffix)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return an.affixSet(re.Sub[0], suffix)
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			if all = union(all, an.affixSet(sub, suffix)); all == nil {
				return []string{""}
			}
		}
		return all
	case syntax.OpConcat:
		set := []string{""}
		for k := range re.Sub {
			sub := re.Sub[k]
			if suffix {
				sub = re.Sub[len(re.Sub)-1-k]
			}
			exact := an.exactSet(sub)
			part := exact
			if part == nil {
				part = an.affixSet(sub, suffix)
			}
			var next []string
			if suffix {
				next = cross(part, set)
			} else {
				next = cross(set, part)
			}
			if next == nil {
				return set
			}
			set = next
			if exact == nil {
				return set
			}
		}
		return set
	}
	return []string{""}
}

// runSets returns, for each run of two or more consecutive children of a
// concatenation, the strings one of which every match of the run contains:
// a suffix of the first child, the exact text of the middle ones and a
// prefix of the last. fn is called with each set and the run's bounds.
func (an *analyzer) runSets(subs []*syntax.Regexp, fn func(set []string, lo, hi int, around anchoring)) {
	for i := range subs {
		suffixes := an.affixSet(subs[i], true)
		set := suffixes
		for j := i + 1; j < len(subs) && set != nil; j++ {
			prefixes := an.affixSet(subs[j], false)
			if run := cross(set, prefixes); run != nil {
				// An occurrence inside the run starts at most
				// len(suffix) before the end of subs[i] and ends at
				// most len(prefix) after the start of subs[j].
				fn(run, i, j, anchoring{
					left:  bytesBound(longest(prefixes)).then(leftReach(concat(subs[:j]))),
					right: bytesBound(longest(suffixes)).then(rightReach(concat(subs[i+1:]))),
				})
			}
			exact := an.exactSet(subs[j])
			if exact == nil {
				break
			}
			set = cross(set, exact)
		}
	}
}

func longest(set []string) int {
	n := 0
	for _, s := range set {
		n = max(n, len(s))
	}
	return n
}

// literalTest decides whether a set of folded strings is an acceptable
// anchor set: every string must satisfy it.
type literalTest func(s string) bool

func allPass(set []string, ok literalTest) bool {
	if len(set) == 0 {
		return false
	}
	for _, s := range set {
		if !ok(s) {
			return false
		}
	}
	return true
}

// anchoring says how a regex's matches relate to a set of literals: every
// match contains one of set, and around that occurrence the match extends
// at most left (backwards from the occurrence's end) and right (onwards
// from its start). The detector searches only in such windows.
type anchoring struct {
	set         []string
	left, right bound
}

// wholeAnchoring bounds a match of re by re's full reach on both sides:
// true wherever the occurrence lies inside the match.
func wholeAnchoring(re *syntax.Regexp, set []string) anchoring {
	return anchoring{set: set, left: leftReach(re), right: rightReach(re)}
}

func concat(subs []*syntax.Regexp) *syntax.Regexp {
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
}

// inside composes an anchoring found in child i of a concatenation with
// the children before and after it.
func inside(a anchoring, subs []*syntax.Regexp, i int) anchoring {
	a.left = a.left.then(leftReach(concat(subs[:i])))
	a.right = a.right.then(rightReach(concat(subs[i+1:])))
	return a
}

// keywordAnchoring reports whether every match of re contains a string
// that ok accepts (a keyword) and, if so, how far matches reach around it.
func (an *analyzer) keywordAnchoring(re *syntax.Regexp, ok literalTest) (anchoring, bool) {
	if set := an.exactSet(re); set != nil && allPass(set, ok) {
		return wholeAnchoring(re, nil), true
	}
	switch re.Op {
	case syntax.OpCapture:
		return an.keywordAnchoring(re.Sub[0], ok)
	case syntax.OpPlus:
		if _, found := an.keywordAnchoring(re.Sub[0], ok); found {
			return wholeAnchoring(re, nil), true
		}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			if _, found := an.keywordAnchoring(re.Sub[0], ok); found {
				return wholeAnchoring(re, nil), true
			}
		}
	case syntax.OpAlternate:
		// The match takes one branch; bound every branch at once.
		var all anchoring
		for i, sub := range re.Sub {
			a, found := an.keywordAnchoring(sub, ok)
			if !found {
				return anchoring{}, false
			}
			if i == 0 {
				all = a
			} else {
				all.left, all.right = all.left.join(a.left), all.right.join(a.right)
			}
		}
		return all, true
	case syntax.OpConcat:
		// A single child that always contains an accepted string.
		for i, sub := range re.Sub {
			if a, found := an.keywordAnchoring(sub, ok); found {
				return inside(a, re.Sub, i), true
			}
		}
		// A run of children: this finds keywords that straddle children,
		// as in `api[_-]?key`, or that an alternation's factoring split,
		// as in `A(?:KIA|SIA)`.
		var (
			out   anchoring
			found bool
		)
		an.runSets(re.Sub, func(set []string, _, _ int, around anchoring) {
			if !found && allPass(set, ok) {
				out, found = around, true
			}
		})
		return out, found
	}
	return anchoring{}, false
}

// derivedAnchoring derives, from the regex alone, a set of folded strings
// one of which occurs in every match, with its reaches; false when none is
// known. Among several candidates it keeps the most selective (see
// literalScore).
func (an *analyzer) derivedAnchoring(re *syntax.Regexp) (anchoring, bool) {
	var best anchoring
	consider := func(a anchoring) {
		if len(a.set) == 0 || slices.Contains(a.set, "") {
			return
		}
		if literalScore(a.set) > literalScore(best.set) {
			best = a
		}
	}
	if set := an.exactSet(re); set != nil {
		consider(wholeAnchoring(re, set))
	}
	switch re.Op {
	case syntax.OpCapture:
		if a, ok := an.derivedAnchoring(re.Sub[0]); ok {
			consider(a)
		}
	case syntax.OpPlus:
		if a, ok := an.derivedAnchoring(re.Sub[0]); ok {
			consider(wholeAnchoring(re, a.set))
		}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			if a, ok := an.derivedAnchoring(re.Sub[0]); ok {
				consider(wholeAnchoring(re, a.set))
			}
		}
	case syntax.OpAlternate:
		var all anchoring
		for i, sub := range re.Sub {
			a, ok := an.derivedAnchoring(sub)
			if !ok {
				return best, best.set != nil
			}
			if i == 0 {
				all = a
				continue
			}
			if all.set = union(all.set, a.set); all.set == nil {
				return best, best.set != nil
			}
			all.left, all.right = all.left.join(a.left), all.right.join(a.right)
		}
		consider(all)
	case syntax.OpConcat:
		for i, sub := range re.Sub {
			if a, ok := an.derivedAnchoring(sub); ok {
				consider(inside(a, re.Sub, i))
			}
		}
		an.runSets(re.Sub, func(set []string, _, _ int, around anchoring) {
			around.set = set
			consider(around)
		})
	}
	return best, best.set != nil
}

// literalScore rates an anchor set: four points per byte of its shortest
// string (up to 8), less two per doubling of its size. Higher is more
// selective; nil rates lowest.
func literalScore(set []string) int {
	if len(set) == 0 {
		return -1 << 30
	}
	short := maxExactLen
	for _, s := range set {
		short = min(short, len(s))
	}
	score := 4 * min(short, 8)
	for n := len(set); n > 1; n >>= 1 {
		score -= 2
	}
	return score
}

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

// containsKeyword returns a literalTest that accepts strings containing at
// least one of the folded keywords.
func containsKeyword(keywords []string) literalTest {
	return func(s string) bool {
		for _, k := range keywords {
			if k != "" && strings.Contains(s, k) {
				return true
			}
		}
		return false
	}
}
