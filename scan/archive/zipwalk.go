package archive

import (
	"bufio"
	"compress/bzip2"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz/lzma"
)

// This file reads the members of a zip whose directory zip.go has found:
// the listing (entries budget, encrypted and unsupported members) and the
// decoding of one member. Both the walker, which reads the members one
// after another, and Archive, whose parts are single members read by
// several goroutines at once, are built from these two pieces.

// zip compression methods.
const (
	zipStore     = 0
	zipDeflate   = 8
	zipDeflate64 = 9
	zipBzip2     = 12
	zipLZMA      = 14
	zipZstd      = 93
	zipXz        = 95
	zipPPMd      = 98
	zipAES       = 99 // WinZip AES: the real method is in an extra field
)

var zipMethodNames = map[uint16]string{
	1: "Shrink", 2: "Reduce", 3: "Reduce", 4: "Reduce", 5: "Reduce", 6: "Implode", 10: "PKWARE DCL Implode",
	zipDeflate64: "Deflate64", 18: "IBM TERSE", 19: "IBM LZ77", 20: "zstd (deprecated id)", 96: "JPEG",
	97: "WavPack", zipPPMd: "PPMd",
}

// zipMethodSupported reports whether the walk can decode method m.
func zipMethodSupported(m uint16) bool {
	switch m {
	case zipStore, zipDeflate, zipBzip2, zipLZMA, zipZstd, zipXz:
		return true
	}
	return false
}

func zipMethodName(m uint16) string {
	s := "compression method " + strconv.Itoa(int(m))
	if n, ok := zipMethodNames[m]; ok {
		s += " (" + n + ")"
	}
	return s
}

// zipLister lists the members of a zip to be read. It counts every
// central directory record against MaxEntries, passes over directories,
// and reports, each under its own name, the members it will not return:
// those past MaxEntries, encrypted ones, and those compressed with a
// method the walk cannot decode. Listing reads only the directory, so the
// whole of it is listed however many entries are past the budget.
type zipLister struct {
	name       string // the zip's full name
	it         *zipIter
	entries    int
	maxEntries int
}

func newZipLister(name string, d *zipDir, maxEntries int) *zipLister {
	return &zipLister{name: name, it: d.iter(), maxEntries: maxEntries}
}

// next reads the next member to read into e. It returns io.EOF at the end
// of the directory, a *FormatError if the directory is broken, or the
// error report returned (the walk's end under FailOnBudget).
func (zl *zipLister) next(e *zipEntry, report func(error) error) error {
	for {
		if err := zl.it.next(e); err != nil {
			if err == io.EOF {
				return err
			}
			return &FormatError{Name: zl.name, Err: err, Lost: true} // records that are missing hide members
		}
		zl.entries++
		if strings.HasSuffix(e.name, "/") {
			continue // a directory
		}
		full := zl.name + "!" + e.name
		var skip error
		switch {
		case zl.entries > zl.maxEntries:
			skip = &BudgetError{Archive: zl.name, Member: full, Budget: BudgetEntries, Limit: int64(zl.maxEntries)}
		case e.flags&0x1 != 0 || e.method == zipAES:
			skip = &FormatError{Name: full, Err: ErrEncrypted, Lost: true}
		case !zipMethodSupported(e.method):
			skip = &FormatError{Name: full, Err: fmt.Errorf("%w: %s", ErrUnsupported, zipMethodName(e.method)), Lost: true}
		default:
			return nil
		}
		if err := report(skip); err != nil {
			return err
		}
	}
}

// report hands a skip found while listing to the walk: a budget hit, which
// under FailOnBudget ends the walk, or a warning.
func (w *walker) report(err error) error {
	var be *BudgetError
	if errors.As(err, &be) {
		return w.budget(be)
	}
	w.warn(err)
	return nil
}

// walkZip walks the members of the zip in ra one after another. A member
// that cannot be read, or that a budget of its own cuts short, is a
// warning and the walk goes on with the next entry: unlike a stream, a
// zip's members are independent.
func (w *walker) walkZip(l *level, ra io.ReaderAt, size int64) error {
	d, err := readZipDir(ra, size)
	if err != nil {
		return &FormatError{Name: l.name, Err: err, Lost: zipNamesAMember(ra, size)}
	}
	if d.trailing > 0 {
		w.warn(&FormatError{Name: l.name, Err: errTrailing(d.trailing)})
	}
	l.zip = getZipDecoders()
	zl := newZipLister(l.name, d, w.lim.MaxEntries)
	var e zipEntry
	for {
		err := zl.next(&e, w.report)
		l.entries = zl.entries
		if err != nil {
			w.levelDone(l)
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := w.zipEntry(l, d, &e); err != nil {
			return err
		}
	}
}

// zipEntry reads member e of the zip level l: hands it to visit, or walks
// it if it is an archive. It returns nil to go on with l's next member
// (what went wrong with this one has been reported), or the error that
// unwinds the walk.
func (w *walker) zipEntry(l *level, d *zipDir, e *zipEntry) error {
	path := child(l, e.name)
	full := strings.Join(path, "!")
	if skip, err := w.memberSkipped(l, full); skip {
		return err
	}
	r, err := w.zipMember(l, d, e)
	if err != nil {
		if w.fatal != nil || w.trip != nil {
			return w.memberDone(l, full)
		}
		w.warn(&FormatError{Name: full, Err: err, Lost: true})
		return nil
	}
	mr := w.member(l, path, r)
	size := int64(-1)
	if e.usize <= math.MaxInt64 {
		size = int64(e.usize)
	}
	err = w.stream(path, mr, nil, size, mr)
	if w.fatal != nil || w.trip != nil {
		return w.memberDone(l, full)
	}
	if err != nil {
		if mr.err == nil || err != error(mr.err) {
			return err
		}
		w.warn(err)
	}
	return nil
}

// zipDecoders are the reusable decoders of one walker's zip level: an
// archive of 100,000 deflated members resets one inflater instead of
// allocating 100,000.
type zipDecoders struct {
	src   *source
	flate io.ReadCloser
	zstd  *zstd.Decoder
}

// zipDecoderPool holds the decoders of finished zip levels (their zstd
// decoders go to the zstd pools, which are per window).
var zipDecoderPool = sync.Pool{New: func() any { return &zipDecoders{src: newSource()} }}

func getZipDecoders() *zipDecoders { return zipDecoderPool.Get().(*zipDecoders) }

func putZipDecoders(z *zipDecoders, maxWindow int64) {
	if z.zstd != nil {
		putZstd(z.zstd, maxWindow)
		z.zstd = nil
	}
	z.src.reset(nil)
	zipDecoderPool.Put(z)
}

// zipMember returns a reader of e's decoded content: decoder, ratio meter
// and CRC check. The ratio and the window belong to the member's scope:
// a bomb member is skipped and the next one read.
func (w *walker) zipMember(l *level, d *zipDir, e *zipEntry) (io.Reader, error) {
	sr, err := d.data(e)
	if err != nil {
		return nil, err
	}
	if e.method == zipStore {
		return &crcReader{r: sr, want: e.crc}, nil
	}
	z := l.zip
	z.src.reset(sr)
	in := z.src
	var dec io.Reader
	switch e.method {
	case zipDeflate:
		if z.flate == nil {
			z.flate = flate.NewReader(in.Reader)
		} else if err := z.flate.(flate.Resetter).Reset(in.Reader, nil); err != nil {
			return nil, err
		}
		dec = z.flate
	case zipBzip2:
		dec = bzip2.NewReader(in.Reader)
	case zipZstd:
		if z.zstd == nil {
			z.zstd, err = getZstd(in.Reader, w.lim.MaxWindow)
		} else {
			err = z.zstd.Reset(in.Reader)
		}
		dec = z.zstd
	case zipXz:
		dec, err = newXzReader(in, w.lim.MaxWindow)
	case zipLZMA:
		dec, err = newZipLZMA(in, e, w.lim.MaxWindow)
	default:
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, zipMethodName(e.method))
	}
	if err != nil {
		if isWindowError(err) {
			return nil, w.tripBudget(memberScope(l.index), BudgetWindow, w.lim.MaxWindow)
		}
		return nil, err
	}
	return &crcReader{r: &ratioReader{w: w, scope: memberScope(l.index), r: dec, in: in}, want: e.crc}, nil
}

// newZipLZMA reads an LZMA member (method 14, as 7-Zip and Info-ZIP
// write it): a 4-byte preamble (the LZMA SDK version and the length of the
// properties, 5), the properties (a byte of lc, lp and pb, and the
// dictionary size), then the raw LZMA stream. ulikunitz/xz/lzma reads the
// classic .lzma header, so one is made of the properties and the size the
// directory declares; with that size the dictionary is allocated no larger
// than the member, and one larger than maxWindow is refused.
func newZipLZMA(in *source, e *zipEntry, maxWindow int64) (io.Reader, error) {
	var pre [9]byte
	if _, err := io.ReadFull(in, pre[:]); err != nil {
		return nil, fmt.Errorf("lzma: truncated properties: %w", err)
	}
	if le.Uint16(pre[2:]) != 5 {
		return nil, fmt.Errorf("lzma: properties of %d bytes, want 5", le.Uint16(pre[2:]))
	}
	hdr := make([]byte, lzma.HeaderLen)
	copy(hdr[:5], pre[4:])
	size := e.usize
	if e.flags&0x2 != 0 || size > 1<<50 { // an end marker instead of a size
		size = math.MaxUint64
	} else if dict := uint64(le.Uint32(hdr[1:])); dict > size {
		// No match reaches further back than the member's own output.
		le.PutUint32(hdr[1:], uint32(max(size, lzma.MinDictCap)))
	}
	le.PutUint64(hdr[5:], size)
	cfg := lzma.ReaderConfig{DictCap: int(min(max(maxWindow, lzma.MinDictCap), lzma.MaxDictCap, math.MaxInt32))}
	return cfg.NewReader(&prefixReader{pre: hdr, r: in.Reader})
}

// prefixReader reads pre, then r. It is an io.ByteReader, as the LZMA
// decoder wants its input: behind anything else it reads a byte a call.
type prefixReader struct {
	pre []byte
	r   *bufio.Reader
}

func (p *prefixReader) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		p.pre = p.pre[n:]
		return n, nil
	}
	return p.r.Read(b)
}

func (p *prefixReader) ReadByte() (byte, error) {
	if len(p.pre) > 0 {
		c := p.pre[0]
		p.pre = p.pre[1:]
		return c, nil
	}
	return p.r.ReadByte()
}

// zipNamesAMember reports whether the zip in ra, whose directory could not
// be read, begins with a local header that names a member: a zip cut short
// (its directory is at the end) rather than a file that only looks like
// one, so the warning is lost data rather than noise.
func zipNamesAMember(ra io.ReaderAt, size int64) bool {
	var h [zipLocalLen]byte
	if size < zipLocalLen {
		return false
	}
	if _, err := ra.ReadAt(h[:], 0); err != nil || le.Uint32(h[:]) != zipLocalSig {
		return false
	}
	n := int64(le.Uint16(h[26:]))
	return n > 0 && zipLocalLen+n <= size
}
