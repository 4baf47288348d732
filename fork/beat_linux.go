//go:build linux

package fork

import (
	"syscall"
	"time"
)

// sleepBeat sleeps for d in the kernel: a goroutine in a system call wakes
// on the operating system's timer, about 50µs late on a virtual machine,
// where time.Sleep waits for the runtime's timer, which rounds a wait
// below a millisecond up to one when every other goroutine is parked.
func sleepBeat(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
