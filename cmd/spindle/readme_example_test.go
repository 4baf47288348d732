package main

// The library examples of README.md, kept compiling and correct here and in
// readme_scan_example_test.go: TestReadmeSnippetsAreExamples checks that
// every Go block of the README appears, line for line, in the body of one of
// these functions (or is one of the functions they call), and go test runs
// them and checks their output.

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/flow"
	"github.com/spindle-go/spindle/fork"
)

func Example_executor() {
	var sum atomic.Int64
	ex := spindle.Start(context.Background(), spindle.Config{Workers: 4},
		func(n int64, w *spindle.Spawner[int64]) {
			sum.Add(n)
			if n > 1 {
				w.Spawn(n - 1) // onto this worker's deque; idle workers steal
			}
		})
	ex.Spawn(1000)
	err := ex.Close() // every task spawned, directly or not, has run
	fmt.Println(sum.Load(), err)
	// Output: 500500 <nil>
}

func Example_slices() {
	p := fork.NewPool(fork.Config{}) // GOMAXPROCS workers, no grain size anywhere
	defer p.Close()
	ids := []int{42, 7, 19, 3}
	fork.Sort(p, ids) // any cmp.Ordered slice; fork.SortFunc for the rest
	squares := fork.Map(p, ids, func(x int) int { return x * x })
	fork.Each(p, squares, func(i int, x *int) { *x += i })
	lo, hi, _ := fork.MinMax(p, squares)
	fmt.Println(ids, squares, fork.Sum(p, squares), lo, hi)
	// Output: [3 7 19 42] [9 50 363 1767] 2189 9 1767
}

func Example_fork() {
	pool := fork.NewPool(fork.Config{})
	defer pool.Close()
	var fib func(t *fork.Task, n int) int
	fib = func(t *fork.Task, n int) int {
		if n < 2 {
			return n
		}
		a, b := fork.Join2(t, // b is offered to idle workers, not spawned
			func(t *fork.Task) int { return fib(t, n-1) },
			func(t *fork.Task) int { return fib(t, n-2) })
		return a + b
	}
	fmt.Println(fork.Call(pool, fib, 20))
	// Output: 6765
}

// fib forks with Frames: a named function calling itself directly, so that
// its frames stay on the stack (see fork.Frame).
func fib(f *fork.Frame[int, int], n int) int {
	if n < 2 {
		return n
	}
	g := f.Fork(n - 2) // a call of fib itself, offered to idle workers
	a := fib(&g, n-1)
	return a + g.Join(fib) // fib(f, n-2) here, unless a worker took it
}

func Example_forkRecurse() {
	pool := fork.NewPool(fork.Config{})
	defer pool.Close()
	fmt.Println(fork.Recurse(pool, fib, 30))
	// Output: 832040
}

func Example_flow() {
	g := flow.New("release")
	step := func(name string) func(context.Context) error {
		return func(context.Context) error { fmt.Println(name); return nil }
	}
	build := g.Add("build", step("build"))
	test := g.Add("test", step("test")).Succeed(build)
	g.Add("ship", step("ship")).Succeed(test)
	ex := flow.NewExecutor(spindle.Config{})
	defer ex.Close()
	if err := ex.Run(context.Background(), g); err != nil {
		log.Fatal(err)
	}
	// Output:
	// build
	// test
	// ship
}
