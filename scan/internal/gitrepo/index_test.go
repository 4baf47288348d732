package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gitRepo makes a repository with files at nested and long paths, staged,
// and returns its top.
func gitRepo(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	top := t.TempDir()
	files := map[string]string{
		"a.txt":         "a",
		"dir/b.go":      "b",
		"dir/sub/c.md":  "c",
		"dir/sub/cc.md": "cc",
		"exec.sh":       "#!/bin/sh",
		strings.Repeat("d", 200) + "/long-name-" + strings.Repeat("x", 120) + ".txt": "long",
		"unicode/héllo wörld.txt": "u",
	}
	for name, content := range files {
		p := filepath.Join(top, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(top, "exec.sh"), 0o755)
	os.Symlink("a.txt", filepath.Join(top, "link"))
	run(t, top, "init", "-q")
	run(t, top, "add", "-A")
	run(t, top, "add", "-N", "dir/intent.txt") // fails quietly if missing; created below
	return top
}

func run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(strings.Join(args, " "), "-N") {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// lsFiles is `git ls-files -s` in the form "mode id stage\tpath".
func lsFiles(ents []Entry) string {
	var b strings.Builder
	for _, e := range ents {
		fmt.Fprintf(&b, "%06o %s %d\t%s\n", e.Mode, hex.EncodeToString(e.ID), e.Stage, e.Path)
	}
	return b.String()
}

func TestIndexMatchesGitLsFiles(t *testing.T) {
	top := gitRepo(t)
	for _, version := range []string{"2", "3", "4"} {
		run(t, top, "update-index", "--index-version", version)
		repo, err := Find(filepath.Join(top, "dir", "sub"))
		if err != nil {
			t.Fatal(err)
		}
		if repo.Top != top && !strings.HasSuffix(repo.Top, filepath.Base(top)) {
			t.Fatalf("Top = %s, want %s", repo.Top, top)
		}
		ents, err := Read(repo.IndexFile(), repo.HashSize)
		if err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		want := run(t, top, "-c", "core.quotePath=false", "ls-files", "-s")
		if got := lsFiles(ents); got != want {
			t.Errorf("version %s:\n%s\nwant (git ls-files -s)\n%s", version, got, want)
		}
	}
}

func TestIndexIntentToAddAndSkipWorktree(t *testing.T) {
	top := gitRepo(t)
	os.WriteFile(filepath.Join(top, "dir", "new.txt"), []byte("n"), 0o644)
	run(t, top, "add", "-N", "dir/new.txt")
	run(t, top, "update-index", "--skip-worktree", "a.txt")
	repo, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := Read(repo.IndexFile(), repo.HashSize)
	if err != nil {
		t.Fatal(err)
	}
	var ita, skip bool
	for _, e := range ents {
		ita = ita || e.Path == "dir/new.txt" && e.IntentToAdd
		skip = skip || e.Path == "a.txt" && e.SkipWorktree
	}
	if !ita || !skip {
		t.Errorf("intent-to-add %v, skip-worktree %v: want both", ita, skip)
	}
}

// Every way of cutting or corrupting an index is an error, never a panic.
func TestIndexDamageIsAnError(t *testing.T) {
	top := gitRepo(t)
	data, err := os.ReadFile(filepath.Join(top, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(data, 20); err != nil {
		t.Fatalf("intact index: %v", err)
	}
	for n := 0; n < len(data); n += 7 {
		if _, err := Parse(data[:n], 20); err == nil {
			t.Fatalf("index cut at %d bytes parsed", n)
		}
	}
	bad := bytes.Clone(data)
	bad[40] ^= 0xff
	if _, err := Parse(bad, 20); !errors.Is(err, ErrFormat) {
		t.Errorf("flipped byte: %v, want a checksum error", err)
	}
	// A lying entry count must not size an allocation.
	lie := bytes.Clone(data[:12])
	lie[8], lie[9], lie[10], lie[11] = 0xff, 0xff, 0xff, 0xff
	lie = append(lie, make([]byte, 20)...)
	if _, err := Parse(lie, 20); !errors.Is(err, ErrFormat) {
		t.Errorf("huge count: %v", err)
	}
}

func TestFindAndOpen(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "init")
	bare := filepath.Join(t.TempDir(), "bare.git")
	run(t, top, "clone", "-q", "--bare", top, bare)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, top, "worktree", "add", "-q", wt)
	tests := []struct {
		dir       string
		top       bool
		commonDir string
	}{
		{filepath.Join(top, "dir"), true, filepath.Join(top, ".git")},
		{filepath.Join(top, ".git"), true, filepath.Join(top, ".git")},
		{bare, false, bare},
		{wt, true, filepath.Join(top, ".git")},
	}
	for _, tt := range tests {
		r, err := Find(tt.dir)
		if err != nil {
			t.Fatalf("%s: %v", tt.dir, err)
		}
		real := func(p string) string { q, _ := filepath.EvalSymlinks(p); return q }
		if (r.Top != "") != tt.top || real(r.CommonDir) != real(tt.commonDir) || r.HashSize != 20 {
			t.Errorf("%s: %+v", tt.dir, r)
		}
	}
	if _, err := Find(t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("outside a repository: %v", err)
	}
	if _, err := Open(filepath.Join(top, "dir")); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Open of a subdirectory: %v, want ErrNotRepo (Open does not look upwards)", err)
	}
}

// FuzzParseIndex: no input panics, allocates what it does not hold, or
// parses without its checksum being right.
func FuzzParseIndex(f *testing.F) {
	f.Add(seedIndex(2), 20)
	f.Add(seedIndex(4), 20)
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"), 20)
	f.Fuzz(func(t *testing.T, data []byte, hashSize int) {
		if hashSize != 32 {
			hashSize = 20
		}
		ents, err := Parse(data, hashSize)
		if err != nil {
			return
		}
		for _, e := range ents {
			if e.Path == "" || len(e.ID) != hashSize {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

// seedIndex builds a small valid index of the given version by hand.
func seedIndex(version int) []byte {
	var b bytes.Buffer
	b.WriteString("DIRC")
	b.Write([]byte{0, 0, 0, byte(version), 0, 0, 0, 2})
	prev := ""
	for _, p := range []string{"a/b.txt", "a/c.txt"} {
		start := b.Len()
		b.Write(make([]byte, 24))
		b.Write([]byte{0, 0, 0x81, 0xa4}) // mode 0100644
		b.Write(make([]byte, 12))
		b.Write(bytes.Repeat([]byte{0xab}, 20))
		b.Write([]byte{0, byte(len(p))})
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(p) && prev[common] == p[common] {
				common++
			}
			b.WriteByte(byte(len(prev) - common))
			b.WriteString(p[common:])
			b.WriteByte(0)
		} else {
			b.WriteString(p)
			n := b.Len() - start
			b.Write(make([]byte, 8-n%8))
		}
		prev = p
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// TestIndexCacheTree: after a commit the cache-tree extension names the
// tree of every directory, which is what git's own trees say; staging a
// file invalidates the directories above it and no others.
func TestIndexCacheTree(t *testing.T) {
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "init")
	run(t, top, "write-tree") // fills the cache-tree
	x, err := ReadIndex(filepath.Join(top, ".git", "index"), 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "dir", "dir/sub"} {
		spec := "HEAD^{tree}"
		if dir != "" {
			spec = "HEAD:" + dir
		}
		want := strings.TrimSpace(run(t, top, "rev-parse", spec))
		if got := hex.EncodeToString(x.Trees[dir]); got != want {
			t.Errorf("cache-tree %q = %s, want %s", dir, got, want)
		}
	}
	os.WriteFile(filepath.Join(top, "dir", "sub", "c.md"), []byte("changed"), 0o644)
	run(t, top, "add", "dir/sub/c.md")
	x, err = ReadIndex(filepath.Join(top, ".git", "index"), 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "dir", "dir/sub"} {
		if _, ok := x.Trees[dir]; ok {
			t.Errorf("cache-tree %q still valid after staging below it", dir)
		}
	}
	if _, ok := x.Trees["unicode"]; !ok {
		t.Errorf("cache-tree of an untouched directory lost: %v", x.Trees)
	}
}

// v4GrowingIndex is a version 4 index of n entries whose paths each keep
// the whole path before them and add one byte: n entries of about 65
// bytes that would rebuild n²/2 bytes of paths.
func v4GrowingIndex(n int) []byte {
	b := []byte("DIRC\x00\x00\x00\x04")
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for range n {
		e := make([]byte, 40+20+2)
		binary.BigEndian.PutUint32(e[24:], 0o100644)
		binary.BigEndian.PutUint16(e[60:], 1)
		b = append(b, e...)
		b = append(b, 0, 'a', 0) // drop nothing, add "a"
	}
	h := sha1.Sum(b)
	return append(b, h[:]...)
}

// TestIndexParseLinear parses indexes of n and 8n entries of two shapes:
// ordinary paths (version 2) and version 4 paths that each grow the one
// before (which, rebuilt, would be quadratic). Memory stays within a
// constant times the input: the ordinary index is read, the growing one
// refused once its paths pass their budget (the paths' strings, and the
// buffer they are rebuilt in, at most twice the budget).
func TestIndexParseLinear(t *testing.T) {
	alloc := func(data []byte) (uint64, error) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := Parse(data, 20)
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc, err
	}
	for _, n := range []int{20_000, 160_000} {
		data := v4GrowingIndex(n)
		a, err := alloc(data)
		if limit := uint64(2*(maxPathBytes+pathExpansion*len(data)) + 64*n); a > limit {
			t.Errorf("growing v4 paths, n=%d: %d bytes allocated from %d (limit %d), %v", n, a, len(data), limit, err)
		}
		if n == 160_000 && !errors.Is(err, ErrFormat) {
			t.Errorf("n=%d: %v, want the paths refused", n, err)
		}
	}
	var sizes [2]uint64
	for i, n := range []int{20_000, 160_000} {
		b := []byte("DIRC\x00\x00\x00\x02")
		b = binary.BigEndian.AppendUint32(b, uint32(n))
		for j := range n {
			e := make([]byte, 40+20+2)
			binary.BigEndian.PutUint32(e[24:], 0o100644)
			name := fmt.Sprintf("dir/file%08d.txt", j)
			binary.BigEndian.PutUint16(e[60:], uint16(len(name)))
			e = append(append(e, name...), make([]byte, 8-(62+len(name))%8)...)
			b = append(b, e...)
		}
		h := sha1.Sum(b)
		a, err := alloc(append(b, h[:]...))
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = a
	}
	if sizes[1] > 10*sizes[0] {
		t.Errorf("version 2: 8n allocates %d bytes, n %d: not linear", sizes[1], sizes[0])
	}
}
