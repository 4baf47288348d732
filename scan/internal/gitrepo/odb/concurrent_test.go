package odb

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// TestConcurrentReadsAgree reads every object from many goroutines at
// once, each in its own random order, through a cache small enough to
// evict all the time; run it with -race. Every read must match git's, and
// no goroutine may be left behind.
func TestConcurrentReadsAgree(t *testing.T) {
	defer goleak.VerifyNone(t)
	commits, files, lines := historySize()
	dir := newRepo(t, true)
	fastImport(t, dir, commits, files, lines)
	git(t, dir, nil, "gc", "-q", "--aggressive")
	want := catFileAll(t, dir)
	ids := make([]ID, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	for _, budget := range []int64{64 << 10, DefaultCacheBytes} {
		db, err := openRepo(dir, Options{CacheBytes: budget})
		if err != nil {
			t.Fatal(err)
		}
		// Half the goroutines list the pack (which marks delta bases)
		// while the others read.
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for g := range 8 {
			wg.Go(func() {
				if g%2 == 1 {
					for _, p := range db.Packs() {
						for _, err := range p.Entries() {
							if err != nil {
								errs <- err.Error()
								return
							}
						}
					}
				}
				order := rand.New(rand.NewPCG(uint64(g), 1)).Perm(len(ids))
				var buf []byte
				for _, i := range order {
					id := ids[i]
					typ, data, err := db.Read(id, buf)
					if err != nil || typ.String() != want[id].typ || !bytes.Equal(data, want[id].data) {
						errs <- id.String() + ": read differs"
						return
					}
					buf = data
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		if used := db.Stats().CacheBytes; used > budget {
			t.Errorf("cache holds %d bytes, budget %d", used, budget)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.Read(ids[0], nil); err != ErrClosed {
			t.Fatalf("Read after Close: %v", err)
		}
	}
}

// TestCacheEvictsWithinBudget fills the cache far past its budget from
// several goroutines and checks the accounting.
func TestCacheEvictsWithinBudget(t *testing.T) {
	const budget = 1 << 16
	c := newBaseCache(budget)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				k := cacheKey{uint32(g), int64(i)}
				c.put(k, TypeBlob, make([]byte, 100+i%900))
				if _, data, ok := c.get(k); ok && len(data) != 100+i%900 {
					t.Errorf("get %v: %d bytes", k, len(data))
				}
			}
		})
	}
	wg.Wait()
	var held int64
	for i := range c.shards {
		for _, e := range c.shards[i].m {
			held += int64(len(e.data)) + entryOverhead
		}
	}
	if held != c.used.Load() || held > budget {
		t.Fatalf("cache holds %d bytes, counts %d, budget %d", held, c.used.Load(), budget)
	}
	if c.fits(budget / 2) {
		t.Fatal("an object of half the budget would be cached")
	}
}
