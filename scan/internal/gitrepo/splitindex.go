// This file reads a split index (git update-index --split-index, or
// core.splitIndex): the index file holds only the entries changed since
// a shared index, sharedindex.<id> beside it, and a "link" extension
// that says how the two make one:
//
//	link: <id of the shared index> [<delete bitmap> <replace bitmap>]
//
// Both bitmaps are EWAH-compressed (git's ewah/ewah_io.c): a 32-bit bit
// count, a 32-bit word count, that many 64-bit words and a 32-bit
// position of the last run-length word, all big-endian. The words are a
// run-length word (bit 0: the bit a run repeats; bits 1-32: the run's
// length in 64-bit words; bits 33-63: how many literal words follow)
// and its literal words, in turn. A set bit n of the replace bitmap
// means that the n-th entry of the shared index is replaced by the next
// of the front index's nameless entries (taken in order, each keeping
// the shared entry's path); a set bit of the delete bitmap removes the
// shared entry. The front index's named entries are then added, a path
// and stage already present taking the new entry, as git's
// merge_base_index does.

package gitrepo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// splitLink is a decoded link extension.
type splitLink struct {
	base             []byte // the shared index's id (its trailing hash)
	deleted, replace []uint32
	hasBitmaps       bool
}

// findExtension returns the body of the extension sig, if the index has
// it, checking every extension's length.
func findExtension(ext []byte, sig string) ([]byte, bool, error) {
	for len(ext) >= 8 {
		s, size := string(ext[:4]), binary.BigEndian.Uint32(ext[4:8])
		if uint64(size) > uint64(len(ext)-8) {
			return nil, false, fmt.Errorf("%w: extension %q truncated", ErrFormat, s)
		}
		if s == sig {
			return ext[8 : 8+size], true, nil
		}
		ext = ext[8+size:]
	}
	return nil, false, nil
}

// parseLink decodes a link extension's body; the bit positions of each
// bitmap are returned in increasing order, each below limit (the shared
// index's entry count), so that a hostile bitmap costs at most one step
// per word and per entry.
func parseLink(b []byte, hashSize int, limit uint32) (*splitLink, error) {
	if len(b) < hashSize {
		return nil, fmt.Errorf("%w: link extension too short", ErrFormat)
	}
	l := &splitLink{base: b[:hashSize]}
	b = b[hashSize:]
	if len(b) == 0 {
		return l, nil
	}
	l.hasBitmaps = true
	var err error
	var n int
	if l.deleted, n, err = ewahBits(b, limit); err != nil {
		return nil, fmt.Errorf("%w: link extension's delete bitmap: %w", ErrFormat, err)
	}
	b = b[n:]
	if l.replace, n, err = ewahBits(b, limit); err != nil {
		return nil, fmt.Errorf("%w: link extension's replace bitmap: %w", ErrFormat, err)
	}
	if n != len(b) {
		return nil, fmt.Errorf("%w: %d bytes after the link extension's bitmaps", ErrFormat, len(b)-n)
	}
	return l, nil
}

// ewahBits decodes one EWAH bitmap at the start of b and returns its set
// bits and its length in bytes. A set bit at limit or beyond is an
// error: it would name an entry the shared index does not have.
func ewahBits(b []byte, limit uint32) ([]uint32, int, error) {
	if len(b) < 8 {
		return nil, 0, errors.New("truncated header")
	}
	words := uint64(binary.BigEndian.Uint32(b[4:]))
	size := 8 + 8*words + 4
	if uint64(len(b)) < size {
		return nil, 0, fmt.Errorf("%d words claimed in %d bytes", words, len(b)-8)
	}
	if rlw := uint64(binary.BigEndian.Uint32(b[8+8*words:])); words > 0 && rlw >= words {
		return nil, 0, fmt.Errorf("last run-length word %d of %d", rlw, words)
	}
	var bits []uint32
	word := func(i uint64) uint64 { return binary.BigEndian.Uint64(b[8+8*i:]) }
	pos := uint64(0)
	set := func(p uint64) error {
		if p >= uint64(limit) {
			return fmt.Errorf("bit %d: the shared index has %d entries", p, limit)
		}
		bits = append(bits, uint32(p))
		return nil
	}
	for i := uint64(0); i < words; {
		rlw := word(i)
		i++
		run := (rlw >> 1) & (1<<32 - 1) * 64
		if rlw&1 != 0 {
			for k := uint64(0); k < run; k++ {
				if err := set(pos + k); err != nil {
					return nil, 0, err
				}
			}
		}
		pos += run
		lits := rlw >> 33
		if lits > words-i {
			return nil, 0, fmt.Errorf("%d literal words claimed, %d left", lits, words-i)
		}
		for ; lits > 0; lits-- {
			w := word(i)
			i++
			for w != 0 {
				c := uint64(bitsTrailing(w))
				if err := set(pos + c); err != nil {
					return nil, 0, err
				}
				w &= w - 1
			}
			pos += 64
		}
	}
	return bits, int(size), nil
}

// bitsTrailing is the number of trailing zero bits of a non-zero w.
func bitsTrailing(w uint64) int {
	n := 0
	for w&1 == 0 {
		w >>= 1
		n++
	}
	return n
}

// sharedIndexPath finds the shared index named id: in the git directory,
// else beside the index file (git's own order).
func sharedIndexPath(gitDir, indexPath, id string) string {
	name := "sharedindex." + id
	if gitDir != "" {
		p := filepath.Join(gitDir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join(filepath.Dir(indexPath), name)
}

// mergeSplit makes one index of a split index's front entries and its
// shared index's, as git's merge_base_index does. front's first entries
// are the nameless replacements, one per bit of the replace bitmap.
func mergeSplit(base, front []Entry, l *splitLink) ([]Entry, error) {
	ents := make([]Entry, len(base), len(base)+len(front))
	copy(ents, base)
	if len(l.replace) > len(front) {
		return nil, fmt.Errorf("%w: split index: %d replacements, %d entries", ErrFormat, len(l.replace), len(front))
	}
	for i, pos := range l.replace {
		src := front[i]
		if src.Path != "" {
			return nil, fmt.Errorf("%w: split index: replacement %d has a path (%q)", ErrFormat, i, src.Path)
		}
		src.Path = ents[pos].Path
		ents[pos] = src
	}
	gone := make(map[uint32]bool, len(l.deleted))
	for _, pos := range l.deleted {
		gone[pos] = true
	}
	for _, pos := range l.replace {
		if gone[pos] {
			return nil, fmt.Errorf("%w: split index: entry %d both replaced and deleted", ErrFormat, pos)
		}
	}
	if len(gone) > 0 {
		kept := ents[:0]
		for i, e := range ents {
			if !gone[uint32(i)] {
				kept = append(kept, e)
			}
		}
		ents = kept
	}
	added := front[len(l.replace):]
	for i, e := range added {
		if e.Path == "" {
			return nil, fmt.Errorf("%w: split index: entry %d has no path", ErrFormat, len(l.replace)+i)
		}
	}
	// Both lists are in index order (path, then stage): merge them, an
	// added entry taking the place of a shared one of the same path and
	// stage.
	out := make([]Entry, 0, len(ents)+len(added))
	i, j := 0, 0
	for i < len(ents) || j < len(added) {
		switch {
		case j == len(added):
			out = append(out, ents[i])
			i++
		case i == len(ents):
			out = append(out, added[j])
			j++
		default:
			switch c := compareEntries(&ents[i], &added[j]); {
			case c < 0:
				out = append(out, ents[i])
				i++
			case c > 0:
				out = append(out, added[j])
				j++
			default:
				out = append(out, added[j])
				i++
				j++
			}
		}
	}
	return out, nil
}

// compareEntries orders index entries as git does: by path bytes, then
// stage.
func compareEntries(a, b *Entry) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return a.Stage - b.Stage
}

// readSplit resolves the link extension of the index at path, if it has
// one: the entries of front merged with those of its shared index. An
// index without the extension, or whose link names no shared index (all
// zeros), is front as it is.
func readSplit(path, gitDir string, front []Entry, ext []byte, hashSize int) ([]Entry, error) {
	body, ok, err := findExtension(ext, "link")
	if err != nil || !ok {
		return front, err
	}
	if len(body) < hashSize {
		return nil, fmt.Errorf("%w: link extension too short", ErrFormat)
	}
	if bytes.Count(body[:hashSize], []byte{0}) == hashSize {
		return front, nil
	}
	id := fmt.Sprintf("%x", body[:hashSize])
	sharedPath := sharedIndexPath(gitDir, path, id)
	data, err := readLimited(sharedPath, maxSize)
	if err != nil {
		return nil, fmt.Errorf("%w: split index: shared index %s: %v", ErrFormat, filepath.Base(sharedPath), err)
	}
	if len(data) < hashSize || !bytes.Equal(data[len(data)-hashSize:], body[:hashSize]) {
		return nil, fmt.Errorf("%w: split index: %s does not end with its own id", ErrFormat, filepath.Base(sharedPath))
	}
	base, baseExt, err := parse(data, hashSize)
	if err != nil {
		return nil, fmt.Errorf("split index: shared index %s: %w", filepath.Base(sharedPath), err)
	}
	if _, nested, _ := findExtension(baseExt, "link"); nested {
		return nil, fmt.Errorf("%w: split index: the shared index %s is split itself", ErrFormat, filepath.Base(sharedPath))
	}
	l, err := parseLink(body, hashSize, uint32(len(base)))
	if err != nil {
		return nil, err
	}
	return mergeSplit(base, front, l)
}
