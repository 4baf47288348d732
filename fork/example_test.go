package fork_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/spindle-go/spindle/fork"
)

type Node struct {
	Val         int
	Left, Right *Node
}

func build(lo, hi int) *Node {
	if lo > hi {
		return nil
	}
	mid := (lo + hi) / 2
	return &Node{Val: mid, Left: build(lo, mid-1), Right: build(mid+1, hi)}
}

// Sum forks at every node. A top-level function passed to Fork costs no
// allocation; when nobody took the fork, the caller makes the call itself.
func Sum(t *fork.Task, n *Node) int {
	if n == nil {
		return 0
	}
	var f fork.Future[*Node, int]
	f.Fork(t, Sum, n.Right)
	s := n.Val + Sum(t, n.Left)
	r, ok := f.Join(t)
	if !ok {
		r = Sum(t, n.Right)
	}
	return s + r
}

func Example() {
	p := fork.NewPool(fork.Config{}) // GOMAXPROCS workers, 100µs heartbeat
	defer p.Close()
	fmt.Println(fork.Call(p, Sum, build(1, 1000)))
	// Output: 500500
}

func ExampleCall() {
	p := fork.NewPool(fork.Config{Workers: 2})
	defer p.Close()
	words := fork.Call(p, func(t *fork.Task, s []string) int {
		return fork.Reduce(t, 0, len(s), 0,
			func(_ *fork.Task, i int) int { return len(s[i]) },
			func(a, b int) int { return a + b })
	}, []string{"heartbeat", "scheduling"})
	fmt.Println(words)
	// Output: 19
}

// A panic in a forked job reaches the caller of Call with its original
// value, whichever worker ran the job; the pool stays usable.
func ExampleCall_panic() {
	p := fork.NewPool(fork.Config{Workers: 2})
	defer p.Close()
	errBad := errors.New("bad input")
	defer func() {
		err := recover().(error)
		fmt.Println(errors.Is(err, errBad))
	}()
	fork.Call(p, func(t *fork.Task, n int) int {
		a, _ := fork.Join2(t,
			func(*fork.Task) int { return n },
			func(*fork.Task) int { panic(errBad) })
		return a
	}, 1)
	// Output: true
}

func Fib(t *fork.Task, n int) int {
	if n < 2 {
		return n
	}
	a, b := fork.Join2(t,
		func(t *fork.Task) int { return Fib(t, n-1) },
		func(t *fork.Task) int { return Fib(t, n-2) })
	return a + b
}

func ExampleJoin2() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	fmt.Println(fork.Call(p, Fib, 20))
	// Output: 6765
}

func ExampleFuture() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	fmt.Println(fork.Call(p, Sum, build(1, 100)))
	// Output: 5050
}

func ExampleFor() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	squares := make([]int, 10)
	fork.Call(p, func(t *fork.Task, out []int) struct{} {
		// No grain size: the loop runs in order here, and each heartbeat
		// that finds an idle worker gives it half of what is left.
		fork.For(t, 0, len(out), func(_ *fork.Task, i int) { out[i] = i * i })
		return struct{}{}
	}, squares)
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func ExampleReduce() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	// merge need only be associative: the parts are merged in index order.
	s := fork.Call(p, func(t *fork.Task, n int) string {
		return fork.Reduce(t, 0, n, "",
			func(_ *fork.Task, i int) string { return string(rune('a' + i)) },
			func(a, b string) string { return a + b })
	}, 26)
	fmt.Println(s)
	// Output: abcdefghijklmnopqrstuvwxyz
}

// A long leaf that never calls Tick cannot be split, and it keeps the jobs
// forked before it on its worker until it returns. Calling Tick in the
// loop lets the heartbeat hand the forked sibling to an idle worker while
// the loop runs.
func ExampleTask_Tick() {
	p := fork.NewPool(fork.Config{Workers: 2, Heartbeat: 50 * time.Microsecond})
	defer p.Close()
	leaf := func(t *fork.Task, n int) int {
		s := 0
		for i := range n {
			s += i % 7
			if i%1024 == 0 {
				t.Tick() // a few nanoseconds; the clock is read rarely
			}
		}
		return s
	}
	total := fork.Call(p, func(t *fork.Task, n int) int {
		var f fork.Future[int, int]
		f.Fork(t, leaf, n) // offered to the idle worker at the next heartbeat
		a := leaf(t, n)    // ticks, so that heartbeat comes while it runs
		b, ok := f.Join(t)
		if !ok {
			b = leaf(t, n)
		}
		return a + b
	}, 1_000_000)
	fmt.Println(total)
	// Output: 5999994
}

// SumRec is Sum with Frames: the cheapest fork, for a function that forks
// calls of itself.
func SumRec(f *fork.Frame[*Node, int], n *Node) int {
	if n == nil {
		return 0
	}
	g := f.Fork(n.Right)
	s := n.Val + SumRec(&g, n.Left)
	return s + g.Join(SumRec) // SumRec(f, n.Right) unless another worker took it
}

func ExampleRecurse() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	fmt.Println(fork.Recurse(p, SumRec, build(1, 1000)))
	// Output: 500500
}

// countPrimes returns how many of the numbers in [lo, hi) are prime,
// forking the upper three quarters of the range in three pieces: three
// frames, each forked from the one before and joined in reverse.
func countPrimes(f *fork.Frame[[2]int, int], span [2]int) int {
	lo, hi := span[0], span[1]
	if hi-lo <= 64 {
		n := 0
		for x := lo; x < hi; x++ {
			if isPrime(x) {
				n++
			}
		}
		return n
	}
	q := (hi - lo) / 4
	parts := [4][2]int{{lo, lo + q}, {lo + q, lo + 2*q}, {lo + 2*q, lo + 3*q}, {lo + 3*q, hi}}
	g1 := f.Fork(parts[1])
	g2 := g1.Fork(parts[2])
	g3 := g2.Fork(parts[3])
	n := countPrimes(&g3, parts[0])
	// The newest fork first; an untaken fork is called with the frame
	// that was current when it was made (g3's with &g2, and so on).
	n += g3.Join(countPrimes)
	n += g2.Join(countPrimes)
	n += g1.Join(countPrimes)
	return n
}

// Forks pair with joins like calls with returns: a function may have
// several forks outstanding, and joins them newest first.
func ExampleFrame_Join() {
	p := fork.NewPool(fork.Config{})
	defer p.Close()
	fmt.Println(fork.Recurse(p, countPrimes, [2]int{0, 100_000}))
	// Output: 9592
}

func isPrime(x int) bool {
	if x < 2 {
		return false
	}
	for d := 2; d*d <= x; d++ {
		if x%d == 0 {
			return false
		}
	}
	return true
}
