package odb

import (
	"fmt"
	"iter"
)

// Entry is one entry of a pack as Entries lists it.
type Entry struct {
	ID     ID
	Offset int64 // where the entry starts in the pack
	// Type is the object's type; for a delta, the type of the whole object
	// at the bottom of its chain.
	Type Type
	// Size is the entry's inflated size: the object's size, or for a
	// delta the size of its delta data (the object's size is then in
	// the delta's header; see DB.Delta).
	Size int64
	// Delta says the entry is a delta of the object Base.
	Delta bool
	Base  ID
	// BaseOffset is the offset of Base's entry in this pack, or -1 when
	// the entry is not a delta or its base lies in another pack or loose.
	// An OFS_DELTA's base always precedes it; a REF_DELTA's base (in
	// packs kept from a fetch) may come later.
	BaseOffset int64
}

// seqReadSize is the buffer of Entries' sequential pass over a pack.
const seqReadSize = 1 << 20

// Path returns the .pack file's path.
func (p *Pack) Path() string { return p.path }

// Len returns the number of objects in the pack.
func (p *Pack) Len() int { return p.idx.n }

// Entries lists the pack's entries in offset order: the order in which
// reading the pack is sequential, and in which every OFS_DELTA comes after
// its base. It reads the entry headers only (in large sequential reads),
// no object data.
//
// A damaged entry is yielded with a *CorruptError (and whatever of the
// Entry could be decoded); the listing goes on with the next. Once the
// listing has run to its end, the pack knows which entries are delta
// bases, and reads keep those in the delta-base cache when they are read
// themselves, so that a pass in offset order inflates each object once.
func (p *Pack) Entries() iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		corrupt := func(id ID, off int64, err error) *CorruptError {
			return &CorruptError{ID: id, Path: p.path, Offset: off, Err: err}
		}
		if p.broken != nil {
			yield(Entry{}, corrupt(ID{}, -1, p.broken))
			return
		}
		rev, err := p.reverse()
		if err != nil {
			yield(Entry{}, corrupt(ID{}, -1, err))
			return
		}
		var (
			n     = p.idx.n
			types = make([]Type, n) // by rank; 0 while unknown
			bases = make([]uint64, (n+63)/64)
			buf   []byte
			bufAt int64 = -1
			s           = p.db.getScratch()
		)
		defer p.db.putScratch(s)
		for rank, pos32 := range rev.order {
			pos := int(pos32)
			off := p.idx.offset(pos)
			e := Entry{ID: p.idx.name(pos), Offset: off, BaseOffset: -1}
			if off >= p.end {
				if !yield(e, corrupt(e.ID, off, fmt.Errorf("entry offset beyond the pack's %d bytes of entries", p.end))) {
					return
				}
				continue
			}
			// Keep the header's bytes in buf, refilling it sequentially.
			if bufAt < 0 || off+maxEntryHeader > bufAt+int64(len(buf)) {
				m := min(int64(seqReadSize), p.end-off)
				buf = grow(buf, int(m))
				if err := p.readAt(buf, off); err != nil {
					if !yield(e, corrupt(e.ID, off, err)) {
						return
					}
					bufAt = -1
					continue
				}
				bufAt = off
			}
			h, err := parseEntryHeader(buf[off-bufAt:], off, p.idx.hs)
			if err != nil {
				if !yield(e, corrupt(e.ID, off, err)) {
					return
				}
				continue
			}
			e.Size = h.size
			switch h.typ {
			case ofsDelta:
				e.Delta, e.BaseOffset = true, h.baseOff
				br, ok := rev.rank(h.baseOff)
				if !ok {
					err = fmt.Errorf("no entry at base offset %d", h.baseOff)
					break
				}
				bpos := int(rev.order[br])
				e.Base, e.Type = p.idx.name(bpos), types[br]
				bases[bpos>>6] |= 1 << (bpos & 63)
			case refDelta:
				e.Delta, e.Base = true, h.baseID
				if bpos, ok := p.idx.find(&h.baseID); ok {
					e.BaseOffset = p.idx.offset(bpos)
					bases[bpos>>6] |= 1 << (bpos & 63)
					if br, ok := rev.rank(e.BaseOffset); ok && br < rank {
						e.Type = types[br]
						break
					}
				}
				e.Type, err = p.db.chainType(s, p, stored{off: off, h: h})
			default:
				e.Type = h.typ
			}
			if err == nil && e.Type == 0 {
				err = fmt.Errorf("delta base %s is damaged", e.Base)
			}
			if err != nil {
				if !yield(e, corrupt(e.ID, off, err)) {
					return
				}
				continue
			}
			types[rank] = e.Type
			if !yield(e, nil) {
				return
			}
		}
		p.bases.Store(&bases)
	}
}
