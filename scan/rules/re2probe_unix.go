//go:build unix

package rules

import "golang.org/x/sys/unix"

// re2Reservation is the address space go-re2 reserves for its WebAssembly
// memory when it first runs (4 GiB, committed only as used).
const re2Reservation = 4<<30 + 64<<10

// re2Fits reports whether the process may reserve go-re2's address space:
// under a virtual-memory limit (ulimit -v) below it, go-re2 would panic on
// its first match, so the rules match with the standard library instead
// (the same findings, more slowly).
func re2Fits() bool {
	b, err := unix.Mmap(-1, 0, re2Reservation, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return false
	}
	unix.Munmap(b)
	return true
}
