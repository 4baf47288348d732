//go:build unix

package fork_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/spindle-go/spindle/fork"
)

// BenchmarkIdlePool reports the CPU an idle pool uses, as a percentage of
// one core, measured over 100ms after a burst of work (a Call and a
// Recurse): the workers park, and so does the beater once no Recurse runs,
// so it should be about zero.
func BenchmarkIdlePool(b *testing.B) {
	p := fork.NewPool(fork.Config{Workers: 4})
	defer p.Close()
	sink = fork.Call(p, sumFork, balanced(1, 1<<16-1))
	sink = fork.Recurse(p, sumRec, balanced(1, 1<<16-1))
	var cpu, wall time.Duration
	for b.Loop() {
		c0, w0 := processCPU(), time.Now()
		time.Sleep(100 * time.Millisecond)
		cpu += processCPU() - c0
		wall += time.Since(w0)
	}
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%cpu")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
