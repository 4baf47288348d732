package scan

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/report"
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
func Scan(ctx context.Context, opts Options, paths ...string) (Stats, error) {
	if opts.Detector == nil {
		return Stats{}, ErrNoDetector
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	return newEngine(opts.withDefaults()).scan(ctx, paths)
}

func (e *engine) scan(ctx context.Context, paths []string) (Stats, error) {
	start := time.Now()
	e.ctx = ctx
	e.walkCtx, e.cancel = context.WithCancel(ctx)
	defer e.cancel()
	e.exec = spindle.New(spindle.Config{Workers: e.s.Workers}, e.newWorker, e.run)
	roots := &dirJob{roots: make([]string, len(paths))}
	for i, p := range paths {
		roots.roots[i] = filepath.Clean(p)
	}
	// A new executor accepts tasks until Join, so Spawn cannot fail here.
	_ = e.exec.Spawn(task{kind: kindEnumerate, dir: roots})
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
	return st, e.failure()
}

// engine is the state of one Scan call.
type engine struct {
	s     settings
	det   Detector
	geo   geometry
	front *frontier
	pool  *bufferPool
	exec  *spindle.Executor[task, *workerState]

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
	findings atomic.Int64

	// walkCtx is ctx for the archive walks, cancelled by abort, so that a
	// walk in progress (which polls its context, not stop) ends at its
	// next read when the scan stops: the seed's run-wide abort.
	walkCtx context.Context
	cancel  context.CancelFunc

	wmu     sync.Mutex
	workers []*workerState // for the final stats, appended as workers start
}

func newEngine(s settings) *engine {
	return &engine{
		s:     s,
		det:   s.Detector,
		geo:   geometry{window: s.window, overlap: s.overlap, chunkSize: s.ChunkSize},
		front: newFrontier(s.MaxInFlight),
		pool:  newBufferPool(s.Buffers, s.overlap+s.ChunkSize),
	}
}

// taskKind names the three task types of the graph.
type taskKind uint8

const (
	kindEnumerate taskKind = iota // list a directory (or the roots) and admit its files, or walk an archive
	kindFetch                     // read an object's next chunk
	kindScan                      // match a chunk that a Fetch handed over
	numKinds
)

// task is the executor's task type: a small value, three pointers and a
// kind, copied through the rings without allocation.
type task struct {
	kind taskKind
	dir  *dirJob // kindEnumerate of a directory
	obj  *object // kindFetch, kindScan; kindEnumerate of an archive (dir nil)
	c    *chunk  // kindScan: a pooled buffer, owned by the task
}

type worker = spindle.Worker[task, *workerState]

// workerState is a worker's scratch: the detector's working memory, the
// worker's own chunk buffer, and counters written without contention.
type workerState struct {
	scratch Scratch
	own     *chunk  // this worker's buffer: never handed to another task
	matches []Match // the current chunk's matches, reused
	emit    func(Match)
	c       counters
}

// counters are one worker's share of the Stats.
type counters struct {
	phases                  [numKinds]Phase
	backpressure, inline    int64
	bytesRead, bytesScanned int64
	files, dirs             int64
	archives, members       int64
	skipped                 [numSkips]int64
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
	numSkips
)

var skipNames = [numSkips]string{SkipBinary, SkipSize, SkipIgnored, SkipAllowlist, SkipSymlink, SkipSpecial, SkipGit, SkipBudget, SkipUnsupported}

func (e *engine) newWorker(int) *workerState {
	ws := &workerState{
		scratch: e.det.NewScratch(),
		own:     &chunk{buf: make([]byte, e.s.overlap+e.s.ChunkSize)},
	}
	ws.emit = func(m Match) { ws.matches = append(ws.matches, m) }
	e.wmu.Lock()
	e.workers = append(e.workers, ws)
	e.wmu.Unlock()
	return ws
}

// run is the executor's task function: it dispatches on the kind and
// accounts the time spent.
func (e *engine) run(t task, w *worker) {
	start := time.Now()
	switch t.kind {
	case kindEnumerate:
		if t.dir == nil {
			e.walkArchive(w, t.obj)
		} else {
			e.enumerate(w, t.dir)
		}
	case kindFetch:
		e.fetch(w, t.obj)
	case kindScan:
		e.scanTask(w, t.obj, t.c)
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
	wn := Warning{Path: path, Op: op, Err: err}
	e.warnings.Add(1)
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

// report hands a finding to the user, unless its fingerprint is ignored.
func (e *engine) report(f report.Finding) {
	if e.s.Ignore != nil {
		ignored := false
		if !e.guard(func() { ignored = e.s.Ignore.Has(f.Fingerprint) }) || ignored {
			return
		}
	}
	e.findings.Add(1)
	if p := e.s.Progress; p != nil {
		p.Findings.Add(1)
	}
	if e.s.OnFinding != nil {
		e.callback(func() { e.s.OnFinding(f) })
	}
}

func (e *engine) stats(m spindle.Metrics, d time.Duration) Stats {
	st := Stats{
		Skipped:  make(map[string]int64),
		Warnings: e.warnings.Load(),
		Findings: e.findings.Load(),
		Duration: d,
		Executor: m,
	}
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
			dst := [...]*Phase{&st.Phases.Enumerate, &st.Phases.Fetch, &st.Phases.Scan}[k]
			dst.Tasks += p.Tasks
			dst.Busy += p.Busy
		}
		for r, n := range c.skipped {
			if n > 0 {
				st.Skipped[skipNames[r]] += n
			}
		}
	}
	return st
}
