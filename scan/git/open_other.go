//go:build !unix

package git

import "os"

// openFileNoFollow opens a work-tree file for reading (the caller has
// checked with Lstat that it is a regular file).
func openFileNoFollow(path string) (*os.File, error) { return os.Open(path) }
