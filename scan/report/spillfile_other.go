//go:build !windows

package report

import "os"

// openSpill creates a run file and unlinks it at once: the open descriptor
// keeps the data reachable for this process only, and the space returns to
// the file system when the descriptor closes, however the process ends.
// Nothing is left for removeSpill to do, so the returned name is empty,
// unless the unlink failed, in which case it is the name to remove later.
func openSpill(dir string) (f *os.File, name string, err error) {
	f, err = os.CreateTemp(dir, spillPattern)
	if err != nil {
		return nil, "", err
	}
	if err := os.Remove(f.Name()); err != nil {
		return f, f.Name(), nil
	}
	return f, "", nil
}
