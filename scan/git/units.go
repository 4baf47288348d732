package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/git/internal/linediff"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// This file is the second half of a history scan: each distinct change is
// diffed line by line as git diffs it, and the lines it adds, hunk by hunk,
// go to the engine as fragments, numbered from the hunk's first new line,
// exactly what gitleaks scans. A change whose changed region holds nothing
// any rule could report is not diffed at all.

// unitBatch is how many units one sub-source diffs, in one Enumerate
// call: a few milliseconds of work; several sub-sources run at once.
const unitBatch = 16

// fragmentsPerWorker bounds the fragments in flight (admitted to the
// engine and not yet scanned), per worker; lanesPerWorker is how many
// lanes diff units, per worker; laneBytes is the fragment bytes after
// which a lane's batch stops (at the end of a unit) and lets the engine
// admit what it listed.
const (
	fragmentsPerWorker = 32
	lanesPerWorker     = 2
	laneBytes          = 1 << 20
)

// bigFile is git's core.bigFileThreshold: a blob larger than this is
// binary to git's diff, whatever its content.
const bigFile = 512 << 20

// scanFragments diffs the units and scans their fragments on the engine.
//
// The units go to the engine through a few lanes (sub-sources), each of
// which diffs one batch of units per Enumerate call and lists their
// fragments. The engine asks a lane for its next batch only once the
// last one is admitted to its frontier, so what waits is bounded: the
// fragments in flight (fragmentsPerWorker a worker) and one listed batch
// a lane (unitBatch units, cut short past laneBytes of fragments). A
// sub-source per batch, all handed out at once, let every batch be diffed
// and listed while the frontier was full: on prometheus' history, with
// its megabytes of generated lines, that held 680 MiB of fragments.
func (h *history) scanFragments(ctx context.Context) (scan.Stats, error) {
	opts := h.sopts
	opts.NoGitleaksIgnore = true // the repository's was loaded into Ignore
	opts.Shard = scan.Shard{}    // the commits are this shard's already
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = fragmentsPerWorker * workers
	}
	mf, _ := opts.Detector.(scan.MayFinder)
	pool := &sync.Pool{New: func() any { return &unitScratch{scratch: opts.Detector.NewScratch()} }}
	var srcs []scan.Source
	if len(h.units) > 0 {
		q := &unitQueue{units: h.units}
		for range min(lanesPerWorker*workers, (len(h.units)+unitBatch-1)/unitBatch) {
			srcs = append(srcs, &unitSource{h: h, q: q, mf: mf, pool: pool})
		}
	}
	if inc := h.inc; inc != nil {
		if len(inc.replay) > 0 {
			srcs = append(srcs, &replaySource{h: h, items: inc.replay})
		}
		// A warning about a change: its commits' results are not stored.
		user := opts.OnWarning
		opts.OnWarning = func(w scan.Warning) {
			inc.taintPath(h, w.Path)
			if user != nil {
				user(w)
			}
		}
	}
	if len(srcs) == 0 {
		return scan.Stats{Skipped: map[string]int64{}}, nil
	}
	return scan.ScanSources(ctx, opts, &rootSource{subs: srcs})
}

// rootSource hands the lanes out as sub-sources, which the engine
// enumerates on several workers at once.
type rootSource struct {
	subs []scan.Source
}

func (r *rootSource) Enumerate(_ context.Context, b *scan.Batch) (bool, error) {
	for _, s := range r.subs {
		b.AddSource(s)
	}
	r.subs = nil
	return false, nil
}

// unitScratch is the working memory of one batch being diffed, from a
// pool shared by all batches.
type unitScratch struct {
	differ  linediff.Differ
	hunks   []linediff.Hunk
	scratch any // the detector's, for MayFind
	old     []byte
	new     []byte
	// prevID and prev hold the last new blob read: along a path, the
	// next change's old blob.
	prevID odb.ID
	prev   []byte
	lines  []int
	marks  []uint8
	// bigHeld says the worker holds history.bigMu for the change it is
	// diffing.
	bigHeld bool
	// listed counts the bytes of the fragments listed by the batch.
	listed int
}

// unitQueue hands the units out to the lanes, unitBatch at a time, in
// diff order.
type unitQueue struct {
	units []*unit
	next  atomic.Int64
}

// take returns the next batch of units, or none when all are taken.
func (q *unitQueue) take() []*unit {
	hi := q.next.Add(unitBatch)
	lo := hi - unitBatch
	if lo >= int64(len(q.units)) {
		return nil
	}
	return q.units[lo:min(hi, int64(len(q.units)))]
}

// unitSource is a lane: each Enumerate call diffs a batch of units and
// lists their fragments, with working memory from the pool for the
// length of the call, so that at most one scratch per worker is in use
// and its buffers serve batch after batch. A batch cut short (laneBytes)
// leaves the rest of its units to the lane's next call.
type unitSource struct {
	h    *history
	q    *unitQueue
	left []*unit // the units of the lane's batch not diffed yet (a window on history.units)
	mf   scan.MayFinder
	pool *sync.Pool
}

func (s *unitSource) Enumerate(ctx context.Context, b *scan.Batch) (bool, error) {
	if len(s.left) == 0 {
		if s.left = s.q.take(); len(s.left) == 0 {
			return false, nil
		}
	}
	sc := s.pool.Get().(*unitScratch)
	defer func() {
		sc.prevID, sc.prev, sc.listed = odb.ID{}, sc.prev[:0], 0
		s.pool.Put(sc)
	}()
	for len(s.left) > 0 && sc.listed < laneBytes {
		if ctx.Err() != nil {
			return false, nil
		}
		u := s.left[0]
		s.left = s.left[1:]
		s.h.process(u, sc, s.mf, b)
	}
	return true, nil
}

// process diffs one unit and adds its fragments to b.
func (h *history) process(u *unit, sc *unitScratch, mf scan.MayFinder, b *scan.Batch) {
	defer func() {
		if sc.bigHeld {
			sc.dropBig()
			sc.bigHeld = false
			h.bigMu.Unlock()
		}
	}()
	start := time.Now()
	defer func() { h.lineDiff.Add(int64(time.Since(start))) }()
	var err error
	if sc.new, err = h.content(u.newID, u.newMode, sc.new, sc); err != nil {
		h.lose(u, b, err)
		return
	}
	if u.parents != nil {
		h.processMerge(u, sc, mf, b)
		return
	}
	newData, oldData := sc.new, []byte(nil)
	if !u.oldID.IsZero() {
		if u.oldID == sc.prevID && !u.oldMode.IsGitlink() {
			sc.old, sc.prev = sc.prev, sc.old
		} else if sc.old, err = h.content(u.oldID, u.oldMode, sc.old, sc); err != nil {
			h.lose(u, b, err)
			return
		}
		oldData = sc.old
	}
	// The new blob is the next change's old one along this path.
	defer func() { sc.prev, sc.new, sc.prevID = sc.new, sc.prev, u.newID }()

	if h.isBinary(oldData, newData) {
		h.binaryUnit(u, b)
		return
	}
	if u.oldID.IsZero() {
		// A new file: git's patch adds all of it, in one hunk (an empty
		// one has no hunk).
		if len(newData) > 0 {
			h.fragment(u, newData, 1, sc, mf, b)
		}
		return
	}
	if mf != nil && !mf.MayFind(sc.scratch, u.path, changedRegion(oldData, newData)) {
		h.quiet.Add(1)
		return
	}
	h.diffed.Add(1)
	sc.hunks = sc.differ.Diff(oldData, newData, sc.hunks[:0])
	for _, hk := range sc.hunks {
		lo, hi := sc.differ.Span(hk)
		line := hk.NewStart + 1
		if hk.NewLines == 0 {
			line = hk.NewStart // git's header names the line before
		}
		h.fragment(u, newData[lo:hi], line, sc, mf, b)
	}
	sc.keepDiffer()
}

// differKeep is the most working memory a worker's differ keeps from
// pair to pair (it grows about a hundred bytes a line of the largest pair
// diffed): past it, and for lineStarts' list past a quarter of it, both
// are let go, so that a file of a hundred thousand lines met once does
// not hold 15 MiB for the rest of a history.
const differKeep = 4 << 20

// keepDiffer lets go of the differ's memory after a large pair.
func (sc *unitScratch) keepDiffer() {
	if sc.differ.Footprint() > differKeep {
		sc.differ = linediff.Differ{}
	}
	if 8*cap(sc.lines) > differKeep/4 {
		sc.lines = nil
	}
}

// dropBig lets go of buffers grown for a big change.
func (sc *unitScratch) dropBig() {
	for _, b := range []*[]byte{&sc.old, &sc.new, &sc.prev} {
		if cap(*b) > bigUnit {
			*b = nil
		}
	}
	if cap(sc.prev) == 0 {
		sc.prevID = odb.ID{}
	}
	if cap(sc.lines) > bigUnit/8 {
		sc.lines = nil
	}
	if cap(sc.marks) > bigUnit {
		sc.marks = nil
	}
	// The differ keeps about a hundred bytes a line of the largest pair it
	// has diffed.
	sc.differ = linediff.Differ{}
}

// processMerge adds the fragments of a merge's combined change: the runs
// of lines of the merge's file that are added against every parent (the
// '+' in every column of git's --cc).
func (h *history) processMerge(u *unit, sc *unitScratch, mf scan.MayFinder, b *scan.Batch) {
	newData := sc.new
	sc.lines = lineStarts(newData, sc.lines[:0])
	nlines := len(sc.lines) - 1
	sc.marks = append(sc.marks[:0], make([]uint8, nlines)...)
	binary, quiet := false, false
	for i, pf := range u.parents {
		var old []byte
		if !pf.id.IsZero() {
			var err error
			if sc.old, err = h.content(pf.id, pf.mode, sc.old, sc); err != nil {
				h.lose(u, b, err)
				return
			}
			old = sc.old
		}
		if h.isBinary(old, newData) {
			binary = true
			break
		}
		// A line added against every parent is added against the first,
		// so it lies in the changed region against the first: when no rule
		// could find anything there, nothing is diffed (every parent is
		// still read, since one that is binary makes the change binary).
		if i == 0 && mf != nil && !mf.MayFind(sc.scratch, u.path, changedRegion(old, newData)) {
			quiet = true
		}
		if quiet {
			continue
		}
		sc.hunks = sc.differ.Diff(old, newData, sc.hunks[:0])
		for _, hk := range sc.hunks {
			for l := hk.NewStart; l < hk.NewStart+hk.NewLines; l++ {
				if int(sc.marks[l]) == i {
					sc.marks[l]++
				}
			}
		}
	}
	if binary {
		h.binaryUnit(u, b)
		return
	}
	if quiet {
		h.quiet.Add(1)
		return
	}
	h.diffed.Add(1)
	n := uint8(len(u.parents))
	for l := 0; l < nlines; {
		if sc.marks[l] != n {
			l++
			continue
		}
		e := l
		for e < nlines && sc.marks[e] == n {
			e++
		}
		h.fragment(u, newData[sc.lines[l]:sc.lines[e]], l+1, sc, mf, b)
		l = e
	}
	sc.keepDiffer()
}

// fragment hands one run of added lines to the engine, unless the
// detector is sure it holds nothing to report.
func (h *history) fragment(u *unit, text []byte, line int, sc *unitScratch, mf scan.MayFinder, b *scan.Batch) {
	if mf != nil && !mf.MayFind(sc.scratch, u.path, text) {
		return
	}
	h.fragments.Add(1)
	sc.listed += len(text)
	data := append([]byte{}, text...) // not nil, even when empty
	o := scan.Object{Name: u.path, Line: line, Expand: h.expand(u), Fragment: true}
	if len(data) <= bigUnit {
		// In memory, the fragment is scanned whole, as gitleaks scans it:
		// a minified line of megabytes is one line to the line
		// allowlists. A larger one is read in chunks, whose working
		// memory is bounded whatever the lines.
		o.Data = data
	} else {
		o.Size = int64(len(data))
		o.Open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	b.Add(o)
}

// isBinary is git's test for a pair: either side has a NUL in its first
// 8000 bytes, or is larger than core.bigFileThreshold.
func (h *history) isBinary(old, new []byte) bool {
	return len(old) > bigFile || len(new) > bigFile || linediff.IsBinary(old) || linediff.IsBinary(new)
}

// binaryUnit handles a change git calls binary: gitleaks skips it unless
// its path names an archive, which it then scans whole (when archives are
// open); so does this.
// It reports whether the new blob is scanned (as an archive).
func (h *history) binaryUnit(u *unit, b *scan.Batch) bool {
	h.binary.Add(1)
	if h.sopts.ArchiveDepth < 0 || archive.DetectName(u.path) == archive.None {
		b.Skip(scan.SkipBinary)
		return false
	}
	b.Add(scan.Object{Name: u.path, Size: -1, Expand: h.expand(u), Open: h.openNew(u)})
	return true
}

// openNew opens u's new blob as a stream, for an object too large to hold.
func (h *history) openNew(u *unit) func() (io.ReadCloser, error) {
	id := u.newID
	return func() (io.ReadCloser, error) {
		rd, err := h.repo.objs.Reader(id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.describe(u), objectError(err))
		}
		return rd, nil
	}
}

// streamAddition scans a new file too large to diff in memory as one
// fragment: every line of an added file is added, from line 1. Its first
// 8000 bytes decide, as in git, whether it is binary.
func (h *history) streamAddition(u *unit, b *scan.Batch) {
	rd, err := h.repo.objs.Reader(u.newID)
	if err != nil {
		h.unreadable.Add(1)
		b.Warn(u.path, "blob", fmt.Errorf("%s: %w", h.describe(u), objectError(err)))
		return
	}
	head := make([]byte, 8000)
	n, _ := io.ReadFull(rd, head)
	rd.Close()
	if linediff.IsBinary(head[:n]) {
		h.binaryUnit(u, b)
		return
	}
	h.fragments.Add(1)
	b.Add(scan.Object{Name: u.path, Size: -1, Line: 1, Expand: h.expand(u), Fragment: true, Open: h.openNew(u)})
}

// content reads the content a tree entry stands for: a blob, or for a
// submodule the line git's diff shows for its commit. A blob over bigUnit
// is read only once the worker holds h.bigMu (kept until the change is
// done), so that one big change is in memory at a time; one over
// maxDiffBlob is not read (tooLargeToDiff), nor one over git's big-file
// threshold (errTooBig).
func (h *history) content(id odb.ID, mode odb.Mode, buf []byte, sc *unitScratch) ([]byte, error) {
	start := time.Now()
	defer func() { h.blobRead.Add(int64(time.Since(start))) }()
	if mode.IsGitlink() {
		return append(buf[:0], "Subproject commit "+id.String()+"\n"...), nil
	}
	if data, ok, err := h.worktreeContent(id, buf); ok {
		if err != nil {
			return data, err
		}
		h.blobBytes.Add(int64(len(data)))
		return data, nil
	}
	limit := min(int64(bigUnit), maxDiffBlob)
	if sc.bigHeld {
		limit = maxDiffBlob
	}
	for {
		typ, data, err := h.repo.objs.ReadLimit(id, buf[:0], limit)
		var tl *odb.TooLargeError
		if errors.As(err, &tl) {
			switch {
			case tl.Size > bigFile:
				// Binary to git, whatever it holds: a file that large,
				// or an entry or a delta that claims to be.
				return buf[:0], fmt.Errorf("blob %s claims %d bytes: %w", id, tl.Size, errTooBig)
			case tl.Size > maxDiffBlob:
				return buf[:0], &tooLargeToDiff{id: id, size: tl.Size}
			case !sc.bigHeld:
				h.bigMu.Lock()
				sc.bigHeld, limit = true, maxDiffBlob
				continue
			}
		}
		if err != nil {
			return buf[:0], objectError(err)
		}
		if typ != odb.TypeBlob {
			return data[:0], fmt.Errorf("object %s is a %v, not a blob", id, typ)
		}
		h.blobBytes.Add(int64(len(data)))
		return data, nil
	}
}

var errTooBig = errors.New("larger than git's big-file threshold (binary to git)")

// maxDiffBlob is the largest blob diffed in memory: a change whose side is
// larger cannot be diffed within the scan's memory bound, and is a
// warning of lost data; a new file that large is scanned as a stream (all
// its lines are added). git diffs up to its big-file threshold.
var maxDiffBlob int64 = 64 << 20

// bigUnit is the size from which a change's blobs count as big: one big
// change is diffed at a time, so that memory stays bounded whatever the
// number of workers.
const bigUnit = 8 << 20

// tooLargeToDiff is the error of a blob over maxDiffBlob.
type tooLargeToDiff struct {
	id   odb.ID
	size int64
}

func (e *tooLargeToDiff) Error() string {
	return fmt.Sprintf("blob %s has %d bytes, more than the %d a change is diffed in memory with", e.id, e.size, maxDiffBlob)
}

// lose reports a unit that could not be read: a warning that names the
// commit and path, counted as lost. A blob too big for git to diff makes
// the change binary; a change too big to diff here has its new version
// scanned as one stream (all of it, for an edit: a noise warning says
// so).
func (h *history) lose(u *unit, b *scan.Batch, err error) {
	if errors.Is(err, errTooBig) {
		// git log -p shows "Binary files differ", and gitleaks reads
		// nothing of it; not searched, it is lost data here (whether the
		// size is true or a pack's lie), unless it is an archive read
		// whole.
		if !h.binaryUnit(u, b) {
			h.unreadable.Add(1)
			b.Warn(u.path, "blob", fmt.Errorf("%s: %w: not scanned", h.describe(u), err))
		}
		return
	}
	var big *tooLargeToDiff
	if errors.As(err, &big) {
		h.streamAddition(u, b)
		if big.id != u.newID || !u.oldID.IsZero() || u.parents != nil {
			// An edit too large to diff in memory: its new version is
			// scanned whole, every line as if added, so nothing it adds is
			// missed; what it kept is reported again, at this commit.
			b.Warn(u.path, "diff", fmt.Errorf("%s: %w: the new version is scanned whole, not diffed, and findings it kept from the old one are reported again (%w)", h.describe(u), err, scan.ErrNoise))
		}
		return
	}
	h.unreadable.Add(1)
	b.Warn(u.path, "blob", fmt.Errorf("%s: %w", h.describe(u), err))
}

// errMissing is the error of a blob not in the repository (a partial
// clone, a damaged mirror).
var errMissing = errors.New("object missing")

// objectError words an object read's error for a warning.
func objectError(err error) error {
	switch {
	case errors.Is(err, odb.ErrNotFound):
		return fmt.Errorf("%w (%w)", errMissing, err)
	}
	return err
}

// lineStarts appends the offset of every line's start in data, and
// len(data) after the last line.
func lineStarts(data []byte, out []int) []int {
	out = append(out, 0)
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		if i < len(data) {
			out = append(out, i)
		}
	}
	if len(data) > 0 {
		out = append(out, len(data))
	}
	return out
}

// changedRegion returns the part of new in which any hunk of git's diff
// from old to new can add lines. git trims the lines the two files share
// at their start and end before it diffs, so every changed line lies
// between them: here, the common byte prefix cut back to a line start,
// and the common byte suffix cut back to where both files start a line.
// git then slides each group of changed lines up or down over the lines
// next to it that equal lines of the group, so the region is widened
// across neighbouring lines that repeat one of its lines (a line can
// only join a group that holds its twin).
func changedRegion(old, new []byte) []byte {
	n := min(len(old), len(new))
	p := linediff.CommonPrefix(old[:n], new[:n])
	s := commonSuffix(old[p:], new[p:])
	lo := bytes.LastIndexByte(new[:p], '\n') + 1
	// The suffix must start a line in both files: where it is cut by the
	// last differing byte, fall back to the next line start within it.
	if !lineStart(new, len(new)-s) || !lineStart(old, len(old)-s) {
		if j := bytes.IndexByte(new[len(new)-s:], '\n'); j >= 0 {
			s = s - j - 1
		} else {
			s = 0
		}
	}
	hi := max(len(new)-s, lo)
	if hi == lo {
		return new[lo:lo] // no line of new differs: nothing can be added
	}
	region := new[lo:hi]
	for lo > 0 {
		prev := bytes.LastIndexByte(new[:lo-1], '\n') + 1
		if !hasLine(region, new[prev:lo]) {
			break
		}
		lo = prev
	}
	for hi < len(new) {
		next := len(new)
		if j := bytes.IndexByte(new[hi:], '\n'); j >= 0 {
			next = hi + j + 1
		}
		if !hasLine(region, new[hi:next]) {
			break
		}
		hi = next
	}
	return new[lo:hi]
}

// hasLine reports whether text holds line (with its newline, if it has
// one) as one of its lines. A line with its newline is looked for after a
// newline (or at the start), so that every match found is one.
func hasLine(text, line []byte) bool {
	if len(line) == 0 {
		return false
	}
	if line[len(line)-1] != '\n' {
		// The last line of its file: it can only be text's last line.
		return bytes.HasSuffix(text, line) && lineStart(text, len(text)-len(line))
	}
	if bytes.HasPrefix(text, line) {
		return true
	}
	nl := make([]byte, 0, len(line)+1)
	nl = append(append(nl, '\n'), line...)
	return bytes.Contains(text, nl)
}

// lineStart reports whether offset i of b starts a line.
func lineStart(b []byte, i int) bool { return i == 0 || b[i-1] == '\n' }

// commonSuffix returns the length of the longest common suffix of a and b
// (of any lengths), compared in blocks of 256 bytes (a vectorised
// comparison each), the last block byte by byte.
func commonSuffix(a, b []byte) int {
	const block = 256
	n := min(len(a), len(b))
	s := 0
	for ; s+block <= n; s += block {
		if string(a[len(a)-s-block:len(a)-s]) != string(b[len(b)-s-block:len(b)-s]) {
			break
		}
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}
