package git

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"
)

// commitText decodes a commit's author, email or message from the
// encoding its `encoding` header names (ISO-8859-1, Shift_JIS, cp1252 ...)
// to UTF-8, as git log does (it re-encodes to i18n.logOutputEncoding,
// UTF-8 by default): a finding then names Jörg, not J\xf6rg. An empty or
// UTF-8 encoding leaves s as it is, and so does one the WHATWG index does
// not know or whose decoder fails, as git leaves the text when iconv
// cannot convert it. The names are matched as git's iconv matches them,
// without regard to case (latin1, iso-8859-1, ISO8859-1 ...).
func commitText(encoding, s string) string {
	if encoding == "" || s == "" {
		return s
	}
	switch strings.ToLower(strings.ReplaceAll(encoding, "_", "-")) {
	case "utf-8", "utf8":
		return s
	case "iso8859-1", "iso-8859-1", "latin1", "latin-1", "l1":
		// htmlindex maps ISO-8859-1 to windows-1252 (as browsers do); git
		// means ISO-8859-1 itself, whose bytes are the code points.
		b := make([]rune, 0, len(s))
		for i := 0; i < len(s); i++ {
			b = append(b, rune(s[i]))
		}
		return string(b)
	}
	enc, err := htmlindex.Get(encoding)
	if err != nil {
		return s
	}
	out, err := enc.NewDecoder().String(s)
	if err != nil || !utf8.ValidString(out) {
		return s
	}
	return out
}
