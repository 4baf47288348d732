package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/ignore"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
)

// Options say what part of a repository's history to scan.
type Options struct {
	// Revisions select commits as `git rev-list` takes them: "main",
	// "v1.2..HEAD", "^old", "new". None means every ref, as `gitleaks git`
	// (which runs git log --all).
	Revisions []string
	// LogOpts are `git log` options, as gitleaks' --log-opts gives them:
	// ranges, --since/--until, --branches, --all, --no-merges, paths
	// after "--". When set, they replace the default selection (--all,
	// --full-history) as they do in gitleaks; Revisions are added to them.
	LogOpts []string
	// Prefix is put in front of every finding's file, and so of its
	// fingerprint: a scan of several repositories names each finding's
	// repository this way ("repo/path/in/repo").
	Prefix string
}

// Stats describe a finished history scan.
type Stats struct {
	scan.Stats // the blobs' scan, with the findings as reported
	// Commits is how many commits the selection holds; Changes how many
	// file changes they make (merges' combined changes included).
	Commits, Changes int64
	// Blobs and BlobBytes count the distinct blobs read and scanned:
	// each once, however many commits and paths hold it.
	Blobs, BlobBytes int64
	// Candidates counts blobs with findings, whose commits were diffed.
	Candidates int64
	// Time spent listing commits and changes (git log), scanning the
	// blobs (reading included), and attributing findings to commits
	// (patches of the candidates' commits, and scanning their added
	// lines).
	Enumerate, ScanBlobs, Attribute time.Duration
	// Shallow says the repository is a shallow clone: history before
	// its boundary commits is not there to scan.
	Shallow bool
}

// ErrNotRepository is returned for a directory that is not a git
// repository.
var ErrNotRepository = gitrepo.ErrNotRepo

// ErrShallow is the warning for a shallow clone: the scan covers the
// history the clone holds, which is cut at its boundary commits.
var ErrShallow = errors.New("shallow clone: history before the boundary commits is not scanned (fetch with --unshallow or fetch-depth: 0)")

// repository is an opened repository and the settings every git command
// it runs shares.
type repository struct {
	*gitrepo.Repo
	ctx context.Context
}

func openRepo(ctx context.Context, path string) (*repository, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("git: history scans need git on PATH: %w", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("git: %s: %w", path, ErrNotRepository)
	}
	r, err := gitrepo.Open(path)
	if err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	return &repository{Repo: r, ctx: ctx}, nil
}

// gitCommand is git run on a repository's git directory (and its work
// tree, if workTree is not empty), with nothing from the environment that
// would make it prompt, page, or fetch.
func gitCommand(ctx context.Context, gitDir, workTree string, args ...string) *exec.Cmd {
	pre := []string{"--git-dir=" + gitDir,
		// git maps pack files into memory in windows of up to 1 GiB, 8
		// GiB in all, and a walk through the whole history touches every
		// page: on a 540 MiB pack its resident set grew to 470 MB. Small
		// windows bound it at a cost the scan does not notice.
		"-c", "core.packedGitWindowSize=16m", "-c", "core.packedGitLimit=64m",
	}
	if workTree != "" {
		pre = append(pre, "--work-tree="+workTree)
	}
	cmd := exec.CommandContext(ctx, "git", append(pre, args...)...)
	cmd.Dir = workTree
	cmd.Env = append(os.Environ(),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"LC_ALL=C",
		// A partial clone fetches missing objects from its promisor
		// remote on demand; a scan must not reach the network, so no
		// transport is allowed.
		"GIT_ALLOW_PROTOCOL=none",
	)
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// command is gitCommand for r, in its work tree if it has one.
func (r *repository) command(args ...string) *exec.Cmd {
	return gitCommand(r.ctx, r.GitDir, r.Top, args...)
}

// shallow reports whether the repository is a shallow clone.
func (r *repository) shallow() bool {
	fi, err := os.Stat(filepath.Join(r.CommonDir, "shallow"))
	return err == nil && fi.Size() > 0
}

// ignoreFile loads the .gitleaksignore at the top of the work tree (or
// of a bare repository) into opts.Ignore, beside what opts already holds.
func (r *repository) ignoreFile(opts *scan.Options) error {
	if opts.NoGitleaksIgnore {
		return nil
	}
	top := r.Top
	if top == "" {
		top = r.GitDir
	}
	fp, err := ignore.LoadFingerprints(filepath.Join(top, ignore.GitleaksIgnoreName))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	if opts.Ignore != nil {
		opts.Ignore = eitherSet{opts.Ignore, fp}
	} else {
		opts.Ignore = fp
	}
	return nil
}

type eitherSet []scan.Fingerprints

func (s eitherSet) Has(fp string) bool {
	for _, x := range s {
		if x.Has(fp) {
			return true
		}
	}
	return false
}

// SplitLogOpts splits a --log-opts string into arguments as a shell
// would, with single and double quotes: gitleaks splits on spaces only,
// so `--since="2 weeks ago"` reached git with its quotes; here it is one
// argument without them.
func SplitLogOpts(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("git: --log-opts %q: unclosed quote", s)
	}
	if in {
		args = append(args, cur.String())
	}
	return args, nil
}

// RemoteURL returns the URL of the repository's "origin" remote, or "" if
// it has none: reports use it to link findings to the commit on its
// hosting platform, as gitleaks does.
func RemoteURL(ctx context.Context, path string) string {
	r, err := gitrepo.Open(path)
	if err != nil {
		return ""
	}
	out, err := gitCommand(ctx, r.GitDir, "", "config", "--get", "remote.origin.url").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
