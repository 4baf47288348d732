package git

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/ignore"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
	"github.com/spindle-go/spindle/scan/report"
)

// history is one scan of a repository's history.
type history struct {
	repo    *repository
	sel     *selection
	opts    Options
	sopts   scan.Options
	commits []*commit // selected (this shard's), in log order
	todo    []int32   // the commits to diff: those the store does not hold
	units   []*unit   // the distinct changes, in diff order
	meta    []commitMeta
	// inc is the scan's use of its store; nil without a cache.
	inc *incremental
	// tainted marks the commits a warning concerns (an object that could
	// not be read, a path left out): their results are not stored.
	tainted []bool
	// worktree maps the ids of work-tree files an unstaged scan diffs (not
	// in the object database) to their paths.
	worktree map[odb.ID]string

	// bigMu is held while a big change is diffed (see bigUnit).
	bigMu sync.Mutex
	// warnMu serialises the warnings of the walk and the tree diffs,
	// which run before the engine (and its own serialisation) starts.
	warnMu sync.Mutex

	// Counters, updated by the workers.
	diffed, quiet, binary, unreadable, fragments, blobBytes atomic.Int64
	lineDiff, blobRead                                      atomic.Int64 // nanoseconds, summed over workers
	lost, noised                                            atomic.Int64 // warnings of the history itself, by class
}

// unit is one distinct change to diff and scan, with every commit that
// makes it: the same blobs at the same path, made again by a cherry-pick,
// a rebase or the same edit on two branches, is diffed and scanned once
// and its findings reported for each commit.
type unit struct {
	*change
	commits []int32 // indexes into history.commits, in log order
}

// commitMeta is what a finding reports of its commit, read once, when the
// first finding of the commit needs it.
type commitMeta struct {
	once                             sync.Once
	id, author, email, date, subject string
}

// Scan scans the repository's history, finding for finding what
// `gitleaks git` reports with the same rules: each finding belongs to the
// commit whose patch adds the line it is on, with that commit's path,
// line and column, author, email, date (RFC 3339, UTC) and subject, and
// the fingerprint commit:file:rule:line. Lines first introduced by a
// merge commit are reported too, tagged report.TagMerge (gitleaks does
// not see them). Findings and warnings go to the callbacks of sopts,
// whose other fields apply as in a directory scan; sopts.Shard splits the
// commits between shards. With opts.Cache, commits an earlier scan with
// the same settings stored are not scanned again (see Cache).
//
// A shallow clone is scanned as far as it goes, with an ErrShallow
// warning; a missing or damaged object is a warning naming it (and the
// commit and path that needed it), and the rest is scanned.
func (r *Repository) Scan(ctx context.Context, opts Options, sopts scan.Options) (Stats, error) {
	var st Stats
	if sopts.Detector == nil {
		return st, scan.ErrNoDetector
	}
	sel, err := parseSelection(opts, time.Now())
	if err != nil {
		return st, err
	}
	h := &history{repo: r.r, sel: sel, opts: opts, sopts: sopts}
	r.openWarnings(h.warn)
	if err := r.r.ignoreFile(&h.sopts); err != nil {
		// Lost data, not a stop: the scan goes on and reports what the
		// file would have suppressed; the warning fails it unless a
		// partial result is accepted.
		h.warn(filepath.Join(r.r.top(), ignore.GitleaksIgnoreName), "ignore", err)
	}
	if n, err := fetchPromised(ctx, r.r.Repo); err != nil {
		what := "objects"
		if n >= 0 {
			what = fmt.Sprintf("%d objects", n)
		}
		h.warn(r.r.GitDir, "promisor", fmt.Errorf("partial clone: %s its history needs are not here, and not fetched from the promisor remote: %w", what, err))
	}
	shallow, err := r.r.shallowSet()
	if err != nil {
		h.warn(r.r.GitDir, "shallow", err)
	}
	if len(shallow) > 0 {
		st.Shallow = true
		h.warn(r.path, "history", ErrShallow)
	}

	start := time.Now()
	w := &walker{objs: r.r.objs, repo: r.r.Repo, shallow: shallow, sel: sel, cache: map[odb.ID]*commit{}, ctx: ctx,
		warn: h.warn, idents: len(sel.authors) > 0 || len(sel.committers) > 0}
	if w.graph, err = r.r.OpenCommitGraph(r.r.objs.Replacing()); err != nil {
		// Nothing is lost: the commits are read from their objects.
		h.noise(r.r.GitDir, "commit-graph", fmt.Errorf("not used: %w", err))
		w.graph = nil
	}
	// A selection of what some tips reach, whole: a store's record can
	// stand for it.
	whole := sel.reachOnly() && len(shallow) == 0 && sopts.Shard.Count <= 1
	head, headErr := w.resolve("HEAD")
	if opts.Cache != nil && headErr == nil {
		h.inc = openIncremental(opts.Cache, h, w, head)
	}
	var commits []*commit
	resumed := false
	if h.inc != nil && whole {
		if commits, resumed, err = h.inc.walkKnown(w); err != nil {
			return st, err
		}
	}
	var diffs *diffPipe
	if resumed {
		st.Commits = h.inc.resume(h, w, commits)
	} else {
		// A commit is admitted (sharded, its parents' trees read, answered
		// by the store or left to diff) as the walk lists it, and its tree
		// diff starts on the workers while the walk goes on: the walk, one
		// goroutine reading commit after commit, is otherwise a stretch of
		// the scan with one core at work. A store opened from the first
		// commit (no HEAD) must wait for the walk's end.
		early := opts.Cache == nil || headErr == nil
		if early {
			diffs = h.startDiffs(ctx)
			w.emit = func(c *commit) {
				if h.admit(w, c, shallow) {
					diffs.add()
				}
			}
		}
		if commits, err = w.walk(); err != nil {
			if diffs != nil {
				diffs.stop()
			}
			return st, err
		}
		if !early {
			if opts.Cache != nil && len(commits) > 0 {
				h.inc = openIncremental(opts.Cache, h, w, commits[0].id)
			}
			for _, c := range commits {
				h.admit(w, c, shallow)
			}
		}
		st.Commits = int64(len(h.commits))
	}
	if h.inc != nil {
		h.inc.whole = whole
		// A walk that lost commits is not recorded: the next scan walks
		// to them again, and says so again.
		h.inc.walkLost = h.lost.Load() > 0
	}
	w.cache = nil
	st.Walk, st.Walked = time.Since(start), w.loads
	st.Cached = st.Commits - int64(len(h.todo))
	if p := sopts.Progress; p != nil {
		p.Commits.Store(st.Cached)
	}

	start = time.Now()
	if diffs == nil {
		diffs = h.startDiffs(ctx)
		diffs.addAll()
	}
	changes, err := diffs.finish()
	if err != nil {
		return st, err
	}
	st.TreeDiff = time.Since(start)
	st.Changes = changes
	st.Pairs = int64(len(h.units))

	err = h.scanUnits(ctx, &st)
	if errors.Is(err, scan.ErrNothingRead) && st.Cached > 0 {
		// What the store answered for was read, by the scans that stored
		// it.
		err = nil
	}
	if h.inc != nil {
		st.Store = h.inc.dir
		if err == nil && ctx.Err() == nil {
			var reachable []*commit
			if sel.reachOnly() && !resumed {
				reachable = commits
			}
			h.inc.save(h, shallow, reachable, w.started)
		}
	}
	return st, err
}

// scanUnits diffs the units and scans their fragments on the engine, and
// fills in what it counted.
func (h *history) scanUnits(ctx context.Context, st *Stats) error {
	sc, err := h.scanFragments(ctx)
	st.Stats = sc
	st.Diffed, st.Quiet, st.Binary, st.Unreadable = h.diffed.Load(), h.quiet.Load(), h.binary.Load(), h.unreadable.Load()
	st.Fragments, st.BlobBytes = h.fragments.Load(), h.blobBytes.Load()
	st.BlobRead = time.Duration(h.blobRead.Load())
	st.LineDiff = time.Duration(h.lineDiff.Load()) - st.BlobRead
	st.Warnings += h.lost.Load() + h.noised.Load()
	st.Lost += h.lost.Load()
	st.Noise += h.noised.Load()
	return err
}

// warn passes a warning of the history itself (not of one object's
// content) to the user's callback and counts it: each loses data. Walk
// and tree diffs run before the engine, so these go straight to the
// callback, serialised by a lock of their own.
func (h *history) warn(path, op string, err error) {
	h.lost.Add(1)
	if h.sopts.OnWarning != nil {
		h.warnMu.Lock()
		defer h.warnMu.Unlock()
		h.sopts.OnWarning(scan.Warning{Path: path, Op: op, Err: err, Lost: true})
	}
}

// noise passes a warning of the history that loses nothing (the scan
// read the same data another way) to the user's callback; it is counted
// in Stats.Warnings and Stats.Noise.
func (h *history) noise(path, op string, err error) {
	h.noised.Add(1)
	if h.sopts.OnWarning != nil {
		h.warnMu.Lock()
		defer h.warnMu.Unlock()
		h.sopts.OnWarning(scan.Warning{Path: path, Op: op, Err: err})
	}
}

// commitBatch is how many commits one task diffs.
const commitBatch = 16

// admit takes commit c, which the walk listed, into the scan: unless the
// scan's shard leaves it to another, it reads the trees of its parents
// (a parent that cannot be read taints it) and, unless the store answers
// for it, lists it to diff. It reports whether c was listed to diff.
func (h *history) admit(w *walker, c *commit, shallow map[odb.ID]bool) bool {
	if h.sopts.Shard.Count > 1 && !h.sopts.Shard.Takes(c.id.String()) {
		return false
	}
	i := int32(len(h.commits))
	h.commits = append(h.commits, c)
	tainted := !w.parentTrees(c)
	h.tainted = append(h.tainted, tainted)
	if h.inc != nil && !tainted && !shallow[c.id] && h.inc.take(h, i) {
		return false
	}
	h.todo = append(h.todo, i)
	return true
}

// diffPipe diffs the commits listed in h.todo against their parents on
// the runtime's workers, commitBatch at a time, as they are listed.
type diffPipe struct {
	h       *history
	ctx     context.Context
	ex      *spindle.Executor[*diffBatch, *commitDiffer]
	batches []*diffBatch
	sent    int // the commits of h.todo in batches
}

// diffBatch is one task: commits to diff and their results. The walk's
// goroutine fills it and hands it over; the task owns it from then on.
type diffBatch struct {
	commits []*commit
	results []commitResult
}

// startDiffs starts the workers that diff commits.
func (h *history) startDiffs(ctx context.Context) *diffPipe {
	workers := h.sopts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sigs := newSigCache(sigCacheBytes)
	d := &diffPipe{h: h, ctx: ctx}
	d.ex = spindle.NewContext(ctx, spindle.Config{Workers: workers},
		func(int) *commitDiffer {
			cd := &commitDiffer{objs: h.repo.objs, sel: h.sel}
			cd.td.objs, cd.td.sel = h.repo.objs, h.sel
			cd.blobs.objs, cd.blobs.shared = h.repo.objs, sigs
			return cd
		},
		func(b *diffBatch, w *spindle.Worker[*diffBatch, *commitDiffer]) {
			for i, c := range b.commits {
				chs, err := w.Scratch.diffCommit(c)
				b.results[i] = commitResult{changes: chs, err: err, tooLong: w.Scratch.tooLong}
			}
			if p := h.sopts.Progress; p != nil {
				p.Commits.Add(int64(len(b.commits)))
			}
		})
	return d
}

// add hands the commits listed to diff since the last batch to the
// workers once they fill one.
func (d *diffPipe) add() {
	if len(d.h.todo)-d.sent >= commitBatch {
		d.send()
	}
}

// addAll hands every listed commit to the workers.
func (d *diffPipe) addAll() {
	for d.sent < len(d.h.todo) {
		d.send()
	}
}

// send hands the next batch of listed commits to the workers.
func (d *diffPipe) send() {
	hi := min(d.sent+commitBatch, len(d.h.todo))
	b := &diffBatch{commits: make([]*commit, 0, hi-d.sent), results: make([]commitResult, hi-d.sent)}
	for _, i := range d.h.todo[d.sent:hi] {
		b.commits = append(b.commits, d.h.commits[i])
	}
	d.sent = hi
	d.batches = append(d.batches, b)
	// An error means the scan was stopped; finish reports it.
	_ = d.ex.Spawn(b)
}

// stop abandons the diffs, for a walk that failed.
func (d *diffPipe) stop() {
	d.ex.Shutdown()
	_, _ = d.ex.Join()
}

// finish hands over the last commits, waits for every diff, then groups
// the changes into units (distinct changes) in diff order: by path, and
// along each path from the oldest change to the newest, so that one
// change's new blob is the next one's old blob and is read once.
func (d *diffPipe) finish() (int64, error) {
	h := d.h
	d.addAll()
	_, err := d.ex.Join()
	// The workers' differs hold their recent trees and the shared rename
	// signatures (tens of MiB on a large history): let them go before
	// the line diffs start.
	d.ex = nil
	if err != nil {
		return 0, err
	}
	if err := d.ctx.Err(); err != nil {
		return 0, err
	}
	results := make([]commitResult, 0, len(h.todo))
	for _, b := range d.batches {
		results = append(results, b.results...)
	}
	d.batches = nil
	n := h.groupChanges(results)
	// Diff order: by path, then oldest first (commits are in log order,
	// newest first, so the last commit index is the oldest).
	slices.SortStableFunc(h.units, func(a, b *unit) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(b.commits[len(b.commits)-1], a.commits[len(a.commits)-1]))
	})
	h.meta = make([]commitMeta, len(h.commits))
	return n, nil
}

// groupChanges makes the units of the commits' changes, in the commits'
// order, and returns how many changes there were. A unit points at the
// first change of its kind in results (which stay in memory for the
// scan); the units are allocated in one block, as is each unit's first
// commit, and distinct changes are found by a 64-bit hash of what makes
// them distinct, the few that share a hash by comparing them: a unit
// costs 40 bytes beyond its change, where a map keyed by the change
// itself cost about 200 on a history of 180,000 distinct changes.
func (h *history) groupChanges(results []commitResult) int64 {
	var n int
	for _, r := range results {
		n += len(r.changes)
	}
	slab := make([]unit, 0, n)
	firsts := make([]int32, n)
	h.units = make([]*unit, 0, n)
	seed := maphash.MakeSeed()
	index := make(map[uint64]*unit, n)
	var collided map[unitKey]*unit // the units whose hash an earlier unit has
	for ti := range results {
		r := &results[ti]
		i := h.todo[ti]
		if r.err != nil {
			h.tainted[i] = true
			h.warn(h.commits[i].id.String(), "commit", diffError(h.commits[i], r.err))
			continue
		}
		if r.tooLong > 0 {
			h.tainted[i] = true
			h.warn(h.commits[i].id.String(), "tree", fmt.Errorf("commit %s: %d paths longer than %d bytes are not scanned", h.commits[i].id, r.tooLong, maxPath))
		}
		for j := range r.changes {
			ch := &r.changes[j]
			var k unitKey
			var hash uint64
			if ch.parents == nil {
				// A merge's change is its own: never grouped.
				k = keyOf(ch)
				hash = unitHash(&k, seed)
				u := index[hash]
				if u != nil && keyOf(u.change) != k {
					u = collided[k]
				}
				if u != nil {
					u.commits = append(u.commits, i)
					continue
				}
			}
			firsts[len(slab)] = i
			slab = append(slab, unit{change: ch, commits: firsts[len(slab) : len(slab)+1 : len(slab)+1]})
			u := &slab[len(slab)-1]
			h.units = append(h.units, u)
			if ch.parents != nil {
				continue
			}
			if _, taken := index[hash]; !taken {
				index[hash] = u
				continue
			}
			if collided == nil {
				collided = map[unitKey]*unit{}
			}
			collided[k] = u
		}
	}
	return int64(n)
}

// unitKey is what makes two changes one unit: the same blobs, of the
// same kinds (file, link, submodule), at the same path.
type unitKey struct {
	old, new         odb.ID
	oldKind, newKind odb.Mode
	path             string
}

func keyOf(ch *change) unitKey {
	return unitKey{ch.oldID, ch.newID, ch.oldMode &^ 0o777, ch.newMode &^ 0o777, ch.path}
}

// unitHash is (*unitKey).hash; the tests replace it with one that
// collides.
var unitHash = (*unitKey).hash

func (k *unitKey) hash(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.Write(k.old[:])
	h.Write(k.new[:])
	var m [8]byte
	binary.LittleEndian.PutUint32(m[:4], uint32(k.oldKind))
	binary.LittleEndian.PutUint32(m[4:], uint32(k.newKind))
	h.Write(m[:])
	h.WriteString(k.path)
	return h.Sum64()
}

// expand reports a finding of unit u once for each commit that makes the
// change, with that commit's metadata and fingerprint, and records it for
// the store.
func (h *history) expand(u *unit) func(report.Finding, func(report.Finding)) {
	merge := u.parents != nil
	allow, _ := h.sopts.Detector.(scan.CommitAllower)
	if allow != nil && !allow.HasCommitAllowlists() {
		allow = nil
	}
	return func(f report.Finding, emit func(report.Finding)) {
		for _, ci := range u.commits {
			if allow != nil && !h.commits[ci].id.IsZero() &&
				allow.CommitAllows(h.commits[ci].id.String(), f.RuleID, f.File, []byte(f.Secret), []byte(f.Match)) {
				continue
			}
			if h.inc != nil {
				h.inc.record(ci, f, merge)
			}
			emit(h.commitFinding(ci, f, merge))
		}
	}
}

// commitFinding is finding f of a change as commit ci reports it: named
// with the scan's prefix, with the commit's metadata and fingerprint,
// tagged when the change is a merge's own.
func (h *history) commitFinding(ci int32, f report.Finding, merge bool) report.Finding {
	f.File = h.opts.Prefix + f.File
	if c := h.commits[ci]; c.id.IsZero() {
		// The index or the work tree: no commit to name.
		f.Fingerprint = f.File + ":" + f.RuleID + ":" + strconv.Itoa(f.Line)
	} else {
		m := h.commitMeta(ci)
		f.Commit, f.Author, f.Email, f.Date, f.Message = m.id, m.author, m.email, m.date, m.subject
		f.Fingerprint = m.id + ":" + f.File + ":" + f.RuleID + ":" + strconv.Itoa(f.Line)
	}
	if merge {
		f.Tags = append(f.Tags[:len(f.Tags):len(f.Tags)], report.TagMerge)
	}
	return f
}

// maxMessage bounds what a finding keeps of a commit's identities and
// subject: a commit made with a 100 MB subject costs its read, not a copy
// in every finding.
const maxMessage = 4 << 10

// commitMeta reads a commit's author, date and subject, once.
func (h *history) commitMeta(ci int32) *commitMeta {
	m := &h.meta[ci]
	m.once.Do(func() {
		c := h.commits[ci]
		m.id = c.id.String()
		var buf []byte
		data, err := readObjectHead(h.repo.objs, c.id, odb.TypeCommit, maxCommitRead, &buf)
		if err != nil {
			return
		}
		pc, err := odb.ParseCommitLimit(data, maxMessage)
		if err != nil {
			return
		}
		m.author, m.email = commitText(pc.Encoding, pc.Author.Name), commitText(pc.Encoding, pc.Author.Email)
		if !pc.Author.When.IsZero() {
			m.date = pc.Author.When.UTC().Format(time.RFC3339)
		}
		m.subject = commitText(pc.Encoding, pc.Subject())
	})
	return m
}

// describe names a unit for a warning: its path and a commit that makes
// it.
func (h *history) describe(u *unit) string {
	return fmt.Sprintf("commit %s: %s", h.commits[u.commits[0]].id, u.path)
}
