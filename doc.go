// Package spindle is a work-stealing executor for CPU-bound Go work: typed
// tasks on a fixed set of workers, each worker with its own scratch state,
// its own bounded deque, and a way to spawn more work that costs less than a
// goroutine by an order of magnitude.
//
//	e := spindle.New(spindle.Config{}, nil, func(n int, w *spindle.Worker[int, struct{}]) {
//		if n > 0 {
//			w.Spawn(n - 1) // onto this worker's deque; idle workers steal
//		}
//	})
//	e.Spawn(1000)
//	metrics, err := e.Join() // drain everything, stop the workers
//
// # Why not goroutines
//
// A goroutine per task costs 0.3–1.5 µs and a heap-allocated stack, and every
// popular pool (ants, pond, conc, errgroup) puts one shared queue in front of
// the Go scheduler. Spindle keeps tasks as values of your type T (no closure
// per task, no interface boxing), queues them on per-worker rings, and only
// touches shared memory when a worker runs out of its own work. A task that
// spawns one successor costs no atomic operation at all; see BENCHMARKS.md
// for the numbers against goroutines, errgroup, conc, pond and ants.
//
// # Design
//
// The executor implements the seed design in shared/seeds/executor.md (the
// scanner-scheduler executor) with the weak points fixed:
//
//   - The gate word: one atomic (inFlight<<1)|accepting. External spawn is a
//     CAS that adds only while accepting; a spawn from inside a task is a plain
//     add; completion subtracts; Join clears the accepting bit; exactly one
//     party sees the word reach zero and ends the run. This removes the
//     check-then-add race between Spawn and Join.
//   - Bounded queues: each worker has a power-of-two Chase-Lev ring
//     (Config.LocalCap, default 256) plus a LIFO next slot; a full ring moves
//     half of itself to the shared injector, so no per-worker queue grows
//     without bound. Thieves take half of a victim's ring per steal, not one
//     task.
//   - Lost-wakeup-free parking: a worker announces itself idle, re-checks every
//     queue, and only then blocks; a spawner that sees idle workers and no
//     searcher claims one and wakes it. Correctness never depends on
//     Config.ParkTimeout (0 by default), and an idle executor burns no CPU.
//   - Wake-on-hoard: when nobody is searching for work, a worker that pushes
//     onto its own ring wakes a parked sibling as soon as the ring goes from
//     empty to non-empty, and again after every 32 pushes.
//   - Panics: a panicking task is recovered, its count released, the first
//     panic kept with its stack; the run stops as with Shutdown and Join
//     returns a *PanicError. Nothing hangs and no goroutine leaks.
//
// The policy (pop order, one worker step, spills, steals, idle and wake
// decisions) lives in internal/core, shared with the deterministic simulator
// in package sim, which checks the invariants after every step of seeded and
// scripted schedules and explores every interleaving of the gate word's
// races. The queues are in internal/deque.
//
// # Lifecycle and guarantees
//
//   - Spawn and SpawnBatch return ErrClosed once the executor is closed; the
//     caller keeps its task. SpawnBatch is all or nothing.
//   - Join drains every accepted task, including tasks they spawn, then stops
//     the workers and returns exact Metrics.
//   - Shutdown abandons queued tasks: after it returns, no queued task starts,
//     except at most one per worker that the worker had already taken off a
//     queue and checked the stop flag for (a window of a few instructions;
//     making it empty would mean Shutdown waiting for workers, which it
//     cannot do when a task calls it).
//   - Worker methods are for the task that received the *Worker, on its
//     goroutine, during its run call. Handle is for everyone else.
//
// # Observability
//
// Metrics has per-worker rows (tasks run, local pops, injector pops, steal
// attempts and successes, tasks stolen, spills, parks, wakeups), written by
// each worker without contention. Worker goroutines carry the pprof label
// spindle.worker=ID, so CPU profiles split by worker. Config.PinThreads pins
// each worker's thread to one core on Linux.
package spindle
