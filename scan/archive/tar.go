package archive

import (
	"archive/tar"
	"errors"
	"io"
	"strings"
)

// walkTar streams the members of the tar read from src. Only regular files
// reach visit; directories, links, devices and FIFOs are counted as entries
// and skipped (a link is never followed, and nothing is ever written to
// disk, so a member named "../../etc/passwd" is only a name). archive/tar
// bounds the metadata it holds: PAX records and GNU long names and sparse
// maps are capped at 1 MiB.
//
// A tar is a stream, so skipping a member means reading past it. A member
// over MaxMemberBytes, or one past MaxEntries, is read on and discarded
// (its bytes count against the archive and the root, and the ratio and the
// clocks still apply) and named in a warning; the next member is read as
// usual. Once the data is broken nothing after it can be trusted, so the
// first data error ends the archive.
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
			return &FormatError{Name: l.name, Err: err, Lost: l.entries > 0}
		}
		over := w.countEntry(l)
		switch hdr.Typeflag {
		case tar.TypeReg, tar.TypeGNUSparse, tar.TypeCont:
		default:
			continue
		}
		path := child(l, hdr.Name)
		if over {
			if err := w.budget(&BudgetError{Archive: l.name, Member: strings.Join(path, "!"), Budget: BudgetEntries, Limit: int64(w.lim.MaxEntries)}); err != nil {
				return err
			}
			if err := w.skipTarMember(l, path, tr); err != nil {
				return err
			}
			continue
		}
		if l.ratio != nil {
			l.ratio.rebase()
		}
		mr := w.member(l, path, tr)
		if err := w.stream(path, mr, nil, hdr.Size, mr); err != nil && w.trip == nil {
			return err
		}
		if t := w.trip; t != nil {
			if t.at != memberScope(l.index) {
				return t.err
			}
			if err := w.memberDone(l, strings.Join(path, "!")); err != nil {
				return err
			}
			if err := w.skipTarMember(l, path, tr); err != nil {
				return err
			}
			continue
		}
		if mr.err != nil { // a nested level reported it; the stream is broken
			return errWarned
		}
	}
}

// skipTarMember reads the rest of the current member of tr and discards
// it, under the archive's budgets and clocks.
func (w *walker) skipTarMember(l *level, path []string, tr io.Reader) error {
	mr := w.member(l, path, tr)
	mr.discard = true
	if w.scratch == nil {
		w.scratch = make([]byte, bufSize)
	}
	for {
		_, err := mr.Read(w.scratch)
		if err == nil {
			continue
		}
		if stop := w.stopped(); stop != nil {
			return stop
		}
		if err == io.EOF {
			return nil
		}
		if mr.err != nil {
			return mr.err // the data broke: so has the stream
		}
		return err
	}
}
