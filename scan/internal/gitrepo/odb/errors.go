package odb

import (
	"errors"
	"fmt"
)

// Sentinel errors callers test with errors.Is.
var (
	// ErrNotFound: no pack and no loose object holds the requested id.
	ErrNotFound = errors.New("odb: object not found")
	// ErrCorrupt: the bytes that store an object cannot be decoded (a bad
	// header, a deflate error, a truncated pack, a delta that does not fit
	// its base, a delta chain that loops). Returned as a *CorruptError.
	ErrCorrupt = errors.New("odb: corrupt object")
	// ErrNotRepository: Open found no object database at the path.
	ErrNotRepository = errors.New("odb: not a git repository")
	// ErrClosed: the DB was used after Close.
	ErrClosed = errors.New("odb: closed")
	// ErrTooLarge: an object declares more bytes than Options.MaxObject
	// allows to build in memory. Returned as a *TooLargeError.
	ErrTooLarge = errors.New("odb: object too large")
)

// TooLargeError names an object over the size budget; it matches
// ErrTooLarge.
type TooLargeError struct {
	ID          ID
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("odb: object %s declares %d bytes, over the %d-byte limit", e.ID, e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// NotFoundError names the object that is missing; it matches ErrNotFound.
type NotFoundError struct {
	ID ID
}

// Error names the missing object.
func (e *NotFoundError) Error() string { return fmt.Sprintf("odb: object %s not found", e.ID) }

// Is makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// CorruptError says which object could not be decoded and where it is
// stored; it matches ErrCorrupt and wraps the underlying cause.
type CorruptError struct {
	ID     ID     // the object requested (zero when read by position only)
	Path   string // the pack or loose file that holds the bad bytes
	Offset int64  // the entry's offset in the pack; -1 for a loose object
	Err    error  // what was wrong
}

// Error names the object and where its bytes are.
func (e *CorruptError) Error() string {
	where := e.Path
	if e.Offset >= 0 {
		where = fmt.Sprintf("%s at offset %d", e.Path, e.Offset)
	}
	if e.ID.IsZero() {
		return fmt.Sprintf("odb: corrupt object in %s: %v", where, e.Err)
	}
	return fmt.Sprintf("odb: corrupt object %s in %s: %v", e.ID, where, e.Err)
}

// Is makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the cause.
func (e *CorruptError) Unwrap() error { return e.Err }

// ErrUnreadable: the file that holds an object exists but cannot be read
// (permissions, a FIFO or device in its place). Returned as an
// *UnreadableError; the object's bytes are not known to be damaged.
var ErrUnreadable = errors.New("odb: object unreadable")

// UnreadableError names the object whose file cannot be read, and why.
type UnreadableError struct {
	ID   ID
	Path string
	Err  error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("odb: object %s cannot be read from %s: %v", e.ID, e.Path, e.Err)
}

// Is makes errors.Is(err, ErrUnreadable) hold.
func (e *UnreadableError) Is(target error) bool { return target == ErrUnreadable }

// Unwrap returns the cause.
func (e *UnreadableError) Unwrap() error { return e.Err }
