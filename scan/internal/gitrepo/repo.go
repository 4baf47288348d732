package gitrepo

import (
	"errors"
	"fmt"
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
	// bare repository itself, or what GIT_DIR names.
	GitDir string
	// CommonDir holds what linked work trees share with the main one
	// (objects, refs, config, info/exclude); it is GitDir unless GitDir has
	// a commondir file or GIT_COMMON_DIR says otherwise.
	CommonDir string
	// ObjectsDir is where the objects are: CommonDir/objects, or
	// GIT_OBJECT_DIRECTORY.
	ObjectsDir string
	// Alternates are the extra objects directories of
	// GIT_ALTERNATE_OBJECT_DIRECTORIES (a push's quarantine reads the
	// repository's own objects this way); those named by
	// objects/info/alternates are the object database's business.
	Alternates []string
	// HashSize is the object id length: 20 (SHA-1) or 32 (SHA-256).
	HashSize int
	// Config is the repository's own configuration file, parsed (the
	// user's and the system's are not read: nothing a scan does depends
	// on them).
	Config *Config

	indexFile string
	env       Env
	// packed is the packed-refs file as last read, shared by copies of
	// the Repo.
	packed *packedCache
	// reftable says the refs are kept in reftable files
	// (extensions.refStorage = reftable) rather than as files.
	reftable bool
	// rtCache is the reftable stacks as last read, shared by copies.
	rtCache *reftableCache
}

// Env is the part of git's environment that says where a repository is
// and what it reads. Git honours these variables, and so must a scanner
// that wants to see what git sees: a pre-receive hook runs with
// GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES pointing at
// the pushed objects, which are in no pack of the repository yet.
type Env struct {
	GitDir, WorkTree, CommonDir, ObjectDirectory, IndexFile string
	// AlternateObjectDirectories is the list as git takes it: paths
	// separated by the platform's list separator (':' or ';').
	AlternateObjectDirectories string
	// NoReplaceObjects turns off refs/replace, as GIT_NO_REPLACE_OBJECTS.
	NoReplaceObjects bool
}

// EnvFromOS reads Env from the process's environment.
func EnvFromOS() Env {
	_, noReplace := os.LookupEnv("GIT_NO_REPLACE_OBJECTS")
	return Env{
		GitDir:                     os.Getenv("GIT_DIR"),
		WorkTree:                   os.Getenv("GIT_WORK_TREE"),
		CommonDir:                  os.Getenv("GIT_COMMON_DIR"),
		ObjectDirectory:            os.Getenv("GIT_OBJECT_DIRECTORY"),
		IndexFile:                  os.Getenv("GIT_INDEX_FILE"),
		AlternateObjectDirectories: os.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES"),
		NoReplaceObjects:           noReplace,
	}
}

// ErrNotRepo is returned when no repository holds the path.
var ErrNotRepo = errors.New("not a git repository")

// ErrUnsupported is returned for a repository in a format this package
// does not read (a format version git does not know, reftable refs).
var ErrUnsupported = errors.New("unsupported repository format")

// Find returns the repository whose work tree holds dir, or which dir is
// (a bare repository or a git directory, or a directory inside one),
// looking upwards from dir as git does, with git's environment
// (EnvFromOS). It stops at a filesystem root.
func Find(dir string) (*Repo, error) { return FindEnv(dir, EnvFromOS()) }

// FindEnv is Find with the environment given. As in git, relative paths
// in env are relative to dir, and GIT_DIR, when set, is the repository:
// nothing is searched.
func FindEnv(dir string, env Env) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if env.GitDir != "" {
		return fromEnv(abs, env)
	}
	for d := abs; ; {
		r, err := open(d, env)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ErrNotRepo) {
			return nil, err
		}
		if inside, ok := insideGitDir(d); ok {
			// A directory inside a git directory (.git/refs, say): git
			// works there as in the git directory itself.
			return open(inside, env)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
		d = parent
	}
}

// open finds a repository at d itself: d/.git (a directory or a gitdir
// file) makes d a work tree's top; otherwise d may be a git directory.
func open(d string, env Env) (*Repo, error) {
	dotgit := filepath.Join(d, ".git")
	fi, err := os.Stat(dotgit)
	switch {
	case err == nil && fi.IsDir() && isGitDir(dotgit, env):
		return finish(&Repo{Top: d, GitDir: dotgit}, env)
	case err == nil && fi.Mode().IsRegular():
		gd, err := readGitFile(dotgit, env)
		if err != nil {
			return nil, err
		}
		return finish(&Repo{Top: d, GitDir: gd}, env)
	case isGitDir(d, env):
		// A bare repository, or a .git directory given itself: a work
		// tree's .git has its top as the parent, unless core.bare says
		// otherwise.
		r := &Repo{GitDir: d}
		if filepath.Base(d) == ".git" {
			r.Top = filepath.Dir(d)
		}
		return finish(r, env)
	}
	return nil, ErrNotRepo
}

// insideGitDir reports the git directory that d is inside of, if any
// (d is GitDir/refs/heads, or GitDir/objects/pack, ...).
func insideGitDir(d string) (string, bool) {
	for p := filepath.Dir(d); ; p = filepath.Dir(p) {
		if isGitDir(p, Env{}) {
			return p, true
		}
		if filepath.Dir(p) == p {
			return "", false
		}
	}
}

// fromEnv is the repository GIT_DIR names: its work tree is GIT_WORK_TREE,
// else core.worktree, else none for a bare repository and the current
// directory for any other (git's rule).
func fromEnv(cwd string, env Env) (*Repo, error) {
	gd := resolve(cwd, env.GitDir)
	if fi, err := os.Stat(gd); err == nil && fi.Mode().IsRegular() {
		g, err := readGitFile(gd, env)
		if err != nil {
			return nil, err
		}
		gd = g
	}
	if !isGitDir(gd, env) {
		return nil, fmt.Errorf("GIT_DIR=%s: %w", env.GitDir, ErrNotRepo)
	}
	r := &Repo{GitDir: gd, Top: cwd}
	if env.WorkTree != "" {
		r.Top = resolve(cwd, env.WorkTree)
	}
	return finish(r, env)
}

// isGitDir is git's own test: HEAD, objects and refs are present (objects
// and refs in the common directory of a linked work tree; objects where
// GIT_OBJECT_DIRECTORY says, if set).
func isGitDir(d string, env Env) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return false
	}
	common := d
	if env.CommonDir != "" {
		common = resolve(d, env.CommonDir)
	} else if b, err := readSmall(filepath.Join(d, "commondir")); err == nil {
		common = resolve(d, strings.TrimSpace(string(b)))
	}
	objects := filepath.Join(common, "objects")
	if env.ObjectDirectory != "" {
		objects = env.ObjectDirectory
	}
	for _, sub := range []string{objects, filepath.Join(common, "refs")} {
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile reads a .git file ("gitdir: PATH").
func readGitFile(p string, env Env) (string, error) {
	b, err := readSmall(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w (%w)", p, ErrNotRepo, err)
	}
	line := strings.TrimSpace(string(b))
	rest, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: not a gitdir file: %w", p, ErrNotRepo)
	}
	gd := resolve(filepath.Dir(p), strings.TrimSpace(rest))
	if !isGitDir(gd, env) {
		return "", fmt.Errorf("%s: points to %s, which is not a git directory: %w", p, gd, ErrNotRepo)
	}
	return gd, nil
}

// finish fills in what follows from the git directory: the common
// directory, the configuration and what it says (bare, work tree, object
// format), the objects and index locations.
func finish(r *Repo, env Env) (*Repo, error) {
	r.env = env
	r.packed = &packedCache{}
	r.rtCache = &reftableCache{}
	r.CommonDir = r.GitDir
	if env.CommonDir != "" {
		r.CommonDir = resolve(r.GitDir, env.CommonDir)
	} else if b, err := readSmall(filepath.Join(r.GitDir, "commondir")); err == nil {
		r.CommonDir = resolve(r.GitDir, strings.TrimSpace(string(b)))
	}
	cfg, err := ReadConfig(filepath.Join(r.CommonDir, "config"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	r.Config = cfg
	if err := checkFormat(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", r.GitDir, err)
	}
	r.reftable = strings.EqualFold(cfg.Get("extensions", "", "refstorage"), "reftable")
	if env.GitDir == "" || env.WorkTree == "" {
		if bare, ok := cfg.Bool("core", "", "bare"); ok && bare && env.WorkTree == "" {
			r.Top = ""
		}
		if wt := cfg.Get("core", "", "worktree"); wt != "" && env.WorkTree == "" {
			r.Top = resolve(r.GitDir, wt)
		}
	}
	r.HashSize = 20
	if strings.EqualFold(cfg.Get("extensions", "", "objectformat"), "sha256") {
		r.HashSize = 32
	}
	r.ObjectsDir = filepath.Join(r.CommonDir, "objects")
	if env.ObjectDirectory != "" {
		r.ObjectsDir, _ = filepath.Abs(env.ObjectDirectory)
	}
	r.Alternates = splitPathList(env.AlternateObjectDirectories)
	r.indexFile = filepath.Join(r.GitDir, "index")
	if env.IndexFile != "" {
		r.indexFile, _ = filepath.Abs(env.IndexFile)
	}
	return r, nil
}

// checkFormat refuses what this package cannot read: a format version
// above 1, refs stored other than as files or reftables, objects named
// by a hash other than SHA-1 or SHA-256.
func checkFormat(cfg *Config) error {
	if v, ok := cfg.Int("core", "", "repositoryformatversion"); ok && v > 1 {
		return fmt.Errorf("%w: repository format version %d", ErrUnsupported, v)
	}
	if rs := cfg.Get("extensions", "", "refstorage"); rs != "" && !strings.EqualFold(rs, "files") && !strings.EqualFold(rs, "reftable") {
		return fmt.Errorf("%w: refs stored as %q (files and reftable are read)", ErrUnsupported, rs)
	}
	if of := cfg.Get("extensions", "", "objectformat"); of != "" && !strings.EqualFold(of, "sha1") && !strings.EqualFold(of, "sha256") {
		return fmt.Errorf("%w: objects named by %q (sha1 and sha256 are read)", ErrUnsupported, of)
	}
	return nil
}

// splitPathList splits a list of paths as git does: by the platform's list
// separator, an entry in double quotes taken with C escapes.
func splitPathList(s string) []string {
	var out []string
	for s != "" {
		var p string
		if s[0] == '"' {
			if u, rest, ok := unquoteC(s); ok {
				p, s = u, strings.TrimPrefix(rest, string(os.PathListSeparator))
				if p != "" {
					out = append(out, p)
				}
				continue
			}
		}
		p, s, _ = strings.Cut(s, string(os.PathListSeparator))
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// NoReplaceObjects reports whether refs/replace is off (by the
// environment or core.useReplaceRefs).
func (r *Repo) NoReplaceObjects() bool {
	if r.env.NoReplaceObjects {
		return true
	}
	use, ok := r.Config.Bool("core", "", "usereplacerefs")
	return ok && !use
}

func resolve(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// ExcludeFile is the repository's own exclude file, info/exclude.
func (r *Repo) ExcludeFile() string { return filepath.Join(r.CommonDir, "info", "exclude") }

// IndexFile is the index of the work tree (GIT_INDEX_FILE if set).
func (r *Repo) IndexFile() string { return r.indexFile }

// Shallow lists the commits a shallow clone cuts history at (their
// parents are not in the repository), or nil for a complete clone.
func (r *Repo) Shallow() ([]string, error) {
	b, err := readLimited(filepath.Join(r.CommonDir, "shallow"), 64<<20)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}

// RemoteURL returns the URL of the "origin" remote, or "".
func (r *Repo) RemoteURL() string { return r.Config.Get("remote", "origin", "url") }
