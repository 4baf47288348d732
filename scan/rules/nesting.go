package rules

// This file bounds how deeply a config's TOML nests before the TOML
// library sees it. BurntSushi/toml spends time and memory quadratic in the
// depth of a key path: a 16 KB line of nested inline tables
// (a={a={a=...}}) took 22 s and 1.8 GiB to decode, 8 KB of dotted key
// (a.a.a...=1) 2.9 s and 640 MiB, and the cost is paid before the decoder
// returns anything the schema check could refuse. The gitleaks schema
// needs four levels at most (rules, allowlists, their lists, their
// strings), so a small limit refuses nothing real, and a linear pre-scan
// of the bytes enforces it.

// maxNesting is the deepest a value may sit in a config: each dotted-key
// segment, inline table and array counts one level, each table-header
// segment two (any of them may name an array of tables, whose element is
// a level of its own). [[rules.allowlists]] with regexes = ['x'] is six.
const maxNesting = 32

// nestingScanner measures the depth of TOML text without parsing it. It
// lexes exactly what changes the depth (strings, comments, brackets,
// braces, dots in keys, equal signs, commas, newlines) and skips
// everything else, so brackets in strings or comments do not fool it. On
// a document the TOML decoder accepts it never under-counts the depth
// (FuzzConfig checks it against the decoded document); on text the
// decoder rejects it may count anything, but the decoder stops at the
// first error, before the text past it costs anything.
type nestingScanner struct {
	data  []byte
	i     int
	line  int
	stack []container
	table int  // depth of the current [table] (see header)
	inKey bool // reading a key (else a value, or the separator after one)
	dots  int  // dots in the key read so far
	value int  // depth of the value after the last '='
}

// container is an open array or inline table: what it is, and the depth of
// its elements (an array's) or of its keys' table (an inline table's).
type container struct {
	array bool
	depth int
}

// nestingDepth returns the deepest nesting in data (a value directly in
// the top-level table has depth 1), stopping as soon as it passes limit,
// and the line where that depth is reached (1-based).
func nestingDepth(data []byte, limit int) (depth, line int) {
	s := nestingScanner{data: data, line: 1, inKey: true}
	deepest, at := 0, 1
	note := func(d int) bool {
		if d > deepest {
			deepest, at = d, s.line
		}
		return deepest > limit
	}
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '\n':
			s.i++
			s.line++
			if len(s.stack) == 0 {
				s.inKey, s.dots = true, 0
			}
		case c == '#':
			for s.i < len(s.data) && s.data[s.i] != '\n' {
				s.i++
			}
		case c == '"' || c == '\'':
			s.skipString()
		case s.inKey && c == '[' && len(s.stack) == 0:
			s.table = s.header()
			if note(s.table) {
				return deepest, at
			}
		case s.inKey && c == '.':
			s.i++
			s.dots++
		case s.inKey && c == '=':
			s.i++
			s.value = s.keyTable() + s.dots + 1
			s.inKey, s.dots = false, 0
			if note(s.value) {
				return deepest, at
			}
		case c == '[' || c == '{':
			s.i++
			d := s.valueDepth()
			if c == '[' {
				s.stack = append(s.stack, container{array: true, depth: d + 1})
				if note(d + 1) {
					return deepest, at
				}
			} else {
				s.stack = append(s.stack, container{depth: d})
				s.inKey, s.dots = true, 0
			}
		case c == ']' || c == '}':
			s.i++
			if n := len(s.stack); n > 0 {
				s.stack = s.stack[:n-1]
			}
			s.inKey = false
		case c == ',':
			s.i++
			if n := len(s.stack); n > 0 && !s.stack[n-1].array {
				s.inKey, s.dots = true, 0
			}
		default:
			s.i++
		}
	}
	return deepest, at
}

// keyTable is the depth of the table the key being read belongs to.
func (s *nestingScanner) keyTable() int {
	if n := len(s.stack); n > 0 {
		return s.stack[n-1].depth
	}
	return s.table
}

// valueDepth is the depth of a value that starts here: an array element,
// or the value after '='.
func (s *nestingScanner) valueDepth() int {
	if n := len(s.stack); n > 0 && s.stack[n-1].array {
		return s.stack[n-1].depth
	}
	if s.inKey {
		// A bracket where a key belongs: not TOML, and the decoder stops
		// here. Count it as deep as a value of the key so far.
		return s.keyTable() + s.dots + 1
	}
	return s.value
}

// header reads a [table] or [[array of tables]] header and returns the
// depth of its table: two levels per segment, since every segment may be
// an array of tables ([[a]] then [a.b] puts b in a's last element).
func (s *nestingScanner) header() int {
	s.i++ // '['
	dots := 0
	for s.i < len(s.data) {
		switch c := s.data[s.i]; c {
		case '"', '\'':
			s.skipString()
		case '.':
			dots++
			s.i++
		case ']', '\n':
			for s.i < len(s.data) && s.data[s.i] == ']' {
				s.i++
			}
			return 2 * (dots + 1)
		default:
			s.i++
		}
	}
	return 2 * (dots + 1)
}

// skipString moves past the string that starts at s.i: basic ("...",
// with backslash escapes) or literal ('...'), on one line or, tripled,
// on several. A one-line string ends at a newline too (the decoder
// rejects that), which the main loop then reads.
func (s *nestingScanner) skipString() {
	q := s.data[s.i]
	escapes := q == '"'
	if s.i+2 < len(s.data) && s.data[s.i+1] == q && s.data[s.i+2] == q {
		s.i += 3
		for s.i < len(s.data) {
			c := s.data[s.i]
			switch {
			case c == '\n':
				s.line++
				s.i++
			case escapes && c == '\\':
				s.i++
				if s.i < len(s.data) {
					if s.data[s.i] == '\n' {
						s.line++
					}
					s.i++
				}
			case c == q && s.i+2 < len(s.data) && s.data[s.i+1] == q && s.data[s.i+2] == q:
				// A closing delimiter may be preceded by up to two quotes
				// that belong to the string.
				s.i += 3
				for n := 0; n < 2 && s.i < len(s.data) && s.data[s.i] == q; n++ {
					s.i++
				}
				return
			default:
				s.i++
			}
		}
		return
	}
	s.i++
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '\n':
			return
		case escapes && c == '\\':
			s.i++
			if s.i < len(s.data) && s.data[s.i] != '\n' {
				s.i++
			}
		case c == q:
			s.i++
			return
		default:
			s.i++
		}
	}
}
