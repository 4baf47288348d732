package archive

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// This file reads zip archives. It does not use archive/zip, whose
// NewReader parses the whole central directory into a []*zip.File before
// the first member can be read: a few hundred bytes of memory per entry,
// so a 100 MB archive of empty entries costs gigabytes. Here the central
// directory is streamed one record at a time, and memory stays constant
// however many entries there are; the entries budget then decides how many
// are looked at.
//
// The central directory is the truth, as in every mainstream reader: the
// local headers are used only to find where each member's data starts,
// and the sizes, method and flags come from the directory.

const (
	zipLocalSig      = 0x04034b50
	zipCentralSig    = 0x02014b50
	zipEndSig        = 0x06054b50
	zip64LocatorSig  = 0x07064b50
	zip64EndSig      = 0x06064b50
	zipLocalLen      = 30
	zipCentralLen    = 46
	zipEndLen        = 22
	zip64LocatorLen  = 20
	zip64EndLen      = 56
	zipMaxCommentLen = 65535
)

var le = binary.LittleEndian

// zipDir locates a zip's central directory.
type zipDir struct {
	ra     io.ReaderAt
	size   int64
	base   int64 // added to every offset the archive records: data prepended to the zip (a self-extractor) shifts them
	dirOff int64 // absolute start of the central directory
	dirEnd int64 // absolute end: where the end-of-directory records start
	count  uint64
	// trailing counts bytes after the end record and its comment: data
	// appended to the zip, or a zip cut short whose last end record is
	// that of a zip stored inside it. Either way the walk goes on, with a
	// warning.
	trailing int64
}

// zipEntry is one central directory record, the fields that matter here.
type zipEntry struct {
	name   string
	flags  uint16
	method uint16
	crc    uint32
	csize  uint64
	usize  uint64
	off    uint64 // of the local header, before base
}

func errZip(msg string) error { return errors.New("zip: " + msg) }

// readZipDir finds the end-of-central-directory record (searching the
// trailing comment's 64 KiB backwards, as every reader must) and, for a
// zip64 archive, its zip64 record.
func readZipDir(ra io.ReaderAt, size int64) (*zipDir, error) {
	if size < zipEndLen {
		return nil, errZip("too short for an end of central directory")
	}
	n := min(size, zipEndLen+zipMaxCommentLen)
	buf := make([]byte, n)
	if _, err := ra.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return nil, err
	}
	i, exact := lastEndRecord(buf)
	if i < 0 {
		return nil, errZip("no end of central directory (truncated?)")
	}
	end := buf[i:]
	endAt := size - n + int64(i)
	count := uint64(le.Uint16(end[10:]))
	dirSize := uint64(le.Uint32(end[12:]))
	dirOff := uint64(le.Uint32(end[16:]))
	if count == 0xffff || dirSize == 0xffffffff || dirOff == 0xffffffff {
		if at, c, s, o, ok := readZip64End(ra, endAt); ok {
			endAt, count, dirSize, dirOff = at, c, s, o
		}
	}
	if dirSize > uint64(endAt) || dirOff > uint64(endAt) {
		return nil, errZip("central directory out of range")
	}
	base := endAt - int64(dirSize) - int64(dirOff)
	if base < 0 {
		return nil, errZip("central directory out of range")
	}
	if base > 0 && sigAt(ra, int64(dirOff)) == zipCentralSig {
		base = 0 // some writers record a wrong size; trust the offset when it points at a record
	}
	d := &zipDir{ra: ra, size: size, base: base, dirOff: base + int64(dirOff), dirEnd: endAt, count: count}
	if !exact {
		d.trailing = size - (size - n + int64(i) + zipEndLen + int64(le.Uint16(end[20:])))
	}
	return d, nil
}

// lastEndRecord returns the offset in b of the end-of-directory record: the
// last one whose comment ends exactly at the end of b, or failing that the
// last one whose comment fits (exact false), or -1. The exact match is
// preferred because a zip cut short, or one stored inside another, can
// leave an inner zip's end record as the last signature in the file.
func lastEndRecord(b []byte) (i int, exact bool) {
	fits := -1
	for i := len(b) - zipEndLen; i >= 0; i-- {
		if le.Uint32(b[i:]) != zipEndSig {
			continue
		}
		switch end := i + zipEndLen + int(le.Uint16(b[i+20:])); {
		case end == len(b):
			return i, true
		case end < len(b) && fits < 0:
			fits = i
		}
	}
	return fits, false
}

// readZip64End reads the zip64 locator just before the end record at endAt
// and the zip64 end record it points to.
func readZip64End(ra io.ReaderAt, endAt int64) (at int64, count, dirSize, dirOff uint64, ok bool) {
	if endAt < zip64LocatorLen {
		return 0, 0, 0, 0, false
	}
	var loc [zip64LocatorLen]byte
	if _, err := ra.ReadAt(loc[:], endAt-zip64LocatorLen); err != nil || le.Uint32(loc[:]) != zip64LocatorSig {
		return 0, 0, 0, 0, false
	}
	off := le.Uint64(loc[8:])
	if off > uint64(endAt-zip64LocatorLen-zip64EndLen) || endAt-zip64LocatorLen < zip64EndLen {
		return 0, 0, 0, 0, false
	}
	var rec [zip64EndLen]byte
	if _, err := ra.ReadAt(rec[:], int64(off)); err != nil || le.Uint32(rec[:]) != zip64EndSig {
		return 0, 0, 0, 0, false
	}
	return int64(off), le.Uint64(rec[32:]), le.Uint64(rec[40:]), le.Uint64(rec[48:]), true
}

func sigAt(ra io.ReaderAt, off int64) uint32 {
	var b [4]byte
	if _, err := ra.ReadAt(b[:], off); err != nil {
		return 0
	}
	return le.Uint32(b[:])
}

// zipIter streams the central directory, one record at a time.
type zipIter struct {
	d    *zipDir
	br   *bufio.Reader
	seen uint64
	buf  []byte // name, extra field and comment of the current record; reused
}

func (d *zipDir) iter() *zipIter {
	return &zipIter{d: d, br: bufio.NewReaderSize(io.NewSectionReader(d.ra, d.dirOff, d.dirEnd-d.dirOff), bufSize)}
}

// next reads the next record into e; io.EOF at the end of the directory.
func (it *zipIter) next(e *zipEntry) error {
	sig, err := it.br.Peek(4)
	if err != nil || le.Uint32(sig) != zipCentralSig {
		// The count is 16 bits outside zip64 and some writers let it wrap,
		// so only its low bits are held against the records found.
		if it.seen < it.d.count && uint16(it.seen) != uint16(it.d.count) {
			return fmt.Errorf("zip: central directory ends after %d of %d entries", it.seen, it.d.count)
		}
		return io.EOF
	}
	var h [zipCentralLen]byte
	if _, err := io.ReadFull(it.br, h[:]); err != nil {
		return errZip("truncated central directory")
	}
	nameLen, extraLen, commentLen := int(le.Uint16(h[28:])), int(le.Uint16(h[30:])), int(le.Uint16(h[32:]))
	need := nameLen + extraLen + commentLen
	if cap(it.buf) < need {
		it.buf = make([]byte, need)
	}
	b := it.buf[:need]
	if _, err := io.ReadFull(it.br, b); err != nil {
		return errZip("truncated central directory")
	}
	*e = zipEntry{
		name:   string(b[:nameLen]),
		flags:  le.Uint16(h[8:]),
		method: le.Uint16(h[10:]),
		crc:    le.Uint32(h[16:]),
		csize:  uint64(le.Uint32(h[20:])),
		usize:  uint64(le.Uint32(h[24:])),
		off:    uint64(le.Uint32(h[42:])),
	}
	e.zip64(b[nameLen : nameLen+extraLen])
	it.seen++
	return nil
}

// zip64 takes the 64-bit sizes and offset from the zip64 extra field, for
// the 32-bit fields that are saturated, in the order the format fixes.
func (e *zipEntry) zip64(extra []byte) {
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if n > len(extra)-4 {
			return
		}
		if id == 0x0001 {
			f := extra[4 : 4+n]
			for _, v := range []*uint64{&e.usize, &e.csize, &e.off} {
				if *v == 0xffffffff && len(f) >= 8 {
					*v = le.Uint64(f)
					f = f[8:]
				}
			}
			return
		}
		extra = extra[4+n:]
	}
}

// data returns the section holding e's compressed bytes, found through its
// local header.
func (d *zipDir) data(e *zipEntry) (*io.SectionReader, error) {
	if e.off > uint64(d.size) {
		return nil, errZip("local header out of range")
	}
	off := d.base + int64(e.off)
	var h [zipLocalLen]byte
	if _, err := d.ra.ReadAt(h[:], off); err != nil {
		return nil, errZip("truncated local header")
	}
	if le.Uint32(h[:]) != zipLocalSig {
		return nil, errZip("bad local header signature")
	}
	start := off + zipLocalLen + int64(le.Uint16(h[26:])) + int64(le.Uint16(h[28:]))
	if start > d.size || e.csize > uint64(d.size-start) {
		return nil, errZip("member data runs past the end (truncated?)")
	}
	return io.NewSectionReader(d.ra, start, int64(e.csize)), nil
}
