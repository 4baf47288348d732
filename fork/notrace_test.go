//go:build !forktrace

package fork_test

import (
	"testing"

	"github.com/spindle-go/spindle/fork"
)

// traceTree does nothing without -tags forktrace (see trace_test.go).
func traceTree(*testing.B, *fork.Pool) func() { return func() {} }
