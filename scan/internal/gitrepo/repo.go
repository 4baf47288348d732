package gitrepo

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Repo is a repository found on disk.
type Repo struct {
	// Top is the work tree's top directory, absolute; "" for a bare
	// repository.
	Top string
	// GitDir is the repository's git directory, absolute: Top/.git, or
	// what a .git file points to (a linked work tree, a submodule), or the
	// bare repository itself.
	GitDir string
	// CommonDir holds what linked work trees share with the main one
	// (objects, refs, info/exclude); it is GitDir unless GitDir has a
	// commondir file.
	CommonDir string
	// HashSize is the object id length: 20 (SHA-1) or 32 (SHA-256).
	HashSize int
}

// ErrNotRepo is returned when no repository holds the path.
var ErrNotRepo = errors.New("not a git repository")

// Find returns the repository whose work tree holds dir, or which dir is
// (a bare repository or a git directory), looking upwards from dir as git
// does. It stops at a filesystem root.
func Find(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; {
		if r, err := open(d); err == nil {
			return r, nil
		} else if !errors.Is(err, ErrNotRepo) {
			return nil, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
		d = parent
	}
}

// Open returns the repository at dir exactly: a work tree's top (holding
// .git), a bare repository, or a git directory. It does not look upwards.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := open(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return r, nil
}

func open(d string) (*Repo, error) {
	dotgit := filepath.Join(d, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err == nil && fi.IsDir() && isGitDir(dotgit):
		return finish(&Repo{Top: d, GitDir: dotgit})
	case err == nil && fi.Mode().IsRegular():
		gd, err := readGitFile(dotgit)
		if err != nil {
			return nil, err
		}
		return finish(&Repo{Top: d, GitDir: gd})
	case isGitDir(d):
		// A bare repository, or a .git directory given itself: a work
		// tree's .git has its top as the parent, unless core.bare says
		// otherwise.
		r := &Repo{GitDir: d}
		if filepath.Base(d) == ".git" && !isBare(d) {
			r.Top = filepath.Dir(d)
		}
		return finish(r)
	}
	return nil, ErrNotRepo
}

// isGitDir is git's own test: HEAD, objects and refs are present.
func isGitDir(d string) bool {
	if _, err := os.Stat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	common := d
	if b, err := readSmall(filepath.Join(d, "commondir")); err == nil {
		common = resolve(d, strings.TrimSpace(string(b)))
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile reads a .git file ("gitdir: PATH").
func readGitFile(p string) (string, error) {
	b, err := readSmall(p)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	rest, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: not a gitdir file: %w", p, ErrNotRepo)
	}
	gd := resolve(filepath.Dir(p), strings.TrimSpace(rest))
	if !isGitDir(gd) {
		return "", fmt.Errorf("%s: points to %s, which is not a git directory: %w", p, gd, ErrNotRepo)
	}
	return gd, nil
}

func finish(r *Repo) (*Repo, error) {
	r.CommonDir = r.GitDir
	if b, err := readSmall(filepath.Join(r.GitDir, "commondir")); err == nil {
		r.CommonDir = resolve(r.GitDir, strings.TrimSpace(string(b)))
	}
	r.HashSize = 20
	if format := configValue(filepath.Join(r.CommonDir, "config"), "extensions", "objectformat"); strings.EqualFold(format, "sha256") {
		r.HashSize = 32
	}
	return r, nil
}

func isBare(gitDir string) bool {
	return strings.EqualFold(configValue(filepath.Join(gitDir, "config"), "core", "bare"), "true")
}

func resolve(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// readSmall reads a small metadata file, refusing anything that is not a
// regular file of at most 64 KiB.
func readSmall(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errors.New("not a small regular file")}
	}
	return os.ReadFile(p)
}

// configValue is a minimal reader of one key of a git config file: the
// last value of key in [section] (no includes, no subsections). It is
// enough for core.bare and extensions.objectformat.
func configValue(p, section, key string) string {
	b, err := readSmall(p)
	if err != nil {
		return ""
	}
	var value, cur string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			cur = strings.ToLower(strings.Trim(strings.Fields(strings.Trim(line, "[]") + " ")[0], `"`))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || cur != section || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		value = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return value
}

// ExcludeFile is the repository's own exclude file, info/exclude.
func (r *Repo) ExcludeFile() string { return filepath.Join(r.CommonDir, "info", "exclude") }

// IndexFile is the index of the work tree.
func (r *Repo) IndexFile() string { return filepath.Join(r.GitDir, "index") }
