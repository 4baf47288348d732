package git

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// Repository is a git repository, found and opened once: its history, its
// index and its work tree can then be scanned any number of times (a
// command that reads its configuration, then scans it; a server that
// scans every push), each scan reading the refs as they are then and any
// pack that appeared since. Scans may run at once on one Repository;
// Close it after the last one returns.
type Repository struct {
	r    *repository
	path string // as Open was given it, for warnings
	// warnings are the damage found while opening (a pack index that does
	// not parse, a replace ref that names no object): every scan reports
	// them, since each reads a repository with that damage.
	warnings []error
}

// Open finds the repository that holds path (any directory inside a work
// tree, a .git directory, a bare repository), as git does from there,
// with git's environment (GIT_DIR, GIT_OBJECT_DIRECTORY, ...), and opens
// its object database. A path outside any repository is an error
// (ErrNotRepository).
func Open(path string) (*Repository, error) {
	var warnings []error
	r, err := openRepo(path, func(_, _ string, err error) { warnings = append(warnings, err) })
	if err != nil {
		return nil, err
	}
	return &Repository{r: r, path: path, warnings: warnings}, nil
}

// Close releases the object database's files.
func (r *Repository) Close() error {
	r.r.close()
	return nil
}

// Top returns the top of the work tree (or the bare repository itself):
// where a history scan looks for .gitleaks.toml and .gitleaksignore.
func (r *Repository) Top() string { return r.r.top() }

// GitDir returns the repository's git directory, shared by its linked
// work trees (their common directory).
func (r *Repository) GitDir() string { return r.r.CommonDir }

// RemoteURL returns the URL of the "origin" remote, or "" if it has none:
// reports use it to link findings to the commit on its hosting platform,
// as gitleaks does.
func (r *Repository) RemoteURL() string { return r.r.Repo.RemoteURL() }

// openWarnings passes the damage found while opening to a scan's warn.
func (r *Repository) openWarnings(warn func(path, op string, err error)) {
	for _, w := range r.warnings {
		warn(r.r.GitDir, "objects", w)
	}
}

// Scan opens the repository that holds path and scans its history: see
// Repository.Scan.
func Scan(ctx context.Context, path string, opts Options, sopts scan.Options) (Stats, error) {
	if sopts.Detector == nil {
		return Stats{}, scan.ErrNoDetector
	}
	if _, err := parseSelection(opts, time.Now()); err != nil {
		return Stats{}, err
	}
	r, err := Open(path)
	if err != nil {
		return Stats{}, err
	}
	defer r.Close()
	return r.Scan(ctx, opts, sopts)
}

// Staged opens the repository that holds path and scans what its next
// commit would record: see Repository.Staged.
func Staged(ctx context.Context, path string, sopts scan.Options) (Stats, error) {
	return openAndScan(ctx, path, sopts, (*Repository).Staged)
}

// Unstaged opens the repository that holds path and scans its work
// tree's changes that are not staged: see Repository.Unstaged.
func Unstaged(ctx context.Context, path string, sopts scan.Options) (Stats, error) {
	return openAndScan(ctx, path, sopts, (*Repository).Unstaged)
}

func openAndScan(ctx context.Context, path string, sopts scan.Options,
	run func(*Repository, context.Context, scan.Options) (Stats, error)) (Stats, error) {
	if sopts.Detector == nil {
		return Stats{}, scan.ErrNoDetector
	}
	r, err := Open(path)
	if err != nil {
		return Stats{}, err
	}
	defer r.Close()
	return run(r, ctx, sopts)
}

// RemoteURL returns the URL of the "origin" remote of the repository that
// holds path, or "" if it has none or path is in no repository.
func RemoteURL(path string) string {
	r, err := findRepo(path)
	if err != nil {
		return ""
	}
	return r.RemoteURL()
}

// Top returns the top of the work tree that holds path (or the bare
// repository itself): where a history scan looks for .gitleaks.toml and
// .gitleaksignore.
func Top(path string) (string, error) {
	r, err := findRepo(path)
	if err != nil {
		return "", fmt.Errorf("git: %w", err)
	}
	return (&repository{Repo: r}).top(), nil
}

// openRepo finds the repository that holds path (any directory inside a
// work tree, a .git directory, a bare repository), as git does from
// there, with git's environment (GIT_DIR, GIT_OBJECT_DIRECTORY, ...), and
// opens its objects. Damage that leaves the rest readable goes to warn.
func openRepo(path string, warn func(path, op string, err error)) (*repository, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("git: %s: %w", path, ErrNotRepository)
	}
	r, err := findRepo(path)
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	objs, warnings, err := r.OpenObjects(odb.Options{MaxObject: maxObject})
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	for _, w := range warnings {
		warn(r.GitDir, "objects", w)
	}
	return &repository{Repo: r, objs: objs}, nil
}

// findRepo is gitrepo.Find; the tests count its calls.
var findRepo = gitrepo.Find
