package deque

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: the stress
// and linearizability tests start owners and thieves, and every one of them
// must have been joined before its test returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
