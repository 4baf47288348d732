package odb

import (
	"encoding/hex"
	"fmt"
)

// The lengths in bytes of the two kinds of object id: a repository names
// its objects by SHA-1 digests, or by SHA-256 digests when its
// extensions.objectFormat is sha256.
const (
	SHA1Size   = 20
	SHA256Size = 32
	// MaxIDSize is the larger of the two, the size of an ID.
	MaxIDSize = SHA256Size
)

// ID is an object's name, the digest of its type, size and content: a
// SHA-1 digest in its first 20 bytes and zeros after them, or a SHA-256
// digest in all 32. The zero ID names no object. One repository uses
// one kind, so IDs compare (and key maps) as arrays; Size tells the kind
// by the last 12 bytes, all zero for a SHA-1 id. A SHA-256 id whose last
// 12 bytes are zero, which would take some 2^96 tries to make, would be
// taken for a SHA-1 one by Size and String, never by a lookup.
type ID [MaxIDSize]byte

// ParseID reads a hexadecimal object id: 40 digits (SHA-1) or 64
// (SHA-256).
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*SHA1Size && len(s) != 2*SHA256Size {
		return id, fmt.Errorf("odb: object id %q: want %d or %d hex digits", s, 2*SHA1Size, 2*SHA256Size)
	}
	if _, err := hex.Decode(id[:len(s)/2], []byte(s)); err != nil {
		return ID{}, fmt.Errorf("odb: object id %q: %w", s, err)
	}
	return id, nil
}

// Size returns the id's length in bytes: 20 for a SHA-1 id (and the
// zero ID), 32 for a SHA-256 one.
func (id *ID) Size() int {
	if [MaxIDSize - SHA1Size]byte(id[SHA1Size:]) == [MaxIDSize - SHA1Size]byte{} {
		return SHA1Size
	}
	return SHA256Size
}

// String returns the id as lowercase hexadecimal digits: 40 for a SHA-1
// id, 64 for a SHA-256 one.
func (id ID) String() string { return hex.EncodeToString(id[:id.Size()]) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id == ID{} }

// Type is an object's type as git numbers it in pack entry headers.
type Type uint8

// The four object types. Values 6 and 7 are the two delta encodings of a
// pack entry; they are a way of storing an object, not a type, and never
// leave this package as a Type.
const (
	TypeCommit Type = 1
	TypeTree   Type = 2
	TypeBlob   Type = 3
	TypeTag    Type = 4

	ofsDelta Type = 6
	refDelta Type = 7
)

// String returns the name git uses for the type ("blob"), or "Type(n)".
func (t Type) String() string {
	switch t {
	case TypeCommit:
		return "commit"
	case TypeTree:
		return "tree"
	case TypeBlob:
		return "blob"
	case TypeTag:
		return "tag"
	case ofsDelta:
		return "ofs-delta"
	case refDelta:
		return "ref-delta"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// parseType maps the type name of a loose object header to its Type.
func parseType(name []byte) (Type, bool) {
	switch string(name) {
	case "commit":
		return TypeCommit, true
	case "tree":
		return TypeTree, true
	case "blob":
		return TypeBlob, true
	case "tag":
		return TypeTag, true
	}
	return 0, false
}
