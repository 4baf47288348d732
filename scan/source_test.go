package scan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/spindle-go/spindle/scan/report"
)

// patternReader yields n bytes of filler text with a secret at the end,
// generating them as it goes: a stream no test holds in memory.
type patternReader struct {
	n, off int64
	tail   []byte
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n+int64(len(r.tail)) {
		return 0, io.EOF
	}
	i := 0
	for ; i < len(p) && r.off < r.n; i++ {
		if r.off%64 == 63 {
			p[i] = '\n'
		} else {
			p[i] = 'a' + byte(r.off%26)
		}
		r.off++
	}
	for ; i < len(p) && r.off >= r.n && r.off < r.n+int64(len(r.tail)); i++ {
		p[i] = r.tail[r.off-r.n]
		r.off++
	}
	return i, nil
}

func collectSource(t *testing.T, opts Options, run func(Options) (Stats, error)) ([]key, []Warning, Stats, error) {
	t.Helper()
	var (
		mu    sync.Mutex
		found []key
		warns []Warning
	)
	opts.OnFinding = func(f report.Finding) { mu.Lock(); found = append(found, keyOf(f)); mu.Unlock() }
	opts.OnWarning = func(w Warning) { mu.Lock(); warns = append(warns, w); mu.Unlock() }
	st, err := run(opts)
	slices.SortFunc(found, compareKeys)
	return found, warns, st, err
}

func TestScanReaderFindsASecretAtTheEndOfALongStream(t *testing.T) {
	const n = 8 << 20
	tail := "\nkey=" + secret(7) + "\n"
	for _, workers := range []int{1, 3} {
		r := &patternReader{n: n, tail: []byte(tail)}
		found, warns, st, err := collectSource(t, Options{Detector: newFake(), Workers: workers, ChunkSize: 64 << 10},
			func(o Options) (Stats, error) { return ScanReader(context.Background(), o, "stdin.log", r) })
		if err != nil || len(warns) > 0 {
			t.Fatalf("err %v, warnings %v", err, warns)
		}
		want := []key{{"stdin.log", "fake", n/64 + 2, 5, n/64 + 2, 35, secret(7)[7:]}}
		if !slices.Equal(found, want) {
			t.Errorf("%d workers: found %v, want %v", workers, found, want)
		}
		if st.Bytes != n+int64(len(tail)) || st.Files != 1 {
			t.Errorf("%d workers: %d bytes in %d files, want %d in 1", workers, st.Bytes, st.Files, n+len(tail))
		}
	}
}

// A stream that is an archive is walked as a stream: the first chunk,
// which recognised it, is read again in front of the rest.
func TestScanReaderOpensArchiveStreams(t *testing.T) {
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	body := strings.Repeat("filler line\n", 20000) + "k=" + secret(1) + "\n"
	must(t, tw.WriteHeader(&tar.Header{Name: "app/.env", Mode: 0o600, Size: int64(len(body))}))
	_, err := tw.Write([]byte(body))
	must(t, err)
	must(t, tw.Close())
	must(t, gz.Close())

	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	fw, _ := zw.Create("x/y.txt")
	fw.Write([]byte("k=" + secret(2)))
	must(t, zw.Close())

	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"release.tgz", tgz.Bytes(), "release.tgz!app/.env"},
		{"bundle.zip", zb.Bytes(), "bundle.zip!x/y.txt"},
	} {
		found, warns, st, err := collectSource(t, Options{Detector: newFake(), ChunkSize: 1024},
			func(o Options) (Stats, error) {
				return ScanReader(context.Background(), o, tt.name, io.MultiReader(bytes.NewReader(tt.data)))
			})
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: err %v, warnings %v", tt.name, err, warns)
		}
		if got := filesOf(found); !slices.Equal(got, []string{tt.want}) || st.Archives != 1 || st.Members != 1 {
			t.Errorf("%s: files %v, %d archives, %d members; want [%s] in 1 archive", tt.name, got, st.Archives, st.Members, tt.want)
		}
	}
}

func TestScanFSWalksAnFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a.txt":            {Data: []byte(secret(1))},
		"dir/sub/b.env":    {Data: []byte("x\nk=" + secret(2))},
		"dir/.git/config":  {Data: []byte(secret(3))},
		"dir/bin.dat":      {Data: []byte(pngHead + secret(4))},
		"other/ignored.md": {Data: []byte(secret(5))},
	}
	found, warns, st, err := collectSource(t, Options{Detector: newFake()},
		func(o Options) (Stats, error) { return ScanFS(context.Background(), o, fsys, "a.txt", "dir") })
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	if got, want := filesOf(found), []string{"a.txt", "dir/sub/b.env"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if st.Skipped[SkipGit] != 1 || st.Skipped[SkipBinary] != 1 {
		t.Errorf("skipped %v, want one .git and one binary", st.Skipped)
	}
	if _, warns, _, _ := collectSource(t, Options{Detector: newFake()},
		func(o Options) (Stats, error) { return ScanFS(context.Background(), o, fsys, "missing") }); len(warns) != 1 {
		t.Errorf("a missing root: warnings %v, want one", warns)
	}
}

// blobSource is a Source of in-memory objects, some with an Expand hook,
// listed a few per call.
type blobSource struct {
	objs  map[string]string
	names []string
	hook  func(name string) func(report.Finding, func(report.Finding))
	fail  error
	// inMemory lists each object with its Data rather than an Open.
	inMemory bool
}

func (s *blobSource) Enumerate(_ context.Context, b *Batch) (bool, error) {
	if s.fail != nil {
		return false, s.fail
	}
	if s.names == nil {
		for n := range s.objs {
			s.names = append(s.names, n)
		}
		slices.Sort(s.names)
	}
	for range 3 {
		if len(s.names) == 0 {
			return false, nil
		}
		n := s.names[0]
		s.names = s.names[1:]
		data := s.objs[n]
		o := Object{Name: n, Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader(data)), nil
		}}
		if s.inMemory {
			o = Object{Name: n, Data: []byte(data)}
		}
		if s.hook != nil {
			o.Expand = s.hook(n)
		}
		b.Add(o)
	}
	return len(s.names) > 0, nil
}

func TestSourceObjectsGoThroughTheEngine(t *testing.T) {
	objs := map[string]string{}
	for i := range 20 {
		objs["blob"+itoa(i)] = strings.Repeat("x\n", i*50) + "k=" + secret(i)
	}
	objs["skipme"] = secret(99)
	// Objects whose name ends in 1 are changes two commits make: each
	// finding is reported once per commit.
	src := &blobSource{objs: objs, hook: func(name string) func(report.Finding, func(report.Finding)) {
		if !strings.HasSuffix(name, "1") {
			return nil
		}
		return func(f report.Finding, emit func(report.Finding)) {
			for _, c := range []string{"c1", "c2"} {
				g := f
				g.File += "@" + c
				emit(g)
			}
		}
	}}
	det := newFake()
	det.skip = func(p string) bool { return p == "skipme" }
	found, _, st, err := collectSource(t, Options{Detector: det, Workers: 2, ChunkSize: 256, MaxInFlight: 2},
		func(o Options) (Stats, error) { return ScanSources(context.Background(), o, src) })
	if err != nil {
		t.Fatal(err)
	}
	expanded := map[string][]string{}
	for _, f := range found {
		if file, commit, ok := strings.Cut(f.File, "@"); ok {
			expanded[file] = append(expanded[file], commit)
		}
	}
	for _, c := range expanded {
		slices.Sort(c)
	}
	want := map[string][]string{"blob1": {"c1", "c2"}, "blob11": {"c1", "c2"}}
	if len(found) != 22 || !reflect.DeepEqual(expanded, want) {
		t.Errorf("OnFinding got %d findings, expanded %v; want 22 and blob1, blob11 once per commit", len(found), expanded)
	}
	if st.Findings != 22 || st.Files != 20 || st.Skipped[SkipAllowlist] != 1 {
		t.Errorf("stats: %d findings, %d files, skipped %v", st.Findings, st.Files, st.Skipped)
	}
}

func TestSourceErrorEndsTheScan(t *testing.T) {
	boom := errors.New("repository vanished")
	_, err := ScanSources(context.Background(), Options{Detector: newFake()}, &blobSource{fail: boom})
	if !errors.Is(err, boom) {
		t.Errorf("err %v, want the source's error", err)
	}
}

func TestBaselineAndExcludeAreLibraryPolicy(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": secret(1) + "\n" + secret(2), "report.json": secret(3)})
	known := knownSet{"a.txt\x00" + secret(1)[7:]: true}
	found, _, st, err := collect(t, Options{Detector: newFake(), Baseline: known, Exclude: []string{dir + "/report.json"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Secret != secret(2)[7:] {
		t.Errorf("found %v, want only the second secret", found)
	}
	if st.Known != 1 || st.Findings != 1 || st.Skipped[SkipExcluded] != 1 {
		t.Errorf("stats: known %d, findings %d, skipped %v", st.Known, st.Findings, st.Skipped)
	}
}

type knownSet map[string]bool

func (k knownSet) Contains(f report.Finding) bool { return k[f.File+"\x00"+f.Secret] }

// A scan that could read nothing and lost data says so: a CI gate must not
// read it as clean. One that lost only noise, or had nothing to read, is
// fine.
func TestNothingReadIsAnError(t *testing.T) {
	failing := &openFailSource{err: errors.New("permission denied")}
	st, err := ScanSources(context.Background(), Options{Detector: newFake()}, failing)
	if !errors.Is(err, ErrNothingRead) || st.Lost != 2 || st.Noise != 0 {
		t.Errorf("err %v, lost %d noise %d: want ErrNothingRead and 2 lost", err, st.Lost, st.Noise)
	}
	noisy := &openFailSource{err: fmt.Errorf("odd: %w", ErrNoise)}
	if st, err := ScanSources(context.Background(), Options{Detector: newFake()}, noisy); err != nil || st.Noise != 2 || st.Lost != 0 {
		t.Errorf("noise only: err %v, lost %d noise %d", err, st.Lost, st.Noise)
	}
	if _, err := Scan(context.Background(), Options{Detector: newFake()}, t.TempDir()); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
}

// openFailSource lists two objects that cannot be opened.
type openFailSource struct{ err error }

func (s *openFailSource) Enumerate(_ context.Context, b *Batch) (bool, error) {
	for _, n := range []string{"a", "b"} {
		b.Add(Object{Name: n, Size: -1, Open: func() (io.ReadCloser, error) { return nil, s.err }})
	}
	return false, nil
}

// Sharding a tree by name splits the work without changing what is
// found: n shards' findings, together, are the whole scan's, each once,
// archives included (a member goes with its archive).
func TestShardsCoverTheTreeExactly(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("d%d/f%d.txt", i%13, i)] = strings.Repeat("x\n", i) + secret(i)
	}
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for i := range 5 {
		body := "k=" + secret(1000+i)
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("m%d.txt", i), Mode: 0o600, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	files["bundle.tgz"] = tgz.String()
	writeTree(t, dir, files)
	whole, _, _, err := collect(t, Options{Detector: newFake()}, dir)
	if err != nil || len(whole) != 205 {
		t.Fatalf("whole scan: %d findings, %v", len(whole), err)
	}
	for _, n := range []int{1, 2, 3, 7} {
		var union []key
		for i := range n {
			found, _, st, err := collect(t, Options{Detector: newFake(), Shard: Shard{Index: i, Count: n}}, dir)
			if err != nil {
				t.Fatal(err)
			}
			if n > 1 && st.Skipped[SkipShard] == 0 {
				t.Errorf("shard %d/%d skipped nothing", i, n)
			}
			union = append(union, found...)
		}
		slices.SortFunc(union, compareKeys)
		if !slices.Equal(union, whole) {
			t.Errorf("%d shards: %d findings, the whole scan %d", n, len(union), len(whole))
		}
	}
	for _, bad := range []string{"", "1", "2/2", "-1/3", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("3/7"); err != nil || s != (Shard{3, 7}) {
		t.Errorf("ParseShard(3/7) = %v, %v", s, err)
	}
}

// fragmentSource lists one empty object per name, marked as a fragment
// of a change when its name says so.
type fragmentSource struct{ names []string }

func (s *fragmentSource) Enumerate(_ context.Context, b *Batch) (bool, error) {
	for _, n := range s.names {
		b.Add(Object{Name: n, Size: 0, Fragment: strings.HasPrefix(n, "fragment"),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("")), nil }})
	}
	return false, nil
}

// TestPathRulesOnEmptyContent: a path-only rule does not fire on an
// empty file (gitleaks reads no fragment of it) but does on an empty
// fragment of a change (a hunk that only removes lines, which gitleaks
// reports), and fires on a file with content.
func TestPathRulesOnEmptyContent(t *testing.T) {
	det := newFake()
	det.pathRule = regexp.MustCompile(`\.cfg$`)
	src := &fragmentSource{names: []string{"empty.cfg", "fragment.cfg", "fragment-too.cfg", "fragment.txt"}}
	found, _, _, err := collectSource(t, Options{Detector: det, Workers: 2},
		func(o Options) (Stats, error) { return ScanSources(context.Background(), o, src) })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range found {
		names = append(names, k.File)
	}
	slices.Sort(names)
	if want := []string{"fragment-too.cfg", "fragment.cfg"}; !slices.Equal(names, want) {
		t.Errorf("path rule fired on %v, want %v", names, want)
	}
}

// TestDataIsScannedInOneBuffer: an object listed with its Data is given
// to the detector in one call, however many chunks long, and its findings
// (lines and columns too) are those of the same content read in chunks.
func TestDataIsScannedInOneBuffer(t *testing.T) {
	objs := map[string]string{}
	for i := range 12 {
		objs["blob"+itoa(i)] = strings.Repeat("x\n", i*97) + "k=" + secret(i) + strings.Repeat("y", i*301) + " k=" + secret(100+i) + "\n"
	}
	objs["empty"] = ""
	run := func(inMemory bool) ([]key, map[string]int, Stats) {
		var mu sync.Mutex
		calls := map[string]int{}
		det := newFake()
		det.onScan = func(p string) { mu.Lock(); calls[p]++; mu.Unlock() }
		found, warns, st, err := collectSource(t, Options{Detector: det, Workers: 2, ChunkSize: 256},
			func(o Options) (Stats, error) {
				return ScanSources(context.Background(), o, &blobSource{objs: objs, inMemory: inMemory})
			})
		if err != nil || len(warns) > 0 {
			t.Fatalf("err %v, warnings %v", err, warns)
		}
		return found, calls, st
	}
	chunked, chunkCalls, _ := run(false)
	whole, wholeCalls, st := run(true)
	if len(whole) != 24 || !slices.Equal(whole, chunked) {
		t.Errorf("in memory: %v\nin chunks: %v", whole, chunked)
	}
	for n, data := range objs {
		if wholeCalls[n] != 1 {
			t.Errorf("%s (%d bytes): %d detector calls in memory, want 1", n, len(data), wholeCalls[n])
		}
	}
	if chunkCalls["blob11"] < 10 {
		t.Errorf("blob11 read in chunks took %d calls: the test needs objects longer than a chunk", chunkCalls["blob11"])
	}
	if st.Files != 13 || st.Findings != 24 {
		t.Errorf("stats: %d files, %d findings", st.Files, st.Findings)
	}
}
