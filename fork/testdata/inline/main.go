// Command inline is compiled by TestForkAndJoinInline with -gcflags=-m to
// check that Future.Fork, Future.Join, Frame.Fork and Frame.Join inline into
// recursive user code.
package main

import (
	"fmt"

	"github.com/spindle-go/spindle/fork"
)

type node struct {
	val         int
	left, right *node
}

func sum(t *fork.Task, n *node) int {
	if n == nil {
		return 0
	}
	var f fork.Future[*node, int]
	f.Fork(t, sum, n.right)
	s := n.val + sum(t, n.left)
	r, ok := f.Join(t)
	if !ok {
		r = sum(t, n.right)
	}
	return s + r
}

func sumRec(f *fork.Frame[*node, int], n *node) int {
	if n == nil {
		return 0
	}
	g := f.Fork(n.right)
	s := n.val + sumRec(&g, n.left)
	return s + g.Join(sumRec)
}

func main() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	fmt.Println(fork.Call(p, sum, &node{val: 1}), fork.Recurse(p, sumRec, &node{val: 1}))
}
