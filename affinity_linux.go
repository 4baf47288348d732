package spindle

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// pinToCore binds the calling OS thread to one CPU, chosen round-robin over
// the CPUs this process may use. Failure is ignored: pinning is a hint.
func pinToCore(worker int) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return
	}
	n := allowed.Count()
	if n == 0 {
		n = runtime.NumCPU()
	}
	k := worker % n
	for cpu := 0; cpu < 1024; cpu++ {
		if !allowed.IsSet(cpu) {
			continue
		}
		if k == 0 {
			var set unix.CPUSet
			set.Set(cpu)
			_ = unix.SchedSetaffinity(0, &set)
			return
		}
		k--
	}
}
