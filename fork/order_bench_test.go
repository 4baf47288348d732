package fork_test

import (
	"fmt"
	"testing"

	"github.com/spindle-go/spindle/fork"
)

// Which child is forked should not matter. BenchmarkTreeOrder walks the 2^20
// tree in both orders (left child first, right child first), on trees laid
// out parent-first (each node allocated before its children, so a left-first
// walk reads memory in address order) and children-first (the reverse), as
// plain recursion and forking at every node: fork-left walks the right child
// and forks the left, so it visits the nodes in the order of the
// right-first plain walk, and fork-right in the order of the left-first one.
// The ratio to read is fork-X over the plain walk in the same order:
//
//	go test -run '^$' -bench 'TreeOrder' -count 10 ./fork > order.txt
//	benchstat -col /walk order.txt
//
// On a tree bigger than the last-level cache, the order the hardware
// prefetcher cannot follow costs plain recursion about 3× the other; a fork
// adds loads and stores per node (the record, the depth, the Future), which
// cuts how many cache misses the processor can overlap, so that order costs
// the forking walk more again.

// childrenFirst builds the same tree as balanced, each node allocated after
// its children.
func childrenFirst(lo, hi int) *node {
	if lo > hi {
		return nil
	}
	mid := lo + (hi-lo)/2
	l := childrenFirst(lo, mid-1)
	r := childrenFirst(mid+1, hi)
	return &node{val: mid, left: l, right: r}
}

// sumSeqRight is sumSeq visiting the right child first.
func sumSeqRight(n *node) int {
	s := n.val
	if n.right != nil {
		s += sumSeqRight(n.right)
	}
	if n.left != nil {
		s += sumSeqRight(n.left)
	}
	return s
}

// sumForkLeft is sumFork forking the left child and walking the right one:
// when nobody takes the fork it visits the nodes as sumSeqRight does.
func sumForkLeft(t *fork.Task, n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		var f fork.Future[*node, int]
		f.Fork(t, sumForkLeft, n.left)
		s += sumForkLeft(t, n.right)
		l, ok := f.Join(t)
		if !ok {
			l = sumForkLeft(t, n.left)
		}
		return s + l
	}
	if n.right != nil {
		s += sumForkLeft(t, n.right)
	}
	if n.left != nil {
		s += sumForkLeft(t, n.left)
	}
	return s
}

func BenchmarkTreeOrder(b *testing.B) {
	const size = 1<<20 - 1
	layouts := []struct {
		name string
		root *node
	}{{"parent-first", balanced(1, size)}, {"children-first", childrenFirst(1, size)}}
	for _, l := range layouts {
		want := sumSeq(l.root)
		walks := []struct {
			name string
			seq  func(*node) int
			fork func(*fork.Task, *node) int
		}{
			{"plain-left-first", sumSeq, nil},
			{"plain-right-first", sumSeqRight, nil},
			{"fork-right", nil, sumFork},
			{"fork-left", nil, sumForkLeft},
		}
		for _, w := range walks {
			workers := []int{0}
			if w.fork != nil {
				workers = []int{1, 2}
			}
			for _, n := range workers {
				name := fmt.Sprintf("layout=%s/walk=%s", l.name, w.name)
				if n > 0 {
					name += fmt.Sprintf("/workers=%d", n)
				}
				b.Run(name, func(b *testing.B) {
					var p *fork.Pool
					if n > 0 {
						p = fork.NewPool(fork.Config{Workers: n})
						defer p.Close()
					}
					b.ReportAllocs()
					for b.Loop() {
						var got int
						if p == nil {
							got = w.seq(l.root)
						} else {
							got = fork.Call(p, w.fork, l.root)
						}
						if got != want {
							b.Fatalf("sum %d, want %d", got, want)
						}
					}
					perItem(b, size, "ns/node")
				})
			}
		}
	}
}
