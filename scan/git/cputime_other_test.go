//go:build !linux

package git

import "time"

// threadCPU is not measured here: the linearity checks compare
// allocations only.
func threadCPU() (time.Duration, bool) { return 0, false }
