package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The tests in this file build their archives with the real tools (7z,
// zip, zstd, gzip, bzip2, xz), as users make them, and skip when a tool is
// missing.

// tool returns the path of a command, or skips the test.
func tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

// run runs a command in dir and fails the test if it fails.
func run(t testing.TB, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(tool(t, name), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// writeTree writes files under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleTree is a small source tree: text, a secret, a bigger file, an
// empty one, and x86-like code (E8 and E9 opcodes with near operands, what
// the BCJ filter rewrites).
func sampleTree() map[string]string {
	var seq strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&seq, "%d\n", i)
	}
	code := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i+5 <= len(code); {
		switch rng.IntN(4) {
		case 0, 1: // a call or jump to a near target, forwards or back
			code[i] = 0xe8 + byte(rng.IntN(2))
			off := int32(rng.IntN(1<<16) - 1<<15)
			code[i+1], code[i+2], code[i+3], code[i+4] = byte(off), byte(off>>8), byte(off>>16), byte(off>>24)
			i += 5
		default:
			code[i] = byte(rng.IntN(256))
			i++
		}
	}
	return map[string]string{"d/a.env": secret, "d/sub/seq.txt": seq.String(), "d/empty.txt": "", "d/prog.bin": string(code)}
}

// withPrefix returns files with each name prefixed.
func withPrefix(prefix string, files map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range files {
		m[prefix+k] = v
	}
	return m
}

// walkFile walks the file at path, named name, through an *os.File.
func walkFile(t testing.TB, path, name string, lim Limits) result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	return walkReader(t, name, f, fi.Size(), lim)
}

func TestSevenZipMadeBy7zIsRead(t *testing.T) {
	tool(t, "7z")
	dir := t.TempDir()
	writeTree(t, dir, sampleTree())
	tests := []struct {
		name string
		args []string
	}{
		{"solid.7z", nil},
		{"nonsolid.7z", []string{"-ms=off"}},
		{"lzma.7z", []string{"-m0=LZMA"}},
		{"lzma2-mx9.7z", []string{"-mx=9"}},
		{"bcj.7z", []string{"-mf=BCJ"}},
		{"delta.7z", []string{"-mf=Delta:4"}},
		{"deflate.7z", []string{"-m0=Deflate"}},
		{"bzip2.7z", []string{"-m0=BZip2"}},
		{"copy.7z", []string{"-mx=0"}},
		{"plainheader.7z", []string{"-mhc=off"}},
	}
	want := withPrefix("", sampleTree())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, dir, "7z", append(append([]string{"a", "-bd", tt.name}, tt.args...), "d")...)
			for _, via := range []string{"file", "stream"} {
				var res result
				if via == "file" {
					res = walkFile(t, filepath.Join(dir, tt.name), tt.name, DefaultLimits())
				} else {
					data, _ := os.ReadFile(filepath.Join(dir, tt.name))
					res = walkReader(t, tt.name, plainReader{bytes.NewReader(data)}, -1, DefaultLimits())
				}
				if res.err != nil || len(res.warnings) != 0 {
					t.Fatalf("%s: err %v, warnings %v", via, res.err, res.warnings)
				}
				if !maps.Equal(res.members, withPrefix(tt.name+"!", want)) {
					t.Errorf("%s: members %v", via, slices.Sorted(maps.Keys(res.members)))
				}
			}
		})
	}
}

func TestSevenZipMethodsNotReadAreNamedAsUnsupportedOrEncrypted(t *testing.T) {
	tool(t, "7z")
	dir := t.TempDir()
	writeTree(t, dir, sampleTree())
	tests := []struct {
		name     string
		args     []string
		is       error
		members  int  // members named in warnings
		lostOpen bool // the header itself cannot be read: one warning, for the archive
	}{
		// empty.txt has no data, so nothing to decode: it is visited.
		{"ppmd.7z", []string{"-m0=PPMd"}, ErrUnsupported, 3, false},
		{"encdata.7z", []string{"-ppw"}, ErrEncrypted, 3, false},
		{"encheader.7z", []string{"-ppw", "-mhe=on"}, ErrEncrypted, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run(t, dir, "7z", append(append([]string{"a", "-bd", tt.name}, tt.args...), "d")...)
			res := walkFile(t, filepath.Join(dir, tt.name), tt.name, DefaultLimits())
			if res.err != nil {
				t.Fatal(res.err)
			}
			named := 0
			for _, w := range res.warnings {
				var fe *FormatError
				if !errors.As(w, &fe) || !errors.Is(fe, tt.is) || !fe.Lost {
					t.Errorf("warning %v: want a lost-data %v", w, tt.is)
					continue
				}
				if strings.HasPrefix(fe.Name, tt.name+"!") {
					named++
				}
			}
			if tt.lostOpen && len(res.warnings) != 1 || named != tt.members {
				t.Errorf("warnings %v: want %d naming members", res.warnings, tt.members)
			}
		})
	}
}

func TestArchivesNestedIn7zAnd7zNestedInOthersAreWalked(t *testing.T) {
	tool(t, "7z")
	tool(t, "zip")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"in/x.env": secret})
	run(t, dir, "zip", "-qr", "inner.zip", "in")
	run(t, dir, "7z", "a", "-bd", "inner.7z", "in")
	run(t, dir, "7z", "a", "-bd", "outer.7z", "inner.zip", "in")
	run(t, dir, "zip", "-q", "outer.zip", "inner.7z")
	for name, want := range map[string][]string{
		"outer.7z":  {"outer.7z!inner.zip!in/x.env", "outer.7z!in/x.env"},
		"outer.zip": {"outer.zip!inner.7z!in/x.env"},
	} {
		res := walkFile(t, filepath.Join(dir, name), name, DefaultLimits())
		if res.err != nil || len(res.warnings) != 0 {
			t.Fatalf("%s: err %v, warnings %v", name, res.err, res.warnings)
		}
		for _, m := range want {
			if res.members[m] != secret {
				t.Errorf("%s: member %s = %q; members %v", name, m, res.members[m], slices.Sorted(maps.Keys(res.members)))
			}
		}
	}
}

func TestSelfExtractingZipsAreOpenedWithAndWithoutZipA(t *testing.T) {
	tool(t, "zip")
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"in/x.env": secret, "in/notes.txt": "notes"})
	run(t, dir, "zip", "-qr", "payload.zip", "in")
	payload, _ := os.ReadFile(filepath.Join(dir, "payload.zip"))
	elf, err := os.ReadFile("/bin/true")
	if err != nil || !bytes.HasPrefix(elf, []byte("\x7fELF")) {
		t.Skip("no ELF executable to use as a stub")
	}
	script := []byte("#!/bin/sh\nexec unzip -o \"$0\"\n")
	want := map[string]string{"in/x.env": secret, "in/notes.txt": "notes"}
	for _, tt := range []struct {
		name  string
		stub  []byte
		zipA  bool
		tools []string
	}{
		{"elf.sfx", elf, false, nil},
		{"elf-A.sfx", elf, true, nil},
		{"script.sh", script, false, nil},
		{"script-A.sh", script, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, append(bytes.Clone(tt.stub), payload...), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.zipA {
				run(t, dir, "zip", "-qA", tt.name) // offsets made absolute
			}
			data, _ := os.ReadFile(path)
			if got := DetectFile(data[:HeadLen], bytes.NewReader(data), int64(len(data))); got != Zip {
				t.Fatalf("DetectFile = %v, want zip", got)
			}
			if Detect(data[:HeadLen]) != None {
				t.Errorf("Detect on the stub's head claims a format")
			}
			res := walkFile(t, path, tt.name, DefaultLimits())
			if res.err != nil || len(res.warnings) != 0 {
				t.Fatalf("err %v, warnings %v", res.err, res.warnings)
			}
			if !maps.Equal(res.members, withPrefix(tt.name+"!", want)) {
				t.Errorf("members %v", res.members)
			}
		})
	}
	// An executable that is not a self-extractor stays a plain file, and
	// costs at most two small reads of its end.
	res := walkFile(t, "/bin/true", "true", DefaultLimits())
	if len(res.members) != 1 || len(res.warnings) != 0 {
		t.Errorf("/bin/true: members %d, warnings %v", len(res.members), res.warnings)
	}
}

// The zstd samples were made by zstd 1.5.4 from a pipe, so that the frame
// keeps the window it asks for (from a file, zstd shrinks it to the
// file's size): 128 MiB for --long=27 and --ultra -22, 256 MiB for
// --long=28. The text is a secret line and a log line, 400 times.
func TestZstdLongAndUltraWindowsDecodeUnderTheDefaultWindow(t *testing.T) {
	text := strings.Repeat(secret+"line of log text 0123456789\n", 400)
	for _, tt := range []struct {
		file   string
		window int64 // the frame's window
	}{
		{"text-long27.zst", 128 << 20},  // zstd --long=27
		{"text-ultra22.zst", 128 << 20}, // zstd --ultra -22
		{"text-long28.zst", 256 << 20},  // zstd --long=28: past the standard presets
	} {
		t.Run(tt.file, func(t *testing.T) {
			data := readTestdata(t, tt.file)
			lim := DefaultLimits()
			if tt.window > lim.MaxWindow {
				res := walkAll(t, tt.file, data, lim)
				assertBudgets(t, res.warnings, []BudgetError{be(tt.file, "", BudgetWindow, lim.MaxWindow)})
				lim.MaxWindow = tt.window // a larger budget reads it
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res := walkAll(t, tt.file, data, lim)
			runtime.ReadMemStats(&after)
			if res.err != nil || len(res.warnings) != 0 || res.members[tt.file] != text {
				t.Fatalf("err %v, warnings %v, %d bytes", res.err, res.warnings, len(res.members[tt.file]))
			}
			// The stated bound: the decoder allocates the frame's window
			// (it is backed only as it is written), and little else.
			if alloc := int64(after.TotalAlloc - before.TotalAlloc); alloc > tt.window+16<<20 {
				t.Errorf("allocated %d MiB for a %d MiB window", alloc>>20, tt.window>>20)
			}
		})
	}
}

func TestMemberOverTheMemberBudgetIsCutAndItsSiblingsRead(t *testing.T) {
	tool(t, "zip")
	dir := t.TempDir()
	big := strings.Repeat("x", 300<<10) + secret // the secret past the budget is lost, and said to be
	writeTree(t, dir, map[string]string{"d/a.env": secret, "d/b.big": big, "d/c.env": secret})
	run(t, dir, "zip", "-qr", "x.zip", "d/a.env", "d/b.big", "d/c.env")
	run(t, dir, "tar", "cf", "x.tar", "d/a.env", "d/b.big", "d/c.env")
	run(t, dir, "gzip", "-k", "x.tar")
	lim := DefaultLimits()
	lim.MaxMemberBytes = 100 << 10
	for _, name := range []string{"x.zip", "x.tar", "x.tar.gz"} {
		res := walkFile(t, filepath.Join(dir, name), name, lim)
		if res.err != nil {
			t.Fatal(res.err)
		}
		assertBudgets(t, res.warnings, []BudgetError{be(name, name+"!d/b.big", BudgetMemberBytes, 100<<10)})
		if res.members[name+"!d/a.env"] != secret || res.members[name+"!d/c.env"] != secret ||
			res.members[name+"!d/b.big"] != big[:100<<10] {
			t.Errorf("%s: members %v", name, slices.Sorted(maps.Keys(res.members)))
		}
	}
}

func TestZeroFilledMemberDoesNotDropTheRest(t *testing.T) {
	for _, name := range []string{"zip", "gzip", "bzip2", "xz", "zstd"} {
		tool(t, name)
	}
	// A disk image's worth of zeros between two secrets. Past RatioFloor,
	// bzip2, xz and zstd inflate zeros far beyond MaxRatio, so the member
	// is cut and named (the ratio judged is its own, not its stream's),
	// and the next member is read; deflate (zip, gzip) cannot pass
	// 1,032:1, so its zeros are read whole. Small: a 1 MiB floor and
	// 6 MiB of zeros; in full: the defaults and 80 MiB.
	mib, lim := 6, DefaultLimits()
	if raceEnabled {
		mib = 3
	}
	lim.RatioFloor = 1 << 20
	if !testing.Short() {
		mib, lim = 80, DefaultLimits()
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"d/a.env": secret, "d/c.env": secret})
	if err := os.WriteFile(filepath.Join(dir, "d/b.img"), make([]byte, mib<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"d/a.env", "d/b.img", "d/c.env"}
	run(t, dir, "zip", append([]string{"-q", "x.zip"}, files...)...)
	run(t, dir, "tar", append([]string{"cf", "x.tar"}, files...)...)
	run(t, dir, "gzip", "-k", "x.tar")
	run(t, dir, "bzip2", "-k", "x.tar")
	run(t, dir, "xz", "-k", "x.tar")
	run(t, dir, "zstd", "-q", "x.tar")
	for _, name := range []string{"x.zip", "x.tar.gz", "x.tar.bz2", "x.tar.xz", "x.tar.zst"} {
		t.Run(name, func(t *testing.T) {
			res := walkFile(t, filepath.Join(dir, name), name, lim)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if res.members[name+"!d/a.env"] != secret || res.members[name+"!d/c.env"] != secret {
				t.Fatalf("the members around the zeros: %v", slices.Sorted(maps.Keys(res.members)))
			}
			img := len(res.members[name+"!d/b.img"])
			if strings.HasPrefix(name, "x.zip") || strings.HasSuffix(name, ".gz") {
				if len(res.warnings) != 0 || img != mib<<20 {
					t.Errorf("deflate: warnings %v, %d of %d bytes of zeros", res.warnings, img, mib<<20)
				}
				return
			}
			assertBudgets(t, res.warnings, []BudgetError{be(name, name+"!d/b.img", BudgetRatio, int64(lim.MaxRatio))})
			if img < int(lim.RatioFloor) || img > int(lim.RatioFloor)+1<<20 {
				t.Errorf("%d bytes of zeros visited, want just past the %d floor", img, lim.RatioFloor)
			}
		})
	}
}

// sqlDump is a database dump as exported tables look: the same INSERT
// statement over and over, a CHAR(600) column of blanks, a key that
// changes every 1000 rows, and a secret in the middle. 17 MiB of it
// compress 337:1 with gzip -9, 3,000-9,000:1 with bzip2, xz and zstd.
func sqlDump(mib int) string {
	var b strings.Builder
	row := "INSERT INTO events VALUES (%d,'2024-01-01 00:00:00','ok','" + strings.Repeat(" ", 600) + "');\n"
	for i := 0; b.Len() < mib<<20; i++ {
		if i == 1000 {
			b.WriteString("-- " + secret)
		}
		fmt.Fprintf(&b, row, i/1000)
	}
	return b.String()
}

func TestHighlyCompressibleTextIsScannedWhole(t *testing.T) {
	for _, name := range []string{"gzip", "bzip2", "xz", "zstd", "zip"} {
		tool(t, name)
	}
	dir := t.TempDir()
	mib := 17 // the size of the dump in the report; xz -9 and bzip2 -9 take seconds on it
	if testing.Short() {
		mib = 4
		if raceEnabled {
			mib = 2
		}
	}
	dump := sqlDump(mib)
	writeTree(t, dir, map[string]string{"dump.sql": dump})
	run(t, dir, "gzip", "-9", "-k", "dump.sql")
	run(t, dir, "bzip2", "-9", "-k", "dump.sql")
	run(t, dir, "xz", "-9", "-k", "dump.sql")
	run(t, dir, "zstd", "-q", "-19", "dump.sql")
	run(t, dir, "zip", "-q9", "dump.zip", "dump.sql")
	for name, member := range map[string]string{"dump.sql.gz": "dump.sql.gz", "dump.sql.bz2": "dump.sql.bz2",
		"dump.sql.xz": "dump.sql.xz", "dump.sql.zst": "dump.sql.zst", "dump.zip": "dump.zip!dump.sql"} {
		t.Run(name, func(t *testing.T) {
			fi, _ := os.Stat(filepath.Join(dir, name))
			ratio := float64(len(dump)) / float64(fi.Size())
			if ratio < 300 {
				t.Fatalf("%s compresses only %.0f:1", name, ratio)
			}
			res := walkFile(t, filepath.Join(dir, name), name, DefaultLimits())
			if res.err != nil || len(res.warnings) != 0 || res.members[member] != dump {
				t.Fatalf("%.0f:1: err %v, warnings %v, %d of %d bytes", ratio, res.err, res.warnings, len(res.members[member]), len(dump))
			}
			t.Logf("%.0f:1 read whole", ratio)
		})
	}
}

// The files of Go's own source tree that the old 128:1 ratio limit skipped
// as bombs are read whole.
func TestCompressedTestdataInGoSourceIsReadWhole(t *testing.T) {
	goroot, err := exec.Command(tool(t, "go"), "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go env GOROOT")
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	for _, tt := range []struct {
		path string
		size int
		long bool // seconds of bzip2 on a loaded machine
	}{
		{"encoding/json/internal/jsontest/testdata/citm_catalog.json.zst", 1727204, false}, // 176:1
		{"regexp/testdata/re2-exhaustive.txt.bz2", 64498725, true},                         // 150:1
	} {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			if tt.long && testing.Short() {
				t.Skip("long")
			}
			path := filepath.Join(src, tt.path)
			if _, err := os.Stat(path); err != nil {
				t.Skip("not in this Go tree")
			}
			f, _ := os.Open(path)
			defer f.Close()
			fi, _ := f.Stat()
			var n int64
			var warnings []error
			err := Walk(context.Background(), tt.path, f, fi.Size(), DefaultLimits(), func(m Member, r io.Reader) error {
				c, err := io.Copy(io.Discard, r)
				n += c
				return err
			}, func(err error) { warnings = append(warnings, err) })
			if err != nil || len(warnings) != 0 || n != int64(tt.size) {
				t.Errorf("err %v, warnings %v, %d of %d bytes", err, warnings, n, tt.size)
			}
		})
	}
}
