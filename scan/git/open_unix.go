//go:build unix

package git

import (
	"os"
	"syscall"
)

// openFileNoFollow opens a work-tree file for reading without following a
// symbolic link in its last element and without blocking on a FIFO.
func openFileNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
