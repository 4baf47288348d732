package odb

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// TestReaderStreamsDeltasOverMaxObject: with MaxObject lowered below the
// size of every version of a file stored as a chain of deltas, Read
// refuses each (too large) and Reader streams each, its bases spilled to
// temporary files, byte for byte what git cat-file gives; no temporary
// file is left behind.
func TestReaderStreamsDeltasOverMaxObject(t *testing.T) {
	dir := newRepo(t, true)
	chainImport(t, dir, 30, 2000)
	git(t, dir, nil, "repack", "-a", "-d", "-q", "--depth=50")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	db, err := openRepo(dir, Options{MaxObject: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	blobs, deltas := 0, 0
	for id, want := range catFileAll(t, dir) {
		if want.typ != "blob" {
			continue
		}
		blobs++
		if _, d, err := db.deltaOf(id); err == nil && d != nil {
			deltas++
		}
		if _, _, err := db.Read(id, nil); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Read %s: %v, want too large", id, err)
		}
		rd, err := db.Reader(id)
		if err != nil {
			t.Fatalf("Reader %s: %v", id, err)
		}
		got, err := io.ReadAll(rd)
		rd.Close()
		if err != nil || !bytes.Equal(got, want.data) || rd.Size() != int64(len(want.data)) || rd.Type() != TypeBlob {
			t.Fatalf("%s: %d bytes, %v; want %d", id, len(got), err, len(want.data))
		}
	}
	if blobs != 30 || deltas < 20 {
		t.Fatalf("%d blobs, %d deltas: want 30, most of them deltas", blobs, deltas)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
