package rules

import (
	"encoding/base64"
	"math/bits"
	"unicode/utf8"
)

// This file finds encoded text in a buffer and decodes it: the first half
// of decoding (decoded.go scans what it yields). Candidates are found the
// way gitleaks' one alternation regex finds them, left to right, the first
// kind that matches at a position winning:
//
//	percent   %XX, through the last %XX on the same line
//	unicode   \uXXXX or \\uXXXX runs (u of either case), or U+XXXX runs
//	escape    \xXX or \\xXX runs                       (spindle)
//	html      &#N; &#xH; &amp; &lt; &gt; &quot; &apos;, through the last
//	          entity on the same line                  (spindle)
//	hex       32 or more hex digits
//	base64    16 or more of [A-Za-z0-9_/+-], then up to two '='
//
// then, as gitleaks does, a candidate that touches a neighbour of a kind
// earlier in the list is dropped. The two kinds marked spindle are
// gitleaks' alternation extended; a detector that decodes as gitleaks does
// (Settings.GitleaksDecoding) looks for gitleaks' four kinds only, so that
// its candidates, and what they consume, are gitleaks' own. The finder is a loop over a class table
// rather than a regex, eight bytes at a time (see findCandidates): it runs
// over every byte scanned, and most bytes start nothing.
//
// A candidate decodes only to printable ASCII (tab to '~', and the
// Unicode text that escapes spell): base64 that decodes to binary, which is
// most base64 and every identifier that happens to be 16 letters long, is
// not text to scan. Like gitleaks, base64 must hold a digit or one of
// +/-_ and hex a digit, so plain words are not tried.

// encKind is a kind of encoding, a bit each, in gitleaks' precedence order
// (spindle's own kinds after gitleaks' four, so tags order the same).
type encKind uint8

const (
	encPercent encKind = 1 << iota
	encUnicode
	encHex
	encBase64
	encEscape
	encHTML
)

var encNames = [...]string{"percent", "unicode", "hex", "base64", "escape", "html"}

// The sets of kinds a detector decodes: gitleaks' four, or those and
// spindle's two.
const (
	gitleaksKinds = encPercent | encUnicode | encHex | encBase64
	allKinds      = gitleaksKinds | encEscape | encHTML
)

// encodings is what a detector decodes: the kinds it looks for, and the
// longest encoded text it decodes (longer runs are found, so that they
// consume their bytes and win overlaps as gitleaks' candidates do, but not
// decoded). The bound is an absolute budget where gitleaks has none, and
// it is what keeps chunked scans exact: the detector's window covers a
// whole segment and its context (decoded.go), and every byte of that
// window is carried from chunk to chunk. So the two settings differ:
//
//   - spindleEncodings, spindle scan's: every kind, runs up to 8 KiB, a
//     window of 16 KiB, as for the rules alone.
//   - gitleaksEncodings, the drop-ins': gitleaks' kinds, runs up to 96 KiB,
//     which takes in the long runs met in real histories (an 88 KB base64
//     line holding a secret gitleaks reports), at the price of a 97 KiB
//     window: a file larger than one chunk (256 KiB) is scanned with about
//     1.6 times the bytes (callgrind, BENCHMARKS.md). A buffer that is a
//     whole object (ScanWhole: a history's added lines) has no bound, as
//     in gitleaks: there is no next chunk to carry the run to.
type encodings struct {
	kinds      encKind
	maxSegment int
}

var (
	spindleEncodings  = encodings{kinds: allKinds, maxSegment: 8 << 10}
	gitleaksEncodings = encodings{kinds: gitleaksKinds, maxSegment: 96 << 10}
)

// precedence orders the kinds as gitleaks' alternation does: a higher
// value wins an overlap.
func (k encKind) precedence() int {
	switch k {
	case encPercent:
		return 6
	case encUnicode:
		return 5
	case encEscape:
		return 4
	case encHTML:
		return 3
	case encHex:
		return 2
	}
	return 1
}

const (
	minBase64 = 16
	minHex    = 32
	// minOwnDecoded is the shortest decoded text of the kinds gitleaks
	// does not decode (escape, html).
	minOwnDecoded = 8
)

// Byte classes for the finder.
const (
	clB64    = 1 << iota // [A-Za-z0-9_/+-]
	clHex                // [0-9A-Fa-f]
	clStart              // % \ & U: may start a kind other than hex and base64
	clLikely             // 0-9 + / - _: base64 must hold one
)

var encClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] |= clB64 | clHex | clLikely
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= clB64
		t[c-'a'+'A'] |= clB64
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] |= clHex
		t[c-'a'+'A'] |= clHex
	}
	for _, c := range "_/+-" {
		t[c] |= clB64 | clLikely
	}
	for _, c := range `%\&U` {
		t[c] |= clStart
	}
	return t
}()

// segment is a piece of encoded text: data[lo:hi] in the text it was found
// in, and where its decoded bytes are (dec[dlo:dhi] in the decode arena,
// then in the region text once substituted).
type segment struct {
	lo, hi   int
	kind     encKind
	kinds    encKind // its kind and those of the decoded text it was found in
	dlo, dhi int
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func isHex4(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	for _, c := range b[:4] {
		if encClass[c]&clHex == 0 {
			return false
		}
	}
	return true
}

func printable(c byte) bool { return '\t' <= c && c < 0x7f }

// findCandidates appends the encoded candidates of en's kinds in
// data[lo:hi] to out, in order, with gitleaks' overlap rule applied.
// Candidates longer than en.maxSegment are found (they still consume their
// bytes and win overlaps) but marked with kind 0, not to be decoded.
//
// It gives what trying every kind at every position gives (the regex's
// leftmost-first search; FuzzFindCandidates holds it to both) without
// looking at most bytes one by one. A base64 or hex candidate is a run of
// at least 16 base64 characters, so it holds a whole block of 8 bytes at
// an offset from p that is a multiple of 8; the other kinds start with a
// marker byte (% \ & U). So the search goes a block at a time, each
// block classified with eight table lookups and no branch, and stops only
// at a block that is all base64 (the run around it is grown and, if long
// enough, is the next candidate) or holds a marker (each is tried where
// it stands). A "U" may lie inside a long run that the regex would match
// from the run's start; the run around it is grown first.
func (en encodings) findCandidates(data []byte, lo, hi int, out []segment) []segment {
	first := len(out)
	p := lo    // where the search goes on
	from := lo // where the last candidate ended: runs are grown back to it
next:
	for p < hi {
		k := p
		var all, mark uint8
		var marks uint
		for ; k+8 <= hi; k += 8 {
			b := data[k : k+8 : k+8]
			c0, c1, c2, c3 := encClass[b[0]], encClass[b[1]], encClass[b[2]], encClass[b[3]]
			c4, c5, c6, c7 := encClass[b[4]], encClass[b[5]], encClass[b[6]], encClass[b[7]]
			all = c0 & c1 & c2 & c3 & c4 & c5 & c6 & c7 & clB64
			mark = (c0 | c1 | c2 | c3 | c4 | c5 | c6 | c7) & clStart
			if all|mark != 0 {
				// The block's markers as bits, tried in order below.
				marks = uint(c0&clStart)>>2 | uint(c1&clStart)>>1 | uint(c2&clStart) |
					uint(c3&clStart)<<1 | uint(c4&clStart)<<2 | uint(c5&clStart)<<3 |
					uint(c6&clStart)<<4 | uint(c7&clStart)<<5
				break
			}
		}
		end := min(k+8, hi)
		if k+8 > hi {
			mark = clStart // the last bytes, fewer than a block: look at each
		}
		if all != 0 {
			if seg, ok := longRun(data, from, k, hi); ok {
				out = append(out, seg)
				p, from = seg.hi, seg.hi
				continue
			}
		}
		if mark == 0 {
			p = end
			continue
		}
		if end-k < 8 {
			marks = 0
			for i, c := range data[k:end] {
				marks |= uint(encClass[c]&clStart) >> 2 << i
			}
		}
		// A block of escapes holds two or more markers, and most of its
		// bytes are not one: the markers are tried from their bits.
		for ; marks != 0; marks &= marks - 1 {
			j := k + bits.TrailingZeros(marks)
			if data[j] == '\\' && en.kinds&encEscape == 0 {
				// Only \u or \\u can start a run here (startAt's test,
				// made before the call for the blocks of \x escapes).
				q := j + 1
				if q < hi && data[q] == '\\' {
					q++
				}
				if q >= hi || data[q]|0x20 != 'u' {
					continue
				}
			}
			if data[j] == 'U' {
				if j+1 >= hi || data[j+1] != '+' {
					continue // only "U+" starts a candidate
				}
				if seg, ok := longRun(data, from, j, hi); ok {
					out = append(out, seg)
					p, from = seg.hi, seg.hi
					continue next
				}
			}
			if kind, e := en.startAt(data, j, hi); e > j {
				out = append(out, segment{lo: j, hi: e, kind: kind})
				p, from = e, e
				continue next
			}
		}
		p = end
	}
	return overlapRule(out, first, en.maxSegment)
}

// longRun grows the run of base64 characters around data[x] (not before
// p, where the last candidate ended) and, if it holds at least 16, returns the candidate that starts it:
// hex if 32 or more hex digits start it, else base64 to the run's end and
// up to two '='.
func longRun(data []byte, p, x, hi int) (segment, bool) {
	a, e := x, x+1
	for a > p && encClass[data[a-1]]&clB64 != 0 {
		a--
	}
	for e < hi && encClass[data[e]]&clB64 != 0 {
		e++
	}
	if e-a < minBase64 {
		return segment{}, false
	}
	h := a
	for h < e && encClass[data[h]]&clHex != 0 {
		h++
	}
	if h-a >= minHex {
		return segment{lo: a, hi: h, kind: encHex}, true
	}
	for n := 0; n < 2 && e < hi && data[e] == '='; n++ {
		e++
	}
	return segment{lo: a, hi: e, kind: encBase64}, true
}

// overlapRule applies gitleaks' overlap rule to out[first:] and marks the
// candidates longer than maxSegment, not to be decoded: a candidate
// touching its neighbour of a higher precedence is dropped (neighbours in
// the list; touching counts).
func overlapRule(out []segment, first, maxSegment int) []segment {
	cands := out[first:]
	keep := first
	for i, m := range cands {
		if i > 0 {
			if prev := cands[i-1]; prev.hi >= m.lo && prev.kind.precedence() > m.kind.precedence() {
				continue
			}
		}
		if i+1 < len(cands) {
			if next := cands[i+1]; next.lo <= m.hi && next.kind.precedence() > m.kind.precedence() {
				continue
			}
		}
		out[keep] = m
		keep++
	}
	out = out[:keep]
	for i := first; i < len(out); i++ {
		if out[i].hi-out[i].lo > maxSegment {
			out[i].kind = 0
		}
	}
	return out
}

// startAt tries the kinds (of en's) that begin with a marker byte
// (% \ & U) at data[p], in precedence order, and returns the kind and end
// of the first that matches; end == p if none does.
func (en encodings) startAt(data []byte, p, hi int) (encKind, int) {
	kinds := en.kinds
	switch data[p] {
	case '%':
		if p+3 <= hi && isHex2(data[p+1:]) {
			return encPercent, lastOnLine(data, p, hi, percentAt, en.maxSegment)
		}
	case '\\':
		// The letter after one or two backslashes says which run can
		// start here, and the decoder set is checked before the run is
		// walked: a run walked and thrown away at each of its backslashes
		// would be quadratic.
		q := p + 1
		if q < hi && data[q] == '\\' {
			q++
		}
		if q >= hi {
			break
		}
		switch data[q] | 0x20 {
		case 'u':
			if end := escapeRun(data, p, hi, 'u', 4); end > p {
				return encUnicode, end
			}
		case 'x':
			if kinds&encEscape != 0 {
				if end := escapeRun(data, p, hi, 'x', 2); end > p {
					return encEscape, end
				}
			}
		}
	case '&':
		if kinds&encHTML != 0 && entityAt(data, p, hi) > 0 {
			return encHTML, lastOnLine(data, p, hi, entityAt, en.maxSegment)
		}
	case 'U':
		if end := codePointRun(data, p, hi); end > p {
			return encUnicode, end
		}
	}
	return 0, p
}

func isHex2(b []byte) bool {
	return len(b) >= 2 && encClass[b[0]]&clHex != 0 && encClass[b[1]]&clHex != 0
}

// percentAt returns the length of a %XX at data[p:hi], or 0.
func percentAt(data []byte, p, hi int) int {
	if data[p] == '%' && p+3 <= hi && isHex2(data[p+1:]) {
		return 3
	}
	return 0
}

// lastOnLine returns the end of the last token (as at reports them) that
// starts on data[p]'s line and ends within maxSegment+1 bytes of p, given
// that one starts at p: gitleaks' greedy "X(?:.*X)?".
func lastOnLine(data []byte, p, hi int, at func([]byte, int, int) int, maxSegment int) int {
	end := p + at(data, p, hi)
	limit := min(hi, p+maxSegment+1)
	for i := end; i < limit && data[i] != '\n'; i++ {
		if n := at(data, i, hi); n > 0 && i+n <= limit {
			end = i + n
			i += n - 1
		}
	}
	return end
}

// escapeRun returns the end of a run of \<letter>H..H escapes (one or two
// backslashes, the letter of either case, digits hex digits) at data[p],
// or p.
func escapeRun(data []byte, p, hi int, letter byte, digits int) int {
	end := p
	for i := p; i < hi && data[i] == '\\'; {
		j := i + 1
		if j < hi && data[j] == '\\' {
			j++
		}
		if j >= hi || data[j]|0x20 != letter {
			break
		}
		j++
		if j+digits > hi {
			break
		}
		for _, c := range data[j : j+digits] {
			if encClass[c]&clHex == 0 {
				return end
			}
		}
		i = j + digits
		end = i
	}
	return end
}

// codePointRun returns the end of a run of "U+XXXX" each followed by white
// space or the end of the text (the white space is part of the run), or p.
func codePointRun(data []byte, p, hi int) int {
	end := p
	for i := p; i+6 <= hi && data[i] == 'U' && data[i+1] == '+' && isHex4(data[i+2:]); {
		i += 6
		if i < hi {
			if !isSpace(data[i]) {
				break
			}
			i++
		}
		end = i
	}
	return end
}

// isSpace is the regexp package's \s.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// entityAt returns the length of an HTML character reference at data[p]
// (&#N; &#xH; or one of the five XML named ones), or 0.
func entityAt(data []byte, p, hi int) int {
	if data[p] != '&' {
		return 0
	}
	rest := data[p+1 : min(hi, p+12)]
	if len(rest) >= 2 && rest[0] == '#' {
		i, base := 1, 10
		if rest[1]|0x20 == 'x' {
			i, base = 2, 16
		}
		j := i
		for j < len(rest) && digitOf(rest[j], base) >= 0 {
			j++
		}
		if j > i && j < len(rest) && rest[j] == ';' {
			return j + 2
		}
		return 0
	}
	for _, name := range htmlNames {
		if len(rest) > len(name.n) && string(rest[:len(name.n)]) == name.n && rest[len(name.n)] == ';' {
			return len(name.n) + 2
		}
	}
	return 0
}

var htmlNames = [...]struct {
	n string
	c byte
}{{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}}

func digitOf(c byte, base int) int {
	v, ok := hexVal(c)
	if !ok || int(v) >= base {
		return -1
	}
	return int(v)
}

// decode decodes enc, a candidate of the given kind, and appends the
// result to dst. ok is false when the candidate is not text to scan: it
// does not decode, decodes to bytes that are not printable, decodes to
// itself, or (escape, html) spells fewer than minOwnDecoded bytes.
func decode(dst, enc []byte, kind encKind) ([]byte, bool) {
	n := len(dst)
	var ok bool
	switch kind {
	case encBase64:
		dst, ok = decodeBase64Text(dst, enc)
	case encHex:
		dst, ok = decodeHexText(dst, enc)
	case encPercent:
		dst, ok = decodePercentText(dst, enc)
	case encUnicode:
		dst, ok = decodeUnicodeText(dst, enc)
	case encEscape:
		dst, ok = decodeEscapeText(dst, enc)
	case encHTML:
		dst, ok = decodeHTMLText(dst, enc)
	}
	if !ok || len(dst) == n || string(dst[n:]) == string(enc) {
		return dst[:n], false
	}
	if (kind == encEscape || kind == encHTML) && len(dst)-n < minOwnDecoded {
		// Spindle's own kinds (gitleaks decodes neither) must spell
		// something as long as a secret: a stray \x41 or &amp; in code is
		// not worth scanning its context again.
		return dst[:n], false
	}
	return dst, true
}

// b64val maps a byte to its value in the standard (or, with 64 added, the
// URL) base64 alphabet; 0xff: neither.
var b64val = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for i := range len(std) {
		t[std[i]] = byte(i)
	}
	t['+'], t['/'] = 62, 63
	t['-'], t['_'] = 62|64, 63|64
	return t
}()

func decodeBase64Text(dst, enc []byte) ([]byte, bool) {
	// Most candidates are identifiers or binary: the first three bytes
	// show it without decoding the rest.
	if len(enc) >= 4 {
		var v uint32
		for _, c := range enc[:4] {
			x := b64val[c]
			if x == 0xff {
				return dst, false
			}
			v = v<<6 | uint32(x&63)
		}
		if !printable(byte(v>>16)) || !printable(byte(v>>8)) || !printable(byte(v)) {
			return dst, false
		}
	}
	likely := false
	for _, c := range enc {
		if encClass[c]&clLikely != 0 {
			likely = true
			break
		}
	}
	if !likely {
		return dst, false
	}
	// gitleaks tries standard base64 (padded), then unpadded URL-safe.
	for _, e := range [2]*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		n := len(dst)
		dst = append(dst, make([]byte, e.DecodedLen(len(enc)))...)
		w, err := e.Decode(dst[n:], enc)
		if err == nil && allPrintable(dst[n:n+w]) {
			return dst[:n+w], true
		}
		dst = dst[:n]
	}
	return dst, false
}

func allPrintable(b []byte) bool {
	for _, c := range b {
		if !printable(c) {
			return false
		}
	}
	return true
}

// printableHexByte reads the byte that two hex digits at b spell, and
// whether it is printable.
func printableHexByte(b []byte) (byte, bool) {
	hi, _ := hexVal(b[0])
	lo, _ := hexVal(b[1])
	c := hi<<4 | lo
	return c, printable(c)
}

func decodeHexText(dst, enc []byte) ([]byte, bool) {
	if len(enc)%2 != 0 {
		return dst, false
	}
	digit := false
	for _, c := range enc {
		if '0' <= c && c <= '9' {
			digit = true
			break
		}
	}
	if !digit {
		return dst, false
	}
	for i := 0; i < len(enc); i += 2 {
		c, ok := printableHexByte(enc[i:])
		if !ok {
			return dst, false
		}
		dst = append(dst, c)
	}
	return dst, true
}

func decodePercentText(dst, enc []byte) ([]byte, bool) {
	for i := 0; i < len(enc); i++ {
		if n := percentAt(enc, i, len(enc)); n > 0 {
			c, ok := printableHexByte(enc[i+1:])
			if !ok {
				return dst, false
			}
			dst = append(dst, c)
			i += 2
			continue
		}
		dst = append(dst, enc[i])
	}
	return dst, true
}

// decodeUnicodeText decodes \uXXXX escapes or U+XXXX code points (with the
// white space after each) to UTF-8.
func decodeUnicodeText(dst, enc []byte) ([]byte, bool) {
	for i := 0; i < len(enc); {
		var r rune
		switch {
		case enc[i] == 'U' && i+6 <= len(enc) && enc[i+1] == '+':
			r = hex4(enc[i+2:])
			i += 6
			if i < len(enc) && isSpace(enc[i]) {
				i++
			}
		case enc[i] == '\\':
			j := i + 1
			if enc[j] == '\\' {
				j++
			}
			r = hex4(enc[j+1:])
			i = j + 5
		default:
			return dst, false
		}
		if r < 0x80 && !printable(byte(r)) {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, true
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		v, _ := hexVal(c)
		r = r<<4 | rune(v)
	}
	return r
}

func decodeEscapeText(dst, enc []byte) ([]byte, bool) {
	for i := 0; i < len(enc); {
		j := i + 1
		if enc[j] == '\\' {
			j++
		}
		c, ok := printableHexByte(enc[j+1:])
		if !ok {
			return dst, false
		}
		dst = append(dst, c)
		i = j + 3
	}
	return dst, true
}

func decodeHTMLText(dst, enc []byte) ([]byte, bool) {
	for i := 0; i < len(enc); {
		n := entityAt(enc, i, len(enc))
		if n == 0 {
			dst = append(dst, enc[i])
			i++
			continue
		}
		ref := enc[i+1 : i+n-1]
		if ref[0] == '#' {
			digits, base := ref[1:], 10
			if digits[0]|0x20 == 'x' {
				digits, base = digits[1:], 16
			}
			var r rune
			for _, c := range digits {
				r = r*rune(base) + rune(digitOf(c, base))
				if r > utf8.MaxRune {
					return dst, false
				}
			}
			if r < 0x80 && !printable(byte(r)) {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
		} else {
			for _, name := range htmlNames {
				if string(ref) == name.n {
					dst = append(dst, name.c)
				}
			}
		}
		i += n
	}
	return dst, true
}
