package archive

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"
	"unicode/utf16"

	"github.com/klauspost/compress/flate"
	"github.com/ulikunitz/xz/lzma"
)

// This file reads 7z archives: it opens the header (sevenhead.go), lists
// the members in parts, and decodes a part's folder.
//
// A folder is a chain of coders whose output is the data of one or more
// members in a row (a solid block): a member can only be reached by
// decoding everything before it in its folder. So the unit of work is a
// part, the members of one folder, read in order through one decoder;
// different parts can be read at once (Archive). A non-solid archive has
// a folder per member, and so a part per member.
//
// Coders decoded: Copy, LZMA and LZMA2 (ulikunitz/xz/lzma, each
// dictionary held to MaxWindow and to the folder's own size), Deflate,
// BZip2, zstd (the 7-Zip-zstd method), and the x86 BCJ and Delta filters
// (filter.go). AES-encrypted folders are reported as encrypted; the other
// methods (BCJ2, ARM and other branch filters, PPMd, Deflate64, ...) as
// unsupported, member by member.

// 7z coder method ids.
var (
	szCopy    = []byte{0x00}
	szDelta   = []byte{0x03}
	szX86     = []byte{0x03, 0x03, 0x01, 0x03}
	szLZMA    = []byte{0x03, 0x01, 0x01}
	szLZMA2   = []byte{0x21}
	szDeflate = []byte{0x04, 0x01, 0x08}
	szBzip2   = []byte{0x04, 0x02, 0x02}
	szZstd    = []byte{0x04, 0xf7, 0x11, 0x01}
	szAES     = []byte{0x06, 0xf1, 0x07, 0x01}
)

var szMethodNames = map[string]string{
	"\x03\x03\x01\x1b": "BCJ2", "\x03\x03\x02\x05": "PPC", "\x03\x03\x04\x01": "IA64",
	"\x03\x03\x05\x01": "ARM", "\x03\x03\x07\x01": "ARMT", "\x03\x03\x08\x05": "SPARC", "\x0a": "ARM64",
	"\x0b": "RISCV", "\x03\x04\x01": "PPMd", "\x04\x01\x09": "Deflate64", "\x04\xf7\x11\x02": "Brotli",
	"\x04\xf7\x11\x04": "LZ4", "\x04\xf7\x11\x05": "LZ5", "\x04\xf7\x11\x06": "Lizard",
}

func szMethodName(m []byte) string {
	s := "7z method " + hex.EncodeToString(m)
	if n, ok := szMethodNames[string(m)]; ok {
		s += " (" + n + ")"
	}
	return s
}

// szSupported returns nil if every coder of f can be decoded, ErrEncrypted
// or an ErrUnsupported error naming the method otherwise.
func szSupported(f *szFolder) error {
	for i := range f.coders {
		c := &f.coders[i]
		m := c.method
		switch {
		case bytes.Equal(m, szAES):
			return ErrEncrypted
		case c.numIn != 1:
			return fmt.Errorf("%w: %s", ErrUnsupported, szMethodName(m))
		case bytes.Equal(m, szCopy), bytes.Equal(m, szDelta), bytes.Equal(m, szX86), bytes.Equal(m, szLZMA),
			bytes.Equal(m, szLZMA2), bytes.Equal(m, szDeflate), bytes.Equal(m, szBzip2), bytes.Equal(m, szZstd):
		default:
			return fmt.Errorf("%w: %s", ErrUnsupported, szMethodName(m))
		}
	}
	return nil
}

// szArchive is an opened 7z: its parsed header, read from ra.
type szArchive struct {
	ra   io.ReaderAt
	size int64
	h    *szHeader
}

// szBudgetError is a budget the header itself is over: the archive is not
// opened.
type szBudgetError struct {
	budget Budget
	limit  int64
}

func (e *szBudgetError) Error() string { return "7z: " + e.budget.String() + " budget exceeded" }

// openSz reads and parses the header of the 7z in ra. lost, with an error,
// says whether the archive declared members that are now hidden.
func openSz(ra io.ReaderAt, size int64, lim *Limits) (z *szArchive, lost bool, err error) {
	off, n, crc, err := readSzSignature(ra, size)
	if err != nil {
		return nil, strings.Contains(err.Error(), "truncated?"), err
	}
	z = &szArchive{ra: ra, size: size, h: &szHeader{}}
	if n == 0 {
		return z, false, nil // an empty archive
	}
	if n > lim.MaxHeaderBytes {
		return nil, true, &szBudgetError{BudgetHeader, lim.MaxHeaderBytes}
	}
	raw := make([]byte, n)
	if _, err := ra.ReadAt(raw, off); err != nil {
		return nil, true, fmt.Errorf("7z: reading the header: %w", err)
	}
	if crc32.ChecksumIEEE(raw) != crc {
		return nil, true, errSz("header CRC mismatch")
	}
	left := szMemoryPerHeaderByte * lim.MaxHeaderBytes
	if lim.MaxHeaderBytes > math.MaxInt64/szMemoryPerHeaderByte {
		left = math.MaxInt64
	}
	if raw[0] == szEncodedHeader {
		if raw, err = z.decodeHeader(raw[1:], lim, &left); err != nil {
			return nil, true, szMemoryBudget(err, lim)
		}
	}
	if len(raw) == 0 || raw[0] != szIDHeader {
		return nil, true, errSz("bad header")
	}
	if z.h, err = parseSzHeader(raw[1:], &left); err != nil {
		return nil, true, szMemoryBudget(err, lim)
	}
	return z, false, nil
}

// szMemoryBudget turns a header too costly to parse into the header
// budget.
func szMemoryBudget(err error, lim *Limits) error {
	if err == errSzMemory {
		return &szBudgetError{BudgetHeader, lim.MaxHeaderBytes}
	}
	return err
}

// decodeHeader decodes an encoded header: a StreamsInfo describing the one
// folder whose output is the header.
func (z *szArchive) decodeHeader(b []byte, lim *Limits, left *int64) ([]byte, error) {
	eh := &szHeader{}
	r := &szReader{b: b, left: left}
	if err := r.streamsInfo(eh); err != nil {
		return nil, err
	}
	if len(eh.folders) != 1 {
		return nil, errSz("encoded header of more than one folder")
	}
	if err := eh.check(); err != nil && !strings.Contains(err.Error(), "substreams") {
		return nil, err
	}
	f := &eh.folders[0]
	if err := szSupported(f); err != nil {
		return nil, fmt.Errorf("7z header: %w", err)
	}
	n := f.unpackSize()
	if n > uint64(lim.MaxHeaderBytes) {
		return nil, &szBudgetError{BudgetHeader, lim.MaxHeaderBytes}
	}
	rd, _, err := z.folderReader(eh, 0, lim.MaxWindow)
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(rd, out); err != nil {
		return nil, fmt.Errorf("7z: decoding the header: %w", err)
	}
	if f.hasCRC && crc32.ChecksumIEEE(out) != f.crc {
		return nil, errSz("encoded header CRC mismatch")
	}
	return out, nil
}

// folderReader returns a reader of folder fi's output, and the source its
// packed stream is read through (for the ratio meter).
func (z *szArchive) folderReader(h *szHeader, fi int, maxWindow int64) (io.Reader, *source, error) {
	f := &h.folders[fi]
	if err := szSupported(f); err != nil {
		return nil, nil, err
	}
	if len(f.packed) != 1 {
		return nil, nil, fmt.Errorf("%w: 7z folder of %d packed streams", ErrUnsupported, len(f.packed))
	}
	off, err := h.packOffset(f.firstPack)
	if err != nil {
		return nil, nil, err
	}
	psize := h.packSizes[f.firstPack]
	if off > z.size || psize > uint64(z.size-off) {
		return nil, nil, errSz("packed stream out of range (truncated?)")
	}
	src := newSource()
	src.reset(io.NewSectionReader(z.ra, off, int64(psize)))
	c, _, _ := f.mainOut()
	r, err := z.coderReader(f, c, src, maxWindow, 0)
	return r, src, err
}

// coderReader returns the output of coder ci of f, whose input is either
// the packed stream or another coder's output.
func (z *szArchive) coderReader(f *szFolder, ci int, src *source, maxWindow int64, depth int) (io.Reader, error) {
	if depth > szMaxCoders {
		return nil, errSz("coder chain loops")
	}
	c := &f.coders[ci]
	var in io.Reader
	if f.packed[0] == c.firstIn {
		in = src.Reader
	} else {
		out := -1
		for j, b := range f.bindIn {
			if b == c.firstIn {
				out = f.bindOut[j]
			}
		}
		next := -1
		for j := range f.coders {
			if f.coders[j].firstOut == out {
				next = j
			}
		}
		if out < 0 || next < 0 {
			return nil, errSz("coder input not bound")
		}
		r, err := z.coderReader(f, next, src, maxWindow, depth+1)
		if err != nil {
			return nil, err
		}
		in = r
	}
	r, err := newSzCoder(c, in, maxWindow)
	if err != nil {
		return nil, err
	}
	return &exactReader{r: r, n: c.unpackSize}, nil
}

// newSzCoder returns the decoder of one coder reading in.
func newSzCoder(c *szCoder, in io.Reader, maxWindow int64) (io.Reader, error) {
	m, p := c.method, c.props
	switch {
	case bytes.Equal(m, szCopy):
		return in, nil
	case bytes.Equal(m, szDelta):
		if len(p) != 1 {
			return nil, errSz("bad Delta properties")
		}
		return newDeltaReader(in, int(p[0])+1), nil
	case bytes.Equal(m, szX86):
		if len(p) != 0 {
			return nil, fmt.Errorf("%w: x86 BCJ with a start offset", ErrUnsupported)
		}
		return newX86Reader(in), nil
	case bytes.Equal(m, szDeflate):
		return flate.NewReader(byteReader(in)), nil
	case bytes.Equal(m, szBzip2):
		return bzip2.NewReader(byteReader(in)), nil
	case bytes.Equal(m, szZstd):
		return newZstd(in, maxWindow) // not pooled: a folder's coders are not closed
	case bytes.Equal(m, szLZMA):
		if len(p) != 5 {
			return nil, errSz("bad LZMA properties")
		}
		hdr := make([]byte, lzma.HeaderLen)
		copy(hdr, p)
		if dict := uint64(le.Uint32(hdr[1:])); dict > c.unpackSize {
			le.PutUint32(hdr[1:], uint32(max(c.unpackSize, lzma.MinDictCap)))
		}
		le.PutUint64(hdr[5:], c.unpackSize)
		cfg := lzma.ReaderConfig{DictCap: int(min(max(maxWindow, lzma.MinDictCap), lzma.MaxDictCap, math.MaxInt32))}
		return cfg.NewReader(&prefixReader{pre: hdr, r: byteReader(in)})
	case bytes.Equal(m, szLZMA2):
		if len(p) != 1 || p[0] > 40 {
			return nil, errSz("bad LZMA2 properties")
		}
		dict := uint64(0xffffffff)
		if p[0] < 40 {
			dict = uint64(2|p[0]&1) << (p[0]/2 + 11)
		}
		// No match reaches further back than the folder's own output.
		dict = max(min(dict, c.unpackSize), lzma.MinDictCap)
		if dict > uint64(maxWindow) {
			return nil, &xzWindowError{dict: int64(min(dict, math.MaxInt64)), max: maxWindow}
		}
		cfg := lzma.Reader2Config{DictCap: int(dict)}
		return cfg.NewReader2(byteReader(in))
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupported, szMethodName(m))
}

// byteReader gives r the ReadByte method decoders want, buffering it if
// it lacks one.
func byteReader(r io.Reader) *bufio.Reader {
	if b, ok := r.(*bufio.Reader); ok {
		return b
	}
	return bufio.NewReaderSize(r, 4<<10)
}

// exactReader reads exactly n bytes of r: an early end is an error, and
// anything past n is left unread.
type exactReader struct {
	r io.Reader
	n uint64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	if uint64(len(p)) > e.n {
		p = p[:e.n]
	}
	n, err := e.r.Read(p)
	e.n -= uint64(n)
	switch {
	case e.n == 0 && (err == nil || err == io.EOF):
		return n, nil // io.EOF on the next call
	case err == io.EOF:
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// szFile is a member of a 7z part.
type szFile struct {
	name  string // the member's own name
	sub   int    // its substream, -1 for an empty file
	size  uint64
	crc   uint32
	check bool
}

// szPart is a run of members read through one folder (folder -1: empty
// files only), in order.
type szPart struct {
	folder int
	files  []szFile
}

// szLister lists a 7z's members in parts. Like zipLister it counts every
// file against MaxEntries, passes over directories and anti-items, and
// names the members it will not return: those past MaxEntries, and those
// in folders that are encrypted or use an unsupported method.
type szLister struct {
	name       string // the archive's full name
	h          *szHeader
	maxEntries int
	entries    int
	file       int // next file
	sub        int // next substream
	folder     int // folder of sub
	empty      int // empty-stream files seen
	names      []byte
	pending    *szFile // a file read that starts the next part
	pendingF   int
}

func newSzLister(name string, z *szArchive, maxEntries int) *szLister {
	return &szLister{name: name, h: z.h, maxEntries: maxEntries, names: z.h.names}
}

// nextName decodes the next UTF-16 name.
func (sl *szLister) nextName() (string, error) {
	if sl.names == nil {
		return fmt.Sprintf("file%d", sl.file), nil // an archive without names
	}
	for i := 0; i+1 < len(sl.names); i += 2 {
		if sl.names[i] == 0 && sl.names[i+1] == 0 {
			u := make([]uint16, i/2)
			for j := range u {
				u[j] = le.Uint16(sl.names[2*j:])
			}
			sl.names = sl.names[i+2:]
			return string(utf16.Decode(u)), nil
		}
	}
	return "", errSz("names run out before the files")
}

// next returns the next part to read; io.EOF at the end, a *FormatError
// if the header turns out broken, or the error report returned.
func (sl *szLister) next(report func(error) error) (szPart, error) {
	part := szPart{folder: -1}
	if sl.pending != nil {
		part.folder = sl.pendingF
		part.files = append(part.files, *sl.pending)
		sl.pending = nil
	}
	h := sl.h
	for sl.file < h.numFiles {
		name, err := sl.nextName()
		if err != nil {
			return part, &FormatError{Name: sl.name, Err: err, Lost: true}
		}
		i := sl.file
		sl.file++
		sl.entries++
		full := sl.name + "!" + name
		f := szFile{name: name, sub: -1}
		folder := -1
		if bitAt(h.emptyStream, i) {
			e := sl.empty
			sl.empty++
			if !bitAt(h.emptyFile, e) || bitAt(h.anti, e) {
				continue // a directory, or an anti-item (a deletion)
			}
		} else {
			f.sub = sl.sub
			sl.sub++
			for sl.folder < len(h.folders) && f.sub >= h.folders[sl.folder].firstSub+h.folders[sl.folder].numSub {
				sl.folder++
			}
			if sl.folder >= len(h.folders) {
				return part, &FormatError{Name: sl.name, Err: errSz("file without a folder"), Lost: true}
			}
			folder = sl.folder
			f.size, f.crc, f.check = h.subSizes[f.sub], h.subCRCs[f.sub], h.subHasCRC[f.sub]
		}
		var skip error
		if sl.entries > sl.maxEntries {
			skip = &BudgetError{Archive: sl.name, Member: full, Budget: BudgetEntries, Limit: int64(sl.maxEntries)}
		} else if folder >= 0 {
			if err := szSupported(&h.folders[folder]); err != nil {
				skip = &FormatError{Name: full, Err: err, Lost: true}
			}
		}
		if skip != nil {
			if err := report(skip); err != nil {
				return part, err
			}
			continue
		}
		if folder >= 0 && part.folder >= 0 && folder != part.folder {
			sl.pending, sl.pendingF = &f, folder
			return part, nil
		}
		if folder >= 0 {
			part.folder = folder
		}
		part.files = append(part.files, f)
	}
	if len(part.files) > 0 {
		return part, nil
	}
	return part, io.EOF
}

// walkSeven walks the members of the 7z in ra, one part after another.
func (w *walker) walkSeven(l *level, ra io.ReaderAt, size int64) error {
	z, lost, err := openSz(ra, size, w.lim)
	if err != nil {
		var be *szBudgetError
		if errors.As(err, &be) {
			return w.tripBudget(archiveScope(l.index), be.budget, be.limit)
		}
		if isWindowError(err) {
			return w.tripBudget(archiveScope(l.index), BudgetWindow, w.lim.MaxWindow)
		}
		return &FormatError{Name: l.name, Err: err, Lost: lost}
	}
	sl := newSzLister(l.name, z, w.lim.MaxEntries)
	for {
		p, err := sl.next(w.report)
		l.entries = sl.entries
		if err != nil {
			w.levelDone(l)
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := w.szPart(l, z, &p); err != nil {
			return err
		}
	}
}

// szPart reads the members of one part of the 7z level l through its
// folder's decoder. A member a budget of its own cuts short (its bytes, or
// its own inflation ratio) is skipped and the folder read on to the next
// member; a decoder that fails leaves the rest of the folder unreadable,
// and each member left is named.
func (w *walker) szPart(l *level, z *szArchive, p *szPart) error {
	var folder *ratioReader
	var dead error // why the rest of the folder cannot be read
	if p.folder >= 0 {
		rd, src, err := z.folderReader(z.h, p.folder, w.lim.MaxWindow)
		switch {
		case isWindowError(err):
			dead = &BudgetError{Archive: l.name, Budget: BudgetWindow, Limit: w.lim.MaxWindow}
		case err != nil:
			dead = err
		default:
			folder = &ratioReader{w: w, scope: memberScope(l.index), r: rd, in: src}
		}
	}
	for i := range p.files {
		f := &p.files[i]
		path := child(l, f.name)
		full := strings.Join(path, "!")
		if skip, err := w.memberSkipped(l, full); skip {
			if err != nil {
				return err
			}
			continue
		}
		if dead != nil {
			if err := w.szDead(l, full, dead); err != nil {
				return err
			}
			continue
		}
		var r io.Reader = bytes.NewReader(nil)
		var sub *exactReader
		if f.sub >= 0 {
			folder.rebase() // each member's ratio is its own
			sub = &exactReader{r: folder, n: f.size}
			r = sub
			if f.check {
				r = &crcReader{r: sub, want: f.crc}
			}
		}
		mr := w.member(l, path, r)
		err := w.stream(path, mr, nil, int64(min(f.size, math.MaxInt64)), mr)
		if t := w.trip; t != nil && t.at == memberScope(l.index) && t.budget == BudgetWindow {
			dead = &BudgetError{Archive: l.name, Budget: t.budget, Limit: t.limit}
		}
		if w.fatal != nil || w.trip != nil {
			if err := w.memberDone(l, full); err != nil {
				return err
			}
		} else if err != nil {
			if mr.err == nil || err != error(mr.err) {
				return err
			}
			w.warn(err)
			dead = mr.err.Err
			continue
		}
		if dead == nil && sub != nil && sub.n > 0 {
			// The member was not read to its end (visit stopped, or a
			// budget cut it): the next one starts after it.
			folder.paused = true
			if err := w.szSkip(l, path, sub); err != nil {
				dead = err
			}
			folder.paused = false
			if w.fatal != nil {
				return w.fatal
			}
		}
	}
	return nil
}

// szSkip reads the rest of a member's substream and discards it, under the
// archive's budgets and clocks; the error is why the folder broke, if it
// did.
func (w *walker) szSkip(l *level, path []string, sub *exactReader) error {
	mr := w.member(l, path, sub)
	mr.discard = true
	if w.scratch == nil {
		w.scratch = make([]byte, bufSize)
	}
	for {
		_, err := mr.Read(w.scratch)
		switch {
		case err == nil:
			continue
		case err == io.EOF:
			return nil
		case w.trip != nil:
			if w.trip.at == memberScope(l.index) {
				t := w.clearTrip()
				return &BudgetError{Archive: l.name, Budget: t.budget, Limit: t.limit}
			}
			return nil // an archive-scope hit: memberSkipped names the rest
		case mr.err != nil:
			return mr.err.Err
		}
		return err
	}
}

// szDead names a member of a folder that can no longer be read.
func (w *walker) szDead(l *level, full string, why error) error {
	var be *BudgetError
	if errors.As(why, &be) {
		return w.budget(&BudgetError{Archive: l.name, Member: full, Budget: be.Budget, Limit: be.Limit})
	}
	w.warn(&FormatError{Name: full, Err: why, Lost: true})
	return nil
}
