package scan

import (
	"errors"
	"io"
	"sync"

	"github.com/spindle-go/spindle/scan/archive"
)

// This file reads the members of a zip or 7z on disk in parallel. The
// archive's Enumerate task opens it (archive.Root.Open) and lists its
// parts (a zip member, or a 7z folder, whose members can only be decoded
// in order), a batch at a time, into part tasks that any worker runs;
// each part's members are objects as in a sequential walk, with their
// chunks scanned by Scan tasks. So the members of one archive are
// inflated by several workers at once, where a stream (tar.gz) is
// decoded by one worker, in order.
//
// Listing is driven by completions: the Enumerate task lists a few groups
// of parts (partsAhead), and each group that finishes lists the next one,
// so at most partsAhead groups of an archive (each of at most groupParts
// parts) are listed, queued or running at a time, however many members it
// has, and no task waits for another. Each
// group holds a reference to the archive's object, so the archive's
// permit comes back after its last member's last Scan task.

// partsAhead is how many groups of parts an archive has queued or running
// at once.
const partsAhead = 8

// partBytes is about how much compressed data one part task reads: small
// members are grouped so that a jar of a thousand tiny classes is not a
// thousand tasks.
const partBytes = 1 << 20

// groupParts caps the parts of one group, so that what an archive has
// listed ahead stays small whatever its members' sizes: a zip of 65,536
// empty members would otherwise be one group holding every part (over
// 100 bytes each, and the names), for each such archive in flight.
const groupParts = 512

// partList is an archive being read in parts: its listing, shared by the
// tasks that continue it.
type partList struct {
	o  *object
	a  *archive.Archive
	mu sync.Mutex // guards the listing (Next is called by one task at a time)
	// done is set when the listing ended (every part listed, or the
	// archive stopped); no group is listed after.
	done bool
}

// partGroup is the work of one part task.
type partGroup struct {
	l     *partList
	parts []archive.Part
}

// startParts lists the first groups of an archive opened for parallel
// reading. The caller's reference on o is dropped by the caller.
func (e *engine) startParts(w *worker, o *object, a *archive.Archive) {
	o.parts = a
	l := &partList{o: o, a: a}
	for range partsAhead {
		if !e.nextGroup(w, l) {
			break
		}
	}
}

// nextGroup lists the next group of parts and spawns its task; it reports
// whether there was one.
func (e *engine) nextGroup(w *worker, l *partList) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || e.stopped() {
		l.done = true
		return false
	}
	var (
		g    = &partGroup{l: l}
		size int64
	)
	warn := e.archiveWarner(w.Scratch, l.o)
	for size < partBytes && len(g.parts) < groupParts {
		p, err := e.nextPart(l, warn)
		if err != nil {
			l.done = true
			if !errors.Is(err, io.EOF) {
				e.walkEnded(w.Scratch, l.o, err)
			}
			break
		}
		g.parts = append(g.parts, p)
		size += max(p.Size, 1)
	}
	if len(g.parts) == 0 {
		return false
	}
	l.o.acquire()
	w.Spawn(task{kind: kindPart, obj: l.o, pg: g})
	return true
}

// partTask reads a group of parts on this worker, then lists the next
// group, and drops its reference on the archive.
func (e *engine) partTask(w *worker, g *partGroup) {
	o := g.l.o
	defer e.drop(w, o)
	visit, warn := e.visitor(w, o), e.archiveWarner(w.Scratch, o)
	for _, p := range g.parts {
		if e.stopped() {
			return
		}
		if err := e.walkPart(g.l.a, p, visit, warn); err != nil {
			e.walkEnded(w.Scratch, o, err)
			return
		}
	}
	e.nextGroup(w, g.l)
}

// walkPart walks one part; a panic in the walker stops the scan as in
// walk.
func (e *engine) walkPart(a *archive.Archive, p archive.Part, visit archive.VisitFunc, warn archive.WarnFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			e.archivePanic(p.Name, v)
			err = errStopped
		}
	}()
	return a.Walk(e.walkCtx, p, visit, warn)
}

// nextPart lists l's next part; a panic in the listing (the directory's
// parser, or the archive's io.ReaderAt) stops the scan as in walk.
func (e *engine) nextPart(l *partList, warn archive.WarnFunc) (p archive.Part, err error) {
	defer func() {
		if v := recover(); v != nil {
			e.archivePanic(l.o.name, v)
			err = errStopped
		}
	}()
	return l.a.Next(e.walkCtx, warn)
}

// openParts opens o's archive for reading in parts (archive.Root.Open); a
// panic in the opening stops the scan as in walk.
func (e *engine) openParts(o *object) (a *archive.Archive, err error) {
	defer func() {
		if v := recover(); v != nil {
			e.archivePanic(o.name, v)
			a, err = nil, errStopped
		}
	}()
	return o.rc.archive.Open(e.walkCtx, o.name, meteredFile{f: o.ra, n: &e.archiveRead}, o.size)
}
