package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/git"
)

// gitOptions are the git command's flags beyond the scanning ones.
type gitOptions struct {
	scanOptions
	gitleaks  gitleaksOptions
	logOpts   string
	staged    bool
	unstaged  bool
	preCommit bool
}

const gitLong = `git scans a repository's history for secrets: every commit reachable from
its refs (or the REVISIONs given, as git rev-list takes them), finding for
finding what gitleaks git reports with the same rules. Each finding names the
commit that added the line it is on, with the path, line and column in that
commit, the author, the date and the commit's subject; its fingerprint is
commit:file:rule:line, as in gitleaks. Lines a merge commit introduced itself
(a conflict resolution) are reported too, tagged introduced-by-merge; gitleaks
misses them.

Each distinct blob is read and scanned once, on every core; only the commits
that hold a blob with findings are diffed, by git itself. git must be on PATH.

A shallow clone is scanned as far as it goes, with a warning. A directory
that is not a repository is an error (exit 2).`

const gitExamples = `  spindle git                          # every commit of the repository here
  spindle git ../repo main             # what main reaches
  spindle git . v1.2..HEAD             # a CI range: what the push added
  spindle git --log-opts="--since=2.weeks --no-merges"
  spindle git -f sarif -o history.sarif /srv/mirrors/app.git`

func newGitCmd(e env) *cobra.Command {
	o := gitOptions{scanOptions: scanOptions{maxFileSize: sizeValue{text: "0"}}}
	c := &cobra.Command{
		Use:     "git [flags] [REPO] [REVISION...]",
		Short:   "Find secrets in a git repository's history",
		Long:    gitLong,
		Example: gitExamples,
		RunE: func(c *cobra.Command, args []string) error {
			return runGit(c, e, o, args)
		},
	}
	addReportFlags(c, &o.scanOptions)
	addGitleaksFlags(c, &o.gitleaks)
	f := c.Flags()
	f.StringVar(&o.logOpts, "log-opts", "", "git log `OPTIONS`, as gitleaks takes them: ranges, --since/--until, --branches, --all, --no-merges")
	f.BoolVar(&o.staged, "staged", false, "scan what the next commit would record (the index against HEAD): for pre-commit hooks")
	f.BoolVar(&o.unstaged, "unstaged", false, "scan the work tree's changes that are not staged")
	f.BoolVar(&o.preCommit, "pre-commit", false, "gitleaks: scan the changes not committed yet (git diff): the work tree's unstaged changes, or with --staged the index's")
	c.MarkFlagsMutuallyExclusive("staged", "unstaged")
	return c
}

func runGit(c *cobra.Command, e env, o gitOptions, args []string) error {
	if err := o.gitleaks.apply(c, e, &o.scanOptions); err != nil {
		return &usageError{cmd: c, err: err}
	}
	if o.preCommit && !o.staged {
		o.unstaged = true
	}
	format, err := o.check()
	if err != nil {
		return &usageError{cmd: c, err: err}
	}
	repo := "."
	if len(args) > 0 {
		repo, args = args[0], args[1:]
	}
	hopts := git.Options{Revisions: args}
	if o.logOpts != "" {
		if hopts.LogOpts, err = git.SplitLogOpts(o.logOpts); err != nil {
			return &usageError{cmd: c, err: err}
		}
	}
	if (o.staged || o.unstaged) && (len(args) > 0 || o.logOpts != "") {
		return &usageError{cmd: c, err: errors.New("--staged and --unstaged take no REVISION or --log-opts")}
	}
	if _, err := os.Stat(repo); err != nil {
		return exitWith(exitError, fmt.Errorf("git: %w", err))
	}
	var hist git.Stats
	job := scanJob{configRoot: repo, remoteURL: git.RemoteURL(c.Context(), repo), run: func(ctx context.Context, opts scan.Options) (scan.Stats, error) {
		var err error
		switch {
		case o.staged:
			hist, err = git.Staged(ctx, repo, opts)
		case o.unstaged:
			hist, err = git.Unstaged(ctx, repo, opts)
		default:
			hist, err = git.Scan(ctx, repo, hopts, opts)
		}
		return hist.Stats, err
	}}
	err = runReport(c, e, o.scanOptions, format, job)
	if !o.quiet && hist.Commits > 0 {
		fmt.Fprintf(e.stderr, "history: %s, %s of distinct blobs (%d with findings); git log %v, blobs %v, attribution %v\n",
			plural(hist.Commits, "commit", "commits"), humanBlobs(hist.Blobs, hist.BlobBytes), hist.Candidates,
			hist.Enumerate.Round(1e6), hist.ScanBlobs.Round(1e6), hist.Attribute.Round(1e6))
	}
	return err
}

func humanBlobs(n, bytes int64) string {
	return fmt.Sprintf("%d blobs, %.1f MB", n, float64(bytes)/1e6)
}
