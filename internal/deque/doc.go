// Package deque holds the queues the executor is built from: a bounded
// Chase-Lev ring per worker, an unbounded injector shared by everyone, and a
// bitmask of workers.
//
// # Ring
//
// Ring[T] is the work-stealing deque of Chase and Lev ("Dynamic Circular
// Work-Stealing Deque", SPAA 2005) in its bounded form, as Tokio and the Go
// runtime use it: a power-of-two array of slots, an owner that pushes and pops
// at the bottom without read-modify-write operations, and thieves that take
// from the top with a CAS. Bounding it is deliberate: a worker that produces
// faster than it consumes spills half of its ring into the injector instead of
// growing without limit (the weak point of the seed executor's unbounded
// crossbeam deques), and a thief steals up to half of a victim's ring at once
// (the seed took one task per steal).
//
// Go adds one constraint the C and Rust versions do not have: a value may not be
// read while another goroutine might be writing it, even if the read is then
// discarded, because that is a data race under the Go memory model and the race
// detector. Thieves therefore claim a position with the CAS first and read the
// slot afterwards, and every slot carries a sequence number that tells the
// owner when the thief has finished reading so the slot can be reused. The
// details are in Ring's comment.
//
// # Injector
//
// Injector[T] is an unbounded MPMC FIFO: a linked list of fixed-size segments
// behind a mutex, with a lock-free length. It is the entry point for tasks
// from outside the executor and the overflow for full rings. Consumers take
// batches of up to half a ring, so one lock acquisition moves many tasks.
// Drained segments are recycled through a per-type sync.Pool, so bursts of
// millions of tasks do not turn into megabytes of garbage each time.
//
// # Bitmask
//
// Bitmask is a set of worker indexes spread over as many 64-bit words as
// needed, so executors with more than 64 workers work. It answers "which ring
// may have work" and "which worker is parked" with a load or two.
package deque
