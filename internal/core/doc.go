// Package core is the one copy of Spindle's scheduling policy. The executor
// (package spindle) runs it on goroutines; the simulator (package sim) runs it
// on virtual workers in one goroutine. Keeping the policy here, with the
// blocking and the goroutines left to the callers, means a schedule the
// simulator proves correct is a schedule the executor can take.
//
// # The gate word
//
// State packs (inFlight << 1) | accepting into one atomic word (see State).
// External spawns CAS the count up only while accepting; internal spawns add;
// completions subtract; Close clears the bit; whoever produces the value 0 ends
// the run, exactly once.
//
// # Where tasks live and the order they are taken
//
// Each worker has a LIFO next slot and a bounded Chase-Lev ring; everyone
// shares the injector. A worker takes work in this order:
//
//  1. its next slot (the task its last task spawned first: hot in cache);
//  2. every 61st task, the injector first, so external work cannot starve;
//  3. its own ring, newest first, claiming a few tasks per fence;
//  4. a batch from the injector: up to half a ring and at most a 1/workers
//     share of what is queued, one task run at once and the rest held
//     privately, run in order without touching the ring (a stream of tiny
//     injected tasks costs one lock per batch and no atomic operation per
//     task), until a sibling searches for work or parks: the worker then
//     moves what is left onto its ring, where the sibling can steal it, and
//     wakes it if it is parked;
//  5. up to StealTries victims, chosen from the work bitmask starting at a
//     random worker, taking half of the first non-empty victim's ring.
//
// A full ring moves its older half to the injector in one batch (a spill), so
// nothing is dropped and no worker's queue grows without bound.
//
// # Cheap spawns
//
// The first task a running task spawns goes into the next slot and takes over
// the spawner's unit in the gate word when the spawner returns, so a task that
// spawns one successor costs no atomic operation. Completions are released to
// the gate word in batches of up to 64 (a worker always settles before it
// looks beyond its own queues, so the run still ends as soon as the last
// worker runs dry). Counters are plain fields, published every 256 tasks and
// at every park.
//
// # Idle and wake-up protocol
//
// A worker that finds nothing becomes a searcher (counted in spinning) and
// asks its IdlePolicy what to do: spin, yield, or park. Parking is two-phase:
// PrepareParking leaves the searching state, sets the worker's bit in the idle
// bitmask, and re-checks every queue; only if all are empty does the caller
// block. A publisher of work (Spawn, SpawnBatch, SpawnGlobal, a push that
// makes a ring non-empty or that has hoarded WakeOnHoard tasks) stores the
// work, then wakes a parked worker if nobody is searching. With sequentially
// consistent atomics, either the publisher sees the idle bit or the parking
// worker's re-check sees the work: no wakeup is lost, so the executor needs no
// park timeout. A waker claims a worker by clearing its idle bit (TryClear),
// so two wakers never wake the same worker for one piece of work, and the
// claimed worker counts as a searcher at once. A searcher that finds work and
// was the last one wakes another if more work is visible: bursts ramp up
// worker by worker without a thundering herd, and a lone task every
// millisecond wakes one worker, not all of them.
package core
