package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// A repository is a tree of files someone else may have made: any of
// them may be a FIFO, a device or a link to one, or far larger than git
// would ever write. Every file this package reads is opened without
// blocking and read only if it is a regular file within a size limit.

// errNotRegular is the error for a metadata file that is not a regular
// file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading if it is a regular file (following
// symbolic links, as git does), without blocking on a FIFO.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	}
	return f, st, nil
}

// readLimited reads a regular file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", limit)}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", limit)}
	}
	return b, nil
}

// readSmall reads a small metadata file (HEAD, a ref, commondir, a .git
// file): a regular file of at most 64 KiB.
func readSmall(path string) ([]byte, error) { return readLimited(path, 64<<10) }
