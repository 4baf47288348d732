package odb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/klauspost/compress/flate"
)

// Every stored object is a zlib stream: a two-byte header, raw deflate
// data and an Adler-32 of the output. The inflater parses the header
// itself and runs klauspost's flate on the deflate data, which decodes
// from a *bytes.Reader or *bufio.Reader without an interface call per
// byte; a reused decompressor costs no allocation per object.
//
// The Adler-32 trailer of a packed entry is not checked: the pack index
// (v2) holds a CRC-32 of every entry as stored, which the reader checks
// on the compressed bytes (a tenth of the size, with a hardware-assisted
// CRC) before inflating them; the deflate decoder, the size recorded in
// the header and the end-of-stream check catch the rest. A loose object's
// Adler-32 is checked (loose.go).

var (
	errZlibHeader = errors.New("bad zlib header")
	errSize       = errors.New("inflated size differs from the header")
)

// inflater decodes zlib streams. One per goroutine (it is kept in the
// scratch pool); it is not safe for concurrent use.
type inflater struct {
	fr flate.Resetter
	rc io.ReadCloser
	br bytes.Reader
	bf *bufio.Reader

	one [1]byte              // for the end-of-stream read, kept here so it does not escape per call
	hb  [maxLooseHeader]byte // a loose object's first inflated bytes

	d decoder // the one-shot decoder (deflate.go) for streams held in memory
}

func newInflater() *inflater {
	rc := flate.NewReader(bytes.NewReader(nil))
	return &inflater{fr: rc.(flate.Resetter), rc: rc}
}

// zlibHeader checks the two zlib header bytes: deflate, a window of at most
// 32 KiB, no preset dictionary, and the header checksum.
func zlibHeader(b []byte) error {
	if len(b) < 2 {
		return fmt.Errorf("%w: truncated", errZlibHeader)
	}
	cmf, flg := b[0], b[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || flg&0x20 != 0 || (uint16(cmf)<<8|uint16(flg))%31 != 0 {
		return fmt.Errorf("%w: %#02x %#02x", errZlibHeader, cmf, flg)
	}
	return nil
}

// inflateBytes inflates the zlib stream at the start of src into
// dst[:size], which it grows if needed, and checks that the stream ends
// exactly there. src may extend past the stream (it is a window on the
// pack); io.ErrUnexpectedEOF means src ended before the stream did.
func (z *inflater) inflateBytes(src []byte, size int64, dst []byte) ([]byte, error) {
	if err := zlibHeader(src); err != nil {
		return dst[:0], err
	}
	if size <= trustAbove || int64(cap(dst)) >= size {
		dst = grow(dst, int(size))
		if err := z.d.inflateInto(src[2:], dst); err != nil {
			return dst[:0], err
		}
		return dst, nil
	}
	z.br.Reset(src[2:])
	return z.run(&z.br, size, dst)
}

// inflateReader is inflateBytes over a reader, for streams too large to
// read into one buffer.
func (z *inflater) inflateReader(r io.Reader, size int64, dst []byte) ([]byte, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return dst[:0], noEOF(err)
	}
	if err := zlibHeader(hdr[:]); err != nil {
		return dst[:0], err
	}
	return z.run(z.buffered(r), size, dst)
}

// buffered wraps r in the inflater's bufio.Reader (flate decodes from one
// without an interface call per byte).
func (z *inflater) buffered(r io.Reader) *bufio.Reader {
	if z.bf == nil {
		z.bf = bufio.NewReaderSize(r, 256<<10)
	} else {
		z.bf.Reset(r)
	}
	return z.bf
}

func (z *inflater) run(r io.Reader, size int64, dst []byte) ([]byte, error) {
	if err := z.fr.Reset(r, nil); err != nil {
		return dst[:0], err
	}
	if size > trustAbove && int64(cap(dst)) < size {
		return z.fillGrowing(dst[:0], size)
	}
	dst = grow(dst, int(size))
	if err := z.fill(dst, size); err != nil {
		return dst[:0], err
	}
	return dst, nil
}

// trustAbove is the size above which a header's size is not allocated up
// front: a damaged or hostile entry could claim up to 1032 times its
// compressed bytes (deflate's limit), so a large claim is believed only
// as the data arrives.
const trustAbove = 16 << 20

// fillGrowing is fill for an object larger than trustAbove: dst grows by
// doubling as bytes are inflated, so memory follows what the stream
// really holds.
func (z *inflater) fillGrowing(dst []byte, size int64) ([]byte, error) {
	for int64(len(dst)) < size {
		if len(dst) == cap(dst) {
			dst = slices.Grow(dst, int(min(size-int64(len(dst)), max(int64(cap(dst)), trustAbove))))
		}
		chunk := dst[len(dst):min(int64(cap(dst)), size)]
		n, err := io.ReadFull(z.rc, chunk)
		dst = dst[:len(dst)+n]
		if err != nil {
			if z.streamEnded() {
				return dst[:0], fmt.Errorf("%w: stream ends before %d bytes", errSize, size)
			}
			return dst[:0], noEOF(err)
		}
	}
	if m, err := z.rc.Read(z.one[:]); m > 0 {
		return dst[:0], fmt.Errorf("%w: more than %d bytes", errSize, size)
	} else if err != io.EOF {
		return dst[:0], noEOF(err)
	}
	return dst, nil
}

// fill reads exactly len(dst) bytes from the reset decompressor and checks
// that the stream ends there; size (what the header said, for messages)
// is len(dst) plus whatever the caller took before.
func (z *inflater) fill(dst []byte, size int64) error {
	if _, err := io.ReadFull(z.rc, dst); err != nil {
		if z.streamEnded() {
			return fmt.Errorf("%w: stream ends before %d bytes", errSize, size)
		}
		// io.ErrUnexpectedEOF: the input ran out; or a deflate error.
		return noEOF(err)
	}
	// The stream must end here: one more read decodes the end-of-block
	// code and returns io.EOF, or the object is longer than its header
	// says. (The decompressor's Read never returns 0, nil.)
	if m, err := z.rc.Read(z.one[:]); m > 0 {
		return fmt.Errorf("%w: more than %d bytes", errSize, size)
	} else if err != io.EOF {
		return noEOF(err)
	}
	return nil
}

// streamEnded reports whether the decompressor stopped at the end of its
// stream rather than on an error or for want of input. Its error is
// sticky, so asking again returns it.
func (z *inflater) streamEnded() bool {
	_, err := z.rc.Read(z.one[:])
	return err == io.EOF
}

// noEOF turns a plain io.EOF in the middle of a stream into
// io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// prefix inflates the first len(out) bytes of the zlib stream at the start
// of src, or fewer if the stream is shorter; the rest is not decoded.
func (z *inflater) prefix(src []byte, out []byte) (int, error) {
	if err := zlibHeader(src); err != nil {
		return 0, err
	}
	z.br.Reset(src[2:])
	return z.readPrefix(&z.br, out)
}

// prefixReader is prefix over a reader.
func (z *inflater) prefixReader(r io.Reader, out []byte) (int, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, noEOF(err)
	}
	if err := zlibHeader(hdr[:]); err != nil {
		return 0, err
	}
	return z.readPrefix(z.buffered(r), out)
}

func (z *inflater) readPrefix(r io.Reader, out []byte) (int, error) {
	if err := z.fr.Reset(r, nil); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(z.rc, out)
	if err == io.EOF || (err == io.ErrUnexpectedEOF && z.streamEnded()) {
		err = nil
	}
	return n, err
}
