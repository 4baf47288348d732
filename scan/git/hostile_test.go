package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan"
	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb/odbtest"
	"github.com/spindle-go/spindle/scan/report"
)

// The tests of this file hold the scan to what a repository someone else
// made may try: make it run code, hide commits or files, hang it, or
// exhaust its memory.

// scanAll runs f (Scan, Staged or Unstaged) and returns what it found and
// the warnings.
func scanAll(t *testing.T, run func(context.Context, scan.Options) (Stats, error)) ([]string, []scan.Warning, Stats, error) {
	t.Helper()
	var (
		mu    sync.Mutex
		found []string
		warns []scan.Warning
	)
	st, err := run(context.Background(), scan.Options{Detector: detector(t), Workers: 2,
		OnFinding: func(f report.Finding) {
			mu.Lock()
			found = append(found, fmt.Sprintf("%s:%d:%s", f.File, f.Line, f.Secret))
			mu.Unlock()
		},
		OnWarning: func(w scan.Warning) { mu.Lock(); warns = append(warns, w); mu.Unlock() },
	})
	slices.Sort(found)
	return found, warns, st, err
}

// TestNothingFromTheRepositoryRuns: a repository whose configuration
// names a textconv driver, a clean filter, an fsmonitor, a pager, an
// external diff and an ssh command (and whose attributes select them) is
// scanned in every mode without any of them running.
func TestNothingFromTheRepositoryRuns(t *testing.T) {
	r := newRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := "touch " + marker
	r.write(".gitattributes", "*.txt diff=evil filter=evil\n")
	r.write("a.txt", "x\n"+tok(1)+"\n")
	r.commit("one")
	r.write("b.txt", tok(3)+"\n") // staged before the traps are set
	for _, kv := range [][2]string{{"diff.evil.textconv", cmd}, {"diff.evil.command", cmd}, {"filter.evil.clean", cmd},
		{"filter.evil.smudge", cmd}, {"core.fsmonitor", cmd}, {"core.pager", cmd}, {"core.sshCommand", cmd},
		{"diff.external", cmd}, {"gpg.program", cmd}} {
		r.git("config", kv[0], kv[1])
	}
	hook := filepath.Join(r.dir, ".git", "hooks", "post-checkout")
	os.WriteFile(hook, []byte("#!/bin/sh\n"+cmd+"\n"), 0o755)
	if err := os.WriteFile(filepath.Join(r.dir, "a.txt"), []byte("x\n"+tok(1)+"\n"+tok(2)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func(context.Context, scan.Options) (Stats, error){
		"history":  func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) },
		"staged":   func(ctx context.Context, o scan.Options) (Stats, error) { return Staged(ctx, r.dir, o) },
		"unstaged": func(ctx context.Context, o scan.Options) (Stats, error) { return Unstaged(ctx, r.dir, o) },
	} {
		found, _, _, err := scanAll(t, run)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(found) == 0 {
			t.Errorf("%s: nothing found", name)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: a command from the repository's configuration ran", name)
		}
	}
}

// TestNoGitNeeded: with no git on PATH at all (or a git that prints
// nothing), history, staged and unstaged scans find what they find with
// one.
func TestNoGitNeeded(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	r.write("a.txt", tok(1)+"\n"+tok(2)+"\n")
	shim := t.TempDir()
	os.WriteFile(filepath.Join(shim, "git"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	t.Setenv("PATH", shim)
	found, _, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil || !slices.Equal(found, []string{"a.txt:1:" + tok(1)}) {
		t.Errorf("history without git: %v %v", found, err)
	}
	found, _, _, err = scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Staged(ctx, r.dir, o) })
	if err != nil || !slices.Equal(found, []string{"a.txt:2:" + tok(2)}) {
		t.Errorf("staged without git: %v %v", found, err)
	}
}

// TestUserConfigCannotHideCommits: log.showRoot=false and diff settings
// in the repository's or the user's configuration change nothing: root
// commits are scanned, renames found as git's defaults find them.
func TestUserConfigCannotHideCommits(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("root")
	r.git("config", "log.showRoot", "false")
	r.git("config", "diff.renames", "false")
	r.git("config", "diff.noprefix", "true")
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[log]\n\tshowRoot = false\n[diff]\n\talgorithm = patience\n"), 0o644)
	t.Setenv("HOME", home)
	found, _, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil || !slices.Equal(found, []string{"a.txt:1:" + tok(1)}) {
		t.Errorf("root commit: %v %v", found, err)
	}
}

// TestRevisionsAreNeverOptions: a revision that starts with '-' (say
// --output=FILE) is refused, and --log-opts refuses options it does not
// implement by name.
func TestRevisionsAreNeverOptions(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	out := filepath.Join(t.TempDir(), "out")
	_, err := Scan(context.Background(), r.dir, Options{Revisions: []string{"--output=" + out}}, scan.Options{Detector: detector(t)})
	if err == nil || !strings.Contains(err.Error(), "cannot start with '-'") {
		t.Errorf("revision --output: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a file was written")
	}
	for _, opt := range []string{"--output=" + out, "-m", "--cc", "--reflog", "--walk-reflogs", "-S", "--ext-diff"} {
		_, err := Scan(context.Background(), r.dir, Options{LogOpts: []string{opt}}, scan.Options{Detector: detector(t)})
		if !errors.Is(err, ErrUnsupportedOption) || !strings.Contains(err.Error(), strings.SplitN(opt, "=", 2)[0]) {
			t.Errorf("--log-opts %s: %v, want it refused by name", opt, err)
		}
	}
}

// TestLargeLooseObjectThatCompressesWell: a 5 MB log committed and left
// loose (it compresses about 1,000:1) is read and its secrets found.
func TestLargeLooseObjectThatCompressesWell(t *testing.T) {
	r := newRepo(t)
	var b strings.Builder
	for i := range 40 {
		b.WriteString(strings.Repeat("2026-11-28 INFO request served path=/api/v1/items in 3ms\n", 2000))
		fmt.Fprintf(&b, "token=%s\n", tok(i))
	}
	r.write("app.log", b.String())
	r.commit("log")
	found, warns, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil || len(found) != 40 || len(warns) != 0 {
		t.Errorf("found %d of 40, warnings %v, err %v", len(found), warns, err)
	}
}

// TestQuarantinedPushObjects: during a push, git hands a pre-receive hook
// the new objects in a quarantine directory (GIT_OBJECT_DIRECTORY) with
// the repository's own objects as an alternate
// (GIT_ALTERNATE_OBJECT_DIRECTORIES). A scan of the pushed range sees
// both, as git does.
func TestQuarantinedPushObjects(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "base\n")
	base := r.commit("base")
	bare := filepath.Join(t.TempDir(), "srv.git")
	r.git("clone", "-q", "--bare", r.dir, bare)
	r.write("a.txt", "base\n"+tok(9)+"\n")
	r.write("copy.txt", "base\n")
	tip := r.commit("push me")
	// The quarantine: the new objects only, loose.
	quarantine := filepath.Join(t.TempDir(), "incoming")
	for _, id := range strings.Fields(r.git("rev-list", "--objects", base+".."+tip)) {
		if len(id) != 40 {
			continue
		}
		writeLooseObject(t, quarantine, id, r)
	}
	t.Setenv("GIT_DIR", bare)
	t.Setenv("GIT_OBJECT_DIRECTORY", quarantine)
	t.Setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", filepath.Join(bare, "objects"))
	found, warns, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) {
		return Scan(ctx, bare, Options{Revisions: []string{base + ".." + tip}}, o)
	})
	if err != nil || !slices.Equal(found, []string{"a.txt:2:" + tok(9)}) || len(warns) != 0 {
		t.Errorf("quarantine: %v %v %v", found, warns, err)
	}
}

// writeLooseObject copies a loose object of r (objects of new commits are
// loose) into the objects directory given.
func writeLooseObject(t *testing.T, objects, id string, r *repo) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(r.dir, ".git", "objects", id[:2], id[2:]))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(objects, id[:2], id[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, raw, 0o444); err != nil {
		t.Fatal(err)
	}
}

// TestTrackedLinksAreTheirTargets: an unstaged scan reads a tracked
// symbolic link as its target path (as git records it), even when it
// points at a device that never ends or a FIFO that never opens.
func TestTrackedLinksAreTheirTargets(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "x\n")
	if err := os.Symlink("a.txt", filepath.Join(r.dir, "link")); err != nil {
		t.Skip("symlinks:", err)
	}
	r.git("add", "link")
	r.commit("one")
	os.Remove(filepath.Join(r.dir, "link"))
	os.Symlink("/dev/zero", filepath.Join(r.dir, "link"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Unstaged(ctx, r.dir, o) })
		if err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the unstaged scan followed a link to /dev/zero")
	}
}

// TestOneBadObjectCostsThatObjectAlone: a blob that is missing is one
// warning naming it, its commit and path; the findings of every other
// commit, before and after it, are reported.
func TestOneBadObjectCostsThatObjectAlone(t *testing.T) {
	r := newRepo(t)
	for i := range 10 {
		r.write(fmt.Sprintf("f%d.txt", i), tok(i)+"\n")
		r.commit(fmt.Sprintf("c%d", i))
	}
	bad := r.git("rev-parse", "HEAD~5:f4.txt")
	os.Remove(filepath.Join(r.dir, ".git", "objects", bad[:2], bad[2:]))
	found, warns, st, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 9 || len(warns) != 1 || !strings.Contains(warns[0].Error(), bad) ||
		!strings.Contains(warns[0].Error(), r.ids["c4"]) || !strings.Contains(warns[0].Error(), "f4.txt") {
		t.Errorf("found %d of 9, warnings %v", len(found), warns)
	}
	if st.Lost != 1 || st.Unreadable != 1 {
		t.Errorf("lost %d, unreadable %d, want 1 and 1", st.Lost, st.Unreadable)
	}
}

// TestBadRefsCostThemselves: a ref whose file holds garbage and a ref to
// a commit that is not there are warnings; every other ref's history is
// scanned.
func TestBadRefsCostThemselves(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", tok(1)+"\n")
	r.commit("one")
	os.WriteFile(filepath.Join(r.dir, ".git", "refs", "heads", "garbage"), []byte("not an id\n"), 0o644)
	os.WriteFile(filepath.Join(r.dir, ".git", "refs", "heads", "gone"), []byte(strings.Repeat("ab", 20)+"\n"), 0o644)
	found, warns, _, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil || !slices.Equal(found, []string{"a.txt:1:" + tok(1)}) {
		t.Fatalf("found %v, err %v", found, err)
	}
	var text []string
	for _, w := range warns {
		text = append(text, w.Error())
	}
	all := strings.Join(text, "\n")
	if len(warns) != 2 || !strings.Contains(all, "garbage") || !strings.Contains(all, "gone") {
		t.Errorf("warnings %v, want one for each bad ref", text)
	}
}

// TestCraftedObjectsStayWithinBudgets: a history whose tree names blobs
// stored as crafted deltas, one declaring 5 GiB and one 200 MiB (each a
// few kilobytes in the pack), and one claiming 32 GiB, are scanned within
// a small heap: the first and the last are binary to git (past its
// big-file threshold), counted so and, not searched, warnings of lost data
// naming them (gitleaks reads nothing of them, silently); the second, a
// new file too large to diff or to build in memory, is streamed whole, its
// base spilled to a temporary file; the rest of the history is scanned.
func TestCraftedObjectsStayWithinBudgets(t *testing.T) {
	r := newRepo(t)
	r.write("ok.txt", tok(1)+"\n")
	r.commit("one")
	base := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	copyAll := []byte{0x80 | 0x10 | 0x20, 0x00, 0x00}
	delta := func(result uint64) []byte {
		d := odbtest.DeltaSizes(uint64(len(base)), result)
		for n := uint64(0); n < result; n += 64 << 10 {
			d = append(d, copyAll...)
		}
		return d
	}
	huge, mid, lie := [20]byte{0xee, 2}, [20]byte{0xee, 3}, [20]byte{0xee, 4}
	d5, d200 := delta(5<<30), delta(200<<20)
	d32 := append(odbtest.DeltaSizes(uint64(len(base)), 32<<30), copyAll...) // claims 32 GiB, makes 64 KiB
	odbtest.WritePack(t, filepath.Join(r.dir, ".git", "objects"), []odbtest.Entry{
		{ID: [20]byte{0xee, 1}, Type: 3, Size: uint64(len(base)), Data: base},
		{ID: huge, Type: 6, Size: uint64(len(d5)), Data: d5, Base: 0},
		{ID: mid, Type: 6, Size: uint64(len(d200)), Data: d200, Base: 0},
		{ID: lie, Type: 6, Size: uint64(len(d32)), Data: d32, Base: 0},
	})
	okBlob := r.git("rev-parse", "HEAD:ok.txt")
	cmd := exec.Command("git", "mktree", "--missing")
	cmd.Dir = r.dir
	cmd.Stdin = strings.NewReader(fmt.Sprintf("100644 blob %x\thuge.txt\n100644 blob %x\tlie.txt\n100644 blob %x\tmid.txt\n100644 blob %s\tok.txt\n", huge, lie, mid, okBlob))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	c := r.git("commit-tree", "-p", "HEAD", "-m", "crafted", strings.TrimSpace(string(out)))
	r.git("update-ref", "refs/heads/main", c)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	found, warns, st, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if err != nil || !slices.Equal(found, []string{"ok.txt:1:" + tok(1)}) {
		t.Fatalf("found %v, err %v", found, err)
	}
	var named []string
	for _, w := range warns {
		if w.Lost {
			named = append(named, w.Path)
		}
	}
	slices.Sort(named)
	if len(warns) != 2 || !slices.Equal(named, []string{"huge.txt", "lie.txt"}) || st.Binary != 2 || st.Lost != 2 {
		t.Errorf("warnings %v, binary %d, lost %d: want lost-data warnings naming huge.txt and lie.txt, both binary", warns, st.Binary, st.Lost)
	}
	if st.Bytes < 200<<20 {
		t.Errorf("%d bytes scanned: mid.txt's 200 MiB were not read", st.Bytes)
	}
	for _, w := range warns {
		if w.Path == "lie.txt" && !strings.Contains(w.Error(), "claims 34359738368 bytes") {
			t.Errorf("lie.txt: %v, want the size it claims", w)
		}
	}
	// HeapSys may shrink during the scan (the race detector's runtime
	// returns spans), so the growth is signed; TotalAlloc counts every byte
	// allocated, so a result built whole shows there even if freed.
	if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > 256<<20 {
		t.Errorf("the heap grew by %d MiB", grew>>20)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 256<<20 {
		t.Errorf("the scan allocated %d MiB", allocated>>20)
	}
	t.Logf("heap %+d KiB, allocated %d KiB", (int64(after.HeapSys)-int64(before.HeapSys))>>10, (after.TotalAlloc-before.TotalAlloc)>>10)
}

// TestPackEntriesThatLieAboutTheirSize: a blob entry whose header claims
// 32 GiB (holding a few bytes), and one that claims 5 bytes and holds
// more, are warnings of lost data naming their paths, never silent skips.
func TestPackEntriesThatLieAboutTheirSize(t *testing.T) {
	r := newRepo(t)
	r.write("ok.txt", tok(1)+"\n")
	r.commit("one")
	big, small := [20]byte{0xef, 1}, [20]byte{0xef, 2}
	data := []byte("k=" + tok(2) + "\n")
	odbtest.WritePack(t, filepath.Join(r.dir, ".git", "objects"), []odbtest.Entry{
		{ID: big, Type: 3, Size: 32 << 30, Data: data},
		{ID: small, Type: 3, Size: 5, Data: data},
	})
	okBlob := r.git("rev-parse", "HEAD:ok.txt")
	cmd := exec.Command("git", "mktree", "--missing")
	cmd.Dir = r.dir
	cmd.Stdin = strings.NewReader(fmt.Sprintf("100644 blob %x\tbig.txt\n100644 blob %s\tok.txt\n100644 blob %x\tsmall.txt\n", big, okBlob, small))
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	c := r.git("commit-tree", "-p", "HEAD", "-m", "lies", strings.TrimSpace(string(out)))
	r.git("update-ref", "refs/heads/main", c)
	found, warns, st, err := scanAll(t, func(ctx context.Context, o scan.Options) (Stats, error) { return Scan(ctx, r.dir, Options{}, o) })
	if err != nil || !slices.Equal(found, []string{"ok.txt:1:" + tok(1)}) {
		t.Fatalf("found %v, err %v", found, err)
	}
	var named []string
	for _, w := range warns {
		if w.Lost {
			named = append(named, w.Path)
		}
	}
	slices.Sort(named)
	if !slices.Equal(named, []string{"big.txt", "small.txt"}) || st.Lost != 2 {
		t.Errorf("warnings %v, %d lost: want lost-data warnings naming big.txt and small.txt", warns, st.Lost)
	}
}
