package odb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Options tunes a DB. The zero value is the default.
type Options struct {
	// CacheBytes is the delta-base cache budget in bytes: 0 means
	// DefaultCacheBytes, a negative value no cache.
	CacheBytes int64
	// Alternates are more objects directories to read, beyond those the
	// primary one names in info/alternates: what git takes from
	// GIT_ALTERNATE_OBJECT_DIRECTORIES (a push's quarantine, for one).
	Alternates []string
	// MaxObject is the largest object, in bytes, that Read builds in
	// memory; a larger one is an *TooLargeError (ErrTooLarge) before
	// anything is allocated for it. 0 means DefaultMaxObject. Reader
	// streams whole objects of any size.
	MaxObject int64
	// HashSize is the length of the repository's object ids: SHA1Size
	// (what 0 means) or SHA256Size, as its extensions.objectFormat says.
	// Pack indexes, REF_DELTA bases, loose object names and tree entries
	// are read with it.
	HashSize int
	// MapBytes bounds the pack data the DB maps into memory (see
	// Pack): 0 means DefaultMapBytes, a negative value none.
	MapBytes int64
}

// DefaultMapBytes is the default Options.MapBytes.
const DefaultMapBytes = 64 << 20

// DefaultMaxObject is the default Options.MaxObject: 1 GiB, git's own
// largest diffable file.
const DefaultMaxObject = 1 << 30

// DB reads the objects of one repository: its packs, its loose objects and
// those of its alternates. All methods are safe for concurrent use; Close
// must come after the last of them has returned.
type DB struct {
	dirs      []string // objects directories: the primary, then alternates
	hashSize  int      // SHA1Size or SHA256Size
	maxObject int64
	cache     *baseCache
	warnings  []error
	scratch   sync.Pool // *scratch
	mru       atomic.Uint32
	closed    atomic.Bool

	// packs is what the read path looks through: a slice that only ever
	// grows, replaced whole (copy on write) under rescanMu when a lookup
	// misses and the pack directories hold packs not opened yet. A pack
	// removed from disk stays open and readable through its descriptor.
	packs    atomic.Pointer[[]*Pack]
	rescanMu sync.Mutex
	opened   map[string]bool // pack index paths already tried, under rescanMu
	mapLeft  int64           // what Options.MapBytes leaves to map, under rescanMu
	rescans  atomic.Int64
}

// scratch is one goroutine's working memory for a read, from DB.scratch:
// the inflater, the pack window and the delta chain being resolved.
type scratch struct {
	inf   *inflater
	win   []byte // the entry being read
	base  []byte // the whole object at the bottom of a chain, as stored
	arena []byte // the delta entries of the chain being walked
	chain []link
	refs  []cacheKey // ref-delta targets met on the chain (loop check)
	delta []byte     // a delta's inflated data
	tmp   [2][]byte  // results of uncached intermediate deltas
	limit int64      // ReadLimit's bound on the object read; 0: none
}

// maxScratch is the largest buffer a scratch keeps between reads; a
// larger one (a big object's) is dropped so idle pools stay small.
const maxScratch = 4 << 20

// Open opens the object database whose objects directory is objects (a
// repository's objects/, or what GIT_OBJECT_DIRECTORY names), with the
// alternates it lists and those of opt. Finding the repository is the
// caller's business. It fails with ErrNotRepository if objects is not a
// directory. Damage found while opening (an unreadable pack index, a pack
// without its header, a missing alternate) does not fail Open: the rest
// is readable and Warnings lists it.
//
// A multi-pack-index is not read: git keeps every pack's own index beside
// it, and those are what Open reads.
func Open(objects string, opt Options) (*DB, error) {
	st, err := os.Stat(objects)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s is not an objects directory", ErrNotRepository, objects)
	}
	db := &DB{maxObject: opt.MaxObject, opened: map[string]bool{}, hashSize: opt.HashSize}
	switch db.hashSize {
	case 0:
		db.hashSize = SHA1Size
	case SHA1Size, SHA256Size:
	default:
		return nil, fmt.Errorf("odb: object id length %d: want %d or %d", opt.HashSize, SHA1Size, SHA256Size)
	}
	if db.maxObject <= 0 {
		db.maxObject = DefaultMaxObject
	}
	db.mapLeft = opt.MapBytes
	if db.mapLeft == 0 {
		db.mapLeft = DefaultMapBytes
	}
	db.dirs, db.warnings = objectDirs(objects, opt.Alternates)
	empty := []*Pack{}
	db.packs.Store(&empty)
	db.warnings = append(db.warnings, db.addPacks()...)
	budget := opt.CacheBytes
	if budget == 0 {
		budget = DefaultCacheBytes
	}
	db.cache = newBaseCache(max(budget, 0))
	db.scratch.New = func() any { return &scratch{inf: newInflater()} }
	return db, nil
}

// HashSize returns the length of the repository's object ids:
// SHA1Size or SHA256Size.
func (db *DB) HashSize() int { return db.hashSize }

// addPacks opens the packs of the objects directories not opened yet and
// publishes them; a pack whose index cannot be read is left out with a
// warning (and not tried again). The caller holds rescanMu, or is Open.
func (db *DB) addPacks() (warnings []error) {
	cur := *db.packs.Load()
	next := cur
	for _, idx := range listPacks(db.dirs) {
		if db.opened[idx] {
			continue
		}
		db.opened[idx] = true
		p, err := openPack(idx, uint32(len(next)), db.hashSize)
		if err != nil {
			warnings = append(warnings, fmt.Errorf("odb: pack index %s left out: %w", idx, err))
			continue
		}
		if p.broken != nil {
			warnings = append(warnings, fmt.Errorf("odb: pack %s is damaged; its %d objects cannot be read: %w", p.path, p.idx.n, p.broken))
		}
		p.db = db
		if p.broken == nil && p.size <= db.mapLeft {
			if err := p.mapData(); err == nil && p.data != nil {
				db.mapLeft -= p.size
			}
		}
		if len(next) == len(cur) {
			next = slices.Clone(cur)
		}
		next = append(next, p)
	}
	if len(next) != len(cur) {
		db.packs.Store(&next)
	}
	return warnings
}

// rescan looks for packs that appeared since the last look (a repack or a
// fetch running beside the scan), as git does before it calls an object
// missing. It reports whether any was found. Concurrent misses share one
// look.
func (db *DB) rescan() bool {
	before := len(*db.packs.Load())
	db.rescanMu.Lock()
	defer db.rescanMu.Unlock()
	if len(*db.packs.Load()) != before {
		return true // another goroutine found some meanwhile
	}
	db.rescans.Add(1)
	w := db.addPacks()
	if len(w) > 0 {
		db.warnings = append(db.warnings, w...)
	}
	return len(*db.packs.Load()) != before
}

// Warnings lists what Open found damaged or unreadable. The objects behind
// a warning read as ErrNotFound or ErrCorrupt. Packs found by a later
// rescan add theirs; call it when no read is running.
func (db *DB) Warnings() []error { return db.warnings }

// Close releases the files and mappings. Reads after Close fail with
// ErrClosed; reads still running when Close is called are not allowed.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	var errs []error
	for _, p := range *db.packs.Load() {
		errs = append(errs, p.close())
	}
	return errors.Join(errs...)
}

func (db *DB) getScratch() *scratch { return db.scratch.Get().(*scratch) }

func (db *DB) putScratch(s *scratch) {
	if cap(s.win) > maxScratch {
		s.win = nil
	}
	if cap(s.base) > maxScratch {
		s.base = nil
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
	packs := *db.packs.Load()
	first := db.mru.Load()
	if int(first) < len(packs) {
		if pos, ok := packs[first].idx.find(id); ok {
			return packs[first], pos, true
		}
	}
	for i, p := range packs {
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
// An id found nowhere is looked for again after a rescan of the pack
// directories, in case a repack moved it into a new pack.
func (db *DB) read(s *scratch, id ID, buf []byte) (Type, []byte, error) {
	for try := 0; ; try++ {
		if p, pos, ok := db.find(&id); ok {
			t, data, err := db.readPacked(s, p, p.idx.offset(pos), buf, p.isBase(pos))
			if err != nil {
				return 0, nil, db.entryError(id, p, pos, err)
			}
			return t, data, nil
		}
		t, data, err := db.readLoose(s, id, buf)
		if try == 0 && errors.Is(err, ErrNotFound) && db.rescan() {
			continue
		}
		return t, data, err
	}
}

// entryError wraps the error of reading a pack entry: a size over the
// budget stays a *TooLargeError, anything else is a *CorruptError.
func (db *DB) entryError(id ID, p *Pack, pos int, err error) error {
	var big *TooLargeError
	if errors.As(err, &big) {
		big.ID = id
		return big
	}
	return &CorruptError{ID: id, Path: p.path, Offset: p.idx.offset(pos), Err: err}
}

// ReadLimit is Read for an object of at most limit bytes: a larger one is
// a *TooLargeError that gives its size, before anything is allocated for
// it. A caller that handles large objects differently (streams them,
// takes a lock first) learns the size this way at no extra cost.
func (db *DB) ReadLimit(id ID, buf []byte, limit int64) (Type, []byte, error) {
	if db.closed.Load() {
		return 0, nil, ErrClosed
	}
	s := db.getScratch()
	defer db.putScratch(s)
	s.limit = limit
	defer func() { s.limit = 0 }()
	return db.read(s, id, buf)
}

// checkFinal refuses the object being read if it is larger than the
// budget or the read's own limit.
func (db *DB) checkFinal(s *scratch, size int64) error {
	if s.limit > 0 && size > s.limit && s.limit < db.maxObject {
		return &TooLargeError{Size: size, Limit: s.limit}
	}
	return db.checkSize(size)
}

// checkSize refuses an object larger than the budget before anything is
// allocated for it.
func (db *DB) checkSize(size int64) error {
	if size > db.maxObject {
		return &TooLargeError{Size: size, Limit: db.maxObject}
	}
	return nil
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
	for try := 0; ; try++ {
		if p, pos, ok := db.find(&id); ok {
			t, size, err := db.headerPacked(s, p, p.idx.offset(pos))
			if err != nil {
				return 0, 0, &CorruptError{ID: id, Path: p.path, Offset: p.idx.offset(pos), Err: err}
			}
			return t, size, nil
		}
		t, size, err := db.headerLoose(s, id)
		if try == 0 && errors.Is(err, ErrNotFound) && db.rescan() {
			continue
		}
		return t, size, err
	}
}

// FindPrefix returns the ids of the objects (packed or loose) whose hex
// form starts with prefix (at least 4 hex digits), at most max of them:
// what an abbreviated id may name. More than one is ambiguous.
func (db *DB) FindPrefix(prefix string, max int) ([]ID, error) {
	if len(prefix) < 4 || len(prefix) > 2*db.hashSize {
		return nil, fmt.Errorf("odb: abbreviated id %q: want 4 to %d hex digits", prefix, 2*db.hashSize)
	}
	var p ID
	for i := 0; i < len(prefix); i++ {
		v, ok := unhex(prefix[i])
		if !ok {
			return nil, fmt.Errorf("odb: abbreviated id %q: not hex", prefix)
		}
		if i%2 == 0 {
			p[i/2] = v << 4
		} else {
			p[i/2] |= v
		}
	}
	var out []ID
	seen := map[ID]bool{}
	add := func(ids []ID) {
		for _, id := range ids {
			if !seen[id] && len(out) < max {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	for _, pk := range *db.packs.Load() {
		add(pk.idx.findPrefix(p, len(prefix), nil, max))
	}
	lower := strings.ToLower(prefix)
	for _, d := range db.dirs {
		entries, err := os.ReadDir(filepath.Join(d, lower[:2]))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if name := lower[:2] + e.Name(); len(name) == 2*db.hashSize && strings.HasPrefix(name, lower) {
				if id, err := ParseID(name); err == nil {
					add([]ID{id})
				}
			}
		}
	}
	return out, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// sizeProbe is the largest stored entry Size reads whole.
const sizeProbe = 64 << 10

// Size returns an object's size, as cheaply as the store allows: a packed
// entry's header, a delta's declared result size (its first inflated
// bytes; the chain below it is not walked), a loose object's header. It
// does not check the type; Read does.
func (db *DB) Size(id ID) (int64, error) {
	if db.closed.Load() {
		return 0, ErrClosed
	}
	s := db.getScratch()
	defer db.putScratch(s)
	for try := 0; ; try++ {
		if p, pos, ok := db.find(&id); ok {
			off := p.idx.offset(pos)
			// A small entry is read whole (one pread) and a delta in it
			// inflated by the one-shot decoder: cheaper than starting a
			// streaming one for its first bytes.
			e, win, err := p.load(off, s.win[:0], sizeProbe)
			s.win = win
			if err == nil && e.h.typ >= ofsDelta {
				var size int64
				if e.raw != nil {
					if s.delta, err = p.inflate(s, &e, s.delta); err == nil {
						_, size, _, err = deltaSizes(s.delta)
					}
				} else {
					_, size, err = p.deltaHeader(s, &e)
				}
				if err == nil {
					return size, nil
				}
			}
			if err != nil {
				return 0, &CorruptError{ID: id, Path: p.path, Offset: off, Err: err}
			}
			return e.h.size, nil
		}
		_, size, err := db.headerLoose(s, id)
		if try == 0 && errors.Is(err, ErrNotFound) && db.rescan() {
			continue
		}
		return size, err
	}
}
