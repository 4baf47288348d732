package odb

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Options tunes a DB. The zero value is the default.
type Options struct {
	// CacheBytes is the delta-base cache budget in bytes: 0 means
	// DefaultCacheBytes, a negative value no cache.
	CacheBytes int64
}

// DB reads the objects of one repository: its packs, its loose objects and
// those of its alternates. All methods are safe for concurrent use; Close
// must come after the last of them has returned.
type DB struct {
	layout   repoLayout
	packs    []*Pack
	cache    *baseCache
	warnings []error
	scratch  sync.Pool // *scratch
	mru      atomic.Uint32
	closed   atomic.Bool
}

// scratch is one goroutine's working memory for a read, from DB.scratch:
// the inflater, the pack window and the delta chain being resolved.
type scratch struct {
	inf   *inflater
	win   []byte // the entry being read
	arena []byte // the delta entries of the chain being walked
	chain []link
	refs  []cacheKey // ref-delta targets met on the chain (loop check)
	delta []byte     // a delta's inflated data
	tmp   [2][]byte  // results of uncached intermediate deltas
}

// maxScratch is the largest buffer a scratch keeps between reads; a
// larger one (a big object's) is dropped so idle pools stay small.
const maxScratch = 4 << 20

// Open opens the object database of the repository at path: a bare
// repository, a .git directory, a .git file that points elsewhere
// ("gitdir: ..."), or a work tree holding one of those. It fails with
// ErrNotRepository if there is none and ErrUnsupported for SHA-256
// repositories. Damage found while opening (an unreadable pack index,
// a pack without its header, a missing alternate) does not fail Open: the
// rest is readable and Warnings lists it.
//
// The environment (GIT_DIR, GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_
// DIRECTORIES) is not consulted. A multi-pack-index is not read: git keeps
// every pack's own index beside it, and those are what Open reads.
func Open(path string, opt Options) (*DB, error) {
	l, err := locate(path)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(l.commonDir); err != nil {
		return nil, fmt.Errorf("odb: %s: %w", l.gitDir, err)
	}
	db := &DB{layout: l}
	var w []error
	l.objDirs, w = objectDirs(filepath.Join(l.commonDir, "objects"))
	db.warnings = append(db.warnings, w...)
	db.layout = l
	db.packs, w = openPacks(l.objDirs)
	db.warnings = append(db.warnings, w...)
	for _, p := range db.packs {
		p.db = db
	}
	budget := opt.CacheBytes
	if budget == 0 {
		budget = DefaultCacheBytes
	}
	db.cache = newBaseCache(max(budget, 0))
	db.scratch.New = func() any { return &scratch{inf: newInflater()} }
	return db, nil
}

// GitDir returns the repository's git directory (for a linked work tree,
// its own, not the common one).
func (db *DB) GitDir() string { return db.layout.gitDir }

// Warnings lists what Open found damaged or unreadable. The objects behind
// a warning read as ErrNotFound or ErrCorrupt.
func (db *DB) Warnings() []error { return db.warnings }

// Close releases the files and mappings. Reads after Close fail with
// ErrClosed; reads still running when Close is called are not allowed.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	var errs []error
	for _, p := range db.packs {
		errs = append(errs, p.close())
	}
	return errors.Join(errs...)
}

// Stats counts the delta-base cache's use since Open.
type Stats struct {
	CacheHits   int64 // lookups that found the object
	CacheMisses int64 // lookups that did not (every read of an object looks once)
	CacheBytes  int64 // bytes held now, with the per-entry overhead
}

// Stats returns the counters.
func (db *DB) Stats() Stats {
	return Stats{
		CacheHits:   db.cache.hits.Load(),
		CacheMisses: db.cache.misses.Load(),
		CacheBytes:  db.cache.used.Load(),
	}
}

func (db *DB) getScratch() *scratch { return db.scratch.Get().(*scratch) }

func (db *DB) putScratch(s *scratch) {
	if cap(s.win) > maxScratch {
		s.win = nil
	}
	if cap(s.delta) > maxScratch {
		s.delta = nil
	}
	if cap(s.arena) > maxScratch {
		s.arena = nil
	}
	for i := range s.tmp {
		if cap(s.tmp[i]) > maxScratch {
			s.tmp[i] = nil
		}
	}
	clear(s.chain) // drop references to packs' bytes
	s.chain = s.chain[:0]
	s.refs = s.refs[:0]
	db.scratch.Put(s)
}

// find returns the pack and index position holding id, trying the pack of
// the last hit first (objects read together tend to share a pack).
func (db *DB) find(id *ID) (*Pack, int, bool) {
	first := db.mru.Load()
	if int(first) < len(db.packs) {
		if pos, ok := db.packs[first].idx.find(id); ok {
			return db.packs[first], pos, true
		}
	}
	for i, p := range db.packs {
		if uint32(i) == first {
			continue
		}
		if pos, ok := p.idx.find(id); ok {
			db.mru.Store(uint32(i))
			return p, pos, true
		}
	}
	return nil, 0, false
}

// Has reports whether the database holds id (packed or loose). It does
// not check that the object can be read.
func (db *DB) Has(id ID) bool {
	if _, _, ok := db.find(&id); ok {
		return true
	}
	return db.looseExists(id)
}

// Read returns the object's type and content. The content is written to
// buf, which is grown if too small; pass nil to allocate. The result does
// not alias any cache, so the caller may keep or change it.
func (db *DB) Read(id ID, buf []byte) (Type, []byte, error) {
	if db.closed.Load() {
		return 0, nil, ErrClosed
	}
	s := db.getScratch()
	defer db.putScratch(s)
	return db.read(s, id, buf)
}

// read is Read with the scratch given. Nothing in s is assumed: what a
// read leaves there is only room for the next (see TestReadsIgnoreScratchContents).
func (db *DB) read(s *scratch, id ID, buf []byte) (Type, []byte, error) {
	if p, pos, ok := db.find(&id); ok {
		t, data, err := db.readPacked(s, p, p.idx.offset(pos), buf, p.isBase(pos))
		if err != nil {
			return 0, nil, &CorruptError{ID: id, Path: p.path, Offset: p.idx.offset(pos), Err: err}
		}
		return t, data, nil
	}
	return db.readLoose(s, id, buf)
}

// Header returns an object's type and size without inflating its content:
// a packed object's entry header (for a delta, the first bytes of the
// delta data, and the headers down its chain for the type), a loose
// object's first inflated bytes.
func (db *DB) Header(id ID) (Type, int64, error) {
	if db.closed.Load() {
		return 0, 0, ErrClosed
	}
	s := db.getScratch()
	defer db.putScratch(s)
	return db.header(s, id)
}

// header is Header with the scratch given.
func (db *DB) header(s *scratch, id ID) (Type, int64, error) {
	if p, pos, ok := db.find(&id); ok {
		t, size, err := db.headerPacked(s, p, p.idx.offset(pos))
		if err != nil {
			return 0, 0, &CorruptError{ID: id, Path: p.path, Offset: p.idx.offset(pos), Err: err}
		}
		return t, size, nil
	}
	return db.headerLoose(s, id)
}
