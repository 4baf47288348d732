//go:build !linux && !windows

package archive

import "os"

// createSpool returns an open temporary file in dir that has no name: it
// is created and unlinked at once (see createTempUnlinked).
func createSpool(dir string) (*os.File, error) { return createTempUnlinked(dir) }
