package rules

import (
	"bytes"
	"strings"
)

// locator maps schema positions (the third [[rules]] entry, its "regex"
// key) to line numbers of a TOML file. The TOML decoder reports lines only
// for syntax errors, so configuration errors found later are located by
// re-reading the text line by line: table headers, bare keys, and
// multi-line strings (which are skipped). It is only consulted when an
// error is reported.
type locator struct {
	lines []lineInfo
}

// lineInfo describes one line that starts a table or a key.
type lineInfo struct {
	line     int    // 1-based
	table    string // lower-cased table path: "", "extend", "rules", "allowlists", ...
	index    int    // occurrence of the top-level array table ([[rules]] or [[allowlists]]); -1 if not an array
	sub      string // for rules.X sub-tables: "allowlists", "allowlist", "required"
	subIndex int    // occurrence of [[rules.X]] within the current rule; -1 if none
	key      string // lower-cased bare key defined on this line; "" for a header
}

func newLocator(data []byte) *locator {
	l := &locator{}
	var (
		table     string
		index     = -1
		sub       string
		subIndex  = -1
		counts    = map[string]int{}
		subCounts = map[string]int{}
		inString  string // the open multi-line delimiter, if any
		lineNo    int
		remaining = data
	)
	for len(remaining) > 0 {
		lineNo++
		var line []byte
		if i := bytes.IndexByte(remaining, '\n'); i >= 0 {
			line, remaining = remaining[:i], remaining[i+1:]
		} else {
			line, remaining = remaining, nil
		}
		s := strings.TrimSpace(string(line))
		if inString == "" && s != "" && s[0] != '#' {
			switch {
			case strings.HasPrefix(s, "[["):
				name := headerName(s[2:], "]]")
				if top, rest, ok := strings.Cut(name, "."); ok && top == "rules" {
					table, sub = "rules", rest
					subCounts[rest]++
					subIndex = subCounts[rest] - 1
				} else {
					table, sub, subIndex = name, "", -1
					counts[name]++
					index = counts[name] - 1
					clear(subCounts)
				}
				l.lines = append(l.lines, lineInfo{lineNo, table, index, sub, subIndex, ""})
			case strings.HasPrefix(s, "["):
				name := headerName(s[1:], "]")
				if top, rest, ok := strings.Cut(name, "."); ok && top == "rules" {
					table, sub, subIndex = "rules", rest, -1
				} else {
					table, index, sub, subIndex = name, -1, "", -1
				}
				l.lines = append(l.lines, lineInfo{lineNo, table, index, sub, subIndex, ""})
			default:
				if k := bareKey(s); k != "" {
					l.lines = append(l.lines, lineInfo{lineNo, table, index, sub, subIndex, k})
				}
			}
		}
		inString = scanStrings(string(line), inString)
	}
	return l
}

func headerName(s, closer string) string {
	if i := strings.Index(s, closer); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

// bareKey returns the lower-cased key of a "key = value" line.
func bareKey(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || c == '-' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return ""
	}
	rest := strings.TrimSpace(s[i:])
	if !strings.HasPrefix(rest, "=") {
		return ""
	}
	return strings.ToLower(s[:i])
}

// scanStrings tracks multi-line strings (”' and """) across one line and
// returns the delimiter still open at its end, or "".
func scanStrings(line, open string) string {
	for i := 0; i < len(line); {
		if open != "" {
			j := strings.Index(line[i:], open)
			if j < 0 {
				return open
			}
			i += j + 3
			open = ""
			continue
		}
		switch {
		case line[i] == '#':
			return ""
		case strings.HasPrefix(line[i:], `'''`), strings.HasPrefix(line[i:], `"""`):
			open = line[i : i+3]
			i += 3
		case line[i] == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return ""
			}
			i += j + 2
		case line[i] == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		default:
			i++
		}
	}
	return open
}

// find returns the line of key within the given table occurrence, or of
// the table's header when key is "" or absent, or 0 when nothing matches.
// index and subIndex of -1 match tables that are not arrays.
func (l *locator) find(table string, index int, sub string, subIndex int, key string) int {
	header := 0
	for _, li := range l.lines {
		if li.table != table || (index >= 0 && li.index != index) {
			continue
		}
		if li.sub != sub || (sub != "" && subIndex >= 0 && li.subIndex != subIndex) {
			continue
		}
		if li.key == "" {
			if header == 0 {
				header = li.line
			}
			if key == "" {
				return li.line
			}
			continue
		}
		if key != "" && li.key == key {
			return li.line
		}
	}
	return header
}
