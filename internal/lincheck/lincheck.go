package lincheck

import (
	"runtime"
	"testing"
	"time"
)

// Options tune a check; the zero value takes the defaults.
type Options struct {
	// Scale is the factor between the two sizes (default 8).
	Scale int
	// Slack is how much more than linear the cost may grow: the check
	// fails when cost(Scale·n) > Scale·Slack·cost(n) (default 3).
	Slack float64
	// Runs is how many timed runs of each size the best is taken from
	// (default 5; 3 under -short).
	Runs int
	// MinRun is the shortest timed run: calls shorter than this are
	// repeated within one run (default 10 ms; 4 ms under -short).
	MinRun time.Duration
	// Attempts is how many times a failed comparison is measured before
	// the check fails (default 3).
	Attempts int
	// NoAllocs skips the allocation comparison, for a function whose
	// allocations are not its own (a pool, a cache warmed at n).
	NoAllocs bool
	// Bytes is a floor for the allocation comparison: growth below this
	// many bytes at Scale·n is never a failure (default 64 KiB), so a
	// function that allocates nothing at n and a small fixed amount at
	// Scale·n passes.
	Bytes uint64
}

func (o Options) withDefaults() Options {
	if o.Scale == 0 {
		o.Scale = 8
	}
	if o.Slack == 0 {
		o.Slack = 3
	}
	if o.Runs == 0 {
		o.Runs = 5
		if testing.Short() {
			o.Runs = 3
		}
	}
	if o.MinRun == 0 {
		o.MinRun = 10 * time.Millisecond
		if testing.Short() {
			o.MinRun = 4 * time.Millisecond
		}
	}
	if o.Attempts == 0 {
		o.Attempts = 3
	}
	if o.Bytes == 0 {
		o.Bytes = 64 << 10
	}
	return o
}

// Size returns short under `go test -short` and full otherwise.
func Size(short, full int) int {
	if testing.Short() {
		return short
	}
	return full
}

// Cost is what one call at one size costs.
type Cost struct {
	CPU   time.Duration // per call, best of the runs
	Bytes uint64        // allocated per call
}

// Check builds the inputs make(n) and make(Scale·n) and fails t when
// calling run on the larger costs more than Scale·Slack times as much as
// on the smaller. make is not timed. run must do the same kind of work at
// both sizes (the same shape, only longer) and must not keep state between
// calls that makes a later call cheaper.
func Check[T any](t testing.TB, n int, make func(n int) T, run func(T), opt Options) {
	t.Helper()
	o := opt.withDefaults()
	small, large := make(n), make(o.Scale*n)
	bound := float64(o.Scale) * o.Slack
	var cs, cl Cost
	var cpuOK, bytesOK bool
	for attempt := 0; attempt < o.Attempts; attempt++ {
		cs = measure(o, small, run)
		cl = measure(o, large, run)
		cpuOK = cpuOK || float64(cl.CPU) <= bound*float64(max(cs.CPU, 1))
		bytesOK = bytesOK || o.NoAllocs || cl.Bytes <= o.Bytes ||
			float64(cl.Bytes) <= bound*float64(cs.Bytes)
		if cpuOK && bytesOK {
			break
		}
	}
	t.Logf("n=%d: %v/call, %d B/call; %d·n: %v/call (%.1f×), %d B/call (%.1f×); bound %.0f×",
		n, cs.CPU, cs.Bytes, o.Scale, cl.CPU, ratio(float64(cl.CPU), float64(cs.CPU)),
		cl.Bytes, ratio(float64(cl.Bytes), float64(cs.Bytes)), bound)
	if !cpuOK {
		t.Errorf("CPU time grows faster than linear: %v per call at n=%d, %v at %d·n (%.1f×, bound %.0f×)",
			cs.CPU, n, cl.CPU, o.Scale, ratio(float64(cl.CPU), float64(cs.CPU)), bound)
	}
	if !bytesOK {
		t.Errorf("allocation grows faster than linear: %d B per call at n=%d, %d B at %d·n (%.1f×, bound %.0f×)",
			cs.Bytes, n, cl.Bytes, o.Scale, ratio(float64(cl.Bytes), float64(cs.Bytes)), bound)
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// measure returns the best CPU time per call over o.Runs runs of run(in),
// each repeating the call until it lasts o.MinRun, and the bytes one call
// allocates.
func measure[T any](o Options, in T, run func(T)) Cost {
	c0 := cpuNow()
	run(in) // also warms caches and pools
	first := cpuNow() - c0
	reps := 1
	if first < o.MinRun {
		reps = int(o.MinRun/max(first, time.Microsecond)) + 1
	}
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	best := time.Duration(-1)
	for r := 0; r < o.Runs; r++ {
		c := cpuNow()
		for i := 0; i < reps; i++ {
			run(in)
		}
		d := (cpuNow() - c) / time.Duration(reps)
		if best < 0 || d < best {
			best = d
		}
	}
	runtime.ReadMemStats(&m1)
	return Cost{CPU: best, Bytes: (m1.TotalAlloc - m0.TotalAlloc) / uint64(o.Runs*reps)}
}

// Measure returns what one call of run(in) costs, measured as Check
// measures each size (default Options): for comparisons other than n
// against Scale·n, such as one shape of input against another.
func Measure[T any](in T, run func(T)) Cost {
	return measure(Options{}.withDefaults(), in, run)
}
