package odb

import (
	"fmt"
	"strings"
	"testing"
)

// TestExampleRepoLayout checks how testdata/example.git stores its blobs:
// which are deltas, and what the delta of config/app.conf's second version
// inserts (it copies "password = " from the third version, which git
// stored whole).
func TestExampleRepoLayout(t *testing.T) {
	db, err := Open("testdata/example.git/objects", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, p := range db.Packs() {
		for e, err := range p.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			if e.Type == TypeBlob {
				fmt.Fprintln(&b, e.Offset, e.ID, e.Delta)
			}
		}
	}
	id, _ := ParseID("0653780f67de5a408b9130aeb3033e5dec29c424")
	base, d, err := db.deltaOf(id)
	if err != nil || d == nil {
		t.Fatalf("deltaOf: %v, %v", d, err)
	}
	fmt.Fprintln(&b, "delta of", base, "building", d.Size, "bytes")
	var at int64
	for _, op := range d.Ops {
		if op.Data != nil {
			fmt.Fprintf(&b, "insert at %d: %q\n", at, op.Data)
		}
		at += op.Len
	}
	const want = `564 988d1a92f5b395ec39a040889a6bc75e8c6b9ba7 false
644 8b23143e79c1c246d1a08b7f83e0bec5ac281826 false
822 bd8fd3c6402c6e01bddc49aaca49a4d4cbd273b0 true
1003 0653780f67de5a408b9130aeb3033e5dec29c424 true
delta of bd8fd3c6402c6e01bddc49aaca49a4d4cbd273b0 building 1720 bytes
insert at 871: "hunter2\nline 3"
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
