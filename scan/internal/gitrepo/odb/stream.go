package odb

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// streamAbove is the size from which Reader streams an object instead of
// reading it whole into memory.
const streamAbove = 1 << 20

// Reader reads one object's content as a stream. Objects stored whole
// (the large blobs that git's core.bigFileThreshold keeps out of deltas,
// and loose objects) are inflated as they are read, in bounded memory
// whatever their size; a delta is rebuilt in memory first, since applying
// it needs random access to its base. Not safe for concurrent use.
type Reader struct {
	typ    Type
	size   int64
	left   int64
	r      io.Reader
	id     ID
	where  string
	off    int64
	done   func()
	closer io.Closer
	err    error

	// A packed object's stream is checked against the index's CRC-32
	// once it has been read to its end.
	crc     *crcReader
	buf     *bufio.Reader
	wantCRC uint32
	hasCRC  bool
}

// Reader opens id for reading in chunks. The caller must Close it.
func (db *DB) Reader(id ID) (*Reader, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	if p, pos, ok := db.find(&id); ok {
		off := p.idx.offset(pos)
		s := db.getScratch()
		e, _, err := p.load(off, nil, 0)
		if err == nil && e.h.typ < ofsDelta && e.h.size > streamAbove {
			rd := &Reader{typ: e.h.typ, size: e.h.size, left: e.h.size, id: id, where: p.path, off: off,
				done: func() { db.putScratch(s) }}
			rd.crc = &crcReader{r: io.NewSectionReader(p.f, off, e.end-off)}
			rd.wantCRC, rd.hasCRC = p.idx.crc(e.pos)
			var hdr [maxEntryHeader]byte
			if _, err = io.ReadFull(rd.crc, hdr[:e.h.hdrLen]); err == nil {
				if err = rd.startZlib(s.inf, rd.crc); err == nil {
					return rd, nil
				}
			}
			rd.done()
			return nil, &CorruptError{ID: id, Path: p.path, Offset: off, Err: err}
		}
		db.putScratch(s)
		if err != nil {
			return nil, &CorruptError{ID: id, Path: p.path, Offset: off, Err: err}
		}
		return db.readerInMemory(id)
	}
	// A loose object is streamed when its declared size is large, however
	// small its file: a 150 MB log of repeated lines compresses to a
	// few hundred kilobytes.
	s := db.getScratch()
	_, size, err := db.headerLoose(s, id)
	db.putScratch(s)
	if err != nil {
		return nil, err
	}
	if size <= streamAbove {
		return db.readerInMemory(id)
	}
	f, err := db.openLoose(id)
	if err != nil {
		return nil, err
	}
	return db.looseReader(id, f)
}

// readerInMemory reads the object whole and serves it from memory.
func (db *DB) readerInMemory(id ID) (*Reader, error) {
	t, data, err := db.Read(id, nil)
	if err != nil {
		return nil, err
	}
	return &Reader{typ: t, size: int64(len(data)), left: int64(len(data)), r: bytes.NewReader(data), id: id}, nil
}

// looseReader streams a large loose object from its open file.
func (db *DB) looseReader(id ID, f *os.File) (*Reader, error) {
	s := db.getScratch()
	rd := &Reader{id: id, where: f.Name(), off: -1, closer: f, done: func() { db.putScratch(s) }}
	fail := func(err error) (*Reader, error) {
		rd.Close()
		return nil, &CorruptError{ID: id, Path: f.Name(), Offset: -1, Err: err}
	}
	if err := rd.startZlib(s.inf, f); err != nil {
		return fail(err)
	}
	// The header: bytes up to the NUL.
	var hb [maxLooseHeader]byte
	n := 0
	for ; n < len(hb); n++ {
		if _, err := io.ReadFull(rd.r, hb[n:n+1]); err != nil {
			return fail(noEOF(err))
		}
		if hb[n] == 0 {
			break
		}
	}
	t, size, _, err := parseLooseHeader(hb[:min(n+1, len(hb))])
	if err != nil {
		return fail(err)
	}
	rd.typ, rd.size, rd.left = t, size, size
	return rd, nil
}

// startZlib checks the zlib header read from src and points the reader's
// decompressor (the scratch's, held until Close) at the deflate data.
func (rd *Reader) startZlib(z *inflater, src io.Reader) error {
	br := bufio.NewReaderSize(src, 64<<10)
	rd.buf = br
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return noEOF(err)
	}
	if err := zlibHeader(hdr[:]); err != nil {
		return err
	}
	if err := z.fr.Reset(br, nil); err != nil {
		return err
	}
	rd.r = z.rc
	return nil
}

// Type returns the object's type.
func (rd *Reader) Type() Type { return rd.typ }

// Size returns the object's size in bytes.
func (rd *Reader) Size() int64 { return rd.size }

// Read reads the next bytes of the content. After the last byte it checks
// that the stored stream ends there; damage is a *CorruptError.
func (rd *Reader) Read(p []byte) (int, error) {
	if rd.err != nil {
		return 0, rd.err
	}
	if rd.left == 0 {
		rd.err = io.EOF
		if _, ok := rd.r.(*bytes.Reader); !ok {
			var one [1]byte
			if m, err := rd.r.Read(one[:]); m > 0 {
				rd.err = rd.corrupt(fmt.Errorf("%w: more than %d bytes", errSize, rd.size))
			} else if err != io.EOF {
				rd.err = rd.corrupt(noEOF(err))
			} else if rd.crc != nil && rd.hasCRC {
				if _, err := io.Copy(io.Discard, rd.buf); err != nil {
					rd.err = rd.corrupt(err)
				} else if rd.crc.sum != rd.wantCRC {
					rd.err = rd.corrupt(errCRC)
				}
			}
		}
		return 0, rd.err
	}
	if int64(len(p)) > rd.left {
		p = p[:rd.left]
	}
	n, err := rd.r.Read(p)
	rd.left -= int64(n)
	if err == io.EOF && rd.left > 0 {
		err = fmt.Errorf("%w: stream ends %d bytes short of %d", errSize, rd.left, rd.size)
	}
	if err != nil && err != io.EOF {
		rd.err = rd.corrupt(noEOF(err))
		return n, rd.err
	}
	return n, nil
}

func (rd *Reader) corrupt(err error) error {
	return &CorruptError{ID: rd.id, Path: rd.where, Offset: rd.off, Err: err}
}

// Close releases the reader's file and decompressor.
func (rd *Reader) Close() error {
	var err error
	if rd.closer != nil {
		err = rd.closer.Close()
		rd.closer = nil
	}
	if rd.done != nil {
		rd.done()
		rd.done = nil
	}
	if rd.err == nil {
		rd.err = ErrClosed
	}
	return err
}
