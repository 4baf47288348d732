//go:build !linux

package report

// createTemp creates the hidden temporary file beside the target.
func (a *AtomicFile) createTemp() error { return a.createNamedTemp() }

// link has nothing to do: the temporary file has a name from the start.
func (a *AtomicFile) link() error { return nil }
