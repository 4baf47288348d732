// Package fork is heartbeat-scheduled fork/join: recursive code forks at
// every node, and the pool decides how much of that potential parallelism
// is worth paying for, so there is no grain size to tune.
//
//	p := fork.NewPool(fork.Config{})
//	defer p.Close()
//	total := fork.Call(p, sum, root)
//
//	func sum(t *fork.Task, n *Node) int {
//		if n.Left == nil || n.Right == nil {
//			return sumSeq(n)
//		}
//		var f fork.Future[*Node, int]
//		f.Fork(t, sum, n.Right)
//		s := n.Val + sum(t, n.Left)
//		r, ok := f.Join(t)
//		if !ok {
//			r = sum(t, n.Right) // nobody took the fork: call it here
//		}
//		return s + r
//	}
//
// A function that forks calls of itself can use Frames instead, whose
// forks cost less than half as much (see What an untaken fork costs):
//
//	total := fork.Recurse(p, sumRec, root)
//
//	func sumRec(f *fork.Frame[*Node, int], n *Node) int {
//		if n.Left == nil || n.Right == nil {
//			return sumSeq(n)
//		}
//		g := f.Fork(n.Right) // a call of sumRec itself, in a frame on the stack
//		s := n.Val + sumRec(&g, n.Left)
//		return s + g.Join(sumRec) // sumRec(f, n.Right) unless a worker took it
//	}
//
// # The scheme
//
// The package implements Spice (github.com/judofyr/spice), itself after
// Acar, Charguéraud, Guatto, Rainey and Sieczkowski's heartbeat scheduling.
// A fork does not create a task anybody can see. It pushes a record on the
// forking worker's own job stack, and Join pops it; when nobody took the
// job, Join reports false and the caller makes the call itself, so an
// untaken fork costs a push and a pop: no allocation, no atomic
// read-modify-write, no goroutine, no lock. Parallelism comes from the
// heartbeat: every Config.Heartbeat (100µs by default), a busy worker that
// sees an idle worker promotes the oldest record on its stack (the biggest
// piece of work left, since older forks sit closer to the root) to a ready
// list that idle workers take from. Scheduling work is thus paid once per
// heartbeat, not once per fork: 100 ns of bookkeeping every 100µs is 0.1%.
// Work that finishes within one heartbeat never leaves its worker, so small
// inputs run at about the speed of plain recursive code, where fork/join
// with a deque per worker (Rayon, or a goroutine per fork) pays tens of
// nanoseconds to microseconds per fork.
//
// # The heartbeat
//
// Spice sets each worker's heartbeat flag from a dedicated thread. In Go
// that thread would be a goroutine, and with as many workers as GOMAXPROCS
// a sleeping goroutine gets a P back only when a worker blocks or at the
// scheduler's 10ms preemption tick: measured, a 100µs ticker goroutine beat
// 24 times in 500ms while two goroutines kept two Ps busy, against 5000
// expected. So for Futures and loops each worker keeps its own clock.
// Join, Tick, and For and Reduce (per index) count down a per-Task
// countdown, in a word only its owner touches (Join's pop and its tick are
// one add); when it runs out, the worker reads the monotonic clock (about
// 25ns) and, once a heartbeat has passed, promotes. The countdown adapts so
// that the clock is read about four times per heartbeat, whatever the cost
// of the code between two ticks. Promotion only happens when some worker is
// idle, so a fully busy pool, or a pool of one worker, pays nothing but the
// countdown.
//
// Frames count nothing: their heartbeat comes from the idle side, where a
// beat is only needed when a worker is idle, and that worker is awake. An
// idle worker polls for work (see Idle workers) and reads the clock between
// rounds of polls; every heartbeat, while a Recurse runs, it stores 1 in
// the signal word of each Task's innermost running Recurse (Pool.beat; of
// two idle workers at once, one does, by a compare-and-swap on the time of
// the last beat). The busy worker's next Join sees the word (its fast path
// loads it anyway) and promotes. Once every idle worker has parked, a
// beater goroutine takes over, on the runtime's timer: a timer wakes a
// goroutine no sooner than a millisecond when the other processors are
// parked, so beats come every millisecond then, and a parked worker is
// woken by the first promotion. (A kernel sleep would keep time, but
// while a goroutine sleeps in a system call its processor is handed to
// others only when the scheduler's monitor takes it back, up to 10ms
// later, leaving a worker without one.) The beater parks while no Recurse
// runs or no worker is idle.
//
// Two exceptions shorten the idle worker's wait without adding to the
// busy workers' cost. The first beat of a Recurse comes a quarter
// heartbeat after its start, not a whole one: the idle worker of a 2ms
// computation on two workers would otherwise wait 5% of it for its first
// piece, while a computation of a few microseconds still never pays for a
// promotion. And a worker that becomes idle after a heartbeat or more of
// work beats at once, whatever the time since the last beat: a promotion
// per heartbeat of work done is what the heartbeat allows anyway, and the
// worker that has just finished a big piece does not wait up to a
// heartbeat for the next (BenchmarkTreeSum's trace, with -tags
// forktrace: on the 2^20-node tree on two workers, the second worker is
// idle 2–3% of the computation, against 10% without these two rules).
//
// # Idle workers
//
// A worker with nothing to do (or a joiner whose job another worker runs and
// that finds no other ready job) lists itself as idle and waits for a token
// on its own channel: the worker that publishes a job, or finishes the
// joiner's, removes it from the list and sends the token. A parked goroutine
// comes back through the Go scheduler and, once its thread has gone to
// sleep, through the kernel; on the 2-core virtual machines this package is
// measured on, that takes 100 to 200µs from the send to the goroutine
// running (BenchmarkWakeUp): longer than a heartbeat, and about a tenth of
// the 2^20-node benchmark tree's run on two workers. So an idle worker first
// polls its channel, yielding the processor between rounds of polls
// (runtime.Gosched, so that busy goroutines are not held up when there are
// more workers than processors), and sees the token within a microsecond. It
// parks after three heartbeats (at most a millisecond) without one, which
// covers the wait for the next promotion, within a Call or at the start of
// the next; so an idle pool's workers park three heartbeats after their last
// job, and an idle pool uses no CPU. A polling worker that finds it has lost
// its processor (more than 20µs between two rounds of polls: the machine is
// busy with other processes, or other goroutines ran) parks at once, since a
// thread the kernel has descheduled would see its token only at its next
// time slice.
//
// # Records, and what may point into a stack
//
// Go moves goroutine stacks when they grow, adjusting the pointers into
// the stack that the stack itself holds, and the garbage collector must
// see every pointer; so nothing in the heap points into a stack, and no
// stack address is kept as an integer across a call that could move it. A
// Future lives in its caller's frame, but it holds only an integer, the
// depth of the job stack after its fork. Each Task owns a job stack, a
// slice of records indexed by fork depth; the record at depth d is reused
// by every later fork at depth d with the same In and Out (a type
// assertion on the slot checks that), so recursive code, which forks the
// same types at the same depths, allocates a record per depth once and
// then never again. Fork copies fn and in into the record, Join reads the
// output from it; a worker that takes the job reads fn and in from the
// record and writes the output and any panic back to it. Every pointer in a
// record is an ordinary, typed Go pointer the collector sees, and no
// record, Task or Pool refers to a Future. The price of copying fn into a
// heap record is the one allocation rule users meet: a closure that
// captures variables escapes when stored there, so Fork allocates for it
// (a top-level function does not), and so does Join2, whose second
// function is forked (see Join2).
//
// Frames are the exception that proves the rule: they are on the stack
// and point at each other (a frame at its caller's frame), pointers the
// stack's move adjusts like any other. Only the worker that runs the
// function reads them: at a signalled Join it walks them from the frame
// it joins to the oldest fork not promoted yet, copies that fork's input
// into a heap job that idle workers take, and marks the frame with it.
// Two things keep them on the stack. Fork returns the new frame by value
// (storing through a pointer into a frame would, to escape analysis, be a
// store into the heap), and Join hands its frame to the out-of-line slow
// path through noescape: the slow path is called through a function value,
// whose arguments the compiler must otherwise assume escape. noescape turns
// the pointer into an integer and back with nothing in between that could
// move the stack (no stack check, and, under -race, no conversion check):
// a move would leave the slow path marking frames in the stack's old copy,
// and the promoted fork would never be joined.
//
// # What an untaken fork costs
//
// Fork and Join are worth their promise only if they inline into the
// caller: a call each would double the cost of a fork. The compiler's
// inlining budget is tight for them, and it prices a direct call inside a
// generic function at most of that budget, but a call through a function
// parameter at a fraction, and it inlines such a call when the argument is
// a known function. So the rare paths (installing a record, the slow join)
// are reached through tiny trampolines (via1, via2, viaFrame), and the
// fast paths are written into Fork and Join themselves.
// TestForkAndJoinInline compiles recursive functions and checks that this
// still holds for Future and Frame, and that a Frame stays on the stack.
//
// Frame is the cheap way to fork. Its forked function is fixed (the one
// Recurse was given), and the frame is a variable of the forking function:
// Fork is three stores into it (the mark, the caller's frame, the input),
// with no write barrier, since the stores go to the stack, and no depth to
// count, since the frames' links are the stack of forks. Join tests one
// word: the signal of the mark the frame points to. A frame points to its
// Rec's own mark, whose signal a heartbeat sets; promoting a fork points
// its frame at a mark in the fork's job, and the root frame points at a
// root mark, both with their signal always set, so one test covers "a
// heartbeat?", "promoted?" and "the root?" (Fork takes the Rec's mark
// through the caller's mark's home field, so a promoted frame's forks are
// not marked). When nobody took the fork, Join makes the call itself from
// the frame's fields (the caller's frame and the input), so the caller
// keeps neither alive across its own calls. Measured with callgrind
// (instruction counts do not depend on the machine's load; bench/icount,
// an hour-long heartbeat so that only the forks count) on the 2^20-node
// balanced tree forking at every inner node, one fork per two nodes:
//
//	plain recursion     22.5 instructions per node
//	Frame               28.5 per node: 12.0 per untaken fork
//	Future              43.1 per node: 41.5 per untaken fork
//
// and on fib(25), a fork at every call with n ≥ 2: plain 14.5
// instructions per call, Frame 21.6 (14.1 per fork), Future 35.6
// (41.5). (Half an instruction per node moves with the code's placement:
// the assembler pads some jumps with no-ops, which count.)
//
// In the tree walk's machine code, Fork is 6 instructions: the loads of
// the mark from the caller's frame and of its home field, the three
// stores, and the address of the new frame as the call's argument. Join
// is 4 before the call: load the frame's mark and its signal, test,
// branch. The untaken call itself costs 2 more than the plain program's
// (a call through a function value: load its code pointer and its
// context) and the caller spills neither the frame pointer nor the node,
// which the plain program's caller spills for its second call. The rest
// is the compiler's: a jump over Join's slow path, which it places
// inline, and no-ops that pad jumps.
//
// Future pays for its generality: the record at the depth is an interface
// whose type Fork checks (eight instructions with the address arithmetic
// and the nil check), it stores the function value too, and Join checks
// the Future's depth against the stack's (misuse) and hands back the
// taken flag through a branch the compiler does not thread.
//
// The floor. Spice, in Zig, measures +0.30 ns per untaken fork: its record
// lives in the caller's frame, as a Frame does, but the task's state (the
// top of the list of forks, the heartbeat flag's address) lives in
// callee-saved registers across the calls between a fork and its join.
// Go has none, so the context is an argument, spilled and reloaded, and
// the heartbeat's flag is reached through it (two loads at Fork, two at
// Join). Six for Fork, four for Join and two for the call through a
// function value (or, with the call written by the caller, two for
// keeping the context and the input alive): 8 instructions per fork are
// below what Go's calling convention permits for this scheme. (Keeping
// the forks' inputs in a heap array at a counted depth instead, the
// scheme a stack-free design needs, costs more even written out by hand
// for one type with no checks: bench/icount's floorR counts 16.1 per
// fork on the tree.)
//
// Which child is forked does not change those counts, nor the cache misses
// a simulated cache (without prefetchers) sees, but it does change the
// time when the tree is bigger than the last-level cache: the walk whose
// order the hardware prefetcher cannot follow is bound by how many misses
// the processor overlaps, and the forking walk, with twice the loads and
// stores per node in flight, overlaps fewer. BenchmarkTreeOrder measures
// both orders on trees laid out both ways.
//
// Invariants of the job stack (Task.slots, the depth in Task.w, Task.bottom):
//
//   - slots[:depth] are the forks and loops not yet joined, oldest first;
//     only the owning worker's goroutine reads or writes them, except the
//     fields of a promoted record that the worker running it writes before
//     marking it done under the pool's lock.
//   - Fork records below bottom have been promoted; at or above bottom they
//     are local and their Join is the fast path. A loop frame stays offered
//     (it is split again at the next heartbeat) until its range is spent.
//   - A record is reused only after its Join has returned, which for a
//     promoted record means after the worker that took it finished: while
//     a joiner waits, its record stays on the stack and the work it runs
//     meanwhile forks above it.
//   - len(slots) > depth, so Fork reads slots[depth] without a bounds check
//     (Task.base is &slots[0], updated whenever slots grows).
//   - A Rec is one record of the job stack, from Recurse's start to its end;
//     its forks are not records but Frames on the goroutine's stack, out of
//     the Task's reach. A Task's heartbeat that meets a Rec moves bottom
//     past it (to split the loops and Futures above it); the Rec's next
//     signalled Join moves bottom back to it, offers what is older first,
//     and then its own oldest fork not promoted yet (Rec.jobs holds the
//     promoted ones until their Joins).
//
// # Joins, waiting and panics
//
// A joiner whose job was taken does not idle: it runs other ready jobs
// (which fork above its own record), and sleeps only when there are none;
// the worker that finishes its job wakes it. A job that panics on another
// worker has the panic recovered there, stored in its record, and raised
// again by Join with the original value (errors.Is and type switches see
// the same value; the stack trace is the joiner's). A panic that unwinds
// past forks that were never joined (in the caller of Call, or in a taken
// job) first withdraws the ones still offered and waits for the ones
// taken, so that when the panic leaves Call, nothing the computation forked
// is still running, and the pool is ready for the next Call.
//
// Misuse that would corrupt the job stack panics with a message instead:
// joining a Future twice or one never forked, joining out of order or on
// another Task, returning from Call's function or from a job with forks
// left unjoined, and forking a Future again before joining it (reported
// when the enclosing function returns: Fork has no room in its inlining
// budget for the check).
//
// # Lifecycle
//
// A Pool lives from NewPool to Close, which stops the background workers.
// Call never fails for want of a pool: a Call that starts after Close runs
// on its caller alone, as a Pool of one worker would, and computes the same
// result. Call has no error to return, and inventing one for a condition
// that loses nothing would make every caller handle it.
//
// # Loops
//
// For and Reduce need no grain size either. A loop runs its range in
// order on its worker, with a frame on the job stack that records how far
// it has got; when a heartbeat finds that frame the oldest offerable
// record, it cuts the untouched rest of the range in two and publishes the
// upper half as a job, which runs as a loop of its own (and is split in
// turn) wherever it is taken. A loop of cheap bodies thus runs at about
// the speed of a plain loop until someone is idle (For inlines into its
// caller, and a literal body into For's loop; Reduce calls leaf and merge
// through their function values), and the number of pieces grows with the
// number of idle workers and heartbeats, not with the range. To keep that
// bookkeeping off the cost of
// cheap iterations, a loop claims indices in blocks: up to 256 when
// iterations are cheap, sized from the worker's tick rate (which the clock
// calibrates), and one at a time when they are slow or when the bodies
// tick themselves (fork, join or call Tick), so that a block stays far
// shorter than a heartbeat either way.
//
// # Slices
//
// Sort, SortFunc, Map, Each, Sum and MinMax put For, Reduce and forks to
// work on slices for everyday code, with no grain size either. Sort is a
// quicksort that forks the upper part of every partition, so the heartbeat
// hands the biggest unsorted parts to idle workers; parts of a couple of
// thousand elements go to slices.Sort, and a part that partitions badly
// too often (adversarial input) is handed to slices.Sort whole, which keeps
// the worst case at O(n log n). Map and Each are For over the indices; Sum
// and MinMax are Reduce over blocks of a few hundred elements, folded in a
// plain loop.
//
// # Limitations
//
// The heartbeat is cooperative. Promotion only happens when the worker
// passes a Join, a loop iteration or a Tick, and it can only hand out jobs
// that were already forked. A long leaf that never calls Tick cannot be
// split, and it also holds back its siblings: the forks made before it
// stay on its worker's stack until it returns. Users of Spice and of its
// Rust port chili hit this (chili issue #33: two halves that each sleep for
// a second never run in parallel). Call Tick in long loops that do not
// fork (see the Task.Tick example), or use For, whose iterations tick.
// Blocking calls (I/O, locks, channel waits) inside a job stall its worker
// the same way: this package is for CPU-bound work.
//
// The first heartbeat of a Call comes one Heartbeat after it starts: a
// computation shorter than that runs on the caller alone, by design.
// Workers idle for longer than three heartbeats have parked, so the first
// job of a burst after a pause waits for a goroutine wake-up before it runs
// elsewhere; so does every hand-off on a machine whose cores are busy with
// other processes.
//
// A Recurse's own forks are offered only at its Joins (and Ticks): while
// its function runs a loop, a Future or a nested Recurse (through
// Frame.Task), a heartbeat splits those, and the Recurse's older forks
// wait for them to finish. The walk to the oldest fork stops after 1,024
// frames, so that a recursion down a long list pays a bounded time per
// heartbeat; past that depth, a younger fork is offered. A fork that
// nobody took cannot be told from a call never made: a Frame joined
// twice, or never joined, is caught only when another worker took it
// (Recurse panics when the function returns). A function called through
// a func variable moves its frames to the heap: still correct, at an
// allocation per fork.
//
// runtime.Goexit in a job taken by another worker (t.FailNow in a test, for
// instance) ends that job; its joiner panics with an error saying so.
//
// # Tracing
//
// Built with -tags forktrace, the package records what its scheduler does
// (when a Call starts and ends, each clock read and what it found, each
// record offered, when each job starts and ends and where, when a worker
// starts to wait, is woken and runs again, and each time it looked for work and
// found none), and BenchmarkTreeSum prints, per worker, the time spent
// running jobs, looking for one, idle and waiting for a wake-up, with the
// promotions per Call and per clock read, the time from an offer to its
// start on another worker and the size of each job taken. The hooks are
// behind a constant, so without the tag the compiler removes them. The
// program in testdata/model replays the tree sum on two workers in a
// simple model of this scheduler, to show what the wait before a promoted
// job starts, the first heartbeat and the rate of promotions cost.
package fork
