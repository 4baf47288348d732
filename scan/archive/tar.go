package archive

import (
	"archive/tar"
	"errors"
	"io"
)

// walkTar streams the members of the tar read from src. Only regular files
// reach visit; directories, links, devices and FIFOs are counted as entries
// and skipped (a link is never followed, and nothing is ever written to
// disk, so a member named "../../etc/passwd" is only a name). archive/tar
// bounds the metadata it holds: PAX records and GNU long names and sparse
// maps are capped at 1 MiB.
//
// A tar is a stream: once its data is broken nothing after it can be
// trusted, so the first data error ends the archive.
func (w *walker) walkTar(l *level, src io.Reader) error {
	tr := tar.NewReader(src)
	for {
		if err := w.check(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if stop := w.stopped(); stop != nil {
				return stop
			}
			var fe *FormatError
			if errors.As(err, &fe) { // the enclosing member's data broke
				return fe
			}
			return &FormatError{Name: l.name, Err: err}
		}
		if err := w.countEntry(l); err != nil {
			return err
		}
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
		default:
			continue
		}
		path := child(l, hdr.Name)
		mr := w.member(l, path, tr)
		if err := w.stream(path, mr, nil, hdr.Size, mr); err != nil {
			return err
		}
		if mr.err != nil { // a nested level reported it; the stream is broken
			return errWarned
		}
	}
}
