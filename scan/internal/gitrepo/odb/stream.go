package odb

import (
	"bufio"
	"bytes"
	"errors"
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

// Reader opens id for reading in chunks. The caller must Close it. A
// delta whose result is over Options.MaxObject is streamed too, its base
// spilled to a temporary file (see spilledDeltaReader).
func (db *DB) Reader(id ID) (*Reader, error) { return db.reader(id, 0) }

// reader is Reader for an object depth big deltas below the one asked for.
func (db *DB) reader(id ID, depth int) (*Reader, error) {
	if db.closed.Load() {
		return nil, ErrClosed
	}
	if p, pos, ok := db.find(&id); ok {
		off := p.idx.offset(pos)
		s := db.getScratch()
		e, _, err := p.load(off, nil, 0)
		if err == nil && e.h.typ < ofsDelta && e.h.size > min(streamAbove, db.maxObject) {
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
		rd, err := db.readerInMemory(id)
		var big *TooLargeError
		if errors.As(err, &big) && e.h.typ >= ofsDelta {
			return db.spilledDeltaReader(id, depth)
		}
		return rd, err
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
	if size <= min(streamAbove, db.maxObject) {
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

// maxSpillDepth bounds the chain of big deltas a spilled reader rebuilds
// one under the other (git's own pack.depth default is 50).
const maxSpillDepth = 64

// spilledDeltaReader streams a delta whose result is too large to build
// in memory (over Options.MaxObject): its base is written to a temporary
// file (streamed, and spilled in turn if it is a big delta itself), and
// the result is produced as it is read, copies read back from that file,
// inserts from the delta. Memory holds the delta's instructions and
// inserts (bounded by MaxObject, as any object read whole) and one read's
// buffer, whatever the result's size. The file has no name once created
// where the system allows it, and is removed by Close.
func (db *DB) spilledDeltaReader(id ID, depth int) (*Reader, error) {
	if depth > maxSpillDepth {
		return nil, &CorruptError{ID: id, Offset: -1, Err: fmt.Errorf("%w: a chain of more than %d big deltas", errDelta, maxSpillDepth)}
	}
	baseID, d, err := db.deltaOf(id)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, &CorruptError{ID: id, Offset: -1, Err: errors.New("not a delta")}
	}
	base, err := db.reader(baseID, depth+1)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "spindle-delta-*")
	if err != nil {
		base.Close()
		return nil, err
	}
	spill := &spillFile{f: f}
	spill.unlink()
	n, err := io.Copy(f, base)
	base.Close()
	if err == nil && n != d.BaseSize {
		err = fmt.Errorf("%w: base %s has %d bytes, the delta wants %d", errDelta, baseID, n, d.BaseSize)
	}
	if err != nil {
		spill.Close()
		return nil, &CorruptError{ID: id, Offset: -1, Err: err}
	}
	ds := &deltaStream{ops: d.Ops, base: f}
	return &Reader{typ: base.typ, size: d.Size, left: d.Size, r: ds, id: id, closer: spill}, nil
}

// spillFile is a temporary file removed when closed (unlinked at once
// where an open file may lose its name).
type spillFile struct {
	f       *os.File
	removed bool
}

func (s *spillFile) unlink() {
	if os.Remove(s.f.Name()) == nil {
		s.removed = true
	}
}

func (s *spillFile) Close() error {
	err := s.f.Close()
	if !s.removed {
		os.Remove(s.f.Name())
	}
	return err
}

// deltaStream produces a delta's result from its instructions and its
// base, read at offsets.
type deltaStream struct {
	ops  []DeltaOp
	base io.ReaderAt
	done int64 // bytes of the current instruction produced
}

func (ds *deltaStream) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(ds.ops) > 0 {
		op := &ds.ops[0]
		want := min(int64(len(p)-n), op.Len-ds.done)
		if op.Data != nil {
			copy(p[n:], op.Data[ds.done:ds.done+want])
		} else if _, err := ds.base.ReadAt(p[n:n+int(want)], op.Offset+ds.done); err != nil {
			return n, noEOF(err)
		}
		n += int(want)
		ds.done += want
		if ds.done == op.Len {
			ds.ops, ds.done = ds.ops[1:], 0
		}
	}
	if n == 0 && len(ds.ops) == 0 {
		return 0, io.EOF
	}
	return n, nil
}
