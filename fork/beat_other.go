//go:build !linux

package fork

import "time"

// sleepBeat sleeps for d with the runtime's timer. (On Linux it uses the
// kernel's: see beat_linux.go.)
func sleepBeat(d time.Duration) { time.Sleep(d) }
