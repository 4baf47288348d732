//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// closedAtStart reports whether f, a standard stream, was closed when the
// process started: the Go runtime then opens /dev/null read-write in its
// place, so that the number is not reused by a file the program opens. A
// shell's redirection to /dev/null (> /dev/null) opens it write-only, so a
// stream the user discards on purpose is not taken for a closed one.
func closedAtStart(f *os.File) bool {
	var st, null unix.Stat_t
	fd := int(f.Fd())
	if unix.Fstat(fd, &st) != nil || unix.Stat(os.DevNull, &null) != nil {
		return false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != null.Rdev {
		return false
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && flags&unix.O_ACCMODE == unix.O_RDWR
}
