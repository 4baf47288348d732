package archive

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Member is one file found inside an archive, as visit sees it.
type Member struct {
	// Name is the member's full name: Path joined with "!", such as
	// "a.tar.gz!inner.zip!x.env". A compressed stream that holds a
	// plain file keeps the stream's own name ("notes.txt.gz").
	Name string
	// Path is the nesting chain: the outermost archive's name, each
	// nested archive's member name, and the member's own name, all
	// literal as the archives record them (never cleaned: a tar member
	// "../../etc/passwd" is reported as exactly that). visit may keep it.
	Path []string
	// Size is the size the archive declares, or -1 when it declares none
	// (a compressed stream). It is a claim, not a promise: the bytes
	// visit reads are what counts, and the budgets apply to those.
	Size int64
	// Depth is how many archive levels enclose the member: 0 for an input
	// that is not an archive, 1 for a member of a top-level archive.
	Depth int
}

// VisitFunc receives each member that is not itself an archive opened by
// the walk. r streams the member's content and is valid only until visit
// returns; nothing needs to be read, and stopping early is fine. An error
// from r should be returned wrapped (%w) or not at all: Walk knows the
// errors its own readers return and treats them as warnings or budget
// hits; any other error from visit ends the walk and is returned by Walk.
type VisitFunc func(m Member, r io.Reader) error

// WarnFunc receives the warnings of a walk: *BudgetError and *FormatError
// values. It is called on the walking goroutine.
type WarnFunc func(err error)

// Root holds the budgets of one scan root: its Limits, and the decoded
// bytes its walks have produced so far against the compressed bytes of
// the archives they opened (MaxRootBytes and MaxRatio). Create one per
// root and pass every archive of that root through its Walk or Open. A
// Root is safe for concurrent use by several walks.
type Root struct {
	lim Limits // normalized: no zero or negative fields but MaxDepth
	// used counts decoded bytes of all walks through this Root, in the
	// compressed bytes of the top-level archives they opened. Both only
	// grow; see over.
	used atomic.Int64
	in   atomic.Int64
}

// NewRoot returns a Root that walks archives under lim.
func NewRoot(lim Limits) *Root { return &Root{lim: lim.normalize()} }

// Used returns the decoded bytes counted against MaxRootBytes so far.
func (rt *Root) Used() int64 { return rt.used.Load() }

// over reports whether the root budget is spent: more than MaxRootBytes
// decoded, and more than MaxRatio per compressed byte opened (when the
// compressed size is unknown, the floor alone).
func (rt *Root) over() bool {
	used := rt.used.Load()
	if used <= rt.lim.MaxRootBytes {
		return false
	}
	in := rt.in.Load()
	return in <= 0 || float64(used) > rt.lim.MaxRatio*float64(in)
}

// Walk is NewRoot(lim).Walk: a walk with a root budget of its own.
func Walk(ctx context.Context, name string, r io.Reader, size int64, lim Limits, visit VisitFunc, warn WarnFunc) error {
	return NewRoot(lim).Walk(ctx, name, r, size, visit, warn)
}

// Walk reads the file named name from r and calls visit for every member
// that is not itself an archive, opening nested archives up to MaxDepth
// levels. An input that is not an archive, or any input when MaxDepth is 0,
// is handed to visit whole as one member named name.
//
// size is r's length, or -1 if unknown. If r is an io.ReaderAt and size is
// known, a zip or 7z is read in place with ReadAt (a self-extracting zip,
// whose directory is found at the end, included); otherwise, and for every
// nested zip or 7z, it is first spooled (see Limits.SpoolMemory). Other
// formats are streamed: no member is ever held whole.
//
// Walk reads one member after another on the calling goroutine. For a zip
// or 7z on disk, Root.Open lets several goroutines read its members at
// once instead.
//
// Budget hits, encrypted or unsupported members and corrupt data go to warn
// (nil discards them) and the walk goes on. Walk returns an error only when
// ctx is done (ctx.Err()), when a budget is hit under FailOnBudget (a
// *BudgetError), or when visit returns an error of its own.
func (rt *Root) Walk(ctx context.Context, name string, r io.Reader, size int64, visit VisitFunc, warn WarnFunc) error {
	w := newWalker(ctx, rt, visit, warn)
	defer w.release()
	path := []string{name}
	if err := ctx.Err(); err != nil {
		return err
	}
	if rt.lim.MaxDepth == 0 {
		return w.leaf(path, r, size, nil)
	}
	var ra io.ReaderAt
	if a, ok := r.(io.ReaderAt); ok && size >= 0 {
		ra = a
	}
	return w.finish(name, w.stream(path, r, ra, size, nil))
}

// bufSize is the buffer in front of every stream: at least HeadLen for
// sniffing, large enough that file reads are not syscall-bound.
const bufSize = 32 << 10

// walker is the state of one walk, or of one Archive.Walk of a part. It is
// used by one goroutine only.
//
// Stopping works through two sticky fields rather than through the errors
// that travel up the call chain, because those errors pass through code
// that is not ours (decoders, archive/tar, visit) and may be wrapped,
// replaced or swallowed on the way. A reader that must stop sets a field
// and returns its error; every level, on its way back, looks at the fields
// and not at what it was handed.
type walker struct {
	ctx   context.Context
	root  *Root
	lim   *Limits
	visit VisitFunc
	warn  WarnFunc

	// levels are the archives open now, outermost first. The depth of a
	// stream being looked at is len(levels).
	levels []*level

	// fatal, once set, ends the walk: ctx is done, a budget was hit under
	// FailOnBudget, or visit returned an error of its own. Walk returns it.
	fatal error

	// trip is a budget hit waiting to be settled by the scope it belongs
	// to. Until then every reader returns trip.err, so the levels inside
	// unwind; the scope itself reports it and carries on with what comes
	// after it.
	trip *tripped

	free    []*source // sources to reuse: nesting is LIFO, so a stack suffices
	scratch []byte    // where skipped bytes are read to
}

func newWalker(ctx context.Context, rt *Root, visit VisitFunc, warn WarnFunc) *walker {
	if warn == nil {
		warn = func(error) {}
	}
	return &walker{ctx: ctx, root: rt, lim: &rt.lim, visit: visit, warn: warn}
}

// A budget hit belongs to a scope, which is a position: the root is -1;
// archive levels[i] is 2i, and the member of levels[i] being read is 2i+1.
// A smaller position encloses a larger one: an archive encloses its
// current member, which encloses the archives nested in it. The scope
// that owns a hit skips what it covers and goes on: a member scope with
// the archive's next member, an archive scope with its parent's.
const rootScope = -1

func archiveScope(i int) int { return 2 * i }
func memberScope(i int) int  { return 2*i + 1 }

// tripped is a budget hit waiting to be settled.
type tripped struct {
	at     int // scope
	budget Budget
	limit  int64
	err    *BudgetError // what readers return meanwhile
}

// level is one open archive.
type level struct {
	index    int       // position in walker.levels
	name     string    // full name, path joined with "!"
	path     []string  // this archive's nesting chain
	entries  int       // headers seen, skipped ones included
	acct     *account  // decoded bytes; shared by an Archive's parts
	shared   bool      // acct is an Archive's, read by other walkers too
	deadline time.Time // zero: no time budget
	zip      *zipDecoders
	ratio    *ratioReader // the meter of a compressed tar's stream, rebased per member
}

// account is what the walkers reading one archive share: the bytes it
// has decoded, and the archive-scope budget hit that stopped it, if any.
// A level of a single walker has one of its own.
type account struct {
	bytes atomic.Int64
	stop  atomic.Pointer[stopCause]
}

type stopCause struct {
	budget Budget
	limit  int64
}

func (w *walker) push(path []string) *level {
	l := &level{index: len(w.levels), name: strings.Join(path, "!"), path: path, acct: &account{}}
	if d := w.lim.MaxDuration; d < math.MaxInt64 {
		l.deadline = time.Now().Add(d)
	}
	w.levels = append(w.levels, l)
	return l
}

func (w *walker) pop(l *level) {
	if l.zip != nil {
		putZipDecoders(l.zip, w.lim.MaxWindow)
		l.zip = nil
	}
	w.levels[l.index] = nil
	w.levels = w.levels[:l.index]
}

// tripBudget records a budget hit on scope at and returns the error every
// reader now returns. An outer hit replaces an inner one: the outer
// scope's rest, inner included, is skipped anyway. A hit on the scope of
// an archive shared by several walkers stops them all.
func (w *walker) tripBudget(at int, b Budget, limit int64) error {
	if w.trip == nil || at < w.trip.at {
		name := ""
		switch {
		case at >= 0:
			name = w.levels[at/2].name
		case len(w.levels) > 0:
			name = w.levels[0].name
		}
		w.trip = &tripped{at: at, budget: b, limit: limit, err: &BudgetError{Archive: name, Budget: b, Limit: limit}}
		if at >= 0 && at%2 == 0 {
			if l := w.levels[at/2]; l.shared {
				l.acct.stop.CompareAndSwap(nil, &stopCause{budget: b, limit: limit})
			}
		}
	}
	return w.trip.err
}

// clearTrip settles the pending hit: it is returned and forgotten.
func (w *walker) clearTrip() *tripped {
	t := w.trip
	w.trip = nil
	return t
}

// stopped returns the error that stops all reading, if any.
func (w *walker) stopped() error {
	if w.fatal != nil {
		return w.fatal
	}
	if w.trip != nil {
		return w.trip.err
	}
	return nil
}

// check is stopped plus the clocks: ctx, each open archive's deadline, and
// the hits of other walkers on a shared archive. Loops call it on every
// entry; the cost is a time.Now and a few loads.
func (w *walker) check() error { return w.checkStops(true) }

// readCheck is check for the readers of a member's data, on every Read. A
// shared archive's byte budget spent by another walker is left to the
// member reader, which applies it exactly, by reading: a member whose last
// byte was delivered before the budget ran out is then read to its end
// (its CRC judged) rather than reported as cut, which it was not, and what
// a member is reported as does not depend on how the walkers interleave.
// Its next read past the end of the budget trips it, as in a walk of one.
func (w *walker) readCheck() error { return w.checkStops(false) }

// checkStops is check; without bytesSpent, it leaves out a shared
// archive's spent byte budget (see readCheck).
func (w *walker) checkStops(bytesSpent bool) error {
	if err := w.stopped(); err != nil {
		return err
	}
	if err := w.ctx.Err(); err != nil {
		w.fatal = err
		return err
	}
	if len(w.levels) > 0 {
		now := time.Now()
		for _, l := range w.levels {
			if l.shared {
				if c := l.acct.stop.Load(); c != nil && (bytesSpent || c.budget != BudgetArchiveBytes) {
					return w.tripBudget(archiveScope(l.index), c.budget, c.limit)
				}
			}
			if !l.deadline.IsZero() && now.After(l.deadline) {
				return w.tripBudget(archiveScope(l.index), BudgetDuration, int64(w.lim.MaxDuration))
			}
		}
	}
	return nil
}

// budget reports a budget hit that has been settled: a warning, or under
// FailOnBudget the end of the walk.
func (w *walker) budget(e *BudgetError) error {
	if w.lim.FailOnBudget {
		w.fatal = e
		return e
	}
	w.warn(e)
	return nil
}

// errWarned tells a level that its body stopped for a reason already
// reported, such as a broken stream a nested level has warned about.
var errWarned = errors.New("archive: already reported")

// settle turns what ended a streamed archive's body into what its parent
// sees: nil to go on with the parent's next member, or an error to unwind
// further. A hit on the archive's own scope skipped the rest of it.
func (w *walker) settle(l *level, err error) error {
	if w.fatal != nil {
		return w.fatal
	}
	if w.trip != nil {
		if w.trip.at < archiveScope(l.index) {
			return w.trip.err // an enclosing scope (or the root) is over budget
		}
		t := w.clearTrip()
		return w.budget(&BudgetError{Archive: l.name, Budget: t.budget, Limit: t.limit})
	}
	if err == nil || err == errWarned {
		return nil
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		fe = &FormatError{Name: l.name, Err: err, Lost: l.entries > 0}
	}
	w.warn(fe)
	return nil
}

// finish settles what is left when the outermost stream is done.
func (w *walker) finish(name string, err error) error {
	if w.fatal != nil {
		return w.fatal
	}
	if t := w.clearTrip(); t != nil { // only the root budget can be left unsettled
		return w.budget(&BudgetError{Archive: name, Budget: t.budget, Limit: t.limit})
	}
	if err == nil || err == errWarned {
		return nil
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		w.warn(fe)
		return nil
	}
	return err
}

// sourcePool holds the sources of finished walks: a scan opens thousands
// of small archives, and each would otherwise allocate its 32 KiB buffers
// anew.
var sourcePool = sync.Pool{New: func() any { return newSource() }}

// getSource returns a source reading r: one per stream, reused, so that an
// archive of 100,000 members does not allocate 100,000 buffers.
func (w *walker) getSource(r io.Reader) *source {
	var s *source
	if n := len(w.free); n > 0 {
		s, w.free = w.free[n-1], w.free[:n-1]
	} else {
		s = sourcePool.Get().(*source)
	}
	s.reset(r)
	return s
}

func (w *walker) putSource(s *source) {
	s.reset(nil)
	w.free = append(w.free, s)
}

// release hands the walk's sources back to the pool; the walk is over.
func (w *walker) release() {
	for _, s := range w.free {
		sourcePool.Put(s)
	}
	w.free = nil
}

// stream looks at one named byte stream at depth len(w.levels): it opens
// the stream as an archive if the magic says so and the depth budget
// allows, and hands it to visit otherwise. ra and size, when known, let a
// zip or 7z be read in place. mr is the member reader r reads through,
// nil for the walk's input.
//
// It returns nil to go on, mr's *FormatError when the member's data is
// broken, or the error that unwinds the walk.
func (w *walker) stream(path []string, r io.Reader, ra io.ReaderAt, size int64, mr *memberReader) error {
	br := w.getSource(r)
	defer w.putSource(br)
	// A short or failing stream still goes on: the bytes that were read are
	// worth scanning, and mr returns its error again after them.
	// Likewise a member cut short by a budget is still visited with what
	// the budget let through, and its reader then reports the hit.
	head, _ := br.Peek(HeadLen)
	if w.fatal != nil {
		return w.fatal
	}
	f := Detect(head)
	if f == None && ra != nil && len(w.levels) == 0 {
		f = detectTail(ra, size, head) // a self-extracting zip
	}
	if w.trip != nil && (f != None || len(head) == 0) {
		return w.trip.err
	}
	if f == None {
		return w.leaf(path, br, size, mr)
	}
	if len(w.levels) >= w.lim.MaxDepth {
		return w.budget(&BudgetError{Archive: strings.Join(path, "!"), Budget: BudgetDepth, Limit: int64(w.lim.MaxDepth)})
	}
	top := len(w.levels) == 0
	if top && size > 0 {
		w.root.in.Add(size)
	}
	if w.root.over() {
		if top {
			return w.budget(&BudgetError{Archive: path[0], Budget: BudgetRootBytes, Limit: w.lim.MaxRootBytes})
		}
		return w.tripBudget(rootScope, BudgetRootBytes, w.lim.MaxRootBytes)
	}
	if (f == Zip || f == SevenZip) && ra == nil {
		limit := int64(-1) // a nested one: its parent's member budget bounds the spool
		if top {
			limit = w.lim.MaxArchiveBytes
		}
		sp, err := w.spool(path, br, limit, mr)
		if sp != nil {
			defer sp.close()
		}
		if err != nil {
			return err
		}
		ra, size = sp.ra, sp.size
		if top && size > 0 {
			w.root.in.Add(size)
		}
	}
	return w.open(path, f, br, ra, size)
}

// open walks the archive of format f named by path, read from src (or, for
// a zip or 7z, from ra), as a new level.
func (w *walker) open(path []string, f Format, src *source, ra io.ReaderAt, size int64) error {
	l := w.push(path)
	defer w.pop(l)
	var err error
	switch f {
	case Zip:
		err = w.walkZip(l, ra, size)
	case SevenZip:
		err = w.walkSeven(l, ra, size)
	case Tar:
		err = w.walkTar(l, src)
	default:
		err = w.walkCompressed(l, f, src)
	}
	return w.settle(l, err)
}

// leaf hands one member to visit and sorts out what came back.
func (w *walker) leaf(path []string, r io.Reader, size int64, mr *memberReader) error {
	m := Member{Name: strings.Join(path, "!"), Path: path, Size: size, Depth: len(w.levels)}
	err := w.visit(m, r)
	if stop := w.stopped(); stop != nil {
		return stop
	}
	if mr != nil && mr.err != nil && (err == nil || errors.Is(err, mr.err)) {
		return mr.err
	}
	if err != nil {
		w.fatal = err
		return err
	}
	return nil
}

// child returns a fresh path for a member of l: visit may keep it.
func child(l *level, name string) []string {
	p := make([]string, len(l.path)+1)
	copy(p, l.path)
	p[len(l.path)] = name
	return p
}

// countEntry counts one header of l and reports whether it is past
// MaxEntries.
func (w *walker) countEntry(l *level) (over bool) {
	l.entries++
	return l.entries > w.lim.MaxEntries
}

// memberDone settles what the walk of one member of the zip or 7z level l
// left behind, and says whether to go on with l's next member. Every
// member a budget keeps from being read whole is named: a hit on the
// member's own scope (its bytes, its decoder's ratio or window), and one
// on l's scope or, at the top, the root's (every member after it is then
// named as skipped by memberSkipped). A hit on an enclosing scope
// unwinds.
func (w *walker) memberDone(l *level, name string) error {
	if w.fatal != nil {
		return w.fatal
	}
	t := w.trip
	if t == nil {
		return nil
	}
	switch {
	case t.at == memberScope(l.index):
		w.clearTrip()
	case t.at == archiveScope(l.index) || t.at == rootScope && l.index == 0:
	default:
		return t.err
	}
	return w.budget(&BudgetError{Archive: l.name, Member: name, Budget: t.budget, Limit: t.limit})
}

// memberSkipped reports whether a member of the zip or 7z level l about to
// be read is to be skipped for a hit already settled on l's scope (or the
// root's, at the top), and names it if so. It checks the clocks and the
// other walkers of a shared archive first.
func (w *walker) memberSkipped(l *level, name string) (bool, error) {
	if w.trip == nil {
		w.check()
	}
	if w.fatal != nil {
		return true, w.fatal
	}
	if w.trip == nil {
		return false, nil
	}
	return true, w.memberDone(l, name)
}

// levelDone is the end of a zip or 7z level's members: a hit on its own
// scope (or the root's, at the top) has been reported member by member,
// and is forgotten.
func (w *walker) levelDone(l *level) {
	if t := w.trip; t != nil && (t.at == archiveScope(l.index) || t.at == rootScope && l.index == 0) {
		w.clearTrip()
	}
}
