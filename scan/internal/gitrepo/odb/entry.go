package odb

import (
	"errors"
	"fmt"
)

// A pack entry starts with a header:
//
//	1ttt ssss  1sss ssss ...  0sss ssss   type t, size s (little-endian groups, 4 bits then 7)
//	OFS_DELTA (6): then the base's distance back, big-endian groups of 7
//	               bits, each continuation adding one (so no encoding is
//	               redundant)
//	REF_DELTA (7): then the base's id (20 bytes, or 32 in a SHA-256
//	               repository)
//
// and then a zlib stream of size bytes: the object, or for a delta the
// delta data. maxEntryHeader bounds the header: 10 bytes of size, 10 of
// OFS_DELTA distance or up to 32 of REF_DELTA id.
const maxEntryHeader = 10 + MaxIDSize

var (
	errEntryHeader = errors.New("bad pack entry header")
	// errShortHeader: the bytes given end inside the header.
	errShortHeader = fmt.Errorf("%w: truncated", errEntryHeader)
)

// entryHeader is a decoded pack entry header.
type entryHeader struct {
	typ     Type  // Commit..Tag, ofsDelta or refDelta
	size    int64 // the inflated size of the entry's data
	hdrLen  int   // header bytes; the zlib stream starts at off+hdrLen
	baseOff int64 // ofsDelta: the base entry's offset
	baseID  ID    // refDelta: the base object's id
}

// parseEntryHeader decodes the header of the entry at pack offset off from
// b, which holds the pack's bytes from off on (possibly fewer than the
// whole entry); a REF_DELTA's base id is hs bytes long.
func parseEntryHeader(b []byte, off int64, hs int) (entryHeader, error) {
	var h entryHeader
	if len(b) == 0 {
		return h, errShortHeader
	}
	c := b[0]
	h.typ = Type(c>>4) & 7
	size := uint64(c & 0x0f)
	i := 1
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if i >= len(b) {
			return h, errShortHeader
		}
		if shift > 57 {
			return h, fmt.Errorf("%w: size overflows", errEntryHeader)
		}
		c = b[i]
		i++
		size |= uint64(c&0x7f) << shift
	}
	if size > 1<<62 {
		return h, fmt.Errorf("%w: size overflows", errEntryHeader)
	}
	h.size = int64(size)
	switch h.typ {
	case TypeCommit, TypeTree, TypeBlob, TypeTag:
	case ofsDelta:
		if i >= len(b) {
			return h, errShortHeader
		}
		c = b[i]
		i++
		dist := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) {
				return h, errShortHeader
			}
			if dist >= 1<<55 {
				return h, fmt.Errorf("%w: base distance overflows", errEntryHeader)
			}
			c = b[i]
			i++
			dist = (dist+1)<<7 | uint64(c&0x7f)
		}
		if dist == 0 || int64(dist) > off-packHeaderLen {
			return h, fmt.Errorf("%w: base distance %d from offset %d", errEntryHeader, dist, off)
		}
		h.baseOff = off - int64(dist)
	case refDelta:
		if len(b)-i < hs {
			return h, errShortHeader
		}
		copy(h.baseID[:hs], b[i:])
		i += hs
	default:
		return h, fmt.Errorf("%w: type %d", errEntryHeader, h.typ)
	}
	h.hdrLen = i
	return h, nil
}
