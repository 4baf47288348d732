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

// ratioReader meters one decoder: past ratioGrace bytes out, more than
// MaxRatio bytes out per compressed byte in is a bomb, and the archive the
// decoder belongs to is over budget. It also turns a decoder's refusal of
// an oversized window into the window budget.
//
// Its errors are sticky: once the decoder has failed, or ended, so has the
// stream. A decoder asked again after an error may carry on as if nothing
// happened (zstd does, past a truncated checksum), and a bufio.Reader's
// Peek swallows the error it hits, so the next Read must see it again.
type ratioReader struct {
	w   *walker
	l   *level
	r   io.Reader // the decoder
	in  *source   // the decoder's input
	out int64
	err error
}

func (rr *ratioReader) Read(p []byte) (int, error) {
	if err := rr.w.check(); err != nil {
		return 0, err
	}
	if rr.err != nil {
		return 0, rr.err
	}
	n, err := rr.r.Read(p)
	rr.err = err
	rr.out += int64(n)
	if rr.out > ratioGrace && float64(rr.out) > rr.w.lim.MaxRatio*float64(rr.in.consumed()) {
		return n, rr.w.tripBudget(rr.l.index, BudgetRatio, int64(rr.w.lim.MaxRatio))
	}
	if err != nil && err != io.EOF {
		if stop := rr.w.stopped(); stop != nil {
			return n, stop
		}
		if isWindowError(err) {
			return n, rr.w.tripBudget(rr.l.index, BudgetWindow, rr.w.lim.MaxWindow)
		}
	}
	return n, err
}

// memberReader is what a member's content is read through, by visit, by a
// nested archive's parser or by the spool. It applies the budgets on
// decoded bytes: MaxMemberBytes and MaxArchiveBytes exactly (a read is cut
// so that no byte past a limit is delivered), MaxRootBytes as the shared
// counter allows (it may overshoot by one read per concurrent walk).
type memberReader struct {
	w    *walker
	l    *level
	r    io.Reader
	path []string
	n    int64        // bytes delivered
	err  *FormatError // the first data error; returned from then on
}

func (w *walker) member(l *level, path []string, r io.Reader) *memberReader {
	return &memberReader{w: w, l: l, r: r, path: path}
}

func (m *memberReader) Read(p []byte) (int, error) {
	w := m.w
	if err := w.check(); err != nil {
		return 0, err
	}
	if m.err != nil {
		return 0, m.err
	}
	room := min(w.lim.MaxMemberBytes-m.n, w.lim.MaxArchiveBytes-m.l.bytes)
	if room < math.MaxInt64 && int64(len(p)) > room+1 {
		p = p[:room+1] // one byte past the room tells "more" from "exactly full"
	}
	n, err := m.r.Read(p)
	var over error
	if int64(n) > room {
		n = int(room)
		if m.n+int64(n) >= w.lim.MaxMemberBytes {
			over = w.tripBudget(m.l.index, BudgetMemberBytes, w.lim.MaxMemberBytes)
		} else {
			over = w.tripBudget(m.l.index, BudgetArchiveBytes, w.lim.MaxArchiveBytes)
		}
	}
	m.n += int64(n)
	m.l.bytes += int64(n)
	if w.root.used.Add(int64(n)) > w.lim.MaxRootBytes {
		over = w.tripBudget(-1, BudgetRootBytes, w.lim.MaxRootBytes)
	}
	if over != nil {
		return n, over
	}
	if err != nil && err != io.EOF {
		if stop := w.stopped(); stop != nil {
			return n, stop
		}
		m.err = &FormatError{Name: strings.Join(m.path, "!"), Err: err}
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
