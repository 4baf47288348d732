package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"golang.org/x/text/transform"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/archive"
)

// This file wires scan/archive into the task graph (see doc.go, Archives):
// the first Fetch of a file recognises an archive by its magic number and
// hands the object to an Enumerate task, which walks the archive and feeds
// each member's chunks to Scan tasks.

// errStopped is what visit returns to end a walk once the scan has stopped.
// Walk hands it back, and it is dropped: the scan's error is set already.
var errStopped = errors.New("scan: stopped")

// isArchive reports whether the file whose first chunk is in c is to be
// walked as an archive: archives are on and its magic number names a
// format. Only the magic counts, never the name: a text file called
// notes.gz is scanned as text, a zip called data.bin is opened.
func (e *engine) isArchive(o *object, c *chunk, last bool) bool {
	if e.s.ArchiveDepth == 0 || o.rc == nil || o.rc.archive == nil {
		return false
	}
	head := c.buf[:c.n] // the first chunk carries no overlap
	if len(head) < archive.HeadLen && !last && o.ra != nil {
		// A chunk shorter than a tar header (a tiny ChunkSize): read the
		// head again. pread leaves the Fetch chain's offset alone.
		var b [archive.HeadLen]byte
		n, _ := o.ra.ReadAt(b[:], 0)
		head = b[:n]
	}
	f := archive.Detect(head)
	if f == archive.None && o.ra != nil && o.size > 0 {
		// A self-extracting zip: an executable or script with a zip
		// appended, found by its end.
		f = archive.DetectFile(head, o.ra, o.size)
	}
	if f == archive.None {
		return false
	}
	if o.ra == nil {
		// A stream: the walk must read it from its first byte, which this
		// chunk has consumed already.
		o.head = bytes.Clone(head)
	}
	return true
}

// walkArchive is the Enumerate task of an archive: it walks the archive
// (archive.Root.Walk, synchronous) and streams each member through
// streamChunks, which reads the member's chunks and spawns their Scan
// tasks. The task holds the archive object's reference, taken over from
// the Fetch that recognised it, until the walk ends; each member holds
// another until its last Scan task is done, so the archive's permit goes
// back after the last chunk of its last member is scanned.
//
// The walk occupies this worker until the archive is done (up to the
// Limits.MaxDuration budget): decoding is sequential, while the members'
// chunks are scanned by whichever workers steal their Scan tasks.
func (e *engine) walkArchive(w *worker, o *object) {
	defer e.drop(w, o)
	if e.stopped() {
		return
	}
	ws := w.Scratch
	ws.c.archives++
	o.scanned = true
	if o.ra != nil {
		a, err := e.openParts(o)
		switch {
		case err == nil:
			e.startParts(w, o, a)
			return
		case !errors.Is(err, archive.ErrNotRandomAccess):
			e.walkEnded(ws, o, err)
			return
		}
	}
	err := e.walk(w, o)
	o.closeFile()
	e.walkEnded(ws, o, err)
}

// walkEnded reports how a walk (or a part of one) ended.
func (e *engine) walkEnded(ws *workerState, o *object, err error) {
	var be *archive.BudgetError
	switch {
	case err == nil:
	case e.stopped():
		// ctx, FailFast or a panic ended the scan; its error is set.
	case errors.As(err, &be):
		// Limits.FailOnBudget: the hit is counted and reported like any
		// budget warning, then ends the scan, with the warning as Scan's
		// error.
		ws.c.skipped[skipBudget]++
		e.warn(be.Name(), "archive", archiveError{err})
		e.abort(Warning{Path: be.Name(), Op: "archive", Err: archiveError{err}, Lost: true})
	default:
		e.warn(o.name, "archive", err)
	}
}

// walk runs the archive walker over o's file. A panic in the walker (a
// bug a hostile archive found in a reader) stops the scan the way a panic
// in the detector does (guard.go): Scan returns it. The walker's deferred
// clean-ups have run by then (a spool file is removed), and so have the
// members' (visit drops its member with a defer).
func (e *engine) walk(w *worker, o *object) (err error) {
	defer func() {
		if v := recover(); v != nil {
			e.archivePanic(o.name, v)
			err = errStopped
		}
	}()
	var src io.Reader
	if o.ra != nil {
		src = io.NewSectionReader(meteredFile{f: o.ra, n: &e.archiveRead}, 0, o.size)
	} else {
		src = io.MultiReader(bytes.NewReader(o.head), meteredReader{r: o.f, n: &e.archiveRead})
		o.head = nil
	}
	return o.rc.archive.Walk(e.walkCtx, o.name, src, o.size, e.visitor(w, o), e.archiveWarner(w.Scratch, o))
}

// archivePanic stops the scan with a panic recovered from the archive
// reader, which Scan returns: a bug a hostile archive found, or a panic in
// an io.ReaderAt a Source gave.
func (e *engine) archivePanic(name string, v any) {
	e.abort(fmt.Errorf("scan: archive %s: %w", name, &spindle.PanicError{Value: v, Stack: debug.Stack()}))
}

// visitor is the archive walk's visit function on worker w: each member
// not itself an archive becomes an object of its own, holding a
// reference to the archive, whose chunks are read here and scanned by
// Scan tasks (streamChunks).
func (e *engine) visitor(w *worker, o *object) archive.VisitFunc {
	ws := w.Scratch
	return func(m archive.Member, r io.Reader) error {
		if e.stopped() {
			return errStopped
		}
		if e.skipsPath(w, m.Name) {
			if e.stopped() {
				return errStopped
			}
			ws.c.skipped[skipAllowlist]++
			return nil
		}
		mo := newMember(o, m.Name)
		defer e.drop(w, mo)
		// m.Size is a claim the archive makes, not a promise: the member
		// is read to its end whatever it says.
		return e.streamChunks(w, ws, mo, r, -1)
	}
}

func (e *engine) archiveWarner(ws *workerState, o *object) archive.WarnFunc {
	return func(err error) { e.archiveWarning(ws, o, err) }
}

// archiveWarning reports a warning of the walker: a budget hit or a member
// or archive that could not be read. The Warning's Path is the archive or
// member it names, so a nested one reads "a.tar.gz!inner.zip".
func (e *engine) archiveWarning(ws *workerState, o *object, err error) {
	path := o.name
	var (
		be *archive.BudgetError
		fe *archive.FormatError
	)
	switch {
	case errors.As(err, &be):
		ws.c.skipped[skipBudget]++
		path = be.Name()
	case errors.As(err, &fe):
		if errors.Is(fe.Err, archive.ErrEncrypted) || errors.Is(fe.Err, archive.ErrUnsupported) {
			ws.c.skipped[skipUnsupported]++
		}
		path = fe.Name
	}
	e.warn(path, "archive", archiveError{err})
}

// archiveError is the cause of an archive Warning. Its message leaves out
// the "archive: NAME: " prefix of the archive package's errors, which the
// Warning's Path already says; Unwrap gives the *archive.BudgetError or
// *archive.FormatError itself.
type archiveError struct{ err error }

func (a archiveError) Error() string {
	var (
		be *archive.BudgetError
		fe *archive.FormatError
	)
	switch {
	case errors.As(a.err, &be):
		return strings.TrimPrefix(be.Error(), "archive: "+be.Name()+": ")
	case errors.As(a.err, &fe):
		return fe.Err.Error()
	}
	return a.err.Error()
}

func (a archiveError) Unwrap() error { return a.err }

// streamChunks scans r, the content of o, chunk by chunk: the Fetch chain
// of an object that is a stream rather than a file (an archive member),
// run inline because r is valid only while the walker's visit runs. The
// chunking is the Fetch chain's (geometry.next), so the findings are the
// same for every chunk size, with lines counted from the member's start.
//
// Each chunk goes into a shared buffer, if w is set, there is more than
// one worker and the pool has one free, and is handed to a Scan task that
// holds a reference to o: other workers scan the members' chunks while
// this one decodes. Otherwise the chunk is read into the worker's own
// buffer and scanned here, which is the backpressure: nothing blocks, and
// a walk never holds more than the pool's buffers.
//
// size is r's length if known, else negative. The caller holds a
// reference to o and drops it after. streamChunks returns r's error as it
// came, so that the walker recognises its own errors (a budget hit, a
// corrupt member), or errStopped once the scan has stopped.
func (e *engine) streamChunks(w *worker, ws *workerState, o *object, r io.Reader, size int64) error {
	share := w != nil && e.s.Workers > 1
	var held *chunk // a pooled buffer not yet handed to a task
	defer func() {
		if held != nil { // r panicked, or the member was skipped
			e.pool.put(held)
		}
	}()
	for first := true; ; {
		if e.stopped() {
			return errStopped
		}
		c := ws.own
		if share {
			if pc := e.pool.get(); pc != nil {
				c, held = pc, pc
			}
		}
		last, n, err := e.geo.next(c, &o.st, r, size)
		if first {
			first = false
			switch action, enc := e.firstChunk(ws, o, c, last, err == nil, false); action {
			case skipIt:
				return err
			case restartIt:
				// A member in UTF-16 or UTF-32: decode the stream, the
				// head already read first, and start over.
				r = transform.NewReader(io.MultiReader(bytes.NewReader(bytes.Clone(c.buf[:c.n])), r), enc.NewDecoder())
				size, o.decoded, o.st = -1, true, stream{line: 1}
				if held != nil {
					e.pool.put(held)
					held = nil
				}
				first = true
				continue
			}
		}
		o.scanned = true
		ws.c.bytesScanned += int64(n)
		if p := e.s.Progress; p != nil {
			p.Bytes.Add(int64(n))
		}
		if c.pooled {
			held = nil
			o.acquire()
			w.Spawn(task{kind: kindScan, obj: o, c: c})
		} else {
			ws.c.inline++
			e.scanChunk(ws, o, c)
		}
		if err != nil || last {
			return err
		}
	}
}

// meteredFile reads an archive's file for the walker and counts the bytes
// read in the worker's Phases.BytesRead (the walk runs on one worker).
type meteredFile struct {
	f io.ReaderAt
	n *atomic.Int64 // the parts of one archive are read by several workers
}

// meteredReader is meteredFile for an archive that is a stream.
type meteredReader struct {
	r io.Reader
	n *atomic.Int64
}

func (m meteredReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.n.Add(int64(n))
	return n, err
}

func (m meteredFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := m.f.ReadAt(p, off)
	m.n.Add(int64(n))
	return n, err
}
