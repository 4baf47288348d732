package spindle

import "github.com/spindle-go/spindle/internal/core"

// WorkerMetrics are one worker's counters. Each worker writes its own without
// contention; Metrics merges them.
type WorkerMetrics struct {
	TasksRun       uint64 // tasks this worker ran
	LocalPops      uint64 // tasks taken from its own next slot or ring
	InjectorPops   uint64 // tasks taken from the injector
	StealAttempts  uint64 // victims tried
	StealSuccesses uint64 // steals that took at least one task
	TasksStolen    uint64 // tasks moved from victims (a steal takes up to half a ring)
	Spills         uint64 // times its full ring moved half of itself to the injector
	Parks          uint64 // times it blocked for lack of work
	Wakeups        uint64 // parked siblings it woke
}

// Metrics is a snapshot of an executor's counters.
type Metrics struct {
	Workers   []WorkerMetrics // one row per worker
	Total     WorkerMetrics   // sum of the rows
	Queued    int             // tasks in the injector at snapshot time
	InFlight  uint64          // accepted, not yet finished (live snapshots only)
	Abandoned uint64          // accepted tasks that never ran because of Shutdown or a panic (Join only)
}

func fromCounters(c core.Counters) WorkerMetrics {
	return WorkerMetrics(c)
}

func newMetrics(rows []WorkerMetrics, queued int) Metrics {
	m := Metrics{Workers: rows, Queued: queued}
	for _, r := range rows {
		t := &m.Total
		t.TasksRun += r.TasksRun
		t.LocalPops += r.LocalPops
		t.InjectorPops += r.InjectorPops
		t.StealAttempts += r.StealAttempts
		t.StealSuccesses += r.StealSuccesses
		t.TasksStolen += r.TasksStolen
		t.Spills += r.Spills
		t.Parks += r.Parks
		t.Wakeups += r.Wakeups
	}
	return m
}
