package archive

import (
	"compress/bzip2"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz/lzma"
)

// walkCompressed decodes a single compressed stream (gzip, bzip2, xz,
// zstd). Its content is either a tar, walked as part of this same level
// (x.tar.gz is one archive, as its name says), or one member that keeps the
// stream's own name: notes.txt.gz holds "notes.txt.gz", and an archive in
// it ("x.zip.gz") is opened one level down with its members named
// "x.zip.gz!member".
func (w *walker) walkCompressed(l *level, f Format, src *source) error {
	dec, closeDec, err := newDecoder(f, src, w.lim.MaxWindow)
	if err != nil {
		if isWindowError(err) {
			return w.tripBudget(archiveScope(l.index), BudgetWindow, w.lim.MaxWindow)
		}
		return &FormatError{Name: l.name, Err: err}
	}
	defer closeDec()
	rr := &ratioReader{w: w, scope: archiveScope(l.index), r: dec, in: src}
	br := w.getSource(rr)
	defer w.putSource(br)
	head, _ := br.Peek(HeadLen)
	if err := w.stopped(); err != nil {
		return err
	}
	if Detect(head) == Tar {
		rr.byMember, l.ratio = true, rr // judged member by member
		if err := w.walkTar(l, br); err != nil {
			return err
		}
		rr.byMember, l.ratio = false, nil
		// Read on past the tar's end blocks to the stream's own end, so
		// that its trailer is checked: a truncated or corrupt x.tar.gz is
		// reported even when every member came out whole. The ratio meter
		// and the clocks still apply to whatever follows.
		_, err := io.Copy(io.Discard, br)
		if stop := w.stopped(); stop != nil {
			return stop
		}
		return err
	}
	// The stream's one member, never over: MaxEntries is at least 1.
	w.countEntry(l)
	path := append([]string(nil), l.path...) // the stream's own name; visit may keep it
	mr := w.member(l, path, br)
	err = w.stream(path, mr, nil, -1, mr)
	if t := w.trip; t != nil && t.at == memberScope(l.index) {
		return w.memberDone(l, l.name)
	}
	if mr.err != nil && err == error(mr.err) && mr.n == 0 {
		// The stream broke before it yielded a byte: a file that only
		// looks like one (a magic number and garbage, a corrupt sample in
		// a test suite), whose content was never found. Noise, as a zip
		// whose directory cannot be read and that names no member is. A
		// stream cut short after some of its content came out is lost
		// data.
		mr.err.Lost = false
	}
	return err
}

// newDecoder returns a decoder for the stream of format f read from in, and
// a function that releases it. Decoders that would allocate a history
// buffer larger than maxWindow refuse with an error isWindowError knows.
func newDecoder(f Format, in *source, maxWindow int64) (io.Reader, func(), error) {
	switch f {
	case Gzip:
		z, err := gzip.NewReader(in.Reader) // multistream: concatenated members are one stream
		if err != nil {
			return nil, nil, err
		}
		return z, func() { z.Close() }, nil
	case Bzip2:
		return bzip2.NewReader(in.Reader), func() {}, nil
	case Xz:
		x, err := newXzReader(in, maxWindow)
		if err != nil {
			return nil, nil, err
		}
		return x, func() {}, nil
	case Zstd:
		z, err := getZstd(in.Reader, maxWindow)
		if err != nil {
			return nil, nil, err
		}
		return z, func() { putZstd(z, maxWindow) }, nil
	}
	return nil, nil, errors.New("no decoder for " + f.String())
}

// zstdMaxWindow is the largest window klauspost/compress accepts to set.
const zstdMaxWindow = 1<<41 + 7<<38

// zstdPools hold idle zstd decoders, one pool per window budget. The
// decoder allocates a frame's whole window (a ring of that size, up to
// MaxWindow: 128 MiB for zstd --long) and keeps it across streams; the Go
// runtime backs fresh pages only as they are written, but clears reused
// memory whole, which for a 128 MiB window costs 0.7 s of CPU and makes
// all of it resident. A pooled decoder is reset, not rebuilt, so a walk of
// many such files pays that once per decoder in use; idle decoders go with
// the next garbage collections.
var zstdPools sync.Map // uint64 window → *sync.Pool of *zstd.Decoder

func zstdWindow(maxWindow int64) uint64 {
	return uint64(max(min(maxWindow, zstdMaxWindow), zstd.MinWindowSize))
}

// getZstd returns a decoder of in from the pool, or a new one.
func getZstd(in io.Reader, maxWindow int64) (*zstd.Decoder, error) {
	win := zstdWindow(maxWindow)
	if p, ok := zstdPools.Load(win); ok {
		if d, ok := p.(*sync.Pool).Get().(*zstd.Decoder); ok {
			if err := d.Reset(in); err == nil {
				return d, nil
			}
			d.Close()
		}
	}
	return newZstd(in, maxWindow)
}

// putZstd returns a decoder to its pool, holding no reference to its
// input.
func putZstd(d *zstd.Decoder, maxWindow int64) {
	if d.Reset(nil) != nil {
		return
	}
	win := zstdWindow(maxWindow)
	p, _ := zstdPools.LoadOrStore(win, &sync.Pool{})
	p.(*sync.Pool).Put(d)
}

// newZstd returns a zstd decoder that decodes on the calling goroutine
// (concurrency 1 starts no goroutines, so nothing can leak) and refuses
// frames whose window exceeds maxWindow.
func newZstd(in io.Reader, maxWindow int64) (*zstd.Decoder, error) {
	win := zstdWindow(maxWindow)
	return zstd.NewReader(in,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(win),
		zstd.WithDecoderMaxMemory(win))
}

// isWindowError reports whether a decoder refused a stream for the memory
// its window or dictionary would take.
func isWindowError(err error) bool {
	var xe *xzWindowError
	var le *lzma.ErrDictSize
	return errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) ||
		errors.As(err, &xe) || errors.As(err, &le)
}
