// Command icount runs one workload of Spindle's runtime a fixed number of
// times, so that valgrind's instruction counts can be compared between
// versions and variants: unlike times, they do not depend on what else the
// machine is doing. icount.sh runs it under callgrind and prints the
// instructions per unit (node, task, element), the difference between a
// variant and the same program run with -v none (which builds the input and
// does nothing with it).
//
//	./icount.sh tree forkL parent    # per node: fork-left walk of the 2^20 tree
//	./icount.sh tree rec             # per node: the same walk with fork.Frame
//	./icount.sh tree join2           # per node: the same walk with fork.Join2 (closures)
//	./icount.sh tree floor           # per node: the least Go allows (see floorR)
//	./icount.sh fib rec              # per call of fib(25), fork.Frame (seq, future)
//	./icount.sh inject spindle       # per task: 1M injected tasks, 1 worker
//	./icount.sh sort fork            # per element: fork.Sort of 1M ints, 1 worker
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/fork"
	"github.com/spindle-go/spindle/internal/classic"
)

type node struct {
	val         int
	left, right *node
}

// parentFirst allocates each node before its children: a left-first walk
// reads memory in address order.
func parentFirst(lo, hi int) *node {
	if lo > hi {
		return nil
	}
	mid := lo + (hi-lo)/2
	n := &node{val: mid}
	n.left = parentFirst(lo, mid-1)
	n.right = parentFirst(mid+1, hi)
	return n
}

// childrenFirst allocates each node after its children.
func childrenFirst(lo, hi int) *node {
	if lo > hi {
		return nil
	}
	mid := lo + (hi-lo)/2
	l := childrenFirst(lo, mid-1)
	r := childrenFirst(mid+1, hi)
	return &node{val: mid, left: l, right: r}
}

func seqL(n *node) int {
	s := n.val
	if n.left != nil {
		s += seqL(n.left)
	}
	if n.right != nil {
		s += seqL(n.right)
	}
	return s
}

func seqR(n *node) int {
	s := n.val
	if n.right != nil {
		s += seqR(n.right)
	}
	if n.left != nil {
		s += seqR(n.left)
	}
	return s
}

// forkR forks the right child and walks the left: seqL's order when nobody
// takes the fork.
func forkR(t *fork.Task, n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		var f fork.Future[*node, int]
		f.Fork(t, forkR, n.right)
		s += forkR(t, n.left)
		r, ok := f.Join(t)
		if !ok {
			r = forkR(t, n.right)
		}
		return s + r
	}
	if n.left != nil {
		s += forkR(t, n.left)
	}
	if n.right != nil {
		s += forkR(t, n.right)
	}
	return s
}

// join2R is forkR written with fork.Join2: the right child is the
// second function, which Join2 forks.
func join2R(t *fork.Task, n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		l, r := fork.Join2(t,
			func(t *fork.Task) int { return join2R(t, n.left) },
			func(t *fork.Task) int { return join2R(t, n.right) })
		return s + l + r
	}
	if n.left != nil {
		s += join2R(t, n.left)
	}
	if n.right != nil {
		s += join2R(t, n.right)
	}
	return s
}

// forkL forks the left child and walks the right: seqR's order.
func forkL(t *fork.Task, n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		var f fork.Future[*node, int]
		f.Fork(t, forkL, n.left)
		s += forkL(t, n.right)
		l, ok := f.Join(t)
		if !ok {
			l = forkL(t, n.left)
		}
		return s + l
	}
	if n.right != nil {
		s += forkL(t, n.right)
	}
	if n.left != nil {
		s += forkL(t, n.left)
	}
	return s
}

// recR is forkR written with fork.Frame.
func recR(f *fork.Frame[*node, int], n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		g := f.Fork(n.right)
		s += recR(&g, n.left)
		return s + g.Join(recR)
	}
	if n.left != nil {
		s += recR(f, n.left)
	}
	if n.right != nil {
		s += recR(f, n.right)
	}
	return s
}

// floorTask is the least a fork can do in Go with Spice's scheme, written
// out for one type: the input stored at the depth in a heap array (a
// record another worker may read cannot be in the goroutine's stack), the
// depth kept in memory, and one compare at the join against the oldest
// promoted record, into which a heartbeat set from outside would be
// folded. No heartbeat countdown, no type check, no checks of misuse.
type floorTask struct {
	depth int
	limit int
	base  unsafe.Pointer
	stack []*node
}

//go:noinline
func (t *floorTask) slow(int) bool { return false }

func floorR(t *floorTask, n *node) int {
	s := n.val
	if n.left != nil && n.right != nil {
		d := t.depth
		*(**node)(unsafe.Add(t.base, uintptr(d)*8)) = n.right
		t.depth = d + 1
		s += floorR(t, n.left)
		d = t.depth - 1
		if d < t.limit && t.slow(d) {
			return s // taken: the result would be read here
		}
		t.depth = d
		return s + floorR(t, n.right)
	}
	if n.left != nil {
		s += floorR(t, n.left)
	}
	if n.right != nil {
		s += floorR(t, n.right)
	}
	return s
}

var sink atomic.Int64

//go:noinline
func tiny(i int) {
	if i == -1 {
		sink.Add(1)
	}
}

// inject queues n tiny tasks on a 1-worker executor in batches of 1024
// while its worker waits at a gate, then lets it run them: the count per
// task does not depend on who waited for whom.
func inject(n int) {
	gate := make(chan struct{})
	// New, not Start: the program also builds against older versions.
	e := spindle.New(spindle.Config{Workers: 1}, nil, func(i int, _ *spindle.Worker[int, struct{}]) {
		if i == -2 {
			<-gate
			return
		}
		tiny(i)
	})
	if err := e.Spawn(-2); err != nil {
		panic(err)
	}
	buf := make([]int, 1024)
	for sent := 0; sent < n; sent += len(buf) {
		b := buf[:min(len(buf), n-sent)]
		for j := range b {
			b[j] = sent + j
		}
		if err := e.SpawnBatch(b); err != nil {
			panic(err)
		}
	}
	close(gate)
	if _, err := e.Join(); err != nil {
		panic(err)
	}
}

func main() {
	workload := flag.String("w", "tree", "tree, inject or sort")
	variant := flag.String("v", "none", "tree: seqL, seqR, forkR, forkL, join2, rec, floor; fib: seq, rec, future; inject: spindle; sort: seq, fork; all: none")
	layout := flag.String("layout", "parent", "tree: parent or children (first)")
	n := flag.Int("n", 0, "units (default: 2^20-1 nodes, 2^20 tasks, 10^6 elements)")
	reps := flag.Int("r", 2, "tree: walks")
	flag.Parse()
	// An hour-long heartbeat: no clock read is counted, only the forks.
	p := fork.NewPool(fork.Config{Workers: 1, Heartbeat: time.Hour})
	defer p.Close()
	var units int
	switch *workload {
	case "tree":
		size := 1<<20 - 1
		if *n > 0 {
			size = *n
		}
		build := parentFirst
		if *layout == "children" {
			build = childrenFirst
		}
		root := build(1, size)
		s := 0
		for range *reps {
			switch *variant {
			case "none":
			case "seqL":
				s += seqL(root)
			case "seqR":
				s += seqR(root)
			case "forkR":
				s += fork.Call(p, forkR, root)
			case "forkL":
				s += fork.Call(p, forkL, root)
			case "join2":
				s += fork.Call(p, join2R, root)
			case "rec":
				s += fork.Recurse(p, recR, root)
			case "floor":
				t := &floorTask{stack: make([]*node, 64)}
				t.base = unsafe.Pointer(&t.stack[0])
				s += floorR(t, root)
			default:
				fail(*variant)
			}
		}
		sink.Add(int64(s))
		units = size * *reps
	case "fib":
		// units: calls of fib(25) (242,785, of which 121,392 fork).
		units = 242785
		switch *variant {
		case "none":
		case "seq":
			sink.Add(int64(classic.FibSeq(25)))
		case "rec":
			sink.Add(int64(fork.Recurse(p, classic.FibRec, 25)))
		case "future":
			sink.Add(int64(fork.Call(p, classic.FibFuture, 25)))
		default:
			fail(*variant)
		}
	case "inject":
		units = 1 << 20
		if *n > 0 {
			units = *n
		}
		switch *variant {
		case "none":
			inject(0)
		case "spindle":
			inject(units)
		default:
			fail(*variant)
		}
	case "sort":
		units = 1_000_000
		if *n > 0 {
			units = *n
		}
		rng := rand.New(rand.NewPCG(1, 1))
		s := make([]int, units)
		for i := range s {
			s[i] = rng.Int()
		}
		switch *variant {
		case "none":
		case "seq":
			slices.Sort(s)
		case "fork":
			fork.Sort(p, s)
		default:
			fail(*variant)
		}
	default:
		fail(*workload)
	}
	fmt.Println(units)
}

func fail(what string) {
	fmt.Fprintf(os.Stderr, "icount: unknown %q\n", what)
	os.Exit(2)
}
