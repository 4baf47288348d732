package odb

import "fmt"

// deltaOf reports how id is stored. For an object stored as a delta it
// returns the id of the delta's base and the parsed delta (its inserts'
// Data are the caller's to keep); for one stored whole (or loose), a nil
// Delta. The base's id of an OFS_DELTA is found through the pack's reverse
// index, built on first use.
//
// This is what a scanner needs to look only at what a delta adds: the
// result is the base with the inserts spliced in, so a match that lies
// wholly in copied bytes was already in the base.
func (db *DB) deltaOf(id ID) (ID, *Delta, error) {
	if db.closed.Load() {
		return ID{}, nil, ErrClosed
	}
	p, pos, ok := db.find(&id)
	if !ok {
		if db.looseExists(id) {
			return ID{}, nil, nil
		}
		return ID{}, nil, &NotFoundError{ID: id}
	}
	off := p.idx.offset(pos)
	s := db.getScratch()
	defer db.putScratch(s)
	base, d, err := p.delta(s, off)
	if err != nil {
		return ID{}, nil, &CorruptError{ID: id, Path: p.path, Offset: off, Err: err}
	}
	return base, d, nil
}

// delta decodes the entry at off as a delta, if it is one.
func (p *Pack) delta(s *scratch, off int64) (ID, *Delta, error) {
	e, win, err := p.load(off, s.win[:0], bigEntry)
	s.win = win
	if err != nil {
		return ID{}, nil, err
	}
	h := e.h
	var base ID
	switch h.typ {
	case ofsDelta:
		rev, err := p.reverse()
		if err != nil {
			return ID{}, nil, err
		}
		rank, ok := rev.rank(h.baseOff)
		if !ok {
			return ID{}, nil, fmt.Errorf("no entry at base offset %d", h.baseOff)
		}
		base = p.idx.name(int(rev.order[rank]))
	case refDelta:
		base = h.baseID
	default:
		return ID{}, nil, nil
	}
	data, err := p.inflate(s, &e, nil)
	if err != nil {
		return ID{}, nil, err
	}
	d, err := ParseDelta(data)
	if err != nil {
		return ID{}, nil, err
	}
	return base, d, nil
}
