//go:build !windows

package archive

import "os"

// createTempUnlinked is the portable way to an unnamed file: create a
// named one (0600, in dir) and remove its name at once, keeping it open.
// Between the two calls the file is empty, so a process killed there
// leaves an empty file, which holds nothing to read.
func createTempUnlinked(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, spoolPattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}
