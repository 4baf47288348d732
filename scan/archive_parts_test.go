package scan

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
)

// TestArchivePartsSpendingTheBudgetReportEachMemberOnce reads a zip whose
// members are read in parallel part groups until the archive budget runs
// out, on 1, 2 and 4 workers. Each member ends with its secret and is
// exactly the member budget long, so a member read whole has its secret
// found, and a member cut short loses it. Every member is then either
// found or named in a budget warning, never both and never neither, and
// never reported as corrupt, however the parts that were reading when the
// budget ran out were cut; the bytes scanned are the archive budget
// exactly.
func TestArchivePartsSpendingTheBudgetReportEachMemberOnce(t *testing.T) {
	const (
		members = 24
		size    = 256 << 10 // four members to a part group
	)
	dir := t.TempDir()
	path := filepath.Join(dir, "parts.zip")
	f, err := os.Create(path)
	must(t, err)
	zw := zip.NewWriter(f)
	body := strings.Repeat("a line of text to be scanned\n", size)
	for i := range members {
		tail := "k=" + secret(i)
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: "m" + itoa(i) + ".txt", Method: zip.Store})
		must(t, err)
		io.WriteString(fw, body[:size-len(tail)])
		io.WriteString(fw, tail)
	}
	must(t, zw.Close())
	must(t, f.Close())
	lim := archive.Limits{MaxMemberBytes: size, MaxArchiveBytes: 5*size + 1234}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for range rounds {
		for _, workers := range []int{1, 2, 4} {
			found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: workers, MaxInFlight: 2, ArchiveDepth: 1, Archive: lim}, dir)
			if err != nil {
				t.Fatal(err)
			}
			whole := map[string]bool{}
			for _, k := range found {
				for i := range members {
					if k.File == "parts.zip!m"+itoa(i)+".txt" && k.Secret == secret(i)[len("SECRET_"):] {
						whole[k.File] = true
					}
				}
			}
			named := map[string]bool{}
			for _, w := range archiveWarnings(t, warns) {
				if b := budgetOf(w); b != archive.BudgetArchiveBytes && b != archive.BudgetMemberBytes || named[w.Path] || !w.Lost {
					t.Errorf("%d workers: warning %v: want one archive-bytes budget per member cut, lost data", workers, w)
				}
				named[w.Path] = true
			}
			for i := range members {
				name := "parts.zip!m" + itoa(i) + ".txt"
				if whole[name] == named[name] {
					t.Errorf("%d workers: %s: secret found %v, named in a warning %v; want exactly one", workers, name, whole[name], named[name])
				}
			}
			if st.Bytes != lim.MaxArchiveBytes || len(whole) > 5 {
				t.Errorf("%d workers: %d bytes scanned, %d members whole; want the archive budget, %d, and at most 5", workers, st.Bytes, len(whole), lim.MaxArchiveBytes)
			}
		}
	}
}

// panickyReader is an archive's content whose ReadAt panics on its at'th
// call (counted from 1; never if 0): a bug in a Source's io.ReaderAt, or
// in the archive reader, met at any point of the opening, the listing or
// the reading of parts.
type panickyReader struct {
	*bytes.Reader
	calls *atomic.Int64
	at    int64
}

func (r panickyReader) ReadAt(p []byte, off int64) (int, error) {
	if r.calls.Add(1) == r.at {
		panic("ReadAt bug")
	}
	return r.Reader.ReadAt(p, off)
}

func (panickyReader) Close() error { return nil }

type panickySource struct {
	zip   []byte
	calls *atomic.Int64
	at    int64
}

func (s *panickySource) Enumerate(_ context.Context, b *Batch) (bool, error) {
	b.Add(Object{Name: "p.zip", Size: int64(len(s.zip)), Open: func() (io.ReadCloser, error) {
		return panickyReader{Reader: bytes.NewReader(s.zip), calls: s.calls, at: s.at}, nil
	}})
	for i := range 8 {
		b.Add(Object{Name: "f" + itoa(i), Size: -1, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(secret(i))), nil
		}})
	}
	return false, nil
}

// TestArchivePanicInPartsStopsTheScanCleanly: a panic while a zip read in
// parts is opened, listed or read (here, in its io.ReaderAt, at each of
// its calls in turn) stops the scan with the panic as Scan's error, never
// unwinding through the executor: every permit comes back and nothing
// leaks (goleak, in TestMain).
func TestArchivePanicInPartsStopsTheScanCleanly(t *testing.T) {
	var ms []member
	for i := range 12 {
		ms = append(ms, member{"m" + itoa(i) + ".txt", noise(uint64(i), 4<<10) + secret(i)})
	}
	data := zipOf(t, zip.Deflate, ms...)
	run := func(at int64) error {
		src := &panickySource{zip: data, calls: new(atomic.Int64), at: at}
		e := newEngine(Options{Detector: newFake(), Workers: 2, MaxInFlight: 4, ArchiveDepth: 1}.withDefaults())
		_, err := e.run(context.Background(), []source{&userSource{src: src, rc: e.newRootCtx("", false)}})
		if got := e.front.inFlight.Load(); got != 0 {
			t.Errorf("panic at ReadAt call %d: %d permits never released", at, got)
		}
		return err
	}
	clean := &panickySource{zip: data, calls: new(atomic.Int64)}
	if _, err := ScanSources(context.Background(), Options{Detector: newFake(), Workers: 2, ArchiveDepth: 1}, clean); err != nil {
		t.Fatal(err)
	}
	calls := clean.calls.Load()
	if calls < 8 {
		t.Fatalf("%d ReadAt calls: the zip was not read in place", calls)
	}
	for at := int64(1); at <= calls; at++ {
		err := run(at)
		var pe *spindle.PanicError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "archive p.zip") {
			t.Fatalf("panic at ReadAt call %d of %d: err %v, want the panic, naming the archive", at, calls, err)
		}
	}
}

// TestArchive7zPartsAreScanned: 7z archives made by 7-Zip (solid, solid in
// blocks of a few files, and not solid) are read in parts by several
// workers, a solid block being one part: every member's secrets are
// reported once, at the member's own lines, and every permit comes back.
// Skipped where 7z is not installed.
func TestArchive7zPartsAreScanned(t *testing.T) {
	tool, err := exec.LookPath("7z")
	if err != nil {
		t.Skip("7z not installed")
	}
	src := t.TempDir()
	var ms []member
	for i := range 12 {
		m := member{"d/m" + itoa(i) + ".txt", text(uint64(i), 3000)}
		ms = append(ms, m)
		writeTree(t, src, map[string]string{m.name: m.data})
	}
	dir := t.TempDir()
	var files []treeFile
	for _, v := range []struct{ name, flag string }{{"solid.7z", "-ms=on"}, {"blocks.7z", "-ms=3f"}, {"nonsolid.7z", "-ms=off"}} {
		out := filepath.Join(dir, v.name)
		cmd := exec.Command(tool, "a", "-bd", v.flag, out, "d")
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("7z: %v\n%s", err, b)
		}
		data, err := os.ReadFile(out)
		must(t, err)
		files = append(files, treeFile{v.name, data, ms})
	}
	want := writeFiles(t, dir, files)
	for _, workers := range []int{1, 2, 4} {
		opts := Options{Detector: newFake(), Workers: workers, MaxInFlight: 2, ChunkSize: 1000, ArchiveDepth: 1}
		var mu sync.Mutex
		var found []key
		opts.OnFinding = func(f report.Finding) { mu.Lock(); found = append(found, keyOf(f)); mu.Unlock() }
		e := newEngine(opts.withDefaults())
		st, err := e.scanPaths(context.Background(), dir)
		if err != nil || st.Warnings != 0 {
			t.Fatalf("%d workers: err %v, %d warnings", workers, err, st.Warnings)
		}
		if got := e.front.inFlight.Load(); got != 0 {
			t.Errorf("%d workers: %d permits never released", workers, got)
		}
		slices.SortFunc(found, compareKeys)
		if !slices.Equal(found, want) {
			t.Fatalf("%d workers: %d findings, want %d\n%s", workers, len(found), len(want), diffKeys(found, want))
		}
		if st.Archives != 3 || st.Members != 3*int64(len(ms)) {
			t.Errorf("%d workers: %d archives, %d members", workers, st.Archives, st.Members)
		}
	}

	// A member budget of 1000 bytes cuts every member: each is named, its
	// first 1000 bytes are scanned, and the members after it in its solid
	// block are still read.
	const cut = 1000
	var wantCut []key
	for _, f := range files {
		for _, m := range f.members {
			wantCut = append(wantCut, wholeBuffer(f.name+"!"+m.name, []byte(m.data[:cut]))...)
		}
	}
	slices.SortFunc(wantCut, compareKeys)
	for _, workers := range []int{1, 4} {
		found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: workers, ChunkSize: 1000, ArchiveDepth: 1,
			Archive: archive.Limits{MaxMemberBytes: cut}}, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(found, wantCut) {
			t.Fatalf("member budget, %d workers: %d findings, want %d\n%s", workers, len(found), len(wantCut), diffKeys(found, wantCut))
		}
		named := map[string]bool{}
		for _, w := range archiveWarnings(t, warns) {
			if budgetOf(w) != archive.BudgetMemberBytes || named[w.Path] {
				t.Errorf("member budget, %d workers: warning %v", workers, w)
			}
			named[w.Path] = true
		}
		if len(named) != 3*len(ms) || st.Bytes != 3*int64(len(ms))*cut {
			t.Errorf("member budget, %d workers: %d members named, %d bytes scanned; want %d and %d", workers, len(named), st.Bytes, 3*len(ms), 3*len(ms)*cut)
		}
	}
}
