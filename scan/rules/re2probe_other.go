//go:build !unix

package rules

// re2Fits reports whether go-re2 can reserve its memory; only Unix
// processes run under a virtual-memory limit that forbids it.
func re2Fits() bool { return true }
