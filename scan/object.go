package scan

import (
	"io"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
)

// object is a file, a stream or a Source's object admitted by the
// frontier: what every task of the graph that works on it shares. It
// holds one frontier permit from admission until its last task finishes.
//
// refs counts the tasks that hold the object: the Fetch chain holds one
// reference (each Fetch passes it to the next, and the first Fetch of an
// archive passes it to the archive's Enumerate task), and every Scan task
// spawned for one of its chunks holds one more. The task that drops refs
// to zero releases the permit, so the permit is released exactly once, and
// only after every task that touches the object is done.
//
// An archive member is an object too, with parent set to its archive and
// no permit of its own: the archive's permit covers all its members. A
// member holds one reference to its parent from creation until its own
// refs reach zero, so the archive's permit outlives every Scan task of
// every member.
type object struct {
	name   string // as reported, and as path rules see it
	path   string // a file on disk the engine opens itself; "" otherwise
	open   func() (io.ReadCloser, error)
	expand func(report.Finding, func(report.Finding)) // a Source's Object.Expand
	refs   atomic.Int32
	parent *object  // the archive, for a member; nil otherwise
	rc     *rootCtx // the scan root the object is under

	// Owned by the Fetch chain (one Fetch at a time, each spawned by the
	// previous one, so spawn orders their accesses).
	f       io.ReadCloser // open from the first Fetch until the last chunk is read
	ra      io.ReaderAt   // f, if it can be read in place
	size    int64         // size at open (negative if unknown); reads stop there
	st      stream
	scanned bool // the content was read (counted in Stats.Files), not skipped
	// decoded says the content is read through a UTF-16/32 decoder; st0
	// is the line number of the content's first byte.
	decoded bool
	st0     int
	// parts is the archive opened for reading in parts, closed with the
	// object.
	parts *archive.Archive
	// head is the first chunk of a stream found to be an archive, which
	// the walk must read again (a file is read again with ReadAt).
	head []byte
	// listed says the object's source already asked Detector.SkipPath
	// about it (a directory on disk does while listing).
	listed bool
	// fragment is Object.Fragment: path-only rules fire even on an empty
	// content.
	fragment bool
	// data is Object.Data: the content, scanned as one chunk.
	data []byte
}

// carryPool recycles the carry buffers of objects longer than one chunk.
var carryPool sync.Pool

func newObject(name string) *object {
	o := &object{name: name, size: -1, st0: 1}
	o.refs.Store(1)
	o.st.line = 1
	return o
}

// newMember returns the object of a member of archive parent, holding a
// reference to it.
func newMember(parent *object, name string) *object {
	parent.acquire()
	o := newObject(name)
	o.parent = parent
	o.rc = parent.rc
	o.expand = parent.expand
	return o
}

// acquire adds a reference for a task about to be spawned.
func (o *object) acquire() { o.refs.Add(1) }

// release drops a task's reference and reports whether it was the last.
func (o *object) release() bool {
	n := o.refs.Add(-1)
	if n < 0 {
		panic("scan: object released more often than acquired")
	}
	return n == 0
}

// closeFile closes the object's file if it is still open. Only the Fetch
// chain (or the last reference holder, once the chain is over) calls it.
func (o *object) closeFile() {
	if o.parts != nil {
		o.parts.Close()
		o.parts = nil
	}
	if o.f != nil {
		o.f.Close()
		o.f, o.ra = nil, nil
	}
}

// done is called by the holder of the last reference: it frees what the
// object holds and returns the permit, which goes to a parked Enumerate
// task if one waits (releasePermit). A member returns its reference to its
// archive instead.
func (e *engine) done(w *worker, o *object) {
	o.closeFile()
	if o.st.carry != nil {
		b := o.st.carry[:0]
		carryPool.Put(&b)
		o.st.carry = nil
	}
	if o.parent != nil {
		if o.scanned {
			w.Scratch.c.members++
		}
		e.drop(w, o.parent)
		return
	}
	if o.scanned {
		w.Scratch.c.files++
		if p := e.s.Progress; p != nil {
			p.Files.Add(1)
		}
	}
	e.releasePermit(w)
}

// drop releases one reference and finishes the object if it was the last.
func (e *engine) drop(w *worker, o *object) {
	if o.release() {
		e.done(w, o)
	}
}

func newCarry(overlap int) []byte {
	if b, ok := carryPool.Get().(*[]byte); ok && cap(*b) >= overlap {
		return (*b)[:0]
	}
	return make([]byte, 0, overlap)
}
