package classic

import (
	"sync"

	"github.com/spindle-go/spindle/fork"
)

// Tree sum, Spice's benchmark: the sum of a balanced binary tree's values,
// a fork at every node with two children (the right child forked, the left
// walked).

// Node is a binary tree node.
type Node struct {
	Val         int
	Left, Right *Node
}

// Balanced builds a balanced tree over the values [lo, hi], each node
// allocated before its children (a left-first walk reads memory in order).
func Balanced(lo, hi int) *Node {
	if lo > hi {
		return nil
	}
	mid := lo + (hi-lo)/2
	n := &Node{Val: mid}
	n.Left = Balanced(lo, mid-1)
	n.Right = Balanced(mid+1, hi)
	return n
}

// TreeSeq is plain recursion.
func TreeSeq(n *Node) int {
	s := n.Val
	if n.Left != nil {
		s += TreeSeq(n.Left)
	}
	if n.Right != nil {
		s += TreeSeq(n.Right)
	}
	return s
}

// TreeGo forks a goroutine for the right child at every node.
func TreeGo(n *Node) int {
	s := n.Val
	if n.Left != nil && n.Right != nil {
		var r int
		var wg sync.WaitGroup
		wg.Go(func() { r = TreeGo(n.Right) })
		s += TreeGo(n.Left)
		wg.Wait()
		return s + r
	}
	if n.Left != nil {
		s += TreeGo(n.Left)
	}
	if n.Right != nil {
		s += TreeGo(n.Right)
	}
	return s
}

// TreePool forks the right child to the channel pool at every node.
func TreePool(p *ChanPool, n *Node) int {
	s := n.Val
	if n.Left != nil && n.Right != nil {
		var r int
		var wg sync.WaitGroup
		p.spawn(&wg, func() { r = TreePool(p, n.Right) })
		s += TreePool(p, n.Left)
		wg.Wait()
		return s + r
	}
	if n.Left != nil {
		s += TreePool(p, n.Left)
	}
	if n.Right != nil {
		s += TreePool(p, n.Right)
	}
	return s
}

// TreeRec forks the right child with a fork.Frame at every node.
func TreeRec(f *fork.Frame[*Node, int], n *Node) int {
	s := n.Val
	if n.Left != nil && n.Right != nil {
		g := f.Fork(n.Right)
		s += TreeRec(&g, n.Left)
		return s + g.Join(TreeRec)
	}
	if n.Left != nil {
		s += TreeRec(f, n.Left)
	}
	if n.Right != nil {
		s += TreeRec(f, n.Right)
	}
	return s
}

// TreeFuture forks the right child with fork.Future at every node.
func TreeFuture(t *fork.Task, n *Node) int {
	s := n.Val
	if n.Left != nil && n.Right != nil {
		var f fork.Future[*Node, int]
		f.Fork(t, TreeFuture, n.Right)
		s += TreeFuture(t, n.Left)
		v, ok := f.Join(t)
		if !ok {
			v = TreeFuture(t, n.Right)
		}
		return s + v
	}
	if n.Left != nil {
		s += TreeFuture(t, n.Left)
	}
	if n.Right != nil {
		s += TreeFuture(t, n.Right)
	}
	return s
}
