// Package spindle is a work-stealing executor for CPU-bound Go work: typed
// tasks on a fixed set of workers, each worker with its own scratch state,
// its own bounded deque, and a way to spawn more work that costs less than a
// goroutine by an order of magnitude.
//
//	e := spindle.Start(ctx, spindle.Config{}, func(n int, w *spindle.Spawner[int]) {
//		if n > 0 {
//			w.Spawn(n - 1) // onto this worker's deque; idle workers steal
//		}
//	})
//	e.Spawn(1000)
//	err := e.Close() // drain everything, stop the workers
//
// Start is for tasks that need no per-worker state; New and NewContext take
// a function that builds each worker's Scratch, which tasks then use without
// locking (buffers, caches, matchers).
//
// # Why not goroutines
//
// A goroutine per task costs 0.3–1.5 µs and a heap-allocated stack, and every
// popular pool (ants, pond, conc, errgroup) puts one shared queue in front of
// the Go scheduler. Spindle keeps tasks as values of your type T (no closure
// per task, no interface boxing), queues them on per-worker rings, and only
// touches shared memory when a worker runs out of its own work. A task that
// spawns one successor costs no atomic operation at all; the benchmarks in
// this package and in the repository's bench module measure it against
// goroutines, errgroup, conc, pond and ants.
//
// # Design
//
// The executor follows the work-stealing pool of a Rust secret scanner:
// per-worker deques that pop LIFO and are stolen from FIFO, a global
// injector for external producers, one atomic state word, tiered idling
// (spin, yield, park), and the scheduling policy kept apart from the threads
// so that a simulator can drive it. That pool used crossbeam's unbounded
// deques, stole one task at a time and parked with a 200µs timeout; this one
// keeps the shape and fixes those weak points:
//
//   - The gate word: one atomic (inFlight<<1)|accepting. External spawn is a
//     CAS that adds only while accepting; a spawn from inside a task is a plain
//     add; completion subtracts; Join clears the accepting bit; exactly one
//     party sees the word reach zero and ends the run. Two separate atomics
//     would let a spawn check "accepting", lose the CPU while Join closes
//     and sees zero tasks, then add a task nobody waits for.
//   - Bounded queues: each worker has a power-of-two Chase-Lev ring
//     (Config.LocalCap, default 256) plus a LIFO next slot; a full ring moves
//     half of itself to the shared injector, so no per-worker queue grows
//     without bound. Thieves take half of a victim's ring per steal, not one
//     task.
//   - Lost-wakeup-free parking: a worker announces itself idle, re-checks every
//     queue, and only then blocks; a spawner that sees idle workers and no
//     searcher claims one and wakes it. Correctness never depends on
//     Config.ParkTimeout (0 by default), and an idle executor burns no CPU.
//   - Injected work in batches: a worker takes a batch from the injector (at
//     most half a ring, at most its share of what is queued) and runs it
//     privately, without a ring operation per task, until a sibling looks
//     for work; then it moves the rest onto its ring for stealing. Tasks
//     are run by calling the run function directly from the worker loop.
//   - Wake-on-hoard: when nobody is searching for work, a worker that pushes
//     onto its own ring wakes a parked sibling as soon as the ring goes from
//     empty to non-empty, and again after every 32 pushes.
//
// The policy (pop order, one worker step, spills, steals, idle and wake
// decisions) lives in internal/core, shared with the deterministic simulator
// in package sim, which checks the invariants after every step of seeded and
// scripted schedules and explores every interleaving of the gate word's
// races. The queues are in internal/deque.
//
// # Lifecycle and guarantees
//
// An Executor runs once, from New (or NewContext, or Start) to Close, Join or
// Shutdown, with the standard library's vocabulary:
//
//   - Spawn and SpawnBatch return ErrClosed once the executor is closed; the
//     caller keeps its task. SpawnBatch is all or nothing. A zero Handle
//     belongs to no executor and reports ErrClosed too.
//   - Close drains every accepted task, including tasks they spawn, then
//     stops the workers and returns the run's error. Join does the same and
//     also returns exact Metrics. Both may be called more than once.
//   - Shutdown abandons queued tasks: after it returns, no queued task starts,
//     except at most one per worker that the worker had already taken off a
//     queue and checked the stop flag for (a window of a few instructions;
//     making it empty would mean Shutdown waiting for workers, which it
//     cannot do when a task calls it).
//   - The context given to NewContext or Start stops the executor as
//     Shutdown does when it is done, and Close then returns its cause.
//     Tasks see it through Worker.Context.
//   - Panics: a panicking task is recovered, its count released, the first
//     panic kept with its stack; the run stops as with Shutdown and Close
//     returns a *PanicError. A task that calls runtime.Goexit (t.FailNow in
//     a test) counts as a panic whose value is ErrGoexit. With
//     Config.OnPanic set, the handler is called instead and the run goes
//     on: the task counts as finished, and a worker whose goroutine Goexit
//     ended goes on in a new one. Nothing hangs and no goroutine leaks.
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
