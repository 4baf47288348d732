//go:build race

package fork_test

// raceEnabled reports a build with the race detector, whose checkptr
// instrumentation keeps Frame.Join's slow path from inlining: the frames
// of a Recurse then move to the heap.
const raceEnabled = true
