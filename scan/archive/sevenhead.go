package archive

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
)

// This file parses the 7z container: the signature header, the header
// (or the encoded header, a folder whose output is the header), and the
// parts of it the walk needs: the folders with their coders and packed
// streams, the substreams that are the members' data, and the names.
//
// It is written for hostile input. Every count read from the header is
// held against the header bytes left before anything is allocated for it
// (an element takes at least a byte), so memory is proportional to the
// decoded header, itself capped by MaxHeaderBytes; names stay in the
// header's UTF-16 bytes and are decoded one at a time as members are
// listed. The property sections this reader does not need (times,
// attributes, comments) are skipped by their declared sizes.

// 7z property ids.
const (
	szEnd = iota
	szIDHeader
	szArchiveProperties
	szAdditionalStreamsInfo
	szMainStreamsInfo
	szFilesInfo
	szPackInfo
	szUnpackInfo
	szSubStreamsInfo
	szSize
	szCRC
	szIDFolder
	szCodersUnpackSize
	szNumUnpackStream
	szEmptyStream
	szEmptyFile
	szAnti
	szName
	szCTime
	szATime
	szMTime
	szWinAttributes
	szComment
	szEncodedHeader
	szStartPos
	szDummy
)

const szSignatureLen = 32

// szMaxCoders bounds the coders of a folder, as 7-Zip does.
const szMaxCoders = 64

func errSz(msg string) error { return errors.New("7z: " + msg) }

var errSzTruncated = errSz("truncated header")

// szCoder is one coder of a folder: a method and its properties.
type szCoder struct {
	method     []byte
	props      []byte
	numIn      int
	numOut     int
	firstIn    int // index of its first in-stream in the folder
	firstOut   int // index of its first out-stream
	unpackSize uint64
}

// szFolder is a chain of coders that turns packed streams into one output:
// the data of one or more members, one after another (a solid block).
type szFolder struct {
	coders    []szCoder
	bindIn    []int // bindIn[i] is the in-stream bound to out-stream bindOut[i]
	bindOut   []int
	packed    []int // in-streams fed by packed streams, in pack order
	firstPack int   // index of its first packed stream in the archive
	crc       uint32
	hasCRC    bool
	// substreams: the members' data, in order
	numSub   int
	firstSub int
}

// unpackSize is the size of the folder's output: that of the out-stream
// no bind pair consumes.
func (f *szFolder) mainOut() (coder, out int, err error) {
	for ci, c := range f.coders {
		for o := c.firstOut; o < c.firstOut+c.numOut; o++ {
			bound := false
			for _, b := range f.bindOut {
				if b == o {
					bound = true
					break
				}
			}
			if !bound {
				return ci, o, nil
			}
		}
	}
	return 0, 0, errSz("folder without an output")
}

// szHeader is what the walk keeps of a parsed 7z header.
type szHeader struct {
	packPos   uint64   // of the first packed stream, after the signature header
	packSizes []uint64 // one per packed stream
	folders   []szFolder
	subSizes  []uint64 // one per substream
	subCRCs   []uint32
	subHasCRC []bool

	numFiles    int
	emptyStream []byte // bit vector over files
	emptyFile   []byte // bit vector over the empty-stream files
	anti        []byte // bit vector over the empty-stream files
	names       []byte // UTF-16LE, each name NUL-terminated; nil: no names
}

// szReader reads the header's bytes, and charges what the parse
// allocates against left, the memory the header may cost.
type szReader struct {
	b    []byte
	left *int64
}

// szMemoryPerHeaderByte bounds what parsing a header may allocate, per
// byte of MaxHeaderBytes. A folder of one coder takes about 11 header
// bytes and 240 bytes of memory once parsed (22 to 1); a header made to
// amplify, folders of 3 bytes each, reaches 100 to 1, and is stopped at 8.
const szMemoryPerHeaderByte = 8

// errSzMemory is a header whose parse would allocate more than it may.
var errSzMemory = errSz("header would take more memory than its budget allows")

// alloc charges n elements of size bytes, or refuses them.
func (r *szReader) alloc(n int, size uintptr) error {
	c := int64(n) * int64(size)
	if c > *r.left {
		return errSzMemory
	}
	*r.left -= c
	return nil
}

func (r *szReader) byte() (byte, error) {
	if len(r.b) == 0 {
		return 0, errSzTruncated
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, nil
}

func (r *szReader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)) {
		return nil, errSzTruncated
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p, nil
}

// number reads a 7z UINT64: the leading one bits of the first byte say how
// many bytes follow, the rest of it is the high part.
func (r *szReader) number() (uint64, error) {
	first, err := r.byte()
	if err != nil {
		return 0, err
	}
	n := bits.LeadingZeros8(^first) // extra bytes
	var v uint64
	for i := 0; i < n && i < 8; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c) << (8 * i)
	}
	if n < 8 {
		v |= uint64(first&(0xff>>(n+1))) << (8 * n)
	}
	return v, nil
}

// count reads a number of elements, each of which takes at least per bytes
// of what is left of the header: a count that cannot fit is corrupt, and
// nothing is allocated for it.
func (r *szReader) count(per int) (int, error) {
	v, err := r.number()
	if err != nil {
		return 0, err
	}
	if v > uint64(len(r.b)/per)+1 || v > math.MaxInt32 {
		return 0, errSz("count larger than the header")
	}
	return int(v), nil
}

func (r *szReader) uint32() (uint32, error) {
	p, err := r.bytes(4)
	if err != nil {
		return 0, err
	}
	return le.Uint32(p), nil
}

// bitVector reads n bits, most significant first.
func (r *szReader) bitVector(n int) ([]byte, error) {
	return r.bytes(uint64((n + 7) / 8))
}

// definedVector reads the "all defined" byte and, if it is 0, a bit vector.
func (r *szReader) definedVector(n int) ([]bool, error) {
	all, err := r.byte()
	if err != nil {
		return nil, err
	}
	if err := r.alloc(n, 1); err != nil {
		return nil, err
	}
	v := make([]bool, n)
	if all != 0 {
		for i := range v {
			v[i] = true
		}
		return v, nil
	}
	b, err := r.bitVector(n)
	if err != nil {
		return nil, err
	}
	for i := range v {
		v[i] = bitAt(b, i)
	}
	return v, nil
}

func bitAt(v []byte, i int) bool { return i/8 < len(v) && v[i/8]&(0x80>>(i%8)) != 0 }

func (r *szReader) digests(n int) (crcs []uint32, has []bool, err error) {
	has, err = r.definedVector(n)
	if err != nil {
		return nil, nil, err
	}
	if err := r.alloc(n, 4); err != nil {
		return nil, nil, err
	}
	crcs = make([]uint32, n)
	for i := range has {
		if has[i] {
			if crcs[i], err = r.uint32(); err != nil {
				return nil, nil, err
			}
		}
	}
	return crcs, has, nil
}

func (r *szReader) expect(id byte) error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c != id {
		return fmt.Errorf("7z: property %#x where %#x was expected", c, id)
	}
	return nil
}

// readSignature reads the signature header at the start of ra and returns
// where the (encoded) header is and its CRC.
func readSzSignature(ra io.ReaderAt, size int64) (off, n int64, crc uint32, err error) {
	var h [szSignatureLen]byte
	if _, err := ra.ReadAt(h[:], 0); err != nil {
		return 0, 0, 0, errSz("truncated signature header")
	}
	if !bytes.Equal(h[:6], magic7z) {
		return 0, 0, 0, errSz("bad signature")
	}
	if h[6] != 0 {
		return 0, 0, 0, fmt.Errorf("%w: 7z format version %d.%d", ErrUnsupported, h[6], h[7])
	}
	if crc32.ChecksumIEEE(h[12:]) != le.Uint32(h[8:]) {
		return 0, 0, 0, errSz("signature header CRC mismatch")
	}
	next, length := le.Uint64(h[12:]), le.Uint64(h[20:])
	if next > uint64(size) || length > uint64(size) || szSignatureLen+next+length > uint64(size) {
		return 0, 0, 0, errSz("header out of range (truncated?)")
	}
	return szSignatureLen + int64(next), int64(length), le.Uint32(h[28:]), nil
}

// filesInfo reads the file list: the empty-stream and empty-file vectors
// and the names; other properties are skipped by size.
func (r *szReader) filesInfo(h *szHeader) error {
	n, err := r.count(1)
	if err != nil {
		return err
	}
	h.numFiles = n
	empties := 0
	for {
		id, err := r.number()
		if err != nil {
			return err
		}
		if id == szEnd {
			return nil
		}
		size, err := r.number()
		if err != nil {
			return err
		}
		body, err := r.bytes(size)
		if err != nil {
			return err
		}
		p := &szReader{b: body, left: r.left}
		switch id {
		case szEmptyStream:
			if h.emptyStream, err = p.bitVector(n); err != nil {
				return err
			}
			empties = 0
			for i := range n {
				if bitAt(h.emptyStream, i) {
					empties++
				}
			}
		case szEmptyFile:
			h.emptyFile, err = p.bitVector(empties)
		case szAnti:
			h.anti, err = p.bitVector(empties)
		case szName:
			ext, e := p.byte()
			if e != nil || ext != 0 {
				return errSz("external names are not supported")
			}
			h.names = p.b
		}
		if err != nil {
			return err
		}
	}
}

// parseSzHeader parses a plain header (its id byte already read),
// allocating no more than left bytes.
func parseSzHeader(b []byte, left *int64) (*szHeader, error) {
	r := &szReader{b: b, left: left}
	h := &szHeader{}
	for {
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch id {
		case szEnd:
			return h, h.check()
		case szArchiveProperties:
			for {
				t, err := r.number()
				if err != nil {
					return nil, err
				}
				if t == szEnd {
					break
				}
				n, err := r.number()
				if err != nil {
					return nil, err
				}
				if _, err := r.bytes(n); err != nil {
					return nil, err
				}
			}
		case szAdditionalStreamsInfo:
			if err := r.streamsInfo(&szHeader{}); err != nil { // parsed to be passed over
				return nil, err
			}
		case szMainStreamsInfo:
			if err := r.streamsInfo(h); err != nil {
				return nil, err
			}
		case szFilesInfo:
			if err := r.filesInfo(h); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("7z: unexpected property %#x in header", id)
		}
	}
}

// check verifies that the header's parts agree: every folder has its
// packed streams, and the non-empty files are as many as the substreams.
func (h *szHeader) check() error {
	for i := range h.folders {
		f := &h.folders[i]
		if f.firstPack+len(f.packed) > len(h.packSizes) {
			return errSz("folder without its packed streams")
		}
		if _, _, err := f.mainOut(); err != nil {
			return err
		}
	}
	nonEmpty := 0
	for i := range h.numFiles {
		if !bitAt(h.emptyStream, i) {
			nonEmpty++
		}
	}
	if nonEmpty != len(h.subSizes) {
		return fmt.Errorf("7z: %d files with data for %d substreams", nonEmpty, len(h.subSizes))
	}
	return nil
}

// packOffset returns the offset in the file of packed stream i.
func (h *szHeader) packOffset(i int) (int64, error) {
	off := uint64(szSignatureLen) + h.packPos
	for _, s := range h.packSizes[:i] {
		off += s
		if off > math.MaxInt64/2 {
			return 0, errSz("packed stream out of range")
		}
	}
	return int64(off), nil
}
