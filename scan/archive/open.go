package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"
	"time"
)

// ErrNotRandomAccess is Open's answer for an input that is not a zip or a
// 7z (a tar, a compressed stream, a plain file): read it with Walk.
var ErrNotRandomAccess = errors.New("archive: not a zip or 7z: read it with Walk")

// Archive is a zip or 7z file opened for random access, whose members can
// be read by several goroutines at once. Open lists nothing: Next lists
// the archive in parts (a zip member, or the members of one 7z folder,
// which can only be decoded in order), and Walk reads one part, each call
// with decoders of its own. Budgets work as in Root.Walk; those of the
// archive (decoded bytes, duration) and of the root are shared by all the
// parts, atomically, so they hold however the parts are spread.
//
// The concurrency contract:
//
//   - Next lists: call it from one goroutine at a time (it holds the
//     directory cursor). It may run while parts are being walked.
//   - Walk may be called from any number of goroutines at once, for any
//     parts Next returned, in any order, and with Next running; each call
//     reads its part on the calling goroutine and calls visit and warn
//     there, so they need no locking of their own unless they share state
//     across calls.
//   - The io.ReaderAt given to Open must allow concurrent ReadAt calls, as
//     *os.File and *bytes.Reader do.
//   - Close ends the use of the archive: call it once, after every Walk
//     has returned and no Next will follow.
//
// A part's members are named as Walk names them: "outer.zip!dir/file.txt",
// nested archives inside a member walked as in Walk ("outer.zip!in.jar!x").
// Entries counts, MaxEntries and the skips of listing (entries past the
// budget, encrypted and unsupported members) belong to Next; what stops
// the archive (MaxArchiveBytes, MaxDuration, the root budget) stops every
// part, and each member it keeps from being read is named in a warning,
// by Walk for the parts it was given and by Next for the rest.
//
// MaxDuration bounds the time spent reading the archive's parts, summed
// over the goroutines that read them, rather than the time since Open: a
// part waiting in a caller's queue costs nothing, and an archive read by
// eight goroutines at once has used its time after a eighth of the wall
// time.
type Archive struct {
	rt     *Root
	name   string
	path   []string
	format Format
	acct   account
	// busy is the time spent in Walk calls that have returned, summed:
	// MaxDuration bounds the work done on the archive, not the time its
	// parts wait in a caller's queues.
	busy atomic.Int64

	// Listing state: Next's alone.
	zip     *zipDir
	zl      *zipLister
	sz      *szArchive
	sl      *szLister
	openErr error // reported by the first Next
	done    bool
}

// Part is one unit of work of an Archive: a zip member, or the members of
// one 7z folder (a part per member when the 7z is not solid). Pass it to
// Archive.Walk.
type Part struct {
	Name    string // the full name of its first member, such as "outer.zip!a.txt"
	Members int    // how many members it holds
	Size    int64  // its compressed bytes: a hint of its cost, for batching small parts
	zip     zipEntry
	sz      szPart
}

// Open opens the zip or 7z in ra (size bytes, such as a file on disk) for
// reading its members in parallel; a self-extracting zip is recognised as
// Walk does. It returns ErrNotRandomAccess for any other input, and for
// any input when MaxDepth is 0: read those with Walk. ctx bounds the
// reading of the directory. Problems with the archive itself (a damaged
// directory, a budget already spent) are reported by the first Next, as
// warnings.
func (rt *Root) Open(ctx context.Context, name string, ra io.ReaderAt, size int64) (*Archive, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rt.lim.MaxDepth == 0 || size <= 0 {
		return nil, ErrNotRandomAccess
	}
	head := make([]byte, min(size, HeadLen))
	if _, err := ra.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, err
	}
	f := DetectFile(head, ra, size)
	if f != Zip && f != SevenZip {
		return nil, ErrNotRandomAccess
	}
	a := &Archive{rt: rt, name: name, path: []string{name}, format: f}
	rt.in.Add(size)
	if rt.over() {
		a.openErr = &BudgetError{Archive: name, Budget: BudgetRootBytes, Limit: rt.lim.MaxRootBytes}
		return a, nil
	}
	switch f {
	case Zip:
		d, err := readZipDir(ra, size)
		if err != nil {
			a.openErr = &FormatError{Name: name, Err: err, Lost: zipNamesAMember(ra, size)}
			return a, nil
		}
		if d.trailing > 0 {
			a.openErr = &FormatError{Name: name, Err: errTrailing(d.trailing)}
		}
		a.zip, a.zl = d, newZipLister(name, d, rt.lim.MaxEntries)
	case SevenZip:
		z, lost, err := openSz(ra, size, &rt.lim)
		if err != nil {
			var be *szBudgetError
			switch {
			case errors.As(err, &be):
				a.openErr = &BudgetError{Archive: name, Budget: be.budget, Limit: be.limit}
			case isWindowError(err):
				a.openErr = &BudgetError{Archive: name, Budget: BudgetWindow, Limit: rt.lim.MaxWindow}
			default:
				a.openErr = &FormatError{Name: name, Err: err, Lost: lost}
			}
			return a, nil
		}
		a.sz, a.sl = z, newSzLister(name, z, rt.lim.MaxEntries)
	}
	return a, nil
}

// Format returns the archive's format: Zip or SevenZip.
func (a *Archive) Format() Format { return a.format }

// Next returns the next part to read, or io.EOF when the listing is done.
// Members that will not be read (past MaxEntries, encrypted, unsupported,
// or skipped because a budget has stopped the archive) go to warn, each
// under its name, and are not returned. Next returns another error only
// when ctx is done or, under FailOnBudget, with the *BudgetError that ends
// the walk.
func (a *Archive) Next(ctx context.Context, warn WarnFunc) (Part, error) {
	if warn == nil {
		warn = func(error) {}
	}
	report := func(err error) error {
		var be *BudgetError
		if errors.As(err, &be) && a.rt.lim.FailOnBudget {
			return be
		}
		warn(err)
		return nil
	}
	if err := a.openErr; err != nil {
		a.openErr = nil
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Lost || a.zl == nil {
			a.done = true // the archive did not open: nothing to list
		}
		if err := report(err); err != nil {
			return Part{}, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return Part{}, err
		}
		if a.done {
			return Part{}, io.EOF
		}
		p, err := a.list(report)
		if err != nil {
			var fe *FormatError
			if err == io.EOF || errors.As(err, &fe) {
				a.done = true
				if fe != nil {
					warn(fe)
				}
				return Part{}, io.EOF
			}
			return Part{}, err
		}
		cause := a.stopCause()
		if cause == nil {
			return p, nil
		}
		for _, m := range p.members(a.name) {
			if err := report(&BudgetError{Archive: a.name, Member: m, Budget: cause.budget, Limit: cause.limit}); err != nil {
				return Part{}, err
			}
		}
	}
}

// list reads the next part from the directory.
func (a *Archive) list(report func(error) error) (Part, error) {
	if a.zl != nil {
		var p Part
		if err := a.zl.next(&p.zip, report); err != nil {
			return Part{}, err
		}
		p.Name = a.name + "!" + p.zip.name
		p.Members = 1
		p.Size = int64(min(p.zip.csize, math.MaxInt64))
		return p, nil
	}
	if a.sl == nil {
		return Part{}, io.EOF
	}
	sp, err := a.sl.next(report)
	if err != nil {
		return Part{}, err
	}
	p := Part{Name: a.name + "!" + sp.files[0].name, Members: len(sp.files), sz: sp}
	if sp.folder >= 0 {
		f := &a.sz.h.folders[sp.folder]
		for _, s := range a.sz.h.packSizes[f.firstPack : f.firstPack+len(f.packed)] {
			p.Size += int64(min(s, math.MaxInt64/2))
		}
	}
	return p, nil
}

// members returns the full names of the part's members.
func (p *Part) members(archive string) []string {
	if p.sz.files == nil {
		return []string{p.Name}
	}
	names := make([]string, len(p.sz.files))
	for i, f := range p.sz.files {
		names[i] = archive + "!" + f.name
	}
	return names
}

// stopCause returns why no more parts are to be read, if a budget of the
// archive or the root says so.
func (a *Archive) stopCause() *stopCause {
	if c := a.acct.stop.Load(); c != nil {
		return c
	}
	if d := a.rt.lim.MaxDuration; d < math.MaxInt64 && a.busy.Load() > int64(d) {
		c := &stopCause{budget: BudgetDuration, limit: int64(a.rt.lim.MaxDuration)}
		a.acct.stop.CompareAndSwap(nil, c)
		return a.acct.stop.Load()
	}
	if a.rt.over() {
		return &stopCause{budget: BudgetRootBytes, limit: a.rt.lim.MaxRootBytes}
	}
	return nil
}

// Walk reads the members of part p, calling visit for each member that is
// not itself an archive (nested archives are walked as in Root.Walk) and
// warn for what cannot be read, on the calling goroutine. It is safe for
// concurrent use; see Archive. It returns an error only when ctx is done,
// when a budget is hit under FailOnBudget, or when visit returns an error
// of its own.
func (a *Archive) Walk(ctx context.Context, p Part, visit VisitFunc, warn WarnFunc) error {
	w := newWalker(ctx, a.rt, visit, warn)
	if err := ctx.Err(); err != nil {
		return err
	}
	// The part may use what is left of the archive's time; parts read at
	// once each see the time left when they started, so together they may
	// pass the budget by up to one part's time each.
	start := time.Now()
	defer func() { a.busy.Add(int64(time.Since(start))) }()
	l := &level{name: a.name, path: a.path, acct: &a.acct, shared: true}
	if d := a.rt.lim.MaxDuration; d < math.MaxInt64 {
		l.deadline = start.Add(d - time.Duration(a.busy.Load()))
	}
	w.levels = append(w.levels, l)
	var err error
	switch {
	case a.zip != nil:
		l.zip = getZipDecoders()
		err = w.zipEntry(l, a.zip, &p.zip)
		putZipDecoders(l.zip, a.rt.lim.MaxWindow)
	case a.sz != nil:
		err = w.szPart(l, a.sz, &p.sz)
	}
	w.levelDone(l)
	w.levels = w.levels[:0]
	w.release()
	return w.finish(a.name, err)
}

// Close ends the use of the archive. Decoders are pooled package-wide, so
// there is nothing left to release; Close is there so that callers need
// not change if that changes. It does not close the io.ReaderAt given to
// Open.
func (a *Archive) Close() error { return nil }

// errTrailing is the warning for bytes after a zip's end record.
func errTrailing(n int64) error {
	return fmt.Errorf("zip: %d bytes after the end of central directory (truncated, or data appended)", n)
}
