//go:build forktrace

package fork_test

import (
	"testing"

	"github.com/spindle-go/spindle/fork"
)

// traceTree records the scheduler's trace while a tree benchmark runs on p
// (built with -tags forktrace). The returned function stops it, logs the
// report and reports its headline figures as metrics: the share of the
// workers' time not spent running jobs, promotions per Call, and the median
// time from an offer to its start on another worker.
func traceTree(b *testing.B, p *fork.Pool) func() {
	fork.TraceStart()
	return func() {
		r := fork.TraceStop(p, treeSize)
		b.Log("\n" + r.String())
		b.ReportMetric(100*r.Idle(), "idle-%")
		if r.Calls > 0 {
			b.ReportMetric(float64(r.Offers)/float64(r.Calls), "offers/call")
		}
	}
}

// treeSize counts the nodes below an offered job's input: the trees are
// balanced over consecutive values, so the subtree of n holds the values
// from its leftmost to its rightmost node.
func treeSize(in any) int {
	n, ok := in.(*node)
	if !ok || n == nil {
		return 0
	}
	lo, hi := n, n
	for lo.left != nil {
		lo = lo.left
	}
	for hi.right != nil {
		hi = hi.right
	}
	return hi.val - lo.val + 1
}
