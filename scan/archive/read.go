package archive

import (
	"bufio"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"strings"
)

// The readers below are stacked per member, innermost first:
//
//	archive bytes → source → decoder → ratioReader → [tar] → memberReader → source → visit
//
// (a zip or 7z member adds a crcReader above the ratio meter).
//
// source buffers and counts the compressed bytes a decoder consumes,
// ratioReader compares them with what the decoder produces, and
// memberReader applies the byte budgets, the clocks and ctx, and turns data
// errors into *FormatError values that name the member.

// source is the buffered input of a stream or of a decoder. Decoders read
// the *bufio.Reader itself: klauspost's inflater has a fast path for that
// exact type, and behind any wrapper it runs at half speed. The meter under
// the buffer counts what the buffer pulls from below, so the bytes the
// reader above has consumed are that count less what is still buffered.
type source struct {
	*bufio.Reader
	m meter
}

type meter struct {
	r io.Reader
	n int64
}

func (m *meter) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.n += int64(n)
	return n, err
}

func newSource() *source {
	s := &source{}
	s.Reader = bufio.NewReaderSize(&s.m, bufSize)
	return s
}

// reset makes s read r from its start.
func (s *source) reset(r io.Reader) {
	s.m = meter{r: r}
	s.Reader.Reset(&s.m)
}

// consumed returns how many bytes of r the reader of s has taken.
func (s *source) consumed() int64 { return s.m.n - int64(s.Buffered()) }

// ratioReader meters one decoder: past RatioFloor bytes out, more than
// MaxRatio bytes out per compressed byte in is a bomb, and the scope the
// decoder belongs to is over budget. For a zip member, that is the member:
// the next one is read. For a stream holding a single file, the stream.
// For a stream of several members (a compressed tar, a solid 7z folder),
// the member being read: the meter is rebased at each member, so the
// ratio judged is that member's own, and it is paused while the rest of a
// skipped member is discarded (MaxArchiveBytes and the clock still
// bound that), so that a zero-filled member does not cost the members
// after it. It also turns a decoder's refusal of an oversized window into
// the window budget of that scope.
//
// Its errors are sticky: once the decoder has failed, or ended, so has the
// stream. A decoder asked again after an error may carry on as if nothing
// happened (zstd does, past a truncated checksum), and a bufio.Reader's
// Peek swallows the error it hits, so the next Read must see it again.
type ratioReader struct {
	w      *walker
	scope  int
	r      io.Reader // the decoder
	in     *source   // the decoder's input
	out    int64
	out0   int64 // output and input at the last rebase
	in0    int64
	paused bool // not judging: the rest of a skipped member is being discarded
	// byMember leaves the judging to the member readers above (see
	// memberReader): archive/tar keeps the first error its input returns
	// for good, so the stream under a tar must never fail for a budget
	// that covers one member only.
	byMember bool
	err      error
}

// ratioStep caps what one read may ask of a decoder: the ratio is judged
// between reads, so a caller reading into a large buffer (io.ReadAll grows
// its own to megabytes) would otherwise get that much of a bomb first.
const ratioStep = 256 << 10

// rebase starts judging the ratio afresh from here: a new member.
func (rr *ratioReader) rebase() { rr.out0, rr.in0 = rr.out, rr.in.consumed() }

// over reports whether the output since the last rebase is past the floor
// and the ratio.
func (rr *ratioReader) over() bool {
	lim := rr.w.lim
	out := rr.out - rr.out0
	return !rr.paused && out > lim.RatioFloor && float64(out) > lim.MaxRatio*float64(rr.in.consumed()-rr.in0)
}

func (rr *ratioReader) Read(p []byte) (int, error) {
	if err := rr.w.readCheck(); err != nil {
		return 0, err
	}
	if rr.err != nil {
		return 0, rr.err
	}
	if len(p) > ratioStep {
		p = p[:ratioStep]
	}
	n, err := rr.r.Read(p)
	rr.err = err
	rr.out += int64(n)
	lim := rr.w.lim
	if !rr.byMember && rr.over() {
		return n, rr.w.tripBudget(rr.scope, BudgetRatio, int64(lim.MaxRatio))
	}
	if err != nil && err != io.EOF {
		if stop := rr.w.stopped(); stop != nil {
			return n, stop
		}
		if isWindowError(err) {
			return n, rr.w.tripBudget(rr.scope, BudgetWindow, lim.MaxWindow)
		}
	}
	return n, err
}

// memberReader is what a member's content is read through, by visit, by a
// nested archive's parser or by the spool. It applies the budgets on
// decoded bytes: MaxMemberBytes and MaxArchiveBytes exactly (a read is cut
// so that no byte past a limit is delivered, however many walkers share
// the archive), MaxRootBytes as the shared counter allows (it may
// overshoot by one read per concurrent walk).
//
// A discarding reader skips the rest of a member of a stream: its bytes
// count against the archive and the root, not the member.
type memberReader struct {
	w       *walker
	l       *level
	r       io.Reader
	path    []string
	n       int64        // bytes delivered
	err     *FormatError // the first data error; returned from then on
	discard bool
}

func (w *walker) member(l *level, path []string, r io.Reader) *memberReader {
	return &memberReader{w: w, l: l, r: r, path: path}
}

func (m *memberReader) Read(p []byte) (int, error) {
	w := m.w
	if err := w.readCheck(); err != nil {
		return 0, err
	}
	if m.err != nil {
		return 0, m.err
	}
	lim := w.lim
	room := max(0, lim.MaxArchiveBytes-m.l.acct.bytes.Load())
	if !m.discard {
		room = min(room, lim.MaxMemberBytes-m.n)
	}
	if room < math.MaxInt64 && int64(len(p)) > room+1 {
		p = p[:room+1] // one byte past the room tells "more" from "exactly full"
	}
	n, err := m.r.Read(p)
	var over error
	if !m.discard && m.n+int64(n) > lim.MaxMemberBytes {
		n = int(lim.MaxMemberBytes - m.n)
		over = w.tripBudget(memberScope(m.l.index), BudgetMemberBytes, lim.MaxMemberBytes)
	}
	// The bytes count against the member's archive and every archive
	// enclosing it: an archive's budget covers what is decoded inside it
	// at any depth, so nesting cannot multiply it.
	for j := m.l.index; j >= 0; j-- {
		if after := w.levels[j].acct.bytes.Add(int64(n)); after > lim.MaxArchiveBytes {
			if allowed := max(0, lim.MaxArchiveBytes-(after-int64(n))); int64(n) > allowed {
				n = int(allowed)
				over = w.tripBudget(archiveScope(j), BudgetArchiveBytes, lim.MaxArchiveBytes)
			}
		}
	}
	m.n += int64(n)
	if rr := m.l.ratio; rr != nil && !m.discard && rr.over() {
		over = w.tripBudget(memberScope(m.l.index), BudgetRatio, int64(lim.MaxRatio))
	}
	if w.root.used.Add(int64(n)) > lim.MaxRootBytes && w.root.over() {
		over = w.tripBudget(rootScope, BudgetRootBytes, lim.MaxRootBytes)
	}
	if over != nil {
		return n, over
	}
	if err != nil && err != io.EOF {
		if stop := w.stopped(); stop != nil {
			return n, stop
		}
		m.err = &FormatError{Name: strings.Join(m.path, "!"), Err: err, Lost: true}
		return n, m.err
	}
	return n, err
}

// crcReader checks a zip member's CRC-32 once its data has been read to
// the end; a member read only in part is not checked.
type crcReader struct {
	r    io.Reader
	crc  uint32
	want uint32
}

// errChecksum is a zip member whose content does not match its CRC-32.
var errChecksum = errors.New("checksum mismatch: corrupt data")

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	if err == io.EOF && c.crc != c.want {
		return n, errChecksum
	}
	return n, err
}
