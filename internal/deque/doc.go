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
// growing without limit (the weak point of unbounded deques such as
// crossbeam's, which the design this executor follows used), and a thief
// steals up to half of a victim's ring at once instead of one task.
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
// Drained segments are recycled at two levels, so bursts of millions of
// tasks do not turn into megabytes of garbage each time: each injector keeps
// up to maxSpareSegments (8) drained segments of its own, reused without
// leaving its lock, and hands the rest to a sync.Pool per task type shared
// by every injector of that type, which serves the next burst or the next
// executor and which the garbage collector may empty when it goes unused.
//
// # Bitmask
//
// Bitmask is a set of worker indexes spread over as many 64-bit words as
// needed, so executors with more than 64 workers work. It answers "which ring
// may have work" and "which worker is parked" with a load or two.
package deque
