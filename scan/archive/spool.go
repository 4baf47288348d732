package archive

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// spooled is a zip or 7z copied from a stream to where it can be read at
// random.
type spooled struct {
	ra   io.ReaderAt
	size int64
	file *os.File // nil when the archive fit in memory
}

// close releases the temporary file, if any. The walker defers it as soon
// as the file exists, so it runs however the walk of the archive ends, a
// panic in visit included. The file has no name by then (see
// createSpool): closing it is all there is to removing it.
func (s *spooled) close() {
	if s.file != nil {
		s.file.Close()
	}
}

// spoolPattern names temporary files while they have a name, so that one
// seen in a directory listing says whose it is.
const spoolPattern = "spindle-archive-*.spool"

// spool copies the archive read from r: the first Limits.SpoolMemory bytes
// to memory, the rest, if any, with them to a temporary file in
// Limits.TempDir. limit caps the copy (negative: no cap; a nested
// archive's reader already enforces its parent's budgets). The returned
// spooled, if not nil, must be closed even when err is not nil.
//
// A zip needs random access because its directory is at its end, and a
// member's data can only be found from the directory; so does a 7z, whose
// header is at its end. Reading a zip's local headers front to back
// instead would need no spool, but it misreads archives whose directory
// disagrees with their local headers (deleted or updated entries,
// prepended stubs) and cannot find the end of a stored member written
// with a data descriptor.
//
// The temporary file holds decoded archive content, secrets included, so
// it is made so that nothing is left behind for anyone to read or collect
// however the process ends, SIGKILL included: it has no name in any
// directory from the moment it is created (createSpool).
func (w *walker) spool(path []string, r io.Reader, limit int64, mr *memberReader) (*spooled, error) {
	if limit >= 0 && limit < 1<<62 {
		r = io.LimitReader(r, limit+1) // one byte more tells "over" from "exactly full"
	}
	mem := w.lim.SpoolMemory
	buf := make([]byte, 0, min(mem, 64<<10)+1)
	var err error
	for int64(len(buf)) <= mem {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*int64(cap(buf)), mem+1))
			copy(grown, buf)
			buf = grown
		}
		var n int
		n, err = r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			break
		}
	}
	if err == io.EOF {
		if limit >= 0 && int64(len(buf)) > limit {
			return nil, w.spoolOver(path, limit)
		}
		return &spooled{ra: bytes.NewReader(buf), size: int64(len(buf))}, nil
	}
	if err != nil {
		return nil, w.spoolErr(path, err, mr)
	}

	f, err := createSpool(w.lim.TempDir)
	if err != nil {
		return nil, &FormatError{Name: strings.Join(path, "!"), Err: fmt.Errorf("spool: %w", err), Lost: true}
	}
	s := &spooled{ra: f, file: f}
	if _, err := f.Write(buf); err != nil {
		return s, &FormatError{Name: strings.Join(path, "!"), Err: fmt.Errorf("spool: %w", err), Lost: true}
	}
	n, err := io.Copy(f, r)
	s.size = int64(len(buf)) + n
	if err != nil {
		return s, w.spoolErr(path, err, mr)
	}
	if limit >= 0 && s.size > limit {
		return s, w.spoolOver(path, limit)
	}
	return s, nil
}

// spoolOver reports a top-level archive too large to spool.
func (w *walker) spoolOver(path []string, limit int64) error {
	if err := w.budget(&BudgetError{Archive: strings.Join(path, "!"), Budget: BudgetArchiveBytes, Limit: limit}); err != nil {
		return err
	}
	return errWarned
}

// spoolErr sorts out an error met while spooling: the walk stopping, the
// enclosing member's data breaking (the parent handles that), or an I/O
// error, which makes the archive unreadable.
func (w *walker) spoolErr(path []string, err error, mr *memberReader) error {
	if stop := w.stopped(); stop != nil {
		return stop
	}
	if mr != nil && mr.err != nil {
		return mr.err
	}
	return &FormatError{Name: strings.Join(path, "!"), Err: fmt.Errorf("spool: %w", err), Lost: true}
}
