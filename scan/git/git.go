package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/ignore"
	"github.com/spindle-go/spindle/scan/internal/gitrepo"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// Options say what part of a repository's history to scan.
type Options struct {
	// Revisions select commits as `git rev-list` takes them: "main",
	// "v1.2..HEAD", "^old", "new", "a...b". None means every ref, as
	// `gitleaks git` (which runs git log --all). A revision never starts
	// with '-': options go in LogOpts.
	Revisions []string
	// LogOpts are `git log` options, as gitleaks' --log-opts gives them.
	// When set, they replace the default selection (--all, --full-history,
	// --diff-filter=tuxdb) as they do in gitleaks; Revisions are added to
	// them. Supported: revisions and ranges, --all, --branches, --tags,
	// --remotes (each with =GLOB), --not, --since/--after, --until/--before,
	// --no-merges, --merges, --first-parent, --max-count/-n/-N, --skip,
	// --author, --committer, --diff-filter, --no-renames and literal paths
	// after "--"; options that only change git's output (-p, -U0, --reverse,
	// ...) are accepted. Anything else is refused with
	// ErrUnsupportedOption, by name.
	LogOpts []string
	// Prefix is put in front of every finding's file, and so of its
	// fingerprint: a scan of several repositories names each finding's
	// repository this way ("repo/path/in/repo").
	Prefix string
	// Cache, if not nil, is where what each commit yields is stored, so
	// that the commits an earlier scan with the same settings stored are
	// not scanned again (see Cache).
	Cache *Cache
}

// Stats describe a finished history scan.
type Stats struct {
	scan.Stats // the scan of the changed lines, with the findings as reported
	// Commits is how many commits the scan covers (this shard's); Cached
	// how many of them came from the store (Options.Cache), reported as
	// stored and not diffed; Changes how many file changes the others make;
	// Pairs how many of those are distinct (the same old and new blob at
	// the same path, made again by a cherry-pick or a rebase, is diffed
	// and scanned once).
	Commits, Cached, Changes, Pairs int64
	// Walked counts the commit objects the walk read: every selected
	// commit, or, when the store's record of the last scan of every ref
	// spared the walk what that scan had seen, the new ones and those
	// scanned again.
	Walked int64
	// Store is the directory of the store the scan used; "" for none.
	Store string
	// Diffed counts the pairs whose lines were diffed; Quiet those whose
	// changed region holds no keyword (nor encoded text, nor a path rule):
	// no diff needed. Binary counts pairs git calls binary, scanned only
	// when they are archives. Unreadable counts pairs that could not be
	// read.
	Diffed, Quiet, Binary, Unreadable int64
	// Fragments counts the runs of added lines handed to the scan, and
	// BlobBytes the blob content read to diff them.
	Fragments, BlobBytes int64
	// Time spent walking the history (the tree diffs run beside it),
	// finishing the tree diffs after the walk (and detecting renames),
	// reading the blobs of the changes (inflating them and resolving
	// their deltas), and diffing their lines (with the keyword checks
	// that spare most diffs), summed over workers; the scan's own time
	// is in Stats.Phases.
	Walk, TreeDiff, BlobRead, LineDiff time.Duration
	// Shallow says the repository is a shallow clone: history before
	// its boundary commits is not there to scan.
	Shallow bool
}

// ErrNotRepository is returned for a path that is not in a git repository.
var ErrNotRepository = gitrepo.ErrNotRepo

// ErrShallow is the warning for a shallow clone: the scan covers the
// history the clone holds, which is cut at its boundary commits.
var ErrShallow = errors.New("shallow clone: history before the boundary commits is not scanned (fetch with --unshallow or fetch-depth: 0)")

// maxObject is the largest object a scan builds in memory: blobs beyond
// maxDiffBlob are streamed or not read at all, and a commit or tree this
// large is damage or an attack (git's own trees of a million entries take
// about 40 MB).
//
// It and maxDiffBlob are variables only so that tests can lower them (a
// short test of what a 150 MB file does); nothing else changes them.
var maxObject int64 = 128 << 20

// repository is an opened repository: where it is, and its objects.
type repository struct {
	*gitrepo.Repo
	objs *gitrepo.Objects
}

func (r *repository) close() { r.objs.Close() }

// top is the directory whose .gitleaksignore and .gitleaks.toml apply:
// the work tree's top, or a bare repository itself.
func (r *repository) top() string {
	if r.Top != "" {
		return r.Top
	}
	return r.GitDir
}

// shallowSet reads the shallow boundary: commits whose parents the clone
// does not hold.
func (r *repository) shallowSet() (map[odb.ID]bool, error) {
	ids, err := r.Shallow()
	if err != nil {
		return nil, err
	}
	set := map[odb.ID]bool{}
	for _, s := range ids {
		if id, err := odb.ParseID(s); err == nil {
			set[id] = true
		}
	}
	return set, nil
}

// ignoreFile loads the .gitleaksignore at the top of the work tree (or
// of a bare repository) into opts.Ignore, beside what opts already holds.
// One that cannot be read (a link to a FIFO or a device, never opened;
// too large) is an error, which the scans make a warning of lost data.
func (r *repository) ignoreFile(opts *scan.Options) error {
	if opts.NoGitleaksIgnore {
		return nil
	}
	fp, err := ignore.LoadFingerprints(filepath.Join(r.top(), ignore.GitleaksIgnoreName))
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
