package scan

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

// ignoreFiles are read in every directory when Options.Gitignore is set.
// A later file takes precedence over an earlier one, as in ripgrep, where
// .ignore overrides .gitignore.
var ignoreFiles = [...]string{".gitignore", ".ignore"}

// ignoreLevel is the ignore rules of one directory, chained to those of its
// parent. A path is decided by the deepest level with a rule that matches
// it, and within a level by the last matching rule: git's precedence. The
// walk asks about a directory before it enters it, so a path's parents are
// never excluded when the path itself is asked about (git's "a file cannot
// be re-included if its directory is excluded" holds by construction).
//
// Why not a library: sabhiram/go-gitignore, which go.mod lists and Titus
// uses, was the first choice, but its patterns match a path's ancestors too
// and its negation works within one file only, so a parent's "tmp/*" with
// a nested "!tmp/keep/" re-includes nothing; it also reads "?" as a
// literal, passes git's "[!a]" to the regexp unchanged and leaves
// "doc/frotz" unanchored. go-git's matcher is right but brings go-git into
// the module for one file. The translation below is gitignore(5)'s pattern
// syntax to a regexp anchored on the path relative to the ignore file's
// directory; TestGitignoreMatchesGit checks it against git itself. Not
// supported: core.ignoreCase, .git/info/exclude and the global excludes
// file, and ignore files above the scan's roots.
type ignoreLevel struct {
	parent *ignoreLevel
	strip  int // bytes to remove from a path to make it relative to this level
	rules  []ignoreRule
}

type ignoreRule struct {
	re      *regexp.Regexp // matches the whole relative path
	negate  bool           // "!pattern": re-include
	dirOnly bool           // "pattern/": matches directories only
}

// ignored reports whether path (a file, or a directory if dir) is excluded.
func (l *ignoreLevel) ignored(path string, dir bool) bool {
	for ; l != nil; l = l.parent {
		if len(path) <= l.strip {
			continue
		}
		rel := path[l.strip:]
		for i := len(l.rules) - 1; i >= 0; i-- {
			r := &l.rules[i]
			if (dir || !r.dirOnly) && r.re.MatchString(rel) {
				return !r.negate
			}
		}
	}
	return false
}

// loadIgnore reads the ignore files of dir and returns the level for its
// entries: parent if dir has none. A pattern that does not compile is
// reported as a warning and skipped.
func (e *engine) loadIgnore(dir string, parent *ignoreLevel) *ignoreLevel {
	var rules []ignoreRule
	for _, name := range ignoreFiles {
		p := join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				e.warn(p, "read", err)
			}
			continue
		}
		rs, err := parseIgnore(string(b))
		if err != nil {
			e.warn(p, "parse", err)
		}
		rules = append(rules, rs...)
	}
	if len(rules) == 0 {
		return parent
	}
	strip := len(dir) + 1
	switch {
	case dir == "" || dir == ".":
		strip = 0
	case strings.HasSuffix(dir, "/"):
		strip = len(dir)
	}
	return &ignoreLevel{parent: parent, strip: strip, rules: rules}
}

// parseIgnore compiles the patterns of one ignore file, in order. It keeps
// the patterns that compile and returns the first error.
func parseIgnore(text string) ([]ignoreRule, error) {
	var (
		rules    []ignoreRule
		firstErr error
	)
	for line := range strings.SplitSeq(text, "\n") {
		line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		r := ignoreRule{}
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		re, err := regexp.Compile(globRegexp(line))
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		r.re = re
		rules = append(rules, r)
	}
	return rules, firstErr
}

// trimTrailingSpaces removes trailing spaces that are not escaped with a
// backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globRegexp translates one gitignore pattern (without "!" and trailing
// "/") to a regular expression over a path relative to the ignore file's
// directory. A pattern with a slash before its end is anchored there;
// otherwise it matches at any depth. "*" and "?" do not match "/"; a
// leading "**/", a trailing "/**" and an inner "/**/" match any number of
// directories; a bracket expression is a character class ("[!...]"
// negated) that never matches "/"; a backslash escapes the next character.
func globRegexp(p string) string {
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(p, "/") {
		b.WriteString("(?:.*/)?")
	}
	p = strings.TrimPrefix(p, "/")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && i+1 < len(p) && p[i+1] == '*' && (i == 0 || p[i-1] == '/') && (i+2 == len(p) || p[i+2] == '/'):
			if i+2 == len(p) {
				b.WriteString(".*") // "/**" at the end: everything inside
				i++
			} else {
				b.WriteString("(?:.*/)?") // "**/": zero or more directories
				i += 2
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			class, n := bracket(p[i:])
			if n == 0 {
				b.WriteString(`\[`) // no closing bracket: a literal
				continue
			}
			b.WriteString(class)
			i += n - 1
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString("$")
	return b.String()
}

// bracket translates the bracket expression at the start of p and returns
// it with the number of bytes it spans, or 0 if it is not closed.
func bracket(p string) (string, int) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		b.WriteString("^/") // a negated class must not match a separator either
		i++
	}
	for first := true; i < len(p); first = false {
		c := p[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			return b.String(), i + 1
		case c == '[' && strings.HasPrefix(p[i:], "[:"):
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return "", 0
			}
			b.WriteString(p[i : i+2+end+2]) // a POSIX class, which RE2 knows
			i += 2 + end + 2
			continue
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(classChar(p[i]))
		case c == '-':
			b.WriteByte(c) // a range, or a literal at either end
		default:
			b.WriteString(classChar(c))
		}
		i++
	}
	return "", 0
}

// classChar writes c for use inside a regexp character class: escaped if
// it is punctuation (which may be special there), as it is otherwise (an
// escaped letter would be a class such as \d).
func classChar(c byte) string {
	if c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
		return `\` + string(c)
	}
	return string(c)
}
