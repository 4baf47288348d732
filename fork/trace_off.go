//go:build !forktrace

package fork

// tracing is false unless the package is built with -tags forktrace (see
// trace_on.go). Every trace hook is called under `if tracing`, so without
// the tag the compiler drops the hooks and their arguments: the untaken
// fork and the scheduler are the same code as with no trace at all.
const tracing = false

func traceCall(*Task, bool)             {}
func traceBeat(*Task, beatOutcome, int) {}
func traceOffer(*Task, *header, any)    {}
func traceWithdraw(*header)             {}
func traceRun(*Task, *header, bool)     {}
func traceSleep(*Task, bool)            {}
func traceAwake(*Task)                  {}
func traceWake(*Task)                   {}
func traceNothing(*Task)                {}
