package gitrepo

import (
	"os"

	"github.com/spindle-go/spindle/internal/smallfile"
)

// A repository is a tree of files someone else may have made: any of
// them may be a FIFO, a device or a link to one, or far larger than git
// would ever write. Every file this package reads is opened without
// blocking and read only if it is a regular file within a size limit
// (package smallfile).

// openRegular opens path for reading if it is a regular file (following
// symbolic links, as git does), without blocking on a FIFO.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := smallfile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// readLimited reads a regular file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) { return smallfile.Read(path, limit) }

// readSmall reads a small metadata file (HEAD, a ref, commondir, a .git
// file): a regular file of at most 64 KiB.
func readSmall(path string) ([]byte, error) { return readLimited(path, 64<<10) }
