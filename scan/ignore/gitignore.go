package ignore

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"

	"github.com/spindle-go/spindle/internal/smallfile"
	"github.com/spindle-go/spindle/scan/internal/relpath"
)

// Files are the ignore files read in every directory. A later file takes
// precedence over an earlier one, as in ripgrep, where .ignore overrides
// .gitignore.
var Files = [...]string{".gitignore", ".ignore"}

// Level is the ignore rules of one directory, chained to those of its
// parent. A path is decided by the deepest level with a rule that matches
// it, and within a level by the last matching rule: git's precedence. A
// walk asks about a directory before it enters it, so a path's parents are
// never excluded when the path itself is asked about (git's "a file cannot
// be re-included if its directory is excluded" holds by construction).
//
// A nil *Level ignores nothing.
//
// Why not a library: sabhiram/go-gitignore, which Titus uses, matches a pattern
// against a path's ancestors too, and its negation works within one file
// only, so a parent's "tmp/*" with a nested "!tmp/keep/" re-includes
// nothing; it also reads "?" as a
// literal, passes git's "[!a]" to the regexp unchanged and leaves
// "doc/frotz" unanchored. go-git's matcher is right but brings go-git into
// the module for one file. The translation below is gitignore(5)'s pattern
// syntax to a regexp anchored on the path relative to the ignore file's
// directory; TestGitignoreMatchesGit (package scan) checks it against git
// itself. Not supported: core.ignoreCase and the global excludes file
// (core.excludesFile).
type Level struct {
	parent *Level
	// A path is made relative to this level's directory by removing its
	// first strip bytes and putting prefix in front: prefix is empty for
	// a level at or below the walk's root, and the root's path from the
	// level's directory for a level above it (ForRoot).
	strip  int
	prefix string
	rules  []rule
	repo   *tracked // shared by every level of one root; nil outside a repository
}

type rule struct {
	re      *regexp.Regexp // matches the whole relative path
	negate  bool           // "!pattern": re-include
	dirOnly bool           // "pattern/": matches directories only
}

// Ignored reports whether path (a file, or a directory if dir) is
// excluded. path is the path the walk built from its root, as given to
// Load and ForRoot. A tracked file is never excluded, nor a directory that
// holds one.
func (l *Level) Ignored(path string, dir bool) bool {
	if l == nil {
		return false
	}
	if l.repo != nil && l.repo.holds(path, dir) {
		return false
	}
	for ; l != nil; l = l.parent {
		if len(path) <= l.strip {
			continue
		}
		rel := path[l.strip:]
		if l.prefix != "" {
			rel = l.prefix + rel
		}
		for i := len(l.rules) - 1; i >= 0; i-- {
			r := &l.rules[i]
			if (dir || !r.dirOnly) && r.re.MatchString(rel) {
				return !r.negate
			}
		}
	}
	return false
}

// WarnFunc receives a problem with an ignore file: op is "read" or
// "parse". The file is used as far as it could be read.
type WarnFunc func(path, op string, err error)

// Load reads the ignore files of dir and returns the level for its
// entries: parent if dir has none. A pattern that does not compile, or a
// file that cannot be read, is passed to warn and skipped.
func Load(dir string, parent *Level, warn WarnFunc) *Level {
	rules := readRules(dir, warn)
	if len(rules) == 0 {
		return parent
	}
	l := &Level{parent: parent, strip: stripFor(dir), rules: rules}
	if parent != nil {
		l.repo = parent.repo
	}
	return l
}

// readRules reads and compiles the ignore files of dir, in precedence
// order.
func readRules(dir string, warn WarnFunc) []rule {
	var rules []rule
	for _, name := range Files {
		rules = append(rules, readFile(relpath.Join(dir, name), warn)...)
	}
	return rules
}

func readFile(p string, warn WarnFunc) []rule {
	b, err := smallfile.Read(p, maxFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && warn != nil {
			warn(p, "read", err)
		}
		return nil
	}
	rs, err := parse(string(b))
	if err != nil && warn != nil {
		warn(p, "parse", err)
	}
	return rs
}

// maxFile bounds an ignore file read: they are input from the tree being
// scanned, which may be hostile.
const maxFile = 16 << 20

// stripFor is how many bytes of a path under dir, as join builds it, come
// before the part relative to dir.
func stripFor(dir string) int {
	switch {
	case dir == "" || dir == ".":
		return 0
	case strings.HasSuffix(dir, "/"):
		return len(dir)
	}
	return len(dir) + 1
}

// parse compiles the patterns of one ignore file, in order. It keeps the
// patterns that compile and returns the first error.
func parse(text string) ([]rule, error) {
	var (
		rules    []rule
		firstErr error
	)
	for line := range strings.SplitSeq(text, "\n") {
		line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		r := rule{}
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
