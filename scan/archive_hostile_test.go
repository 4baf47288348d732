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
	"maps"
	"math/rand/v2"
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

// bombLimits are the budgets the bomb tests scan under: small enough that
// a test decodes megabytes, not the defaults' gigabytes, with the same
// shape (the member budget below the archive budget, the ratio judged past
// a floor).
var bombLimits = archive.Limits{MaxMemberBytes: 8 << 20, MaxArchiveBytes: 32 << 20, RatioFloor: 1 << 20}

// TestArchiveBombs: small files that inflate to a GiB or more, alone and
// nested, in every compressed format. Each scan ends with one budget
// warning that names the bomb member (lost data), having decoded no more
// than the member budget (Stats.Bytes) and allocated a bounded amount
// (TotalAlloc; the xz sample declares a 64 MiB dictionary, which the
// decoder allocates whole but touches only as it writes), and still
// reports the plain file's secret. Text at about 800:1 (deflate) is cut
// by the member budget; zeros in bzip2, zstd and xz, far beyond the ratio,
// by the ratio once past the floor. The bombs of zeros are scanned with
// ScanBinary, since without it their first chunk is binary and the rest is
// never decoded (checked last).
func TestArchiveBombs(t *testing.T) {
	bomb := zipBomb(t, 'a', 1, 1024) // 1 GiB of text in 1.3 MiB
	lim := bombLimits
	tests := []struct {
		name     string
		data     []byte
		bombName string // the member the budget names, under the file
		budget   archive.Budget
		alloc    int64 // bound on the bytes allocated by the scan
	}{
		{"bomb.zip", bomb, "!bomb0.txt", archive.BudgetMemberBytes, 24 << 20},
		{"nested.zip", zipOf(t, zip.Store, member{"inner.zip", string(zipOf(t, zip.Store, member{"bomb.zip", string(bomb)}))}),
			"!inner.zip!bomb.zip!bomb0.txt", archive.BudgetMemberBytes, 24 << 20},
		{"text.gz", gzipRaw(fillDeflate(t, 'a', 1024)), "", archive.BudgetMemberBytes, 24 << 20},
		{"zeros.tar", tarOf(t, member{"bomb.gz", string(gzipRaw(fillDeflate(t, 0, 1024)))}), "!bomb.gz", archive.BudgetMemberBytes, 24 << 20},
		{"zeros.bz2", readTestdata(t, "zero1g.bz2"), "", archive.BudgetRatio, 24 << 20},
		{"zeros.zst", readTestdata(t, "zero1g.zst"), "", archive.BudgetRatio, 32 << 20},
		{"zeros.xz", readTestdata(t, "zero256m.xz"), "", archive.BudgetRatio, 96 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{tt.name: string(tt.data), "plain.txt": "k=" + secret(plainSecret)})
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			opts := Options{Detector: newFake(), Workers: 2, ArchiveDepth: DefaultArchiveDepth, Archive: lim, ScanBinary: strings.HasPrefix(tt.name, "zeros")}
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
			want := tt.name + tt.bombName
			if len(ws) != 1 || budgetOf(ws[0]) != tt.budget || ws[0].Path != want || !ws[0].Lost {
				t.Fatalf("warnings %v, want one %v budget on %s, lost data", warns, tt.budget, want)
			}
			if st.Skipped[SkipBudget] != 1 || st.Warnings != 1 || st.Lost != 1 {
				t.Errorf("Stats: skipped %v, %d warnings, %d lost", st.Skipped, st.Warnings, st.Lost)
			}
			// The plain file, and at most the member budget of the bomb.
			if max := lim.MaxMemberBytes + int64(len("k="+secret(plainSecret))); st.Bytes > max {
				t.Errorf("decoded and scanned %d bytes, want at most %d", st.Bytes, max)
			}
			if alloc > tt.alloc {
				t.Errorf("the scan allocated %d MiB, want under %d MiB", alloc>>20, tt.alloc>>20)
			}
		})
	}
	// 64 members of 16 MiB read in parallel parts: each is cut by the
	// member budget (8 MiB) until four of them have spent the archive
	// budget (32 MiB) exactly; every member is then named in a budget
	// warning of its own, and none is reported as corrupt, however the
	// parts that were reading when the budget ran out were cut.
	t.Run("many.zip", func(t *testing.T) {
		const n = 64
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"many.zip": string(zipBomb(t, 'a', n, 16)), "plain.txt": "k=" + secret(plainSecret)})
		for _, workers := range []int{1, 2, 4} {
			found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: workers, ArchiveDepth: 1, Archive: lim}, dir)
			if err != nil {
				t.Fatal(err)
			}
			if !hasFinding(found, plainFinding(dir)) {
				t.Errorf("%d workers: the plain file's finding was lost: %v", workers, found)
			}
			named := map[string]bool{}
			for _, w := range archiveWarnings(t, warns) {
				if b := budgetOf(w); b != archive.BudgetMemberBytes && b != archive.BudgetArchiveBytes || named[w.Path] || !w.Lost {
					t.Errorf("%d workers: warning %v: want a member-bytes or archive-bytes budget, once per member, lost data", workers, w)
				}
				named[w.Path] = true
			}
			for i := range n {
				if p := "many.zip!bomb" + itoa(i) + ".txt"; !named[p] {
					t.Errorf("%d workers: %s not named in a warning", workers, p)
				}
			}
			if scanned := st.Bytes - int64(len("k="+secret(plainSecret))); scanned != lim.MaxArchiveBytes {
				t.Errorf("%d workers: %d bytes of members scanned, want the archive budget, %d", workers, scanned, lim.MaxArchiveBytes)
			}
			if st.Skipped[SkipBudget] != n || st.Lost != n || st.Warnings != n {
				t.Errorf("%d workers: Stats: skipped %v, %d warnings, %d lost; want %d budget skips", workers, st.Skipped, st.Warnings, st.Lost, n)
			}
		}
	})
	// The defaults stop a bomb the same way, at 256 MiB per member: one
	// member of the 1 GiB bomb is decoded to the budget (not short: a
	// quarter of a GiB goes through the detector).
	t.Run("defaults", func(t *testing.T) {
		if testing.Short() {
			t.Skip("decodes 256 MiB")
		}
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"bomb.zip": string(bomb)})
		_, warns, st, err := collect(t, Options{Detector: newFake(), ArchiveDepth: DefaultArchiveDepth}, dir)
		def := archive.DefaultLimits()
		if err != nil || len(warns) != 1 || budgetOf(warns[0]) != archive.BudgetMemberBytes || st.Bytes != def.MaxMemberBytes {
			t.Errorf("err %v, warnings %v, %d bytes scanned: want one member-bytes budget after %d bytes", err, warns, st.Bytes, def.MaxMemberBytes)
		}
	})
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

// TestArchiveBudgets hits each budget in turn, with small limits. A hit
// skips what the budget covers and no more: the member that hit a budget
// of its own, with the members after it read; for an archive's budget, the
// rest of the archive, each member of a zip named, a stream's rest under
// the archive's name; entries past the budget named one by one. Each
// warning names what it skipped and the budget (in Warning.Path and in its
// message), is lost data and is counted; what came before the hit, the
// members after a member's hit and the other files are still reported.
func TestArchiveBudgets(t *testing.T) {
	line := func(i int) string { return "k=" + secret(i) + "\n" }
	six := []member{}
	for i := range 6 {
		six = append(six, member{"m" + itoa(i) + ".txt", line(i)})
	}
	names := func(ms ...member) []string {
		var out []string
		for _, m := range ms {
			out = append(out, "!"+m.name)
		}
		return out
	}
	big := member{"big.txt", line(10) + strings.Repeat("x", 3000) + line(11)}
	compressible := member{"same.txt", line(12) + strings.Repeat("the same line again\n", 1<<17)}
	tests := []struct {
		name   string
		file   string
		data   []byte
		lim    archive.Limits
		budget archive.Budget
		warned []string // what the warnings name, under the file ("" for the file itself)
		found  []string // members (under the file) whose secrets are found
	}{
		{"entries", "a.zip", zipOf(t, zip.Deflate, six...), archive.Limits{MaxEntries: 3}, archive.BudgetEntries,
			names(six[3:]...), names(six[:3]...)},
		{"entries tar", "a.tar", tarOf(t, six...), archive.Limits{MaxEntries: 4}, archive.BudgetEntries,
			names(six[4:]...), names(six[:4]...)},
		// big.txt is cut at 1000 bytes (its first secret only); m1.txt,
		// after it, is read.
		{"member bytes", "b.tar", tarOf(t, six[0], big, six[1]), archive.Limits{MaxMemberBytes: 1000}, archive.BudgetMemberBytes,
			names(big), names(six[0], big, six[1])},
		{"member bytes zip", "b.zip", zipOf(t, zip.Deflate, six[0], big, six[1]), archive.Limits{MaxMemberBytes: 1000}, archive.BudgetMemberBytes,
			names(big), names(six[0], big, six[1])},
		// m0.txt is cut to 10 bytes, short of its secret; a tar cannot be
		// read past the hit, so the warning names the archive.
		{"archive bytes", "c.tar.gz", gzipOf(t, tarOf(t, big, six[0], six[1])), archive.Limits{MaxArchiveBytes: int64(len(big.data)) + 10}, archive.BudgetArchiveBytes,
			[]string{""}, names(big)},
		// In a zip, each member the budget keeps from being read whole is
		// named.
		{"archive bytes zip", "c.zip", zipOf(t, zip.Deflate, big, six[0], six[1]), archive.Limits{MaxArchiveBytes: int64(len(big.data)) + 10}, archive.BudgetArchiveBytes,
			names(six[0], six[1]), names(big)},
		// same.txt is cut once its ratio passes 4:1 beyond the floor; m0.txt
		// is read.
		{"inflation ratio", "d.zip", zipOf(t, zip.Deflate, compressible, six[0]), archive.Limits{MaxRatio: 4, RatioFloor: 64 << 10}, archive.BudgetRatio,
			names(compressible), names(compressible, six[0])},
		{"inflation ratio tar", "d.tar.gz", gzipOf(t, tarOf(t, compressible, six[0])), archive.Limits{MaxRatio: 4, RatioFloor: 64 << 10}, archive.BudgetRatio,
			names(compressible), names(compressible, six[0])},
		{"duration", "e.tgz", gzipOf(t, tarOf(t, six...)), archive.Limits{MaxDuration: time.Nanosecond}, archive.BudgetDuration,
			[]string{""}, nil},
		{"window", "f.txt.xz", xzOf(t, []byte(line(0))), archive.Limits{MaxWindow: 64 << 10}, archive.BudgetWindow,
			[]string{""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{tt.file: string(tt.data), "plain.txt": "k=" + secret(plainSecret)})
			// One worker: a zip's parts are read in order, so which member
			// an archive budget cuts is known.
			found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: 1, ArchiveDepth: 3, Archive: tt.lim}, dir)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"plain.txt"}
			for _, m := range tt.found {
				want = append(want, tt.file+m)
			}
			slices.Sort(want)
			if got := filesOf(found); !slices.Equal(got, want) {
				t.Errorf("files with findings %v, want %v", got, want)
			}
			var warned []string
			for _, w := range archiveWarnings(t, warns) {
				warned = append(warned, w.Path)
				msg := w.Error()
				if budgetOf(w) != tt.budget || !w.Lost {
					t.Errorf("warning %v: want a %v budget, lost data", w, tt.budget)
				}
				if !strings.Contains(msg, w.Path) || !strings.Contains(msg, tt.budget.String()+" budget") || strings.Count(msg, tt.file) != 1 {
					t.Errorf("warning message %q: want what was skipped named once and the budget", msg)
				}
			}
			var wantWarned []string
			for _, m := range tt.warned {
				wantWarned = append(wantWarned, tt.file+m)
			}
			slices.Sort(warned)
			if !slices.Equal(warned, wantWarned) {
				t.Errorf("warnings name %v, want %v", warned, wantWarned)
			}
			if n := int64(len(tt.warned)); st.Skipped[SkipBudget] != n || st.Lost != n {
				t.Errorf("Stats: skipped %v, %d lost; want %d budget skips", st.Skipped, st.Lost, n)
			}
		})
	}
	// The member budget cuts big.txt: its second secret is never seen.
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"b.tar": string(tarOf(t, big))})
	found, _, _, _ := collect(t, Options{Detector: newFake(), ArchiveDepth: 1, Archive: archive.Limits{MaxMemberBytes: 1000}}, dir)
	if len(found) != 1 {
		t.Errorf("member cut at 1000 bytes: %v", found)
	}
}

// TestArchiveRootBudget: each scan root may decode MaxRootBytes before it
// is held to MaxRatio times the compressed bytes of the archives it
// opened. A tree of bombs (1 MiB of text compressed far past the ratio)
// is stopped once the root has decoded its budget: the archive being read
// is cut (a stream named as a whole, a zip's members one by one) and the
// archives after it are not opened, each named in a root-bytes warning.
// A tree of ordinary archives that decodes more than the budget is read
// whole. Each root given to Scan has a budget of its own.
func TestArchiveRootBudget(t *testing.T) {
	lim := archive.Limits{MaxRootBytes: 384 << 10, MaxRatio: 100}
	bombText := func(i int) string { return strings.Repeat("a", 256<<10) + "\nk=" + secret(i) + "\n" }
	dir := t.TempDir()
	var ms []member
	for i := range 4 {
		ms = append(ms, member{"m" + itoa(i) + ".txt", bombText(10 + i)})
	}
	writeTree(t, dir, map[string]string{
		"one/a.txt.zst": string(zstdOf(t, []byte(bombText(1)))),
		"one/b.txt.zst": string(zstdOf(t, []byte(bombText(2)))),
		"two/a.txt.zst": string(zstdOf(t, []byte(bombText(3)))),
		"two/b.txt.zst": string(zstdOf(t, []byte(bombText(4)))),
	})
	zipDir := t.TempDir()
	writeTree(t, zipDir, map[string]string{"z.zip": string(zipOf(t, zip.Deflate, ms...))})
	scan := func(paths ...string) ([]key, []Warning, Stats) {
		t.Helper()
		// One worker: archives are read one after another, so the first
		// is read whole and the second cut. Small chunks: the walk reads
		// at most a buffer (32 KiB) past the budget.
		found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: 1, ChunkSize: 16 << 10, ArchiveDepth: 1, Archive: lim}, paths...)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range archiveWarnings(t, warns) {
			if budgetOf(w) != archive.BudgetRootBytes || !w.Lost {
				t.Errorf("warning %v, want root-bytes, lost data", w)
			}
		}
		if st.Lost != int64(len(warns)) || st.Skipped[SkipBudget] != int64(len(warns)) {
			t.Errorf("Stats: %d lost, skipped %v; want %d budget skips", st.Lost, st.Skipped, len(warns))
		}
		return found, warns, st
	}
	// Each bomb decodes 256 KiB and some, its secret last: the first one
	// read is found, the second is cut at the budget (overshot by at most
	// one read, short of its secret), the others are refused.
	bound := lim.MaxRootBytes + 64<<10
	found, warns, st := scan(filepath.Join(dir, "one"), filepath.Join(dir, "two"))
	if len(found) != 2 || len(warns) != 2 || st.Bytes > 2*bound {
		t.Errorf("two roots: %d findings, warnings %v, %d bytes decoded; want 2, 2, at most %d", len(found), warns, st.Bytes, 2*bound)
	}
	found, warns, st = scan(dir)
	if len(found) != 1 || len(warns) != 3 || st.Bytes > bound {
		t.Errorf("one root: %d findings, warnings %v, %d bytes decoded; want 1, 3, at most %d", len(found), warns, st.Bytes, bound)
	}
	// The zip read in parts: the first member whole, the second cut, the
	// rest named.
	found, warns, _ = scan(zipDir)
	named := map[string]bool{}
	for _, w := range warns {
		named[w.Path] = true
	}
	if len(found) != 1 || found[0].File != "z.zip!m0.txt" || len(warns) != 3 || !named["z.zip!m1.txt"] || !named["z.zip!m2.txt"] || !named["z.zip!m3.txt"] {
		t.Errorf("zip: findings %v, warnings %v; want m0.txt's, and the 3 members after it named", found, warns)
	}

	// Ordinary archives (text at under 2:1) decoding more than the budget are
	// read whole.
	ordinary := t.TempDir()
	var files []treeFile
	for i := range 4 {
		ms := []member{{"x" + itoa(i) + ".txt", noise(uint64(i), 128<<10) + "k=" + secret(20+i) + "\n"}}
		if i%2 == 0 {
			files = append(files, treeFile{"t" + itoa(i) + ".tar.gz", gzipOf(t, tarOf(t, ms...)), ms})
		} else {
			files = append(files, treeFile{"z" + itoa(i) + ".zip", zipOf(t, zip.Deflate, ms...), ms})
		}
	}
	want := writeFiles(t, ordinary, files)
	found, warns, st = scan(ordinary)
	if len(warns) != 0 || !slices.Equal(found, want) || st.Bytes <= lim.MaxRootBytes {
		t.Errorf("ordinary tree: warnings %v, %d findings of %d, %d bytes decoded: want all read", warns, len(found), len(want), st.Bytes)
	}
}

// noise returns n bytes of random lower-case words and line breaks: text
// that compresses at under 2:1 and holds no secret.
func noise(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyz    \n"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// TestArchiveFailOnBudget: with Archive.FailOnBudget a budget hit ends the
// scan, whether the archive is a stream (a .gz, walked by one worker) or a
// zip read in parts by several, and whether the hit is a member's budget or
// the archive's shared one. Scan's error names what was skipped and the
// budget, and unwraps to the *archive.BudgetError; the hit is counted as
// lost data; every permit comes back and nothing leaks (goleak, in
// TestMain).
func TestArchiveFailOnBudget(t *testing.T) {
	files := map[string]string{}
	for i := range 200 {
		files["d"+itoa(i%10)+"/f"+itoa(i)+".txt"] = secret(i)
	}
	tests := []struct {
		name   string
		data   []byte
		budget archive.Budget
		path   string // what the error names; a prefix for many.zip, whose member depends on the parts' order
	}{
		{"bomb.zip", zipBomb(t, 'a', 1, 64), archive.BudgetMemberBytes, "bomb.zip!bomb0.txt"},
		{"bomb.txt.gz", gzipRaw(fillDeflate(t, 'a', 64)), archive.BudgetMemberBytes, "bomb.txt.gz"},
		{"many.zip", zipBomb(t, 'a', 16, 1), archive.BudgetArchiveBytes, "many.zip"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		files := maps.Clone(files)
		files[tt.name] = string(tt.data)
		writeTree(t, dir, files)
		for _, workers := range []int{1, 2, 4} {
			var progress Progress
			lim := archive.Limits{MaxMemberBytes: 2 << 20, MaxArchiveBytes: 4 << 20, RatioFloor: 1 << 20, FailOnBudget: true, TempDir: t.TempDir()}
			opts := Options{Detector: newFake(), Workers: workers, MaxInFlight: 4, ArchiveDepth: 1, Progress: &progress, Archive: lim}
			e := newEngine(opts.withDefaults())
			st, err := e.scanPaths(context.Background(), dir)
			var (
				w  Warning
				be *archive.BudgetError
			)
			if !errors.As(err, &w) || !errors.As(err, &be) || be.Budget != tt.budget || !strings.HasPrefix(w.Path, tt.path) || !w.Lost {
				t.Fatalf("%s, %d workers: err %v, want the %v budget on %s", tt.name, workers, err, tt.budget, tt.path)
			}
			if msg := err.Error(); !strings.Contains(msg, w.Path) || !strings.Contains(msg, tt.budget.String()+" budget exceeded") {
				t.Errorf("%s: error %q does not name what was skipped and the budget", tt.name, msg)
			}
			if got := e.front.inFlight.Load(); got != 0 {
				t.Errorf("%s, %d workers: %d permits never released", tt.name, workers, got)
			}
			// Parts read at once may each hit the budget before the scan
			// has stopped: each hit is a warning.
			if st.Warnings < 1 || st.Warnings > int64(workers) || st.Skipped[SkipBudget] != st.Warnings || st.Lost != st.Warnings || !progress.Done.Load() {
				t.Errorf("%s, %d workers: Stats %d warnings, %d lost, skipped %v", tt.name, workers, st.Warnings, st.Lost, st.Skipped)
			}
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
// scanned up to the entries budget (65,536 by default); each entry past it
// is named in a budget warning of its own (lost data) and counted; the
// scan neither stalls nor allocates per member beyond its object. Short:
// 3,000 members against a budget of 2,000 (the defaults' case takes 15 s
// under the race detector).
func TestArchiveManyTinyMembers(t *testing.T) {
	n, limit := 100_000, archive.DefaultLimits().MaxEntries
	var lim archive.Limits
	if testing.Short() {
		n, limit = 3000, 2000
		lim.MaxEntries = limit
	}
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
	found, warns, st, err := collect(t, Options{Detector: newFake(), Workers: 2, ArchiveDepth: 1, Archive: lim}, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"many.zip" + "!m1", "plain.txt"}
	if got := filesOf(found); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	if st.Members != int64(limit) {
		t.Errorf("%d members scanned, want %d", st.Members, limit)
	}
	ws := archiveWarnings(t, warns)
	named := make(map[string]bool, len(ws))
	for _, w := range ws {
		if budgetOf(w) != archive.BudgetEntries || !w.Lost || named[w.Path] {
			t.Fatalf("warning %v: want one entries budget per member past it, lost data", w)
		}
		named[w.Path] = true
	}
	for i := limit; i < n; i++ {
		if p := "many.zip!m" + itoa(i); !named[p] {
			t.Fatalf("%s, past the entries budget, not named (%d warnings)", p, len(ws))
		}
	}
	if past := int64(n - limit); int64(len(ws)) != past || st.Skipped[SkipBudget] != past || st.Lost != past {
		t.Errorf("%d warnings, skipped %v, %d lost: want %d entries past the budget", len(ws), st.Skipped, st.Lost, past)
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
