package odb

import (
	"sync"
	"sync/atomic"
)

// DefaultCacheBytes is the delta-base cache's default budget. A delta is
// rebuilt from its base; without a cache every object at depth d of a
// chain costs d inflations. git's own cache (core.deltaBaseCacheLimit)
// defaults to 96 MiB; here the whole history scan must stay under
// 256 MiB, and 32 MiB already holds the bases that the reads of a pack in
// offset order need (see doc.go for the hit rates measured).
const DefaultCacheBytes = 32 << 20

// cacheShards splits the cache so that goroutines reading different
// objects rarely meet on one lock. A power of two.
const cacheShards = 16

// entryOverhead is what one cached object costs beyond its bytes (the
// entry, its map slot); counted against the budget so that many tiny
// bases cannot outgrow it.
const entryOverhead = 96

// cacheKey names a pack entry: the pack's number in the DB and the
// entry's offset. Loose objects are never delta bases in a pack that git
// wrote, so they are not cached.
type cacheKey struct {
	pack uint32
	off  int64
}

type cacheEntry struct {
	key        cacheKey
	typ        Type
	data       []byte
	prev, next *cacheEntry
}

// cacheShard is an LRU list under one mutex. head is a sentinel: head.next
// is the most recently used entry, head.prev the least.
type cacheShard struct {
	mu   sync.Mutex
	m    map[cacheKey]*cacheEntry
	head cacheEntry
	_    [40]byte // keep neighbouring shards' locks off one cache line
}

// baseCache holds inflated objects that are delta bases, under a byte
// budget shared by all shards. Cached data is immutable: callers copy it
// out and never write to it. Safe for concurrent use.
type baseCache struct {
	shards [cacheShards]cacheShard
	budget int64
	used   atomic.Int64 // bytes held, overhead included
	evict  atomic.Uint32
	hits   atomic.Int64
	misses atomic.Int64
}

func newBaseCache(budget int64) *baseCache {
	c := &baseCache{budget: budget}
	for i := range c.shards {
		s := &c.shards[i]
		s.m = make(map[cacheKey]*cacheEntry)
		s.head.next, s.head.prev = &s.head, &s.head
	}
	return c
}

func (c *baseCache) shard(k cacheKey) *cacheShard {
	h := uint64(k.off)*0x9e3779b97f4a7c15 + uint64(k.pack)
	return &c.shards[h>>(64-4)]
}

// fits reports whether an object of n bytes would be cached.
func (c *baseCache) fits(n int64) bool { return n+entryOverhead <= c.budget/4 }

// get returns the cached object at k and marks it recently used.
func (c *baseCache) get(k cacheKey) (Type, []byte, bool) {
	if c.budget <= 0 {
		return 0, nil, false
	}
	s := c.shard(k)
	s.mu.Lock()
	e, ok := s.m[k]
	if ok {
		s.unlink(e)
		s.pushFront(e)
	}
	s.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		return 0, nil, false
	}
	c.hits.Add(1)
	return e.typ, e.data, true
}

// put caches data (which the cache now owns) under k, then evicts least
// recently used entries until the budget holds. An object larger than a quarter of the
// budget is not cached: it would flush everything else.
func (c *baseCache) put(k cacheKey, typ Type, data []byte) {
	if !c.fits(int64(len(data))) {
		return
	}
	cost := int64(len(data)) + entryOverhead
	s := c.shard(k)
	s.mu.Lock()
	if _, ok := s.m[k]; ok {
		s.mu.Unlock()
		return
	}
	e := &cacheEntry{key: k, typ: typ, data: data}
	s.m[k] = e
	s.pushFront(e)
	s.mu.Unlock()
	if c.used.Add(cost) <= c.budget {
		return
	}
	// Over budget: take the least recently used entry of each shard in
	// turn (an approximation of one global LRU list) until the budget
	// holds, sparing the entry just added. Each shard is locked alone,
	// so put never holds two locks.
	start := c.evict.Add(1)
	for c.used.Load() > c.budget {
		evicted := false
		for i := range uint32(cacheShards) {
			if c.used.Load() <= c.budget {
				break
			}
			v := &c.shards[(start+i)%cacheShards]
			v.mu.Lock()
			if old := v.head.prev; old != &v.head && old != e {
				v.unlink(old)
				delete(v.m, old.key)
				c.used.Add(-(int64(len(old.data)) + entryOverhead))
				evicted = true
			}
			v.mu.Unlock()
		}
		if !evicted {
			return
		}
	}
}

func (s *cacheShard) unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (s *cacheShard) pushFront(e *cacheEntry) {
	e.prev, e.next = &s.head, s.head.next
	s.head.next.prev = e
	s.head.next = e
}
