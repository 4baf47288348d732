//go:build forktrace

package fork

// TraceStart starts recording the scheduler's trace (see trace_on.go),
// discarding what was recorded before.
func TraceStart() { traceStart() }

// TraceStop stops recording and analyzes what p's workers did since
// TraceStart; size says how much work an offered job's input holds.
func TraceStop(p *Pool, size func(any) int) *traceReport { return traceStop(p.heartbeat, size) }
