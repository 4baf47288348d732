package odb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// Pack data is read from a read-only mapping of the pack while the DB
// has mapped less than Options.MapBytes (64 MiB by default), and with
// pread (os.File.ReadAt) beyond that. A mapped pack's pages count in the
// process's resident set as they are touched, so one pass over a 2 GiB
// pack would show 2 GiB of RSS; with pread they stay in the page cache,
// and the memory bound of a scan is the cache budget plus what the
// workers hold. But each pread is a system call, and a history scan
// reads an entry of a pack for every object and every delta it resolves:
// trufflehog's history (a 53 MB pack) made about 400,000 of them, 5% of
// its CPU in the calls alone; mapped, its scan took 11% less CPU (9.0 →
// 8.0 s) for 48 MiB more RSS. So small packs, where most histories live,
// are mapped, and the bound on RSS grows by MapBytes at most. A mapped
// pack's file shrinking under the mapping would make a read fault:
// readAt turns that fault into an error (see readMapped). The pack's
// .idx is always mapped (mapping.go): lookups touch a few of its pages.

// bigEntry is the stored size above which an entry is inflated from a
// buffered section reader instead of being read into one buffer first.
const bigEntry = 1 << 20

// Pack is one .pack file and its index. Safe for
// concurrent use.
type Pack struct {
	db   *DB
	num  uint32 // position in DB.packs, part of the cache key
	path string // the .pack file
	f    *os.File
	end  int64 // where entries end: the file size less the trailer
	idx  *index

	unmapIdx func() error
	// data is the pack's mapping, nil if it is not mapped (mapData).
	data      []byte
	unmapData func() error
	size      int64 // the file's size when it was opened
	broken    error // non-nil: the pack file is unusable; reads report it

	revPath string
	revOnce sync.Once
	rev     atomic.Pointer[reverseIndex] // set once by reverse
	revErr  error

	// bases marks, by index position, the entries that are the base of
	// some delta in this pack. It is nil until the pack's entries are
	// listed in offset order (Entries, entries_test.go); from then on a
	// read of a base keeps it in the cache.
	bases atomic.Pointer[[]uint64]
}

// openPack opens the pack whose index is idxPath. A bad index is an error
// (the pack's objects are then unknown); a bad or short pack file is not:
// the pack is kept, marked broken, so that reads of its objects report
// the damage by id.
func openPack(idxPath string, num uint32, hs int) (*Pack, error) {
	base := strings.TrimSuffix(idxPath, ".idx")
	p := &Pack{num: num, path: base + ".pack", revPath: base + ".rev"}
	xf, err := smallfile.Open(idxPath)
	if err != nil {
		return nil, err
	}
	defer xf.Close()
	st, err := xf.Stat()
	if err != nil {
		return nil, err
	}
	data, unmap, err := mapFile(xf, st.Size())
	if err != nil {
		return nil, err
	}
	if p.idx, err = parseIndex(data, hs); err != nil {
		_ = unmap()
		return nil, fmt.Errorf("%s: %w", idxPath, err)
	}
	p.unmapIdx = unmap

	if p.f, err = smallfile.Open(p.path); err != nil {
		p.broken = err
		return p, nil
	}
	if st, err = p.f.Stat(); err != nil {
		p.broken = err
		return p, nil
	}
	p.size = st.Size()
	p.end = st.Size() - int64(p.idx.hs)
	var hdr [packHeaderLen]byte
	if _, err := p.f.ReadAt(hdr[:], 0); err != nil {
		p.broken = fmt.Errorf("pack header: %w", noEOF(err))
	} else if string(hdr[:4]) != "PACK" {
		p.broken = errors.New("pack header: no PACK signature")
	} else if v := binary.BigEndian.Uint32(hdr[4:]); v != 2 && v != 3 {
		p.broken = fmt.Errorf("pack header: version %d", v)
	} else if n := binary.BigEndian.Uint32(hdr[8:]); int64(n) != int64(p.idx.n) {
		p.broken = fmt.Errorf("pack holds %d objects, its index %d", n, p.idx.n)
	}
	return p, nil
}

// mapData maps the pack's file, if mapping is available here.
func (p *Pack) mapData() error {
	data, unmap, err := mapPack(p.f, p.size)
	if err != nil {
		return err
	}
	p.data, p.unmapData = data, unmap
	return nil
}

func (p *Pack) close() error {
	var err error
	if p.f != nil {
		err = p.f.Close()
	}
	if p.unmapData != nil {
		if e := p.unmapData(); err == nil {
			err = e
		}
	}
	if p.unmapIdx != nil {
		if e := p.unmapIdx(); err == nil {
			err = e
		}
	}
	return err
}

// reverse returns the pack's reverse index, from its .rev file if git
// wrote one, else built by sorting (once).
func (p *Pack) reverse() (*reverseIndex, error) {
	p.revOnce.Do(func() {
		// A .rev file holds 4 bytes an object, a header and a trailer.
		if data, err := smallfile.Read(p.revPath, int64(p.idx.n)*4+1024); err == nil {
			if r, err := parseReverse(data, p.idx); err == nil {
				p.rev.Store(r)
				return
			}
		}
		r, err := buildReverse(p.idx)
		if err != nil {
			p.revErr = fmt.Errorf("%s: %w", p.path, err)
			return
		}
		p.rev.Store(r)
	})
	return p.rev.Load(), p.revErr
}

// isBase reports whether the entry at index position pos is known to be a
// delta base.
func (p *Pack) isBase(pos int) bool {
	b := p.bases.Load()
	return b != nil && (*b)[pos>>6]&(1<<(pos&63)) != 0
}

// readAt fills buf from the pack at off; a short read at the end of the
// file is io.ErrUnexpectedEOF.
func (p *Pack) readAt(buf []byte, off int64) error {
	if p.data != nil {
		return p.readMapped(buf, off)
	}
	if _, err := p.f.ReadAt(buf, off); err != nil {
		return noEOF(err)
	}
	return nil
}

// readMapped is readAt from the pack's mapping. Should the file have
// shrunk since it was mapped (something rewrote it in place, which git
// never does), the pages past its new end fault: the fault is made a
// panic for this goroutine and recovered as an error, so the read fails
// as a short pread would.
func (p *Pack) readMapped(buf []byte, off int64) (err error) {
	if off < 0 || off > int64(len(p.data))-int64(len(buf)) {
		return io.ErrUnexpectedEOF
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s changed under its mapping (%v)", io.ErrUnexpectedEOF, p.path, r)
		}
	}()
	copy(buf, p.data[off:])
	return nil
}

var errCRC = errors.New("entry does not match the CRC-32 in the pack index")

// stored is one pack entry as read: where it lies, its header, and its
// bytes when they are held.
type stored struct {
	off, end int64 // the entry is the pack's bytes [off, end)
	pos      int   // its position in the index
	h        entryHeader
	// raw is the whole entry, checked against the index's CRC-32, or nil
	// when the entry was too large to hold; it is then streamed (and
	// checked as it streams).
	raw []byte
}

// load reads the entry at off, appending it to buf when it is at most
// maxHold bytes (else reading only its header), and returns the grown
// buf. Every offset must be an entry's start: the reverse index gives the
// entry's end, so one pread reads the entry exactly.
func (p *Pack) load(off int64, buf []byte, maxHold int64) (stored, []byte, error) {
	e := stored{off: off}
	if p.broken != nil {
		return e, buf, p.broken
	}
	rev, err := p.reverse()
	if err != nil {
		return e, buf, err
	}
	rank, ok := rev.rank(off)
	if !ok {
		return e, buf, fmt.Errorf("no entry starts at offset %d", off)
	}
	e.pos, e.end = int(rev.order[rank]), rev.end(rank, p.end)
	if off >= p.end || e.end > p.end {
		return e, buf, fmt.Errorf("entry at offset %d runs past the pack's %d bytes of entries", off, p.end)
	}
	n := e.end - off
	if n <= maxHold {
		at := len(buf)
		buf = extend(buf, at+int(n))
		e.raw = buf[at : at+int(n) : at+int(n)]
		if err := p.readAt(e.raw, off); err != nil {
			return e, buf[:at], err
		}
		if want, ok := p.idx.crc(e.pos); ok && crc32.ChecksumIEEE(e.raw) != want {
			return e, buf[:at], errCRC
		}
		e.h, err = parseEntryHeader(e.raw, off, p.idx.hs)
		return e, buf, err
	}
	var hdr [maxEntryHeader]byte
	if err := p.readAt(hdr[:min(n, maxEntryHeader)], off); err != nil {
		return e, buf, err
	}
	e.h, err = parseEntryHeader(hdr[:min(n, maxEntryHeader)], off, p.idx.hs)
	return e, buf, err
}

// inflate inflates the data of the entry e into dst.
func (p *Pack) inflate(s *scratch, e *stored, dst []byte) ([]byte, error) {
	if e.h.size > 1032*(e.end-e.off)+64 || e.h.size > maxInt {
		// Deflate cannot expand more than 1032:1; this header lies.
		return dst[:0], fmt.Errorf("%w: size %d cannot come from a %d-byte entry", errEntryHeader, e.h.size, e.end-e.off)
	}
	if e.raw != nil {
		return s.inf.inflateBytes(e.raw[e.h.hdrLen:], e.h.size, dst)
	}
	return p.inflateStream(s, e, dst)
}

// inflateStream inflates a large entry's data through a buffered reader,
// computing its CRC-32 on the way.
func (p *Pack) inflateStream(s *scratch, e *stored, dst []byte) ([]byte, error) {
	cr := &crcReader{r: io.NewSectionReader(p.f, e.off, e.end-e.off)}
	var hdr [maxEntryHeader]byte
	if _, err := io.ReadFull(cr, hdr[:e.h.hdrLen]); err != nil {
		return dst[:0], noEOF(err)
	}
	out, err := s.inf.inflateReader(cr, e.h.size, dst)
	if err != nil {
		return out, err
	}
	if want, ok := p.idx.crc(e.pos); ok {
		// The deflate decoder stops at the end of its stream; the zlib
		// trailer and anything the buffer did not take are still to hash.
		if _, err := io.Copy(io.Discard, s.inf.bf); err != nil {
			return dst[:0], err
		}
		if cr.sum != want {
			return dst[:0], errCRC
		}
	}
	return out, nil
}

// crcReader computes the CRC-32 of what is read through it.
type crcReader struct {
	r   io.Reader
	sum uint32
}

func (c *crcReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.sum = crc32.Update(c.sum, crc32.IEEETable, b[:n])
	return n, err
}

// grow returns b resized to n bytes, reallocated only when too small; its
// bytes are not kept.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// extend returns b resized to n bytes, keeping its bytes, with room to
// grow again.
func extend(b []byte, n int) []byte {
	if cap(b) < n {
		nb := make([]byte, n, max(n, 2*cap(b)))
		copy(nb, b)
		return nb
	}
	return b[:n]
}
