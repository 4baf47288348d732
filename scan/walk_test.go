package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spindle-go/spindle/scan/report"
)

// relFiles returns the files of found, sorted, distinct, checking that
// they are named relative to dir, the scan's one root, however dir was
// spelled.
func relFiles(t *testing.T, dir string, found []key) []string {
	t.Helper()
	files := filesOf(found)
	for _, f := range files {
		if filepath.IsAbs(f) || strings.HasPrefix(f, dir) {
			t.Fatalf("file %q is not named relative to the root %s", f, dir)
		}
	}
	return files
}

func TestWalkWhatIsScanned(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt":             secret(1),
		".hidden":           secret(2),
		".config/app.env":   "x=" + secret(3),
		"deep/er/still/f.c": "// " + secret(4) + "\n",
		".git/config":       secret(5),
		".git/objects/x":    secret(6),
		"sub/.git/HEAD":     secret(7), // a nested repository's .git
		"bin.dat":           pngHead + secret(8),
		"nul.log":           "text\x00with a NUL " + secret(9),
		"empty":             "",
	})
	found, warns, st, err := collect(t, Options{Detector: newFake()}, dir)
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	got := relFiles(t, dir, found)
	want := []string{".config/app.env", ".hidden", "a.txt", "deep/er/still/f.c", "nul.log"}
	if !slices.Equal(got, want) {
		t.Errorf("files with findings = %v, want %v", got, want)
	}
	if st.Skipped[SkipGit] != 2 || st.Skipped[SkipBinary] != 1 {
		t.Errorf("skipped = %v, want 2 git and 1 binary (the PNG)", st.Skipped)
	}
	if st.Files != 6 { // the five above and the empty file
		t.Errorf("Stats.Files = %d, want 6", st.Files)
	}
}

// pngHead is the start of a PNG file: a known binary format.
const pngHead = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"

// TestContentRulesSkipOnlyKnownBinaryFormats: a file's magic number, not
// a NUL byte, decides; path-only rules fire on every file; UTF-16 and
// UTF-32 text is decoded, with its own line numbers.
func TestContentRulesSkipOnlyKnownBinaryFormats(t *testing.T) {
	dir := t.TempDir()
	utf16le := func(s string) string {
		var b strings.Builder
		b.WriteString("\xff\xfe")
		for _, r := range s {
			b.WriteByte(byte(r))
			b.WriteByte(0)
		}
		return b.String()
	}
	utf16beNoBOM := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteByte(0)
			b.WriteByte(byte(r))
		}
		return b.String()
	}
	utf32le := func(s string) string {
		var b strings.Builder
		b.WriteString("\xff\xfe\x00\x00")
		for _, r := range s {
			b.WriteString(string([]byte{byte(r), 0, 0, 0}))
		}
		return b.String()
	}
	writeTree(t, dir, map[string]string{
		"img.png":      pngHead + secret(1),
		"prog.elf":     "\x7fELF\x02\x01\x01" + strings.Repeat("\x00", 57) + secret(2),
		"notes.txt":    "a\x00b " + secret(3),
		"win16.txt":    utf16le("line one\r\nkey=" + secret(4) + "\r\n"),
		"be16.txt":     utf16beNoBOM("header line here\nsecond " + secret(5) + "\n"),
		"wide32.txt":   utf32le("x\ny\nz=" + secret(6)),
		"keystore.p12": "\x30\x82\x0a\x00\x00\x00 binary keystore",
		"doc.rtf":      "{\\rtf1\\ansi " + secret(7) + "}",
	})
	det := newFake()
	det.pathRule = regexp.MustCompile(`\.(p12|png)$`)
	found, warns, st, err := collect(t, Options{Detector: det, ChunkSize: 64}, dir)
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	var got []string
	for _, f := range found {
		got = append(got, fmt.Sprintf("%s:%d:%d:%s", f.File, f.Line, f.Column, f.Rule))
	}
	want := []string{
		"be16.txt:2:8:fake",
		"doc.rtf:1:13:fake",
		"img.png:0:0:path-rule",
		"keystore.p12:0:0:path-rule",
		"notes.txt:1:5:fake",
		"wide32.txt:3:3:fake",
		"win16.txt:2:5:fake",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%v\nwant\n%v", got, want)
	}
	if st.Skipped[SkipBinary] != 2 {
		t.Errorf("skipped %v, want the PNG and the ELF as binary", st.Skipped)
	}
	found, _, _, _ = collect(t, Options{Detector: newFake(), ScanBinary: true}, dir)
	if n := len(filesOf(found)); n != 7 { // all but the keystore, which holds no secret
		t.Errorf("ScanBinary: findings in %d files %v, want 7", n, filesOf(found))
	}
}

func TestWalkOptions(t *testing.T) {
	files := map[string]string{
		"small.txt": secret(1),
		"big.txt":   strings.Repeat("x", 5000) + secret(2),
		"bin.dat":   pngHead + secret(3),
		"late.dat":  strings.Repeat("y", BinaryProbe) + "\x00" + secret(4), // a NUL says nothing: text
	}
	tests := []struct {
		name    string
		opts    Options
		want    []string
		skipped map[string]int64
	}{
		{"defaults", Options{}, []string{"big.txt", "late.dat", "small.txt"}, map[string]int64{SkipBinary: 1}},
		{"scan binary", Options{ScanBinary: true}, []string{"big.txt", "bin.dat", "late.dat", "small.txt"}, map[string]int64{}},
		{"max size", Options{MaxFileSize: 1000}, []string{"small.txt"}, map[string]int64{SkipBinary: 1, SkipSize: 2}},
		{"max size exact", Options{MaxFileSize: int64(len(files["big.txt"]))}, []string{"big.txt", "small.txt"}, map[string]int64{SkipBinary: 1, SkipSize: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, files)
			tt.opts.Detector = newFake()
			found, _, st, err := collect(t, tt.opts, dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := relFiles(t, dir, found); !slices.Equal(got, tt.want) {
				t.Errorf("files = %v, want %v", got, tt.want)
			}
			if !mapsEqual(st.Skipped, tt.skipped) {
				t.Errorf("skipped = %v, want %v", st.Skipped, tt.skipped)
			}
		})
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestGitignoreNested(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":            "*.log\nbuild/\n/rootonly.txt\ndoc/frotz\n",
		"keep.txt":              secret(1),
		"x.log":                 secret(2),
		"rootonly.txt":          secret(3),
		"sub/rootonly.txt":      secret(4), // anchored pattern: only at the root
		"build/out.txt":         secret(5),
		"sub/build/out.txt":     secret(6), // "build/" matches at any depth
		"sub/.gitignore":        "!keep.log\n",
		"sub/keep.log":          secret(7), // re-included by the nested file
		"sub/other.log":         secret(8),
		"sub/deeper/.ignore":    "*.txt\n",
		"sub/deeper/a.txt":      secret(9),
		"sub/deeper/b.md":       secret(10),
		"doc/frotz":             secret(11),
		"a/doc/frotz":           secret(12), // a slash in the middle anchors the pattern
		"q/.gitignore":          "file?.txt\n",
		"q/file1.txt":           secret(13),
		"q/file12.txt":          secret(14),
		"notbuild/build.txt":    secret(15),
		"sub/deeper/.gitignore": "!a.txt\n", // .ignore beats .gitignore in one directory
	})
	all, _, _, err := collect(t, Options{Detector: newFake()}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(filesOf(all)); n != 15 {
		t.Fatalf("without Gitignore: %d files with findings, want all 15", n)
	}
	found, warns, st, err := collect(t, Options{Detector: newFake(), Gitignore: true}, dir)
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	want := []string{"a/doc/frotz", "keep.txt", "notbuild/build.txt", "q/file12.txt", "sub/deeper/b.md", "sub/keep.log", "sub/rootonly.txt"}
	if got := relFiles(t, dir, found); !slices.Equal(got, want) {
		t.Errorf("files = %v\nwant    %v", got, want)
	}
	if st.Skipped[SkipIgnored] == 0 {
		t.Errorf("no ignored entries counted: %v", st.Skipped)
	}
}

func TestSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"real/a.txt": secret(1),
		"other.txt":  secret(2),
	})
	must(t, os.Symlink("real", filepath.Join(dir, "link-dir")))
	must(t, os.Symlink("other.txt", filepath.Join(dir, "link-file")))
	must(t, os.Symlink("..", filepath.Join(dir, "real", "loop"))) // real/loop -> dir
	must(t, os.Symlink("nowhere", filepath.Join(dir, "dangling")))

	t.Run("not followed", func(t *testing.T) {
		found, warns, st, err := collect(t, Options{Detector: newFake()}, dir)
		if err != nil || len(warns) > 0 {
			t.Fatalf("err %v, warnings %v", err, warns)
		}
		if got, want := relFiles(t, dir, found), []string{"other.txt", "real/a.txt"}; !slices.Equal(got, want) {
			t.Errorf("files = %v, want %v", got, want)
		}
		if st.Skipped[SkipSymlink] != 4 {
			t.Errorf("skipped symlinks = %d, want 4", st.Skipped[SkipSymlink])
		}
	})
	t.Run("followed", func(t *testing.T) {
		found, warns, _, err := collect(t, Options{Detector: newFake(), FollowSymlinks: true}, dir)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"link-dir/a.txt", "link-file", "other.txt", "real/a.txt"}
		if got := relFiles(t, dir, found); !slices.Equal(got, want) {
			t.Errorf("files = %v, want %v", got, want)
		}
		// Two loops (real/loop and link-dir/loop both lead back to dir)
		// and one dangling link.
		var loops, dangling int
		for _, w := range warns {
			switch {
			case errors.Is(w.Err, ErrSymlinkLoop):
				loops++
			case errors.Is(w.Err, fs.ErrNotExist) && strings.HasSuffix(w.Path, "dangling"):
				dangling++
			default:
				t.Errorf("unexpected warning %v", w)
			}
		}
		if loops != 2 || dangling != 1 {
			t.Errorf("warnings: %d loops, %d dangling; want 2 and 1: %v", loops, dangling, warns)
		}
	})
	t.Run("root link", func(t *testing.T) {
		found, _, _, err := collect(t, Options{Detector: newFake()}, filepath.Join(dir, "link-dir"))
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 {
			t.Errorf("a link named as a root is followed: got %v", found)
		}
	})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestFailFastStopsDiscovery(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 500 {
		files["d"+itoa(i%20)+"/f"+itoa(i)+".txt"] = secret(i)
	}
	writeTree(t, dir, files)
	// The link is in the root's first batch: with one worker, the root
	// Enumerate meets it before any file is opened.
	must(t, os.Symlink("nowhere", filepath.Join(dir, "dangling")))
	for _, workers := range []int{1, 2} {
		opts := Options{Detector: newFake(), FollowSymlinks: true, FailFast: true, Workers: workers, MaxInFlight: 4}
		_, warns, st, err := collect(t, opts, dir)
		var w Warning
		if !errors.As(err, &w) || w.Op != "follow" {
			t.Fatalf("err = %v, want the dangling link's warning", err)
		}
		if len(warns) != 1 {
			t.Errorf("%d warnings after the first, want none: %v", len(warns)-1, warns)
		}
		if workers == 1 && st.Files != 0 {
			t.Errorf("1 worker: %d files scanned after the first error, want 0", st.Files)
		}
		if st.Files >= 500 {
			t.Errorf("%d workers: FailFast scanned all %d files", workers, st.Files)
		}
	}
}

func TestSkipPathAndPathRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"vendor/lib/x.go": secret(1),
		"app/main.go":     secret(2),
		"app/cert.p12":    "binary-ish",
		"go.sum":          secret(3),
	})
	det := newFake()
	det.skip = func(p string) bool {
		return p == "vendor" || strings.HasSuffix(p, "/vendor") || strings.HasSuffix(p, "go.sum")
	}
	det.pathRule = regexp.MustCompile(`\.p12$`)
	found, _, st, err := collect(t, Options{Detector: det}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := relFiles(t, dir, found), []string{"app/cert.p12", "app/main.go"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	for _, f := range found {
		if f.Rule == "path-rule" && f.Line != 0 {
			t.Errorf("path-only finding on line %d, want 0", f.Line)
		}
	}
	if st.Skipped[SkipAllowlist] != 2 {
		t.Errorf("allowlist skips = %d, want 2 (a directory and a file)", st.Skipped[SkipAllowlist])
	}
}

func TestIgnoreFingerprints(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": secret(1) + "\n" + secret(2) + "\n"})
	found, _, st, err := collect(t, Options{Detector: newFake(), Ignore: fingerprintSet{"a.txt:fake:2": true}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Line != 1 || st.Findings != 1 {
		t.Errorf("found %v (Stats.Findings %d), want only line 1", found, st.Findings)
	}
}

type fingerprintSet map[string]bool

func (s fingerprintSet) Has(fp string) bool { return s[fp] }

func TestRootsAndPaths(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"x/a.txt": secret(1), "y.txt": secret(2)})
	t.Chdir(dir)
	tests := []struct {
		roots []string
		want  []string
	}{
		{nil, []string{"x/a.txt", "y.txt"}},
		{[]string{"."}, []string{"x/a.txt", "y.txt"}},
		// One directory: names relative to it, however it is spelled.
		{[]string{"./x/"}, []string{"a.txt"}},
		{[]string{dir + "/x"}, []string{"a.txt"}},
		{[]string{"x/../x"}, []string{"a.txt"}},
		// Several roots, or a file: names as given.
		{[]string{"y.txt", "x"}, []string{"x/a.txt", "y.txt"}},
		{[]string{"y.txt"}, []string{"y.txt"}},
		{[]string{dir + "/y.txt"}, []string{dir + "/y.txt"}},
		// A root given twice, or inside another: scanned once.
		{[]string{".", "."}, []string{"x/a.txt", "y.txt"}},
		{[]string{".", "x", dir + "/y.txt"}, []string{"x/a.txt", "y.txt"}},
		{[]string{"x", dir + "/x"}, []string{"a.txt"}},
	}
	for _, tt := range tests {
		found, _, _, err := collect(t, Options{Detector: newFake()}, tt.roots...)
		if err != nil {
			t.Fatal(err)
		}
		if got := filesOf(found); !slices.Equal(got, tt.want) {
			t.Errorf("roots %q: files %q, want %q", tt.roots, got, tt.want)
		}
	}
}

func TestScanWithoutDetector(t *testing.T) {
	if _, err := Scan(context.Background(), Options{}); !errors.Is(err, ErrNoDetector) {
		t.Errorf("err = %v, want ErrNoDetector", err)
	}
}

// TestCallbacksAreSerialisedAndProgressAddsUp checks that OnFinding and
// OnWarning never run at the same time (the engine's promise, which lets
// report writers skip locking) and that the Progress counters end equal
// to the Stats.
func TestCallbacksAreSerialisedAndProgressAddsUp(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files["d"+itoa(i%7)+"/f"+itoa(i)] = strings.Repeat(secret(i)+"\n", 1+i%5)
	}
	writeTree(t, dir, files)
	var (
		inside  atomic.Int32
		overlap atomic.Int32
		calls   int // unsynchronised on purpose: -race flags concurrent calls
	)
	enter := func() {
		if inside.Add(1) > 1 {
			overlap.Add(1)
		}
		calls++
		inside.Add(-1)
	}
	var p Progress
	st, err := Scan(context.Background(), Options{
		Detector:  newFake(),
		Workers:   4,
		Progress:  &p,
		OnFinding: func(report.Finding) { enter() },
		OnWarning: func(Warning) { enter() },
	}, dir, filepath.Join(dir, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	if overlap.Load() > 0 {
		t.Errorf("callbacks overlapped %d times", overlap.Load())
	}
	if int64(calls) != st.Findings+st.Warnings || st.Findings != 600 || st.Warnings != 1 {
		t.Errorf("%d calls; Stats: %d findings, %d warnings", calls, st.Findings, st.Warnings)
	}
	if !p.Done.Load() || p.Files.Load() != st.Files || p.Bytes.Load() != st.Bytes ||
		p.Findings.Load() != st.Findings || p.Warnings.Load() != st.Warnings || p.Discovered.Load() != st.Files {
		t.Errorf("progress %d files (%d discovered), %d bytes, %d findings, %d warnings, done %v; stats %+v",
			p.Files.Load(), p.Discovered.Load(), p.Bytes.Load(), p.Findings.Load(), p.Warnings.Load(), p.Done.Load(), st)
	}
}

// TestGitignoreMatchesGit builds a tree with nested .gitignore files and
// compares what the scan keeps with what git itself leaves unignored
// (git ls-files --others --exclude-standard). Skipped without git.
func TestGitignoreMatchesGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	names := []string{
		"keep.txt", "x.log", "rootonly.txt", "sub/rootonly.txt", "build/out.txt", "sub/build/out.txt",
		"sub/keep.log", "sub/other.log", "sub/deeper/a.txt", "sub/deeper/b.md", "doc/frotz", "a/doc/frotz",
		"q/file1.txt", "q/file12.txt", "notbuild/build.txt", "abc.txt", "bbc.txt", "x/z.txt", "x/y/z.txt",
		"src/main.c", "src/lib/util.c", "deep/a/b/name", "name", "#hash", "tmp/keep/me.txt", "tmp/drop.txt",
		"n5.txt", "nx.txt", "d7", "dd", "lit*x", "litax", "sp ", "e-1", "e_1", "!bang", "all/x/y/z.bin", "all/top.bin",
	}
	files := map[string]string{
		".gitignore": "# comment\n*.log\nbuild/\n/rootonly.txt\ndoc/frotz\n[!a]bc.txt\nx/**/z.txt\nsrc/*.c\n**/b/name\n\\#hash\ntmp/*\n!tmp/keep/\n" +
			"n[0-9].txt\nd[[:digit:]]\nlit\\*x\nsp\\ \ne[-]1\n\\!bang\nall/**\n",
		"sub/.gitignore": "!keep.log\n",
		"q/.gitignore":   "file?.txt\n",
	}
	for i, n := range names {
		files[n] = secret(i)
	}
	writeTree(t, dir, files)
	git := func(args ...string) string {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Skipf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", ".")
	var want []string
	for _, f := range strings.Fields(git("ls-files", "--others", "--exclude-standard")) {
		if !strings.HasSuffix(f, ".gitignore") {
			want = append(want, f)
		}
	}
	slices.Sort(want)
	t.Logf("kept by git: %q", want)
	found, _, _, err := collect(t, Options{Detector: newFake(), Gitignore: true}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := relFiles(t, dir, found); !slices.Equal(got, want) {
		t.Errorf("kept by the scan: %v\nkept by git:       %v", got, want)
	}
}

// TestStreamsDecodeUTF16And32: text in UTF-16 or UTF-32 read from a stream
// (standard input, a git blob) is decoded and scanned as a file's is, at
// every chunk size, with its own line numbers.
func TestStreamsDecodeUTF16And32(t *testing.T) {
	enc := map[string]func(string) string{
		"utf16le": func(s string) string {
			b := []byte("\xff\xfe")
			for _, r := range s {
				b = append(b, byte(r), 0)
			}
			return string(b)
		},
		"utf32be": func(s string) string {
			b := []byte("\x00\x00\xfe\xff")
			for _, r := range s {
				b = append(b, 0, 0, 0, byte(r))
			}
			return string(b)
		},
	}
	for name, e := range enc {
		for _, chunk := range []int{0, 64, 4096} {
			text := e(strings.Repeat("filler line\r\n", 50) + "key=" + secret(9) + "\r\n")
			var got []string
			var mu sync.Mutex
			_, err := ScanReader(context.Background(), Options{Detector: newFake(), ChunkSize: chunk,
				OnFinding: func(f report.Finding) {
					mu.Lock()
					got = append(got, fmt.Sprintf("%d:%d", f.Line, f.Column))
					mu.Unlock()
				}}, "stdin", strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, []string{"51:5"}) {
				t.Errorf("%s, chunk %d: findings at %v, want line 51 column 5", name, chunk, got)
			}
		}
	}
}
