package odb

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLoose stores content as a loose object of type typ under objects
// and returns its id.
func writeLoose(tb testing.TB, objects string, typ string, content []byte) ID {
	tb.Helper()
	hdr := fmt.Sprintf("%s %d\x00", typ, len(content))
	id := hashObject(typ, content)
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	zw.Write([]byte(hdr))
	zw.Write(content)
	zw.Close()
	p := filepath.Join(objects, id.String()[:2], id.String()[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o444); err != nil {
		tb.Fatal(err)
	}
	return id
}

// TestLooseObjectThatCompressesWellIsRead: a 5 MB log of one repeated
// line compresses to a few KiB; its declared size is held against the
// whole file, not the first block read, so it reads.
func TestLooseObjectThatCompressesWellIsRead(t *testing.T) {
	dir := newRepo(t, true)
	objects := filepath.Join(dir, "objects")
	content := []byte(strings.Repeat("2026-11-28 INFO request served in 3ms path=/api/v1/items\n", 90000))
	id := writeLoose(t, objects, "blob", content)
	db, err := Open(objects, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	typ, size, err := db.Header(id)
	if err != nil || typ != TypeBlob || size != int64(len(content)) {
		t.Fatalf("Header: %v %d %v", typ, size, err)
	}
	_, got, err := db.Read(id, nil)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("Read: %d bytes, %v", len(got), err)
	}
	rd, err := db.Reader(id)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(rd); err != nil || !bytes.Equal(b.Bytes(), content) {
		t.Fatalf("Reader: %d bytes, %v", b.Len(), err)
	}
	rd.Close()
}

// TestObjectsOverTheBudgetAreRefused: loose and packed objects (whole and
// deltas) larger than MaxObject are a TooLargeError naming them, before
// their content is allocated; smaller ones read.
func TestObjectsOverTheBudgetAreRefused(t *testing.T) {
	dir := newRepo(t, true)
	objects := filepath.Join(dir, "objects")
	big := bytes.Repeat([]byte("0123456789abcdef\n"), 8192) // 136 KiB
	small := []byte("small\n")
	looseBig := writeLoose(t, objects, "blob", big)
	looseSmall := writeLoose(t, objects, "blob", small)
	// A packed copy, whole and as a delta: two versions of a large file.
	work := newRepo(t, false)
	writeFiles(t, work, map[string]string{"f": string(big)})
	git(t, work, nil, "add", "-A")
	git(t, work, nil, "commit", "-qm", "one")
	writeFiles(t, work, map[string]string{"f": string(big) + "more\n"})
	git(t, work, nil, "commit", "-qam", "two")
	git(t, work, nil, "repack", "-adq")
	ids := strings.Fields(string(git(t, work, nil, "rev-list", "--objects", "--all", "--", "f")))
	db, err := Open(filepath.Join(work, ".git", "objects"), Options{MaxObject: 64 << 10, Alternates: []string{objects}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var packed []ID
	for _, s := range ids {
		if id, err := ParseID(s); err == nil {
			if typ, size, err := db.Header(id); err == nil && typ == TypeBlob && size > 64<<10 {
				packed = append(packed, id)
			}
		}
	}
	if len(packed) != 2 {
		t.Fatalf("found %d large packed blobs, want 2", len(packed))
	}
	for _, id := range append(packed, looseBig) {
		_, _, err := db.Read(id, nil)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.ID != id || !errors.Is(err, ErrTooLarge) {
			t.Errorf("Read %s: %v, want a TooLargeError naming it", id, err)
		}
	}
	if _, got, err := db.Read(looseSmall, nil); err != nil || !bytes.Equal(got, small) {
		t.Errorf("small loose object: %q %v", got, err)
	}
}

// TestPacksAddedAfterOpenAreFound: objects that a repack moved into a new
// pack after Open (and whose loose files it removed) are found by looking
// at the pack directories again, not reported missing.
func TestPacksAddedAfterOpenAreFound(t *testing.T) {
	dir := newRepo(t, true)
	fastImport(t, dir, 20, 3, 5)
	git(t, dir, nil, "repack", "-adq")
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// More history after Open, packed into a second pack and then the
	// whole repository repacked: every object is now in a pack Open did
	// not see, and the first pack has been deleted from disk.
	fastImport(t, dir, 10, 3, 5)
	git(t, dir, nil, "repack", "-adq")
	want := catFileAll(t, dir)
	checkAll(t, db, want)
	if db.rescans.Load() == 0 {
		t.Error("no rescan was needed: the test did not test it")
	}
}

// hashObject is git's object id of content as typ.
func hashObject(typ string, content []byte) ID {
	return hashOf(fmt.Sprintf("%s %d\x00", typ, len(content)), content)
}

func hashOf(header string, content []byte) ID {
	h := sha1.New()
	h.Write([]byte(header))
	h.Write(content)
	var id ID
	copy(id[:], h.Sum(nil))
	return id
}

// TestSizeMatchesHeader: Size gives every object's size as Header does,
// for whole entries, deltas (small and large) and loose objects.
func TestSizeMatchesHeader(t *testing.T) {
	dir := newRepo(t, true)
	fastImport(t, dir, 30, 4, 40)
	git(t, dir, nil, "repack", "-adq")
	fastImport(t, dir, 5, 2, 10) // loose objects too
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range catFileAll(t, dir) {
		got, err := db.Size(id)
		if err != nil || got != int64(len(want.data)) {
			t.Fatalf("Size(%s) = %d, %v; want %d", id, got, err, len(want.data))
		}
	}
}

// TestReadLimitGivesTheSize: ReadLimit refuses an object over its limit
// with the object's size, for packed whole objects, deltas and loose
// objects, and reads one within it.
func TestReadLimitGivesTheSize(t *testing.T) {
	dir := newRepo(t, true)
	fastImport(t, dir, 30, 4, 40)
	git(t, dir, nil, "repack", "-adq")
	fastImport(t, dir, 5, 2, 10)
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range catFileAll(t, dir) {
		n := int64(len(want.data))
		if n < 2 {
			continue
		}
		_, _, err := db.ReadLimit(id, nil, n-1)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Size != n || tl.ID != id {
			t.Fatalf("ReadLimit(%s, %d): %v, want a TooLargeError of size %d", id, n-1, err, n)
		}
		if _, got, err := db.ReadLimit(id, nil, n); err != nil || !bytes.Equal(got, want.data) {
			t.Fatalf("ReadLimit(%s, %d): %v", id, n, err)
		}
	}
}

// TestUnreadableIsNotCorrupt: a loose object whose file cannot be opened
// (no permission) is ErrUnreadable, named, and not called corrupt.
func TestUnreadableIsNotCorrupt(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir := newRepo(t, true)
	objects := filepath.Join(dir, "objects")
	id := writeLoose(t, objects, "blob", []byte("x\n"))
	p := filepath.Join(objects, id.String()[:2], id.String()[2:])
	os.Chmod(p, 0)
	db, err := Open(objects, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, _, err = db.Read(id, nil)
	if !errors.Is(err, ErrUnreadable) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), id.String()) {
		t.Errorf("Read: %v", err)
	}
}
