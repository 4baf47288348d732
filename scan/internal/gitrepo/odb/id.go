package odb

import (
	"encoding/hex"
	"fmt"
)

// IDSize is the length in bytes of an object id: a SHA-1 digest.
const IDSize = 20

// ID is an object's name, the SHA-1 of its type, size and content. The zero
// ID names no object.
type ID [IDSize]byte

// ParseID reads a 40-digit hexadecimal object id.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*IDSize {
		return id, fmt.Errorf("odb: object id %q: want %d hex digits", s, 2*IDSize)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return ID{}, fmt.Errorf("odb: object id %q: %w", s, err)
	}
	return id, nil
}

// String returns the id as 40 lowercase hexadecimal digits.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

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
