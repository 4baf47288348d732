package archive

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"slices"

	"github.com/ulikunitz/xz/lzma"
)

// This file reads the .xz container (xz file format 1.0.4) and leaves the
// LZMA2 data of each block to github.com/ulikunitz/xz/lzma. It does not use
// the package's own xz.Reader because that reader allocates each block's
// dictionary at the size the block header declares, up to 4 GiB, before
// decoding a byte: a 64-byte file could demand gigabytes. Parsing the
// container here lets every block's dictionary be checked against
// Limits.MaxWindow first.
//
// Only the LZMA2 filter is supported, as in ulikunitz/xz; a chain with a
// BCJ or delta filter is reported as unsupported. Every check the format
// carries is verified: header CRC32s, the block check (CRC32, CRC64 or
// SHA-256), the declared block sizes, the index's record count and CRC,
// and the stream footer.

var crc64Table = crc64.MakeTable(crc64.ECMA)

const (
	xzHeaderLen = 12
	xzFooterLen = 12
	xzLZMA2     = 0x21
)

var xzFooterMagic = []byte("YZ")

// xzWindowError is a block whose dictionary exceeds MaxWindow.
type xzWindowError struct{ dict, max int64 }

func (e *xzWindowError) Error() string {
	return fmt.Sprintf("xz: dictionary of %s exceeds the window budget of %s", sizeString(e.dict), sizeString(e.max))
}

func errXz(msg string) error { return errors.New("xz: " + msg) }

// xzReader decodes one or more concatenated .xz streams.
type xzReader struct {
	src     *source
	maxDict int64

	flags    [2]byte   // stream flags of the current stream
	check    hash.Hash // nil when the check type is none or unknown
	checkLen int

	block      *lzma.Reader2 // nil between blocks
	blockStart int64         // src.n where the block header began
	headerLen  int64
	wantComp   int64 // declared compressed size, -1 if absent
	wantUncomp int64 // declared uncompressed size, -1 if absent
	uncomp     int64 // bytes the current block has produced
	blocks     uint64

	err error // sticky; io.EOF at the end of the last stream
}

// newXzReader reads the first stream header and returns the reader.
func newXzReader(src *source, maxDict int64) (*xzReader, error) {
	x := &xzReader{src: src, maxDict: maxDict}
	if err := x.streamHeader(); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *xzReader) Read(p []byte) (int, error) {
	for x.err == nil {
		if x.block == nil {
			x.err = x.nextBlock()
			continue
		}
		n, err := x.block.Read(p)
		x.uncomp += int64(n)
		if x.check != nil {
			x.check.Write(p[:n])
		}
		if err == io.EOF {
			x.block = nil
			x.err = x.endBlock()
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			x.err = err
		}
		return n, err
	}
	return 0, x.err
}

// full reads exactly len(b) bytes; an early end is ErrUnexpectedEOF.
func (x *xzReader) full(b []byte) error {
	if _, err := io.ReadFull(x.src, b); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

func (x *xzReader) streamHeader() error {
	var h [xzHeaderLen]byte
	if err := x.full(h[:]); err != nil {
		return err
	}
	if !bytes.Equal(h[:6], magicXz) {
		return errXz("bad stream header magic")
	}
	if crc32.ChecksumIEEE(h[6:8]) != le.Uint32(h[8:]) {
		return errXz("stream header CRC mismatch")
	}
	if h[6] != 0 || h[7]&0xf0 != 0 {
		return fmt.Errorf("%w: xz stream flags %#x %#x", ErrUnsupported, h[6], h[7])
	}
	x.flags = [2]byte{h[6], h[7]}
	x.blocks = 0
	switch t := h[7] & 0xf; t {
	case 0x0:
		x.check, x.checkLen = nil, 0
	case 0x1:
		x.check, x.checkLen = crc32.NewIEEE(), 4
	case 0x4:
		x.check, x.checkLen = crc64.New(crc64Table), 8
	case 0xa:
		x.check, x.checkLen = sha256.New(), 32
	default: // reserved types: skipped unverified, as the format allows
		x.check, x.checkLen = nil, 4<<((t-1)/3)
	}
	return nil
}

// nextBlock reads a block header and starts the block, or reads the index
// and footer that end a stream and then the padding and next stream, if
// any. It returns io.EOF after the last stream.
func (x *xzReader) nextBlock() error {
	x.blockStart = x.src.consumed()
	size, err := x.src.ReadByte()
	if err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	if size == 0 {
		if err := x.indexAndFooter(); err != nil {
			return err
		}
		return x.nextStream()
	}
	hdr := make([]byte, int(size)*4+4)
	hdr[0] = size
	if err := x.full(hdr[1:]); err != nil {
		return err
	}
	body, sum := hdr[:len(hdr)-4], le.Uint32(hdr[len(hdr)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return errXz("block header CRC mismatch")
	}
	flags := body[1]
	if flags&0x3c != 0 {
		return errXz("reserved block flags set")
	}
	rest := body[2:]
	x.wantComp, x.wantUncomp = -1, -1
	if flags&0x40 != 0 {
		if x.wantComp, rest, err = xzVarint(rest); err != nil || x.wantComp == 0 {
			return errXz("bad compressed size")
		}
	}
	if flags&0x80 != 0 {
		if x.wantUncomp, rest, err = xzVarint(rest); err != nil {
			return errXz("bad uncompressed size")
		}
	}
	if flags&0x3 != 0 {
		return fmt.Errorf("%w: xz filter chain of %d filters (only LZMA2 alone is supported)", ErrUnsupported, flags&3+1)
	}
	id, rest, err := xzVarint(rest)
	if err != nil {
		return errXz("bad filter flags")
	}
	if id != xzLZMA2 {
		return fmt.Errorf("%w: xz filter %#x", ErrUnsupported, id)
	}
	propsLen, rest, err := xzVarint(rest)
	if err != nil || propsLen != 1 || len(rest) < 1 {
		return errXz("bad LZMA2 properties")
	}
	dict, err := lzma.DecodeDictCap(rest[0])
	if err != nil {
		return errXz("bad LZMA2 dictionary size")
	}
	for _, b := range rest[1:] {
		if b != 0 {
			return errXz("non-zero block header padding")
		}
	}
	if dict > x.maxDict {
		return &xzWindowError{dict: dict, max: x.maxDict}
	}
	x.headerLen = int64(len(hdr))
	x.uncomp = 0
	if x.check != nil {
		x.check.Reset()
	}
	// No match reaches further back than the block's own output, so a
	// block that declares its size needs no larger dictionary (xz -T
	// writes sizes; a small file compressed with xz -9 then costs kilobytes,
	// not 64 MiB).
	if x.wantUncomp >= 0 {
		dict = min(dict, x.wantUncomp)
	}
	cfg := lzma.Reader2Config{DictCap: int(max(dict, lzma.MinDictCap))}
	r, err := cfg.NewReader2(x.src.Reader)
	if err != nil {
		return fmt.Errorf("xz: %w", err)
	}
	x.block = r
	return nil
}

// endBlock reads the padding and check that follow a block's LZMA2 data
// and verifies them and the declared sizes.
func (x *xzReader) endBlock() error {
	comp := x.src.consumed() - x.blockStart - x.headerLen
	if x.wantComp >= 0 && comp != x.wantComp {
		return errXz("block compressed size mismatch")
	}
	if x.wantUncomp >= 0 && x.uncomp != x.wantUncomp {
		return errXz("block uncompressed size mismatch")
	}
	var buf [64]byte
	pad := int((4 - comp%4) % 4)
	if err := x.full(buf[:pad]); err != nil {
		return err
	}
	for _, b := range buf[:pad] {
		if b != 0 {
			return errXz("non-zero block padding")
		}
	}
	if err := x.full(buf[:x.checkLen]); err != nil {
		return err
	}
	if x.check != nil && !bytes.Equal(x.checkSum(), buf[:x.checkLen]) {
		return errXz("block check mismatch: corrupt data")
	}
	x.blocks++
	return nil
}

// checkSum returns the block check as the format stores it: CRC32 and
// CRC64 little-endian (hash.Hash gives them big-endian), SHA-256 as is.
func (x *xzReader) checkSum() []byte {
	sum := x.check.Sum(nil)
	if x.checkLen <= 8 {
		slices.Reverse(sum)
	}
	return sum
}

// indexAndFooter reads a stream's index (its indicator byte already read)
// and footer.
func (x *xzReader) indexAndFooter() error {
	sum := crc32.NewIEEE()
	sum.Write([]byte{0})
	size := int64(1)
	readVarint := func() (int64, error) {
		var v int64
		for i := 0; i < 9; i++ {
			b, err := x.src.ReadByte()
			if err != nil {
				return 0, io.ErrUnexpectedEOF
			}
			sum.Write([]byte{b})
			size++
			v |= int64(b&0x7f) << (7 * i)
			if b&0x80 == 0 {
				if b == 0 && i > 0 {
					return 0, errXz("non-minimal varint in index")
				}
				return v, nil
			}
		}
		return 0, errXz("varint too long in index")
	}
	n, err := readVarint()
	if err != nil {
		return err
	}
	if uint64(n) != x.blocks {
		return errXz("index record count does not match the blocks")
	}
	for i := int64(0); i < 2*n; i++ {
		if _, err := readVarint(); err != nil {
			return err
		}
	}
	var buf [4]byte
	pad := int((4 - size%4) % 4)
	if err := x.full(buf[:pad]); err != nil {
		return err
	}
	sum.Write(buf[:pad])
	size += int64(pad)
	if err := x.full(buf[:]); err != nil {
		return err
	}
	if le.Uint32(buf[:]) != sum.Sum32() {
		return errXz("index CRC mismatch")
	}
	var f [xzFooterLen]byte
	if err := x.full(f[:]); err != nil {
		return err
	}
	switch {
	case crc32.ChecksumIEEE(f[4:10]) != le.Uint32(f[:]):
		return errXz("stream footer CRC mismatch")
	case !bytes.Equal(f[10:], xzFooterMagic):
		return errXz("bad stream footer magic")
	case f[8] != x.flags[0] || f[9] != x.flags[1]:
		return errXz("stream footer flags differ from the header")
	case (int64(le.Uint32(f[4:]))+1)*4 != size+4: // the index with its CRC
		return errXz("stream footer backward size mismatch")
	}
	return nil
}

// nextStream skips stream padding (zero bytes in groups of four) and reads
// the next stream's header, or returns io.EOF at the end of the input.
func (x *xzReader) nextStream() error {
	for {
		b, err := x.src.Peek(4)
		if len(b) == 0 && err == io.EOF {
			return io.EOF
		}
		if len(b) < 4 {
			return errXz("truncated stream padding")
		}
		if !bytes.Equal(b, []byte{0, 0, 0, 0}) {
			return x.streamHeader()
		}
		for range 4 {
			if _, err := x.src.ReadByte(); err != nil {
				return err
			}
		}
	}
}

// xzVarint decodes a multibyte integer: 7 bits a byte, least significant
// first, at most 9 bytes, and no superfluous zero byte at the end.
func xzVarint(b []byte) (int64, []byte, error) {
	var v int64
	for i := 0; i < len(b) && i < 9; i++ {
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if b[i] == 0 && i > 0 {
				return 0, nil, errXz("non-minimal varint")
			}
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errXz("bad varint")
}
