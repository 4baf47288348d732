package git

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// selection is what a history scan covers: which commits (revisions,
// ref families, dates, parents, identities, a count) and which paths and
// kinds of change, parsed from Options.Revisions and Options.LogOpts as
// git log would take them.
type selection struct {
	revs []revArg // in the order given; ^rev and --not make exclusions
	// refFamilies are --all, --branches, --tags, --remotes, each with an
	// optional glob (and whether it is negated by --not).
	refFamilies []refFamily

	since, until       int64 // committer time bounds; 0: none
	noMerges, onlyMerg bool
	firstParent        bool
	maxCount           int // -1: no limit
	skip               int
	authors            []*regexp.Regexp
	committers         []*regexp.Regexp
	paths              []string // literal path prefixes after "--"
	filter             diffFilter
	renames            bool
}

// reachOnly says whether the selection is every commit some tips reach,
// nothing excluded, filtered or limited: every ref, or plain revisions
// (HEAD, main, an id). A store's record of such a selection can stand
// for it (tips.go).
func (s *selection) reachOnly() bool {
	if s.since != 0 || s.until != 0 || s.noMerges || s.onlyMerg || s.firstParent || s.maxCount >= 0 || s.skip != 0 ||
		len(s.authors) > 0 || len(s.committers) > 0 || len(s.paths) > 0 {
		return false
	}
	for _, f := range s.refFamilies {
		if f.not {
			return false
		}
	}
	for _, r := range s.revs {
		if r.not || strings.Contains(r.expr, "..") || strings.HasSuffix(r.expr, "^@") || strings.HasSuffix(r.expr, "^!") {
			return false
		}
	}
	return true
}

// revArg is one revision expression and whether it excludes.
type revArg struct {
	expr string
	not  bool
}

// refFamily is --all, --branches[=glob], --tags[=glob], --remotes[=glob].
type refFamily struct {
	prefix string // "refs/" for --all, "refs/heads/", ...
	glob   string
	head   bool // --all: the HEADs of every work tree too
	not    bool
}

// diffFilter is git's --diff-filter: which change statuses are shown.
// The zero value shows all.
type diffFilter struct {
	include, exclude string // status letters, upper case
}

// shows reports whether a change of status s (A, M, R, T, D) is shown.
func (f diffFilter) shows(s byte) bool {
	if strings.IndexByte(f.exclude, s) >= 0 {
		return false
	}
	return f.include == "" || strings.IndexByte(f.include, s) >= 0
}

// parseDiffFilter parses --diff-filter letters: upper case selects, lower
// case excludes.
func parseDiffFilter(s string) (diffFilter, error) {
	var f diffFilter
	for i := 0; i < len(s); i++ {
		c := s[i]
		up := c &^ 0x20
		if strings.IndexByte("ACDMRTUXB", up) < 0 {
			return f, fmt.Errorf("--diff-filter: unknown status %q", c)
		}
		if c == up {
			f.include += string(c)
		} else {
			f.exclude += string(up)
		}
	}
	return f, nil
}

// ErrUnsupportedOption is returned for a --log-opts option that is not
// implemented: the scan refuses it by name rather than scan something else
// than what was asked.
var ErrUnsupportedOption = errors.New("not supported")

// parseSelection builds the selection from the options, as gitleaks
// builds its git log command: with no LogOpts, every ref
// (--all --full-history) unless Revisions are given, and
// --diff-filter=tuxdb; with LogOpts, only what they say (and HEAD if they
// name no revision), Revisions added to them.
func parseSelection(opts Options, now time.Time) (*selection, error) {
	s := &selection{maxCount: -1, renames: true}
	for _, r := range opts.Revisions {
		if strings.HasPrefix(r, "-") {
			return nil, fmt.Errorf("git: revision %q: a revision cannot start with '-' (options go in --log-opts)", r)
		}
	}
	if opts.LogOpts == nil {
		s.filter, _ = parseDiffFilter("tuxdb")
		if len(opts.Revisions) == 0 {
			s.refFamilies = append(s.refFamilies, refFamily{prefix: "refs/", head: true})
		}
		for _, r := range opts.Revisions {
			s.addRev(r, false)
		}
		return s, nil
	}
	not := false
	args := opts.LogOpts
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, p := range args[i+1:] {
				if err := s.addPath(p); err != nil {
					return nil, err
				}
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			s.addRev(a, not)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		// Options that take their value as the next argument too.
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("git: --log-opts: %s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch name {
		case "--all":
			s.refFamilies = append(s.refFamilies, refFamily{prefix: "refs/", head: true, not: not})
		case "--branches", "--tags", "--remotes":
			prefix := map[string]string{"--branches": "refs/heads/", "--tags": "refs/tags/", "--remotes": "refs/remotes/"}[name]
			s.refFamilies = append(s.refFamilies, refFamily{prefix: prefix, glob: value, not: not})
		case "--not":
			not = !not
		case "--since", "--after", "--since-as-filter", "--until", "--before":
			v, err := next()
			if err != nil {
				return nil, err
			}
			t, err := parseDate(v, now)
			if err != nil {
				return nil, fmt.Errorf("git: --log-opts %s: %w", name, err)
			}
			if name == "--until" || name == "--before" {
				s.until = t
			} else {
				s.since = t
			}
		case "--no-merges":
			s.noMerges = true
		case "--merges":
			s.onlyMerg = true
		case "--first-parent":
			s.firstParent = true
		case "--max-count", "-n":
			v, err := next()
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("git: --log-opts %s: %q is not a number", name, v)
			}
			s.maxCount = n
		case "--skip":
			v, err := next()
			if err != nil {
				return nil, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("git: --log-opts --skip: %q is not a count", v)
			}
			s.skip = n
		case "--author", "--committer":
			v, err := next()
			if err != nil {
				return nil, err
			}
			re, err := regexp.Compile(v)
			if err != nil {
				return nil, fmt.Errorf("git: --log-opts %s: %w", name, err)
			}
			if name == "--author" {
				s.authors = append(s.authors, re)
			} else {
				s.committers = append(s.committers, re)
			}
		case "--diff-filter":
			v, err := next()
			if err != nil {
				return nil, err
			}
			f, err := parseDiffFilter(v)
			if err != nil {
				return nil, fmt.Errorf("git: --log-opts %w", err)
			}
			s.filter = f
		case "--no-renames":
			s.renames = false
		case "--full-history", "-p", "--patch", "-U0", "--unified", "--no-color", "--color",
			"--date-order", "--author-date-order", "--topo-order", "--reverse", "--no-ext-diff",
			"--no-textconv", "-M", "--find-renames", "--no-abbrev", "--abbrev-commit", "--no-walk",
			"--single-worktree":
			// What gitleaks passes already, or what changes only the
			// order in which git prints: nothing to do.
			if name == "--no-walk" {
				return nil, fmt.Errorf("git: --log-opts %s: %w", name, ErrUnsupportedOption)
			}
		default:
			if n, ok := shortCount(a); ok {
				s.maxCount = n
				continue
			}
			return nil, fmt.Errorf("git: --log-opts %s: %w (supported: revisions and ranges, --all, --branches, --tags, --remotes, --not, --since, --until, --no-merges, --merges, --first-parent, --max-count, --skip, --author, --committer, --diff-filter, --no-renames, -- PATH...)", name, ErrUnsupportedOption)
		}
	}
	for _, r := range opts.Revisions {
		s.addRev(r, false)
	}
	if !s.hasPositive() {
		s.revs = append(s.revs, revArg{expr: "HEAD"})
	}
	return s, nil
}

// shortCount reads git's "-<n>" form of --max-count.
func shortCount(a string) (int, bool) {
	if len(a) < 2 || a[0] != '-' {
		return 0, false
	}
	if a[1] == 'n' {
		n, err := strconv.Atoi(a[2:])
		return n, err == nil
	}
	n, err := strconv.Atoi(a[1:])
	return n, err == nil && n >= 0
}

func (s *selection) addRev(expr string, not bool) {
	if strings.HasPrefix(expr, "^") && !strings.Contains(expr, "..") {
		s.revs = append(s.revs, revArg{expr: expr[1:], not: !not})
		return
	}
	s.revs = append(s.revs, revArg{expr: expr, not: not})
}

// hasPositive reports whether the selection names something to start
// from (git log falls back to HEAD when it does not).
func (s *selection) hasPositive() bool {
	for _, r := range s.revs {
		if !r.not || strings.Contains(r.expr, "..") {
			return true
		}
	}
	for _, f := range s.refFamilies {
		if !f.not {
			return true
		}
	}
	return false
}

// addPath adds a pathspec: a literal path (a file or a directory prefix).
// Pathspec magic and glob characters are refused, not guessed at.
func (s *selection) addPath(p string) error {
	if strings.HasPrefix(p, ":") || strings.ContainsAny(p, "*?[") {
		return fmt.Errorf("git: --log-opts pathspec %q: only literal paths are %w", p, ErrUnsupportedOption)
	}
	p = strings.Trim(strings.TrimPrefix(p, "./"), "/")
	if p == "" || p == "." {
		return nil // the whole tree
	}
	s.paths = append(s.paths, p)
	return nil
}

// pathShown reports whether a path is within the pathspec.
func (s *selection) pathShown(path string) bool {
	if len(s.paths) == 0 {
		return true
	}
	for _, p := range s.paths {
		if path == p || strings.HasPrefix(path, p) && path[len(p)] == '/' {
			return true
		}
	}
	return false
}

// dirShown reports whether a directory may hold shown paths (it is within
// the pathspec, or a pathspec is within it).
func (s *selection) dirShown(dir string) bool {
	if len(s.paths) == 0 {
		return true
	}
	for _, p := range s.paths {
		if s.pathShown(dir) || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// parseDate reads a date as git's --since and --until take the common
// forms: a Unix time ("@1700000000" or a bare number of 9+ digits), ISO
// 8601 and RFC 2822/3339 dates (local time when no zone is given), and
// relative ones ("2 weeks ago", "2.weeks.ago", "yesterday", "now").
func parseDate(v string, now time.Time) (int64, error) {
	s := strings.TrimSpace(v)
	if t, ok := strings.CutPrefix(s, "@"); ok {
		n, err := strconv.ParseInt(t, 10, 64)
		if err == nil {
			return n, nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) >= 9 {
		return n, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05 -0700",
		"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02", "2006.01.02", "2006/01/02", time.RFC1123Z,
		time.RFC1123, "Mon Jan 2 15:04:05 2006 -0700", "Mon, 2 Jan 2006 15:04:05 -0700", time.RFC822Z} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t.Unix(), nil
		}
	}
	switch strings.ToLower(s) {
	case "now":
		return now.Unix(), nil
	case "yesterday":
		return now.AddDate(0, 0, -1).Unix(), nil
	case "today", "midnight":
		y, m, d := now.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, now.Location()).Unix(), nil
	}
	// "<n> <unit>[s] [ago]", with spaces or dots between the words.
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '.' || r == '_' })
	if len(words) >= 2 && len(words) <= 3 && (len(words) == 2 || words[2] == "ago") {
		n, err := strconv.Atoi(words[0])
		unit := strings.TrimSuffix(words[1], "s")
		if err == nil {
			switch unit {
			case "second", "sec":
				return now.Add(-time.Duration(n) * time.Second).Unix(), nil
			case "minute", "min":
				return now.Add(-time.Duration(n) * time.Minute).Unix(), nil
			case "hour":
				return now.Add(-time.Duration(n) * time.Hour).Unix(), nil
			case "day":
				return now.AddDate(0, 0, -n).Unix(), nil
			case "week":
				return now.AddDate(0, 0, -7*n).Unix(), nil
			case "month":
				return now.AddDate(0, -n, 0).Unix(), nil
			case "year":
				return now.AddDate(-n, 0, 0).Unix(), nil
			}
		}
	}
	return 0, fmt.Errorf("date %q: not a form this scan reads (use YYYY-MM-DD, an RFC 3339 time, @unixtime or \"N units ago\")", v)
}
