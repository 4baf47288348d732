package scan

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// ErrNoDetector is returned by Scan when Options.Detector is nil.
var ErrNoDetector = errors.New("scan: no detector: set Options.Detector")

// Scan scans the files and directories at paths ("." if none) and returns
// when every file has been scanned, or when ctx is done, or, with FailFast,
// at the first warning. Findings and warnings go to the callbacks in opts as
// they are found.
//
// The error is nil for a complete scan, even one with warnings (they are
// counted in Stats); ctx.Err() when ctx ended the scan; the first warning
// under FailFast; or a *spindle.PanicError, wrapped, if the detector or a
// callback panicked. Stats are filled in every case.
//
// A path that is a directory is walked; a file is scanned; a FIFO or a
// device named as a path (/dev/stdin, a process substitution) is read as
// a stream. A path given twice, or inside another directory given, is
// scanned once. See rootCtx for how findings name files.
func Scan(ctx context.Context, opts Options, paths ...string) (Stats, error) {
	if opts.Detector == nil {
		return Stats{}, ErrNoDetector
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	return newEngine(opts.withDefaults()).run(ctx, []source{&rootsSource{paths: paths}})
}

// run runs the task graph from the given sources to the end.
func (e *engine) run(ctx context.Context, roots []source) (Stats, error) {
	start := time.Now()
	e.ctx = ctx
	e.walkCtx, e.cancel = context.WithCancel(ctx)
	defer e.cancel()
	e.exec = spindle.New(spindle.Config{Workers: e.s.Workers}, e.newWorker, e.runTask)
	tasks := make([]task, len(roots))
	for i, r := range roots {
		tasks[i] = task{kind: kindEnumerate, job: &enumJob{src: r}}
	}
	// A new executor accepts tasks until Join, so SpawnBatch cannot fail here.
	_ = e.exec.SpawnBatch(tasks)
	m, err := e.exec.Join()
	for _, j := range e.front.drain() {
		j.close() // parked when the run was aborted, and never woken
	}
	st := e.stats(m, time.Since(start))
	if p := e.s.Progress; p != nil {
		p.Done.Store(true)
	}
	if err != nil {
		return st, fmt.Errorf("scan: %w", err)
	}
	if err := e.failure(); err != nil {
		return st, err
	}
	if st.Files == 0 && st.Members == 0 && st.Lost > 0 {
		return st, ErrNothingRead
	}
	return st, nil
}

// lostData classifies a warning (see Warning): noise is what leaves no
// data unscanned.
func lostData(op string, err error) bool {
	var fe *archive.FormatError
	switch {
	case op == "ignore":
		return true // a .gitleaksignore not read: what it lists is reported, the user's choice lost
	case errors.Is(err, ErrNoise), errors.Is(err, ErrNotRegular), errors.Is(err, ErrSymlinkLoop):
		return false
	case op == "follow", op == "parse":
		return false // a dangling link or a loop has no content; a bad ignore pattern scans more
	case errors.As(err, &fe):
		// The archive package tells the classes apart: a named member not
		// read whole, or members hidden by damage, is lost; an archive so
		// broken that none of its members was ever found is noise. (A
		// *archive.BudgetError is always lost.)
		return fe.Lost
	}
	return true
}

// engine is the state of one Scan call.
type engine struct {
	s       settings
	det     Detector
	whole   WholeScanner // det's, if it is one
	exclude *exclusions
	// rootCount is how many roots a path scan kept after removing
	// repeats (set by the roots' Enumerate, read after Join).
	rootCount int
	geo       geometry
	front     *frontier
	pool      *bufferPool
	exec      *spindle.Executor[task, *workerState]

	// stop is set once the scan must end early (ctx done, FailFast, a
	// panic). Every task looks at it first (stopped) and, when set,
	// releases what it holds and returns without spawning, so the executor
	// drains quickly and closes everything on the way.
	stop atomic.Bool
	// ctx is the scan's context; stopped polls its Done channel, so a
	// cancellation is seen by the very next task.
	ctx context.Context

	// mu serialises the user's callbacks and guards err.
	mu  sync.Mutex
	err error // why the scan stopped early; first one wins

	warnings atomic.Int64
	lost     atomic.Int64 // warnings that lost data
	findings atomic.Int64
	known    atomic.Int64 // findings in the baseline, not reported
	// archiveRead counts bytes archive walks read from storage: the parts
	// of one archive are read by several workers at once.
	archiveRead atomic.Int64
	ignored     atomic.Int64 // findings whose fingerprint an ignore list holds

	// walkCtx is ctx for the archive walks, cancelled by abort, so that a
	// walk in progress (which polls its context, not stop) ends at its
	// next read when the scan stops, whatever stopped it.
	walkCtx context.Context
	cancel  context.CancelFunc

	wmu     sync.Mutex
	workers []*workerState // for the final stats, appended as workers start
}

func newEngine(s settings) *engine {
	whole, _ := s.Detector.(WholeScanner)
	return &engine{
		whole:   whole,
		s:       s,
		det:     s.Detector,
		exclude: newExclusions(s.Exclude),
		geo:     geometry{window: s.window, overlap: s.overlap, chunkSize: s.ChunkSize},
		front:   newFrontier(s.MaxInFlight),
		pool:    newBufferPool(s.Buffers, s.overlap+s.ChunkSize),
	}
}

// taskKind names the three task types of the graph.
type taskKind uint8

const (
	kindEnumerate taskKind = iota // list a source's next batch and admit its objects, or walk an archive
	kindFetch                     // read an object's next chunk
	kindScan                      // match a chunk that a Fetch handed over
	kindPart                      // read a group of parts of an archive opened for random access
	numKinds
)

// task is the executor's task type: a small value, four pointers and a
// kind, copied through the rings without allocation.
type task struct {
	kind taskKind
	job  *enumJob   // kindEnumerate of a source
	obj  *object    // kindFetch, kindScan; kindEnumerate of an archive (dir nil)
	c    *chunk     // kindScan: a pooled buffer, owned by the task
	pg   *partGroup // kindPart: the parts to read
}

type worker = spindle.Worker[task, *workerState]

// workerState is a worker's scratch: the detector's working memory, the
// worker's own chunk buffer, and counters written without contention.
type workerState struct {
	scratch any
	own     *chunk        // this worker's buffer: never handed to another task
	matches []rules.Match // the current chunk's matches, reused
	emit    func(rules.Match)
	c       counters
}

// counters are one worker's share of the Stats.
type counters struct {
	phases                  [numKinds]Phase
	backpressure, inline    int64
	bytesRead, bytesScanned int64
	files, dirs             int64
	archives, members       int64
	decoded                 int64 // objects read as UTF-16 or UTF-32
	skipped                 [numSkips]int64
	other                   map[string]int64 // skips under reasons a Source names
}

// skip counts a skip under a reason given by name.
func (c *counters) skip(reason string) {
	for r, n := range skipNames {
		if n == reason {
			c.skipped[r]++
			return
		}
	}
	if c.other == nil {
		c.other = map[string]int64{}
	}
	c.other[reason]++
}

// skip reasons, indexes into counters.skipped.
type skipReason uint8

const (
	skipBinary skipReason = iota
	skipSize
	skipIgnored
	skipAllowlist
	skipSymlink
	skipSpecial
	skipGit
	skipBudget
	skipUnsupported
	skipExcluded
	skipDuplicate
	skipShard
	numSkips
)

var skipNames = [numSkips]string{SkipBinary, SkipSize, SkipIgnored, SkipAllowlist, SkipSymlink, SkipSpecial, SkipGit, SkipBudget, SkipUnsupported, SkipExcluded, SkipDuplicate, SkipShard}

func (e *engine) newWorker(int) *workerState {
	ws := &workerState{
		scratch: e.det.NewScratch(),
		own:     &chunk{buf: make([]byte, e.s.overlap+e.s.ChunkSize)},
	}
	ws.emit = func(m rules.Match) { ws.matches = append(ws.matches, m) }
	e.wmu.Lock()
	e.workers = append(e.workers, ws)
	e.wmu.Unlock()
	return ws
}

// runTask is the executor's task function: it dispatches on the kind and
// accounts the time spent.
func (e *engine) runTask(t task, w *worker) {
	start := time.Now()
	switch t.kind {
	case kindEnumerate:
		if t.job == nil {
			e.walkArchive(w, t.obj)
		} else {
			e.enumerate(w, t.job)
		}
	case kindFetch:
		e.fetch(w, t.obj)
	case kindScan:
		e.scanTask(w, t.obj, t.c)
	case kindPart:
		e.partTask(w, t.pg)
	}
	p := &w.Scratch.c.phases[t.kind]
	p.Tasks++
	p.Busy += time.Since(start)
}

// stopped reports whether the scan must end early. It is called by every
// task, and per entry by Enumerate: an atomic load, and a non-blocking
// receive that does not lock an open channel.
func (e *engine) stopped() bool {
	if e.stop.Load() {
		return true
	}
	if e.ctx == nil {
		return false
	}
	select {
	case <-e.ctx.Done():
		e.abort(e.ctx.Err())
		return true
	default:
		return false
	}
}

// abort stops the scan early with err, unless it has already stopped.
func (e *engine) abort(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
	e.stop.Store(true)
	if e.cancel != nil {
		e.cancel()
	}
}

func (e *engine) failure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// warn reports a problem that does not stop the scan, unless FailFast.
func (e *engine) warn(path, op string, err error) {
	wn := Warning{Path: path, Op: op, Err: err, Lost: lostData(op, err)}
	e.warnings.Add(1)
	if wn.Lost {
		e.lost.Add(1)
	}
	if p := e.s.Progress; p != nil {
		p.Warnings.Add(1)
	}
	if e.s.OnWarning != nil {
		e.callback(func() { e.s.OnWarning(wn) })
	}
	if e.s.FailFast {
		e.abort(wn)
	}
}

// skipped tells Options.OnSkip, if set, of a file skipped for reason.
func (e *engine) skipped(path, reason string, size int64) {
	if e.s.OnSkip != nil {
		e.callback(func() { e.s.OnSkip(path, reason, size) })
	}
}

// report hands a finding of o to its sink (the user), unless an ignore
// list holds its fingerprint or the baseline knows it.
func (e *engine) report(o *object, f report.Finding) {
	if o.expand != nil {
		var out []report.Finding
		if !e.guard(func() { o.expand(f, func(g report.Finding) { out = append(out, g) }) }) {
			return
		}
		for _, g := range out {
			e.reportOne(o, g)
		}
		return
	}
	e.reportOne(o, f)
}

// reportOne passes one finding through the ignore lists and the baseline
// to its sink.
func (e *engine) reportOne(o *object, f report.Finding) {
	if o.rc.ignored(f.Fingerprint) {
		e.ignored.Add(1)
		return
	}
	if e.s.Ignore != nil || e.s.Baseline != nil {
		ignored, known := false, false
		if !e.guard(func() {
			ignored = e.s.Ignore != nil && e.s.Ignore.Has(f.Fingerprint)
			known = !ignored && e.s.Baseline != nil && e.s.Baseline.Contains(f)
		}) {
			return
		}
		switch {
		case ignored:
			e.ignored.Add(1)
			return
		case known:
			e.known.Add(1)
			return
		}
	}
	e.findings.Add(1)
	if p := e.s.Progress; p != nil {
		p.Findings.Add(1)
	}
	if sink := e.s.OnFinding; sink != nil {
		e.callback(func() { sink(f) })
	}
}

func (e *engine) stats(m spindle.Metrics, d time.Duration) Stats {
	st := Stats{
		Skipped:  make(map[string]int64),
		Warnings: e.warnings.Load(),
		Lost:     e.lost.Load(),
		Noise:    e.warnings.Load() - e.lost.Load(),
		Findings: e.findings.Load(),
		Known:    e.known.Load(),
		Ignored:  e.ignored.Load(),
		Duration: d,
		Executor: m,
	}
	st.Phases.BytesRead = e.archiveRead.Load()
	e.wmu.Lock()
	defer e.wmu.Unlock()
	for _, ws := range e.workers {
		c := &ws.c
		st.Files += c.files
		st.Dirs += c.dirs
		st.Archives += c.archives
		st.Members += c.members
		st.Bytes += c.bytesScanned
		st.Phases.Backpressure += c.backpressure
		st.Phases.InlineScans += c.inline
		st.Phases.BytesRead += c.bytesRead
		for k, p := range c.phases {
			dst := [...]*Phase{&st.Phases.Enumerate, &st.Phases.Fetch, &st.Phases.Scan, &st.Phases.Enumerate}[k]
			dst.Tasks += p.Tasks
			dst.Busy += p.Busy
		}
		for r, n := range c.skipped {
			if n > 0 {
				st.Skipped[skipNames[r]] += n
			}
		}
		for r, n := range c.other {
			st.Skipped[r] += n
		}
	}
	return st
}
