package odb

import (
	"bytes"
	"errors"
	"fmt"
)

// A tree object is a sequence of entries, each
//
//	<mode in octal ASCII> SP <name> NUL <20-byte id>
//
// sorted by name (a subtree sorting as if its name ended in '/'). git
// writes five modes: 100644 (file), 100755 (executable), 120000 (symbolic
// link: the blob holds the target), 40000 (subtree, with no leading zero)
// and 160000 (gitlink: a submodule's commit, an object of another
// repository). Old repositories also hold 100664 and other group-writable
// variants; git reads every mode through canon_mode, and so does this
// parser: a regular file becomes 100755 if its owner may execute it and
// 100644 otherwise, and a mode of no known kind reads as a gitlink.

var errTree = errors.New("bad tree")

// Mode is a tree entry's mode.
type Mode uint32

// The modes git writes.
const (
	ModeFile       Mode = 0o100644
	ModeExecutable Mode = 0o100755
	ModeSymlink    Mode = 0o120000
	ModeTree       Mode = 0o040000
	ModeGitlink    Mode = 0o160000
)

const modeTypeMask = 0o170000

// IsTree reports whether the entry is a subtree.
func (m Mode) IsTree() bool { return m&modeTypeMask == ModeTree }

// IsFile reports whether the entry is a regular file (executable or not).
func (m Mode) IsFile() bool { return m&modeTypeMask == 0o100000 }

// IsSymlink reports whether the entry is a symbolic link.
func (m Mode) IsSymlink() bool { return m&modeTypeMask == ModeSymlink }

// IsGitlink reports whether the entry is a submodule's commit, which is
// not in this repository.
func (m Mode) IsGitlink() bool { return m&modeTypeMask == ModeGitlink }

// Type returns the type of the object the entry names, as git decides it
// from the mode: a tree for a subtree, a commit for a gitlink, a blob
// otherwise (files and symbolic links).
func (m Mode) Type() Type {
	switch {
	case m.IsTree():
		return TypeTree
	case m.IsGitlink():
		return TypeCommit
	}
	return TypeBlob
}

// String returns the mode as git prints it (six octal digits).
func (m Mode) String() string { return fmt.Sprintf("%06o", uint32(m)) }

// canonMode maps a stored mode to one of the five git uses, as git does.
func canonMode(m Mode) Mode {
	switch m & modeTypeMask {
	case 0o100000:
		if m&0o100 != 0 {
			return ModeExecutable
		}
		return ModeFile
	case ModeSymlink:
		return ModeSymlink
	case ModeTree:
		return ModeTree
	}
	return ModeGitlink
}

// TreeEntry is one entry of a tree. Name aliases the tree's data.
type TreeEntry struct {
	Mode Mode
	Name []byte
	ID   ID
}

// AppendTree appends the entries of a tree object's content, their ids hs
// bytes long, to es.
func AppendTree(es []TreeEntry, data []byte, hs int) ([]TreeEntry, error) {
	if hs != SHA1Size && hs != SHA256Size {
		return es, fmt.Errorf("%w: id length %d", errTree, hs)
	}
	for len(data) > 0 {
		e, n, err := parseTreeEntry(data, hs)
		if err != nil {
			return es, err
		}
		es = append(es, e)
		data = data[n:]
	}
	return es, nil
}

// ParseTreeEntry decodes the entry at the start of a tree object's
// content data, its id hs bytes long, and returns it with its length in
// bytes: AppendTree one entry at a time, for a reader that can stop
// before the end.
func ParseTreeEntry(data []byte, hs int) (TreeEntry, int, error) { return parseTreeEntry(data, hs) }

// parseTreeEntry decodes the entry at the start of data and returns its
// length; its id is hs bytes long.
func parseTreeEntry(data []byte, hs int) (TreeEntry, int, error) {
	var e TreeEntry
	sp := bytes.IndexByte(data, ' ')
	if sp <= 0 || sp > 7 {
		return e, 0, fmt.Errorf("%w: no mode", errTree)
	}
	var m Mode
	for _, c := range data[:sp] {
		if c < '0' || c > '7' {
			return e, 0, fmt.Errorf("%w: mode %q", errTree, data[:sp])
		}
		m = m<<3 | Mode(c-'0')
	}
	e.Mode = canonMode(m)
	nul := bytes.IndexByte(data[sp+1:], 0)
	if nul < 0 {
		return e, 0, fmt.Errorf("%w: unterminated name", errTree)
	}
	if nul == 0 {
		return e, 0, fmt.Errorf("%w: empty name", errTree)
	}
	name := data[sp+1 : sp+1+nul]
	end := sp + 1 + nul + 1
	if hs != SHA1Size && hs != SHA256Size {
		return e, 0, fmt.Errorf("%w: id length %d", errTree, hs)
	}
	if len(data)-end < hs {
		return e, 0, fmt.Errorf("%w: truncated id after %q", errTree, name)
	}
	e.Name = name[:len(name):len(name)]
	copy(e.ID[:hs], data[end:])
	return e, end + hs, nil
}
