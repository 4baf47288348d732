package scan

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
	"github.com/spindle-go/spindle/scan/rules"
)

// treeFile is a file of a generated tree and the members it holds: name
// is the member's name inside the file (joined with "!" for nested
// archives), or "" for a file scanned as it is or a compressed stream,
// which keeps the file's own name.
type treeFile struct {
	name    string
	data    []byte
	members []member
}

// writeFiles writes files under dir and returns the findings a scan must
// report: the fake detector run over each member's whole content, under
// the member's full name, with the member's own line numbers.
func writeFiles(t testing.TB, dir string, files []treeFile) []key {
	t.Helper()
	var want []key
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, f.data, 0o644))
		for _, m := range f.members {
			name := f.name
			if m.name != "" {
				name += "!" + m.name
			}
			want = append(want, wholeBuffer(name, []byte(m.data))...)
		}
	}
	slices.SortFunc(want, compareKeys)
	return want
}

// text returns n bytes of text with planted secrets, some across every
// multiple of the chunk sizes the tests use.
func text(seed uint64, n int) string {
	return string(plantedData(seed, n, []int{96, 97, 1000}))
}

// formatTree is one archive of every format, nested ones, and plain files
// beside them, each holding secrets.
func formatTree(t testing.TB) []treeFile {
	m := func(name string, seed uint64) member { return member{name, text(seed, 3000)} }
	a1, a2 := m("dir/a.txt", 1), m("b.env", 2)
	t1, t2 := m("etc/app.conf", 3), m("x/y/z.txt", 4)
	single := m("", 5)
	inner := m("x.env", 6)
	deep := m("x.env", 7)
	bz := member{"app.env", "line one\nline two\nkey=" + secret(100) + "\n"}
	top := m("top.txt", 8)
	plain := m("", 9)
	return []treeFile{
		{"a.zip", zipOf(t, zip.Deflate, a1, a2), []member{a1, a2}},
		{"lib/stored.jar", zipOf(t, zip.Store, a1), []member{a1}},
		{"b.tar", tarOf(t, t1, t2), []member{t1, t2}},
		{"c.tar.gz", gzipOf(t, tarOf(t, t1, t2)), []member{t1, t2}},
		{"d.tgz", gzipOf(t, tarOf(t, t1)), []member{t1}},
		{"notes.txt.gz", gzipOf(t, []byte(single.data)), []member{single}},
		{"e.tar.xz", xzOf(t, tarOf(t, t2)), []member{t2}},
		{"notes.txt.xz", xzOf(t, []byte(single.data)), []member{single}},
		{"f.tar.zst", zstdOf(t, tarOf(t, t1)), []member{t1}},
		{"notes.txt.zst", zstdOf(t, []byte(single.data)), []member{single}},
		{"secret.tar.bz2", readTestdata(t, "secret.tar.bz2"), []member{bz}},
		{"app.env.bz2", readTestdata(t, "app.env.bz2"), []member{{"", bz.data}}},
		{"nested.tar.gz", gzipOf(t, tarOf(t, top, member{"lib/inner.zip", string(zipOf(t, zip.Deflate, inner))})),
			[]member{top, {"lib/inner.zip!x.env", inner.data}}},
		{"deep.zip", zipOf(t, zip.Deflate, member{"l1.tar", string(tarOf(t, member{"l2.tgz", string(gzipOf(t, tarOf(t, deep)))}))}),
			[]member{{"l1.tar!l2.tgz!x.env", deep.data}}},
		{"data.bin", zipOf(t, zip.Deflate, a2), []member{a2}}, // a zip by its magic, not its name
		{"fake.gz", []byte(plain.data), []member{plain}},      // a gz by its name only: text
		{"plain.txt", []byte(plain.data), []member{plain}},
	}
}

// TestArchiveMembersAreScanned scans a tree with an archive of every
// format, nested archives and plain files, and checks that every planted
// secret is reported under the member's full name (outer.zip!dir/a.txt,
// nested.tar.gz!lib/inner.zip!x.env, notes.txt.gz for a compressed
// stream) at the member's own line and column, exactly as a scan of the
// member's whole content finds it: for every chunk size (members of
// several chunks, secrets across chunk boundaries) and worker count.
func TestArchiveMembersAreScanned(t *testing.T) {
	dir := t.TempDir()
	files := formatTree(t)
	want := writeFiles(t, dir, files)
	if len(want) < 100 {
		t.Fatalf("only %d planted secrets", len(want))
	}
	var members int64
	for _, f := range files[:len(files)-2] { // all but fake.gz and plain.txt are archives
		members += int64(len(f.members))
	}
	for _, cs := range []int{2 * fakeWindow, 1000, DefaultChunkSize} {
		for _, workers := range []int{1, 3} {
			found, warns, st, err := collect(t, Options{Detector: newFake(), ChunkSize: cs, Workers: workers, ArchiveDepth: DefaultArchiveDepth}, dir)
			if err != nil || len(warns) > 0 {
				t.Fatalf("chunk %d, %d workers: err %v, warnings %v", cs, workers, err, warns)
			}
			if !slices.Equal(found, want) {
				t.Fatalf("chunk %d, %d workers: %d findings, want %d\n%s", cs, workers, len(found), len(want), diffKeys(found, want))
			}
			if st.Files != int64(len(files)) || st.Archives != int64(len(files)-2) || st.Members != members {
				t.Errorf("chunk %d, %d workers: Stats %d files, %d archives, %d members; want %d, %d, %d",
					cs, workers, st.Files, st.Archives, st.Members, len(files), len(files)-2, members)
			}
		}
	}
}

// TestArchiveDepth: members of archives nested deeper than ArchiveDepth
// are not scanned, and each archive not opened is a depth budget warning
// naming it; ArchiveDepth 0 turns archives off, and an archive is then a
// file like any other: binary, so skipped, or with ScanBinary its raw
// bytes are scanned (a stored member's secret is found, named after the
// file, since nothing is opened).
func TestArchiveDepth(t *testing.T) {
	dir := t.TempDir()
	// l0.zip!x.txt, l0.zip!l1.zip!x.txt, ... down to depth 4, stored so
	// that raw bytes hold every secret.
	z := zipOf(t, zip.Store, member{"x.txt", "k=" + secret(4)})
	for d := 3; d >= 0; d-- {
		z = zipOf(t, zip.Store, member{"x.txt", "k=" + secret(d)}, member{"l" + itoa(d+1) + ".zip", string(z)})
	}
	writeTree(t, dir, map[string]string{"l0.zip": string(z), "plain.txt": secret(9)})
	name := func(d int) string {
		n := "l0.zip"
		for i := 1; i <= d; i++ {
			n += "!l" + itoa(i) + ".zip"
		}
		return n
	}
	for depth := 1; depth <= 5; depth++ {
		found, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: depth}, dir)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"plain.txt"}
		for d := 0; d < min(depth, 5); d++ {
			want = append(want, name(d)+"!x.txt")
		}
		slices.Sort(want)
		if got := filesOf(found); !slices.Equal(got, want) {
			t.Errorf("depth %d: files %v, want %v", depth, got, want)
		}
		wantWarn := depth < 5
		if len(warns) != b2i(wantWarn) {
			t.Fatalf("depth %d: warnings %v", depth, warns)
		}
		if wantWarn {
			var be *archive.BudgetError
			if w := warns[0]; w.Op != "archive" || w.Path != name(depth) || !errors.As(w.Err, &be) || be.Budget != archive.BudgetDepth {
				t.Errorf("depth %d: warning %v, want a depth budget on %s", depth, w, name(depth))
			}
			if st.Skipped[SkipBudget] != 1 {
				t.Errorf("depth %d: Skipped %v", depth, st.Skipped)
			}
		}
	}
	t.Run("off", func(t *testing.T) {
		found, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: NoArchives}, dir)
		if err != nil || len(warns) > 0 || st.Archives != 0 {
			t.Fatalf("err %v, warnings %v, %d archives", err, warns, st.Archives)
		}
		if got := filesOf(found); !slices.Equal(got, []string{"plain.txt"}) || st.Skipped[SkipBinary] != 1 {
			t.Errorf("files %v, skipped %v: want the zip skipped as binary", got, st.Skipped)
		}
		found, _, _, _ = collect(t, Options{Detector: newFake(), ArchiveDepth: NoArchives, ScanBinary: true}, dir)
		if n := len(found); n != 6 || found[0].File != "l0.zip" {
			t.Errorf("ScanBinary: %d findings %v, want the 5 stored secrets in l0.zip and plain.txt's", n, found)
		}
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestArchiveSelfNamed: an archive that contains itself by name (each
// level a copy of the one before, named like it) is opened to the depth
// budget and no further.
func TestArchiveSelfNamed(t *testing.T) {
	dir := t.TempDir()
	z := zipOf(t, zip.Deflate, member{"x.txt", secret(0)})
	for i := 1; i < 8; i++ {
		z = zipOf(t, zip.Deflate, member{"self.zip", string(z)}, member{"x.txt", secret(i)})
	}
	tgz := gzipOf(t, tarOf(t, member{"self.tar.gz", string(gzipOf(t, tarOf(t, member{"self.tar.gz", "k=" + secret(20)})))}))
	writeTree(t, dir, map[string]string{"self.zip": string(z), "self.tar.gz": string(tgz)})
	found, warns, _, err := collect(t, Options{Detector: newFake(), ArchiveDepth: 3}, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := "self.zip"
	want := []string{p + "!self.zip!self.zip!x.txt", p + "!self.zip!x.txt", p + "!x.txt",
		"self.tar.gz" + "!self.tar.gz!self.tar.gz"}
	slices.Sort(want)
	if got := filesOf(found); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if len(warns) != 1 || !strings.HasSuffix(warns[0].Path, "self.zip!self.zip!self.zip") {
		t.Errorf("warnings %v, want one depth budget on the third self.zip", warns)
	}
}

// scratchID is the fake detector's any in TestArchiveMemberChunksAreSharedBetweenWorkers:
// one per worker, so a chunk's scanner is known.
type scratchID struct{ id int }

// sharingDetector is the fake detector with a any per worker, which
// records which workers scanned archive members, and a pause per member
// chunk so that an idle worker has the time to steal.
type sharingDetector struct {
	*fakeDetector
	mu      sync.Mutex
	next    int
	members map[int]int // scratch id → member chunks scanned
}

func (d *sharingDetector) NewScratch() any {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next++
	return &scratchID{d.next}
}

func (d *sharingDetector) Scan(s any, path string, data []byte, emit func(rules.Match)) {
	if strings.Contains(path, "!") {
		time.Sleep(50 * time.Microsecond)
		d.mu.Lock()
		d.members[s.(*scratchID).id]++
		d.mu.Unlock()
	}
	d.fakeDetector.Scan(nil, path, data, emit)
}

// TestArchiveMemberChunksAreSharedBetweenWorkers: the chunks of one
// archive's members are scanned by several workers while one worker
// decodes, through Scan tasks, with the same findings as one worker.
func TestArchiveMemberChunksAreSharedBetweenWorkers(t *testing.T) {
	dir := t.TempDir()
	var ms []member
	for i := range 8 {
		ms = append(ms, member{"m" + itoa(i) + ".txt", string(plantedData(uint64(i), 12_000, []int{1024}))})
	}
	want := writeFiles(t, dir, []treeFile{{"big.tar.gz", gzipOf(t, tarOf(t, ms...)), ms}})
	det := &sharingDetector{fakeDetector: newFake(), members: map[int]int{}}
	found, warns, st, err := collect(t, Options{Detector: det, Workers: 3, ChunkSize: 1024, ArchiveDepth: 1}, dir)
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	if !slices.Equal(found, want) {
		t.Fatalf("%d findings, want %d\n%s", len(found), len(want), diffKeys(found, want))
	}
	if st.Phases.Scan.Tasks == 0 || len(det.members) < 2 {
		t.Errorf("%d Scan tasks, member chunks scanned by %d workers (%v): want several", st.Phases.Scan.Tasks, len(det.members), det.members)
	}
	if st.Members != 8 || st.Bytes != 8*12_000 {
		t.Errorf("Stats: %d members, %d bytes", st.Members, st.Bytes)
	}
}

// TestArchivePermitsReleasedExactlyOnce runs trees of archives and plain
// files on 1 to 4 workers with frontiers of 1 to 7 permits and 0 to 2
// shared buffers: every permit comes back (an archive's after its last
// member's last Scan task), nothing is released twice (that panics), and
// every secret is reported once. Three of the zips are large enough to be
// read in more part groups than an archive may have queued at once
// (partsAhead), so that groups finishing on one worker list the next
// while others are read, several archives at a time.
func TestArchivePermitsReleasedExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	var big []key
	for i := range 3 {
		keys, groups := writeManyGroupsZip(t, filepath.Join(dir, "big"+itoa(i)+".zip"), uint64(i))
		if groups <= partsAhead {
			t.Fatalf("a zip of %d part groups, want more than %d", groups, partsAhead)
		}
		big = append(big, keys...)
	}
	var files []treeFile
	for i := range 12 {
		ms := []member{{"a.txt", text(uint64(i), 2000)}, {"d/b.txt", text(uint64(i+50), 5000)}}
		switch i % 3 {
		case 0:
			files = append(files, treeFile{"z" + itoa(i) + ".zip", zipOf(t, zip.Deflate, ms...), ms})
		case 1:
			files = append(files, treeFile{"t" + itoa(i) + ".tar.gz", gzipOf(t, tarOf(t, ms...)), ms})
		case 2:
			files = append(files, treeFile{"p" + itoa(i) + ".txt", []byte(ms[1].data), []member{{"", ms[1].data}}})
		}
	}
	want := append(writeFiles(t, dir, files), big...)
	slices.SortFunc(want, compareKeys)
	iters := 3
	if testing.Short() {
		iters = 1
	}
	for it := range iters {
		for _, workers := range []int{1, 2, 4} {
			for _, inflight := range []int{1, 7} {
				opts := Options{Detector: newFake(), Workers: workers, MaxInFlight: inflight, Buffers: 1 + it, ChunkSize: 512, ArchiveDepth: 2}
				var mu sync.Mutex
				var found []key
				opts.OnFinding = func(f report.Finding) { mu.Lock(); found = append(found, keyOf(f)); mu.Unlock() }
				e := newEngine(opts.withDefaults())
				if _, err := e.scanPaths(context.Background(), dir); err != nil {
					t.Fatalf("workers %d inflight %d: %v", workers, inflight, err)
				}
				if got := e.front.inFlight.Load(); got != 0 {
					t.Fatalf("workers %d inflight %d: %d permits never released", workers, inflight, got)
				}
				slices.SortFunc(found, compareKeys)
				if !slices.Equal(found, want) {
					t.Fatalf("workers %d inflight %d: %d findings, want %d\n%s", workers, inflight, len(found), len(want), diffKeys(found, want))
				}
			}
		}
	}
}

// writeManyGroupsZip writes, at path, a zip that the engine reads in more
// part groups than partsAhead, and returns the findings a scan must report
// in it and how many groups it makes: images of 1 MiB, stored, each a
// group of its own (partBytes of compressed data), which are binary and so
// cost one chunk each, between text members with secrets, deflated. It is
// written straight to the file: under the race detector, each copy of a
// MiB costs tens of milliseconds.
func writeManyGroupsZip(t testing.TB, path string, seed uint64) ([]key, int) {
	t.Helper()
	f, err := os.Create(path)
	must(t, err)
	defer f.Close()
	img := append([]byte(pngHead), make([]byte, partBytes)...)
	var (
		want   []key
		groups int
	)
	zw := zip.NewWriter(f)
	for i := range 3 * (partsAhead + 3) {
		if i%3 == 0 {
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: "img" + itoa(i) + ".png", Method: zip.Store})
			must(t, err)
			fw.Write(img)
			groups++
			continue
		}
		name, data := "src/t"+itoa(i)+".txt", text(seed*1000+uint64(i), 1500)
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		must(t, err)
		io.WriteString(fw, data)
		want = append(want, wholeBuffer(filepath.Base(path)+"!"+name, []byte(data))...)
	}
	must(t, zw.Close())
	must(t, f.Close())
	return want, groups
}
