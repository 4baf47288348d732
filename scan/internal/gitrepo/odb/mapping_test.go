package odb

import (
	"os"
	"testing"
)

// TestMapBytesBoundsMappedPacks: the packs a DB maps add up to no more
// than Options.MapBytes; a pack that does not fit is read with pread,
// and every object reads the same either way.
func TestMapBytesBoundsMappedPacks(t *testing.T) {
	dir := mappableHistory(t)
	commits, files, lines := historySize()
	fastImport(t, dir, commits/2, files+5, lines)
	fastImport(t, dir, commits/3, files+2, lines)
	want := catFileAll(t, dir)
	probe, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, p := range probe.Packs() {
		sizes = append(sizes, p.size)
	}
	probe.Close()
	if len(sizes) < 3 {
		t.Fatalf("%d packs, want 3", len(sizes))
	}
	budget := sizes[0] + sizes[1]/2 // room for some packs, not all
	db, err := openRepo(dir, Options{MapBytes: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mapped int64
	var some, none bool
	for _, p := range db.Packs() {
		if p.data != nil {
			mapped += p.size
			some = true
		} else {
			none = true
		}
	}
	if mapped > budget || !some || !none {
		t.Fatalf("mapped %d bytes of packs of %v under a budget of %d", mapped, sizes, budget)
	}
	checkAll(t, db, want)
}

// TestMappedPackTruncatedUnderTheMapping: a mapped pack whose file is cut
// short while the DB is open reads as damaged where it was cut (the
// pages past the file's end fault, and the fault is an error), not as a
// crash; the objects before the cut read as before.
func TestMappedPackTruncatedUnderTheMapping(t *testing.T) {
	dir := mappableHistory(t)
	want := catFileAll(t, dir)
	db, err := openRepo(dir, Options{CacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := db.Packs()[0]
	if p.data == nil {
		t.Fatal("the pack is not mapped")
	}
	// Cut the file to a page boundary well inside it: the pages after it
	// fault.
	cut := (p.size / 2) &^ 4095
	if err := os.Truncate(p.path, cut); err != nil {
		t.Fatal(err)
	}
	good, bad := 0, 0
	for id, w := range want {
		typ, data, err := db.Read(id, nil)
		pos, _ := p.idx.find(&id)
		off := p.idx.offset(pos)
		switch {
		case err != nil:
			bad++
			if off < cut-4096 {
				// An entry before the cut may still need a base after
				// it; only an entry wholly past the cut must fail.
				continue
			}
		case typ.String() != w.typ || string(data) != string(w.data):
			t.Fatalf("%s read wrong after the cut", id)
		default:
			good++
			if off >= cut {
				t.Fatalf("%s, at %d past the cut at %d, read", id, off, cut)
			}
		}
	}
	if good == 0 || bad == 0 {
		t.Fatalf("%d objects read and %d failed; want some of each", good, bad)
	}
}

// mappableHistory returns a bare repository with one pack of a generated
// history, skipping the test where packs are not mapped.
func mappableHistory(t *testing.T) string {
	if !mapsPacks {
		t.Skip("packs are not mapped here")
	}
	commits, files, lines := historySize()
	dir := newRepo(t, true)
	fastImport(t, dir, commits, files, lines)
	return dir
}
