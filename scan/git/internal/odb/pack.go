package odb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// Pack data is read with pread (os.File.ReadAt), not mapped. A mapped
// pack's pages count in the process's resident set as they are touched,
// so one pass over a 2 GiB pack would show 2 GiB of RSS; with pread they
// stay in the page cache, and the memory bound of a scan is the cache
// budget plus what the workers hold. pread is safe from many goroutines
// on one file. The pack's .idx is mapped instead (mapping.go): lookups
// touch a few of its pages.

// bigEntry is the compressed size above which an entry is inflated from a
// buffered section reader instead of being read into one buffer first.
const bigEntry = 1 << 20

// firstRead is how much of an entry the first pread takes when its end is
// not known: enough for the header and the data of most entries (the
// entries of a source repository's pack average well under 1 KiB).
const firstRead = 4 << 10

// pack is one .pack file and its index. Safe for concurrent use.
type Pack struct {
	db   *DB
	num  uint32 // position in DB.packs, part of the cache key
	path string // the .pack file
	f    *os.File
	end  int64 // where entries end: the file size less the trailer
	idx  *index

	unmapIdx func() error
	broken   error // non-nil: the pack file is unusable; reads report it

	revPath string
	revOnce sync.Once
	rev     atomic.Pointer[reverseIndex] // set once by reverse
	revErr  error

	// bases marks, by index position, the entries that are the base of
	// some delta in this pack. It is nil until Entries has listed the
	// pack once; from then on a read of a base keeps it in the cache.
	bases atomic.Pointer[[]uint64]
}

// openPack opens the pack whose index is idxPath. A bad index is an error
// (the pack's objects are then unknown); a bad or short pack file is not:
// the pack is kept, marked broken, so that reads of its objects report
// the damage by id.
func openPack(idxPath string, num uint32) (*Pack, error) {
	base := strings.TrimSuffix(idxPath, ".idx")
	p := &Pack{num: num, path: base + ".pack", revPath: base + ".rev"}
	xf, err := os.Open(idxPath)
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
	if p.idx, err = parseIndex(data); err != nil {
		_ = unmap()
		return nil, fmt.Errorf("%s: %w", idxPath, err)
	}
	p.unmapIdx = unmap

	if p.f, err = os.Open(p.path); err != nil {
		p.broken = err
		return p, nil
	}
	if st, err = p.f.Stat(); err != nil {
		p.broken = err
		return p, nil
	}
	p.end = st.Size() - IDSize
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

func (p *Pack) close() error {
	var err error
	if p.f != nil {
		err = p.f.Close()
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
		if data, err := os.ReadFile(p.revPath); err == nil {
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

// known returns the reverse index if it has been built, without building
// it.
func (p *Pack) known() *reverseIndex { return p.rev.Load() }

// isBase reports whether the entry at index position pos is known to be a
// delta base.
func (p *Pack) isBase(pos int) bool {
	b := p.bases.Load()
	return b != nil && (*b)[pos>>6]&(1<<(pos&63)) != 0
}

// readAt fills buf from the pack at off; a short read at the end of the
// file is io.ErrUnexpectedEOF.
func (p *Pack) readAt(buf []byte, off int64) error {
	if _, err := p.f.ReadAt(buf, off); err != nil {
		return noEOF(err)
	}
	return nil
}

// window reads at least the header of the entry at off, and as much more
// as firstRead allows, into s.win, and decodes the header.
func (p *Pack) window(s *scratch, off int64, n int64) (entryHeader, error) {
	if p.broken != nil {
		return entryHeader{}, p.broken
	}
	if off < packHeaderLen || off >= p.end {
		return entryHeader{}, fmt.Errorf("entry offset %d outside the pack's %d bytes of entries", off, p.end)
	}
	n = min(n, p.end-off)
	s.win = grow(s.win, int(n))
	if err := p.readAt(s.win, off); err != nil {
		return entryHeader{}, err
	}
	s.winOff = off
	h, err := parseEntryHeader(s.win, off)
	if err == errShortHeader && n < maxEntryHeader && off+n == p.end {
		err = fmt.Errorf("%w: pack ends inside the header", errShortHeader)
	}
	return h, err
}

// header decodes the header of the entry at off, reading as little as it
// can: a delta chain is walked header by header before any data is
// inflated.
func (p *Pack) header(s *scratch, off int64) (entryHeader, error) {
	return p.window(s, off, maxEntryHeader)
}

// inflate inflates the data of the entry at off, whose header is h, into
// dst. It reuses s.win when the bytes are there already.
func (p *Pack) inflate(s *scratch, off int64, h entryHeader, dst []byte) ([]byte, error) {
	start := off + int64(h.hdrLen)
	if h.size > 1032*(p.end-start)+64 {
		// Deflate cannot expand more than 1032:1; this header lies.
		return dst[:0], fmt.Errorf("%w: size %d cannot come from the %d bytes left", errEntryHeader, h.size, p.end-start)
	}
	limit, exact := p.end, false
	if r := p.known(); r != nil {
		if rank, ok := r.rank(off); ok {
			limit, exact = r.end(rank, p.end+IDSize), true
		}
	}
	if !exact {
		limit = min(limit, start+zlibBound(h.size))
	}
	if limit-start > bigEntry {
		return p.inflateStream(s, start, h, dst)
	}
	var src []byte
	if s.winOff == off && int64(len(s.win)) >= limit-off {
		src = s.win[h.hdrLen : limit-off]
	} else {
		s.win = grow(s.win, int(limit-start))
		if err := p.readAt(s.win, start); err != nil {
			return dst[:0], err
		}
		s.winOff = -1
		src = s.win
	}
	out, err := s.inf.inflateBytes(src, h.size, dst)
	if err == io.ErrUnexpectedEOF && limit < p.end {
		// The stream is longer than the bound; read on to the end.
		return p.inflateStream(s, start, h, dst)
	}
	return out, err
}

// inflateStream inflates an entry's data through a buffered reader over
// the rest of the pack: for large entries, and for streams longer than
// their bound.
func (p *Pack) inflateStream(s *scratch, start int64, h entryHeader, dst []byte) ([]byte, error) {
	return s.inf.inflateReader(io.NewSectionReader(p.f, start, p.end-start), h.size, dst)
}

// grow returns b resized to n bytes, reallocated only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, max(n, 2*cap(b)))
	}
	return b[:n]
}
