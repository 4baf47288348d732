package archive

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// createSpool returns an open temporary file in dir that has no name: on
// Linux, O_TMPFILE creates it unnamed in the first place, so there is no
// moment at which another process could open it or a crash could leave
// it. File systems without O_TMPFILE (and kernels before 3.11) fall back
// to creating a named file and unlinking it at once.
func createSpool(dir string) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) ||
		errors.Is(err, unix.ENOENT) && dirExists(dir) {
		return createTempUnlinked(dir)
	}
	return nil, err
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
