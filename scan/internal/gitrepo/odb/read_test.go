package odb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// historySize returns the fast-import arguments for test histories: small
// with -short.
func historySize() (commits, files, lines int) {
	if testing.Short() {
		return 60, 8, 30
	}
	return 600, 40, 80
}

// packOf returns the path of the only pack of a repository's objects dir.
func packsOf(tb testing.TB, objects string) []string {
	tb.Helper()
	packs, err := filepath.Glob(filepath.Join(objects, "pack", "pack-*.pack"))
	if err != nil || len(packs) == 0 {
		tb.Fatalf("no pack in %s (%v)", objects, err)
	}
	return packs
}

// unpackLoose moves every pack of src into loose objects of a fresh bare
// repository and returns it.
func unpackLoose(tb testing.TB, src string) string {
	tb.Helper()
	dst := newRepo(tb, true)
	for _, p := range packsOf(tb, filepath.Join(src, "objects")) {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		git(tb, dst, data, "unpack-objects", "-q")
	}
	return dst
}

// TestReadMatchesGit builds repositories in each storage layout git can
// produce and checks that Read, Header and Entries agree with git
// cat-file on every object.
func TestReadMatchesGit(t *testing.T) {
	commits, files, lines := historySize()
	history := func(t *testing.T) string {
		dir := newRepo(t, true)
		fastImport(t, dir, commits, files, lines)
		return dir
	}
	cases := []struct {
		name  string
		build func(t *testing.T) string
		check func(t *testing.T, db *DB) // what makes the case what it is
	}{
		{"fast-import pack", history, nil},
		{"loose objects only", func(t *testing.T) string { return unpackLoose(t, history(t)) }, func(t *testing.T, db *DB) {
			if len(db.Packs()) != 0 {
				t.Fatalf("%d packs, want none", len(db.Packs()))
			}
		}},
		{"gc --aggressive", func(t *testing.T) string {
			dir := history(t)
			git(t, dir, nil, "gc", "-q", "--aggressive")
			return dir
		}, requireDeltas(2)},
		{"repack --depth=4095 of one file's versions", func(t *testing.T) string {
			dir := newRepo(t, true)
			commits, lines := chainCommits()
			chainImport(t, dir, commits, lines)
			git(t, dir, nil, "-c", "pack.threads=1", "repack", "-adfq", "--depth=4095", "--window=10")
			return dir
		}, func(t *testing.T, db *DB) {
			requireDeltas(map[bool]int{true: 150, false: 4000}[testing.Short()])(t, db)
			readDeepestUncached(t, db)
		}},
		{"packed and loose mixed", func(t *testing.T) string {
			dir := newRepo(t, false)
			fastImport(t, dir, commits, files, lines)
			git(t, dir, nil, "gc", "-q")
			git(t, dir, nil, "checkout", "-q", "main")
			writeFiles(t, dir, map[string]string{"new/a.txt": "loose file\n", "dir0/file0.txt": "replaced\n"})
			git(t, dir, nil, "add", "-A")
			git(t, dir, nil, "commit", "-qm", "loose commit")
			return dir
		}, nil},
		{"REF_DELTA pack", func(t *testing.T) string {
			dir := history(t)
			git(t, dir, nil, "-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq")
			return dir
		}, requireDeltas(2)},
		{"index v1", func(t *testing.T) string {
			dir := history(t)
			git(t, dir, nil, "-c", "pack.indexVersion=1", "repack", "-adfq")
			return dir
		}, func(t *testing.T, db *DB) {
			if db.Packs()[0].idx.version != 1 {
				t.Fatal("pack index is not version 1")
			}
		}},
		{"reverse index file", func(t *testing.T) string {
			dir := history(t)
			git(t, dir, nil, "-c", "pack.writeReverseIndex=true", "repack", "-adfq")
			return dir
		}, func(t *testing.T, db *DB) {
			if _, err := os.Stat(db.Packs()[0].revPath); err != nil {
				t.Skip("git wrote no .rev file:", err)
			}
		}},
		{"several packs", func(t *testing.T) string {
			dir := history(t)
			fastImport(t, dir, commits/2, files+5, lines)
			return dir
		}, func(t *testing.T, db *DB) {
			if len(db.Packs()) < 2 {
				t.Fatalf("%d packs, want several", len(db.Packs()))
			}
		}},
		{"thin pack kept from a fetch", func(t *testing.T) string {
			// Files edited after the clone are sent as deltas against
			// versions the clone has; index-pack --fix-thin then appends
			// those bases to the pack, after the REF_DELTAs that use them.
			up := newRepo(t, false)
			files := map[string]string{}
			for i := range 20 {
				files[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat(fmt.Sprintf("file %d says hello\n", i), 100)
			}
			writeFiles(t, up, files)
			git(t, up, nil, "add", "-A")
			git(t, up, nil, "commit", "-qm", "first")
			clone := t.TempDir()
			git(t, clone, nil, "clone", "-q", "--bare", "file://"+up, ".")
			for name, content := range files {
				files[name] = content + "one more line\n"
			}
			writeFiles(t, up, files)
			git(t, up, nil, "commit", "-qam", "second")
			git(t, clone, nil, "-c", "fetch.unpackLimit=1", "fetch", "-q", "origin", "+refs/heads/*:refs/heads/*")
			return clone
		}, func(t *testing.T, db *DB) {
			for _, p := range db.Packs() {
				for e, err := range p.Entries() {
					if err == nil && e.Delta && e.BaseOffset > e.Offset {
						return
					}
				}
			}
			t.Fatal("no REF_DELTA with its base later in the pack")
		}},
		{"alternates", func(t *testing.T) string {
			up := history(t)
			git(t, up, nil, "repack", "-adq")
			dir := t.TempDir()
			git(t, dir, nil, "clone", "-q", "--shared", up, ".")
			writeFiles(t, dir, map[string]string{"local.txt": "only in the borrowing repository\n"})
			git(t, dir, nil, "add", "-A")
			git(t, dir, nil, "commit", "-qm", "local")
			return dir
		}, func(t *testing.T, db *DB) {
			if len(db.Dirs()) != 2 {
				t.Fatalf("objects dirs %v, want the repository's and its alternate", db.Dirs())
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.build(t)
			want := catFileAll(t, dir)
			// Packs mapped (the default for packs this small), then read
			// with pread.
			for _, mapBytes := range []int64{0, -1} {
				db, err := openRepo(dir, Options{MapBytes: mapBytes})
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if w := db.Warnings(); len(w) > 0 {
					t.Fatalf("warnings: %v", w)
				}
				for _, p := range db.Packs() {
					if mapped := p.data != nil; mapped != (mapBytes == 0 && mapsPacks) {
						t.Fatalf("MapBytes %d: pack %s mapped = %v", mapBytes, p.path, mapped)
					}
				}
				if c.check != nil {
					c.check(t, db)
				}
				checkAll(t, db, want)
				checkEntries(t, db, want)
			}
		})
	}
}

// chainCommits returns the history that makes one deep chain (commits,
// lines of the file): deeper than 4000 without -short.
func chainCommits() (commits, lines int) {
	if testing.Short() {
		return 500, 64
	}
	return 8600, 256
}

// readDeepestUncached reads the object at the end of the deepest chain
// with no delta-base cache, so that the whole chain is resolved at once.
func readDeepestUncached(t *testing.T, db *DB) {
	t.Helper()
	var deepest ID
	most := -1
	for _, p := range db.Packs() {
		d := map[int64]int{}
		for e, err := range p.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			if e.Delta && e.BaseOffset >= 0 {
				d[e.Offset] = d[e.BaseOffset] + 1
			}
			if d[e.Offset] > most {
				most, deepest = d[e.Offset], e.ID
			}
		}
	}
	nocache, err := Open(db.Dirs()[0], Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer nocache.Close()
	_, got, err := nocache.Read(deepest, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := db.Read(deepest, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("object at depth %d: uncached read differs (%v)", most, err)
	}
	t.Logf("read the object at depth %d without a cache", most)
}

// requireDeltas fails unless some delta chain is at least depth long.
func requireDeltas(depth int) func(t *testing.T, db *DB) {
	return func(t *testing.T, db *DB) {
		t.Helper()
		deepest := 0
		for _, p := range db.Packs() {
			d := map[int64]int{}
			for e, err := range p.Entries() {
				if err != nil {
					t.Fatal(err)
				}
				if e.Delta && e.BaseOffset >= 0 {
					d[e.Offset] = d[e.BaseOffset] + 1
					deepest = max(deepest, d[e.Offset])
				}
			}
		}
		if deepest < depth {
			t.Fatalf("deepest delta chain %d, want at least %d", deepest, depth)
		}
	}
}

// checkEntries checks that the packs' entries list each packed object
// with git's type, in increasing offsets, with OFS bases before deltas.
func checkEntries(t *testing.T, db *DB, want map[ID]object) {
	t.Helper()
	for _, p := range db.Packs() {
		prev := int64(-1)
		n := 0
		for e, err := range p.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if e.Offset <= prev {
				t.Fatalf("%s: offset %d after %d", e.ID, e.Offset, prev)
			}
			prev = e.Offset
			o, ok := want[e.ID]
			if !ok || o.typ != e.Type.String() {
				t.Fatalf("%s: entry of type %s, git says %q", e.ID, e.Type, o.typ)
			}
			if e.Delta {
				if _, ok := want[e.Base]; !ok {
					t.Fatalf("%s: base %s unknown to git", e.ID, e.Base)
				}
			}
		}
		if n != p.Len() {
			t.Fatalf("%s: %d entries listed, index has %d", p.Path(), n, p.Len())
		}
	}
}

// TestDeltaRebuildsObject checks the delta structure against the objects:
// for every object stored as a delta, applying its instructions to its
// base gives the object, and its inserts and copies tile the result.
func TestDeltaRebuildsObject(t *testing.T) {
	commits, files, lines := historySize()
	dir := newRepo(t, true)
	fastImport(t, dir, commits, files, lines)
	git(t, dir, nil, "gc", "-q", "--aggressive")
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deltas := 0
	for e, err := range db.Packs()[0].Entries() {
		if err != nil {
			t.Fatal(err)
		}
		base, d, err := db.deltaOf(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if (d != nil) != e.Delta || (d != nil && base != e.Base) {
			t.Fatalf("%s: Delta says base %s (delta %v), Entries says %s (delta %v)", e.ID, base, d != nil, e.Base, e.Delta)
		}
		if d == nil {
			continue
		}
		deltas++
		_, want, err := db.Read(e.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := db.Read(base, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Apply(b, nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: Apply: %v, equal %v", e.ID, err, bytes.Equal(got, want))
		}
		var at int64
		for _, op := range d.Ops {
			var piece []byte
			if op.Data != nil {
				piece = op.Data
			} else {
				piece = b[op.Offset : op.Offset+op.Len]
			}
			if !bytes.Equal(want[at:at+op.Len], piece) {
				t.Fatalf("%s: op at %d does not match the object", e.ID, at)
			}
			at += op.Len
		}
		if at != d.Size || d.Size != int64(len(want)) {
			t.Fatalf("%s: ops cover %d bytes, size %d, object %d", e.ID, at, d.Size, len(want))
		}
	}
	if deltas == 0 {
		t.Fatal("no deltas in the pack")
	}
}

// TestReaderStreamsLargeObjects reads objects larger than the streaming
// threshold, packed and loose, in small chunks.
func TestReaderStreamsLargeObjects(t *testing.T) {
	dir := newRepo(t, false)
	big := make([]byte, streamAbove+streamAbove/4+12345)
	x := uint32(1)
	for i := range big {
		x = x*1664525 + 1013904223
		big[i] = byte(x >> 24)
	}
	text := bytes.Repeat([]byte("a line of text that compresses well\n"), 2*streamAbove/36)
	writeFiles(t, dir, map[string]string{"big.bin": string(big), "big.txt": string(text), "small.txt": "small\n"})
	git(t, dir, nil, "add", "-A")
	git(t, dir, nil, "commit", "-qm", "big")
	ids := map[string]ID{}
	for _, name := range []string{"big.bin", "big.txt", "small.txt"} {
		id, err := ParseID(strings.TrimSpace(string(git(t, dir, nil, "rev-parse", "HEAD:"+name))))
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	want := map[string][]byte{"big.bin": big, "big.txt": text, "small.txt": []byte("small\n")}
	check := func(t *testing.T) {
		db, err := openRepo(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for name, id := range ids {
			r, err := db.Reader(id)
			if err != nil {
				t.Fatal(err)
			}
			if r.Type() != TypeBlob || r.Size() != int64(len(want[name])) {
				t.Fatalf("%s: %s of %d bytes", name, r.Type(), r.Size())
			}
			var got bytes.Buffer
			buf := make([]byte, 7777)
			if _, err := io.CopyBuffer(&got, struct{ io.Reader }{r}, buf); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want[name]) {
				t.Fatalf("%s: streamed content differs", name)
			}
		}
	}
	t.Run("loose", check)
	git(t, dir, nil, "gc", "-q")
	t.Run("packed", check)
}

// TestMissingObject checks that an id in no pack and no loose file is a
// *NotFoundError naming it, from every method.
func TestMissingObject(t *testing.T) {
	dir := newRepo(t, true)
	fastImport(t, dir, 3, 2, 5)
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id, _ := ParseID("0123456789abcdef0123456789abcdef01234567")
	_, _, err1 := db.Read(id, nil)
	_, _, err2 := db.Header(id)
	_, _, err3 := db.deltaOf(id)
	_, err4 := db.Reader(id)
	for i, err := range []error{err1, err2, err3, err4} {
		var nf *NotFoundError
		if !errors.Is(err, ErrNotFound) || !errors.As(err, &nf) || nf.ID != id || !strings.Contains(err.Error(), id.String()) {
			t.Errorf("method %d: %v, want a NotFoundError for %s", i, err, id)
		}
	}
	if db.Has(id) {
		t.Error("Has reports a missing object")
	}
}
