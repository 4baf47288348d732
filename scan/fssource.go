package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// fsSource lists a directory of an fs.FS (or a single file, as a root):
// one batch of entries per Enumerate call, subdirectories as sub-sources,
// as the engine does for directories on disk.
type fsSource struct {
	fsys fs.FS
	dir  string
	f    fs.ReadDirFile
	ents []fs.DirEntry // a directory that cannot be read incrementally, read whole
	open bool
}

func (s *fsSource) Enumerate(_ context.Context, b *Batch) (bool, error) {
	if !s.open {
		s.open = true
		if more := s.start(b); !more {
			return false, nil
		}
	}
	var ents []fs.DirEntry
	more := false
	if s.f != nil {
		var err error
		ents, err = s.f.ReadDir(dirBatch)
		if err != nil && !errors.Is(err, io.EOF) {
			b.Warn(s.dir, "readdir", err)
		}
		if err == nil && len(ents) == dirBatch {
			more = true
		} else {
			s.f.Close()
			s.f = nil
		}
	} else {
		n := min(len(s.ents), dirBatch)
		ents, s.ents = s.ents[:n], s.ents[n:]
		more = len(s.ents) > 0
	}
	for _, ent := range ents {
		s.add(b, ent)
	}
	return more, nil
}

// start stats the root: a file is listed as the only object; a directory
// is opened for listing.
func (s *fsSource) start(b *Batch) bool {
	fi, err := fs.Stat(s.fsys, s.dir)
	if err != nil {
		b.Warn(s.dir, "stat", err)
		return false
	}
	if !fi.IsDir() {
		if fi.Mode().IsRegular() {
			s.addFile(b, s.dir, fi.Size())
		} else {
			s.addOther(b, s.dir, fi.Mode().Type())
		}
		return false
	}
	f, err := s.fsys.Open(s.dir)
	if err != nil {
		b.Warn(s.dir, "open", err)
		return false
	}
	if rd, ok := f.(fs.ReadDirFile); ok {
		s.f = rd
		return true
	}
	f.Close()
	if s.ents, err = fs.ReadDir(s.fsys, s.dir); err != nil {
		b.Warn(s.dir, "readdir", err)
	}
	return len(s.ents) > 0
}

func (s *fsSource) add(b *Batch, ent fs.DirEntry) {
	name := path.Join(s.dir, ent.Name())
	switch typ := ent.Type(); {
	case typ.IsDir():
		if ent.Name() == ".git" {
			b.Skip(SkipGit)
			return
		}
		b.AddSource(&fsSource{fsys: s.fsys, dir: name})
	case typ.IsRegular():
		size := int64(-1)
		if fi, err := ent.Info(); err == nil {
			size = fi.Size()
		}
		s.addFile(b, name, size)
	default:
		s.addOther(b, name, typ)
	}
}

func (s *fsSource) addFile(b *Batch, name string, size int64) {
	fsys := s.fsys
	b.Add(Object{Name: name, Size: size, Open: func() (io.ReadCloser, error) { return fsys.Open(name) }})
}

// addOther counts a link (not followed in an fs.FS) or a special file.
func (s *fsSource) addOther(b *Batch, name string, typ fs.FileMode) {
	if typ&fs.ModeSymlink != 0 {
		b.Skip(SkipSymlink)
		return
	}
	b.Skip(SkipSpecial)
	b.Warn(name, "open", fmt.Errorf("%w (%s)", ErrNotRegular, smallfile.Kind(typ)))
}
