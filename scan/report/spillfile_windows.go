//go:build windows

package report

import (
	"os"

	"golang.org/x/sys/windows"
)

// openSpill creates a run file that Windows deletes when its handle is
// closed, even if the process is killed: an open file cannot be unlinked
// there, so FILE_FLAG_DELETE_ON_CLOSE takes the place of the early unlink.
// Where that flag is refused, the file is an ordinary one that removeSpill
// deletes at Close; a killed process then leaves it behind in dir.
func openSpill(dir string) (f *os.File, name string, err error) {
	probe, err := os.CreateTemp(dir, spillPattern)
	if err != nil {
		return nil, "", err
	}
	name = probe.Name()
	probe.Close()
	f, err = os.OpenFile(name, os.O_RDWR|os.O_TRUNC|windows.O_FILE_FLAG_DELETE_ON_CLOSE, 0o600)
	if err == nil {
		// The name goes with the last handle; nothing is left to remove.
		return f, "", nil
	}
	f, err = os.OpenFile(name, os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		os.Remove(name)
		return nil, "", err
	}
	return f, name, nil
}
