//go:build linux

package report

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTemp opens an unnamed file in the target's directory (O_TMPFILE):
// until link gives it a name, it exists only for this process, so a kill
// leaves nothing. File systems without O_TMPFILE get a named one.
func (a *AtomicFile) createTemp() error {
	fd, err := unix.Open(filepath.Dir(a.target), unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
	if err != nil {
		return a.createNamedTemp()
	}
	a.f = os.NewFile(uintptr(fd), a.target+" (unnamed)")
	return nil
}

// link names an unnamed temporary file, through /proc/self/fd, so that it
// can be renamed over the target. Without /proc, the content is copied to a
// named temporary file instead.
func (a *AtomicFile) link() error {
	if a.temp != "" {
		return nil
	}
	dir, base := filepath.Split(a.target)
	for i := 0; i < 16; i++ {
		name := filepath.Join(dir, "."+base+"."+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(i)+".tmp")
		err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(a.f.Fd())), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if err == nil {
			a.temp = name
			return nil
		}
		if err != unix.EEXIST {
			return a.copyToNamed()
		}
	}
	return a.copyToNamed()
}

// copyToNamed copies the unnamed file's content into a named temporary file
// and makes that the one to rename.
func (a *AtomicFile) copyToNamed() error {
	unnamed := a.f
	if err := a.createNamedTemp(); err != nil {
		a.f = unnamed
		return err
	}
	named := a.f
	a.f = unnamed // Commit closes this one; the copy is closed here
	if mode, err := unnamed.Stat(); err == nil {
		named.Chmod(mode.Mode().Perm())
	}
	_, err := unnamed.Seek(0, 0)
	if err == nil {
		_, err = named.ReadFrom(unnamed)
	}
	if err == nil {
		err = named.Sync()
	}
	if cerr := named.Close(); err == nil {
		err = cerr
	}
	return err
}
