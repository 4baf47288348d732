package scan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// This file builds the archives the engine tests scan, in memory and at
// run time, so that no archive with a planted secret is checked in (the
// repository's own scan would find it) and each test states its input in
// a line. bzip2 has no Go encoder: its samples are in testdata, made with
// bzip2(1) from fake secrets (see readTestdata).

// member is one file of an archive being built.
type member struct {
	name string
	data string
}

func zipOf(t testing.TB, method uint16, files ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
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

func tarOf(t testing.TB, files ...member) []byte {
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

func zstdOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
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

func xzOf(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 1 << 20}.NewWriter(&b)
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

// readTestdata reads a checked-in sample. The bzip2 ones were made with
//
//	printf 'line one\nline two\nkey=SECRET_000000000000000000000065\n' > app.env
//	tar --format=ustar -cf - app.env | bzip2 -9 > testdata/secret.tar.bz2
//	bzip2 -9 < app.env > testdata/app.env.bz2
//
// (the secret is secret(100): 0x65 = 101), and the bombs zero1g.bz2,
// zero1g.zst and zero256m.xz (1 GiB, 1 GiB and 256 MiB of zeros) with
// bzip2 -9, zstd -19 and xz -9, as in scan/archive's testdata.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fillDeflate returns a raw deflate stream of mib MiB of the byte fill,
// at about 800:1, built in time proportional to its compressed size:
// once the compressor's window (32 KiB) is all fill, each further flushed
// block compresses to the same bytes, so the stream is the first block's
// output, the steady block's output repeated, and the final block. The
// blocks are 64 KiB, so that only 192 KiB is ever compressed (the race
// detector makes compressing slow).
func fillDeflate(t testing.TB, fill byte, mib int) []byte {
	t.Helper()
	const blockSize = 64 << 10
	var out bytes.Buffer
	w, err := flate.NewWriter(&out, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte{fill}, blockSize)
	var chunks [3][]byte
	for i := range chunks {
		w.Write(block)
		w.Flush()
		chunks[i] = bytes.Clone(out.Bytes())
		out.Reset()
	}
	w.Close()
	tail := out.Bytes()
	if !bytes.Equal(chunks[1], chunks[2]) {
		t.Fatal("fillDeflate: compressor output is not periodic")
	}
	s := bytes.Clone(chunks[0])
	for range mib*(1<<20/blockSize) - 1 {
		s = append(s, chunks[1]...)
	}
	return append(s, tail...)
}

// zipBomb returns a zip of n members, each mib MiB of the byte fill
// deflated. A fill of 'a' makes a text bomb, which the scan must decode
// until a budget stops it; a fill of 0 makes a binary one, which it skips
// after the first chunk. The CRC-32 is the content's own, so that a member
// small enough to be read whole under a test's budgets is not reported as
// corrupt.
func zipBomb(t testing.TB, fill byte, n, mib int) []byte {
	t.Helper()
	data := fillDeflate(t, fill, mib)
	block := bytes.Repeat([]byte{fill}, 1<<20)
	var sum uint32
	for range mib {
		sum = crc32.Update(sum, crc32.IEEETable, block)
	}
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for i := range n {
		fw, err := w.CreateRaw(&zip.FileHeader{
			Name: "bomb" + itoa(i) + ".txt", Method: zip.Deflate, CRC32: sum,
			CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(mib) << 20,
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
