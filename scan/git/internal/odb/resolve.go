package odb

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// Resolving a delta: the entry asked for is the top of a chain of deltas
// that ends at a whole object (or at a base found in the cache). The
// chain is walked down header by header, iteratively, so its depth costs
// a slice, not stack; then the whole base is inflated and each delta is
// inflated and applied going back up. Every intermediate result is a
// delta base, so it goes into the cache: the next object of the same
// chain stops its walk there.
//
// An OFS_DELTA's base lies at a smaller offset of the same pack (the
// header parser enforces it), so walking OFS links always ends. A
// REF_DELTA names its base by id, which may be anywhere, so a damaged
// pack could make a loop; the walk remembers the REF targets it has
// followed and stops at the first one met twice.

// link is one delta of a chain: the entry and its decoded header.
type link struct {
	p   *Pack
	off int64
	h   entryHeader
}

// errLoop: a chain of REF_DELTA entries leads back to itself.
var errLoop = errors.New("delta chain loops")

// readPacked returns the object stored at off in p, its content in dst.
// keep says the object is known to be a delta base: it is then cached.
func (db *DB) readPacked(s *scratch, p *Pack, off int64, dst []byte, keep bool) (Type, []byte, error) {
	key := cacheKey{p.num, off}
	if t, data, ok := db.cache.get(key); ok {
		return t, append(dst[:0], data...), nil
	}
	n := int64(firstRead)
	if r := p.known(); r != nil {
		if rank, ok := r.rank(off); ok {
			n = min(r.end(rank, p.end+IDSize)-off, bigEntry)
		}
	}
	h, err := p.window(s, off, n)
	if err != nil {
		return 0, nil, err
	}
	if h.typ < ofsDelta {
		out, err := p.inflate(s, off, h, dst)
		if err != nil {
			return 0, nil, err
		}
		if keep && db.cache.fits(h.size) {
			db.cache.put(key, h.typ, slices.Clone(out))
		}
		return h.typ, out, nil
	}

	chain := append(s.chain[:0], link{p, off, h})
	s.refs = s.refs[:0]
	var (
		typ  Type
		base []byte
		tmp  = 0 // the s.tmp slot the next uncached result goes to
	)
	for {
		top := chain[len(chain)-1]
		bp, boff, found, err := db.baseOf(s, top)
		if err != nil {
			s.chain = chain
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
		bh, err := bp.header(s, boff)
		if err != nil {
			s.chain = chain
			return 0, nil, fmt.Errorf("delta base at offset %d of %s: %w", boff, bp.path, err)
		}
		if bh.typ < ofsDelta {
			var buf []byte
			if !db.cache.fits(bh.size) {
				buf, tmp = s.tmp[0], 1
			}
			data, err := bp.inflate(s, boff, bh, buf)
			if err != nil {
				s.chain = chain
				return 0, nil, fmt.Errorf("delta base at offset %d of %s: %w", boff, bp.path, err)
			}
			if buf == nil {
				db.cache.put(bkey, bh.typ, data)
			} else {
				s.tmp[0] = data
			}
			typ, base = bh.typ, data
			break
		}
		chain = append(chain, link{bp, boff, bh})
	}
	s.chain = chain

	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		if s.delta, err = l.p.inflate(s, l.off, l.h, s.delta); err != nil {
			return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.off, l.p.path, err)
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
		_, size, _, err := deltaSizes(s.delta)
		if err != nil {
			return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.off, l.p.path, err)
		}
		cached := db.cache.fits(size)
		var buf []byte
		if !cached {
			buf = s.tmp[tmp]
		}
		out, err := ApplyDelta(base, s.delta, buf)
		if err != nil {
			return 0, nil, fmt.Errorf("delta at offset %d of %s: %w", l.off, l.p.path, err)
		}
		if cached {
			db.cache.put(cacheKey{l.p.num, l.off}, typ, out)
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

// baseOf finds where the base of the delta l is stored: a pack entry, or
// (for a REF_DELTA whose base is loose) the base itself, read.
func (db *DB) baseOf(s *scratch, l link) (*Pack, int64, looseBase, error) {
	if l.h.typ == ofsDelta {
		return l.p, l.h.baseOff, looseBase{}, nil
	}
	q, pos, ok := db.find(&l.h.baseID)
	if !ok {
		t, data, err := db.readLoose(s, l.h.baseID, nil)
		if err != nil {
			return nil, 0, looseBase{}, fmt.Errorf("base %s of the delta at offset %d of %s: %w", l.h.baseID, l.off, l.p.path, err)
		}
		return nil, 0, looseBase{t, data}, nil
	}
	off := q.idx.offset(pos)
	k := cacheKey{q.num, off}
	if slices.Contains(s.refs, k) {
		return nil, 0, looseBase{}, fmt.Errorf("%w at base %s", errLoop, l.h.baseID)
	}
	s.refs = append(s.refs, k)
	return q, off, looseBase{}, nil
}

// headerPacked returns the type and size of the object stored at off in p
// without inflating it: for a delta, the size comes from the first bytes
// of its delta data and the type from the bottom of its chain.
func (db *DB) headerPacked(s *scratch, p *Pack, off int64) (Type, int64, error) {
	h, err := p.window(s, off, firstRead)
	if err != nil {
		return 0, 0, err
	}
	if h.typ < ofsDelta {
		return h.typ, h.size, nil
	}
	_, size, err := p.deltaHeader(s, off, h)
	if err != nil {
		return 0, 0, err
	}
	t, err := db.chainType(s, link{p, off, h})
	return t, size, err
}

// chainType returns the type of the object that the delta l builds: the
// type of the whole object at the bottom of its chain, found by reading
// headers only (or from the cache, when an object of the chain is there).
func (db *DB) chainType(s *scratch, l link) (Type, error) {
	s.refs = s.refs[:0]
	for {
		if t, _, ok := db.cache.get(cacheKey{l.p.num, l.off}); ok {
			return t, nil
		}
		bp, boff, found, err := db.baseOf(s, l)
		if err != nil {
			return 0, err
		}
		if bp == nil {
			return found.typ, nil
		}
		bh, err := bp.header(s, boff)
		if err != nil {
			return 0, fmt.Errorf("delta base at offset %d of %s: %w", boff, bp.path, err)
		}
		if bh.typ < ofsDelta {
			return bh.typ, nil
		}
		l = link{bp, boff, bh}
	}
}

// deltaHeader inflates just the start of the delta data of the entry at
// off (header h, window in s.win) and returns the two sizes it declares.
func (p *Pack) deltaHeader(s *scratch, off int64, h entryHeader) (baseSize, size int64, err error) {
	var prefix [2 * 10]byte
	var n int
	if s.winOff == off && len(s.win) > h.hdrLen {
		n, err = s.inf.prefix(s.win[h.hdrLen:], prefix[:])
	}
	if s.winOff != off || len(s.win) <= h.hdrLen || err == io.ErrUnexpectedEOF {
		start := off + int64(h.hdrLen)
		n, err = s.inf.prefixReader(io.NewSectionReader(p.f, start, p.end-start), prefix[:])
	}
	if err != nil {
		return 0, 0, err
	}
	baseSize, size, _, err = deltaSizes(prefix[:n])
	return baseSize, size, err
}
