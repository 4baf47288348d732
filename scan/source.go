package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spindle-go/spindle/scan/report"
)

// A Source yields the objects of one input to the engine: the files of a
// directory tree, the members of an archive, a stream, the blobs of a
// repository's history. The engine calls Enumerate from Enumerate tasks,
// one call at a time for a given source (a call may run on any worker),
// until it returns more == false; each call adds a batch of objects, and
// possibly sub-sources that are enumerated in tasks of their own, to b.
// Every object then goes through the same Fetch and Scan tasks as a file:
// frontier permits, chunking with overlap, the binary and size policies,
// archives found inside it, budgets, statistics.
//
// Enumerate should add a bounded batch (a hundred or so objects) and
// return, rather than list everything at once: the engine admits a batch's
// objects as the frontier allows and only then asks for the next batch, so
// what a source has listed but not yet admitted stays small. It must not
// block for long: it runs on a worker.
//
// A non-nil error ends the scan (as a cancellation does) and is returned by
// ScanSources; a problem with one object is a warning (Batch.Warn) instead.
type Source interface {
	Enumerate(ctx context.Context, b *Batch) (more bool, err error)
}

// Object is one thing to scan, as a Source lists it.
type Object struct {
	// Name is the object's path in reports, and what path rules and
	// path allowlists see.
	Name string
	// Size is the content's length in bytes, or -1 if unknown. With a
	// known size the engine reads exactly that much, and skips the object
	// if it exceeds Options.MaxFileSize.
	Size int64
	// Open returns the content. It is called once, by the object's first
	// Fetch task, and the content is closed after the last chunk is read.
	// If it also implements io.ReaderAt, an archive in it is read in
	// place; otherwise the archive is read as a stream. Not called when
	// Data is set.
	Open func() (io.ReadCloser, error)
	// Data, if not nil, is the whole content, already in memory (Size and
	// Open are then ignored). It is scanned as one buffer, not in chunks:
	// a line longer than a chunk is then one line to the inline allow and
	// to allowlists with regexTarget = "line", as it is in gitleaks' scan
	// of one fragment (a history's added lines are in memory anyway). The
	// engine does not modify it, and holds it until the object is done.
	Data []byte
	// Line is the line number of the content's first byte; 0 means 1. A
	// fragment of a larger file (the lines a commit added) keeps the
	// file's numbering this way.
	Line int
	// Expand, if not nil, turns each finding of the object into the
	// findings reported, passing each to emit: a source adds what it knows
	// (the commit of a change, which changes the fingerprint), and a
	// history source reports a change that several commits make once per
	// commit this way. Every finding emitted goes through the ignore list
	// and the baseline like any other. It runs on a worker, concurrently
	// with other objects' calls.
	Expand func(f report.Finding, emit func(report.Finding))
	// Fragment marks the content as one fragment of a change (the lines a
	// commit added in one place, perhaps none): path-only rules fire on it
	// even when it is empty, once per fragment, as gitleaks reports them
	// in a history. On a whole file that is empty they do not fire, as in
	// gitleaks, which reads no fragment of it.
	Fragment bool
}

// Batch collects what one Source.Enumerate call lists. Its methods are
// for that call only.
type Batch struct {
	e    *engine
	w    *worker
	rc   *rootCtx
	list *batch
}

// Add lists an object to scan.
func (b *Batch) Add(o Object) {
	obj := newObject(o.Name)
	obj.rc = b.rc
	obj.size = o.Size
	if o.Size < 0 {
		obj.size = -1
	}
	obj.open = o.Open
	if o.Data != nil {
		obj.data, obj.size = o.Data, int64(len(o.Data))
	}
	obj.expand = o.Expand
	obj.fragment = o.Fragment
	if o.Line > 1 {
		obj.st.line, obj.st0 = o.Line, o.Line
	}
	b.list.objs = append(b.list.objs, obj)
}

// AddSource lists a sub-source, enumerated by a task of its own (as a
// directory's subdirectories are): several workers may enumerate the
// sub-sources of one source at once.
func (b *Batch) AddSource(s Source) {
	b.list.subs = append(b.list.subs, &userSource{src: s, rc: b.rc})
}

// Warn reports a problem with one object (it could not be listed or
// opened) as a Warning; the scan goes on.
func (b *Batch) Warn(path, op string, err error) { b.e.warn(path, op, err) }

// Report hands the engine a finding the source already has, one an
// earlier scan found (a history scan's stored results): it goes through
// the ignore lists and the baseline to Options.OnFinding, and is counted,
// like a finding of a scanned object. Its fingerprint must be set.
func (b *Batch) Report(f report.Finding) { b.e.reportOne(&object{rc: b.rc}, f) }

// Skip counts an object the source chose not to list, under a Skip*
// reason (or one of its own), in Stats.Skipped.
func (b *Batch) Skip(reason string) { b.w.Scratch.c.skip(reason) }

// source is what an Enumerate task runs: a directory, the roots of a
// scan, a user's Source. list adds the next batch to l and reports whether
// there may be more; close releases what the source holds when it is done
// or abandoned.
type source interface {
	list(e *engine, w *worker, l *batch) (more bool)
	close()
}

// batch is one listing: objects not yet admitted by the frontier, and
// sub-sources to spawn.
type batch struct {
	objs []*object
	subs []source
}

// userSource adapts a Source to the engine.
type userSource struct {
	src Source
	rc  *rootCtx
}

func (u *userSource) list(e *engine, w *worker, l *batch) bool {
	b := Batch{e: e, w: w, rc: u.rc, list: l}
	var (
		more bool
		err  error
	)
	if !e.guard(func() { more, err = u.src.Enumerate(e.ctx, &b) }) {
		return false
	}
	if err != nil {
		e.abort(fmt.Errorf("scan: source: %w", err))
		return false
	}
	return more
}

func (u *userSource) close() {}

// ScanSources scans the objects of every source, with the same engine and
// the same options as Scan, and returns when all are done, or when ctx is
// done, a source fails, or, with FailFast, at the first warning. Each
// source is a scan root of its own for the archive budgets.
func ScanSources(ctx context.Context, opts Options, srcs ...Source) (Stats, error) {
	if opts.Detector == nil {
		return Stats{}, ErrNoDetector
	}
	e := newEngine(opts.withDefaults())
	roots := make([]source, 0, len(srcs))
	for _, s := range srcs {
		if s == nil {
			return Stats{}, errors.New("scan: nil Source")
		}
		roots = append(roots, &userSource{src: s, rc: e.newRootCtx("", false)})
	}
	return e.run(ctx, roots)
}

// ScanReader scans r as one object named name (for reports and path
// rules), chunk by chunk, in bounded memory whatever its length: standard
// input, a pipe, a download. An archive in r is opened as a stream.
func ScanReader(ctx context.Context, opts Options, name string, r io.Reader) (Stats, error) {
	return ScanSources(ctx, opts, &readerSource{name: name, r: r})
}

// readerSource is a Source of one object read from a reader.
type readerSource struct {
	name string
	r    io.Reader
}

func (s *readerSource) Enumerate(_ context.Context, b *Batch) (bool, error) {
	b.Add(Object{Name: s.name, Size: -1, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(s.r), nil
	}})
	return false, nil
}

// ScanFS scans the files of fsys under roots ("." if none), a directory
// tree that is not (or not only) on disk: an embed.FS, a zip opened with
// archive/zip, fstest.MapFS. Names in findings are slash-separated paths
// within fsys. Symbolic links are not followed, and Gitignore and Exclude
// do not apply.
func ScanFS(ctx context.Context, opts Options, fsys fs.FS, roots ...string) (Stats, error) {
	if len(roots) == 0 {
		roots = []string{"."}
	}
	srcs := make([]Source, len(roots))
	for i, r := range roots {
		srcs[i] = &fsSource{fsys: fsys, dir: r}
	}
	return ScanSources(ctx, opts, srcs...)
}
