package scan

import (
	"bytes"
	"errors"
	"io"
)

// chunk is one buffer's worth of an object: the overlap carried from the
// previous chunk followed by newly read bytes, with what the scan needs to
// report the matches in it exactly once and at the right place.
//
// Geometry, in file offsets. Let W be the detector's window and C = 2W the
// overlap. Chunk k holds the file bytes [b_k, c_k), where c_k is the end of
// what was read and b_k = c_(k-1) - C (or 0). It reports a match iff the
// match ends in (o_k, o_(k+1)], where o_(k+1) = c_k - W, or the end of the
// file for the last chunk. In buffer offsets that is lo < End <= hi with
// lo = P - W (P: the overlap actually carried) and hi = n - W (or n).
//
// Every match is reported by exactly one chunk, since the intervals
// (o_k, o_(k+1)] tile the file, and it is reported as a whole-file scan
// would report it, since its owner holds at least W bytes on each side of
// it: up to c_k >= o_(k+1) + W after it, and back to b_k = o_k - W before
// it. So a match that ends in the first P-W bytes of the carried prefix is
// dropped (the previous chunk reported it), and one that ends in the last W
// bytes of a chunk that is not the last is left to the next chunk (it may
// continue past the end of what was read).
type chunk struct {
	buf    []byte // capacity: overlap + chunk size
	n      int    // valid bytes in buf
	lo, hi int    // report matches with lo < End <= hi
	line   int    // 1-based line number of buf[0]
	col    int    // 0-based column of buf[0] (bytes since the last newline)
	pooled bool   // from the bufferPool (else a worker's own buffer)
}

// stream is the reading state of an object between chunks: where the next
// chunk starts and the overlap it carries. It is owned by whichever task
// reads the object's next chunk: Fetch tasks of one object run one after
// another (each spawns the next), so it needs no lock.
type stream struct {
	off   int64  // bytes read so far
	carry []byte // the last overlap bytes of the previous chunk
	line  int    // line number of carry[0] (or of byte 0 before any chunk)
	col   int    // column of carry[0]
}

// geometry is the part of the engine's settings that chunking needs.
type geometry struct {
	window    int // W
	overlap   int // C = 2W
	chunkSize int // new bytes per chunk
}

// plan says how many new bytes the next chunk of an object should read,
// and whether reading them reaches the end: known when the object's size
// (negative if unknown) says the rest fits in one chunk.
func (g geometry) plan(size, off int64) (want int, known bool) {
	if size < 0 || size-off > int64(g.chunkSize) {
		return g.chunkSize, false
	}
	return int(max(size-off, 0)), true
}

// next reads the next chunk of an object of the given size (negative if
// unknown) from r into c; see fill.
func (g geometry) next(c *chunk, st *stream, r io.Reader, size int64) (last bool, n int, err error) {
	want, known := g.plan(size, st.off)
	if !known && st.carry == nil {
		st.carry = newCarry(g.overlap)
	}
	return g.fill(c, st, r, want, known)
}

// fill reads the next chunk of st from r into c. want is how many new bytes
// to read (at most chunkSize; fewer when the object's size says the end is
// near), and known says whether reaching want bytes means the end of the
// object. It returns whether this chunk is the object's last and the
// number of new bytes read; a read error is returned along with whatever
// was read, and the chunk is then treated as the last.
func (g geometry) fill(c *chunk, st *stream, r io.Reader, want int, known bool) (last bool, n int, err error) {
	p := copy(c.buf, st.carry)
	if want > 0 {
		n, err = readFull(r, c.buf[p:p+want])
	}
	eof := errors.Is(err, io.EOF)
	if eof {
		err = nil
	}
	last = eof || err != nil || (known && n == want)
	c.n = p + n
	c.line, c.col = st.line, st.col
	c.lo = p - g.window
	c.hi = c.n
	if !last {
		c.hi = c.n - g.window
	}
	st.off += int64(n)
	if !last {
		st.advance(c, g.overlap)
	}
	return last, n, err
}

// advance saves the tail of c as the carry for the next chunk, and the line
// and column where that tail starts.
func (st *stream) advance(c *chunk, overlap int) {
	keep := min(overlap, c.n)
	q := c.n - keep
	head := c.buf[:q]
	if nl := bytes.Count(head, newline); nl > 0 {
		st.line = c.line + nl
		st.col = q - (bytes.LastIndexByte(head, '\n') + 1)
	} else {
		st.line = c.line
		st.col = c.col + q
	}
	st.carry = append(st.carry[:0], c.buf[q:c.n]...)
}

var newline = []byte{'\n'}

// maxEmptyReads is how many reads in a row may return nothing and no error
// (which io.Reader discourages but allows) before readFull gives up, as
// bufio does.
const maxEmptyReads = 100

// readFull reads until b is full or the reader ends. Unlike io.ReadFull it
// reports a short read at the end as io.EOF, not io.ErrUnexpectedEOF.
func readFull(r io.Reader, b []byte) (int, error) {
	n, empty := 0, 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m > 0 {
			empty = 0
			continue
		}
		empty++
		if empty >= maxEmptyReads {
			return n, io.ErrNoProgress
		}
	}
	return n, nil
}
