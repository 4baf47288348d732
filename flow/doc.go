// Package flow runs task graphs — tasks with dependencies, subflows that
// build child graphs at run time, and condition tasks that branch and loop —
// on Spindle's work-stealing executor.
//
// It implements the Taskflow model (after C++ Taskflow and its Rust port
// TaskFlow-RS) and fixes what the Go and Rust ports leave out:
// go-taskflow runs every task through one mutex-protected queue, blocks a
// worker for the whole life of a subflow, and logs panics instead of
// returning them; neither port has contexts or error results.
//
//	g := flow.New("pipeline")
//	load := g.Add("load", load)
//	parse := g.Add("parse", parse)
//	load.Precede(parse)
//	e := flow.NewExecutor(spindle.Config{Workers: 4})
//	defer e.Close()
//	err := e.Run(ctx, g)
//
// # Graphs and plans
//
// A Graph is a builder. The first Run after a change compiles it into a plan:
// tasks as dense int32 indices, successors in one flat array, each task's
// strong in-degree, and the list of source tasks. Compiling validates the
// graph, so a malformed graph is an error from Run before any task runs, never
// a hang: a cycle of strong edges (ErrCycle, naming the tasks on it), a
// non-empty graph without a source (ErrNoSource), an edge to a task of
// another graph (ErrForeignTask), a nil task or condition (ErrNilTask). The
// plan is immutable and cached until the graph changes, so the same graph may
// run many times, concurrently, and may even be changed while runs are in
// flight: each run keeps the plan it started with.
//
// # Executor and strands
//
// An Executor owns one persistent spindle.Executor whose task type is a small
// value, a strand: (frame, range). A strand runs tasks of one graph, one after
// another, on one worker. Every run of a graph has its own dependency
// counters — a []uint64 of arrivals indexed by task, updated with atomic adds —
// in a run state pooled per plan, so concurrent runs of one graph share
// nothing but the plan, and a run allocates only its context (two small
// allocations; none for the counters, which are cleared, not reallocated).
//
// A run starts one claimer strand per worker (fewer for fewer sources). A
// claimer takes chunks of the source list from an atomic cursor, each chunk
// the remainder divided by twice the worker count (guided self-scheduling), so
// 1000 independent tasks cost a handful of shared atomic operations, and the
// last chunks, of one task, balance the workers.
//
// When a task finishes, it adds an arrival to each successor's counter; a
// successor is ready when its arrivals reach its strong in-degree (a
// successor with a single strong predecessor needs no counter at all). If
// exactly one becomes ready, the strand runs it next itself: a chain of
// tasks costs no scheduling and no shared write. If several become ready, all
// are spawned with Worker.Spawn: the last lands in the worker's private LIFO
// slot and runs next on the same worker; the others go to its ring, where
// idle workers steal them. (Running one inline and spawning the rest would
// leave a lone sibling in that private slot, out of thieves' reach until the
// inline chain ends: a diamond would run serially.) A claimer that spawns
// first re-spawns itself with the rest of its chunk, so the chunk stays
// stealable behind the new work.
//
// Completion is counted per frame (a frame is the root graph of a run, or the
// children of one subflow execution): pending counts the frame's strands plus
// its subflow tasks whose children are still running. A strand that spawns
// passes its unit to one of the spawned strands, so a fan-out of k costs one
// atomic add of k-1 and a chain costs none. Whoever takes pending to zero
// finishes the frame: for the root, it wakes Run.
//
// # Subflows
//
// A subflow task's function fills a *Subflow with child tasks. When it
// returns, the children are compiled (and validated) as a graph of their own
// and started as a new frame whose claimers are spawned on the pool; the
// subflow task keeps one unit of its parent frame. No worker waits: the
// strand that finishes the last child takes that unit and goes on with the
// subflow task's successors in the parent frame. Subflows nest to any depth,
// and a graph of subflows runs on a single worker (go-taskflow needs more
// workers than nesting levels). A subflow's children may be linked only with
// each other.
//
// # Condition tasks
//
// A condition task returns the index of the one successor to run, numbered in
// the order the successors were added (Precede order). As in Taskflow, edges
// out of a condition task are weak: they do not count toward the successor's
// in-degree. The rules that follow:
//
//   - A source is a task with no predecessors at all, strong or weak. A task
//     whose only predecessors are condition tasks runs only when one picks it.
//   - A task with strong predecessors runs when all of them have finished
//     (its counter reaches zero), and also each time a condition task picks
//     it. A task with both kinds therefore runs once per trigger: the loop
//     shape init → body → cond, with cond's edge 0 back to body, runs body
//     once for init and once per "again" from cond. Do not give a task two
//     triggers that can fire in the same round unless you mean it to run twice.
//   - A cycle is valid only if a weak edge closes it (a loop goes through a
//     condition task); a cycle of strong edges is ErrCycle.
//   - In a graph with condition tasks, a task becomes ready on every k-th
//     arrival of its k strong predecessors, so tasks inside a loop wait for
//     their strong predecessors afresh in every round, even when a
//     predecessor of the next round finishes before the task has started.
//   - An index outside [0, number of successors) is ErrConditionIndex and
//     stops the run. To leave a loop, pick an explicit exit successor.
//
// A condition's choice is taken inline, like a single ready successor.
//
// # Errors, panics and cancellation
//
// Each run has a context derived from Run's ctx, given to every task. The
// first task error, or panic (recovered and returned as a *spindle.PanicError
// with the stack), cancels it with the error as cause. Strands check the
// context before starting each task, so tasks not yet started are skipped;
// running tasks are not interrupted, and Run returns only when all of them
// have returned. Cancelling ctx stops a run the same way (the cancellation
// reaches the run's context synchronously), and Run returns ctx's error if
// any task was skipped because of it. Errors are wrapped with the graph's
// name and the task's path (subflow/child), so errors.Is and errors.As see
// the original.
//
// A task that calls runtime.Goexit (t.FailNow in a test) fails its run the
// same way, with a *spindle.PanicError whose Value is spindle.ErrGoexit.
// One guard covers every kind of task: the executor's spindle.Config.OnPanic
// handler, which the spindle executor calls on the worker after the task has
// unwound. Before it runs user code, a strand notes the task in its worker's
// scratch (two stores, no defer); the handler fails that task's run and
// gives back the unit its strand held, so the run ends instead of waiting
// for a strand that will never finish. The executor keeps running (a
// worker whose goroutine Goexit ended goes on in a new one), and other runs
// are unaffected.
//
// # Runs, RunN and Close
//
// Run runs a graph once. RunN runs it n times one after another (each run
// starts after the previous has completed) with one context and stops at the
// first error; for n parallel runs, call Run from n goroutines. Close waits
// for the runs in flight and stops the workers; Run after Close fails with
// an error wrapping ErrClosed (which is spindle.ErrClosed). Run must not be
// called from a task of the same executor: that would block a worker waiting
// for the inner run; use a subflow.
package flow
