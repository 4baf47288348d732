//go:build !unix

package odb

import (
	"fmt"
	"io"
	"os"
)

// mapFile reads an index file into memory where mmap is not available.
func mapFile(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, func() error { return nil }, nil
}
