package bench

import (
	"fmt"
	"sync"
	"testing"

	"github.com/spindle-go/spindle/fork"
)

// The fork/join workloads of the runtime's acceptance figures, each written
// four ways:
//
//   - sequential: plain recursive code (or a plain loop), the baseline;
//   - goroutine-per-fork: a goroutine and a WaitGroup at every fork, what Go
//     code does without a library;
//   - cutoff: goroutines above a hand-tuned cutoff, sequential code below;
//     what careful Go code does, and the grain size fork removes;
//   - fork: spindle/fork, forking at every node with no grain size.
//
// Each variant that runs in parallel uses 2 workers (GOMAXPROCS is the
// machine's; run with -cpu 2 to match the acceptance figures):
//
//	go test -run '^$' -bench 'Fork' -count 5 -cpu 2 .

type forkNode struct {
	val         int
	left, right *forkNode
}

// forkTree builds a balanced tree over [lo, hi], each node allocated before
// its children, so a left-first walk reads memory in order.
func forkTree(lo, hi int) *forkNode {
	if lo > hi {
		return nil
	}
	mid := lo + (hi-lo)/2
	n := &forkNode{val: mid}
	n.left = forkTree(lo, mid-1)
	n.right = forkTree(mid+1, hi)
	return n
}

func treeSeq(n *forkNode) int {
	s := n.val
	if n.left != nil {
		s += treeSeq(n.left)
	}
	if n.right != nil {
		s += treeSeq(n.right)
	}
	return s
}

// treeGo forks a goroutine for the right child at every node with two
// children.
func treeGo(n *forkNode) int {
	s := n.val
	if n.left != nil && n.right != nil {
		var r int
		var wg sync.WaitGroup
		wg.Go(func() { r = treeGo(n.right) })
		s += treeGo(n.left)
		wg.Wait()
		return s + r
	}
	if n.left != nil {
		s += treeGo(n.left)
	}
	if n.right != nil {
		s += treeGo(n.right)
	}
	return s
}

// treeCutoff forks goroutines for the top `depth` levels only: 2^depth
// sequential subtrees. The depth is hand-tuned per tree and machine
// (treeCutoffDepth), which is the tuning fork makes unnecessary.
func treeCutoff(n *forkNode, depth int) int {
	if depth == 0 || n.left == nil || n.right == nil {
		return treeSeq(n)
	}
	var r int
	var wg sync.WaitGroup
	wg.Go(func() { r = treeCutoff(n.right, depth-1) })
	s := n.val + treeCutoff(n.left, depth-1)
	wg.Wait()
	return s + r
}

// treeFork is the fork version: fork the right child at every node with
// two children, walk the left one, run the right one here if nobody took it.
func treeFork(t *fork.Task, n *forkNode) int {
	s := n.val
	if n.left != nil && n.right != nil {
		var f fork.Future[*forkNode, int]
		f.Fork(t, treeFork, n.right)
		s += treeFork(t, n.left)
		r, ok := f.Join(t)
		if !ok {
			r = treeFork(t, n.right)
		}
		return s + r
	}
	if n.left != nil {
		s += treeFork(t, n.left)
	}
	if n.right != nil {
		s += treeFork(t, n.right)
	}
	return s
}

var forkSink int

func perUnit(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), unit)
}

// treeCutoffDepth is the best cutoff measured on a 2-core machine, per tree
// size: 4 levels (16 subtrees) for 2^20 nodes; for 1023 nodes any goroutine
// costs more than the whole sum, so the best cutoff is none at all.
var treeCutoffDepth = map[int]int{1<<20 - 1: 4, 1023: 0}

func BenchmarkForkTreeSum(b *testing.B) {
	for _, size := range []int{1<<20 - 1, 1023} {
		root := forkTree(1, size)
		want := treeSeq(root)
		check := func(b *testing.B, got int) {
			if got != want {
				b.Fatalf("sum = %d, want %d", got, want)
			}
		}
		b.Run(fmt.Sprintf("nodes=%d/sequential", size), func(b *testing.B) {
			for b.Loop() {
				forkSink = treeSeq(root)
			}
			perUnit(b, size, "ns/node")
		})
		b.Run(fmt.Sprintf("nodes=%d/goroutine-per-fork", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				check(b, treeGo(root))
			}
			perUnit(b, size, "ns/node")
		})
		for _, depth := range []int{treeCutoffDepth[size], 8} {
			b.Run(fmt.Sprintf("nodes=%d/cutoff-depth=%d", size, depth), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					check(b, treeCutoff(root, depth))
				}
				perUnit(b, size, "ns/node")
			})
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("nodes=%d/fork-workers=%d", size, workers), func(b *testing.B) {
				p := fork.NewPool(fork.Config{Workers: workers})
				defer p.Close()
				b.ReportAllocs()
				for b.Loop() {
					check(b, fork.Call(p, treeFork, root))
				}
				perUnit(b, size, "ns/node")
			})
		}
	}
}

// The loop workload: out[i] = mix(i) over 10M elements, a few nanoseconds
// each.
const forkElems = 10_000_000

func forkMix(i int) uint32 {
	x := uint64(i) * 0x9e3779b97f4a7c15
	x ^= x >> 29
	x *= 0xbf58476d1ce4e5b9
	return uint32(x ^ x>>32)
}

// loopGo splits [lo, hi) in halves with a goroutine per split, down to
// leaves of `leaf` elements.
func loopGo(out []uint32, lo, hi, leaf int) {
	if hi-lo <= leaf {
		for i := lo; i < hi; i++ {
			out[i] = forkMix(i)
		}
		return
	}
	mid := lo + (hi-lo)/2
	var wg sync.WaitGroup
	wg.Go(func() { loopGo(out, mid, hi, leaf) })
	loopGo(out, lo, mid, leaf)
	wg.Wait()
}

func BenchmarkForkFor(b *testing.B) {
	out := make([]uint32, forkElems)
	check := func(b *testing.B) {
		for _, i := range []int{0, 1, forkElems / 3, forkElems - 1} {
			if out[i] != forkMix(i) {
				b.Fatalf("out[%d] not written", i)
			}
			out[i] = 0
		}
	}
	b.Run("sequential", func(b *testing.B) {
		for b.Loop() {
			for i := range out {
				out[i] = forkMix(i)
			}
		}
		perUnit(b, forkElems, "ns/elem")
	})
	// A goroutine per element would need 10M goroutines at once in the
	// worst case (gigabytes of stacks), so goroutine-per-fork stops at
	// leaves of 64 elements: already a grain size, and still far slower.
	b.Run("goroutine-per-fork-leaf=64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			loopGo(out, 0, forkElems, 64)
			check(b)
		}
		perUnit(b, forkElems, "ns/elem")
	})
	// The hand-tuned cutoff: 8 chunks for 2 workers, the best measured.
	b.Run("cutoff-chunks=8", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			loopGo(out, 0, forkElems, forkElems/8)
			check(b)
		}
		perUnit(b, forkElems, "ns/elem")
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("fork-workers=%d", workers), func(b *testing.B) {
			p := fork.NewPool(fork.Config{Workers: workers})
			defer p.Close()
			b.ReportAllocs()
			body := func(_ *fork.Task, i int) { out[i] = forkMix(i) }
			for b.Loop() {
				fork.Call(p, func(t *fork.Task, _ int) int {
					fork.For(t, 0, forkElems, body)
					return 0
				}, 0)
				check(b)
			}
			perUnit(b, forkElems, "ns/elem")
		})
	}
}
