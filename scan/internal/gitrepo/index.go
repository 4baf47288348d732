// This file reads git's index file (.git/index), the staging area:
// which paths are tracked, and the blob each one stages.
//
// The format (gitformat-index(5)): a 12-byte header "DIRC", version
// (2, 3 or 4) and entry count; the entries, sorted by path; extensions;
// and a trailing hash of everything before it. An entry is ten 32-bit
// stat fields (ctime, mtime, dev, ino, mode, uid, gid, size), the object
// id, 16 bits of flags (assume-valid, extended, stage, name length) and,
// from version 3 when the extended flag is set, 16 more (skip-worktree,
// intent-to-add). Versions 2 and 3 store the full path NUL-terminated and
// pad each entry to a multiple of 8 bytes; version 4 stores the path as
// the number of bytes to drop from the end of the previous path (a varint)
// and the suffix to append, NUL-terminated, with no padding.
//
// The reader checks every length against the data before it reads it: an
// index is untrusted input (a repository someone else made), and a
// truncated or hostile one is an error, never a panic or a huge
// allocation. The cache-tree extension is read (ReadIndex), and so is the
// link extension of a split index (splitindex.go); the others are
// skipped. A sparse index's directory entries (mode 040000) are reported
// as entries whose Mode says so.

package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
)

// Entry is one path of the index.
type Entry struct {
	Path  string // slash-separated, relative to the repository's top
	Mode  uint32 // 0100644, 0100755, 0120000 (link), 0160000 (submodule), 040000 (sparse directory)
	ID    []byte // the object id: 20 bytes (SHA-1) or 32 (SHA-256)
	Stage int    // 0, or 1-3 for the sides of an unresolved merge conflict
	// SkipWorktree marks a path outside a sparse checkout; IntentToAdd a
	// path added with `git add -N` (no content staged yet).
	SkipWorktree, IntentToAdd bool
	// Size and MTime (seconds, nanoseconds) are the work-tree file's as
	// git last saw it: when the file still has them, its content is
	// taken to be the staged blob, as git takes it.
	Size                uint32
	MTimeSec, MTimeNsec uint32
}

// ModeDir is the mode of a sparse index's directory entry.
const ModeDir = 040000

// ErrFormat is wrapped by every error about the index's content.
var ErrFormat = errors.New("gitrepo: malformed index")

// maxPathBytes and pathExpansion bound the total length of a version 4
// index's paths: maxPathBytes plus pathExpansion times the file's size.
const (
	maxPathBytes  = 64 << 20
	pathExpansion = 16
)

// maxSize bounds the index file read (a 100k-file repository's index is
// about 10 MB; it is read whole).
const maxSize = 128 << 20

// Index is a parsed index: its entries, and the cache-tree extension's
// record of which directories are unchanged since the tree they name.
type Index struct {
	Entries []Entry
	// Trees maps a directory ("" for the top, "a/b" below it) whose index
	// entries are exactly those of a tree to that tree's id, as the
	// cache-tree extension records it; directories it marks invalid are
	// absent.
	Trees map[string][]byte
}

// ReadIndex reads and parses the repository's index (GIT_INDEX_FILE if
// set) with its cache-tree extension. A split index is read whole, its
// shared index looked for in the git directory, then beside the index
// file, as git does.
func (r *Repo) ReadIndex() (*Index, error) { return readIndexFile(r.indexFile, r.GitDir, r.HashSize) }

// readIndexFile reads the index file at path; gitDir, if not empty, is
// where a split index's shared index is looked for first.
func readIndexFile(path, gitDir string, hashSize int) (*Index, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > maxSize {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrFormat, path, maxSize)
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("gitrepo: read %s: %w", path, err)
	}
	ents, ext, err := parse(data, hashSize)
	if err == nil {
		ents, err = readSplit(path, gitDir, ents, ext, hashSize)
	}
	if err == nil {
		err = checkPaths(ents)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	x := &Index{Entries: ents}
	// A damaged extension costs only its shortcut: the entries are read.
	x.Trees, _ = cacheTree(ext, hashSize)
	return x, nil
}

// cacheTreeKeyBudget is the bytes of paths a cache tree may hold beyond
// 16 per byte of the extension.
const cacheTreeKeyBudget = 1 << 20

// cacheTree finds the TREE extension among the extensions and decodes it.
func cacheTree(ext []byte, hashSize int) (map[string][]byte, error) {
	for len(ext) >= 8 {
		sig, size := string(ext[:4]), binary.BigEndian.Uint32(ext[4:8])
		if uint64(size) > uint64(len(ext)-8) {
			return nil, fmt.Errorf("%w: extension %q truncated", ErrFormat, sig)
		}
		body := ext[8 : 8+size]
		ext = ext[8+size:]
		if sig != "TREE" {
			continue
		}
		trees := map[string][]byte{}
		// Each node's key is its whole path, so nodes nested d deep hold
		// d² bytes of keys: a budget keeps a crafted chain of directories
		// linear in the extension's size (a cache tree is a shortcut, and
		// one over budget is dropped like a damaged one).
		budget := cacheTreeKeyBudget + 16*len(body)
		rest, err := treeNode(body, "", hashSize, trees, 0, &budget)
		if err != nil {
			return nil, err
		}
		if len(rest) != 0 {
			return nil, fmt.Errorf("%w: cache-tree has trailing bytes", ErrFormat)
		}
		return trees, nil
	}
	return nil, nil
}

// treeNode decodes one cache-tree node and its subtrees (pre-order):
// "name NUL count SP subtrees LF [id]".
func treeNode(b []byte, dir string, hashSize int, out map[string][]byte, depth int, budget *int) ([]byte, error) {
	if depth > 4096 {
		return nil, fmt.Errorf("%w: cache-tree too deep", ErrFormat)
	}
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, fmt.Errorf("%w: cache-tree name", ErrFormat)
	}
	name := string(b[:nul])
	b = b[nul+1:]
	lf := bytes.IndexByte(b, '\n')
	if lf < 0 {
		return nil, fmt.Errorf("%w: cache-tree counts", ErrFormat)
	}
	countStr, subStr, ok := strings.Cut(string(b[:lf]), " ")
	count, err1 := strconv.Atoi(countStr)
	subs, err2 := strconv.Atoi(subStr)
	if !ok || err1 != nil || err2 != nil || subs < 0 || subs > len(b) {
		return nil, fmt.Errorf("%w: cache-tree counts %q", ErrFormat, b[:lf])
	}
	b = b[lf+1:]
	path := name
	if dir != "" {
		path = dir + "/" + name
	}
	if *budget -= len(path); *budget < 0 {
		return nil, fmt.Errorf("%w: cache-tree paths longer than the budget", ErrFormat)
	}
	if count >= 0 {
		if len(b) < hashSize {
			return nil, fmt.Errorf("%w: cache-tree id truncated", ErrFormat)
		}
		out[path] = bytes.Clone(b[:hashSize])
		b = b[hashSize:]
	}
	for range subs {
		var err error
		if b, err = treeNode(b, path, hashSize, out, depth+1, budget); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// checkPaths refuses an entry without a path: only a split index's
// replacements have none, and they take the path of what they replace.
func checkPaths(ents []Entry) error {
	for i := range ents {
		if ents[i].Path == "" {
			return fmt.Errorf("%w: entry %d: empty path", ErrFormat, i)
		}
	}
	return nil
}

// parse parses an index's entries and returns them with the bytes of its
// extensions. An entry may have an empty path here (a split index's
// replacement); the callers see to it that none is left.
func parse(data []byte, hashSize int) ([]Entry, []byte, error) {
	if hashSize != sha1.Size && hashSize != sha256.Size {
		return nil, nil, fmt.Errorf("gitrepo: hash size %d: want 20 or 32", hashSize)
	}
	if len(data) < 12+hashSize || string(data[:4]) != "DIRC" {
		return nil, nil, fmt.Errorf("%w: no DIRC header", ErrFormat)
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, nil, fmt.Errorf("%w: version %d", ErrFormat, version)
	}
	if err := checkTrailer(data, hashSize); err != nil {
		return nil, nil, err
	}
	body := data[:len(data)-hashSize]
	count := binary.BigEndian.Uint32(data[8:])
	// Each entry takes at least 62 bytes (SHA-1, version 4): a count the
	// data cannot hold is a lie, and must not size an allocation.
	fixed := 40 + hashSize + 2
	if uint64(count) > uint64(len(body))/uint64(fixed) {
		return nil, nil, fmt.Errorf("%w: %d entries claimed in %d bytes", ErrFormat, count, len(body))
	}
	ents := make([]Entry, 0, count)
	off := 12
	var prev, pathBuf []byte
	// Version 4 rebuilds each path from the one before: entries that each
	// keep a long path and add a byte would make a quadratic amount of
	// path from a small file. The paths' total is bounded by a multiple
	// of the file's size well above what prefix compression saves on real
	// trees.
	pathBudget := int64(maxPathBytes) + int64(pathExpansion)*int64(len(data))
	for i := uint32(0); i < count; i++ {
		start := off
		if len(body)-off < fixed {
			return nil, nil, fmt.Errorf("%w: entry %d truncated", ErrFormat, i)
		}
		mode := binary.BigEndian.Uint32(body[off+24:])
		id := body[off+40 : off+40+hashSize : off+40+hashSize] // aliases data, which is not written again
		flags := binary.BigEndian.Uint16(body[off+40+hashSize:])
		e := Entry{Mode: mode, ID: id, Stage: int(flags>>12) & 3,
			MTimeSec: binary.BigEndian.Uint32(body[off+8:]), MTimeNsec: binary.BigEndian.Uint32(body[off+12:]),
			Size: binary.BigEndian.Uint32(body[off+36:])}
		off += fixed
		if flags&0x4000 != 0 { // extended
			if version < 3 {
				return nil, nil, fmt.Errorf("%w: entry %d: extended flags in version %d", ErrFormat, i, version)
			}
			if len(body)-off < 2 {
				return nil, nil, fmt.Errorf("%w: entry %d truncated", ErrFormat, i)
			}
			ext := binary.BigEndian.Uint16(body[off:])
			e.SkipWorktree = ext&0x4000 != 0
			e.IntentToAdd = ext&0x2000 != 0
			off += 2
		}
		var path []byte
		if version == 4 {
			drop, n := varint(body[off:])
			if n <= 0 || drop > uint64(len(prev)) {
				return nil, nil, fmt.Errorf("%w: entry %d: bad path prefix", ErrFormat, i)
			}
			off += n
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, nil, fmt.Errorf("%w: entry %d: unterminated path", ErrFormat, i)
			}
			keep := len(prev) - int(drop)
			if pathBudget -= int64(keep + end); pathBudget < 0 {
				return nil, nil, fmt.Errorf("%w: entry %d: the paths expand past %d times the index's size", ErrFormat, i, pathExpansion)
			}
			// prev is pathBuf's content: the path is rebuilt in place, and
			// copied once, into the entry's string.
			pathBuf = append(pathBuf[:keep], body[off:off+end]...)
			path = pathBuf
			off += end + 1
		} else {
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, nil, fmt.Errorf("%w: entry %d: unterminated path", ErrFormat, i)
			}
			path = body[off : off+end]
			// The entry is padded with 1 to 8 NULs to a multiple of 8.
			off = start + (off-start+end+8)&^7
			if off > len(body) {
				return nil, nil, fmt.Errorf("%w: entry %d truncated", ErrFormat, i)
			}
		}
		e.Path = string(path)
		prev = path
		ents = append(ents, e)
	}
	return ents, body[off:], nil
}

// checkTrailer verifies the trailing hash, unless it is all zeros (git
// writes zeros with index.skipHash).
func checkTrailer(data []byte, hashSize int) error {
	sum := data[len(data)-hashSize:]
	if bytes.Count(sum, []byte{0}) == len(sum) {
		return nil
	}
	var h hash.Hash = sha1.New()
	if hashSize == sha256.Size {
		h = sha256.New()
	}
	h.Write(data[:len(data)-hashSize])
	if !bytes.Equal(h.Sum(nil), sum) {
		return fmt.Errorf("%w: checksum mismatch", ErrFormat)
	}
	return nil
}

// varint decodes git's variable-length integer (varint.c): big-endian
// groups of 7 bits, high bit set on every byte but the last, with 1 added
// before each shift so that every value has one encoding. It returns the
// value and the bytes used, or n <= 0 for a truncated or overflowing one.
func varint(b []byte) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 127)
	n = 1
	for c&128 != 0 {
		if n >= len(b) || v+1 > 1<<(64-7)-1 {
			return 0, -1
		}
		c = b[n]
		n++
		v = (v+1)<<7 | uint64(c&127)
	}
	return v, n
}
