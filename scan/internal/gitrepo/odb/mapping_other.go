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

// mapPack does not map pack files where mmap is not available: they are
// read with pread.
func mapPack(*os.File, int64) (data []byte, unmap func() error, err error) {
	return nil, nil, nil
}

// mapsPacks says whether packs are mapped here (see Pack).
const mapsPacks = false
