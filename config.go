package spindle

import (
	"runtime"
	"time"
)

// QueueStrategy selects how tasks are queued.
type QueueStrategy uint8

const (
	// PerWorker gives each worker a bounded Chase-Lev ring with a LIFO next
	// slot; idle workers steal half of a victim's ring. The default, and the
	// right choice for tasks that spawn tasks.
	PerWorker QueueStrategy = iota
	// Shared puts every task on the one MPMC injector. Lower fixed cost per
	// worker; better for flat workloads of many independent tasks fed from
	// outside, worse for tasks that spawn tasks.
	Shared
)

func (q QueueStrategy) String() string {
	switch q {
	case PerWorker:
		return "PerWorker"
	case Shared:
		return "Shared"
	}
	return "QueueStrategy(?)"
}

// DefaultSeed seeds victim selection when Config.Seed is zero.
const DefaultSeed = 0x853c49e6748fea9b

// Config configures an Executor. The zero value is ready to use: every field
// has a default.
type Config struct {
	Workers     int           // default runtime.GOMAXPROCS(0)
	Seed        uint64        // victim-selection RNG seed; default DefaultSeed
	StealTries  int           // victims tried per idle round; default 4
	SpinIters   int           // idle rounds spun before parking; default 200
	ParkTimeout time.Duration // 0 = park until woken (default). Correctness never depends on it.
	PinThreads  bool          // Linux: LockOSThread + sched_setaffinity, one core per worker
	Queue       QueueStrategy // PerWorker (default) or Shared
	LocalCap    int           // per-worker ring capacity, rounded up to a power of two; default 256

	// OnPanic, if set, keeps the executor running when a task panics or
	// calls runtime.Goexit. It is called on the worker's goroutine, after
	// the task has unwound, with the worker's ID, the panic value (ErrGoexit
	// for a Goexit) and the stack of the panic. The task then counts as
	// finished, as if it had returned: tasks it spawned still run. After a
	// Goexit the worker goes on in a new goroutine. If OnPanic is nil (the
	// default), or itself panics, the first panic stops the run as
	// Shutdown does and Join returns it as a *PanicError.
	OnPanic func(worker int, value any, stack []byte)
}

func (c Config) withDefaults() Config {
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.StealTries <= 0 {
		c.StealTries = 4
	}
	if c.SpinIters <= 0 {
		c.SpinIters = 200
	}
	if c.LocalCap <= 0 {
		c.LocalCap = 256
	}
	if c.ParkTimeout < 0 {
		c.ParkTimeout = 0
	}
	return c
}
