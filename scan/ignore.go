package scan

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	gitignore "github.com/sabhiram/go-gitignore"
)

// ignoreFiles are read in every directory when Options.Gitignore is set.
// A later file takes precedence over an earlier one, as in ripgrep, where
// .ignore overrides .gitignore.
var ignoreFiles = [...]string{".gitignore", ".ignore"}

// ignoreLevel is the ignore rules of one directory, chained to those of its
// parent. A path is decided by the deepest level with a rule that matches
// it, and within a level by the last matching rule: git's precedence.
//
// Patterns are translated to regular expressions by sabhiram/go-gitignore,
// which the module already uses and which Titus and gitleaks' pending
// gitignore support (PR #2061) chose: small, no dependencies, stdlib regexp.
// Its matcher works on one file at a time and cannot say that a negated
// pattern matched, which nesting needs (a "!keep.log" in a subdirectory
// must override a parent's "*.log"), so each pattern is compiled on its own
// and negation is handled here. Two of its translations differ from git and
// are corrected before compiling: a pattern with a slash in the middle is
// anchored to its directory (git: "doc/frotz" matches only there), and "?"
// matches one character other than a slash (the library treats it as a
// literal). Known remaining gaps, all rare in practice: escaped trailing
// spaces, and git's rule that a directory's own .gitignore is read even if
// the directory is only reached through a link.
type ignoreLevel struct {
	parent *ignoreLevel
	strip  int // bytes to remove from a path to make it relative to this level
	rules  []ignoreRule
}

type ignoreRule struct {
	m      *gitignore.GitIgnore // one pattern
	negate bool
}

// ignored reports whether path (a file, or a directory if dir) is excluded.
func (l *ignoreLevel) ignored(path string, dir bool) bool {
	if dir {
		path += "/" // the library matches directory-only patterns on a trailing slash
	}
	for ; l != nil; l = l.parent {
		if len(path) < l.strip {
			continue
		}
		rel := path[l.strip:]
		for i := len(l.rules) - 1; i >= 0; i-- {
			if l.rules[i].m.MatchesPath(rel) {
				return !l.rules[i].negate
			}
		}
	}
	return false
}

// loadIgnore reads the ignore files of dir and returns the level for its
// entries: parent if dir has none.
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
		rules = append(rules, parseIgnore(string(b))...)
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

// parseIgnore compiles the patterns of one ignore file, one rule each.
func parseIgnore(text string) []ignoreRule {
	var rules []ignoreRule
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, "\r")
		line = strings.TrimRight(line, " ")
		if line == "" || line[0] == '#' {
			continue
		}
		negate := false
		if line[0] == '!' {
			negate, line = true, line[1:]
		}
		if line == "" {
			continue
		}
		line = gitPattern(line)
		rules = append(rules, ignoreRule{m: gitignore.CompileIgnoreLines(line), negate: negate})
	}
	return rules
}

// gitPattern rewrites a pattern where the library's translation differs
// from git's (see ignoreLevel).
func gitPattern(p string) string {
	body := strings.TrimSuffix(p, "/")
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "**/") && strings.Contains(body, "/") {
		p = "/" + p // a slash before the end anchors the pattern to its directory
	}
	if strings.Contains(p, "?") && !strings.Contains(p, `\?`) {
		p = strings.ReplaceAll(p, "?", "[^/]")
	}
	return p
}
