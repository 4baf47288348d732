package git

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
	"github.com/spindle-go/spindle/scan/report"
)

// Cache is where a history scan keeps what each commit it scanned yields,
// so that a later scan of the same repository with the same settings
// scans only the commits it has not seen and reports, for the others,
// what was stored: the same findings a full scan reports, so the same
// report, byte for byte.
//
// A commit's findings depend only on the commit, its parents' trees and
// the scan's settings, so each commit's are stored (before the
// .gitleaksignore files, the baseline and redaction apply: those apply to
// stored findings as to new ones), keyed by the commit's id and a key of
// every setting that changes what a commit yields (the rules, as
// resolved, their settings, the archive and size settings, the
// selection's diff options, the code's version: see storeKey). A re-scan
// walks the selection as a full scan does, takes the stored results of
// the commits the store holds, and scans the rest. A commit a warning
// concerns (an object that could not be read), and a shallow clone's
// boundary commits, are never stored: they are scanned again each time.
//
// Each repository has its own store under Dir, named by its root commit
// (the first-parent root of HEAD): two clones of one repository share it,
// and two repositories never do. A store that cannot be read (damaged,
// truncated, foreign, older) is a warning, and the scan then scans every
// commit and writes the store again; a store that cannot be written is a
// warning too. Neither changes what the scan finds. Scans that run at once
// never corrupt or lose a store (see store.go).
//
// Trust: whoever can write a store can hide findings from every scan that
// reads it. Keep it where only the scans you trust write (the user's
// cache directory, or in CI a cache that untrusted pull requests cannot
// write to the default branch's), and scan without one where that cannot
// be guaranteed. A store holds the findings as a report does, secrets
// included, unless NoFindings.
type Cache struct {
	// Dir holds the stores of every repository scanned with it
	// (DefaultCacheDir for the user's).
	Dir string
	// NoFindings stores only the commits with no finding: those with
	// findings are scanned again by every scan, and the store holds no
	// secret (for a scan whose report is redacted).
	NoFindings bool
	// OnWarning receives the store's problems; the scan goes on without
	// the store, or without writing it.
	OnWarning func(error)
}

// DefaultCacheDir is the directory of the stores of the user's scans:
// spindle/history in the user's cache directory (os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "spindle", "history"), nil
}

func (c *Cache) warn(err error) {
	if c.OnWarning != nil {
		c.OnWarning(err)
	}
}

// incremental is one scan's use of its store.
type incremental struct {
	c   *Cache
	st  *store
	dir string
	// replay holds the stored findings of the commits the store had.
	replay []replayed
	// rec holds the findings of the commits scanned, by commit index.
	mu  sync.Mutex
	rec map[int32][]storedFinding
	// taintAll says a warning concerned no change the scan could name:
	// nothing is stored.
	taintAll bool
	byPath   map[string][]*unit
}

// replayed is a stored finding of commit ci.
type replayed struct {
	ci int32
	f  storedFinding
}

// errNoKey says a scan is not cached because its settings have no key.
var errNoKey = errors.New("history store not used: the detector or this build cannot be identified")

// openIncremental opens the store of h's repository and settings, or
// returns nil when there is none to use. all is the walk's selection,
// before sharding.
func openIncremental(c *Cache, h *history, w *walker, all []*commit) *incremental {
	key, ok := storeKey(&h.sopts, h.sel, h.repo.HashSize, h.repo.objs.Replacements())
	if !ok {
		c.warn(errNoKey)
		return nil
	}
	root, ok := repositoryRoot(w, all[0])
	if !ok {
		return nil
	}
	dir := filepath.Join(c.Dir, root.String(), hex.EncodeToString(key[:16]))
	inc := &incremental{c: c, dir: dir, st: openStore(dir, key, h.repo.HashSize), rec: map[int32][]storedFinding{}}
	if err := inc.st.problem; err != nil {
		c.warn(fmt.Errorf("history store not used, every commit is scanned and the store written again: %w", err))
	}
	return inc
}

// repositoryRoot names a repository's store: the root commit HEAD's first
// parents lead to (the newest selected commit's when HEAD names none).
// Clones of one repository share it; unrelated repositories do not. The
// walk has read most of these commits already.
func repositoryRoot(w *walker, newest *commit) (odb.ID, bool) {
	id, err := w.resolve("HEAD")
	if err != nil {
		id = newest.id
	}
	for n := 0; ; n++ {
		if w.interrupted(n) != nil {
			return id, false
		}
		c, err := w.load(id)
		if err != nil {
			return id, false
		}
		if len(c.parents) == 0 {
			return id, true
		}
		id = c.parents[0]
	}
}

// take looks commit ci up in the store: if it is there, its findings are
// queued to be reported and take returns true.
func (inc *incremental) take(h *history, ci int32) bool {
	fs, ok := inc.st.lookup(h.commits[ci].id)
	if !ok {
		return false
	}
	for _, f := range fs {
		inc.replay = append(inc.replay, replayed{ci, f})
	}
	return true
}

// record keeps finding f of commit ci (as the detector reported it for
// the commit's change, before commitFinding) for the store.
func (inc *incremental) record(ci int32, f report.Finding, merge bool) {
	f.Fingerprint = ""
	f.Tags = append([]string(nil), f.Tags...)
	inc.mu.Lock()
	inc.rec[ci] = append(inc.rec[ci], storedFinding{f: f, merge: merge})
	inc.mu.Unlock()
}

// taintPath marks the commits of the changes at path (an archive
// member's path names its archive's change) as concerned by a warning;
// a path that names no change marks the whole scan.
func (inc *incremental) taintPath(h *history, path string) {
	if inc.byPath == nil {
		inc.byPath = map[string][]*unit{}
		for _, u := range h.units {
			inc.byPath[u.path] = append(inc.byPath[u.path], u)
		}
	}
	for p := path; ; {
		if us := inc.byPath[p]; len(us) > 0 {
			for _, u := range us {
				for _, ci := range u.commits {
					h.tainted[ci] = true
				}
			}
			return
		}
		i := strings.LastIndexByte(p, '!')
		if i < 0 {
			inc.taintAll = true
			return
		}
		p = p[:i]
	}
}

// save stores what the scan's commits yielded, those no warning concerns.
// reachable lists every commit of the selection when it is the whole
// history (no revisions, no --log-opts), so that a merge of the store
// drops the commits no ref reaches any more; nil otherwise.
func (inc *incremental) save(h *history, shallow map[odb.ID]bool, reachable []*commit) {
	if inc.taintAll {
		return
	}
	var clean []odb.ID
	found := map[odb.ID][]storedFinding{}
	for _, ci := range h.todo {
		c := h.commits[ci]
		if h.tainted[ci] || shallow[c.id] || c.id.IsZero() {
			continue
		}
		if fs := inc.rec[ci]; len(fs) > 0 {
			if !inc.c.NoFindings {
				found[c.id] = fs
			}
			continue
		}
		clean = append(clean, c.id)
	}
	var keep func(odb.ID) bool
	if reachable != nil {
		var set map[odb.ID]bool
		keep = func(id odb.ID) bool {
			if set == nil {
				set = make(map[odb.ID]bool, len(reachable))
				for _, c := range reachable {
					set[c.id] = true
				}
			}
			return set[id]
		}
	}
	if err := inc.st.save(clean, found, keep); err != nil {
		inc.c.warn(fmt.Errorf("history store not written: %w", err))
		return
	}
	if len(clean) > 0 || len(found) > 0 {
		nameRepository(filepath.Dir(inc.dir), h.repo.CommonDir)
	}
}

// nameRepository records, in a repository's store, the git directory
// scanned, for ListStores; an error costs only that name.
func nameRepository(dir, gitDir string) {
	file := filepath.Join(dir, repositoryFile)
	if old, err := os.ReadFile(file); err == nil && string(old) == gitDir+"\n" {
		return
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return
	}
	_, err = f.WriteString(gitDir + "\n")
	if cerr := f.Close(); err == nil && cerr == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// replaySource reports the stored findings of the commits the store had,
// through the engine, so that the ignore lists, the baseline and the
// counts apply to them as to new ones.
type replaySource struct {
	h     *history
	items []replayed
}

// replayBatch is how many stored findings one Enumerate call reports.
const replayBatch = 1024

func (s *replaySource) Enumerate(ctx context.Context, b *scan.Batch) (bool, error) {
	n := min(replayBatch, len(s.items))
	for _, it := range s.items[:n] {
		if ctx.Err() != nil {
			return false, nil
		}
		b.Report(s.h.commitFinding(it.ci, it.f.f, it.f.merge))
	}
	s.items = s.items[n:]
	return len(s.items) > 0, nil
}
