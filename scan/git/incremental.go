package git

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
// the commits the store holds, and scans the rest. A re-scan of all that
// some tips reach (every ref, or plain revisions such as HEAD; no range,
// exclusion or filter, one shard) does not even walk what the last such
// scan saw: the store records that selection, and the walk stops at its
// commits (see tips.go); after a force push or a deleted ref it walks the
// whole history once more. A commit a warning
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

	// last and known are the store's record of the last selection of
	// what some tips reach and the commits it holds, when the walk used them
	// (tips.go); own is how many of history.commits are this scan's
	// (the rest are there for their stored findings).
	last  *selRecord
	known *reach
	own   int
	// selected is how many commits the selection holds.
	selected int64
	// whole says the selection is all that some tips reach, so that the
	// scan writes a record of it; walkLost that its walk lost commits, so that
	// it does not.
	whole, walkLost bool
}

// replayed is a stored finding of commit ci.
type replayed struct {
	ci int32
	f  storedFinding
}

// errNoKey says a scan is not cached because its settings have no key.
var errNoKey = errors.New("history store not used: the detector or this build cannot be identified")

// openIncremental opens the store of h's repository and settings, or
// returns nil when there is none to use. start is HEAD's commit (the
// newest selected commit's when HEAD names none).
func openIncremental(c *Cache, h *history, w *walker, start odb.ID) *incremental {
	key, ok := storeKey(&h.sopts, h.sel, h.repo.HashSize, h.repo.objs.Replacements())
	if !ok {
		c.warn(errNoKey)
		return nil
	}
	root, ok := repositoryRoot(c.Dir, w, start, h.repo.HashSize)
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

// repositoryRoot names a repository's store: the root commit start's
// first parents lead to. Clones of one repository share it; unrelated
// repositories do not. The cache directory remembers the roots of the
// last HEADs scanned, so that a re-scan walks the first parents only as
// far as the last HEAD it knows.
func repositoryRoot(cacheDir string, w *walker, start odb.ID, idLen int) (odb.ID, bool) {
	known := map[odb.ID]odb.ID{}
	for _, e := range readHeads(cacheDir) {
		if e.n == idLen {
			known[e.head] = e.root
		}
	}
	id := start
	for n := 0; ; n++ {
		if root, ok := known[id]; ok {
			id = root
			break
		}
		if w.interrupted(n) != nil {
			return id, false
		}
		c, err := w.load(id)
		if err != nil {
			return id, false
		}
		if len(c.parents) == 0 {
			break
		}
		id = c.parents[0]
	}
	rememberHead(cacheDir, idLen, start, id)
	return id, true
}

// walkKnown walks what the selection's tips reach beyond the store's
// record of the last selection of its kind (see tips.go). It returns
// false, having warned of nothing, when there is no record to use or
// the walk cannot show that the new selection holds the old one: the
// caller then walks the whole history.
func (inc *incremental) walkKnown(w *walker) ([]*commit, bool, error) {
	if inc.st.problem != nil {
		return nil, false, nil
	}
	rec, err := inc.st.readRecord()
	if err != nil {
		inc.c.warn(fmt.Errorf("history store: the record of the last selection is not used, the whole history is walked: %w", err))
		return nil, false, nil
	}
	if rec == nil {
		return nil, false, nil
	}
	known, ok := inc.st.reachOf(rec)
	if !ok {
		return nil, false, nil
	}
	// The walk's warnings wait until it is known to be used.
	type held struct {
		path, op string
		err      error
	}
	var warns []held
	warn := w.warn
	w.warn = func(path, op string, err error) { warns = append(warns, held{path, op, err}) }
	w.known, w.met = known.has, map[odb.ID]bool{}
	news, err := w.walk()
	w.warn, w.known = warn, nil
	if err != nil {
		return nil, false, err
	}
	tips := make(map[odb.ID]bool, len(w.started))
	for _, id := range w.started {
		tips[id] = true
	}
	for _, id := range rec.tips {
		if !tips[id] && !w.met[id] {
			// An old tip the new ones may not reach: the selection may
			// have lost commits.
			return nil, false, nil
		}
	}
	for _, h := range warns {
		warn(h.path, h.op, h.err)
	}
	inc.last, inc.known, inc.walkLost = rec, known, len(warns) > 0
	return news, true, nil
}

// resume makes h's commits those of a walk from the record: the new
// commits, then the record's commits to scan again, then, for their
// stored findings, the record's commits that have some. It returns how
// many commits the selection holds.
func (inc *incremental) resume(h *history, w *walker, news []*commit) int64 {
	h.commits = news
	for _, id := range inc.last.rescan {
		c, err := w.load(id)
		if err != nil {
			h.warn(id.String(), "commit", fmt.Errorf("commit %s of the history is not scanned: %w", id, err))
			continue
		}
		h.commits = append(h.commits, c)
	}
	inc.own = len(h.commits)
	var found []odb.ID
	for id := range inc.known.found {
		found = append(found, id)
	}
	for _, id := range sortIDs(found) {
		h.commits = append(h.commits, &commit{id: id})
	}
	h.tainted = make([]bool, len(h.commits))
	h.todo = make([]int32, 0, inc.own)
	for i, c := range h.commits {
		if i >= inc.own {
			inc.take(h, int32(i))
			continue
		}
		if !w.parentTrees(c) {
			h.tainted[i] = true
		} else if inc.take(h, int32(i)) {
			continue
		}
		h.todo = append(h.todo, int32(i))
	}
	inc.selected = int64(inc.last.commits) + int64(len(news))
	return inc.selected
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
// reachable lists every commit of the selection when it is all that some
// tips reach (selection.reachOnly), so that a merge of the store drops
// the commits they do not reach; nil otherwise. started is
// where the walk started.
func (inc *incremental) save(h *history, shallow map[odb.ID]bool, reachable []*commit, started []odb.ID) {
	if inc.taintAll {
		return
	}
	// The commits this scan answers for: those it scanned, and, after a
	// walk from the record, the new ones the store had from another scan
	// (the new segment holds them, so that the record's segments hold
	// its whole selection).
	covered := h.todo
	if inc.last != nil {
		covered = make([]int32, inc.own)
		for i := range covered {
			covered[i] = int32(i)
		}
	}
	var clean, rescan []odb.ID
	found := map[odb.ID][]storedFinding{}
	for _, ci := range covered {
		c := h.commits[ci]
		if h.tainted[ci] || shallow[c.id] || c.id.IsZero() {
			rescan = append(rescan, c.id)
			continue
		}
		fs, scanned := inc.rec[ci]
		if !scanned {
			fs, _ = inc.st.lookup(c.id)
		}
		if len(fs) == 0 {
			clean = append(clean, c.id)
		} else if inc.c.NoFindings {
			rescan = append(rescan, c.id)
		} else {
			found[c.id] = fs
		}
	}
	var keep func(odb.ID) bool
	switch {
	case inc.last != nil:
		keep = inc.known.has
	case reachable != nil:
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
	// What some tips reach, walked in full, is stored as one segment
	// holding exactly its commits, which a record can name.
	record := inc.whole && !inc.walkLost
	compact := record && inc.last == nil
	name, merged, err := inc.st.save(clean, found, keep, compact)
	if err != nil {
		inc.c.warn(fmt.Errorf("history store not written: %w", err))
		return
	}
	if name != "" {
		nameRepository(filepath.Dir(inc.dir), h.repo.CommonDir)
	}
	if !record {
		return
	}
	next := &selRecord{commits: uint64(len(reachable)), tips: sortIDs(slices.Clone(started))}
	var segs []string
	if inc.last != nil {
		next.commits = uint64(inc.selected)
		if !merged {
			segs = slices.Clone(inc.last.segs)
		}
	}
	if name != "" {
		segs = append(segs, name)
	}
	slices.Sort(segs)
	next.segs = segs
	next.rescan = sortIDs(rescan)
	if inc.last != nil && name == "" && next.commits == inc.last.commits &&
		slices.Equal(next.tips, inc.last.tips) && slices.Equal(next.rescan, inc.last.rescan) {
		return
	}
	if err := inc.st.writeRecord(next); err != nil {
		inc.c.warn(fmt.Errorf("history store: the record of this selection not written: %w", err))
	}
}

// nameRepository records, in a repository's store, the git directory
// scanned, for ListStores; an error costs only that name.
func nameRepository(dir, gitDir string) {
	file := filepath.Join(dir, repositoryFile)
	if old, err := os.ReadFile(file); err == nil && string(old) == gitDir+"\n" {
		return
	}
	writeFileAtomic(dir, repositoryFile, []byte(gitDir+"\n"))
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
