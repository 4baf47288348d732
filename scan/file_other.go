//go:build !unix

package scan

import (
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
)

// file is an object's open file (see file_unix.go for why Unix uses bare
// descriptors).
type file struct {
	*os.File
}

func openFile(path string) (*file, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &file{f}, nil
}

func (f *file) stat() (size int64, regular bool, err error) {
	fi, err := f.File.Stat()
	if err != nil {
		return 0, false, err
	}
	return fi.Size(), fi.Mode()&fs.ModeType == 0, nil
}

// dirID identifies a directory for loop detection. Without inode numbers,
// the directory's path with every link resolved stands in for them.
func dirID(path string, _ fs.FileInfo) (dev, ino uint64) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	h := fnv.New64a()
	h.Write([]byte(real))
	return 0, h.Sum64()
}
