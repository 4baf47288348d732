package archive

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const secret = "AWS_SECRET=abc123\n"

func TestWalkRoundTripsEveryFormat(t *testing.T) {
	inner := zipOf(t, zipDeflate, file{"x.env", secret})
	tests := []struct {
		name string
		data []byte
		want map[string]string
	}{
		{"outer.zip", zipOf(t, zipDeflate, file{"dir/", ""}, file{"dir/file.txt", "hello"}, file{"a.env", secret}),
			map[string]string{"outer.zip!dir/file.txt": "hello", "outer.zip!a.env": secret}},
		{"stored.zip", zipOf(t, zipStore, file{"s.txt", secret}), map[string]string{"stored.zip!s.txt": secret}},
		{"zstd.zip", zipOf(t, zipZstd, file{"z.txt", secret}), map[string]string{"zstd.zip!z.txt": secret}},
		{"xz.zip", zipOf(t, zipXz, file{"x.txt", secret}), map[string]string{"xz.zip!x.txt": secret}},
		{"app.jar", zipOf(t, zipDeflate, file{"META-INF/app.properties", secret}),
			map[string]string{"app.jar!META-INF/app.properties": secret}},
		{"plain.tar", tarOf(t, file{"etc/app.conf", secret}), map[string]string{"plain.tar!etc/app.conf": secret}},
		{"x.tar.gz", gzipOf(t, tarOf(t, file{"path/a.txt", "A"}, file{"b.txt", secret})),
			map[string]string{"x.tar.gz!path/a.txt": "A", "x.tar.gz!b.txt": secret}},
		{"x.tgz", gzipOf(t, tarOf(t, file{"a.txt", secret})), map[string]string{"x.tgz!a.txt": secret}},
		{"x.tar.zst", zstdOf(t, tarOf(t, file{"a.txt", secret})), map[string]string{"x.tar.zst!a.txt": secret}},
		{"x.tar.xz", xzOf(t, tarOf(t, file{"a.txt", secret}), xz.WriterConfig{}), map[string]string{"x.tar.xz!a.txt": secret}},
		{"notes.txt.gz", gzipOf(t, []byte(secret)), map[string]string{"notes.txt.gz": secret}},
		{"notes.txt.zst", zstdOf(t, []byte(secret)), map[string]string{"notes.txt.zst": secret}},
		{"notes.txt.xz", xzOf(t, []byte(secret), xz.WriterConfig{CheckSum: xz.SHA256}), map[string]string{"notes.txt.xz": secret}},
		{"notes.txt.bz2", readTestdata(t, "notes.txt.bz2"), map[string]string{"notes.txt.bz2": "hello from bzip2\n"}},
		{"sample.tar.bz2", readTestdata(t, "sample.tar.bz2"),
			map[string]string{"sample.tar.bz2!dir/secret.env": secret, "sample.tar.bz2!notes.txt": "hello from bzip2\n"}},
		{"gnu.tar.gz", readTestdata(t, "gnu.tar.gz"),
			map[string]string{"gnu.tar.gz!dir/secret.env": secret, "gnu.tar.gz!notes.txt": "hello from bzip2\n"}},
		{"two.xz", readTestdata(t, "two.xz"), map[string]string{"two.xz": "one\ntwo\n"}},
		{"methods.zip", readTestdata(t, "methods.zip"), map[string]string{ // made by 7-Zip: -mm=BZip2, LZMA, Deflate
			"methods.zip!bzip2.txt": strings.Repeat("bzip2 member ", 10), "methods.zip!lzma.txt": "lzma member",
			"methods.zip!deflate.txt": "deflate member"}},
		{"a.tar.gz", gzipOf(t, tarOf(t, file{"inner.zip", string(inner)})), map[string]string{"a.tar.gz!inner.zip!x.env": secret}},
		{"x.zip.gz", gzipOf(t, inner), map[string]string{"x.zip.gz!x.env": secret}},
		{"notes.gz.gz", gzipOf(t, gzipOf(t, []byte(secret))), map[string]string{"notes.gz.gz": secret}},
		{"plain.txt", []byte(secret), map[string]string{"plain.txt": secret}},
		{"fake.gz", []byte("not gzip at all\n"), map[string]string{"fake.gz": "not gzip at all\n"}},
		{"empty.zip", nil, map[string]string{"empty.zip": ""}},
		{"nothing.zip", zipOf(t, zipDeflate), map[string]string{}},
		// An empty tar is two zero blocks, which nothing tells from zeros:
		// it is scanned as a plain member rather than risk skipping data.
		{"nothing.tar.gz", gzipOf(t, tarOf(t)), map[string]string{"nothing.tar.gz": string(make([]byte, 1024))}},
		{"empty.gz", gzipOf(t, nil), map[string]string{"empty.gz": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, via := range []string{"ReaderAt", "stream"} {
				var r io.Reader = bytes.NewReader(tt.data)
				if via == "stream" {
					r = plainReader{r}
				}
				res := walkReader(t, tt.name, r, int64(len(tt.data)), DefaultLimits())
				if res.err != nil || len(res.warnings) > 0 {
					t.Fatalf("%s: err %v, warnings %v", via, res.err, res.warnings)
				}
				if !maps.Equal(res.members, tt.want) {
					t.Errorf("%s: members\n got %q\nwant %q", via, res.members, tt.want)
				}
			}
		})
	}
}

func TestMemberDepthAndPathDescribeTheNesting(t *testing.T) {
	inner := zipOf(t, zipDeflate, file{"x.env", secret})
	data := gzipOf(t, tarOf(t, file{"lib/inner.zip", string(inner)}, file{"top.txt", "t"}))
	res := walkAll(t, "a.tar.gz", data, DefaultLimits())
	got := map[string]Member{}
	for _, m := range res.order {
		got[m.Name] = m
	}
	want := map[string]Member{
		"a.tar.gz!lib/inner.zip!x.env": {Path: []string{"a.tar.gz", "lib/inner.zip", "x.env"}, Depth: 2, Size: int64(len(secret))},
		"a.tar.gz!top.txt":             {Path: []string{"a.tar.gz", "top.txt"}, Depth: 1, Size: 1},
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok || !slices.Equal(g.Path, w.Path) || g.Depth != w.Depth || g.Size != w.Size {
			t.Errorf("%s: got %+v, want %+v", name, g, w)
		}
	}
	plain := walkAll(t, "notes.txt", []byte("x"), DefaultLimits())
	if m := plain.order[0]; m.Depth != 0 || m.Size != 1 || !slices.Equal(m.Path, []string{"notes.txt"}) {
		t.Errorf("plain file: got %+v", m)
	}
	if m := walkAll(t, "n.gz", gzipOf(t, []byte("x")), DefaultLimits()).order[0]; m.Depth != 1 || m.Size != -1 {
		t.Errorf("compressed stream: got %+v, want depth 1, size -1", m)
	}
}

func TestDepthZeroHandsArchivesOverWhole(t *testing.T) {
	data := zipOf(t, zipDeflate, file{"a.txt", secret})
	res := walkAll(t, "x.zip", data, Limits{MaxDepth: 0})
	if res.err != nil || len(res.warnings) != 0 || res.members["x.zip"] != string(data) || len(res.members) != 1 {
		t.Fatalf("got %v members, err %v, warnings %v", slices.Collect(maps.Keys(res.members)), res.err, res.warnings)
	}
}

// nestedZips returns a zip nested n levels deep: l1.zip holds l2.zip ...
// and the innermost holds secret.env. Each level also holds a plain file.
func nestedZips(t testing.TB, n int) []byte {
	data := zipOf(t, zipDeflate, file{"secret.env", secret})
	for i := n; i > 1; i-- {
		data = zipOf(t, zipDeflate, file{"l" + itoa(i) + ".zip", string(data)}, file{"f" + itoa(i-1) + ".txt", "x"})
	}
	return data
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestDepthBudgetStopsAtMaxDepthAndParentGoesOn(t *testing.T) {
	data := nestedZips(t, 5) // l1.zip!l2.zip!l3.zip!l4.zip!l5.zip!secret.env
	for max := 1; max <= 5; max++ {
		t.Run("max"+itoa(max), func(t *testing.T) {
			lim := DefaultLimits()
			lim.MaxDepth = max
			res := walkAll(t, "l1.zip", data, lim)
			chain := []string{"l1.zip"}
			for i := 2; i <= max; i++ {
				chain = append(chain, "l"+itoa(i)+".zip")
			}
			for i := 1; i <= max && i < 5; i++ { // the plain file at every opened level is found
				name := strings.Join(chain[:i], "!") + "!f" + itoa(i) + ".txt"
				if _, ok := res.members[name]; !ok {
					t.Errorf("missing %s; got %v", name, slices.Collect(maps.Keys(res.members)))
				}
			}
			if max == 5 {
				if len(res.warnings) != 0 || res.members[strings.Join(chain, "!")+"!secret.env"] != secret {
					t.Fatalf("warnings %v, members %v", res.warnings, res.members)
				}
				return
			}
			want := strings.Join(chain, "!") + "!l" + itoa(max+1) + ".zip"
			be := onlyBudget(t, res.warnings, BudgetDepth)
			if be.Archive != want || be.Limit != int64(max) {
				t.Errorf("got %v, want depth budget on %s", be, want)
			}
		})
	}
}

func TestCompressedTarIsOneLevel(t *testing.T) {
	innerTgz := gzipOf(t, tarOf(t, file{"c.txt", secret}))
	data := gzipOf(t, tarOf(t, file{"b.tar.gz", string(innerTgz)}))
	lim := DefaultLimits()
	lim.MaxDepth = 2
	res := walkAll(t, "a.tar.gz", data, lim)
	if res.members["a.tar.gz!b.tar.gz!c.txt"] != secret || len(res.warnings) != 0 {
		t.Fatalf("members %v, warnings %v", res.members, res.warnings)
	}
}

// onlyBudget asserts warnings hold exactly one error and that it is a
// *BudgetError for b whose text names the archive and the budget.
func onlyBudget(t *testing.T, warnings []error, b Budget) *BudgetError {
	t.Helper()
	if len(warnings) != 1 {
		t.Fatalf("want one %s warning, got %v", b, warnings)
	}
	var be *BudgetError
	if !errors.As(warnings[0], &be) || be.Budget != b {
		t.Fatalf("want a %s budget error, got %v", b, warnings[0])
	}
	if msg := be.Error(); !strings.Contains(msg, be.Archive) || !strings.Contains(msg, b.String()+" budget") {
		t.Errorf("warning %q does not name archive %q and budget %q", msg, be.Archive, b)
	}
	return be
}

func TestSpooledZipIsInMemoryOrInAFileWithNoName(t *testing.T) {
	data := zipOf(t, zipDeflate, file{"a.txt", secret}, file{"b.txt", "b"})
	for _, spool := range []int64{1 << 20, -1} {
		dir := t.TempDir()
		lim := DefaultLimits()
		lim.SpoolMemory, lim.TempDir = spool, dir
		var during []os.DirEntry
		var open []string
		err := Walk(context.Background(), "x.zip", plainReader{bytes.NewReader(data)}, -1, lim, func(m Member, r io.Reader) error {
			during, _ = os.ReadDir(dir)
			open = openFilesIn(dir)
			_, err := io.Copy(io.Discard, r)
			return err
		}, func(err error) { t.Errorf("warning: %v", err) })
		if err != nil {
			t.Fatal(err)
		}
		// However the process ends, nothing is left to read: the spool file
		// never has a name in the directory, even while it is in use.
		if len(during) != 0 {
			t.Errorf("SpoolMemory %d: the temp dir lists %v while walking, want nothing", spool, during)
		}
		if runtime.GOOS == "linux" {
			if want := map[bool]int{true: 0, false: 1}[spool > 0]; len(open) != want {
				t.Errorf("SpoolMemory %d: %d open files in the temp dir while walking (%v), want %d", spool, len(open), open, want)
			}
		}
		if after, _ := os.ReadDir(dir); len(after) != 0 {
			t.Errorf("SpoolMemory %d: temp dir not empty afterwards: %v", spool, after)
		}
	}
}

// openFilesIn lists the files this process has open in dir, named or not
// (on Linux, from /proc/self/fd; elsewhere nothing).
func openFilesIn(dir string) []string {
	fds, _ := os.ReadDir("/proc/self/fd")
	var files []string
	for _, fd := range fds {
		target, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if err == nil && strings.HasPrefix(target, dir+"/") {
			files = append(files, target)
		}
	}
	return files
}

func TestSpoolFileIsClosedWhenVisitPanics(t *testing.T) {
	dir := t.TempDir()
	lim := DefaultLimits()
	lim.SpoolMemory, lim.TempDir = -1, dir
	data := zipOf(t, zipDeflate, file{"a.txt", secret})
	var during []string
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic did not propagate")
			}
		}()
		Walk(context.Background(), "x.zip", plainReader{bytes.NewReader(data)}, -1, lim,
			func(Member, io.Reader) error { during = openFilesIn(dir); panic("visit") }, nil)
	}()
	if after, _ := os.ReadDir(dir); len(after) != 0 {
		t.Errorf("temp dir not empty after a panic: %v", after)
	}
	if runtime.GOOS == "linux" {
		if len(during) != 1 {
			t.Fatalf("open spool files while visiting: %v, want one", during)
		}
		if after := openFilesIn(dir); len(after) != 0 {
			t.Errorf("spool file still open after the panic: %v", after)
		}
	}
}

func TestFormatWarningsSkipTheMemberAndGoOn(t *testing.T) {
	crcBad := storedMember("bad.txt", []byte(secret))
	crcBad.crc++
	tests := []struct {
		name    string
		data    []byte
		want    map[string]string
		warnFor string
		is      error
	}{
		{"enc.zip", readTestdata(t, "enc.zip"), map[string]string{"enc.zip!notes.txt": "hello from bzip2\n"},
			"enc.zip!dir/secret.env", ErrEncrypted},
		{"deflate64.zip", rawZip([]rawMember{{name: "d64.txt", data: []byte("x"), usize: 1, meth: zipDeflate64},
			storedMember("s.txt", []byte("s"))}, false), map[string]string{"deflate64.zip!s.txt": "s"},
			"deflate64.zip!d64.txt", ErrUnsupported},
		{"ppmd.zip", rawZip([]rawMember{storedMember("s.txt", []byte("s")), {name: "p.txt", data: []byte("x"), usize: 1, meth: zipPPMd}},
			false), map[string]string{"ppmd.zip!s.txt": "s"}, "ppmd.zip!p.txt", ErrUnsupported},
		{"crc.zip", rawZip([]rawMember{crcBad, storedMember("good.txt", []byte("g"))}, false),
			map[string]string{"crc.zip!bad.txt": secret, "crc.zip!good.txt": "g"}, "crc.zip!bad.txt", errChecksum},
		{"bcj.xz", readTestdata(t, "bcj.xz"), map[string]string{"bcj.xz": ""}, "bcj.xz", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := walkAll(t, tt.name, tt.data, DefaultLimits())
			if res.err != nil {
				t.Fatal(res.err)
			}
			if !maps.Equal(res.members, tt.want) {
				t.Errorf("members %q, want %q", res.members, tt.want)
			}
			var fe *FormatError
			if len(res.warnings) != 1 || !errors.As(res.warnings[0], &fe) || fe.Name != tt.warnFor || !errors.Is(fe, tt.is) {
				t.Fatalf("warnings %v, want one FormatError for %s: %v", res.warnings, tt.warnFor, tt.is)
			}
		})
	}
}

func TestVisitErrorEndsTheWalkAndIsReturned(t *testing.T) {
	data := zipOf(t, zipDeflate, file{"a.txt", "a"}, file{"b.txt", "b"})
	stop := errors.New("enough")
	calls := 0
	err := Walk(context.Background(), "x.zip", bytes.NewReader(data), int64(len(data)), DefaultLimits(),
		func(Member, io.Reader) error { calls++; return stop }, nil)
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestCancelledContextEndsTheWalk(t *testing.T) {
	data := gzipOf(t, tarOf(t, file{"a.txt", strings.Repeat("a", 100000)}, file{"b.txt", "b"}))
	ctx, cancel := context.WithCancel(context.Background())
	var seen []string
	err := Walk(ctx, "x.tar.gz", bytes.NewReader(data), int64(len(data)), DefaultLimits(), func(m Member, r io.Reader) error {
		seen = append(seen, m.Name)
		cancel()
		_, err := io.Copy(io.Discard, r)
		return err
	}, nil)
	if !errors.Is(err, context.Canceled) || len(seen) != 1 {
		t.Fatalf("err %v, visited %v; want context.Canceled after one member", err, seen)
	}
	if err := Walk(ctx, "x.tar.gz", bytes.NewReader(data), int64(len(data)), DefaultLimits(),
		func(Member, io.Reader) error { t.Error("visited after cancel"); return nil }, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("walk with a done ctx: %v", err)
	}
}

func TestXzReaderVerifiesTheContainer(t *testing.T) {
	seq := readTestdata(t, "seq.txt.xz") // xz -T2 --block-size=64KiB --check=sha256: four blocks, sizes in headers
	var want strings.Builder
	for i := 1; i <= 40000; i++ {
		want.WriteString(strconv.Itoa(i) + "\n")
	}
	res := walkAll(t, "seq.txt.xz", seq, DefaultLimits())
	if res.members["seq.txt.xz"] != want.String() || len(res.warnings) != 0 {
		t.Fatalf("seq.txt.xz: %d bytes, warnings %v", len(res.members["seq.txt.xz"]), res.warnings)
	}
	// Every byte of the container is covered by a check: flipping any one
	// is an error (or, in the LZMA2 data, a wrong output caught by SHA-256).
	step := 191
	if raceEnabled && testing.Short() {
		step = 997
	}
	for i := len(magicXz); i < len(seq); i += step { // a flip in the magic makes a plain file
		bad := bytes.Clone(seq)
		bad[i] ^= 0x40
		res := walkAll(t, "seq.txt.xz", bad, DefaultLimits())
		if len(res.warnings) == 0 {
			t.Errorf("flip at %d: no warning", i)
		}
	}
}

func TestZstdFrameOverWindowIsAWindowBudget(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	data := zstdOf(t, big, zstd.WithWindowSize(1<<20))
	lim := DefaultLimits()
	lim.MaxWindow = 256 << 10
	res := walkAll(t, "w.zst", data, lim)
	if be := onlyBudget(t, res.warnings, BudgetWindow); be.Archive != "w.zst" {
		t.Errorf("archive %q", be.Archive)
	}
}

func TestXzDictionaryOverWindowIsAWindowBudget(t *testing.T) {
	data := xzOf(t, []byte(secret), xz.WriterConfig{DictCap: 8 << 20})
	lim := DefaultLimits()
	lim.MaxWindow = 1 << 20
	res := walkAll(t, "w.xz", data, lim)
	if be := onlyBudget(t, res.warnings, BudgetWindow); be.Archive != "w.xz" || be.Limit != 1<<20 {
		t.Errorf("got %+v", be)
	}
}

func TestZipEndRecordIsFoundPastCommentsAndTrailingData(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	fw, _ := zw.Create("a.txt")
	io.WriteString(fw, secret)
	zw.SetComment("a comment that mentions PK\x05\x06 on purpose")
	zw.Close()
	commented := b.Bytes()
	for _, tt := range []struct {
		name     string
		data     []byte
		warnings int
	}{
		{"comment.zip", commented, 0},
		{"trailing.zip", append(bytes.Clone(commented), "appended junk"...), 1},
	} {
		res := walkAll(t, tt.name, tt.data, DefaultLimits())
		if res.members[tt.name+"!a.txt"] != secret || len(res.warnings) != tt.warnings {
			t.Errorf("%s: members %q, warnings %v", tt.name, res.members, res.warnings)
		}
	}
}

// TestSpoolLeavesNothingWhenKilled kills, with SIGKILL, a process that is
// in the middle of walking a spooled zip, and finds nothing left in its
// temp dir: no decoded content for anyone to read, nothing to clean up.
func TestSpoolLeavesNothingWhenKilled(t *testing.T) {
	if dir := os.Getenv("ARCHIVE_SPOOL_CHILD"); dir != "" {
		lim := DefaultLimits()
		lim.SpoolMemory, lim.TempDir = -1, dir
		data := zipOf(t, zipDeflate, file{"a.txt", secret})
		Walk(context.Background(), "x.zip", plainReader{bytes.NewReader(data)}, -1, lim, func(Member, io.Reader) error {
			os.Stdout.WriteString("visiting\n")
			time.Sleep(time.Minute) // killed here
			return nil
		}, nil)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpoolLeavesNothingWhenKilled$")
	cmd.Env = append(os.Environ(), "ARCHIVE_SPOOL_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "visiting\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind by a killed walk: %v", left)
	}
}
