package gitrepo

import (
	"fmt"
	"path/filepath"
)

// Open returns the repository at dir exactly: a work tree's top (holding
// .git), a bare repository, or a git directory. It does not look upwards
// and reads no environment.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := open(abs, Env{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return r, nil
}

// Read reads and parses the index file at path. hashSize is the
// repository's object id length: 20 (SHA-1) or 32 (SHA-256). A split
// index's shared index is looked for beside it (Repo.ReadIndex looks in
// the git directory first, as git does).
func Read(path string, hashSize int) ([]Entry, error) {
	x, err := readIndexFile(path, "", hashSize)
	if err != nil {
		return nil, err
	}
	return x.Entries, nil
}

// ReadIndex reads and parses the index file at path with its cache-tree
// extension; a split index is read whole, with its shared index (looked
// for beside it).
func ReadIndex(path string, hashSize int) (*Index, error) { return readIndexFile(path, "", hashSize) }

// Parse parses an index. hashSize is 20 or 32. A split index is an
// error: its entries are not all in data (Read and ReadIndex read its
// shared index too).
func Parse(data []byte, hashSize int) ([]Entry, error) {
	ents, ext, err := parse(data, hashSize)
	if err != nil {
		return nil, err
	}
	if _, split, err := findExtension(ext, "link"); err != nil || split {
		if err == nil {
			err = fmt.Errorf("%w: a split index: its shared index is needed", ErrFormat)
		}
		return nil, err
	}
	if err := checkPaths(ents); err != nil {
		return nil, err
	}
	return ents, nil
}
