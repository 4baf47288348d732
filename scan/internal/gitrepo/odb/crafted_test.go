package odb

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb/odbtest"
)

// TestCraftedDeltasDeclaringHugeSizes: a delta of about a kilobyte that
// declares 32 GiB or 5 GiB of result (its copies of the base repeated to
// reach it), and a whole entry that declares 2^40 bytes, are refused by
// size before anything is allocated for them, each naming its object;
// the base beside them reads.
func TestCraftedDeltasDeclaringHugeSizes(t *testing.T) {
	objects := filepath.Join(t.TempDir(), "objects")
	base := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	copyAll := []byte{0x80 | 0x10 | 0x20, 0x00, 0x00}      // copy 64 KiB from offset 0
	var entries []odbtest.Entry
	entries = append(entries, odbtest.Entry{ID: [20]byte{1}, Type: 3, Size: uint64(len(base)), Data: base})
	for i, result := range []uint64{32 << 30, 5 << 30} {
		delta := odbtest.DeltaSizes(uint64(len(base)), result)
		for n := uint64(0); n < result; n += 64 << 10 {
			delta = append(delta, copyAll...)
		}
		entries = append(entries, odbtest.Entry{ID: [20]byte{byte(2 + i)}, Type: 6, Size: uint64(len(delta)), Data: delta, Base: 0})
	}
	entries = append(entries, odbtest.Entry{ID: [20]byte{9}, Type: 3, Size: 1 << 40, Data: []byte("tiny")})
	odbtest.WritePack(t, objects, entries)
	db, err := Open(objects, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, got, err := db.Read(ID{1}, nil); err != nil || !bytes.Equal(got, base) {
		t.Fatalf("the base: %v", err)
	}
	for _, id := range []ID{{2}, {3}, {9}} {
		_, _, err := db.Read(id, nil)
		var tl *TooLargeError
		var ce *CorruptError
		switch {
		case errors.As(err, &tl) && tl.ID == id:
		case errors.As(err, &ce) && ce.ID == id:
		default:
			t.Errorf("Read %s: %v, want it refused by size, naming it", id, err)
		}
	}
}
