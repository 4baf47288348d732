//go:build !unix

package lincheck

import "time"

var start = time.Now()

// cpuNow is wall time where the process's CPU time is not at hand.
func cpuNow() time.Duration { return time.Since(start) }
