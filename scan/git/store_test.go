package git

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
	"github.com/spindle-go/spindle/scan/report"
)

// testKey is the settings key of the store tests' segments.
var testKey = [32]byte{1, 2, 3}

func idOf(i int) odb.ID {
	var id odb.ID
	copy(id[:], fmt.Sprintf("%020d", i))
	return id
}

// segmentOf encodes a segment of nClean clean commits, and nFound commits
// with perCommit findings each, each finding with tags tags.
func segmentOf(t testing.TB, nClean, nFound, perCommit, tags int) []byte {
	t.Helper()
	var clean []odb.ID
	for i := range nClean {
		clean = append(clean, idOf(i))
	}
	found := map[odb.ID][]storedFinding{}
	for i := range nFound {
		var fs []storedFinding
		for j := range perCommit {
			f := storedFinding{f: report.Finding{RuleID: "r", Description: "d", File: "a/b.txt", Secret: fmt.Sprint("s", j),
				Match: "m", Line: j + 1, Column: 2, EndLine: j + 1, EndColumn: 9, Entropy: 3.5}, merge: j%2 == 1}
			for k := range tags {
				f.f.Tags = append(f.f.Tags, fmt.Sprint(k%3))
			}
			fs = append(fs, f)
		}
		found[idOf(nClean+i)] = fs
	}
	data, err := encodeSegment(testKey, odb.SHA1Size, clean, found)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSegmentRoundTrip: what is encoded decodes to itself, bytes that are
// not valid UTF-8 and floats' every bit included.
func TestSegmentRoundTrip(t *testing.T) {
	found := map[odb.ID][]storedFinding{
		idOf(7): {{f: report.Finding{RuleID: "x", File: "\xff\xfe/é", Secret: "\x00\x80", Match: "", Line: -1, Column: 1 << 30,
			Entropy: 0.1 + 0.2, Tags: []string{"decoded:base64", ""}}, merge: true}},
	}
	clean := []odb.ID{idOf(3), idOf(1), idOf(2), idOf(1)}
	data, err := encodeSegment(testKey, odb.SHA1Size, clean, found)
	if err != nil {
		t.Fatal(err)
	}
	gotClean, gotFound, err := decodeSegment(data, testKey, odb.SHA1Size)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, i := range []int{1, 2, 3} {
		id := idOf(i)
		want = append(want, id[:odb.SHA1Size]...)
	}
	if !bytes.Equal(gotClean, want) {
		t.Errorf("clean ids %x", gotClean)
	}
	g, w := gotFound[idOf(7)], found[idOf(7)]
	if len(gotFound) != 1 || len(g) != 1 || g[0].merge != w[0].merge || !slices.Equal(g[0].f.Tags, w[0].f.Tags) ||
		fmt.Sprintf("%#v", g[0].f) != fmt.Sprintf("%#v", w[0].f) {
		t.Errorf("findings %#v\nwant %#v", gotFound, found)
	}
	if _, _, err := decodeSegment(data, [32]byte{9}, odb.SHA1Size); err != errStoreForeign {
		t.Errorf("another key: %v", err)
	}
}

// TestSegmentDecodingIsLinear: decoding a segment 8 times larger costs at
// most about 8 times the memory and time, for segments shaped to cost the
// most per byte: all clean ids, one finding per commit, many findings of
// one commit, findings made of tags, and damaged ones.
func TestSegmentDecodingIsLinear(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 500
	}
	shapes := []struct {
		name string
		make func(n int) []byte
	}{
		{"clean ids", func(n int) []byte { return segmentOf(t, 20*n, 0, 0, 0) }},
		{"a finding a commit", func(n int) []byte { return segmentOf(t, 0, n, 1, 0) }},
		{"one commit's findings", func(n int) []byte { return segmentOf(t, 0, 1, n, 0) }},
		{"tags", func(n int) []byte { return segmentOf(t, 0, 1, n/10+1, 50) }},
		{"truncated", func(n int) []byte { d := segmentOf(t, 5*n, n/2, 3, 2); return d[:len(d)-1] }},
	}
	for _, s := range shapes {
		small, large := s.make(n), s.make(8*n)
		// The CPU time of this thread, the collector off: the decoder's
		// own work, whatever else the machine runs. The small input is
		// decoded 8 times as often, so that a linear decoder costs the
		// same on both and the clock's ticks are far apart.
		cost := func(data []byte, runs int) (uint64, time.Duration) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			c0, _ := threadCPU()
			for range runs {
				decodeSegment(data, testKey, odb.SHA1Size)
			}
			c1, _ := threadCPU()
			runtime.ReadMemStats(&m1)
			runtime.GC()
			return (m1.TotalAlloc - m0.TotalAlloc) / uint64(runs), c1 - c0
		}
		ms, ts := cost(small, 40)
		ml, tl := cost(large, 5)
		ratio := float64(len(large)) / float64(len(small))
		t.Logf("%s: %d → %d bytes (×%.1f): allocated %d → %d a decoding, CPU time of 40 decodings %v, of 5 %v", s.name, len(small), len(large), ratio, ms, ml, ts, tl)
		if float64(ml) > 2*ratio*float64(ms)+64<<10 {
			t.Errorf("%s: allocations grow %.1f× for input ×%.1f", s.name, float64(ml)/float64(ms), ratio)
		}
		if _, ok := threadCPU(); ok && tl > 3*ts+10*time.Millisecond {
			t.Errorf("%s: time grows %.1f× for input ×%.1f", s.name, 8*float64(tl)/float64(ts), ratio)
		}
	}
}

// FuzzDecodeSegment: no input makes decoding fail other than with an
// error; what decodes encodes again to a segment that decodes the same.
func FuzzDecodeSegment(f *testing.F) {
	f.Add(segmentOf(f, 3, 2, 2, 1))
	f.Add(segmentOf(f, 0, 0, 0, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		var key [32]byte
		if off := len(storeMagic) + 2; len(data) >= off+32 {
			copy(key[:], data[off:])
		}
		clean, found, err := decodeSegment(data, key, odb.SHA1Size)
		if err != nil {
			return
		}
		var ids []odb.ID
		for i := 0; i < len(clean); i += odb.SHA1Size {
			var id odb.ID
			copy(id[:], clean[i:i+odb.SHA1Size])
			ids = append(ids, id)
		}
		again, err := encodeSegment(key, odb.SHA1Size, ids, found)
		if err != nil {
			t.Fatal(err)
		}
		clean2, found2, err := decodeSegment(again, key, odb.SHA1Size)
		if err != nil || !bytes.Equal(clean, clean2) || len(found) != len(found2) {
			t.Fatalf("re-encoded: %v", err)
		}
		for id, fs := range found {
			if fmt.Sprintf("%#v", fs) != fmt.Sprintf("%#v", found2[id]) {
				t.Fatalf("commit %s: %#v, again %#v", id, fs, found2[id])
			}
		}
	})
}

// TestStoreLooksUpBothIDSizes: a store saved and opened again finds every
// commit it holds, clean or with findings, and no other, for SHA-1 ids
// (20 bytes of an odb.ID) and SHA-256 ids (all 32).
func TestStoreLooksUpBothIDSizes(t *testing.T) {
	for _, size := range []int{odb.SHA1Size, odb.SHA256Size} {
		idAt := func(i int) odb.ID {
			var id odb.ID
			copy(id[:size], fmt.Sprintf("%0*d", size, i))
			return id
		}
		dir := t.TempDir()
		var clean []odb.ID
		for i := range 50 {
			clean = append(clean, idAt(i))
		}
		found := map[odb.ID][]storedFinding{idAt(60): {{f: report.Finding{RuleID: "r", File: "f", Secret: "s"}}}}
		if _, _, err := openStore(dir, testKey, size).save(clean, found, nil, false); err != nil {
			t.Fatal(err)
		}
		s := openStore(dir, testKey, size)
		if s.problem != nil {
			t.Fatalf("%d-byte ids: %v", size, s.problem)
		}
		for i := range 50 {
			if fs, ok := s.lookup(idAt(i)); !ok || fs != nil {
				t.Errorf("%d-byte ids: clean commit %d: %v, %v", size, i, fs, ok)
			}
		}
		if fs, ok := s.lookup(idAt(60)); !ok || len(fs) != 1 {
			t.Errorf("%d-byte ids: commit with findings: %v, %v", size, fs, ok)
		}
		if _, ok := s.lookup(idAt(55)); ok {
			t.Errorf("%d-byte ids: a commit never stored is found", size)
		}
	}
}
