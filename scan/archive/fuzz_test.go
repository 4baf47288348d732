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

// fuzzWalk walks data as name, with ReadAt, as a plain stream and, for a
// zip or 7z, through Open with its parts read one after another, and
// checks what must hold for any input: no panic, no error (visit never
// fails), only the package's own warnings, members that respect the
// budgets and are named by their path, and nothing left in dir, the temp
// dir the fuzz target made once for all its inputs (a per-input
// t.TempDir costs more than most walks).
func fuzzWalk(t *testing.T, dir, name string, data []byte) {
	lim := fuzzLimits(dir)
	warn := func(err error) {
		var be *BudgetError
		var fe *FormatError
		if !errors.As(err, &be) && !errors.As(err, &fe) {
			t.Fatalf("warning of unknown kind %T: %v", err, err)
		}
	}
	var total int64
	visit := func(m Member, r io.Reader) error {
		if m.Name != strings.Join(m.Path, "!") || m.Depth > lim.MaxDepth || len(m.Path) == 0 || m.Path[0] != name {
			t.Fatalf("bad member %+v", m)
		}
		n, err := io.Copy(io.Discard, r)
		if m.Depth > 0 && n > lim.MaxMemberBytes {
			t.Fatalf("member %s: %d bytes over the member budget", m.Name, n)
		}
		total += n
		return err
	}
	for _, stream := range []bool{false, true} {
		var r io.Reader = bytes.NewReader(data)
		if stream {
			r = plainReader{r}
		}
		total = 0
		if err := Walk(context.Background(), name, r, int64(len(data)), lim, visit, warn); err != nil {
			t.Fatalf("Walk: %v", err)
		}
		if total > lim.MaxRootBytes+int64(len(data))+bufSize {
			t.Fatalf("visited %d bytes, over the root budget", total)
		}
	}
	total = 0
	a, err := NewRoot(lim).Open(context.Background(), name, bytes.NewReader(data), int64(len(data)))
	if err == nil {
		for {
			p, err := a.Next(context.Background(), warn)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			if err := a.Walk(context.Background(), p, visit, warn); err != nil {
				t.Fatalf("Archive.Walk: %v", err)
			}
		}
		a.Close()
		if total > lim.MaxArchiveBytes+bufSize {
			t.Fatalf("parts visited %d bytes, over the archive budget", total)
		}
	} else if err != ErrNotRandomAccess {
		t.Fatalf("Open: %v", err)
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
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.zip", data) })
}

func FuzzWalkTar(f *testing.F) {
	f.Add(tarOf(f, file{"a.txt", secret}, file{"../../etc/passwd", "p"}))
	f.Add(tarOf(f, file{"in.tar", string(tarOf(f, file{"x", "y"}))}))
	f.Add(tarOf(f, file{"in.zip", string(zipOf(f, zipDeflate, file{"x", "y"}))}))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.tar", data) })
}

func FuzzWalkGzip(f *testing.F) {
	f.Add(gzipOf(f, []byte(secret)))
	f.Add(gzipOf(f, tarOf(f, file{"a.txt", secret})))
	f.Add(append(gzipOf(f, []byte("one")), gzipOf(f, []byte("two"))...))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.gz", data) })
}

func FuzzWalkBzip2(f *testing.F) {
	f.Add([]byte("BZh91AY&SY"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.bz2", data) })
}

func FuzzWalkXz(f *testing.F) {
	f.Add(xzOf(f, []byte(secret), xz.WriterConfig{}))
	f.Add(xzOf(f, tarOf(f, file{"a.txt", secret}), xz.WriterConfig{CheckSum: xz.CRC32}))
	f.Add(xzOf(f, []byte(secret), xz.WriterConfig{CheckSum: xz.SHA256, DictCap: 1 << 16}))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.xz", data) })
}

func FuzzWalkZstd(f *testing.F) {
	f.Add(zstdOf(f, []byte(secret)))
	f.Add(zstdOf(f, tarOf(f, file{"a.txt", secret}), zstd.WithEncoderCRC(true)))
	f.Add(zstdOf(f, bytes.Repeat([]byte(secret), 1000), zstd.WithWindowSize(1<<20)))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.zst", data) })
}

func FuzzWalk7z(f *testing.F) {
	f.Add(readTestdata(f, "fuzz-seed.7z"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) { fuzzWalk(t, dir, "f.7z", data) })
}

// FuzzWalkSelfExtracting fuzzes the self-extracting path: DetectFile's look
// at the end of an executable, and a zip read at a base offset, with
// offsets relative to the zip (zip) or to the file (zip -A).
func FuzzWalkSelfExtracting(f *testing.F) {
	for _, stub := range []string{"#!/bin/sh\nexit 0\n", "\x7fELF\x02\x01\x01" + strings.Repeat("\x00", 57)} {
		f.Add(append([]byte(stub), zipOf(f, zipDeflate, file{"a.txt", secret}, file{"b.txt", "b"})...))
		f.Add(sfxAbsolute(f, []byte(stub), file{"a.txt", secret}))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		head := data[:min(len(data), HeadLen)]
		if DetectFile(head, bytes.NewReader(data), int64(len(data))) == Zip && Detect(head) == None {
			if _, err := readZipDir(bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatalf("DetectFile claims a zip whose directory does not read: %v", err)
			}
		}
		fuzzWalk(t, dir, "f.sfx", data)
	})
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
