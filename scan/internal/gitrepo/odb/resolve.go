package odb

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// Resolving a delta: the entry asked for is the top of a chain of deltas
// that ends at a whole object (or at a base found in the cache). The
// chain is walked down entry by entry, iteratively, so its depth costs a
// slice, not stack; then the whole base is inflated and each delta is
// inflated and applied going back up. Every intermediate result is a
// delta base, so it goes into the cache: the next object of the same
// chain stops its walk there.
//
// The walk reads each delta entry whole (one pread; they are small) into
// the scratch's arena, so going back up costs no more reads; an entry too
// large for the arena is read again when its turn comes.
//
// An OFS_DELTA's base lies at a smaller offset of the same pack (the
// header parser enforces it), so walking OFS links always ends. A
// REF_DELTA names its base by id, which may be anywhere, so a damaged
// pack could make a loop; the walk remembers the REF targets it has
// followed and stops at the first one met twice.

// Arena limits: a delta entry up to linkHold bytes is kept from the walk,
// up to arenaHold bytes for the whole chain.
const (
	linkHold  = 64 << 10
	arenaHold = 1 << 20
)

// link is one delta of a chain: its pack and the entry.
type link struct {
	p *Pack
	e stored
}

// errLoop: a chain of REF_DELTA entries leads back to itself.
var errLoop = errors.New("delta chain loops")

// readPacked returns the object stored at off in p, its content in dst.
// keep says the object is known to be a delta base: it is then cached.
func (db *DB) readPacked(s *scratch, p *Pack, off int64, dst []byte, keep bool) (Type, []byte, error) {
	key := cacheKey{p.num, off}
	if t, data, ok := db.cache.get(key); ok {
		if err := db.checkFinal(s, int64(len(data))); err != nil {
			return 0, nil, err
		}
		return t, append(dst[:0], data...), nil
	}
	e, win, err := p.load(off, s.win[:0], bigEntry)
	s.win = win
	if err != nil {
		return 0, nil, err
	}
	if e.h.typ < ofsDelta {
		if err := db.checkFinal(s, e.h.size); err != nil {
			return 0, nil, err
		}
		out, err := p.inflate(s, &e, dst)
		if err != nil {
			return 0, nil, err
		}
		if keep && db.cache.fits(e.h.size) {
			db.cache.put(key, e.h.typ, slices.Clone(out))
		}
		return e.h.typ, out, nil
	}

	chain := append(s.chain[:0], link{p, e})
	s.refs = s.refs[:0]
	arena := s.arena[:0]
	var (
		typ  Type
		base []byte
		tmp  = 0 // the s.tmp slot the next uncached result goes to
	)
	for {
		top := &chain[len(chain)-1]
		bp, boff, found, err := db.baseOf(s, top.p, &top.e)
		if err != nil {
			s.chain, s.arena = chain, arena
			return 0, nil, err
		}
		if bp == nil { // a loose base
			typ, base = found.typ, found.data
			break
		}
		bkey := cacheKey{bp.num, boff}
		if t, data, ok := db.cache.get(bkey); ok {
			typ, base = t, data
			break
		}
		hold := int64(0)
		if len(arena) < arenaHold {
			hold = linkHold
		}
		be, grown, err := bp.load(boff, arena, hold)
		arena = grown
		if err != nil {
			s.chain, s.arena = chain, arena
			return 0, nil, fmt.Errorf("delta base at offset %d of %s: %w", boff, bp.path, err)
		}
		if be.h.typ < ofsDelta {
			if err := db.checkSize(be.h.size); err != nil {
				s.chain, s.arena = chain, arena
				return 0, nil, err
			}
			var buf []byte
			if !db.cache.fits(be.h.size) {
				buf, tmp = s.tmp[0], 1
			}
			data, err := bp.inflate(s, &be, buf)
			if err != nil {
				s.chain, s.arena = chain, arena
				return 0, nil, fmt.Errorf("delta base at offset %d of %s: %w", boff, bp.path, err)
			}
			if buf == nil {
				db.cache.put(bkey, be.h.typ, data)
			} else {
				s.tmp[0] = data
			}
			typ, base = be.h.typ, data
			break
		}
		chain = append(chain, link{bp, be})
	}
	s.chain, s.arena = chain, arena

	// A link that the walk could not keep is read again when its turn
	// comes, into the arena past the links it holds; the next such link
	// reuses that tail, the previous one being inflated by then. Not into
	// s.win: s.win holds chain[0]'s bytes until the last step. Reading a
	// link there overwrote the top delta in place whenever the pooled
	// window was already large enough, so a delta whose chain held an
	// entry over linkHold read as "bad zlib header" (or worse) depending
	// on what the goroutine had read before and on what the cache held.
	kept := len(arena)
	for i := len(chain) - 1; i >= 0; i-- {
		l := &chain[i]
		if l.e.raw == nil && l.e.end-l.e.off <= bigEntry {
			var grown []byte
			if l.e, grown, err = l.p.load(l.e.off, s.arena[:kept], bigEntry); err != nil {
				return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.e.off, l.p.path, err)
			}
			s.arena = grown
		}
		if s.delta, err = l.p.inflate(s, &l.e, s.delta); err != nil {
			return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.e.off, l.p.path, err)
		}
		_, size, _, err := deltaSizes(s.delta)
		if err != nil {
			return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.e.off, l.p.path, err)
		}
		check := db.checkSize
		if i == 0 {
			check = func(n int64) error { return db.checkFinal(s, n) }
		}
		if err := check(size); err != nil {
			return 0, nil, err
		}
		if i == 0 {
			out, err := ApplyDelta(base, s.delta, dst)
			if err != nil {
				return 0, nil, err
			}
			if keep && db.cache.fits(int64(len(out))) {
				db.cache.put(key, typ, slices.Clone(out))
			}
			return typ, out, nil
		}
		cached := db.cache.fits(size)
		var buf []byte
		if !cached {
			buf = s.tmp[tmp]
		}
		out, err := ApplyDelta(base, s.delta, buf)
		if err != nil {
			return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.e.off, l.p.path, err)
		}
		if cached {
			db.cache.put(cacheKey{l.p.num, l.e.off}, typ, out)
		} else {
			s.tmp[tmp] = out
			tmp ^= 1
		}
		base = out
	}
	panic("unreachable")
}

// looseBase is a delta base read from a loose object.
type looseBase struct {
	typ  Type
	data []byte
}

// baseOf finds where the base of the delta entry e of p is stored: a pack
// entry, or (for a REF_DELTA whose base is loose) the base itself, read.
func (db *DB) baseOf(s *scratch, p *Pack, e *stored) (*Pack, int64, looseBase, error) {
	if e.h.typ == ofsDelta {
		return p, e.h.baseOff, looseBase{}, nil
	}
	q, pos, ok := db.find(&e.h.baseID)
	if !ok {
		t, data, err := db.readLoose(s, e.h.baseID, nil)
		if err != nil {
			return nil, 0, looseBase{}, fmt.Errorf("base %s of the delta at offset %d of %s: %w", e.h.baseID, e.off, p.path, err)
		}
		return nil, 0, looseBase{t, data}, nil
	}
	off := q.idx.offset(pos)
	k := cacheKey{q.num, off}
	if slices.Contains(s.refs, k) {
		return nil, 0, looseBase{}, fmt.Errorf("%w at base %s", errLoop, e.h.baseID)
	}
	s.refs = append(s.refs, k)
	return q, off, looseBase{}, nil
}

// headerPacked returns the type and size of the object stored at off in p
// without inflating it: for a delta, the size comes from the first bytes
// of its delta data and the type from the bottom of its chain.
func (db *DB) headerPacked(s *scratch, p *Pack, off int64) (Type, int64, error) {
	e, win, err := p.load(off, s.win[:0], linkHold)
	s.win = win
	if err != nil {
		return 0, 0, err
	}
	if e.h.typ < ofsDelta {
		return e.h.typ, e.h.size, nil
	}
	_, size, err := p.deltaHeader(s, &e)
	if err != nil {
		return 0, 0, err
	}
	t, err := db.chainType(s, p, e)
	return t, size, err
}

// chainType returns the type of the object that the delta entry e of p
// builds: the type of the whole object at the bottom of its chain, found
// by reading headers only (or from the cache, when an object of the chain
// is there).
func (db *DB) chainType(s *scratch, p *Pack, e stored) (Type, error) {
	s.refs = s.refs[:0]
	for {
		if t, _, ok := db.cache.get(cacheKey{p.num, e.off}); ok {
			return t, nil
		}
		bp, boff, found, err := db.baseOf(s, p, &e)
		if err != nil {
			return 0, err
		}
		if bp == nil {
			return found.typ, nil
		}
		be, _, err := bp.load(boff, nil, 0)
		if err != nil {
			return 0, fmt.Errorf("delta base at offset %d of %s: %w", boff, bp.path, err)
		}
		if be.h.typ < ofsDelta {
			return be.h.typ, nil
		}
		p, e = bp, be
	}
}

// deltaHeader inflates just the start of the delta data of the entry e
// and returns the two sizes it declares.
func (p *Pack) deltaHeader(s *scratch, e *stored) (baseSize, size int64, err error) {
	var prefix [2 * 10]byte
	var n int
	if e.raw != nil {
		n, err = s.inf.prefix(e.raw[e.h.hdrLen:], prefix[:])
	} else {
		start := e.off + int64(e.h.hdrLen)
		n, err = s.inf.prefixReader(io.NewSectionReader(p.f, start, e.end-start), prefix[:])
	}
	if err != nil {
		return 0, 0, err
	}
	baseSize, size, _, err = deltaSizes(prefix[:n])
	return baseSize, size, err
}
