package fork_test

import "github.com/spindle-go/spindle/fork"

// node is a binary tree node, as in Spice's benchmark.
type node struct {
	val         int
	left, right *node
}

// balanced builds a balanced tree over the values [lo, hi], allocating each
// node before its children (so a depth-first walk reads memory in order).
func balanced(lo, hi int) *node {
	if lo > hi {
		return nil
	}
	mid := lo + (hi-lo)/2
	n := &node{val: mid}
	n.left = balanced(lo, mid-1)
	n.right = balanced(mid+1, hi)
	return n
}

// sumSeq is the plain recursive code the benchmarks compare against.
func sumSeq(n *node) int {
	s := n.val
	if n.left != nil {
		s += sumSeq(n.left)
	}
	if n.right != nil {
		s += sumSeq(n.right)
	}
	return s
}

// sumFork forks at every node with two children, as Spice's benchmark
// does: it forks the right child and walks the left one itself, so that
// when nobody takes the fork it visits the nodes in the same order as
// sumSeq.
func sumFork(t *fork.Task, n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		var f fork.Future[*node, int]
		f.Fork(t, sumFork, n.right)
		s += sumFork(t, n.left)
		r, ok := f.Join(t)
		if !ok {
			r = sumFork(t, n.right)
		}
		return s + r
	}
	if n.left != nil {
		s += sumFork(t, n.left)
	}
	if n.right != nil {
		s += sumFork(t, n.right)
	}
	return s
}
