package odb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// A loose object is one file, objects/xx/yyyy... (the id's first two hex
// digits, then the other 38), holding a zlib stream of
//
//	<type> SP <decimal size> NUL <content>
//
// git writes new objects loose until gc packs them.

// looseFirstRead is how much of a loose file Header reads first.
const looseFirstRead = 4 << 10

// maxLooseHeader bounds the header: "commit", a space, 20 digits, NUL.
const maxLooseHeader = 32

var errLooseHeader = errors.New("bad loose object header")

// parseLooseHeader decodes the header at the start of b (the first
// inflated bytes of a loose object) and returns the header's length. As
// git does, it refuses a size with leading zeros or one that overflows.
func parseLooseHeader(b []byte) (Type, int64, int, error) {
	sp := -1
	for i := 0; i < len(b) && i < len("commit")+1; i++ {
		if b[i] == ' ' {
			sp = i
			break
		}
	}
	if sp < 0 {
		return 0, 0, 0, fmt.Errorf("%w: no type", errLooseHeader)
	}
	t, ok := parseType(b[:sp])
	if !ok {
		return 0, 0, 0, fmt.Errorf("%w: type %q", errLooseHeader, b[:sp])
	}
	var size int64
	i := sp + 1
	for ; i < len(b) && b[i] != 0; i++ {
		c := b[i]
		if c < '0' || c > '9' || (i > sp+1 && b[sp+1] == '0') || size > (1<<62)/10 {
			return 0, 0, 0, fmt.Errorf("%w: size %q", errLooseHeader, b[sp+1:min(len(b), sp+22)])
		}
		size = size*10 + int64(c-'0')
	}
	if i == sp+1 || i >= len(b) {
		return 0, 0, 0, fmt.Errorf("%w: no size", errLooseHeader)
	}
	return t, size, i + 1, nil
}

// loosePaths lists where the loose object id would be, one path per
// objects directory.
func (db *DB) loosePath(dir string, id ID) string {
	hex := id.String()
	return filepath.Join(dir, hex[:2], hex[2:])
}

func (db *DB) looseExists(id ID) bool {
	for _, d := range db.dirs {
		if _, err := os.Stat(db.loosePath(d, id)); err == nil {
			return true
		}
	}
	return false
}

// openLoose opens the loose file of id in the first objects directory
// that has it.
func (db *DB) openLoose(id ID) (*os.File, error) {
	for _, d := range db.dirs {
		f, err := smallfile.Open(db.loosePath(d, id))
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, &UnreadableError{ID: id, Path: db.loosePath(d, id), Err: err}
		}
	}
	return nil, &NotFoundError{ID: id}
}

// readLoose reads a loose object into dst.
func (db *DB) readLoose(s *scratch, id ID, dst []byte) (Type, []byte, error) {
	f, err := db.openLoose(id)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, &CorruptError{ID: id, Path: f.Name(), Offset: -1, Err: err}
	}
	// A loose object over the budget could not be built anyway; its
	// compressed size already tells (zlib expands at most 1032:1 and a
	// budget's worth of compressed bytes is more than any object needs).
	if st.Size() > db.maxObject {
		return 0, nil, &TooLargeError{ID: id, Size: st.Size(), Limit: db.maxObject}
	}
	data, err := io.ReadAll(io.LimitReader(f, st.Size()+1))
	if err == nil {
		var t Type
		limit := db.maxObject
		if s.limit > 0 {
			limit = min(limit, s.limit)
		}
		if t, dst, err = s.inf.inflateLoose(data, dst, limit); err == nil {
			return t, dst, nil
		}
		var big *TooLargeError
		if errors.As(err, &big) {
			big.ID = id
			return 0, nil, big
		}
	}
	return 0, nil, &CorruptError{ID: id, Path: f.Name(), Offset: -1, Err: err}
}

// headerLoose reads a loose object's type and size from the first block
// of its file.
func (db *DB) headerLoose(s *scratch, id ID) (Type, int64, error) {
	f, err := db.openLoose(id)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, &CorruptError{ID: id, Path: f.Name(), Offset: -1, Err: err}
	}
	buf := grow(s.win, looseFirstRead)
	s.win = buf
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	if err == nil {
		// The size claim is held against the whole file's compressed
		// bytes, not the block read so far: a 5 MB log compresses into
		// 4 KiB.
		var h looseStart
		h, err = s.inf.startLoose(buf[:n], st.Size())
		if err == io.ErrUnexpectedEOF && n == len(buf) {
			// The header is not in the first block's worth: read more.
			var rest []byte
			if rest, err = io.ReadAll(io.LimitReader(f, 1<<20)); err == nil {
				h, err = s.inf.startLoose(append(buf[:n:n], rest...), st.Size())
			}
		}
		if err == nil {
			return h.typ, h.size, nil
		}
	}
	return 0, 0, &CorruptError{ID: id, Path: f.Name(), Offset: -1, Err: err}
}

// looseStart is what the first inflated bytes of a loose object say;
// they are in the inflater's hb[:n], the header in hb[:hl].
type looseStart struct {
	typ   Type
	size  int64
	hl, n int
	ended bool // the stream ended within those bytes
}

// startLoose resets the decompressor on a loose object's file data and
// decodes its header.
// compressed is the size of the whole file, which bounds the size the
// header may claim.
func (z *inflater) startLoose(data []byte, compressed int64) (looseStart, error) {
	var h looseStart
	if err := zlibHeader(data); err != nil {
		return h, err
	}
	z.br.Reset(data[2:])
	if err := z.fr.Reset(&z.br, nil); err != nil {
		return h, err
	}
	n, err := io.ReadFull(z.rc, z.hb[:])
	if err != nil {
		if !z.streamEnded() {
			return h, noEOF(err)
		}
		h.ended = true
	}
	t, size, hl, err := parseLooseHeader(z.hb[:n])
	if err != nil {
		return h, err
	}
	if size > 1032*compressed+64 || size > maxInt {
		return h, fmt.Errorf("%w: size %d cannot come from %d compressed bytes", errLooseHeader, size, compressed)
	}
	h.typ, h.size, h.hl, h.n = t, size, hl, n
	if head := int64(n - hl); head > size || (h.ended && head != size) {
		return h, fmt.Errorf("%w: %d bytes, header says %d", errSize, head, size)
	}
	return h, nil
}

// inflateLoose inflates a loose object's file data: its type, and its
// content into dst (grown if too small). The zlib trailer's Adler-32 is
// checked: loose objects have no other checksum short of hashing the
// object (packed entries have the index's CRC-32).
// An object larger than limit is refused as a *TooLargeError before its
// content is allocated.
func (z *inflater) inflateLoose(data, dst []byte, limit int64) (Type, []byte, error) {
	h, err := z.startLoose(data, int64(len(data)))
	if err != nil {
		return 0, nil, err
	}
	if h.size > limit {
		return 0, nil, &TooLargeError{Size: h.size, Limit: limit}
	}
	head := z.hb[h.hl:h.n]
	switch {
	case h.ended:
		dst = append(grow(dst, 0), head...)
	case h.size > trustAbove && int64(cap(dst)) < h.size:
		if dst, err = z.fillGrowing(append(dst[:0], head...), h.size); err != nil {
			return 0, nil, err
		}
	default:
		dst = grow(dst, int(h.size))
		n := copy(dst, head)
		if err := z.fill(dst[n:], h.size); err != nil {
			return 0, nil, err
		}
	}
	var trailer [4]byte
	if _, err := io.ReadFull(&z.br, trailer[:]); err != nil {
		return 0, nil, fmt.Errorf("zlib trailer: %w", noEOF(err))
	}
	sum := adler32.Checksum(z.hb[:h.hl])
	sum = adler32Update(sum, dst)
	if sum != binary.BigEndian.Uint32(trailer[:]) {
		return 0, nil, errAdler
	}
	return h.typ, dst, nil
}

var errAdler = errors.New("content does not match the zlib Adler-32")

// adler32Update continues an Adler-32 over more bytes (hash/adler32 has
// no function for that short of a Hash value).
func adler32Update(sum uint32, b []byte) uint32 {
	const mod = 65521
	a, s := sum&0xffff, sum>>16
	for len(b) > 0 {
		// 5552 is the most bytes before the sums may overflow 32 bits.
		n := min(len(b), 5552)
		for _, c := range b[:n] {
			a += uint32(c)
			s += a
		}
		a %= mod
		s %= mod
		b = b[n:]
	}
	return s<<16 | a
}
