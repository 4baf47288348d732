// Command inline instantiates an Executor so that TestFinishInlines can
// read the compiler's inlining decisions for the executor's worker loop.
package main

import "github.com/spindle-go/spindle"

func main() {
	e := spindle.New(spindle.Config{Workers: 1}, nil, func(int, *spindle.Worker[int, struct{}]) {})
	if err := e.SpawnBatch([]int{1, 2, 3}); err != nil {
		panic(err)
	}
	if _, err := e.Join(); err != nil {
		panic(err)
	}
}
