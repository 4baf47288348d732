package scan

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spindle-go/spindle/scan/archive"
	"github.com/spindle-go/spindle/scan/report"
)

// plantedData returns n bytes of noise (an alphabet that includes the
// secret's own letters and newlines, so near-misses and line breaks are
// everywhere) with secrets planted so that some cross every multiple of
// each of the chunk sizes, at every distance from the boundary that
// matters (inside the match, inside the window, just outside it).
func plantedData(seed uint64, n int, chunkSizes []int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	const alphabet = "abcdef0123456789SECRT_ \n\n"
	data := make([]byte, n)
	for i := range data {
		data[i] = alphabet[rng.IntN(len(alphabet))]
	}
	k := 0
	plant := func(at int) {
		s := secret(k)
		if rng.IntN(3) == 0 { // a longer hex run: the greedy tail reaches further
			s += "0123456789abcdef"[:rng.IntN(17)]
		}
		k++
		if at >= 0 && at+len(s) <= n {
			copy(data[at:], s)
		}
	}
	for _, cs := range chunkSizes {
		for b := cs; b < n; b += cs {
			d := []int{-60, -47, -40, -31, -20, -7, -1, 0, 1, 7, 30, 48, 49, 96, 97}[rng.IntN(15)]
			plant(b + d)
		}
	}
	for range n / 500 {
		plant(rng.IntN(n))
	}
	return data
}

// scanFile writes data to a file and scans it with the given geometry,
// through the Fetch chain or, if stream, as the one member of a gzip
// stream (the path archive members take: a stream of unknown size read in
// the archive's Enumerate task, its chunks handed to Scan tasks). A gzip
// stream of a plain file keeps the file's name, so the findings are named
// as the file's would be.
func scanFile(t testing.TB, data []byte, chunkSize, workers, buffers int, stream bool) []key {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	content := data
	if stream {
		content = gzipOf(t, data)
	}
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	var found []key
	opts := Options{
		Detector: newFake(), ChunkSize: chunkSize, Workers: workers, Buffers: buffers,
		ScanBinary: true, ArchiveDepth: 1, Archive: archive.Limits{MaxRatio: -1},
	}
	e := newEngine(opts.withDefaults())
	e.s.OnFinding = func(f report.Finding) { found = append(found, keyOf(f)) }
	e.s.OnWarning = func(w Warning) { t.Errorf("warning: %v", w) }
	st, err := e.scanPaths(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(len(data)) {
		t.Errorf("Stats.Bytes = %d, want %d (each byte counted once)", st.Bytes, len(data))
	}
	slices.SortFunc(found, compareKeys)
	return found
}

func TestChunkedScanEqualsWholeBuffer(t *testing.T) {
	sizes := []int{fakeWindow * 2, 100, 129, 250, 1000, 4096, 1 << 16}
	data := plantedData(1, 40_000, sizes)
	want := wholeBuffer("", data)
	if len(want) < 100 {
		t.Fatalf("only %d planted secrets found by the reference", len(want))
	}
	for _, cs := range sizes {
		for _, geo := range []struct {
			name             string
			workers, buffers int
			stream           bool
		}{
			{"1worker", 1, 1, false},
			{"2workers", 2, 8, false},
			{"no-shared-buffers", 2, 0, false},
			{"stream", 1, 0, true},
			{"stream-2workers", 2, 8, true},
		} {
			t.Run(geo.name+"/"+itoa(cs), func(t *testing.T) {
				got := scanFile(t, data, cs, geo.workers, geo.buffers, geo.stream)
				for i := range got {
					got[i].File = ""
				}
				if !slices.Equal(got, want) {
					t.Fatalf("chunk size %d: %d findings, whole buffer %d\n%s", cs, len(got), len(want), diffKeys(got, want))
				}
			})
		}
	}
}

// TestChunkBoundaryExactMultiple covers files whose size is a multiple of
// the chunk size, where the end is only seen by a read that returns
// nothing, and a secret that ends exactly at the end of the file.
func TestChunkBoundaryExactMultiple(t *testing.T) {
	cs := 200
	for _, n := range []int{cs, 2 * cs, 3 * cs} {
		data := []byte(strings.Repeat("x", n))
		s := secret(n)
		copy(data[n-len(s):], s)
		copy(data[n/2:], secret(1))
		want := wholeBuffer("", data)
		for _, stream := range []bool{false, true} {
			got := scanFile(t, data, cs, 2, 2, stream)
			for i := range got {
				got[i].File = ""
			}
			if !slices.Equal(got, want) {
				t.Errorf("size %d stream=%v:\n%s", n, stream, diffKeys(got, want))
			}
		}
	}
}

// FuzzChunkedEqualsWhole checks the chunk geometry on arbitrary bytes:
// scanning in chunks of any size at or above the overlap, with the object's
// size known (a file) or not (a stream), reports exactly what one scan of
// the whole buffer reports, at the same lines and columns. It drives the
// same code the Fetch chain runs (geometry.next, scanChunk) in memory, so
// that an execution takes microseconds; TestChunkedScanEqualsWholeBuffer
// covers the same property through the executor and real files.
func FuzzChunkedEqualsWhole(f *testing.F) {
	for i, cs := range []int{96, 97, 200, 1024} {
		f.Add(plantedData(uint64(i), 3000, []int{cs}), uint16(cs), uint8(i))
	}
	f.Add([]byte("SECRET_0123456789abcdef0123456789abcdef0123456789"), uint16(96), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, mode uint8) {
		if len(data) > 1<<16 {
			return
		}
		want := wholeBuffer("", data)
		size := int64(-1)
		if mode&1 == 1 {
			size = int64(len(data))
		}
		got := scanInMemory(t, data, int(chunk), size)
		if !slices.Equal(got, want) {
			t.Fatalf("chunk %d size %d:\n%s", chunk, size, diffKeys(got, want))
		}
	})
}

// scanInMemory scans data as one object of the given size (negative:
// unknown) through streamChunks, inline, on a worker state of its own.
func scanInMemory(t testing.TB, data []byte, chunkSize int, size int64) []key {
	t.Helper()
	var found []key
	e := newEngine(Options{Detector: newFake(), ChunkSize: chunkSize, ScanBinary: true, Workers: 1}.withDefaults())
	e.s.OnFinding = func(f report.Finding) { found = append(found, keyOf(f)) }
	ws := e.newWorker(0)
	if err := e.streamChunks(nil, ws, newObject(""), bytes.NewReader(data), size); err != nil {
		t.Fatal(err)
	}
	if ws.c.bytesScanned != int64(len(data)) {
		t.Errorf("scanned %d bytes, want %d (each byte counted once)", ws.c.bytesScanned, len(data))
	}
	slices.SortFunc(found, compareKeys)
	return found
}

func diffKeys(got, want []key) string {
	var b strings.Builder
	for _, k := range got {
		if !slices.Contains(want, k) {
			b.WriteString("  extra:   " + keyString(k) + "\n")
		}
	}
	for _, k := range want {
		if !slices.Contains(got, k) {
			b.WriteString("  missing: " + keyString(k) + "\n")
		}
	}
	if b.Len() == 0 {
		b.WriteString("  same set, different multiplicity (duplicates)\n")
	}
	return b.String()
}

func keyString(k key) string {
	return k.File + ":" + itoa(k.Line) + ":" + itoa(k.Column) + "-" + itoa(k.EndLine) + ":" + itoa(k.EndColumn) + " " + k.Secret
}

func itoa(n int) string { return strconv.Itoa(n) }
