//go:build !unix

package odb

import "time"

// cpuTimes is not measured here; the CPU metrics read zero.
func cpuTimes() (self, children time.Duration) { return 0, 0 }
