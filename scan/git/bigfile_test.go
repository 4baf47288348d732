package git

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan"
)

// bigLogHistory builds a bare repository whose log file of about size
// bytes is added with one secret (near its start) and edited with another
// (near its end), then repacked so that one version is a delta of the
// other.
func bigLogHistory(t *testing.T, size int) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := filepath.Join(t.TempDir(), "repo.git")
	var log strings.Builder
	for i := 0; log.Len() < size; i++ {
		fmt.Fprintf(&log, "2026-01-02T03:04:05Z host%03d request %09d served in %d ms\n", i%997, i, i%313)
	}
	lines := strings.SplitAfter(log.String(), "\n")
	first := slices.Clone(lines)
	first[1000] = "token = " + tok(1) + "\n"
	second := slices.Clone(first)
	second[len(second)-1000] = "token = " + tok(2) + "\n"
	stream := filepath.Join(t.TempDir(), "stream")
	f, err := os.Create(stream)
	if err != nil {
		t.Fatal(err)
	}
	for i, content := range []string{strings.Join(first, ""), strings.Join(second, "")} {
		fmt.Fprintf(f, "commit refs/heads/main\nmark :%d\ncommitter Ada <ada@example.com> %d +0000\ndata 4\nlog%d\n", i+1, 1767000000+i, i)
		if i > 0 {
			fmt.Fprintf(f, "from :%d\n", i)
		}
		fmt.Fprintf(f, "M 644 inline app.log\ndata %d\n%s\n", len(content), content)
	}
	f.Close()
	run := func(stdin string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if stdin != "" {
			in, err := os.Open(stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			cmd.Stdin = in
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(dir, 0o755)
	run("", "init", "-q", "--bare", "-b", "main")
	run(stream, "fast-import", "--quiet")
	run("", "repack", "-a", "-d", "-f", "-q", "--window=2")
	run("", "prune-packed")
	idx, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx"))
	cmd := exec.Command("git", "verify-pack", "-v", idx[0])
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	deltas := 0
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) == 7 && f[1] == "blob" {
			deltas++
		}
	}
	if deltas != 1 {
		t.Fatalf("%d blobs stored as deltas, want 1:\n%s", deltas, out)
	}
	return dir
}

// checkBigLog scans a bigLogHistory and checks that both secrets are
// found with nothing lost, and that the heap grew by less than maxHeap.
func checkBigLog(t *testing.T, dir string, maxHeap int64) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var warns []scan.Warning
	found, st, err := scanSecretsWarn(detector(t), dir, &warns)
	runtime.ReadMemStats(&after)
	if err != nil || st.Lost != 0 || !slices.Equal(found, []string{tok(1), tok(2)}) {
		t.Fatalf("found %v, %d lost, %v; warnings %v", found, st.Lost, err, warns)
	}
	if len(warns) != 1 || warns[0].Lost || !strings.Contains(warns[0].Error(), "scanned whole, not diffed") {
		t.Errorf("warnings %v: want one of noise saying the edit was scanned whole", warns)
	}
	if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > maxHeap {
		t.Errorf("the heap grew by %d MiB, want under %d", grew>>20, maxHeap>>20)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	t.Logf("heap %+d MiB, allocated %d MiB, %d bytes scanned", (int64(after.HeapSys)-int64(before.HeapSys))>>20, (after.TotalAlloc-before.TotalAlloc)>>20, st.Bytes)
}

// TestBigFileEditedAndDeltified: a log of 150 MB committed twice (its
// second version an edit, one of them a delta in the pack) is read in
// bounded memory: the delta streamed with its base spilled to a temporary
// file, the edit (too large to diff in memory) scanned whole; both
// secrets are found and nothing is lost. Not with -short (it writes about
// 300 MB); TestBigFileEditedAndDeltifiedShort does the same with the
// limits lowered.
func TestBigFileEditedAndDeltified(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 300 MB; see TestBigFileEditedAndDeltifiedShort")
	}
	checkBigLog(t, bigLogHistory(t, 150<<20), 256<<20)
}

// TestBigFileEditedAndDeltifiedShort is TestBigFileEditedAndDeltified
// with a 2 MiB log and the limits lowered to match (objects built in
// memory up to 256 KiB, changes diffed up to 128 KiB).
func TestBigFileEditedAndDeltifiedShort(t *testing.T) {
	oldObject, oldDiff := maxObject, maxDiffBlob
	maxObject, maxDiffBlob = 256<<10, 128<<10
	t.Cleanup(func() { maxObject, maxDiffBlob = oldObject, oldDiff })
	checkBigLog(t, bigLogHistory(t, 2<<20), 64<<20)
}
