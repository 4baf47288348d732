package git

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spindle-go/spindle/scan/internal/gitrepo/odb"
)

// This file lets a re-scan of all that some tips reach (every ref, or
// plain revisions such as HEAD: no range, exclusion, filter or limit; see
// selection.reachOnly) skip the walk of what it has seen. A store keeps,
// next to its segments, the record of the last such scan's selection:
// the commits its walk started from (the tips), how many commits they
// reach, the segments that hold exactly those commits, and those of them
// the store does not hold (scanned again each time: a commit a warning
// concerned, or one with findings in a store that keeps none). A commit's
// history is a function of its id, so the record describes the same set
// of commits in any repository.
//
// The next such scan walks from its tips as usual, but stops at
// every commit the record's selection holds: what it walks is exactly
// what the new tips reach and the old ones do not. When every old tip is
// reached (a tip still, or met by the walk), the new selection is the old
// one plus the commits walked, and the scan scans only those; otherwise
// (a force push, a deleted branch) it walks the whole history as a scan
// without a record does. With nothing new, a re-scan reads the refs, the
// store and the commits that have findings, and nothing else.
//
// A record is written, by renaming a complete file into place, after the
// segments it names; it is only used when every segment it names is
// there, so a scan killed between the two, a merge of the segments by
// another scan, or two scans writing at once cost the next scan its
// shortcut and never its findings. The record is checked like a segment
// (magic, format, id length, settings key, checksum); one that does not
// check out is a warning and a whole walk.

// recordName is the record's file in a store's directory; recordMagic
// begins it and recordVersion is its format's version.
const (
	recordName    = "selection"
	recordMagic   = "SPNDLSL\n"
	recordVersion = 1
)

// maxRecord bounds the size of a record read: its tips (one per ref) and
// the commits to scan again dominate it.
const maxRecord = 256 << 20

// selRecord is the selection of a scan of what some tips reach, as a
// store records it.
type selRecord struct {
	commits uint64   // how many commits the tips reach
	tips    []odb.ID // the walk's starting commits, sorted, each once
	segs    []string // the segments that hold the stored ones, sorted
	rescan  []odb.ID // the selection's commits the store does not hold, sorted
}

// encodeRecord encodes r:
//
//	magic "SPNDLSL\n", version (1 byte), id length (1 byte), the settings key (32 bytes)
//	commits (uvarint), tips (uvarint), segments (uvarint), commits to scan again (uvarint)
//	the tips' ids; each segment's name (uvarint length, bytes); the ids to scan again
//	SHA-256 of everything before it
func encodeRecord(key [32]byte, idLen int, r *selRecord) []byte {
	out := append([]byte(recordMagic), recordVersion, byte(idLen))
	out = append(out, key[:]...)
	for _, n := range []int{int(r.commits), len(r.tips), len(r.segs), len(r.rescan)} {
		out = binary.AppendUvarint(out, uint64(n))
	}
	for _, id := range r.tips {
		out = append(out, id[:idLen]...)
	}
	for _, s := range r.segs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	for _, id := range r.rescan {
		out = append(out, id[:idLen]...)
	}
	sum := sha256.Sum256(out)
	return append(out, sum[:]...)
}

// decodeRecord checks and decodes a record. It allocates in proportion to
// what it reads.
func decodeRecord(data []byte, key [32]byte, idLen int) (*selRecord, error) {
	head := len(recordMagic) + 2 + 32
	if len(data) < head+sha256.Size || string(data[:len(recordMagic)]) != recordMagic {
		return nil, ErrStoreDamaged
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, ErrStoreDamaged
	}
	p := body[len(recordMagic):]
	if p[0] != recordVersion {
		return nil, fmt.Errorf("%w (version %d, this one reads %d)", errStoreFormat, p[0], recordVersion)
	}
	if int(p[1]) != idLen || !bytes.Equal(p[2:34], key[:]) {
		return nil, errStoreForeign
	}
	d := decoder{b: p[34:]}
	r := &selRecord{commits: d.uvarint()}
	nTips, nSegs, nRescan := d.uvarint(), d.uvarint(), d.uvarint()
	if d.err != nil || nTips > uint64(len(d.b)/idLen) || nRescan > uint64(len(d.b)/idLen) || nSegs > uint64(len(d.b)) {
		return nil, ErrStoreDamaged
	}
	readIDs := func(n uint64) []odb.ID {
		ids := make([]odb.ID, 0, n)
		for range n {
			var id odb.ID
			copy(id[:], d.bytes(idLen))
			ids = append(ids, id)
		}
		return ids
	}
	r.tips = readIDs(nTips)
	for range nSegs {
		name := d.str()
		if d.err == nil && !isSegmentName(name) {
			d.err = ErrStoreDamaged
		}
		r.segs = append(r.segs, name)
	}
	r.rescan = readIDs(nRescan)
	if d.err != nil || len(d.b) != 0 || !sortedIDs(r.tips) || !sortedIDs(r.rescan) || !slices.IsSorted(r.segs) {
		return nil, ErrStoreDamaged
	}
	return r, nil
}

// isSegmentName says whether name could be a segment's: a plain file
// name ending in segmentExt.
func isSegmentName(name string) bool {
	return strings.HasSuffix(name, segmentExt) && !strings.HasPrefix(name, tmpPrefix) &&
		filepath.Base(name) == name && !strings.ContainsAny(name, `/\`) && name != segmentExt
}

// sortedIDs says whether ids are in increasing order, each once.
func sortedIDs(ids []odb.ID) bool {
	for i := 1; i < len(ids); i++ {
		if bytes.Compare(ids[i-1][:], ids[i][:]) >= 0 {
			return false
		}
	}
	return true
}

// sortIDs sorts ids and drops repeats.
func sortIDs(ids []odb.ID) []odb.ID {
	slices.SortFunc(ids, func(a, b odb.ID) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(ids)
}

// readRecord reads the store's record: nil when there is none.
func (s *store) readRecord() (*selRecord, error) {
	f, err := os.Open(filepath.Join(s.dir, recordName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxRecord {
		return nil, fmt.Errorf("%s: not a record", f.Name())
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, err
	}
	r, err := decodeRecord(data, s.key, s.idLen)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return r, nil
}

// writeRecord replaces the store's record by r.
func (s *store) writeRecord(r *selRecord) error {
	return writeFileAtomic(s.dir, recordName, encodeRecord(s.key, s.idLen, r))
}

// reach is the set of commits a record's selection holds.
type reach struct {
	idLen  int
	clean  [][]byte // the named segments' sorted clean ids
	found  map[odb.ID]bool
	rescan map[odb.ID]bool
}

// reachOf returns the commits r's selection holds, as the segments read
// hold them; false when a segment r names was not read (merged away,
// written by a scan killed before its record, never there).
func (s *store) reachOf(r *selRecord) (*reach, bool) {
	m := &reach{idLen: s.idLen, found: map[odb.ID]bool{}, rescan: make(map[odb.ID]bool, len(r.rescan))}
	for _, name := range r.segs {
		seg, ok := s.bySeg[name]
		if !ok {
			return nil, false
		}
		if len(seg.clean) > 0 {
			m.clean = append(m.clean, seg.clean)
		}
		for _, id := range seg.found {
			m.found[id] = true
		}
	}
	for _, id := range r.rescan {
		m.rescan[id] = true
	}
	return m, true
}

// has says whether the selection holds commit id.
func (m *reach) has(id odb.ID) bool {
	if m.found[id] || m.rescan[id] {
		return true
	}
	for _, ids := range m.clean {
		if containsID(ids, id[:m.idLen]) {
			return true
		}
	}
	return false
}

// containsID says whether the sorted ids (each n = len(id) bytes) hold id.
func containsID(ids, id []byte) bool {
	n := len(id)
	count := len(ids) / n
	lo, hi := 0, count
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(ids[m*n:m*n+n], id) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < count && bytes.Equal(ids[lo*n:lo*n+n], id)
}

// headsFile, in a cache directory, remembers the root commit of the
// HEADs scanned last (see rootOf); maxHeads bounds it.
const (
	headsFile = "heads"
	maxHeads  = 64
)

// head is one remembered HEAD and its root; n is their ids' length.
type head struct {
	head, root odb.ID
	n          int
}

// readHeads reads the remembered roots, newest first. What cannot be
// parsed is ignored: the file only saves a walk.
func readHeads(dir string) []head {
	data, err := os.ReadFile(filepath.Join(dir, headsFile))
	if err != nil || len(data) > maxHeads*(2*2*odb.SHA256Size+2) {
		return nil
	}
	var out []head
	for _, line := range strings.Split(string(data), "\n") {
		h, r, ok := strings.Cut(line, " ")
		if !ok || len(h) != len(r) {
			continue
		}
		hb, err1 := hex.DecodeString(h)
		rb, err2 := hex.DecodeString(r)
		if err1 != nil || err2 != nil || (len(hb) != odb.SHA1Size && len(hb) != odb.SHA256Size) {
			continue
		}
		e := head{n: len(hb)}
		copy(e.head[:], hb)
		copy(e.root[:], rb)
		out = append(out, e)
	}
	return out
}

// rememberHead records that h's first parents lead to root, in front of
// the others remembered; an error costs only the memory.
func rememberHead(dir string, idLen int, h, root odb.ID) {
	old := readHeads(dir)
	if len(old) > 0 && old[0] == (head{h, root, idLen}) {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%x %x\n", h[:idLen], root[:idLen])
	n := 1
	for _, e := range old {
		if e.head == h || n == maxHeads {
			continue
		}
		fmt.Fprintf(&b, "%x %x\n", e.head[:e.n], e.root[:e.n])
		n++
	}
	if os.MkdirAll(dir, 0o700) == nil {
		writeFileAtomic(dir, headsFile, []byte(b.String()))
	}
}
