package archive

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// gzipRaw wraps a raw deflate stream in a gzip header and a trailer whose
// CRC and size are made up: a bomb is never read to its end.
func gzipRaw(deflate []byte) []byte {
	b := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, deflate...)
	return append(b, 0, 0, 0, 0, 0, 0, 0, 0)
}

// visited counts what a walk hands to visit, reading every member whole.
type visited struct {
	members  int
	bytes    int64
	warnings []error
}

func walkCount(t *testing.T, name string, data []byte, lim Limits) visited {
	t.Helper()
	var v visited
	err := Walk(context.Background(), name, bytes.NewReader(data), int64(len(data)), lim, func(m Member, r io.Reader) error {
		n, err := io.Copy(io.Discard, r)
		v.members++
		v.bytes += n
		return err
	}, func(err error) { v.warnings = append(v.warnings, err) })
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// bombLimits are budgets small enough that every bomb below hits them in
// milliseconds, with the shape of the defaults: a ratio floor under the
// member budget, a member budget under the archive's.
func bombLimits() Limits {
	lim := DefaultLimits()
	lim.RatioFloor, lim.MaxMemberBytes, lim.MaxArchiveBytes, lim.MaxRootBytes = 1<<20, 4<<20, 16<<20, 64<<20
	if raceEnabled {
		lim.RatioFloor, lim.MaxMemberBytes, lim.MaxArchiveBytes, lim.MaxRootBytes = 256<<10, 1<<20, 4<<20, 16<<20
	}
	return lim
}

func TestBombsEndWithBudgetWarningsAfterBoundedOutput(t *testing.T) {
	lim := bombLimits()
	gib := zeroDeflate(t, 1024)
	kernel := rawMember{name: "zeros", data: gib, usize: 1 << 30, meth: zipDeflate}
	overlapping := make([]rawMember, 1000) // Fifield: 1000 entries, one kernel: 1 TiB from 1 MB
	for i := range overlapping {
		overlapping[i] = kernel
		overlapping[i].name = "z" + itoa(i)
	}
	bombZip := rawZip(overlapping, true)
	var inners []rawMember // 42.zip-like: ten bomb zips, stored in one
	for i := range 10 {
		inners = append(inners, storedMember("bomb"+itoa(i)+".zip", bombZip))
	}
	nested := rawZip(inners, false)
	tests := []struct {
		name     string
		data     []byte
		budgets  []Budget // the budgets the warnings may name
		maxBytes int64    // what visit may receive
	}{
		// deflate cannot pass 1,032:1, under MaxRatio: the member budget cuts it.
		{"zeros.gz", gzipRaw(gib), []Budget{BudgetMemberBytes}, lim.MaxMemberBytes},
		{"zeros.tar.gz", gzipRaw(zeroDeflate(t, 64)), []Budget{BudgetMemberBytes, BudgetArchiveBytes}, lim.MaxMemberBytes},
		// bzip2, xz and zstd on zeros pass MaxRatio once past the floor,
		// before the member budget (how soon depends on how much input the
		// decoder takes up front: an LZMA2 chunk holds 2 MiB of output).
		{"zeros.bz2", readTestdata(t, "zero1g.bz2"), []Budget{BudgetRatio}, lim.MaxMemberBytes},
		{"zeros.xz", readTestdata(t, "zero256m.xz"), []Budget{BudgetRatio}, lim.MaxMemberBytes},
		{"zeros.zst", readTestdata(t, "zero1g.zst"), []Budget{BudgetRatio}, lim.MaxMemberBytes},
		// Members of a zip are cut one by one until the archive's budget ends it.
		{"bomb.zip", bombZip, []Budget{BudgetMemberBytes, BudgetArchiveBytes}, lim.MaxArchiveBytes},
		{"nested.zip", nested, []Budget{BudgetMemberBytes, BudgetArchiveBytes}, lim.MaxArchiveBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := walkCount(t, tt.name, tt.data, lim)
			if len(v.warnings) == 0 {
				t.Fatal("no budget warning")
			}
			for _, w := range v.warnings {
				var e *BudgetError
				if !errors.As(w, &e) || !slices.Contains(tt.budgets, e.Budget) {
					t.Fatalf("warning %v, want a budget among %v", w, tt.budgets)
				}
			}
			if v.bytes > tt.maxBytes {
				t.Errorf("visited %d bytes, want at most %d", v.bytes, tt.maxBytes)
			}
		})
	}
}

func TestBombWalkMemoryIsBounded(t *testing.T) {
	mib := 256
	if testing.Short() {
		mib = 64
		if raceEnabled {
			mib = 16
		}
	}
	// No ratio budget: the whole bomb streams through, so the only thing
	// keeping memory down is that nothing holds a member whole.
	lim := DefaultLimits()
	lim.MaxRatio, lim.MaxMemberBytes, lim.MaxArchiveBytes = -1, -1, -1
	gz := gzipRaw(zeroDeflate(t, mib))
	inner := rawZip([]rawMember{bombMember(t, "zeros", mib)}, false)
	nested := zipOf(t, zipStore, file{"inner.zip", string(inner)}) // spooled: 64 KiB in memory, the rest to a file
	lim.SpoolMemory, lim.TempDir = 64<<10, t.TempDir()
	for _, tt := range []struct {
		name string
		data []byte
	}{{"zeros.gz", gz}, {"nested.zip", nested}} {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			v := walkCount(t, tt.name, tt.data, lim)
			runtime.ReadMemStats(&after)
			if want := int64(mib) << 20; v.bytes != want {
				t.Fatalf("visited %d bytes, want %d (warnings %v)", v.bytes, want, v.warnings)
			}
			const bound = 8 << 20
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
				t.Errorf("walking %d MiB allocated %d bytes, want at most %d", mib, alloc, bound)
			}
		})
	}
}

func TestTruncatedArchivesWarnAndNeverFail(t *testing.T) {
	text := strings.Repeat("line of text 0123456789\n", 100)
	for name, data := range hostileSamples(t, text) {
		t.Run(name, func(t *testing.T) {
			for _, cut := range []int{len(data) / 4, len(data) / 2, 3 * len(data) / 4, len(data) - 1} {
				v := walkCount(t, name, data[:cut], DefaultLimits())
				var fe *FormatError
				if len(v.warnings) == 0 || !errors.As(v.warnings[len(v.warnings)-1], &fe) {
					t.Errorf("cut at %d of %d: warnings %v, want a format warning", cut, len(data), v.warnings)
				}
			}
		})
	}
}

func TestCorruptedArchivesNeverFailOrHang(t *testing.T) {
	text := strings.Repeat("line of text 0123456789\n", 100)
	rng := rand.New(rand.NewPCG(1, 2))
	variants := 40
	if testing.Short() {
		variants = 10
	}
	for name, data := range hostileSamples(t, text) {
		t.Run(name, func(t *testing.T) {
			for range variants {
				bad := bytes.Clone(data)
				for range 1 + rng.IntN(8) {
					bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				err := Walk(ctx, name, bytes.NewReader(bad), int64(len(bad)), DefaultLimits(), func(m Member, r io.Reader) error {
					_, err := io.Copy(io.Discard, r)
					return err
				}, nil)
				cancel()
				if err != nil {
					t.Fatalf("corrupted %s: %v", name, err)
				}
			}
		})
	}
}

// hostileSamples returns one small archive of each format holding two
// members of text.
func hostileSamples(t *testing.T, text string) map[string][]byte {
	tarData := tarOf(t, file{"a.txt", text}, file{"b.txt", text})
	return map[string][]byte{
		"x.zip":     zipOf(t, zipDeflate, file{"a.txt", text}, file{"b.txt", text}),
		"x.tar":     tarData,
		"x.tar.gz":  gzipOf(t, tarData),
		"x.tar.zst": zstdOf(t, tarData, zstd.WithEncoderCRC(true)),
		"x.tar.xz":  xzOf(t, tarData, xz.WriterConfig{}),
		"x.txt.gz":  gzipOf(t, []byte(text)),
		"x.tar.bz2": readTestdata(t, "sample.tar.bz2"),
		"seq.xz":    readTestdata(t, "seq.txt.xz"),
		"nested.zip": zipOf(t, zipStore, file{"in.tar.gz", string(gzipOf(t, tarData))},
			file{"in.zip", string(zipOf(t, zipDeflate, file{"c.txt", text}))}),
	}
}

func TestZeroLengthInputsAreEmptyPlainFiles(t *testing.T) {
	for _, name := range []string{"x.zip", "x.jar", "x.tar", "x.tar.gz", "x.tgz", "x.gz", "x.bz2", "x.xz", "x.zst"} {
		res := walkAll(t, name, nil, DefaultLimits())
		if res.err != nil || len(res.warnings) != 0 || len(res.members) != 1 || res.members[name] != "" {
			t.Errorf("%s: members %v, warnings %v, err %v", name, res.members, res.warnings, res.err)
		}
	}
}

func TestFilesThatClaimAFormatButAreNot(t *testing.T) {
	badBody := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, []byte("this is not deflate data at all")...)
	tests := []struct {
		name     string
		data     []byte
		members  map[string]string
		warnings int
	}{
		{"notes.gz", []byte("plain text, named .gz\n"), map[string]string{"notes.gz": "plain text, named .gz\n"}, 0},
		{"app.jar", []byte("PK but no zip"), map[string]string{"app.jar": "PK but no zip"}, 0},
		{"head.gz", badBody, map[string]string{"head.gz": ""}, 1},
		{"eocd.zip", []byte("PK\x03\x04 a local header magic and nothing else"), map[string]string{}, 1},
	}
	for _, tt := range tests {
		res := walkAll(t, tt.name, tt.data, DefaultLimits())
		if res.err != nil || len(res.warnings) != tt.warnings {
			t.Errorf("%s: err %v, warnings %v, want %d", tt.name, res.err, res.warnings, tt.warnings)
		}
		for name, want := range tt.members {
			if got, ok := res.members[name]; !ok || !strings.HasPrefix(got, want) {
				t.Errorf("%s: member %q = %q, want %q", tt.name, name, got, want)
			}
		}
	}
}

func TestPathTraversalNamesAreReportedLiterallyAndNothingIsExtracted(t *testing.T) {
	evil := []file{{"../../etc/passwd", "root:x:0:0"}, {"/etc/shadow", "s"}, {"a/../../b", "b"}, {"C:\\windows\\x", "w"}}
	tarData := tarOf(t, evil...)
	var zipFiles []rawMember // archive/zip refuses to write such names; raw records do not
	for _, f := range evil {
		zipFiles = append(zipFiles, storedMember(f.name, []byte(f.data)))
	}
	dir := t.TempDir()
	cwd, _ := os.Getwd()
	before, _ := os.ReadDir(cwd)
	lim := DefaultLimits()
	lim.SpoolMemory, lim.TempDir = -1, dir // force the zip through a temp file
	for _, tt := range []struct {
		name string
		data []byte
	}{{"evil.tar", tarData}, {"evil.zip", rawZip(zipFiles, false)}} {
		var r io.Reader = bytes.NewReader(tt.data)
		if strings.HasSuffix(tt.name, ".zip") {
			r = plainReader{r}
		}
		res := walkReader(t, tt.name, r, -1, lim)
		if res.err != nil || len(res.warnings) != 0 {
			t.Fatalf("%s: err %v, warnings %v", tt.name, res.err, res.warnings)
		}
		for _, f := range evil {
			if got := res.members[tt.name+"!"+f.name]; got != f.data {
				t.Errorf("%s: member %q = %q, want %q (literal name)", tt.name, f.name, got, f.data)
			}
		}
	}
	if after, _ := os.ReadDir(dir); len(after) != 0 {
		t.Errorf("temp dir holds %v after the walk", after)
	}
	if after, _ := os.ReadDir(cwd); len(after) != len(before) {
		t.Errorf("working directory changed: %d entries before, %d after", len(before), len(after))
	}
}

func TestTarLinksAndDevicesAreSkipped(t *testing.T) {
	data := readTestdata(t, "links.tar")
	res := walkAll(t, "links.tar", data, DefaultLimits())
	if res.err != nil || len(res.warnings) != 0 {
		t.Fatalf("err %v, warnings %v", res.err, res.warnings)
	}
	if len(res.members) != 1 || res.members["links.tar!file.txt"] != "content\n" {
		t.Errorf("members %q, want only file.txt", res.members)
	}
}

func TestArchiveThatContainsItselfByNameStopsAtTheDepthBudget(t *testing.T) {
	for _, tt := range []struct {
		name string
		wrap func([]byte) []byte
	}{
		{"self.tar.gz", func(b []byte) []byte {
			return gzipOf(t, tarOf(t, file{"self.tar.gz", string(b)}, file{"note.txt", "n"}))
		}},
		{"self.zip", func(b []byte) []byte { return zipOf(t, zipDeflate, file{"self.zip", string(b)}, file{"note.txt", "n"}) }},
	} {
		data := []byte(secret)
		for range 8 {
			data = tt.wrap(data)
		}
		res := walkAll(t, tt.name, data, DefaultLimits())
		chain := strings.TrimSuffix(strings.Repeat(tt.name+"!", 4), "!")
		be := onlyBudget(t, res.warnings, BudgetDepth)
		if be.Archive != chain {
			t.Errorf("%s: depth budget on %q, want %q", tt.name, be.Archive, chain)
		}
		if len(res.members) != 3 { // note.txt at each of the three levels opened
			t.Errorf("%s: members %v", tt.name, res.members)
		}
	}
}

func TestEntriesPastTheBudgetAreCountedAndNamed(t *testing.T) {
	n, budget := 100_000, 65536 // the default budget
	if raceEnabled && testing.Short() {
		n, budget = 10_000, 6000
	}
	lim := DefaultLimits()
	lim.MaxEntries = budget
	zipFiles := make([]rawMember, n)
	tarFiles := make([]file, n)
	for i := range n {
		name := "m" + itoa(i)
		zipFiles[i] = rawMember{name: name, data: []byte{'x'}, usize: 1, crc: crc32.ChecksumIEEE([]byte{'x'})}
		tarFiles[i] = file{name, "x"}
	}
	samples := map[string][]byte{"many.zip": rawZip(zipFiles, false)}
	if !testing.Short() {
		samples["many.tar.gz"] = gzipOf(t, tarOf(t, tarFiles...))
	}
	for name, data := range samples {
		t.Run(name, func(t *testing.T) {
			v := walkCount(t, name, data, lim)
			if v.members != budget {
				t.Errorf("%d members visited, want %d", v.members, budget)
			}
			// Each entry past the budget is named in a warning of its own.
			named := map[string]bool{}
			for _, w := range v.warnings {
				var e *BudgetError
				if !errors.As(w, &e) || e.Budget != BudgetEntries || e.Archive != name || named[e.Member] {
					t.Fatalf("warning %v: want one entries warning per member past the budget", w)
				}
				named[e.Member] = true
			}
			if len(named) != n-budget || !named[name+"!m"+itoa(budget)] || !named[name+"!m"+itoa(n-1)] {
				t.Errorf("%d entries named past the budget, want %d", len(named), n-budget)
			}
			lim := DefaultLimits()
			lim.MaxEntries = -1
			if v := walkCount(t, name, data, lim); v.members != n || v.bytes != int64(n) || len(v.warnings) != 0 {
				t.Errorf("no entries budget: %d members, %d bytes, warnings %d", v.members, v.bytes, len(v.warnings))
			}
		})
	}
}

func TestZipCentralDirectoryIsStreamedNotHeld(t *testing.T) {
	n := 100_000
	if raceEnabled && testing.Short() {
		n = 20_000
	}
	members := make([]rawMember, n)
	for i := range members {
		members[i] = storedMember("some/longer/directory/name/file"+itoa(i)+".txt", []byte("x"))
	}
	data := rawZip(members, false)
	lim := DefaultLimits()
	lim.MaxEntries = -1
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, uint64(0)
	seen := 0
	err := Walk(context.Background(), "many.zip", bytes.NewReader(data), int64(len(data)), lim, func(m Member, r io.Reader) error {
		if seen++; seen%10_000 == 0 { // live heap, garbage collected first
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		return nil
	}, nil)
	if err != nil || seen != n {
		t.Fatalf("err %v after %d members", err, seen)
	}
	// archive/zip would hold about 200 bytes per entry here: 20 MB.
	if grown := int64(peak) - int64(base); grown > 2<<20 {
		t.Errorf("live heap grew by %d bytes over %d entries", grown, n)
	}
}

// TestRatioIsJudgedBetweenBoundedReads: a caller that reads a bomb into a
// large buffer gets no more of it past the floor than one bounded read.
func TestRatioIsJudgedBetweenBoundedReads(t *testing.T) {
	lim := DefaultLimits()
	lim.RatioFloor, lim.MaxRatio = 1<<20, 100 // gzip of zeros is 1,000:1: past this
	for name, data := range map[string][]byte{
		// ulikunitz/xz returns as much as it has decoded, megabytes a call;
		// klauspost's gzip returns at most its window.
		"zeros.xz":     readTestdata(t, "zero256m.xz"),
		"zeros.gz":     gzipOf(t, make([]byte, 32<<20)),
		"zeros.tar.gz": gzipOf(t, tarOf(t, file{"z", string(make([]byte, 32<<20))}, file{"after.txt", "a"})),
	} {
		got := map[string]int{}
		var warnings []error
		buf := make([]byte, 16<<20)
		err := Walk(context.Background(), name, bytes.NewReader(data), int64(len(data)), lim, func(m Member, r io.Reader) error {
			for {
				n, err := r.Read(buf)
				got[m.Name] += n
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
			}
		}, func(err error) { warnings = append(warnings, err) })
		if err != nil {
			t.Fatal(err)
		}
		for member, n := range got {
			if n > int(lim.RatioFloor)+512<<10 && member != name+"!after.txt" {
				t.Errorf("%s: %s: %d bytes visited past a %d floor", name, member, n, lim.RatioFloor)
			}
		}
		if len(warnings) != 1 || strings.HasSuffix(name, ".tar.gz") && got[name+"!after.txt"] != 1 {
			t.Errorf("%s: warnings %v, visited %v", name, warnings, got)
		}
	}
}
