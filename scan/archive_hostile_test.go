package scan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
)

// This file feeds the engine hostile archives: bombs, budgets, broken and
// lying archives, path traversal names, a hundred thousand members. Each
// test checks that the scan ends, with a warning that names the archive
// (and the budget, for a budget), and that the findings of the other files
// are all still reported.

// plainSecret is the file every hostile tree holds beside its archives:
// its finding must survive whatever the archives do.
const plainSecret = 77

func plainFinding(dir string) key {
	return wholeBuffer("plain.txt", []byte("k="+secret(plainSecret)))[0]
}

// hasFinding reports whether found holds k.
func hasFinding(found []key, k key) bool { return slices.Contains(found, k) }

// archiveWarnings returns the warnings about archives, checking that each
// unwraps to the archive package's error types.
func archiveWarnings(t *testing.T, warns []Warning) []Warning {
	t.Helper()
	var out []Warning
	for _, w := range warns {
		if w.Op != "archive" {
			t.Errorf("unexpected warning %v", w)
			continue
		}
		var (
			be *archive.BudgetError
			fe *archive.FormatError
		)
		if !errors.As(w.Err, &be) && !errors.As(w.Err, &fe) {
			t.Errorf("archive warning %v: not a BudgetError or FormatError", w)
		}
		out = append(out, w)
	}
	return out
}

func budgetOf(w Warning) archive.Budget {
	var be *archive.BudgetError
	if errors.As(w.Err, &be) {
		return be.Budget
	}
	return 0
}

// gzipRaw wraps a raw deflate stream in a gzip header and a trailer with a
// wrong CRC and size: a bomb is never read to its trailer.
func gzipRaw(deflate []byte) []byte {
	b := append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, deflate...)
	return binary.LittleEndian.AppendUint64(b, 0)
}

// TestArchiveBombs: small files that inflate to a GiB or more, alone and
// nested, in every compressed format. The scan ends with an inflation
// budget warning naming the bomb, having decoded a few MiB (Stats.Bytes),
// allocated a bounded amount (TotalAlloc; the xz sample declares a 64 MiB
// dictionary, which the decoder allocates whole but touches only as it
// writes), and still reports the plain file's secret. The bombs of zeros
// are scanned with ScanBinary, since without it their first chunk is
// binary and the rest is never decoded (checked last).
func TestArchiveBombs(t *testing.T) {
	bomb := zipBomb(t, 'a', 1, 1024) // 1 GiB of text in about 1 MiB
	tests := []struct {
		name     string
		data     []byte
		bombName string // the archive the ratio budget names, under the file
		alloc    int64  // bound on the bytes allocated by the scan
	}{
		{"bomb.zip", bomb, "", 24 << 20},
		{"nested.zip", zipOf(t, zip.Store, member{"inner.zip", string(zipOf(t, zip.Store, member{"bomb.zip", string(bomb)}))}), "!inner.zip!bomb.zip", 24 << 20},
		{"many.zip", zipBomb(t, 'a', 64, 256), "", 24 << 20}, // 64 members of 256 MiB each
		{"text.gz", gzipRaw(fillDeflate(t, 'a', 1024)), "", 24 << 20},
		{"zeros.tar", tarOf(t, member{"bomb.gz", string(gzipRaw(fillDeflate(t, 0, 1024)))}), "!bomb.gz", 24 << 20},
		{"zeros.bz2", readTestdata(t, "zero1g.bz2"), "", 24 << 20},
		{"zeros.zst", readTestdata(t, "zero1g.zst"), "", 32 << 20},
		{"zeros.xz", readTestdata(t, "zero256m.xz"), "", 96 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{tt.name: string(tt.data), "plain.txt": "k=" + secret(plainSecret)})
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			opts := Options{Detector: newFake(), Workers: 2, ArchiveDepth: DefaultArchiveDepth, ScanBinary: strings.HasPrefix(tt.name, "zeros")}
			found, warns, st, err := collect(t, opts, dir)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("%d KiB on disk: %d KiB decoded, %d KiB allocated", len(tt.data)>>10, st.Bytes>>10, alloc>>10)
			if !hasFinding(found, plainFinding(dir)) {
				t.Errorf("the plain file's finding was lost: %v", found)
			}
			ws := archiveWarnings(t, warns)
			if len(ws) != 1 || budgetOf(ws[0]) != archive.BudgetRatio || ws[0].Path != tt.name+tt.bombName {
				t.Fatalf("warnings %v, want one inflation-ratio budget on %s", warns, tt.name+tt.bombName)
			}
			if st.Skipped[SkipBudget] != 1 || st.Warnings != 1 {
				t.Errorf("Stats: skipped %v, %d warnings", st.Skipped, st.Warnings)
			}
			if st.Bytes > 16<<20 {
				t.Errorf("decoded and scanned %d MiB of the bomb", st.Bytes>>20)
			}
			if alloc > tt.alloc {
				t.Errorf("the scan allocated %d MiB, want under %d MiB", alloc>>20, tt.alloc>>20)
			}
		})
	}
	t.Run("binary", func(t *testing.T) {
		dir := t.TempDir()
		img := pngHead + strings.Repeat("\x00", 1<<20)
		writeTree(t, dir, map[string]string{"images.zip": string(zipOf(t, zip.Deflate,
			member{"a.png", img}, member{"b.png", img}, member{"c.png", img}, member{"d.png", img}))})
		_, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: 1}, dir)
		if err != nil || len(warns) > 0 || st.Bytes != 0 || st.Skipped[SkipBinary] != 4 {
			t.Errorf("err %v, warnings %v, %d bytes scanned, skipped %v: want 4 binary members skipped unread", err, warns, st.Bytes, st.Skipped)
		}
	})
}

// TestArchiveBudgets hits each budget in turn, with small limits: the
// rest of the archive is skipped with one warning that names the archive
// and the budget (in Warning.Path and in its message), Stats count it, and
// what came before the hit and the other files are still reported.
func TestArchiveBudgets(t *testing.T) {
	line := func(i int) string { return "k=" + secret(i) + "\n" }
	six := []member{}
	for i := range 6 {
		six = append(six, member{"m" + itoa(i) + ".txt", line(i)})
	}
	big := member{"big.txt", line(10) + strings.Repeat("x", 3000) + line(11)}
	compressible := member{"same.txt", line(12) + strings.Repeat("the same line again\n", 1<<17)}
	tests := []struct {
		name   string
		file   string
		data   []byte
		lim    archive.Limits
		budget archive.Budget
		found  []string // members (under the file) whose secrets are found
	}{
		{"entries", "a.zip", zipOf(t, zip.Deflate, six...), archive.Limits{MaxEntries: 3}, archive.BudgetEntries,
			[]string{"!m0.txt", "!m1.txt", "!m2.txt"}},
		{"member bytes", "b.tar", tarOf(t, six[0], big, six[1]), archive.Limits{MaxMemberBytes: 1000}, archive.BudgetMemberBytes,
			[]string{"!big.txt", "!m0.txt"}}, // big.txt's first secret only: it is cut at 1000 bytes
		{"archive bytes", "c.tar.gz", gzipOf(t, tarOf(t, big, six[0], six[1])), archive.Limits{MaxArchiveBytes: int64(len(big.data)) + 10}, archive.BudgetArchiveBytes,
			[]string{"!big.txt"}}, // m0.txt is cut to 10 bytes, short of its secret
		{"inflation ratio", "d.zip", zipOf(t, zip.Deflate, compressible, six[0]), archive.Limits{MaxRatio: 4}, archive.BudgetRatio,
			[]string{"!same.txt"}},
		{"duration", "e.tgz", gzipOf(t, tarOf(t, six...)), archive.Limits{MaxDuration: time.Nanosecond}, archive.BudgetDuration,
			nil},
		{"window", "f.txt.xz", xzOf(t, []byte(line(0))), archive.Limits{MaxWindow: 64 << 10}, archive.BudgetWindow,
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{tt.file: string(tt.data), "plain.txt": "k=" + secret(plainSecret)})
			found, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: 3, Archive: tt.lim}, dir)
			if err != nil {
				t.Fatal(err)
			}
			p := tt.file
			want := []string{"plain.txt"}
			for _, m := range tt.found {
				want = append(want, p+m)
			}
			slices.Sort(want)
			if got := filesOf(found); !slices.Equal(got, want) {
				t.Errorf("files with findings %v, want %v", got, want)
			}
			ws := archiveWarnings(t, warns)
			if len(ws) != 1 || budgetOf(ws[0]) != tt.budget || ws[0].Path != p {
				t.Fatalf("warnings %v, want one %v budget on %s", warns, tt.budget, p)
			}
			msg := ws[0].Error()
			if !strings.Contains(msg, p) || !strings.Contains(msg, tt.budget.String()+" budget") || strings.Count(msg, tt.file) != 1 {
				t.Errorf("warning message %q: want the archive named once and the budget", msg)
			}
			if st.Skipped[SkipBudget] != 1 {
				t.Errorf("Skipped %v", st.Skipped)
			}
		})
	}
	if testing.Short() {
		return
	}
	// The member budget cuts big.txt: its second secret is never seen.
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"b.tar": string(tarOf(t, big))})
	found, _, _, _ := collect(t, Options{Detector: newFake(), ArchiveDepth: 1, Archive: archive.Limits{MaxMemberBytes: 1000}}, dir)
	if len(found) != 1 {
		t.Errorf("member cut at 1000 bytes: %v", found)
	}
}

// TestArchiveRootBudget: the root byte budget is shared by the archives
// under one scan root, and each root given to Scan has its own.
func TestArchiveRootBudget(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("y", 2000) + "\nk=" + secret(1) // a member cut short loses its secret
	for _, d := range []string{"one", "two"} {
		writeTree(t, dir, map[string]string{
			d + "/a.tar": string(tarOf(t, member{"x.txt", body})),
			d + "/b.tar": string(tarOf(t, member{"x.txt", body})),
		})
	}
	lim := archive.Limits{MaxRootBytes: 3000}
	found, warns, _, err := collect(t, Options{Detector: newFake(), Workers: 1, ArchiveDepth: 1, Archive: lim}, dir)
	if err != nil {
		t.Fatal(err)
	}
	ws := archiveWarnings(t, warns)
	// One root: the first archive is read whole; the second is cut when
	// the shared counter passes the budget, which it may overshoot by one
	// read (archive.Limits.MaxRootBytes), so its secret may be seen; the
	// last two are refused.
	if len(found) < 1 || len(found) > 2 || len(ws) != 3 {
		t.Errorf("one root: %d findings, warnings %v; want 1 or 2, and 3 root-bytes warnings", len(found), warns)
	}
	for _, w := range ws {
		if budgetOf(w) != archive.BudgetRootBytes {
			t.Errorf("warning %v, want root-bytes", w)
		}
	}
	found, warns, _, err = collect(t, Options{Detector: newFake(), Workers: 1, ArchiveDepth: 1, Archive: lim},
		filepath.Join(dir, "one", "a.tar"), filepath.Join(dir, "two", "a.tar"))
	if err != nil || len(found) != 2 || len(warns) != 0 {
		t.Errorf("two roots: err %v, %d findings, warnings %v; want 2 and none", err, len(found), warns)
	}
}

// TestArchiveFailOnBudget: with Archive.FailOnBudget a budget hit ends the
// scan, and Scan's error names the archive and the budget and unwraps to
// the *archive.BudgetError; every permit comes back and nothing leaks
// (goleak, in TestMain).
func TestArchiveFailOnBudget(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"bomb.zip": string(zipBomb(t, 'a', 1, 64))}
	for i := range 200 {
		files["d"+itoa(i%10)+"/f"+itoa(i)+".txt"] = secret(i)
	}
	writeTree(t, dir, files)
	for _, workers := range []int{1, 2, 4} {
		var progress Progress
		opts := Options{Detector: newFake(), Workers: workers, MaxInFlight: 4, ArchiveDepth: 1, Progress: &progress,
			Archive: archive.Limits{FailOnBudget: true, TempDir: t.TempDir()}}
		e := newEngine(opts.withDefaults())
		st, err := e.scanPaths(context.Background(), dir)
		var (
			w  Warning
			be *archive.BudgetError
		)
		p := "bomb.zip"
		if !errors.As(err, &w) || !errors.As(err, &be) || be.Budget != archive.BudgetRatio || w.Path != p {
			t.Fatalf("%d workers: err %v, want the bomb's ratio budget", workers, err)
		}
		if msg := err.Error(); !strings.Contains(msg, p) || !strings.Contains(msg, "inflation-ratio budget exceeded") {
			t.Errorf("error %q does not name the archive and the budget", msg)
		}
		if got := e.front.inFlight.Load(); got != 0 {
			t.Errorf("%d workers: %d permits never released", workers, got)
		}
		if st.Warnings != 1 || st.Skipped[SkipBudget] != 1 || !progress.Done.Load() {
			t.Errorf("%d workers: Stats %d warnings, skipped %v", workers, st.Warnings, st.Skipped)
		}
	}
}

// TestBrokenArchives: truncated and corrupted archives of every format
// are warnings that name the archive (or, in a zip, the member); a file
// that claims to be gzip by its magic and is not is a warning; one that
// claims it by its name only is text and is scanned. Empty files named
// like archives and valid archives with no members are no warning. The
// scan always ends, and the other files' findings are all reported.
func TestBrokenArchives(t *testing.T) {
	ms := []member{{"a.txt", text(1, 3000)}, {"b.txt", text(2, 3000)}}
	tarball := tarOf(t, ms...)
	valid := map[string][]byte{
		"x.zip":     zipOf(t, zip.Deflate, ms...),
		"x.tar":     tarball,
		"x.tar.gz":  gzipOf(t, tarball),
		"x.txt.gz":  gzipOf(t, []byte(ms[0].data)),
		"x.tar.xz":  xzOf(t, tarball),
		"x.tar.zst": zstdOf(t, tarball),
		"x.tar.bz2": readTestdata(t, "secret.tar.bz2"),
	}
	empty := map[string][]byte{
		"empty.zip":    zipOf(t, zip.Deflate),
		"empty.tar.gz": gzipOf(t, tarOf(t)),
		"empty.gz":     gzipOf(t, nil),
		"empty.zst":    zstdOf(t, nil),
		"empty.xz":     xzOf(t, nil),
	}
	files := map[string]string{
		"plain.txt": "k=" + secret(plainSecret),
		"fake.gz":   "not gzip at all: " + secret(plainSecret+1),      // a gz by name only: text
		"liar.gz":   "\x1f\x8b\x08\x00garbage that claims to be gzip", // by magic: a broken gzip
	}
	broken := []string{"liar.gz"}
	for name, data := range valid {
		files["truncated/"+name] = string(data[:len(data)*3/5])
		c := bytes.Clone(data)
		if name == "x.tar" {
			c[0] ^= 0xff // the first header's checksum fails
		} else {
			c[len(c)/2] ^= 0xff
		}
		files["corrupt/"+name] = string(c)
		files["zero/"+name] = ""
		broken = append(broken, "truncated/"+name, "corrupt/"+name)
	}
	for name, data := range empty {
		files["empty/"+name] = string(data)
	}
	for _, workers := range []int{1, 3} {
		dir := t.TempDir()
		writeTree(t, dir, files)
		found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: workers, ArchiveDepth: 3}, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !hasFinding(found, plainFinding(dir)) || !slices.Contains(filesOf(found), "fake.gz") {
			t.Errorf("lost the plain files' findings: %v", filesOf(found))
		}
		ws := archiveWarnings(t, warns)
		for _, b := range broken {
			p := b
			if !slices.ContainsFunc(ws, func(w Warning) bool { return w.Path == p || strings.HasPrefix(w.Path, p+"!") }) {
				t.Errorf("%s: no warning", b)
			}
		}
		for _, w := range ws {
			if strings.Contains(w.Path, "/empty/") || strings.Contains(w.Path, "/zero/") || budgetOf(w) != 0 {
				t.Errorf("unexpected warning %v", w)
			}
		}
		if st.Warnings != int64(len(warns)) {
			t.Errorf("Stats.Warnings %d, %d reported", st.Warnings, len(warns))
		}
	}
}

// TestArchiveNamesAreLiteral: a tar member named ../../etc/passwd, an
// absolute name, and links are never resolved or extracted: the findings
// carry the literal names, links are skipped, and nothing is written
// anywhere (the spool directory stays empty, no passwd appears).
func TestArchiveNamesAreLiteral(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	entries := []struct {
		hdr  tar.Header
		data string
	}{
		{tar.Header{Name: "../../etc/passwd", Typeflag: tar.TypeReg}, "root:" + secret(1)},
		{tar.Header{Name: "/abs/key.pem", Typeflag: tar.TypeReg}, secret(2)},
		{tar.Header{Name: "a/../../b.txt", Typeflag: tar.TypeReg}, secret(3)},
		{tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/shadow"}, ""},
		{tar.Header{Name: "hard", Typeflag: tar.TypeLink, Linkname: "../../etc/passwd"}, ""},
	}
	for _, e := range entries {
		e.hdr.Mode, e.hdr.Size = 0o644, int64(len(e.data))
		must(t, w.WriteHeader(&e.hdr))
		io.WriteString(w, e.data)
	}
	must(t, w.Close())
	writeTree(t, dir, map[string]string{"sub/evil.tar": b.String()})
	escaped := filepath.Join(dir, "sub", "../../etc/passwd")
	_, existed := os.Stat(escaped)
	spool := t.TempDir()
	found, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: 1, Archive: archive.Limits{TempDir: spool, SpoolMemory: -1}}, dir)
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	p := "sub/evil.tar"
	want := []string{p + "!../../etc/passwd", p + "!/abs/key.pem", p + "!a/../../b.txt"}
	slices.Sort(want)
	if got := filesOf(found); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if st.Members != 3 {
		t.Errorf("%d members scanned, want 3 (links are skipped)", st.Members)
	}
	if _, err := os.Stat(escaped); existed != nil && err == nil {
		t.Errorf("%s was created", escaped)
	}
	if left, _ := os.ReadDir(spool); len(left) > 0 {
		t.Errorf("files left in the spool directory: %v", left)
	}
}

// TestArchiveManyTinyMembers: an archive of 100,000 one-byte members is
// scanned up to the entries budget (65,536 by default), then skipped with
// a warning; the scan neither stalls nor allocates per member beyond its
// object.
func TestArchiveManyTinyMembers(t *testing.T) {
	const n = 100_000
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := range n {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: "m" + itoa(i), Method: zip.Store})
		must(t, err)
		switch i {
		case 1, n - 1: // one secret inside the budget, one past it
			io.WriteString(fw, secret(i))
		default:
			io.WriteString(fw, "x")
		}
	}
	must(t, zw.Close())
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"many.zip": b.String(), "plain.txt": "k=" + secret(plainSecret)})
	found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: 2, ArchiveDepth: 1}, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"many.zip" + "!m1", "plain.txt"}
	if got := filesOf(found); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	limit := archive.DefaultLimits().MaxEntries
	if ws := archiveWarnings(t, warns); len(ws) != 1 || budgetOf(ws[0]) != archive.BudgetEntries || st.Members != int64(limit) {
		t.Errorf("%d members scanned, warnings %v; want %d and an entries budget", st.Members, warns, limit)
	}
}

// TestArchiveUnsupportedMembers: encrypted members and unknown methods
// are warnings naming the member, counted as skipped; the archive's other
// members are scanned.
func TestArchiveUnsupportedMembers(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, h := range []zip.FileHeader{
		{Name: "locked.txt", Method: zip.Store, Flags: 0x1},
		{Name: "odd.txt", Method: 77},
	} {
		fw, err := zw.CreateRaw(&h)
		must(t, err)
		io.WriteString(fw, "opaque bytes")
	}
	fw, err := zw.Create("ok.txt")
	must(t, err)
	io.WriteString(fw, secret(1))
	must(t, zw.Close())
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.zip": b.String()})
	found, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: 1}, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := "a.zip"
	if got := filesOf(found); !slices.Equal(got, []string{p + "!ok.txt"}) {
		t.Errorf("files %v", got)
	}
	ws := archiveWarnings(t, warns)
	if len(ws) != 2 || st.Skipped[SkipUnsupported] != 2 {
		t.Fatalf("warnings %v, skipped %v; want 2 unsupported members", warns, st.Skipped)
	}
	for i, cause := range []error{archive.ErrEncrypted, archive.ErrUnsupported} {
		if !slices.ContainsFunc(ws, func(w Warning) bool { return errors.Is(w.Err, cause) }) {
			t.Errorf("no warning for %v (member %d)", cause, i)
		}
	}
}

// TestArchiveSpoolIsAlwaysRemoved: a zip inside a stream is spooled to a
// temporary file (SpoolMemory -1 forces the file), and the file is gone
// after the scan however it ends: normally, at a budget under
// FailOnBudget, on a cancelled context, or on a panic in the detector
// while the spooled zip's member is being scanned (Scan returns the
// panic).
func TestArchiveSpoolIsAlwaysRemoved(t *testing.T) {
	inner := zipOf(t, zip.Deflate, member{"x.env", "k=" + secret(1)}, member{"y.env", "k=" + secret(2)}, member{"z.env", "k=" + secret(3)})
	data := gzipOf(t, tarOf(t, member{"lib/inner.zip", string(inner)}))
	tests := []struct {
		name    string
		lim     archive.Limits
		onScan  func(path string, cancel context.CancelFunc)
		workers int // default 2; 1 where the scan must see a cancel before it ends
		wantErr func(error) bool
		found   int // -1: any number (tasks queued when the scan stops drop their chunks)
	}{
		{name: "complete", found: 3, wantErr: func(err error) bool { return err == nil }},
		{name: "fail on budget", lim: archive.Limits{MaxEntries: 2, FailOnBudget: true}, found: -1,
			wantErr: func(err error) bool { var be *archive.BudgetError; return errors.As(err, &be) }},
		{name: "cancelled", found: 1, workers: 1,
			onScan: func(path string, cancel context.CancelFunc) {
				if strings.HasSuffix(path, "!x.env") {
					cancel()
				}
			},
			wantErr: func(err error) bool { return errors.Is(err, context.Canceled) }},
		{name: "panic", found: -1,
			onScan: func(path string, _ context.CancelFunc) {
				if strings.HasSuffix(path, "!y.env") {
					panic("detector bug")
				}
			},
			wantErr: func(err error) bool { var pe *spindle.PanicError; return errors.As(err, &pe) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, spool := t.TempDir(), t.TempDir()
			writeTree(t, dir, map[string]string{"a.tar.gz": string(data)})
			lim := tt.lim
			lim.TempDir, lim.SpoolMemory = spool, -1
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			det := newFake()
			if tt.onScan != nil {
				det.onScan = func(path string) { tt.onScan(path, cancel) }
			}
			var found atomic.Int64
			opts := Options{Detector: det, Workers: cmp.Or(tt.workers, 2), ArchiveDepth: 2, Archive: lim}.withDefaults()
			opts.OnFinding = func(report.Finding) { found.Add(1) }
			e := newEngine(opts)
			_, err := e.scanPaths(ctx, dir)
			if !tt.wantErr(err) {
				t.Errorf("err %v", err)
			}
			if n := found.Load(); tt.found >= 0 && n != int64(tt.found) {
				t.Errorf("%d findings, want %d", n, tt.found)
			}
			if got := e.front.inFlight.Load(); got != 0 {
				t.Errorf("%d permits never released", got)
			}
			if left, _ := os.ReadDir(spool); len(left) > 0 {
				t.Errorf("spool files left: %v", left)
			}
		})
	}
}
