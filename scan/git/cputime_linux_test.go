package git

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling thread has used (the caller locks
// it to its thread): what a linearity check compares, since wall time on
// a loaded machine measures the other processes too.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
