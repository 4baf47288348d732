package rules

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads a rule's regular expression (its regexp/syntax tree) and
// derives what the windowed matcher needs to know about it (reach.go has
// the second and third items):
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
// prefix of the last. fn is called with each set and the anchoring it
// gives.
func (an *analyzer) runSets(subs []*syntax.Regexp, fn func(set []string, around anchoring)) {
	for i := range subs {
		suffixes := an.affixSet(subs[i], true)
		set := suffixes
		for j := i + 1; j < len(subs) && set != nil; j++ {
			prefixes := an.affixSet(subs[j], false)
			if run := cross(set, prefixes); run != nil {
				// An occurrence inside the run starts at most
				// len(suffix) before the end of subs[i] and ends at
				// most len(prefix) after the start of subs[j].
				fn(run, anchoring{
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
		an.runSets(re.Sub, func(set []string, around anchoring) {
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
		an.runSets(re.Sub, func(set []string, around anchoring) {
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

// startsAtWordBoundary reports whether every match of re starts with \b
// followed by text that begins with one of the anchors (folded), each of
// which starts with a word byte. Then an anchor occurrence that follows a
// word byte starts no match: the \b before a match's first byte, a word
// byte, needs a non-word byte (or the text's start) before it. Such an
// occurrence may still lie inside a match, but the match's own first
// anchor, at its start, gives it a window. gitleaks' jwt (`\b(ey...`,
// anchor "ey", met inside "key" and "they") and vault-service-token
// (`\b((?:hvs\.|s\.)...`, "s." inside "os.") are such rules.
func (an *analyzer) startsAtWordBoundary(re *syntax.Regexp, anchors []string) bool {
	rest, ok := afterLeadingBoundary(re)
	if !ok || len(anchors) == 0 {
		return false
	}
	for _, a := range anchors {
		if a == "" || !isWordByte(a[0]) {
			return false
		}
	}
	for _, p := range an.affixSet(concat(rest), false) {
		found := false
		for _, a := range anchors {
			if strings.HasPrefix(p, a) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// afterLeadingBoundary returns what follows a \b that starts every match
// of re, looking through captures and nested concatenations.
func afterLeadingBoundary(re *syntax.Regexp) ([]*syntax.Regexp, bool) {
	switch re.Op {
	case syntax.OpWordBoundary:
		return nil, true
	case syntax.OpCapture:
		return afterLeadingBoundary(re.Sub[0])
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil, false
		}
		rest, ok := afterLeadingBoundary(re.Sub[0])
		if !ok {
			return nil, false
		}
		return append(append([]*syntax.Regexp(nil), rest...), re.Sub[1:]...), true
	}
	return nil, false
}

// follow is a test of what must come right after an anchor occurrence
// for a match to hold it as its anchor element: at most max bytes of
// skip, then a byte of next. A rule of gitleaks' semi-generic shape
// (`[\w.-]{0,50}?(?i:(?:KEYWORDS)(?:[ \t\w.-]{0,20})[\s'"]{0,3})(?:=|>|:{1,3}=|...)`,
// generic-api-key among them) needs an assignment operator within 23
// bytes after its keyword, which "key" and "token" in code mostly lack.
type follow struct {
	skip, next [utf8.RuneSelf]bool
	max        int
}

// ok reports whether the anchor occurrence ending at e may be the anchor
// element of a match: data[e:] starts with at most f.max bytes of skip,
// then a byte of next. Only for text without the rare runes (see
// followAfterAnchor).
func (f *follow) ok(data []byte, e int) bool {
	j := e
	for j < len(data) && data[j] < utf8.RuneSelf && f.skip[data[j]] {
		if j-e == f.max {
			return false
		}
		j++
	}
	return j < len(data) && data[j] < utf8.RuneSelf && f.next[data[j]]
}

// followAfterAnchor derives a follow test for re, whose anchors are the
// given folded strings, or nil. re must be a concatenation (through
// captures and nested concatenations) with an element A whose every match
// is one of the anchors, followed by elements R1..Rk, each a repetition
// of a class of ASCII bytes (the rare runes aside) at most a bounded
// number of times, then an element N that cannot match the empty string,
// whose every match starts with a byte none of the Ri hold. Then in every
// match, A's text is an anchor occurrence, ending at some e, and the
// bytes from e up to N's start are all in some Ri, at most their maxima
// together, and N's first byte is the first byte after e in none of them.
// An anchor occurrence that fails the test is not A in any match; each
// match's own A passes, and its window holds the match. The rare runes
// that (?i) adds to a class (ſ and K to \w) are left out, so the test
// holds only on text without them.
func (an *analyzer) followAfterAnchor(re *syntax.Regexp, anchors []string) *follow {
	elems := flattenConcat(re, nil)
	isAnchor := map[string]bool{}
	for _, a := range anchors {
		isAnchor[a] = true
	}
	for i, e := range elems {
		set := an.exactSet(e)
		if len(set) == 0 {
			continue
		}
		all := true
		for _, s := range set {
			if !isAnchor[s] {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		f := &follow{}
		j := i + 1
		for ; j < len(elems); j++ {
			r := elems[j]
			if r.Op != syntax.OpRepeat && r.Op != syntax.OpQuest {
				break
			}
			n := 1
			if r.Op == syntax.OpRepeat {
				if r.Max < 0 {
					return nil
				}
				n = r.Max
			}
			if !asciiClass(r.Sub[0], &f.skip) {
				return nil
			}
			f.max += n
		}
		if j == len(elems) || canMatchEmpty(elems[j]) || !firstBytes(elems[j], &f.next) {
			return nil
		}
		for c := range f.next {
			if f.next[c] && f.skip[c] {
				return nil
			}
		}
		return f
	}
	return nil
}

// flattenConcat appends the elements of re's top-level concatenation,
// through captures and nested concatenations, to out.
func flattenConcat(re *syntax.Regexp, out []*syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return flattenConcat(re.Sub[0], out)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			out = flattenConcat(sub, out)
		}
		return out
	}
	return append(out, re)
}

// asciiClass adds the bytes re matches as a one-rune class (a character
// class, or a literal rune, case-folded or not) to set, leaving out the
// rare runes; false if re is not such a class or holds another non-ASCII
// rune.
func asciiClass(re *syntax.Regexp, set *[utf8.RuneSelf]bool) bool {
	var ranges []rune
	switch re.Op {
	case syntax.OpCharClass:
		ranges = re.Rune
	case syntax.OpLiteral:
		if len(re.Rune) != 1 {
			return false
		}
		r := re.Rune[0]
		ranges = []rune{r, r}
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				ranges = append(ranges, f, f)
			}
		}
	default:
		return false
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			switch {
			case r < utf8.RuneSelf:
				set[r] = true
			case isRareRune(r):
			default:
				return false
			}
		}
	}
	return true
}

// firstBytes adds to set every byte a match of re can start with, for an
// re that cannot match the empty string and whose matches start with an
// ASCII byte (the rare runes aside); false if that is not known.
func firstBytes(re *syntax.Regexp, set *[utf8.RuneSelf]bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return false
		}
		return asciiClass(&syntax.Regexp{Op: syntax.OpLiteral, Rune: re.Rune[:1], Flags: re.Flags}, set)
	case syntax.OpCharClass:
		return asciiClass(re, set)
	case syntax.OpCapture, syntax.OpPlus:
		return firstBytes(re.Sub[0], set)
	case syntax.OpRepeat:
		return re.Min > 0 && firstBytes(re.Sub[0], set)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !firstBytes(sub, set) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		if len(re.Sub) == 0 || canMatchEmpty(re.Sub[0]) {
			return false
		}
		return firstBytes(re.Sub[0], set)
	}
	return false
}
