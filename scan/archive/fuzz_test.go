package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// The fuzz targets share one property check, fuzzWalk, and differ in the
// name the input goes by and the seeds that steer the fuzzer into one
// reader. Seeds come from the builders below (f.Add) and from
// testdata/fuzz/FuzzWalk*/: samples made by the real tools (zip, tar,
// bzip2, xz, zstd) and inputs the fuzzer found interesting.

// fuzzLimits are small budgets, so that no input can run long or big.
func fuzzLimits(dir string) Limits {
	return Limits{
		MaxDepth:        3,
		MaxEntries:      256,
		MaxMemberBytes:  1 << 20,
		MaxArchiveBytes: 4 << 20,
		MaxRootBytes:    8 << 20,
		MaxDuration:     2 * time.Second,
		MaxWindow:       1 << 20,
		SpoolMemory:     4 << 10, // small: larger nested zips exercise the temp file
		TempDir:         dir,
	}
}

// fuzzWalk walks data as name, both with ReadAt and as a plain stream, and
// checks what must hold for any input: no panic, no error (visit never
// fails), only the package's own warnings, members that respect the
// budgets and are named by their path, and no temporary file left behind.
func fuzzWalk(t *testing.T, name string, data []byte) {
	dir := t.TempDir()
	lim := fuzzLimits(dir)
	for _, stream := range []bool{false, true} {
		var r io.Reader = bytes.NewReader(data)
		if stream {
			r = plainReader{r}
		}
		var total int64
		err := Walk(context.Background(), name, r, int64(len(data)), lim, func(m Member, r io.Reader) error {
			if m.Name != strings.Join(m.Path, "!") || m.Depth > lim.MaxDepth || len(m.Path) == 0 || m.Path[0] != name {
				t.Fatalf("bad member %+v", m)
			}
			n, err := io.Copy(io.Discard, r)
			if m.Depth > 0 && n > lim.MaxMemberBytes {
				t.Fatalf("member %s: %d bytes over the member budget", m.Name, n)
			}
			total += n
			return err
		}, func(err error) {
			var be *BudgetError
			var fe *FormatError
			if !errors.As(err, &be) && !errors.As(err, &fe) {
				t.Fatalf("warning of unknown kind %T: %v", err, err)
			}
		})
		if err != nil {
			t.Fatalf("Walk: %v", err)
		}
		if total > lim.MaxRootBytes+int64(len(data))+bufSize {
			t.Fatalf("visited %d bytes, over the root budget", total)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func FuzzWalkZip(f *testing.F) {
	f.Add(zipOf(f, zipDeflate, file{"a.txt", secret}, file{"dir/", ""}, file{"b.env", "B=1"}))
	f.Add(zipOf(f, zipStore, file{"in.zip", string(zipOf(f, zipDeflate, file{"x", "y"}))}))
	f.Add(zipOf(f, zipZstd, file{"z", secret}))
	f.Add(zipOf(f, zipXz, file{"x", secret}))
	f.Add(rawZip([]rawMember{storedMember("s", []byte(secret)), storedMember("t", []byte("t"))}, true))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, "f.zip", data) })
}

func FuzzWalkTar(f *testing.F) {
	f.Add(tarOf(f, file{"a.txt", secret}, file{"../../etc/passwd", "p"}))
	f.Add(tarOf(f, file{"in.tar", string(tarOf(f, file{"x", "y"}))}))
	f.Add(tarOf(f, file{"in.zip", string(zipOf(f, zipDeflate, file{"x", "y"}))}))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, "f.tar", data) })
}

func FuzzWalkGzip(f *testing.F) {
	f.Add(gzipOf(f, []byte(secret)))
	f.Add(gzipOf(f, tarOf(f, file{"a.txt", secret})))
	f.Add(append(gzipOf(f, []byte("one")), gzipOf(f, []byte("two"))...))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, "f.gz", data) })
}

func FuzzWalkBzip2(f *testing.F) {
	f.Add([]byte("BZh91AY&SY"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, "f.bz2", data) })
}

func FuzzWalkXz(f *testing.F) {
	f.Add(xzOf(f, []byte(secret), xz.WriterConfig{}))
	f.Add(xzOf(f, tarOf(f, file{"a.txt", secret}), xz.WriterConfig{CheckSum: xz.CRC32}))
	f.Add(xzOf(f, []byte(secret), xz.WriterConfig{CheckSum: xz.SHA256, DictCap: 1 << 16}))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, "f.xz", data) })
}

func FuzzWalkZstd(f *testing.F) {
	f.Add(zstdOf(f, []byte(secret)))
	f.Add(zstdOf(f, tarOf(f, file{"a.txt", secret}), zstd.WithEncoderCRC(true)))
	f.Add(zstdOf(f, bytes.Repeat([]byte(secret), 1000), zstd.WithWindowSize(1<<20)))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, "f.zst", data) })
}

// FuzzDetect checks that sniffing any bytes is safe and that a format is
// only claimed with its magic present.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("PK\x03\x04"))
	f.Add(tarOf(f, file{"a", "b"})[:HeadLen])
	f.Fuzz(func(t *testing.T, head []byte) {
		switch Detect(head) {
		case Gzip:
			if !bytes.HasPrefix(head, magicGzip) {
				t.Fatal("gzip without magic")
			}
		case Tar:
			if len(head) < HeadLen {
				t.Fatal("tar from a short head")
			}
		}
	})
}
