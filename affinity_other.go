//go:build !linux

package spindle

// pinToCore is a no-op where thread affinity is not supported.
func pinToCore(int) {}
