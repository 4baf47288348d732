// This file reads refs kept in reftables (extensions.refStorage =
// reftable, git 2.45+; the default of git 3.0), from the format's
// specification (git's Documentation/technical/reftable.txt) and checked
// against tables git 2.47 wrote (testdata/reftable).
//
// A repository's refs are a stack of tables, named oldest first in
// reftable/tables.list; a ref's value is the one in the newest table
// that names it, and a deletion record there hides older values. A table
// is a header ("REFT", version 1 or 2, a 24-bit block size, the update
// index range, and for version 2 the hash function: "sha1" or "s256"),
// then ref blocks, then index, object and log blocks this reader does
// not need, and a footer (the header again, section positions and a
// CRC-32 of the footer). A ref block is 'r', a 24-bit length (from the
// start of the file for the first block, which holds the header), the
// records, a table of 24-bit restart offsets and their 16-bit count. A
// record is
//
//	varint(prefix length) varint(suffix length << 3 | value type) suffix
//	varint(update index delta) value
//
// its name being that many bytes of the previous record's name followed
// by the suffix; the value is nothing (a deletion, type 0), an object id
// (1), an id and the id its tag peels to (2), or a varint length and the
// name of the ref it points to (3, a symbolic ref). A block shorter than
// the block size is padded with zeros to it, unless the byte after it is
// not zero (an unaligned table). Varints are git's: groups of 7 bits,
// most significant first, one added at each continuation.
//
// Every length, prefix and offset is checked against the data: a table
// that does not hold together is an error naming the file and what is
// wrong, never a ref silently left out.

package gitrepo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// errReftable is wrapped by every error about a reftable's content.
var errReftable = errors.New("malformed reftable")

// maxReftable bounds one table file read (as packed-refs is bounded),
// maxTablesList the list of a stack's tables (400,000 names).
const (
	maxReftable   = maxPackedRefs
	maxTablesList = 16 << 20
)

// rtRef is a ref record of a reftable: an id (hex), or a symbolic ref's
// target; deleted marks a deletion record.
type rtRef struct {
	name, id, target string
	deleted          bool
}

// parseReftable returns the ref records of one table, sorted by name as
// the table stores them, with ids hashSize bytes long.
func parseReftable(data []byte, hashSize int) ([]rtRef, error) {
	if len(data) < 24 || string(data[:4]) != "REFT" {
		return nil, fmt.Errorf("%w: no REFT header", errReftable)
	}
	version := data[4]
	headerLen, footerLen := 24, 68
	switch version {
	case 1:
		if hashSize != 20 {
			return nil, fmt.Errorf("%w: version 1 (SHA-1) table in a repository of %d-byte ids", errReftable, hashSize)
		}
	case 2:
		headerLen, footerLen = 28, 72
		if len(data) < headerLen {
			return nil, fmt.Errorf("%w: header truncated", errReftable)
		}
		want := "sha1"
		if hashSize == 32 {
			want = "s256"
		}
		if h := string(data[24:28]); h != want {
			return nil, fmt.Errorf("%w: hash function %q in a repository of %d-byte ids", errReftable, h, hashSize)
		}
	default:
		return nil, fmt.Errorf("%w: version %d", errReftable, version)
	}
	if len(data) < headerLen+footerLen {
		return nil, fmt.Errorf("%w: %d bytes: too short for a header and a footer", errReftable, len(data))
	}
	footerAt := len(data) - footerLen
	footer := data[footerAt:]
	if !bytes.Equal(footer[:headerLen], data[:headerLen]) {
		return nil, fmt.Errorf("%w: footer does not repeat the header", errReftable)
	}
	if crc32.ChecksumIEEE(footer[:footerLen-4]) != binary.BigEndian.Uint32(footer[footerLen-4:]) {
		return nil, fmt.Errorf("%w: footer checksum mismatch", errReftable)
	}
	blockSize := int(data[5])<<16 | int(data[6])<<8 | int(data[7])
	var refs []rtRef
	var prev []byte
	for off := 0; ; {
		start := off
		if off == 0 {
			start = headerLen
		}
		if start >= footerAt || data[start] != 'r' {
			break // the ref blocks end where another kind of block, or the footer, starts
		}
		if footerAt-start < 4 {
			return nil, fmt.Errorf("%w: block at %d truncated", errReftable, off)
		}
		blockLen := int(data[start+1])<<16 | int(data[start+2])<<8 | int(data[start+3])
		end := off + blockLen
		if end > footerAt || end < start+4+2 {
			return nil, fmt.Errorf("%w: ref block at %d: length %d", errReftable, off, blockLen)
		}
		restarts := int(binary.BigEndian.Uint16(data[end-2:]))
		recEnd := end - 2 - 3*restarts
		if restarts == 0 || recEnd < start+4 {
			return nil, fmt.Errorf("%w: ref block at %d: %d restart points", errReftable, off, restarts)
		}
		var err error
		if refs, prev, err = parseRefRecords(data[start+4:recEnd], hashSize, refs, prev); err != nil {
			return nil, fmt.Errorf("%w: ref block at %d: %w", errReftable, off, err)
		}
		next := end
		if blockSize > 0 && end < footerAt && data[end] == 0 {
			next = off + blockSize // padded to the block size
		}
		if next <= off || next > footerAt {
			break
		}
		off = next
	}
	return refs, nil
}

// parseRefRecords appends the records of one ref block's record area to
// refs; prev is the name of the record before (names are sorted, across
// blocks too).
func parseRefRecords(b []byte, hashSize int, refs []rtRef, prev []byte) ([]rtRef, []byte, error) {
	for len(b) > 0 {
		plen, n := varint(b)
		if n <= 0 || plen > uint64(len(prev)) {
			return refs, prev, fmt.Errorf("record after %q: bad prefix length", prev)
		}
		b = b[n:]
		st, n := varint(b)
		if n <= 0 || st>>3 > uint64(len(b)-n) {
			return refs, prev, fmt.Errorf("record after %q: bad suffix length", prev)
		}
		b = b[n:]
		slen, typ := int(st>>3), st&7
		name := make([]byte, 0, int(plen)+slen)
		name = append(append(name, prev[:plen]...), b[:slen]...)
		b = b[slen:]
		if len(refs) > 0 && bytes.Compare(name, prev) <= 0 {
			return refs, prev, fmt.Errorf("record %q after %q: not sorted", name, prev)
		}
		if _, n = varint(b); n <= 0 {
			return refs, prev, fmt.Errorf("record %q: bad update index", name)
		}
		b = b[n:]
		r := rtRef{name: string(name)}
		switch typ {
		case 0:
			r.deleted = true
		case 1, 2:
			need := hashSize * int(typ)
			if len(b) < need {
				return refs, prev, fmt.Errorf("record %q: id truncated", name)
			}
			r.id = hex.EncodeToString(b[:hashSize])
			b = b[need:]
		case 3:
			tlen, n := varint(b)
			if n <= 0 || tlen > uint64(len(b)-n) {
				return refs, prev, fmt.Errorf("record %q: bad target length", name)
			}
			r.target = string(b[n : n+int(tlen)])
			b = b[n+int(tlen):]
		default:
			return refs, prev, fmt.Errorf("record %q: value type %d", name, typ)
		}
		refs = append(refs, r)
		prev = name
	}
	return refs, prev, nil
}

// mergeNewer merges two tables' records, sorted by name, the newer
// table's record winning; the result is sorted.
func mergeNewer(older, newer []rtRef) []rtRef {
	out := make([]rtRef, 0, len(older)+len(newer))
	i, j := 0, 0
	for i < len(older) || j < len(newer) {
		switch {
		case j == len(newer) || i < len(older) && older[i].name < newer[j].name:
			out = append(out, older[i])
			i++
		case i == len(older) || newer[j].name < older[i].name:
			out = append(out, newer[j])
			j++
		default:
			out = append(out, newer[j])
			i++
			j++
		}
	}
	return out
}

// reftableCache keeps the last stack read, by its directory and the
// content of its tables.list (tables are never changed once written).
type reftableCache struct {
	mu    sync.Mutex
	key   map[string]string
	stack map[string][]rtRef
}

// reftableStack reads the stack of the reftable directory dir: every
// live ref of its tables, newest value winning, deletions dropped,
// sorted by name.
func (r *Repo) reftableStack(dir string) ([]rtRef, error) {
	// A table named by tables.list may be gone when it is read, if git
	// compacted the stack in between: read the list again then, as git
	// does, a few times.
	for try := 0; ; try++ {
		refs, err := r.reftableStackOnce(dir)
		var gone *tableGoneError
		if !errors.As(err, &gone) || try == 2 {
			return refs, err
		}
		if list, _ := readLimited(filepath.Join(dir, "tables.list"), maxTablesList); string(list) == gone.list {
			return refs, err
		}
	}
}

// tableGoneError is a table of tables.list that does not exist.
type tableGoneError struct {
	list, name string
	err        error
}

func (e *tableGoneError) Error() string {
	return fmt.Sprintf("gitrepo: reftable %s, named by tables.list: %v", e.name, e.err)
}

// reftableStackOnce is reftableStack without the retry.
func (r *Repo) reftableStackOnce(dir string) ([]rtRef, error) {
	list, err := readLimited(filepath.Join(dir, "tables.list"), maxTablesList)
	if errors.Is(err, os.ErrNotExist) {
		if dir != filepath.Join(r.CommonDir, "reftable") {
			return nil, nil // a linked work tree with no refs of its own yet
		}
		return nil, fmt.Errorf("gitrepo: %s: %w", dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("gitrepo: reftable: %w", err)
	}
	c := r.rtCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key[dir] == string(list) {
		return c.stack[dir], nil
	}
	var all []rtRef
	tables := strings.Fields(string(list))
	for _, name := range tables {
		if strings.ContainsAny(name, `/\`) || name == ".." {
			return nil, fmt.Errorf("gitrepo: reftable: tables.list names %q", name)
		}
		data, err := readLimited(filepath.Join(dir, name), maxReftable)
		if errors.Is(err, os.ErrNotExist) {
			return nil, &tableGoneError{list: string(list), name: name, err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("gitrepo: reftable %s: %v", name, err)
		}
		refs, err := parseReftable(data, r.HashSize)
		if err != nil {
			return nil, fmt.Errorf("gitrepo: reftable %s: %w", name, err)
		}
		all = append(all, refs...)
	}
	// The tables' records in one sort, stable so that of the records of
	// one name the newest table's comes last and wins: O(N log N) for N
	// records in any number of tables (merging table by table would be
	// quadratic in the tables of a stack that was never compacted).
	if len(tables) > 1 {
		slices.SortStableFunc(all, func(a, b rtRef) int { return strings.Compare(a.name, b.name) })
	}
	live := all[:0]
	for i, ref := range all {
		if i+1 < len(all) && all[i+1].name == ref.name {
			continue
		}
		if !ref.deleted {
			live = append(live, ref)
		}
	}
	if c.key == nil {
		c.key, c.stack = map[string]string{}, map[string][]rtRef{}
	}
	c.key[dir], c.stack[dir] = string(list), live
	return live, nil
}

// reftableRefs returns the refs this work tree sees: the common stack's,
// and for a linked work tree its own per-work-tree refs (HEAD, refs/bisect,
// ...) from its stack instead of the common one's.
func (r *Repo) reftableRefs() ([]rtRef, error) {
	common, err := r.reftableStack(filepath.Join(r.CommonDir, "reftable"))
	if err != nil || r.GitDir == r.CommonDir {
		return common, err
	}
	own, err := r.reftableStack(filepath.Join(r.GitDir, "reftable"))
	if err != nil {
		return nil, err
	}
	shared := func(name string) bool { return strings.HasPrefix(name, "refs/") && !perWorktree(name) }
	var a, b []rtRef
	for _, ref := range common {
		if shared(ref.name) {
			a = append(a, ref)
		}
	}
	for _, ref := range own {
		if !shared(ref.name) {
			b = append(b, ref)
		}
	}
	return mergeNewer(a, b), nil
}

// rtFind returns the record of name in refs (sorted).
func rtFind(refs []rtRef, name string) (rtRef, bool) {
	i, ok := slices.BinarySearchFunc(refs, name, func(r rtRef, n string) int { return strings.Compare(r.name, n) })
	if !ok {
		return rtRef{}, false
	}
	return refs[i], true
}

// rtResolve follows a record through symbolic refs to an id.
func (r *Repo) rtResolve(refs []rtRef, ref rtRef) (string, error) {
	for depth := 0; ref.target != ""; depth++ {
		if depth >= maxSymrefDepth {
			return "", fmt.Errorf("gitrepo: ref %s: symbolic refs nested deeper than %d", ref.name, maxSymrefDepth)
		}
		t, ok := rtFind(refs, ref.target)
		if !ok {
			return "", fmt.Errorf("gitrepo: ref %s points to %s, which does not exist: %w", ref.name, ref.target, os.ErrNotExist)
		}
		ref = t
	}
	if !isHexID(ref.id, r.HashSize) {
		return "", fmt.Errorf("gitrepo: ref %s: not an object id: %.60q", ref.name, ref.id)
	}
	return ref.id, nil
}

// reftableRefsUnder is RefsUnder for a repository whose refs are in
// reftables.
func (r *Repo) reftableRefsUnder(prefix string) (refs []Ref, warnings []error) {
	all, err := r.reftableRefs()
	if err != nil {
		return nil, []error{err}
	}
	lo, _ := slices.BinarySearchFunc(all, prefix, func(r rtRef, n string) int { return strings.Compare(r.name, n) })
	for _, ref := range all[lo:] {
		if !strings.HasPrefix(ref.name, prefix) {
			break
		}
		id, err := r.rtResolve(all, ref)
		if err != nil {
			warnings = append(warnings, err)
			continue
		}
		refs = append(refs, Ref{Name: ref.name, ID: id})
	}
	return refs, warnings
}

// reftableReadRef is ReadRef for a repository whose refs are in
// reftables. A name outside refs/ that the tables do not hold is looked
// for as a file in the git directory (git keeps FETCH_HEAD and
// MERGE_HEAD there in either format).
func (r *Repo) reftableReadRef(name string) (string, error) {
	all, err := r.reftableRefs()
	if err != nil {
		return "", err
	}
	ref, ok := rtFind(all, name)
	if !ok {
		if !strings.HasPrefix(name, "refs/") && name != "HEAD" {
			b, err := readSmall(filepath.Join(r.GitDir, filepath.FromSlash(name)))
			if err == nil {
				content := strings.TrimSpace(string(b))
				if t, sym := strings.CutPrefix(content, "ref:"); sym {
					if ref, ok = rtFind(all, strings.TrimSpace(t)); ok {
						return r.rtResolve(all, ref)
					}
				} else if f := strings.Fields(content); len(f) > 0 && isHexID(f[0], r.HashSize) {
					return strings.ToLower(f[0]), nil
				}
			}
		}
		return "", fmt.Errorf("gitrepo: ref %s: %w", name, os.ErrNotExist)
	}
	return r.rtResolve(all, ref)
}
