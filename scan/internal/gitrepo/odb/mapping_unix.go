//go:build unix

package odb

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps an index file read-only. Index lookups touch a few pages of
// a file that may be hundreds of megabytes; mapping it reads only those.
// Pack data is not mapped (see readAt in pack.go).
func mapFile(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("map %s: %d bytes is too large", f.Name(), size)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return data, func() error { return unix.Munmap(data) }, nil
}

// mapPack maps a pack file read-only (see Pack).
func mapPack(f *os.File, size int64) (data []byte, unmap func() error, err error) {
	return mapFile(f, size)
}

// mapsPacks says whether packs are mapped here (see Pack).
const mapsPacks = true
