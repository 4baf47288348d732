package flow_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"

	"github.com/spindle-go/spindle"
	"github.com/spindle-go/spindle/flow"
)

// A pipeline: load feeds two independent stages, whose results are merged.
func Example_pipeline() {
	e := flow.NewExecutor(spindle.Config{Workers: 2})
	defer e.Close()

	var text string
	var words, lines int
	g := flow.New("pipeline")
	load := g.Add("load", func(context.Context) error {
		text = "to be or not\nto be"
		return nil
	})
	countWords := g.Add("words", func(context.Context) error {
		words = len(strings.Fields(text))
		return nil
	})
	countLines := g.Add("lines", func(context.Context) error {
		lines = strings.Count(text, "\n") + 1
		return nil
	})
	report := g.Add("report", func(context.Context) error {
		fmt.Printf("%d words on %d lines\n", words, lines)
		return nil
	})
	load.Precede(countWords, countLines)
	report.Succeed(countWords, countLines)

	if err := e.Run(context.Background(), g); err != nil {
		fmt.Println(err)
	}
	// Output: 6 words on 2 lines
}

// A subflow decides at run time how many tasks to create: one per part.
// Its successor runs after every child.
func Example_subflow() {
	e := flow.NewExecutor(spindle.Config{Workers: 2})
	defer e.Close()

	parts := []string{"alpha", "beta", "gamma"}
	var total atomic.Int64
	g := flow.New("subflow")
	split := g.AddSubflow("split", func(_ context.Context, sf *flow.Subflow) error {
		for _, p := range parts {
			sf.Add(p, func(context.Context) error {
				total.Add(int64(len(p)))
				return nil
			})
		}
		return nil
	})
	sum := g.Add("sum", func(context.Context) error {
		fmt.Println("total length:", total.Load())
		return nil
	})
	split.Precede(sum)

	if err := e.Run(context.Background(), g); err != nil {
		fmt.Println(err)
	}
	// Output: total length: 14
}

// A loop: Newton's iteration for √2 repeats until it converges. The
// condition task's edge 0 goes back to the step; edge 1 leaves the loop.
func Example_loop() {
	e := flow.NewExecutor(spindle.Config{Workers: 2})
	defer e.Close()

	var x, prev float64
	steps := 0
	g := flow.New("newton")
	init := g.Add("init", func(context.Context) error { x = 1; return nil })
	step := g.Add("step", func(context.Context) error {
		prev, x = x, (x+2/x)/2
		steps++
		return nil
	})
	converged := g.AddCondition("converged?", func(context.Context) (int, error) {
		if math.Abs(x-prev) > 1e-12 {
			return 0, nil // again
		}
		return 1, nil // done
	})
	done := g.Add("done", func(context.Context) error {
		fmt.Printf("√2 ≈ %.10f after %d steps\n", x, steps)
		return nil
	})
	init.Precede(step)
	step.Precede(converged)
	converged.Precede(step, done)

	if err := e.Run(context.Background(), g); err != nil {
		fmt.Println(err)
	}
	// Output: √2 ≈ 1.4142135624 after 6 steps
}

// Errors carry the graph and task names; a cycle is rejected before
// anything runs.
func ExampleExecutor_Run_cycle() {
	e := flow.NewExecutor(spindle.Config{Workers: 1})
	defer e.Close()

	g := flow.New("bad")
	a, b := g.Add("a", nil), g.Add("b", nil)
	g.Add("start", nil).Precede(a)
	a.Precede(b)
	b.Precede(a)
	fmt.Println(e.Run(context.Background(), g))
	// Output: flow: graph "bad": cycle not controlled by a condition task: "a" -> "b" -> "a"
}

// RunN runs a graph several times, one run after another.
func ExampleExecutor_RunN() {
	e := flow.NewExecutor(spindle.Config{Workers: 2})
	defer e.Close()

	var n atomic.Int32
	g := flow.New("count")
	g.Add("tick", func(context.Context) error { n.Add(1); return nil })
	if err := e.RunN(context.Background(), g, 5); err != nil {
		fmt.Println(err)
	}
	fmt.Println(n.Load())
	// Output: 5
}

func ExampleGraph_WriteDOT() {
	g := flow.New("build")
	compile := g.Add("compile", nil)
	ok := g.AddCondition("ok?", func(context.Context) (int, error) { return 0, nil })
	compile.Precede(ok)
	ok.Precede(g.Add("ship", nil), g.Add("fix", nil))
	if err := g.WriteDOT(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// digraph "build" {
	// 	t0 [label="compile"];
	// 	t1 [label="ok?", shape=diamond];
	// 	t2 [label="ship"];
	// 	t3 [label="fix"];
	// 	t0 -> t1;
	// 	t1 -> t2 [style=dashed, label="0"];
	// 	t1 -> t3 [style=dashed, label="1"];
	// }
}
