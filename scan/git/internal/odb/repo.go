package odb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxAlternateDepth is how deep alternates may chain (git's limit).
const maxAlternateDepth = 5

// repoLayout is where a repository keeps what this package reads.
type repoLayout struct {
	gitDir    string   // the repository (a bare one, or a work tree's .git)
	commonDir string   // where objects and config live (differs for linked work trees)
	objDirs   []string // objects directories: the repository's, then its alternates
}

// locate finds the git directory for path: a bare repository, a .git
// directory, a .git file ("gitdir: ..." as in linked work trees and
// submodules), or a work tree whose .git is one of those.
func locate(path string) (repoLayout, error) {
	var l repoLayout
	abs, err := filepath.Abs(path)
	if err != nil {
		return l, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return l, fmt.Errorf("%w: %s: %w", ErrNotRepository, path, err)
	}
	if !st.IsDir() {
		if abs, err = readGitFile(abs); err != nil {
			return l, err
		}
	} else if !looksLikeGitDir(abs) {
		dotgit := filepath.Join(abs, ".git")
		st, err := os.Stat(dotgit)
		switch {
		case err != nil:
			return l, fmt.Errorf("%w: %s", ErrNotRepository, path)
		case st.IsDir():
			abs = dotgit
		default:
			if abs, err = readGitFile(dotgit); err != nil {
				return l, err
			}
		}
	}
	if !looksLikeGitDir(abs) {
		return l, fmt.Errorf("%w: %s", ErrNotRepository, path)
	}
	l.gitDir, l.commonDir = abs, abs
	if b, err := os.ReadFile(filepath.Join(abs, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(abs, c)
		}
		l.commonDir = filepath.Clean(c)
	}
	return l, nil
}

// looksLikeGitDir: a HEAD file and an objects directory (or, for a linked
// work tree, a commondir file).
func looksLikeGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if st, err := os.Stat(filepath.Join(dir, "objects")); err == nil && st.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "commondir"))
	return err == nil
}

// readGitFile follows a .git file: one line "gitdir: PATH", PATH relative
// to the file's directory unless absolute.
func readGitFile(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrNotRepository, file, err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("gitdir: "))
	if !ok || len(rest) == 0 {
		return "", fmt.Errorf("%w: %s is not a gitdir file", ErrNotRepository, file)
	}
	dir := string(rest)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(file), dir)
	}
	return filepath.Clean(dir), nil
}

// checkFormat refuses repositories whose objects this package cannot read:
// a format version git itself does not know, or SHA-256 object names.
func checkFormat(commonDir string) error {
	f, err := os.Open(filepath.Join(commonDir, "config"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var section string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name := strings.TrimSpace(line[1:end])
			if i := strings.IndexAny(name, " \t\""); i >= 0 {
				name = name[:i] + "." // a subsection: not one we read
			}
			section = strings.ToLower(name)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		value = strings.ToLower(strings.Trim(strings.TrimSpace(value), "\""))
		if i := strings.IndexAny(value, "#;"); i >= 0 {
			value = strings.TrimSpace(value[:i])
		}
		switch section + "." + key {
		case "core.repositoryformatversion":
			if v, err := strconv.Atoi(value); err == nil && v > 1 {
				return fmt.Errorf("%w: repository format version %d", ErrUnsupported, v)
			}
		case "extensions.objectformat":
			if value != "sha1" {
				return fmt.Errorf("%w: object format %q (only sha1 is read)", ErrUnsupported, value)
			}
		}
	}
	return sc.Err()
}

// objectDirs lists objects directories: dir first, then the alternates it
// names in info/alternates (one path a line, relative to dir unless
// absolute, '#' comments), recursively to git's depth limit. A directory
// is listed once. Unreadable alternates are returned as warnings.
func objectDirs(dir string) (dirs []string, warnings []error) {
	seen := map[string]bool{}
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		d = filepath.Clean(d)
		if seen[d] {
			return
		}
		seen[d] = true
		dirs = append(dirs, d)
		b, err := os.ReadFile(filepath.Join(d, "info", "alternates"))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				warnings = append(warnings, fmt.Errorf("odb: alternates of %s: %w", d, err))
			}
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimRight(line, "\r")
			if line == "" || line[0] == '#' {
				continue
			}
			if line[0] == '"' {
				if u, err := strconv.Unquote(line); err == nil {
					line = u
				}
			}
			alt := line
			if !filepath.IsAbs(alt) {
				alt = filepath.Join(d, alt)
			}
			if depth >= maxAlternateDepth {
				warnings = append(warnings, fmt.Errorf("odb: alternate %s: nested deeper than %d", alt, maxAlternateDepth))
				continue
			}
			if st, err := os.Stat(alt); err != nil || !st.IsDir() {
				warnings = append(warnings, fmt.Errorf("odb: alternate %s of %s is not a directory", alt, d))
				continue
			}
			walk(alt, depth+1)
		}
	}
	walk(dir, 0)
	return dirs, warnings
}

// openPacks opens every pack of the objects directories, newest first as
// git orders them (recent objects are looked up most). A pack whose index
// cannot be read is left out with a warning.
func openPacks(dirs []string) (packs []*Pack, warnings []error) {
	type found struct {
		idx   string
		mtime int64
	}
	var all []found
	for _, d := range dirs {
		names, err := filepath.Glob(filepath.Join(d, "pack", "pack-*.idx"))
		if err != nil {
			continue
		}
		for _, n := range names {
			var mt int64
			if st, err := os.Stat(strings.TrimSuffix(n, ".idx") + ".pack"); err == nil {
				mt = st.ModTime().UnixNano()
			}
			all = append(all, found{n, mt})
		}
	}
	slices.SortStableFunc(all, func(a, b found) int {
		switch {
		case a.mtime > b.mtime:
			return -1
		case a.mtime < b.mtime:
			return 1
		}
		return 0
	})
	for _, f := range all {
		p, err := openPack(f.idx, uint32(len(packs)))
		if err != nil {
			warnings = append(warnings, fmt.Errorf("odb: pack index %s left out: %w", f.idx, err))
			continue
		}
		if p.broken != nil {
			warnings = append(warnings, fmt.Errorf("odb: pack %s is damaged; its %d objects cannot be read: %w", p.path, p.idx.n, p.broken))
		}
		packs = append(packs, p)
	}
	return packs, warnings
}
