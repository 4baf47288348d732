package odb

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// bigDeltaImport commits versions versions of one binary file of size
// bytes, each replacing a different region of region bytes with new
// random bytes. Random bytes do not compress, so once repacked every
// delta between neighbouring versions is stored in about region bytes:
// with region over linkHold, a chain whose links the resolver cannot keep
// from its walk and must read again on the way back up.
func bigDeltaImport(tb testing.TB, dir string, versions, size, region int) {
	tb.Helper()
	rng := rand.NewChaCha8([32]byte{'o', 'd', 'b'})
	content := make([]byte, size)
	_, _ = rng.Read(content)
	var b bytes.Buffer
	for v := range versions {
		at := (v * region) % (size - region)
		_, _ = rng.Read(content[at : at+region])
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\n", v+1)
		fmt.Fprintf(&b, "committer C O Mitter <committer@example.com> %d +0000\ndata 0\n", 1600000000+v)
		if v > 0 {
			fmt.Fprintf(&b, "from :%d\n", v)
		}
		fmt.Fprintf(&b, "M 100644 inline big.bin\ndata %d\n", len(content))
		b.Write(content)
		b.WriteByte('\n')
	}
	git(tb, dir, b.Bytes(), "fast-import", "--quiet")
}

// bigDeltaRepo is a repository made by bigDeltaImport, repacked into
// chains, with objects whose chain holds a link over linkHold stored
// below the top (the layout that once broke reads; checked here, so a
// git that packs differently fails the test instead of weakening it).
func bigDeltaRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t, true)
	bigDeltaImport(t, dir, 16, 256<<10, 96<<10)
	git(t, dir, nil, "-c", "pack.threads=1", "repack", "-adfq", "--depth=50", "--window=20")
	db, err := openRepo(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	for _, p := range db.Packs() {
		for e, err := range p.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			if e.Delta && bigLinkBelow(t, p, e.Offset) {
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no delta has a link over linkHold below it")
	}
	return dir
}

// bigLinkBelow reports whether a delta entry below the one at off, in
// its chain, is stored in more than linkHold bytes.
func bigLinkBelow(t *testing.T, p *Pack, off int64) bool {
	e, _, err := p.load(off, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for e.h.typ == ofsDelta {
		if e, _, err = p.load(e.h.baseOff, nil, 0); err != nil {
			t.Fatal(err)
		}
		if e.h.typ >= ofsDelta && e.end-e.off > linkHold {
			return true
		}
	}
	return false
}

// soil gives every buffer of s room for maxScratch bytes, all junk: the
// state a goroutine's scratch can be in after it has read large objects.
// The buffers are handed over empty, so what a read leaves in their
// length is what it wrote, and only that is soiled again.
func soil(s *scratch) {
	for _, b := range []*[]byte{&s.win, &s.arena, &s.delta, &s.tmp[0], &s.tmp[1]} {
		if cap(*b) < maxScratch {
			*b = make([]byte, maxScratch)
		}
		for i := range *b {
			(*b)[i] = 0xa5
		}
		*b = (*b)[:0]
	}
}

// TestReadsIgnoreScratchContents reads every object with a scratch whose
// buffers are large and full of junk, soiled again before each read, at
// several cache budgets: a read must not depend on what its goroutine
// read before, nor on which bases another read left in the cache. (A
// resolver once read a delta link into the window holding the top delta,
// which broke reads only when the pooled window was already large.)
func TestReadsIgnoreScratchContents(t *testing.T) {
	commits, files, lines := historySize()
	repos := map[string]func(t *testing.T) string{
		"deltas over linkHold": bigDeltaRepo,
		"gc --aggressive": func(t *testing.T) string {
			dir := newRepo(t, true)
			fastImport(t, dir, commits, files, lines)
			git(t, dir, nil, "gc", "-q", "--aggressive")
			return dir
		},
	}
	for name, build := range repos {
		t.Run(name, func(t *testing.T) {
			dir := build(t)
			want := catFileAll(t, dir)
			for _, budget := range []int64{-1, 64 << 10, DefaultCacheBytes} {
				db, err := openRepo(dir, Options{CacheBytes: budget})
				if err != nil {
					t.Fatal(err)
				}
				s := &scratch{inf: newInflater()}
				for id, o := range want {
					soil(s)
					typ, data, err := db.read(s, id, nil)
					if err != nil || typ.String() != o.typ || !bytes.Equal(data, o.data) {
						t.Fatalf("budget %d: Read %s: %s of %d bytes (%v), git says %s of %d", budget, id, typ, len(data), err, o.typ, len(o.data))
					}
					soil(s)
					ht, hs, err := db.header(s, id)
					if err != nil || ht != typ || hs != int64(len(o.data)) {
						t.Fatalf("budget %d: Header %s: %s %d (%v), git says %s %d", budget, id, ht, hs, err, o.typ, len(o.data))
					}
				}
				_ = db.Close()
			}
		})
	}
}

// TestConcurrentReadsOfLargeDeltas reads the objects of a repository of
// delta chains whose links are over linkHold from several goroutines,
// each in its own random order, at cache budgets from none to the
// default; run it with -race. Each goroutine reads into the buffer it was
// last given back, as the scanner's workers do.
func TestConcurrentReadsOfLargeDeltas(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := bigDeltaRepo(t)
	want := catFileAll(t, dir)
	ids := make([]ID, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	for _, budget := range []int64{-1, 512 << 10, DefaultCacheBytes} {
		db, err := openRepo(dir, Options{CacheBytes: budget})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var bad atomic.Int64
		for g := range 4 {
			wg.Go(func() {
				var buf []byte
				for _, i := range rand.New(rand.NewPCG(uint64(g), 2)).Perm(len(ids)) {
					id := ids[i]
					typ, data, err := db.Read(id, buf)
					if err != nil || typ.String() != want[id].typ || !bytes.Equal(data, want[id].data) {
						if bad.Add(1) <= 5 {
							t.Errorf("budget %d: Read %s: %s of %d bytes (%v), git says %s of %d", budget, id, typ, len(data), err, want[id].typ, len(want[id].data))
						}
						continue
					}
					buf = data
				}
			})
		}
		wg.Wait()
		_ = db.Close()
	}
}

// stressRepo is the large history TestConcurrentReadsOfLargeHistory reads:
// $ODB_STRESS_REPO, else a synthetic history of 20,000 commits (one
// 539 MiB pack, 87,014 blobs, 2.5 GB of them) where the window bug was
// seen.
func stressRepo() string {
	if d := os.Getenv("ODB_STRESS_REPO"); d != "" {
		return d
	}
	return "/work/repos/synth.git"
}

// TestConcurrentReadsOfLargeHistory reads every blob of a large history
// twice from several goroutines, and checks each against its id: the
// SHA-1 of its header and content, an oracle that needs no other reader,
// so gigabytes are checked in the time a hash takes. The first pass lists
// the packs and then takes batches in pack order, as a history scan's
// workers do (bases cached as they are met); the second, on a fresh DB,
// goes in random order, so chains are walked from cold and goroutines
// meet in the cache at random. Skipped with -short or when the repository
// is not there; GOMAXPROCS goroutines unless $ODB_STRESS_WORKERS says.
// About 30 s on a loaded 2-core machine, 7 min with -race.
func TestConcurrentReadsOfLargeHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a large history")
	}
	dir := stressRepo()
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no repository at", dir, "(set ODB_STRESS_REPO)")
	}
	workers := runtime.GOMAXPROCS(0)
	if n, err := strconv.Atoi(os.Getenv("ODB_STRESS_WORKERS")); err == nil && n > 0 {
		workers = n
	}
	var ids []ID
	for _, pass := range []string{"pack order", "random order"} {
		db, err := openRepo(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ids == nil {
			for _, p := range db.Packs() {
				for e, err := range p.Entries() {
					if err != nil {
						t.Fatal(err)
					}
					if e.Type == TypeBlob {
						ids = append(ids, e.ID)
					}
				}
			}
		} else {
			ids = slices.Clone(ids)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		}
		start := time.Now()
		n, bad := readAndHash(t, db, ids, workers)
		st := db.Stats()
		t.Logf("%s: %d blobs, %.1f MB, %d goroutines, %v; cache hits %d, misses %d; peak RSS so far %s",
			pass, len(ids), float64(n)/1e6, workers, time.Since(start).Round(time.Millisecond),
			st.CacheHits, st.CacheMisses, peakRSS())
		_ = db.Close()
		if bad > 0 {
			t.Fatalf("%s: %d of %d blobs read wrong", pass, bad, len(ids))
		}
	}
}

// readAndHash reads ids from workers goroutines taking batches in turn,
// checks every object against its id, and returns the bytes read and the
// number of objects read wrong (the first few are reported).
func readAndHash(t *testing.T, db *DB, ids []ID, workers int) (n, bad int64) {
	const batch = 64
	var (
		next, bytesRead, wrong atomic.Int64
		wg                     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			var buf []byte
			h := sha1.New()
			for {
				i := int(next.Add(batch)) - batch
				if i >= len(ids) {
					return
				}
				for _, id := range ids[i:min(i+batch, len(ids))] {
					typ, data, err := db.Read(id, buf)
					if err == nil {
						h.Reset()
						fmt.Fprintf(h, "%s %d\x00", typ, len(data))
						h.Write(data)
						if ID(h.Sum(nil)) != id {
							err = fmt.Errorf("%s of %d bytes hashes to %x", typ, len(data), h.Sum(nil))
						}
					}
					if err != nil {
						if wrong.Add(1) <= 5 {
							t.Errorf("Read %s: %v", id, err)
						}
						continue
					}
					bytesRead.Add(int64(len(data)))
					buf = data
				}
			}
		})
	}
	wg.Wait()
	return bytesRead.Load(), wrong.Load()
}

// peakRSS returns the process's peak resident set as the kernel reports
// it (VmHWM), where there is one to read.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			return string(bytes.TrimSpace(v))
		}
	}
	return "unknown"
}
