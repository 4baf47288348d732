// Package sim is Spindle's deterministic simulator. It drives the very policy
// the executor runs (internal/core: the gate word, pop order, worker step,
// spills, steals and the park/wake protocol) with N virtual workers in one
// goroutine, choosing who moves next from a seed or from a scripted list.
//
// # What it checks
//
// After every step: no task runs twice, no task runs that was never accepted,
// "done" is signalled at most once and never before every accepted task has
// completed (unless the run was shut down or a task panicked), and a terminal
// gate word is always followed by done. At the end: done was signalled exactly
// once, and after a Join every accepted task ran exactly once and the word is
// zero. A state in which no worker can move but the run is not over is a hang
// (a lost wakeup, since the simulator never uses park timeouts), and is
// reported as one; a test breaks the waker on purpose to prove it is caught.
// The in-flight count cannot underflow: core panics if it would, and the
// simulator reports that panic as a violation.
//
// # Cases, traces and replay
//
// A Case (JSON in testdata) fixes the workload shape, the configuration and,
// optionally, the schedule (Choices). Every scheduling decision and task
// execution is traced; the trace's FNV-64a hash pins the behaviour of a
// replay case, so a change to the policy that alters scheduling shows up as a
// hash mismatch (regenerate with `go test ./sim -run TestReplayCases -update`
// after checking that the change is intended). The random-schedule test runs
// thousands of seeds; a failing one is written out as a replay case with its
// recorded Choices.
//
// # Interleavings
//
// The simulator's step is one whole worker step, which is the right grain for
// scheduling properties but too coarse for races on the gate word itself. For
// those, Explore enumerates every interleaving of small threads whose steps
// are single atomic operations on core.State, and LoomModels restates the four
// races that the Rust pool this executor follows checks with the loom model
// checker: spawn vs join gate, completion vs join
// termination, concurrent spawns, and spawn/complete/join three ways. A
// deliberately broken gate (separate check and add) is checked to fail, so
// the explorer is known to be able to find the bug it guards against.
package sim
