package ignore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo"
)

// ForRoot returns the ignore level in force at the top of a walk that
// starts at root (a directory, as the walk will join paths to it), from
// what lies above root in its git repository, as git applies it:
//
//   - the repository's info/exclude, then the .gitignore and .ignore
//     files of each directory from the repository's top down to root's
//     parent (root's own files are read by Load when the walk opens it);
//   - the repository's tracked files, from its index: git never ignores a
//     tracked file, so Ignored is false for one, and for a directory that
//     holds one.
//
// Outside a repository it returns nil (nothing above root applies).
// Problems with the files read (unreadable, a pattern that does not
// compile, a damaged index) go to warn; what could be read is used.
func ForRoot(root string, warn WarnFunc) *Level {
	repo, err := gitrepo.Find(root)
	if err != nil || repo.Top == "" {
		return nil // not in a work tree: nothing above root applies
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(repo.Top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	rel = filepath.ToSlash(rel)
	strip := stripFor(root)
	var l *Level
	push := func(rules []rule, prefix string) {
		if len(rules) > 0 {
			l = &Level{parent: l, strip: strip, prefix: prefix, rules: rules}
		}
	}
	// prefixFrom is root's path relative to dir (a directory above root),
	// with a trailing slash.
	prefixFrom := func(dir string) string {
		if dir == "." {
			return rel + "/"
		}
		return strings.TrimPrefix(rel, dir+"/") + "/"
	}
	if rel != "." {
		push(readFile(repo.ExcludeFile(), warn), prefixFrom("."))
		dir := "."
		for _, part := range strings.Split(rel, "/") {
			push(readRules(filepath.Join(repo.Top, filepath.FromSlash(dir)), warn), prefixFrom(dir))
			dir = joinRel(dir, part)
		}
	} else {
		// At the top, info/exclude applies to paths relative to the root
		// itself; a level of its own keeps it below the top's .gitignore
		// in precedence, as in git.
		push(readFile(repo.ExcludeFile(), warn), "")
	}
	t := loadTracked(repo, rel, strip, warn)
	if l == nil && t == nil {
		return nil
	}
	if l == nil {
		l = &Level{strip: strip}
	}
	for lv := l; lv != nil; lv = lv.parent {
		lv.repo = t
	}
	return l
}

func joinRel(dir, part string) string {
	if dir == "." {
		return part
	}
	return dir + "/" + part
}

// tracked is the set of a repository's tracked paths under a walk's root,
// and of the directories that hold them, relative to the root.
type tracked struct {
	strip int
	files map[string]struct{}
	dirs  map[string]struct{}
}

// loadTracked reads the index and keeps the paths under the root (rel,
// relative to the repository's top).
func loadTracked(repo *gitrepo.Repo, rel string, strip int, warn WarnFunc) *tracked {
	x, err := repo.ReadIndex()
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) && warn != nil {
			warn(repo.IndexFile(), "read", err)
		}
		return nil
	}
	t := &tracked{strip: strip, files: map[string]struct{}{}, dirs: map[string]struct{}{}}
	for _, e := range x.Entries {
		p := e.Path
		if rel != "." {
			var ok bool
			if p, ok = strings.CutPrefix(p, rel+"/"); !ok {
				continue
			}
		}
		if e.Mode == gitrepo.ModeDir {
			t.dirs[strings.TrimSuffix(p, "/")] = struct{}{}
		} else {
			t.files[p] = struct{}{}
		}
		for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
			if _, seen := t.dirs[p[:i]]; seen {
				break
			}
			t.dirs[p[:i]] = struct{}{}
		}
	}
	if len(t.files) == 0 && len(t.dirs) == 0 {
		return nil
	}
	return t
}

// holds reports whether path is tracked, or a directory holding a tracked
// path.
func (t *tracked) holds(path string, dir bool) bool {
	if len(path) <= t.strip {
		return false
	}
	rel := path[t.strip:]
	if dir {
		_, ok := t.dirs[rel]
		return ok
	}
	_, ok := t.files[rel]
	return ok
}
