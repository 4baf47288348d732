//go:build unix

package odb

import (
	"os"
	"syscall"
)

// openNoBlock opens a file for reading without blocking on a FIFO.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
