package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spindle-go/spindle/internal/smallfile"
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
	reposFile string
	cacheDir  string
	noCache   bool
}

const gitLong = `git scans a repository's history for secrets as gitleaks git does, with
gitleaks' flags, console output (findings printed only with -v), reports
(only to --report-path, in gitleaks' shapes) and exit status: every
commit reachable from its refs (or the REVISIONs given, as git rev-list takes
them), finding for finding what gitleaks git reports with the same rules.
Each finding names the commit that added the line it is on, with the path,
line and column in that commit, the author, the date and the commit's
subject; its fingerprint is commit:file:rule:line, as in gitleaks. Lines a
merge commit introduced itself (a conflict resolution) are reported too,
tagged introduced-by-merge; gitleaks misses them.

No git process runs, and git need not be installed: the repository is read
in process (any directory inside a work tree, its .git, or a bare
repository; git's environment such as GIT_DIR and GIT_OBJECT_DIRECTORY is
honoured), each commit's tree is diffed against its parent's, renames are
found as git finds them, and only the changes whose changed lines could hold
a finding are diffed line by line, with git's own algorithm. Nothing the
repository's configuration names (textconv, filters, hooks) is run.

--staged scans what the next commit would record (the index against HEAD),
--pre-commit alone the work tree's changes not staged, as gitleaks does.

Several REPOs (the leading arguments that are directories, and --repos FILE)
are scanned one after another, each finding named repo/path; --shard I/N
splits every one of them by commit, so N machines share the whole list.

A history scan keeps a store of what each commit yields, by the commit and
every setting that changes it (in the user's cache directory; --cache DIR; in
a pre-receive hook, the repository's): a later scan with the same rules and
settings scans only the commits the store lacks and writes the same report,
byte for byte. With --redact it keeps no finding. --no-cache scans every
commit; spindle cache shows and prunes the stores. Whoever can write a store
can hide findings from the scans that read it.

A shallow clone is scanned as far as it goes, with a warning; a missing or
damaged object is a warning naming it, its commit and path. A directory
that is not in a repository is an error.

` + dropInRulesHelp + `

` + dropInExitHelp

const gitExamples = `  spindle git -v                       # every commit of the repository here, findings printed
  spindle git --shard 2/8 --repos repos.txt -f jsonl -r part-2.jsonl   # one of 8 machines
  spindle git ../repo main             # what main reaches
  spindle git . v1.2..HEAD             # a CI range: what the push added
  spindle git --log-opts="--since=2.weeks --no-merges"
  spindle git -r history.sarif /srv/mirrors/app.git
  spindle git --pre-commit --staged -v # a pre-commit hook`

func newGitCmd(e env) *cobra.Command {
	var o gitOptions
	c := &cobra.Command{
		Use:     "git [flags] [REPO...] [REVISION...]",
		Short:   "Find secrets in a git repository's history",
		Long:    gitLong,
		Example: gitExamples,
		RunE: func(c *cobra.Command, args []string) error {
			return runGit(c, e, o, args)
		},
	}
	addDropInFlags(c, &o.scanOptions, &o.gitleaks, true)
	f := c.Flags()
	f.StringVar(&o.logOpts, "log-opts", "", "git log `OPTIONS`: ranges, --since/--until, --branches, --all, --no-merges")
	f.BoolVar(&o.staged, "staged", false, "scan what the next commit would record (the index against HEAD): for pre-commit hooks")
	f.BoolVar(&o.preCommit, "pre-commit", false, "scan the changes not committed yet (git diff): the work tree's, or with --staged the index's")
	f.StringVar(&o.platform, "platform", "", "the `PLATFORM` links in reports point to: github, gitlab, azuredevops, gitea, bitbucket, none (default: from the remote's host)")
	f.BoolVar(&o.unstaged, "unstaged", false, "scan the work tree's changes that are not staged (--pre-commit without --staged)")
	f.StringVar(&o.reposFile, "repos", "", "scan the repositories listed in `FILE` (one path per line) too; findings are named repo/path")
	f.StringVar(&o.cacheDir, "cache", "", "keep what each commit yields in a store under `DIR` and scan only the commits it lacks (default: the user's cache directory; in a pre-receive hook, the repository's)")
	f.BoolVar(&o.noCache, "no-cache", false, "scan every commit, reading and writing no store")
	c.MarkFlagsMutuallyExclusive("staged", "unstaged")
	c.MarkFlagsMutuallyExclusive("cache", "no-cache")
	return c
}

// openRepository opens a repository; the tests count its calls.
var openRepository = git.Open

// historyCache is the store a history scan of repo uses (see git.Cache):
// --cache DIR; else, in a pre-receive hook (git sets GIT_QUARANTINE_PATH),
// the repository's own git directory, where the server's scans of every
// push share it; else the user's cache directory. None with --no-cache,
// or when no directory can be named. With --redact the store keeps no
// finding, only the ids of the commits that have none.
func historyCache(e env, o gitOptions, repo *git.Repository, warn func(error)) *git.Cache {
	if o.noCache {
		return nil
	}
	dir := o.cacheDir
	switch {
	case dir != "":
	case e.getenv("GIT_QUARANTINE_PATH") != "" && repo != nil:
		dir = filepath.Join(repo.GitDir(), "spindle", "history")
	default:
		var err error
		if dir, err = git.DefaultCacheDir(); err != nil {
			return nil
		}
	}
	return &git.Cache{Dir: dir, NoFindings: o.redact > 0, OnWarning: warn}
}

// gitMemoryLimit is the Go heap's soft limit for history scans.
const gitMemoryLimit = 160 << 20

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
	if os.Getenv("GOMEMLIMIT") == "" {
		// A history scan keeps a record per commit and per file change,
		// and each worker the blobs of the change it diffs; the
		// collector, left to double the heap, lets garbage grow with
		// them. A soft limit makes it collect sooner instead (it gives up
		// above the limit rather than thrash; GOMEMLIMIT overrides it).
		debug.SetMemoryLimit(gitMemoryLimit)
	}
	// The leading arguments that are directories are repositories (REPO
	// defaults to "."); the rest are revisions, for each of them.
	var repos []string
	for len(args) > 0 {
		if fi, err := os.Stat(args[0]); err != nil || !fi.IsDir() {
			break
		}
		repos, args = append(repos, args[0]), args[1:]
	}
	if o.reposFile != "" {
		list, err := readRepoList(o.reposFile)
		if err != nil {
			return exitWith(exitError, err)
		}
		repos = append(repos, list...)
	}
	if len(repos) == 0 {
		if len(args) > 0 && !looksLikeRevision(args[0]) {
			return exitWith(exitError, fmt.Errorf("git: %s: no such repository", args[0]))
		}
		repos = []string{"."}
	}
	repo := repos[0]
	hopts := git.Options{Revisions: args}
	if o.logOpts != "" {
		if hopts.LogOpts, err = git.SplitLogOpts(o.logOpts); err != nil {
			return &usageError{cmd: c, err: err}
		}
	}
	if (o.staged || o.unstaged) && (len(args) > 0 || len(repos) > 1) {
		return &usageError{cmd: c, err: errors.New("--staged and --unstaged take one REPO and no REVISION")}
	}
	if (o.staged || o.unstaged) && o.logOpts != "" {
		// gitleaks ignores --log-opts for the index and the work tree.
		o.debug = append(o.debug, "--log-opts has no effect with --staged or --pre-commit: ignored")
		hopts.LogOpts = nil
	}
	var hist git.Stats
	configRoot := repo
	// One repository is opened once, here: its top names the config, its
	// remote the report's links, and the scan reads it. An error opening
	// it is the scan's error.
	var (
		handle  *git.Repository
		openErr error
	)
	if len(repos) == 1 {
		if handle, openErr = openRepository(repo); openErr == nil {
			defer handle.Close()
			// The repository's .gitleaks.toml, wherever inside it spindle runs.
			configRoot = handle.Top()
		}
	}
	history := !o.staged && !o.unstaged
	job := scanJob{configRoot: configRoot, scanned: gitScanned(o, repos, args),
		commits: func() int64 { return hist.Commits }}
	if history && !o.noCache {
		job.cached = func() (int64, string) { return hist.Cached, hist.Store }
	}
	job.run = func(ctx context.Context, opts scan.Options) (scan.Stats, error) {
		warn := func(err error) {
			if opts.OnWarning != nil {
				opts.OnWarning(scan.Warning{Path: "history store", Op: "cache", Err: err})
			}
		}
		var err error
		switch {
		case openErr != nil:
			return hist.Stats, openErr
		case o.staged:
			hist, err = handle.Staged(ctx, opts)
		case o.unstaged:
			hist, err = handle.Unstaged(ctx, opts)
		case len(repos) == 1:
			hopts.Cache = historyCache(e, o, handle, warn)
			hist, err = handle.Scan(ctx, hopts, opts)
		default:
			// Several repositories, one after another, each finding
			// named by its repository.
			for _, r := range repos {
				h := hopts
				h.Prefix = strings.TrimSuffix(filepath.ToSlash(r), "/") + "/"
				st, serr := scanRepository(ctx, r, func(repo *git.Repository) (git.Stats, error) {
					h.Cache = historyCache(e, o, repo, warn)
					return repo.Scan(ctx, h, opts)
				})
				hist = addHistory(hist, st)
				if serr != nil {
					return hist.Stats, fmt.Errorf("%s: %w", r, serr)
				}
			}
		}
		return hist.Stats, err
	}
	if handle != nil && history {
		job.remoteURL = handle.RemoteURL()
	}
	err = runReport(c, e, o.scanOptions, format, job)
	if o.logLevel <= levelDebug && hist.Commits > 0 {
		ph := hist.Phases
		fmt.Fprintf(e.stderr, "history: %s, %d file changes (%d distinct: %d diffed, %d with no keyword in the changed lines, %d binary), %s of blobs read, %s of added lines scanned; walk %v, tree diffs %v, blob reads %v, line diffs %v, fetch %v, scan %v (CPU time summed over workers)\n",
			plural(hist.Commits, "commit", "commits"), hist.Changes, hist.Pairs, hist.Diffed, hist.Quiet, hist.Binary,
			formatBytes(hist.BlobBytes), formatBytes(hist.Bytes), hist.Walk.Round(1e6), hist.TreeDiff.Round(1e6),
			hist.BlobRead.Round(1e6), hist.LineDiff.Round(1e6), ph.Fetch.Busy.Round(1e6), ph.Scan.Busy.Round(1e6))
	}
	return err
}

// gitScanned is what a shard's report says a history scan read: the
// repositories by name (see scannedNames), the revisions and --log-opts.
func gitScanned(o gitOptions, repos, revisions []string) string {
	words := append([]string{"git"}, scannedNames(repos)...)
	words = append(words, revisions...)
	switch {
	case o.staged:
		words = append(words, "--staged")
	case o.unstaged:
		words = append(words, "--unstaged")
	}
	if o.logOpts != "" {
		words = append(words, "--log-opts="+o.logOpts)
	}
	return strings.Join(words, " ")
}

// readRepoList reads --repos FILE: one repository path per line; blank
// lines and lines starting with # are skipped.
func readRepoList(path string) ([]string, error) {
	b, err := smallfile.Read(path, 16<<20)
	if err != nil {
		return nil, fmt.Errorf("--repos: %w", err)
	}
	var repos []string
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			repos = append(repos, line)
		}
	}
	return repos, nil
}

// looksLikeRevision tells a revision ("main", "v1..v2", "^old", "HEAD~3")
// from a mistyped repository path, for the error message.
func looksLikeRevision(s string) bool {
	return !strings.ContainsAny(s, "/\\") || strings.Contains(s, "..") || strings.HasPrefix(s, "^")
}

// scanRepository opens the repository at path, scans it with run and
// closes it.
func scanRepository(ctx context.Context, path string, run func(*git.Repository) (git.Stats, error)) (git.Stats, error) {
	r, err := openRepository(path)
	if err != nil {
		return git.Stats{}, err
	}
	defer r.Close()
	return run(r)
}

// addHistory sums the stats of scans of several repositories: every count
// and time of git.Stats and of the scan.Stats it holds, Phases included
// (the fetch and scan times -l debug prints). Executor is the first
// scan's: its rows are the workers of one executor, which do not add up
// across scans.
func addHistory(a, b git.Stats) git.Stats {
	if a.Executor.Workers == nil {
		a.Executor = b.Executor
	}
	a.Files += b.Files
	a.Dirs += b.Dirs
	a.Archives += b.Archives
	a.Members += b.Members
	a.Bytes += b.Bytes
	a.Findings += b.Findings
	a.Known += b.Known
	a.Ignored += b.Ignored
	a.Warnings += b.Warnings
	a.Lost += b.Lost
	a.Noise += b.Noise
	a.Duration += b.Duration
	if a.Skipped == nil {
		a.Skipped = map[string]int64{}
	}
	for k, v := range b.Skipped {
		a.Skipped[k] += v
	}
	for _, p := range [...]struct{ a, b *scan.Phase }{
		{&a.Phases.Enumerate, &b.Phases.Enumerate},
		{&a.Phases.Fetch, &b.Phases.Fetch},
		{&a.Phases.Scan, &b.Phases.Scan},
	} {
		p.a.Tasks += p.b.Tasks
		p.a.Busy += p.b.Busy
	}
	a.Phases.Backpressure += b.Phases.Backpressure
	a.Phases.InlineScans += b.Phases.InlineScans
	a.Phases.BytesRead += b.Phases.BytesRead
	a.Commits += b.Commits
	a.Cached += b.Cached
	a.Walked += b.Walked
	if a.Store == "" {
		a.Store = b.Store
	}
	a.Changes += b.Changes
	a.Pairs += b.Pairs
	a.Diffed += b.Diffed
	a.Quiet += b.Quiet
	a.Binary += b.Binary
	a.Unreadable += b.Unreadable
	a.Fragments += b.Fragments
	a.BlobBytes += b.BlobBytes
	a.Walk += b.Walk
	a.TreeDiff += b.TreeDiff
	a.BlobRead += b.BlobRead
	a.LineDiff += b.LineDiff
	a.Shallow = a.Shallow || b.Shallow
	return a
}
