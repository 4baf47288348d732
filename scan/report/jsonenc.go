package report

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON reports (json, jsonl, gitleaks) are written by hand rather than
// through encoding/json, for two reasons. A finding is a flat record, so a
// few append calls are several times cheaper than reflection, which matters
// at millions of findings. And encoding/json replaces every byte that is not
// UTF-8 with U+FFFD, so a file name in a legacy encoding could not be read
// back from the report: a scan against its own baseline would report it
// again.
//
// Invalid bytes. A string is written exactly as encoding/json writes it,
// except that each byte that is not part of a valid UTF-8 sequence (always
// 0x80..0xFF) is written as the escape \udcXX, the lone low surrogate
// U+DC00+byte. This is the "surrogateescape" scheme of PEP 383: valid UTF-8
// never encodes a surrogate, so the escape cannot collide with any real
// character and needs no escape of its own, and a string that is valid UTF-8
// is written byte for byte as before. This package's readers (LoadBaseline,
// Merge) turn \udcXX back into the byte; Python's json module with
// "surrogateescape" does the same; encoding/json and most other readers
// show U+FFFD, which is what they showed before. SARIF, read by code
// scanning services with strict parsers, keeps encoding/json's replacement.

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal. html escapes <, >
// and & as \u003c, \u003e and \u0026, as encoding/json does by default
// (gitleaks' report keeps that default; spindle's own reports do not).
func appendJSONString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', 'd', 'c', hexDigits[c>>4], hexDigits[c&0xF])
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 end lines in JavaScript; encoding/json escapes
		// them, and so does this.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float of the given
// bit size (32 or 64): the shortest decimal that reads back as the same
// value, in exponent form only below 1e-6 or from 1e21 on. A non-finite
// value (or one beyond float32's range at 32 bits), which JSON cannot hold,
// is written as 0.
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	if bits == 32 {
		f = float64(float32(f)) // may overflow to ±Inf
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 → e-9, as encoding/json (and ECMAScript) write it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// jsonObject appends one JSON object's members to a buffer, either compact
// (jsonl) or indented as encoding/json's Encoder with SetIndent writes an
// element of a top-level array (two spaces before each member, one before
// the closing brace, three before each element of a nested array).
type jsonObject struct {
	b      []byte
	indent bool
	html   bool
	n      int // members written
}

func (o *jsonObject) open() { o.b = append(o.b, '{'); o.n = 0 }

func (o *jsonObject) close() {
	if o.indent && o.n > 0 {
		o.b = append(o.b, "\n }"...)
		return
	}
	o.b = append(o.b, '}')
}

func (o *jsonObject) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	if o.indent {
		o.b = append(o.b, "\n  "...)
	}
	o.b = appendJSONString(o.b, k, false)
	o.b = append(o.b, ':')
	if o.indent {
		o.b = append(o.b, ' ')
	}
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v, o.html)
}

func (o *jsonObject) int(k string, v int) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

func (o *jsonObject) float(k string, v float64, bits int) {
	o.key(k)
	o.b = appendJSONFloat(o.b, v, bits)
}

// strs writes a list of strings; nil and empty both print as [].
func (o *jsonObject) strs(k string, v []string) {
	o.key(k)
	o.b = append(o.b, '[')
	for i, s := range v {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		if o.indent {
			o.b = append(o.b, "\n   "...)
		}
		o.b = appendJSONString(o.b, s, o.html)
	}
	if o.indent && len(v) > 0 {
		o.b = append(o.b, "\n  "...)
	}
	o.b = append(o.b, ']')
}

// unquoteJSON decodes a JSON string literal that encoding/json has already
// checked is well formed. It is strconv.Unquote for JSON with one addition,
// the inverse of appendJSONString: a lone \udc80..\udcff becomes the byte
// 0x80..0xff. Other lone surrogates become U+FFFD, as in encoding/json; raw
// bytes that are not UTF-8 are kept as they are. ok is false when raw is
// not a string literal.
func unquoteJSON(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	raw = raw[1 : len(raw)-1]
	plain := true
	for _, c := range raw {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(raw), true
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw[i+2:])
			if !ok {
				return "", false
			}
			i += 6
			switch {
			case r >= 0xDC80 && r <= 0xDCFF:
				out = append(out, byte(r-0xDC00))
			case utf16.IsSurrogate(r):
				r2 := utf8.RuneError
				if r < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if lo, ok := hex4(raw[i+2:]); ok {
						if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
							r2 = dec
							i += 6
						}
					}
				}
				out = utf8.AppendRune(out, r2)
			default:
				out = utf8.AppendRune(out, r)
			}
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
