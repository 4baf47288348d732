// Command inline is compiled by TestForkAndJoinInline with -gcflags=-m to
// check that Future.Fork, Future.Join, Rec.Fork and Rec.Join inline into
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

func sumRec(r *fork.Rec[*node, int], n *node) int {
	if n == nil {
		return 0
	}
	r.Fork(n.right)
	s := n.val + sumRec(r, n.left)
	v, ok := r.Join()
	if !ok {
		v = sumRec(r, n.right)
	}
	return s + v
}

func main() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	fmt.Println(fork.Call(p, sum, &node{val: 1}), fork.Recurse(p, sumRec, &node{val: 1}))
}
