package smallfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error for a path that names something
// other than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file larger than the limit.
var ErrTooLarge = errors.New("file too large")

// Read returns the content of the regular file at path, which must hold at
// most limit bytes.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// ReadIn is Read for name inside root: the name and any link in it must
// stay inside root's directory (os.Root refuses those that leave it).
func ReadIn(root *os.Root, name string, limit int64) ([]byte, error) {
	st, err := root.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(name, st); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkOpen(f, name); err != nil {
		return nil, err
	}
	return readLimited(f, name, limit)
}

// Open opens the regular file at path for reading, for a caller that reads
// it in pieces; the caller closes it.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, err
	}
	if err := checkOpen(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkOpen checks the type of the file as opened, which may differ from
// what the name named when it was checked.
func checkOpen(f *os.File, name string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	return checkRegular(name, st)
}

func checkRegular(name string, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
	}
	return nil
}

// readLimited reads f whole, failing if it holds more than limit bytes.
func readLimited(f *os.File, name string, limit int64) ([]byte, error) {
	tooLarge := func() error {
		return &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %s", ErrTooLarge, Size(limit))}
	}
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, tooLarge()
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, tooLarge()
	}
	return data, nil
}

// Kind names the kind of a file that is not regular, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "mode " + m.String()
}

// Size prints a limit in binary units: 1 MiB, 64 KiB, 100 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
