package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// This file builds the archives the tests walk, with the standard library
// and the same modules the package reads with, so that each test states
// its input in a line. bzip2 has no Go encoder: its samples are in
// testdata, made with bzip2(1).

type file struct {
	name string
	data string
}

func zipOf(t testing.TB, method uint16, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	w.RegisterCompressor(zipZstd, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
	w.RegisterCompressor(zipXz, func(w io.Writer) (io.WriteCloser, error) { return &lazyXz{w: w}, nil })
	for _, f := range files {
		fw, err := w.CreateHeader(&zip.FileHeader{Name: f.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(fw, f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sfxAbsolute returns stub followed by a zip of files whose offsets count
// from the start of the whole file, as zip -A leaves a self-extractor.
func sfxAbsolute(t testing.TB, stub []byte, files ...file) []byte {
	t.Helper()
	b := bytes.NewBuffer(bytes.Clone(stub))
	w := zip.NewWriter(b)
	w.SetOffset(int64(len(stub)))
	for _, f := range files {
		fw, err := w.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, f.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// lazyXz compresses on Close: xz.NewWriter writes the stream header at
// once, before archive/zip has written the member's local header.
type lazyXz struct {
	w   io.Writer
	buf bytes.Buffer
}

func (l *lazyXz) Write(p []byte) (int, error) { return l.buf.Write(p) }

func (l *lazyXz) Close() error {
	x, err := xz.NewWriter(l.w)
	if err != nil {
		return err
	}
	if _, err := x.Write(l.buf.Bytes()); err != nil {
		return err
	}
	return x.Close()
}

func tarOf(t testing.TB, files ...file) []byte {
	t.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, f := range files {
		if err := w.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func gzipOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := kgzip.NewWriter(&b)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func zstdOf(t testing.TB, data []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func xzOf(t testing.TB, data []byte, cfg xz.WriterConfig) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := cfg.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// zeroDeflate returns a raw deflate stream of mib MiB of zero bytes, at
// about 1000:1, in time proportional to its compressed size: once the
// compressor's window is all zeros, each further flushed MiB compresses to
// the same bytes, so the stream is the first MiB's output, the steady
// MiB's output repeated, and the final block.
func zeroDeflate(t testing.TB, mib int) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	var chunks [3][]byte
	for i := range chunks {
		w.Write(zeros)
		w.Flush()
		chunks[i] = bytes.Clone(out.Bytes())
		out.Reset()
	}
	w.Close()
	tail := out.Bytes()
	if !bytes.Equal(chunks[1], chunks[2]) {
		t.Fatal("zeroDeflate: compressor output is not periodic")
	}
	s := bytes.Clone(chunks[0])
	for range mib - 1 {
		s = append(s, chunks[1]...)
	}
	return append(s, tail...)
}

// rawZip writes a zip by hand from members whose deflate data is given,
// so that sizes and CRCs can be anything (a bomb never gets to check its
// CRC). With overlap, every central record after the first points at the
// first member's data: Fifield's non-recursive bomb, which makes n
// members out of one.
type rawMember struct {
	name  string
	data  []byte // compressed
	usize uint64
	crc   uint32
	flags uint16
	meth  uint16
}

func rawZip(members []rawMember, overlap bool) []byte {
	var b bytes.Buffer
	u16 := func(v uint16) { binary.Write(&b, binary.LittleEndian, v) }
	u32 := func(v uint32) { binary.Write(&b, binary.LittleEndian, v) }
	u64 := func(v uint64) { binary.Write(&b, binary.LittleEndian, v) }
	offs := make([]uint64, len(members))
	for i, m := range members {
		if overlap && i > 0 {
			offs[i] = offs[0]
			continue
		}
		offs[i] = uint64(b.Len())
		u32(zipLocalSig)
		u16(45)
		u16(m.flags)
		u16(m.meth)
		u32(0) // time, date
		u32(m.crc)
		u32(0xffffffff)
		u32(0xffffffff)
		u16(uint16(len(m.name)))
		u16(20)
		b.WriteString(m.name)
		u16(1) // zip64 extra: usize, csize
		u16(16)
		u64(m.usize)
		u64(uint64(len(m.data)))
		b.Write(m.data)
	}
	dir := uint64(b.Len())
	for i, m := range members {
		if overlap { // every record describes member 0's data, under its own name
			name := m.name
			m = members[0]
			m.name = name
		}
		u32(zipCentralSig)
		u16(45)
		u16(45)
		u16(m.flags)
		u16(m.meth)
		u32(0)
		u32(m.crc)
		u32(0xffffffff)
		u32(0xffffffff)
		u16(uint16(len(m.name)))
		u16(28)
		u16(0)
		u16(0)
		u16(0)
		u32(0)
		u32(0xffffffff)
		b.WriteString(m.name)
		u16(1)
		u16(24)
		u64(m.usize)
		u64(uint64(len(m.data)))
		u64(offs[i])
	}
	dirSize := uint64(b.Len()) - dir
	end64 := uint64(b.Len())
	u32(zip64EndSig)
	u64(44)
	u16(45)
	u16(45)
	u32(0)
	u32(0)
	u64(uint64(len(members)))
	u64(uint64(len(members)))
	u64(dirSize)
	u64(dir)
	u32(zip64LocatorSig)
	u32(0)
	u64(end64)
	u32(1)
	u32(zipEndSig)
	u16(0)
	u16(0)
	u16(0xffff)
	u16(0xffff)
	u32(0xffffffff)
	u32(0xffffffff)
	u16(0)
	return b.Bytes()
}

// bombMember is a deflated member of mib MiB of zeros.
func bombMember(t testing.TB, name string, mib int) rawMember {
	return rawMember{name: name, data: zeroDeflate(t, mib), usize: uint64(mib) << 20, meth: zipDeflate}
}

// storedMember stores data as it is, with its true CRC.
func storedMember(name string, data []byte) rawMember {
	return rawMember{name: name, data: data, usize: uint64(len(data)), crc: crc32.ChecksumIEEE(data), meth: zipStore}
}

// result is what one walk produced.
type result struct {
	members  map[string]string // name → content read
	order    []Member
	warnings []error
	err      error
}

// walkAll walks data named name under lim, reading every member whole.
func walkAll(t testing.TB, name string, data []byte, lim Limits) result {
	t.Helper()
	return walkReader(t, name, bytes.NewReader(data), int64(len(data)), lim)
}

func walkReader(t testing.TB, name string, r io.Reader, size int64, lim Limits) result {
	t.Helper()
	res := result{members: map[string]string{}}
	res.err = Walk(context.Background(), name, r, size, lim, func(m Member, r io.Reader) error {
		b, err := io.ReadAll(r)
		res.members[m.Name] = string(b)
		res.order = append(res.order, m)
		return err
	}, func(err error) { res.warnings = append(res.warnings, err) })
	return res
}

// plainReader hides every method but Read, so that a zip must be spooled.
type plainReader struct{ r io.Reader }

func (p plainReader) Read(b []byte) (int, error) { return p.r.Read(b) }
