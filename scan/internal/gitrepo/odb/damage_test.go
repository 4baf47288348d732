package odb

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyDir copies a repository so that a test can damage the copy.
func copyDir(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return dst
}

// damageFile rewrites a file through fn.
func damageFile(tb testing.TB, path string, fn func([]byte) []byte) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, fn(bytes.Clone(data)), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// readsTrueOrCorrupt reads every object through every method and checks
// that each read gives git's content or an error naming the object; it
// returns how many objects read correctly and how many reported damage.
func readsTrueOrCorrupt(t *testing.T, db *DB, want map[ID]object) (good, bad int) {
	t.Helper()
	named := func(id ID, err error) bool {
		var ce *CorruptError
		var nf *NotFoundError
		return (errors.As(err, &ce) && ce.ID == id) || (errors.As(err, &nf) && nf.ID == id)
	}
	for id, o := range want {
		typ, data, err := db.Read(id, nil)
		switch {
		case err == nil && typ.String() == o.typ && bytes.Equal(data, o.data):
			good++
		case err != nil && named(id, err) && (errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNotFound)):
			bad++
		default:
			t.Fatalf("Read %s: %s of %d bytes, %v; git says %s of %d", id, typ, len(data), err, o.typ, len(o.data))
		}
		if ht, hs, err := db.Header(id); err == nil && (ht.String() != o.typ || hs != int64(len(o.data))) {
			// A header can be intact where the data is not, never wrong
			// where it reads.
			t.Fatalf("Header %s: %s %d, git says %s %d", id, ht, hs, o.typ, len(o.data))
		}
		if _, d, err := db.deltaOf(id); err == nil && d != nil && d.Size != int64(len(o.data)) {
			t.Fatalf("Delta %s: size %d, git says %d", id, d.Size, len(o.data))
		}
		if r, err := db.Reader(id); err == nil {
			got, err := io.ReadAll(r)
			r.Close()
			if err == nil && !bytes.Equal(got, o.data) {
				t.Fatalf("Reader %s: wrong content without an error", id)
			}
		}
	}
	for _, p := range db.Packs() {
		for range p.Entries() {
		}
	}
	return good, bad
}

// TestDamagedPackIsReportedByObject damages a pack in several ways: every
// object then reads as git has it or fails with an error naming it,
// never with wrong content and never with a panic.
func TestDamagedPackIsReportedByObject(t *testing.T) {
	commits, files, lines := historySize()
	orig := newRepo(t, true)
	fastImport(t, orig, commits, files, lines)
	git(t, orig, nil, "gc", "-q")
	want := catFileAll(t, orig)

	for _, c := range []struct {
		name     string
		damage   func([]byte) []byte
		someGood bool // objects before the damage still read
	}{
		{"truncated to half", func(b []byte) []byte { return b[:len(b)/2] }, true},
		{"truncated inside the header", func(b []byte) []byte { return b[:7] }, false},
		{"bytes flipped", func(b []byte) []byte {
			for i := 0; i < 40; i++ {
				b[12+(i*7919+len(b)/3)%(len(b)-32)] ^= 0x5a
			}
			return b
		}, true},
		{"a block zeroed", func(b []byte) []byte {
			clear(b[len(b)/2 : len(b)/2+4096])
			return b
		}, true},
		{"trailer lost", func(b []byte) []byte { return b[:len(b)-20] }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, orig)
			for _, p := range packsOf(t, filepath.Join(dir, "objects")) {
				damageFile(t, p, c.damage)
			}
			db, err := openRepo(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			good, bad := readsTrueOrCorrupt(t, db, want)
			if bad == 0 || (c.someGood && good == 0) {
				t.Fatalf("%d objects read, %d reported damaged", good, bad)
			}
		})
	}
}

// TestDamagedIndexLeavesPackOut: an index that cannot be parsed drops its
// pack with a warning; its objects are then not found.
func TestDamagedIndexLeavesPackOut(t *testing.T) {
	orig := newRepo(t, true)
	fastImport(t, orig, 20, 5, 10)
	git(t, orig, nil, "repack", "-adq")
	want := catFileAll(t, orig)
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"fan-out decreasing", func(b []byte) []byte { b[8+4*200+3] ^= 0xff; return b }},
		{"ids out of order", func(b []byte) []byte {
			n := 8 + 1024
			copy(b[n:n+20], bytes.Repeat([]byte{0xff}, 20))
			return b
		}},
		{"unknown version", func(b []byte) []byte { b[7] = 9; return b }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, orig)
			idx, _ := filepath.Glob(filepath.Join(dir, "objects", "pack", "*.idx"))
			damageFile(t, idx[0], c.damage)
			db, err := openRepo(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if len(db.Warnings()) != 1 || len(db.Packs()) != 0 {
				t.Fatalf("warnings %v, packs %d", db.Warnings(), len(db.Packs()))
			}
			for id := range want {
				if _, _, err := db.Read(id, nil); !errors.Is(err, ErrNotFound) {
					t.Fatalf("Read %s: %v, want ErrNotFound", id, err)
				}
			}
		})
	}
}

// TestDamagedLooseObject damages one loose object: reading it is a
// CorruptError naming it and its file.
func TestDamagedLooseObject(t *testing.T) {
	dir := newRepo(t, false)
	content := strings.Repeat("some content of the loose blob\n", 50)
	writeFiles(t, dir, map[string]string{"f.txt": content})
	git(t, dir, nil, "add", "-A")
	git(t, dir, nil, "commit", "-qm", "one")
	id, err := ParseID(strings.TrimSpace(string(git(t, dir, nil, "rev-parse", "HEAD:f.txt"))))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".git", "objects", id.String()[:2], id.String()[2:])
	deflate := func(s string) []byte {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.Bytes()
	}
	for _, c := range []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"byte flipped", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }},
		{"not zlib", func([]byte) []byte { return []byte("plain text") }},
		{"empty", func([]byte) []byte { return nil }},
		{"size too small", func([]byte) []byte { return deflate("blob 3\x00" + content) }},
		{"size too large", func([]byte) []byte { return deflate("blob 99999\x00" + content) }},
		{"unknown type", func([]byte) []byte { return deflate("bolb 3\x00abc") }},
		{"checksum wrong", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
	} {
		t.Run(c.name, func(t *testing.T) {
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, orig, 0o444)
			os.Chmod(path, 0o644)
			damageFile(t, path, c.damage)
			db, err := openRepo(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			_, _, err = db.Read(id, nil)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.ID != id || ce.Path != path || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Read: %v, want a CorruptError for %s in %s", err, id, path)
			}
			if r, err := db.Reader(id); err == nil {
				_, err = io.ReadAll(r)
				r.Close()
				if err == nil && c.name != "checksum wrong" {
					t.Fatal("Reader read a damaged object without an error")
				}
			}
		})
	}
}
