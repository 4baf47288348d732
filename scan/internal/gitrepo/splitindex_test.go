package gitrepo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// splitRepo makes gitRepo's repository with a split index whose front
// replaces, deletes and adds entries of its shared index, in index
// version v, and returns its top.
func splitRepo(t testing.TB, v string) string {
	t.Helper()
	top := gitRepo(t)
	run(t, top, "commit", "-qm", "base")
	run(t, top, "update-index", "--index-version", v)
	run(t, top, "update-index", "--split-index")
	os.WriteFile(filepath.Join(top, "a.txt"), []byte("changed"), 0o644)
	os.WriteFile(filepath.Join(top, "dir", "sub", "new.md"), []byte("new"), 0o644)
	os.WriteFile(filepath.Join(top, "0first.txt"), []byte("sorts first"), 0o644)
	os.WriteFile(filepath.Join(top, "zz.txt"), []byte("sorts last"), 0o644)
	run(t, top, "add", "a.txt", "dir/sub/new.md", "0first.txt", "zz.txt")
	run(t, top, "rm", "-q", "--cached", "dir/b.go")
	run(t, top, "rm", "-q", "dir/sub/cc.md")
	// Git may write a new shared index above: one more addition and one
	// more change go to the front only.
	os.WriteFile(filepath.Join(top, "dir", "late.txt"), []byte("late"), 0o644)
	os.WriteFile(filepath.Join(top, "exec.sh"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	run(t, top, "add", "dir/late.txt", "exec.sh")
	return top
}

// sharedIndexOf returns the path of the shared index that the index of
// the repository at top links to.
func sharedIndexOf(t *testing.T, top string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(top, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	_, ext, err := parse(data, 20)
	if err != nil {
		t.Fatal(err)
	}
	link, ok, err := findExtension(ext, "link")
	if !ok || err != nil {
		t.Fatalf("no link extension: %v", err)
	}
	return filepath.Join(top, ".git", fmt.Sprintf("sharedindex.%x", link[:20]))
}

// TestSplitIndexMatchesGitLsFiles reads split indexes of every version,
// with replaced, deleted and added entries, as git ls-files -s lists
// them, and their cache-tree as the front index records it.
func TestSplitIndexMatchesGitLsFiles(t *testing.T) {
	for _, v := range []string{"2", "3", "4"} {
		top := splitRepo(t, v)
		if _, err := os.Stat(sharedIndexOf(t, top)); err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		r, err := Find(top)
		if err != nil {
			t.Fatal(err)
		}
		want := run(t, top, "-c", "core.quotePath=false", "ls-files", "-s")
		x, err := r.ReadIndex()
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		if got := lsFiles(x.Entries); got != want {
			t.Errorf("version %s:\n%s\nwant (git ls-files -s)\n%s", v, got, want)
		}
		// The package-level readers find the shared index beside the index.
		ents, err := Read(r.IndexFile(), r.HashSize)
		if err != nil || lsFiles(ents) != want {
			t.Errorf("version %s: Read: %v", v, err)
		}
		data, _ := os.ReadFile(r.IndexFile())
		if _, err := Parse(data, 20); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "split") {
			t.Errorf("Parse of a split index: %v", err)
		}
		// git writes everything back to one index: the same entries.
		run(t, top, "update-index", "--no-split-index")
		one, err := r.ReadIndex()
		if err != nil || lsFiles(one.Entries) != want {
			t.Errorf("version %s: unsplit: %v", v, err)
		}
	}
}

// TestSplitIndexDamageIsAnError: a missing shared index, one that is not
// the one named, and link extensions whose bitmaps name entries the
// shared index lacks are errors naming the problem, never an index with
// entries missing.
func TestSplitIndexDamageIsAnError(t *testing.T) {
	top := splitRepo(t, "2")
	r, _ := Find(top)
	shared := []string{sharedIndexOf(t, top)}
	good, _ := os.ReadFile(shared[0])
	os.Remove(shared[0])
	if _, err := r.ReadIndex(); !errors.Is(err, ErrFormat) || errors.Is(err, os.ErrNotExist) {
		t.Errorf("shared index missing: %v", err)
	}
	other := append([]byte{}, good...)
	other[len(other)-1] ^= 1
	os.WriteFile(shared[0], other, 0o644)
	if _, err := r.ReadIndex(); !errors.Is(err, ErrFormat) {
		t.Errorf("another shared index: %v", err)
	}
	os.WriteFile(shared[0], good, 0o644)
	if _, err := r.ReadIndex(); err != nil {
		t.Fatal(err)
	}
	for name, bits := range map[string][]byte{
		"truncated":          {0, 0, 0, 8, 0, 0, 0, 9},
		"bit past the end":   ewahLiteral(1000),
		"run past the end":   {0, 0, 0, 64, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0},
		"trailing garbage":   append(append(ewahLiteral(0), ewahLiteral(0)...), 7),
		"literals too many":  {0, 0, 0, 64, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0},
		"replaced & deleted": append(ewahLiteral(0), ewahLiteral(0)...),
	} {
		var l *splitLink
		_, err := parseLink(append(make([]byte, 20), bits...), 20, 8)
		if err == nil {
			l, _ = parseLink(append(make([]byte, 20), bits...), 20, 8)
			_, err = mergeSplit(make([]Entry, 8), []Entry{{}}, l)
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// ewahLiteral is an EWAH bitmap with the one bit n set (n < 64: one
// run-length word of no run and one literal word; larger n: the literal
// word after a run of zeros).
func ewahLiteral(n int) []byte {
	words := []uint64{uint64(n/64)<<1 | 1<<33, 1 << (n % 64)}
	b := binary.BigEndian.AppendUint32(nil, uint32(n+1))
	b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
	for _, w := range words {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return binary.BigEndian.AppendUint32(b, 0)
}

// TestEwahLinear decodes bitmaps of n and 8n set bits (all literal words,
// the densest form) and of a run of n and 8n set bits: the work is the
// bits set, and a run that would name more entries than the shared index
// has stops at the first one past it.
func TestEwahLinear(t *testing.T) {
	for _, n := range []int{1 << 14, 8 << 14} {
		words := []uint64{uint64(n/64) << 33}
		for range n / 64 {
			words = append(words, ^uint64(0))
		}
		b := binary.BigEndian.AppendUint32(nil, uint32(n))
		b = binary.BigEndian.AppendUint32(b, uint32(len(words)))
		for _, w := range words {
			b = binary.BigEndian.AppendUint64(b, w)
		}
		b = binary.BigEndian.AppendUint32(b, 0)
		bits, size, err := ewahBits(b, uint32(n))
		if err != nil || size != len(b) || len(bits) != n || !slices.IsSorted(bits) {
			t.Fatalf("n=%d: %d bits, %d of %d bytes, %v", n, len(bits), size, len(b), err)
		}
		// A run of 2^32-1 words of ones against a shared index of n
		// entries: an error after n bits, not 2^38 steps.
		run := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
		run[15] = 0xff
		if _, _, err := ewahBits(run, uint32(n)); err == nil {
			t.Fatalf("n=%d: a run past the shared index accepted", n)
		}
	}
}

// FuzzSplitIndex: a link extension of any content, against a shared
// index of eight entries, gives an error or a merged index whose paths
// are all set and sorted.
func FuzzSplitIndex(f *testing.F) {
	f.Add(append(make([]byte, 20), append(ewahLiteral(3), ewahLiteral(5)...)...), uint8(1))
	f.Add(append(make([]byte, 20), append(ewahLiteral(0), ewahLiteral(70)...)...), uint8(0))
	f.Add(make([]byte, 20), uint8(2))
	f.Fuzz(func(t *testing.T, link []byte, nfront uint8) {
		base := make([]Entry, 8)
		for i := range base {
			base[i].Path = fmt.Sprintf("p%d", i)
		}
		l, err := parseLink(link, 20, uint32(len(base)))
		if err != nil {
			return
		}
		front := make([]Entry, int(nfront)%8)
		for i := len(l.replace); i < len(front); i++ {
			front[i].Path = fmt.Sprintf("p%d", i*3%8) + "x"
		}
		slices.SortFunc(front[min(len(l.replace), len(front)):], func(a, b Entry) int { return compareEntries(&a, &b) })
		ents, err := mergeSplit(base, front, l)
		if err != nil {
			return
		}
		if !slices.IsSortedFunc(ents, func(a, b Entry) int { return compareEntries(&a, &b) }) {
			t.Fatalf("not sorted: %v", ents)
		}
		for _, e := range ents {
			if e.Path == "" {
				t.Fatalf("entry without a path: %v", ents)
			}
		}
	})
}
