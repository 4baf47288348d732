//go:build linux

package spindle

import (
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkIdleCPU measures the CPU an executor with no work burns over two
// seconds, as a percentage of one core (target: < 1%). Run with -benchtime 1x.
func BenchmarkIdleCPU(b *testing.B) {
	e := New(Config{Workers: 2}, nil, func(int, *Worker[int, noScratch]) {})
	time.Sleep(50 * time.Millisecond) // let the workers park
	var pct float64
	for b.Loop() {
		c0, t0 := cpuTime(), time.Now()
		time.Sleep(2 * time.Second)
		pct = 100 * float64(cpuTime()-c0) / float64(time.Since(t0))
	}
	b.ReportMetric(pct, "%core")
	if _, err := e.Join(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkTrickleCPU spawns one tiny task every millisecond for two seconds
// and reports the process's CPU as a percentage of one core (target: < 10%).
func BenchmarkTrickleCPU(b *testing.B) {
	e := New(Config{Workers: 2}, nil, func(int, *Worker[int, noScratch]) {})
	var pct float64
	for b.Loop() {
		c0, t0 := cpuTime(), time.Now()
		tick := time.NewTicker(time.Millisecond)
		for i := 0; i < 2000; i++ {
			<-tick.C
			if err := e.Spawn(i); err != nil {
				b.Fatal(err)
			}
		}
		tick.Stop()
		pct = 100 * float64(cpuTime()-c0) / float64(time.Since(t0))
	}
	b.ReportMetric(pct, "%core")
	if _, err := e.Join(); err != nil {
		b.Fatal(err)
	}
}
